// Package staticsite turns a directory of static files into a deterministic, content-addressed
// manifest: what kamuidash_static_site uploads to R2 and what the Worker serves (the layout is
// route.SiteManifest's: objects by hash, one manifest per version, split into shards when the
// version is large). The same files give the
// same version on every machine, whatever their modification times, owners or the order the
// file system lists them in.
package staticsite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

// Limits keep a plan from reading something that is not a static site (a home directory, a
// node_modules tree). Files are hashed and uploaded as streams, so MaxFileBytes bounds upload
// time, not memory: 128 MiB takes a 100 MB video, equals the local edge's object limit (cfapi's
// r2MaxObjectBytes), and stays far below R2's single-request upload limit (4.995 GiB,
// developers.cloudflare.com/r2/platform/limits).
const (
	MaxFiles      = 20000
	MaxTotalBytes = 512 << 20
	MaxFileBytes  = 128 << 20
)

// MaxPathBytes is the longest path the Worker serves (route.MaxSitePathBytes): a longer file
// could be uploaded but never answered.
const MaxPathBytes = route.MaxSitePathBytes

// VersionLength is how many hex digits of the content hash name a version: 64 bits, so two
// different sites of one app never share a prefix in practice.
const VersionLength = 16

// File is one file of a site.
type File struct {
	// Path is slash-separated and relative to the site root, e.g. "assets/app.js".
	Path string
	// ContentType is derived from the extension (see ContentType).
	ContentType string
	// SHA256 is the lower-case hex SHA-256 of the content: the name of its object.
	SHA256 string
	Size   int64
	// source is where the content is read from at upload time.
	source string
}

// Manifest is a site: its files in path order and its version.
type Manifest struct {
	Files []File
	// Version is the first VersionLength hex digits of the SHA-256 over every file's path,
	// content type and content SHA-256, in path order.
	Version string
}

// SitePrefix holds everything of a site, its objects and every version's manifest:
// sites/<name>/.
func SitePrefix(name string) string { return "sites/" + name + "/" }

// ManifestKey is the key of one version's manifest: sites/<name>/manifests/<version>.json.
func ManifestKey(name, version string) string {
	return route.SiteManifestKey(SitePrefix(name), version)
}

// ObjectKey is the key of a content object: sites/<name>/objects/<sha256>.
func ObjectKey(name, sha string) string { return route.SiteObjectKey(SitePrefix(name), sha) }

// Site is the manifest the Worker reads for this version.
func (m *Manifest) Site() route.SiteManifest {
	files := make(map[string]route.SiteFile, len(m.Files))
	for _, f := range m.Files {
		files[f.Path] = route.SiteFile{Object: f.SHA256, Type: f.ContentType, Size: f.Size}
	}
	return route.SiteManifest{Files: files}
}

// FileObjects maps each file, by its NameKey (one entry whichever spellings it is served
// under), to its object: the files attribute of kamuidash_static_site.
func (m *Manifest) FileObjects() map[string]string {
	files := make(map[string]string, len(m.Files))
	for _, f := range m.Files {
		files[NameKey(f.Path)] = f.SHA256
	}
	return files
}

// Objects returns each distinct content once, in path order of its first use: what an upload
// sends (two paths with the same bytes share one object).
func (m *Manifest) Objects() []File {
	seen := make(map[string]bool, len(m.Files))
	var out []File
	for _, f := range m.Files {
		if !seen[f.SHA256] {
			seen[f.SHA256] = true
			out = append(out, f)
		}
	}
	return out
}

// Read walks dir and builds its manifest. Hidden files and directories (a leading ".") are
// left out, so a checkout's .git never ships, except the files of the site root's .well-known
// directory (see hidden). Every name is checked (see checkName), so a path
// the Worker would not serve fails the plan with that path instead of uploading a dead file.
// A name with accents or voiced kana is served in both its Unicode spellings (see
// withOtherSpellings), so the manifest may hold more paths than the directory has files; two
// files whose names are one name in two spellings are refused.
//
// Symbolic links: dir itself may be one (a "current" release link); it is resolved once.
// Inside the site, a link to a regular, visible file that is also inside the site is uploaded
// under the link's path with the target's content, as a build tool's alias for a versioned
// asset. Every other link is refused with its path: one that leaves the site (a relative "..",
// an absolute path elsewhere) would publish a file the directory does not hold; one that
// dangles or loops has no content; one to a directory could repeat a tree or reach around the
// checks, and copying the directory says the same thing plainly.
func Read(dir string) (*Manifest, error) {
	root, err := siteRoot(dir)
	if err != nil {
		return nil, err
	}
	var (
		files []File
		total int64
	)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if p == root {
			return err
		}
		rel, relErr := filepath.Rel(root, p)
		if relErr != nil {
			return relErr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			return fmt.Errorf("reading %q: %w", rel, err)
		}
		if hidden(rel) && !(d.IsDir() && rel == wellKnown) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if err := checkName(rel); err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		source, size, err := resolve(root, p, rel, d)
		if err != nil {
			return err
		}
		if size > MaxFileBytes {
			return fmt.Errorf("%q is %d bytes; a static site file may be at most %d bytes", rel, size, MaxFileBytes)
		}
		total += size
		if len(files) == MaxFiles || total > MaxTotalBytes {
			return fmt.Errorf("the site is larger than %d files or %d bytes; is source_dir the built site, not the project?", MaxFiles, MaxTotalBytes)
		}
		files = append(files, File{Path: rel, ContentType: ContentType(rel), Size: size, source: source})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("the site directory has no files to upload")
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })

	for i := range files {
		sum, err := hashFile(files[i])
		if err != nil {
			return nil, err
		}
		files[i].SHA256 = hex.EncodeToString(sum)
	}
	files, err = withOtherSpellings(files)
	if err != nil {
		return nil, err
	}
	version := sha256.New()
	for _, f := range files {
		// Length-prefixed fields: no two different sites hash the same input. (A hash takes
		// every write.)
		_, _ = fmt.Fprintf(version, "%d:%s%d:%s%s\n", len(f.Path), f.Path, len(f.ContentType), f.ContentType, f.SHA256)
	}
	return &Manifest{Files: files, Version: hex.EncodeToString(version.Sum(nil))[:VersionLength]}, nil
}

// Piece is one object of a version's manifest as it is uploaded: a shard, or the manifest
// itself.
type Piece struct {
	Key  string
	Body []byte
}

// Pieces returns what the version is uploaded as for the site name (route.SplitSiteManifest):
// a version of at most route.SiteShardFiles files is its manifest alone; a larger one is its
// shards, in order, then the manifest naming how many there are. The manifest is always last,
// so that an upload in this order writes it after every shard: the Worker may read it the
// moment it exists. The split needs the name because the manifest's key seeds the shard of
// each path.
//
// Every piece is checked against route.MaxSiteManifestBytes, the most the Worker reads: a
// piece it would refuse could be uploaded and never served, and neither prune nor import
// could read it back. With shards of at most route.MaxSiteShardFiles paths of at most
// MaxPathBytes the bound is not reached today; the check keeps it true if either changes.
func (m *Manifest) Pieces(name string) ([]Piece, error) {
	return m.pieces(name, route.MaxSiteManifestBytes)
}

func (m *Manifest) pieces(name string, limit int) ([]Piece, error) {
	key := ManifestKey(name, m.Version)
	root, shards, err := route.SplitSiteManifest(key, m.Site())
	if err != nil {
		return nil, fmt.Errorf("the site's %d paths cannot be split into manifest shards the edge Worker reads: %w", len(m.Files), err)
	}
	pieces := make([]Piece, 0, len(shards)+1)
	for i, shard := range shards {
		body, err := route.EncodeSiteShard(shard, key, i, len(shards))
		if err != nil {
			return nil, fmt.Errorf("encoding shard %d of the manifest: %w", i, err)
		}
		pieces = append(pieces, Piece{Key: route.SiteShardKey(key, i), Body: body})
	}
	body, err := route.EncodeSiteManifest(root)
	if err != nil {
		return nil, fmt.Errorf("encoding the manifest: %w", err)
	}
	pieces = append(pieces, Piece{Key: key, Body: body})
	for _, p := range pieces {
		if len(p.Body) > limit {
			return nil, fmt.Errorf("the manifest piece %s would be %d bytes, more than the %d the edge Worker reads: "+
				"the site needs shorter paths (its %d paths take %d bytes)", p.Key, len(p.Body), limit, len(m.Files), pathBytes(m.Files))
		}
	}
	return pieces, nil
}

// ShardCount is how many shards Pieces splits the version into for the site name; 0 when it
// is its manifest alone, or cannot be split (Pieces says why).
func (m *Manifest) ShardCount(name string) int {
	root, _, err := route.SplitSiteManifest(ManifestKey(name, m.Version), m.Site())
	if err != nil {
		return 0
	}
	return root.Shards
}

func pathBytes(files []File) int {
	n := 0
	for _, f := range files {
		n += len(f.Path)
	}
	return n
}

// siteRoot resolves dir once, so a source_dir that is itself a link is read through and every
// link inside is judged against the real directory.
func siteRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("reading the site directory: %w", err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("reading the site directory: %w", err)
	}
	info, err := os.Stat(root)
	if err != nil {
		return "", fmt.Errorf("reading the site directory: %w", err)
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	return root, nil
}

// checkName refuses a path the Worker would not serve. The rules are staticPath's in
// worker-src/edge/deliver.go (no control character, DEL or backslash; at most MaxPathBytes
// bytes): keep the two in step. Invalid UTF-8 is refused as well, since R2 keys are UTF-8.
// Read checks every directory and file as it walks, so each path segment is checked once,
// and the first bad one is the path reported. Paths are %q-quoted so odd bytes show.
func checkName(rel string) error {
	if !utf8.ValidString(rel) {
		return fmt.Errorf("%q is not valid UTF-8; rename it", rel)
	}
	for i := 0; i < len(rel); i++ {
		if c := rel[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return fmt.Errorf("%q contains a control character or a backslash, which the Worker does not serve; rename it", rel)
		}
	}
	if len(rel) > MaxPathBytes {
		return fmt.Errorf("%q is %d bytes long; the Worker serves paths of at most %d bytes", rel, len(rel), MaxPathBytes)
	}
	return nil
}

// resolve says where a walked file's content is read from, and its size.
func resolve(root, p, rel string, d fs.DirEntry) (source string, size int64, err error) {
	switch {
	case d.Type().IsRegular():
		info, err := d.Info()
		if err != nil {
			return "", 0, fmt.Errorf("reading %q: %w", rel, err)
		}
		return p, info.Size(), nil
	case d.Type()&fs.ModeSymlink != 0:
		return resolveLink(root, p, rel)
	default:
		return "", 0, fmt.Errorf("%q is not a regular file (devices, sockets and pipes are not uploaded); copy the file into the site directory instead", rel)
	}
}

// wellKnown is the one hidden directory a site ships: RFC 8615's, where security.txt,
// apple-app-site-association and assetlinks.json are looked for and nowhere else.
const wellKnown = ".well-known"

// hidden reports whether rel, a slash-separated path under the site root, is left out: one of
// its segments has a leading ".", other than a first .well-known segment with more after it.
// A hidden file inside .well-known (an editor's backup, a .git) stays out.
func hidden(rel string) bool {
	for i, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") && !(i == 0 && seg == wellKnown && strings.Contains(rel, "/")) {
			return true
		}
	}
	return false
}

// resolveLink follows a link to its final target and accepts it only as a regular, visible
// file inside root (see Read for why).
func resolveLink(root, p, rel string) (string, int64, error) {
	says, _ := os.Readlink(p) // for the message only
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", 0, fmt.Errorf("%q is a symbolic link to %q that cannot be followed (dangling or a loop): %w", rel, says, err)
	}
	inside, err := filepath.Rel(root, target)
	if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
		return "", 0, fmt.Errorf("%q is a symbolic link to %q, which is outside the site directory; only links to files inside it are followed, so copy the file in instead", rel, says)
	}
	if inside != "." && hidden(filepath.ToSlash(inside)) { // "." is the site root itself
		return "", 0, fmt.Errorf("%q is a symbolic link to %q, a hidden file; hidden files are not uploaded under any name", rel, says)
	}
	info, err := os.Stat(target)
	if err != nil {
		return "", 0, fmt.Errorf("reading %q: %w", rel, err)
	}
	if !info.Mode().IsRegular() {
		return "", 0, fmt.Errorf("%q is a symbolic link to %q, which is not a regular file; only links to files are followed, so copy a directory in instead", rel, says)
	}
	return target, info.Size(), nil
}

// hashFile streams a file through SHA-256, so memory does not grow with the file. A length
// that differs from the walk's means the file changed while it was read.
func hashFile(f File) (sum []byte, err error) {
	r, err := os.Open(f.source)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", f.Path, err)
	}
	defer func() { _ = r.Close() }() // only read: closing it cannot lose anything
	s := sha256.New()
	n, err := io.Copy(s, r)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", f.Path, err)
	}
	if n != f.Size {
		return nil, fmt.Errorf("%q changed while the site was read (%d bytes, then %d); plan again once it is written", f.Path, f.Size, n)
	}
	return s.Sum(nil), nil
}

// Open opens a file's content for upload; the caller closes it. It seeks so an upload can
// stream it and rewind it for a retry. A file whose size is not the manifest's changed after
// Read and is refused rather than uploaded under the manifest's hash; one whose bytes changed
// with its size kept is caught after the upload, by Content.Verify.
func (f File) Open() (*Content, error) {
	r, err := os.Open(f.source)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", f.Path, err)
	}
	info, err := r.Stat()
	if err == nil && info.Size() != f.Size {
		err = fmt.Errorf("%q changed after the site was read (%d bytes, now %d); plan again", f.Path, f.Size, info.Size())
	}
	if err != nil {
		_ = r.Close() // only opened to read, and refused: the error above is the one to report
		return nil, err
	}
	return &Content{file: r, f: f, hash: sha256.New()}, nil
}

// Content is a file's bytes as an upload reads them. It hashes what is read since the last
// rewind (an upload that is retried reads the file again from its start), so that the upload
// can tell whether what it sent is the file the plan hashed: a file rewritten in place during
// the apply, with the same size, would otherwise land under the old content's key.
type Content struct {
	file *os.File
	f    File
	hash hash.Hash
	read int64
	// lost: the reader was moved elsewhere than the start, so what it sent is not known.
	lost bool
}

func (c *Content) Read(p []byte) (int, error) {
	n, err := c.file.Read(p)
	c.hash.Write(p[:n]) // a hash takes every write
	c.read += int64(n)
	return n, err
}

// Seek moves the reader; back to the start, the count and the hash start again.
func (c *Content) Seek(offset int64, whence int) (int64, error) {
	at, err := c.file.Seek(offset, whence)
	if err == nil {
		switch {
		case at == 0:
			c.hash.Reset()
			c.read, c.lost = 0, false
		case at != c.read:
			c.lost = true
		}
	}
	return at, err
}

func (c *Content) Close() error { return c.file.Close() }

// Verify reports whether the bytes read since the last rewind are the whole file as Read
// hashed it: after an upload the store accepted, whether it holds the planned content.
func (c *Content) Verify() error {
	if c.lost || c.read != c.f.Size || hex.EncodeToString(c.hash.Sum(nil)) != c.f.SHA256 {
		return c.changed()
	}
	return nil
}

// Changed reports whether a whole pass was read and its bytes are not the planned content: why
// an upload the store refused for its checksum was refused.
func (c *Content) Changed() error {
	if !c.lost && c.read == c.f.Size && hex.EncodeToString(c.hash.Sum(nil)) != c.f.SHA256 {
		return c.changed()
	}
	return nil
}

func (c *Content) changed() error {
	return fmt.Errorf("%q changed while it was uploaded (what was read is not the content the plan hashed); plan again", c.f.Path)
}

// ContentType is the media type served for a path, from a fixed table of web formats so the
// result does not depend on the machine's mime.types; anything else is
// application/octet-stream.
func ContentType(p string) string {
	if t, ok := contentTypes[strings.ToLower(path.Ext(p))]; ok {
		return t
	}
	return "application/octet-stream"
}

var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".htm":         "text/html; charset=utf-8",
	".xhtml":       "application/xhtml+xml",
	".css":         "text/css; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".json":        "application/json",
	".map":         "application/json",
	".webmanifest": "application/manifest+json",
	".txt":         "text/plain; charset=utf-8",
	".md":          "text/markdown; charset=utf-8",
	".xml":         "application/xml",
	".csv":         "text/csv; charset=utf-8",
	".vtt":         "text/vtt; charset=utf-8",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".jpg":         "image/jpeg",
	".jpeg":        "image/jpeg",
	".gif":         "image/gif",
	".webp":        "image/webp",
	".avif":        "image/avif",
	".ico":         "image/x-icon",
	".woff":        "font/woff",
	".woff2":       "font/woff2",
	".ttf":         "font/ttf",
	".otf":         "font/otf",
	".wasm":        "application/wasm",
	".pdf":         "application/pdf",
	".mp4":         "video/mp4",
	".webm":        "video/webm",
	".mp3":         "audio/mpeg",
}
