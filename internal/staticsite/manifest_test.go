package staticsite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/route"
)

func writeSite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	writeSiteAt(t, dir, files)
	return dir
}

func TestRead_DeterministicAndContentAddressed(t *testing.T) {
	site := map[string]string{"index.html": "<h1>hi</h1>", "assets/app.js": "1", "assets/logo.svg": "<svg/>"}
	a, err := Read(writeSite(t, site))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(writeSite(t, site))
	if err != nil {
		t.Fatal(err)
	}
	if a.Version != b.Version || len(a.Version) != VersionLength {
		t.Fatalf("same files, versions %q and %q", a.Version, b.Version)
	}
	var paths []string
	for _, f := range a.Files {
		paths = append(paths, f.Path+"="+f.ContentType)
	}
	if got := strings.Join(paths, ","); got != "assets/app.js=text/javascript; charset=utf-8,assets/logo.svg=image/svg+xml,index.html=text/html; charset=utf-8" {
		t.Fatalf("files = %s", got)
	}
	if sum := sha256.Sum256([]byte("<h1>hi</h1>")); a.Files[2].SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("index.html hash %q is not the hex SHA-256 of its content", a.Files[2].SHA256)
	}

	// One byte changed, or one file renamed, is another version.
	changed := map[string]string{"index.html": "<h1>hi!</h1>", "assets/app.js": "1", "assets/logo.svg": "<svg/>"}
	renamed := map[string]string{"index.htm": "<h1>hi</h1>", "assets/app.js": "1", "assets/logo.svg": "<svg/>"}
	for name, files := range map[string]map[string]string{"changed": changed, "renamed": renamed} {
		m, err := Read(writeSite(t, files))
		if err != nil {
			t.Fatal(err)
		}
		if m.Version == a.Version {
			t.Errorf("%s site kept version %s", name, a.Version)
		}
	}
}

func TestRead_SkipsHiddenAndRefusesWhatIsNotASite(t *testing.T) {
	dir := writeSite(t, map[string]string{"index.html": "x", ".git/config": "secret", ".env": "TOKEN=1"})
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) != 1 || m.Files[0].Path != "index.html" {
		t.Fatalf("hidden files were included: %+v", m.Files)
	}

	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd")); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), `"passwd" is a symbolic link to "/etc/passwd", which is outside`) {
		t.Fatalf("an absolute link out of the site was accepted: %v", err)
	}
	if _, err := Read(writeSite(t, map[string]string{".only-hidden": "x"})); err == nil || !strings.Contains(err.Error(), "no files") {
		t.Fatalf("an empty site was accepted: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory was accepted")
	}
}

// TestRead_ShipsWellKnown: the files of a leading .well-known/ directory are uploaded, since
// security.txt, apple-app-site-association and assetlinks.json are only looked for there;
// every other hidden path stays out, inside .well-known/ too, and so does a .well-known that
// is not the site root's directory.
func TestRead_ShipsWellKnown(t *testing.T) {
	dir := writeSite(t, map[string]string{
		"index.html":                             "x",
		".well-known/security.txt":               "Contact: mailto:security@kamui.test",
		".well-known/apple-app-site-association": "{}",
		".well-known/.DS_Store":                  "junk",
		".well-known/.git/config":                "secret",
		"docs/.well-known/security.txt":          "not the site's",
		".git/config":                            "secret",
		".env":                                   "TOKEN=1",
	})
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range m.Files {
		got = append(got, f.Path)
	}
	want := []string{".well-known/apple-app-site-association", ".well-known/security.txt", "index.html"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("files %q, want %q", got, want)
	}
	if f := fileAt(t, m, ".well-known/security.txt"); f.ContentType != "text/plain; charset=utf-8" {
		t.Errorf("security.txt is served as %q", f.ContentType)
	}
	if !route.ValidSitePath(".well-known/security.txt") {
		t.Error("the Worker would refuse to serve .well-known/security.txt")
	}

	// A link may point into .well-known/ but not at a hidden file there.
	if err := os.Symlink(".well-known/security.txt", filepath.Join(dir, "security.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err != nil {
		t.Fatalf("a link to .well-known/security.txt was refused: %v", err)
	}
	if err := os.Symlink(".well-known/.DS_Store", filepath.Join(dir, "junk")); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), `"junk" is a symbolic link to ".well-known/.DS_Store", a hidden file`) {
		t.Fatalf("a link to a hidden file in .well-known/ was accepted: %v", err)
	}
}

func TestContentType(t *testing.T) {
	for p, want := range map[string]string{
		"index.HTML": "text/html; charset=utf-8", "a/b.wasm": "application/wasm", "Makefile": "application/octet-stream", "x.unknown": "application/octet-stream",
		// A <track>'s captions are ignored unless served as text/vtt; XHTML is parsed as XML
		// only when served as application/xhtml+xml.
		"media/captions.en.vtt": "text/vtt; charset=utf-8", "page.xhtml": "application/xhtml+xml",
	} {
		if got := ContentType(p); got != want {
			t.Errorf("ContentType(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestKeys(t *testing.T) {
	if got := ManifestKey("docs", "0123456789abcdef"); got != "sites/docs/manifests/0123456789abcdef.json" {
		t.Errorf("ManifestKey = %q", got)
	}
	if got := ObjectKey("docs", "ab"); got != "sites/docs/objects/ab" {
		t.Errorf("ObjectKey = %q", got)
	}
}

// Two paths with the same bytes are one object, and the manifest the Worker reads names it for
// both, each with its own content type.
func TestSiteAndObjects_ShareContent(t *testing.T) {
	m, err := Read(writeSite(t, map[string]string{"a.txt": "same", "b.html": "same", "c.css": "other"}))
	if err != nil {
		t.Fatal(err)
	}
	objs := m.Objects()
	if len(objs) != 2 || objs[0].Path != "a.txt" || objs[1].Path != "c.css" {
		t.Fatalf("objects = %+v; want a.txt's content once and c.css's", objs)
	}
	site := m.Site()
	encoded, err := route.EncodeSiteManifest(site)
	if err != nil {
		t.Fatal(err)
	}
	if site.Files["a.txt"].Object != site.Files["b.html"].Object || site.Files["b.html"].Type != "text/html; charset=utf-8" ||
		site.Files["a.txt"].Type != "text/plain; charset=utf-8" || site.Files["c.css"].Size != 5 {
		t.Errorf("site manifest = %s", encoded)
	}
}

func TestRead_Links(t *testing.T) {
	// Each case adds one link to a fresh site; want is "" when it is accepted, else a part of
	// the error, which must name the link's path.
	for name, tc := range map[string]struct {
		link, target, want string
	}{
		"relative out":    {"assets/escape", "../../outside", `"assets/escape" is a symbolic link to "../../outside", which is outside the site directory`},
		"absolute out":    {"passwd", "/etc/passwd", `"passwd" is a symbolic link to "/etc/passwd", which is outside the site directory`},
		"dangling":        {"gone.html", "missing.html", `"gone.html" is a symbolic link to "missing.html" that cannot be followed`},
		"loop":            {"loop", "loop", `"loop" is a symbolic link to "loop" that cannot be followed`},
		"directory":       {"docs", "assets", `"docs" is a symbolic link to "assets", which is not a regular file`},
		"ancestor":        {"assets/up", "..", `"assets/up" is a symbolic link to "..", which is not a regular file`},
		"hidden target":   {"env.txt", ".env", `"env.txt" is a symbolic link to ".env", a hidden file`},
		"file inside":     {"latest.js", "assets/app.js", ""},
		"absolute inside": {"abs.js", "", ""}, // target filled in below: the site's own assets/app.js
		"link to link":    {"alias.js", "latest-src.js", ""},
	} {
		t.Run(name, func(t *testing.T) {
			outer := t.TempDir()
			if err := os.WriteFile(filepath.Join(outer, "outside"), []byte("secret"), 0o644); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(outer, "site")
			writeSiteAt(t, dir, map[string]string{"index.html": "x", "assets/app.js": "app", ".env": "TOKEN=1"})
			target := tc.target
			if name == "absolute inside" {
				target = filepath.Join(dir, "assets", "app.js")
			}
			if name == "link to link" {
				if err := os.Symlink("assets/app.js", filepath.Join(dir, "latest-src.js")); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(tc.link))); err != nil {
				t.Fatal(err)
			}
			m, err := Read(dir)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %s", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// The link is uploaded under its own path with the target's content.
			f := fileAt(t, m, tc.link)
			if sum := sha256.Sum256([]byte("app")); f.SHA256 != hex.EncodeToString(sum[:]) || f.Size != 3 || f.ContentType != "text/javascript; charset=utf-8" {
				t.Fatalf("link %s = %+v, want the content of assets/app.js", tc.link, f)
			}
			if got := readAll(t, f); got != "app" {
				t.Fatalf("link %s opens %q", tc.link, got)
			}
		})
	}
}

func TestRead_SourceDirMayBeALink(t *testing.T) {
	dir := writeSite(t, map[string]string{"index.html": "x"})
	link := filepath.Join(t.TempDir(), "current")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	viaLink, err := Read(link)
	if err != nil {
		t.Fatal(err)
	}
	direct, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if viaLink.Version != direct.Version || len(viaLink.Files) != 1 || viaLink.Files[0].Path != "index.html" {
		t.Fatalf("through the link %+v, directly %+v", viaLink, direct)
	}
}

func TestRead_RefusesNamesTheWorkerWouldNotServe(t *testing.T) {
	// 808 bytes of directories: a file system allows 255 bytes per name, not 1,024.
	deep := strings.Repeat(strings.Repeat("d", 100)+"/", 8)
	for name, tc := range map[string]struct{ path, want string }{
		"invalid UTF-8 file":      {"bad\xff.html", `"bad\xff.html" is not valid UTF-8`},
		"invalid UTF-8 directory": {"dir\xc3/index.html", `"dir\xc3" is not valid UTF-8`},
		"control character":       {"tab\there.html", `"tab\there.html" contains a control character`},
		"DEL":                     {"del\x7f.html", `"del\x7f.html" contains a control character`},
		"backslash":               {`a\b.html`, `"a\\b.html" contains a control character or a backslash`},
		"too long":                {deep + strings.Repeat("x", 217), "bytes long; the Worker serves paths of at most 1024 bytes"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Read(writeSite(t, map[string]string{"index.html": "x", tc.path: "y"}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %s", err, tc.want)
			}
		})
	}
	// At the limit is fine: 1,024 bytes is what the Worker still serves.
	long := deep + strings.Repeat("x", 216)
	if _, err := Read(writeSite(t, map[string]string{long: "y"})); err != nil {
		t.Fatalf("a %d-byte path was refused: %v", len(long), err)
	}
	// A hidden file is skipped, not refused, whatever its name.
	if _, err := Read(writeSite(t, map[string]string{"index.html": "x", ".bad\xff": "y"})); err != nil {
		t.Fatalf("a hidden file with an odd name was refused: %v", err)
	}
}

// TestRead_LargeFileInBoundedMemory: a 100 MB file is hashed as a stream. The file is sparse,
// so the test costs no disk; its bytes are still read and hashed.
func TestRead_LargeFileInBoundedMemory(t *testing.T) {
	const size = 100 << 20
	dir := writeSite(t, map[string]string{"index.html": "x"})
	f, err := os.Create(filepath.Join(dir, "video.mp4"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Read(dir)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("Read allocated %d bytes for a %d-byte file", allocated, size)
	if allocated > 16<<20 {
		t.Errorf("Read allocated %d bytes for a %d-byte file: it holds the file in memory", allocated, size)
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(zeros{}, size)); err != nil {
		t.Fatal(err)
	}
	if v := fileAt(t, m, "video.mp4"); v.Size != size || v.SHA256 != hex.EncodeToString(h.Sum(nil)) {
		t.Fatalf("video.mp4 = %+v, want %d bytes with the SHA-256 of zeros", v, size)
	}
}

func TestRead_RefusesAFileOverTheLimit(t *testing.T) {
	dir := writeSite(t, map[string]string{"index.html": "x"})
	if err := os.Truncate(filepath.Join(dir, "index.html"), MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), `"index.html" is 134217729 bytes`) {
		t.Fatalf("a file over the limit was accepted: %v", err)
	}
}

func TestOpen_RefusesAFileChangedSinceRead(t *testing.T) {
	dir := writeSite(t, map[string]string{"index.html": "x"})
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("longer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := m.Files[0].Open(); err == nil || !strings.Contains(err.Error(), `"index.html" changed after the site was read`) {
		if r != nil {
			_ = r.Close() // the test fails on the next line either way
		}
		t.Fatalf("a changed file opened: %v", err)
	}
}

func writeSiteAt(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func fileAt(t *testing.T, m *Manifest, p string) File {
	t.Helper()
	for _, f := range m.Files {
		if f.Path == p {
			return f
		}
	}
	t.Fatalf("%s is not in the manifest", p)
	return File{}
}

func readAll(t *testing.T, f File) string {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }() // only read: closing it cannot lose anything
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// zeros is an endless stream of zero bytes: the content of a sparse file.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A site whose whole manifest would be larger than the Worker reads (route.MaxSiteManifestBytes)
// was refused before manifests were split; each of its pieces is well within the bound now, so
// it is served. 7,500 files with paths of about 1 KB made an 8.4 MB manifest.
func TestPieces_SiteOfLongPathsIsSplitIntoPiecesTheWorkerReads(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, strings.Repeat("d", 250), strings.Repeat("e", 250), strings.Repeat("f", 250))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 7500 {
		name := fmt.Sprintf("%s%05d.html", strings.Repeat("n", 240), i)
		if err := os.WriteFile(filepath.Join(deep, name), []byte(fmt.Sprint(i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := m.Pieces("docs")
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) < 3 {
		t.Fatalf("%d files uploaded as %d pieces; want shards and a manifest", len(m.Files), len(pieces))
	}
	for _, p := range pieces {
		if len(p.Body) > route.MaxSiteManifestBytes {
			t.Errorf("%s is %d bytes", p.Key, len(p.Body))
		}
	}
}

// A piece larger than the bound is refused with its key and what to change.
func TestPieces_RefusesAPieceOverTheBound(t *testing.T) {
	m, err := Read(writeSite(t, map[string]string{"index.html": "<h1>hi</h1>", "a/long/path/to/a/page.html": "page"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.pieces("docs", 64); err == nil || !strings.Contains(err.Error(), ManifestKey("docs", m.Version)) ||
		!strings.Contains(err.Error(), "shorter paths") {
		t.Errorf("err = %v; want it to name the manifest and say the paths must be shorter", err)
	}
}

// A small site is its manifest alone, the bytes route.EncodeSiteManifest gives.
func TestPieces_SmallSiteIsItsManifest(t *testing.T) {
	m, err := Read(writeSite(t, map[string]string{"index.html": "<h1>hi</h1>", "app.js": "1"}))
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := m.Pieces("docs")
	if err != nil {
		t.Fatal(err)
	}
	want, err := route.EncodeSiteManifest(m.Site())
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces) != 1 || pieces[0].Key != ManifestKey("docs", m.Version) || string(pieces[0].Body) != string(want) {
		t.Fatalf("pieces = %+v; want the manifest %s alone", pieces, want)
	}
}

// A large site is its shards, in order under their keys, then the manifest naming how many:
// each shard decodes as the Worker reads it, and together they hold every file once.
func TestPieces_LargeSiteIsShardsThenItsManifest(t *testing.T) {
	files := map[string]string{}
	for i := range 600 {
		files[fmt.Sprintf("docs/page-%d/index.html", i)] = fmt.Sprint(i)
	}
	m, err := Read(writeSite(t, files))
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := m.Pieces("docs")
	if err != nil {
		t.Fatal(err)
	}
	key := ManifestKey("docs", m.Version)
	last := pieces[len(pieces)-1]
	root, err := route.DecodeSiteManifest(last.Body)
	if err != nil || last.Key != key || root.Shards != len(pieces)-1 || len(root.Files) != 0 {
		t.Fatalf("last piece %s = %s (%v); want the manifest %s naming %d shards", last.Key, last.Body, err, key, len(pieces)-1)
	}
	seen := map[string]route.SiteFile{}
	for i, p := range pieces[:len(pieces)-1] {
		if p.Key != route.SiteShardKey(key, i) {
			t.Errorf("piece %d is %s; want %s", i, p.Key, route.SiteShardKey(key, i))
		}
		shard, err := route.DecodeSiteShard(p.Body, key, i, root.Shards)
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
		for path, f := range shard.Files {
			if _, dup := seen[path]; dup {
				t.Errorf("%s is in two shards", path)
			}
			seen[path] = f
		}
	}
	if len(seen) != len(m.Files) {
		t.Fatalf("the shards hold %d files; want %d", len(seen), len(m.Files))
	}
	for _, f := range m.Files {
		if got := seen[f.Path]; got.Object != f.SHA256 || got.Type != f.ContentType || got.Size != f.Size {
			t.Errorf("%s is %+v in its shard; want %s, %s, %d", f.Path, got, f.SHA256, f.ContentType, f.Size)
		}
	}
	// The name seeds the split: the same files of another site are other shards' keys.
	other, err := m.Pieces("handbook")
	if err != nil {
		t.Fatal(err)
	}
	if want := route.SiteShardKey(ManifestKey("handbook", m.Version), 0); other[0].Key != want {
		t.Errorf("another site's first piece is %s; want %s", other[0].Key, want)
	}
}

// Content hashes what an upload reads since its last rewind: the whole planned file verifies;
// the same size with other bytes, a partial read, or a read from elsewhere than the start do
// not, and Changed names only a whole pass of other bytes.
func TestContent_VerifiesWhatWasRead(t *testing.T) {
	dir := writeSite(t, map[string]string{"app.js": "AAAA"})
	m, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := m.Files[0]
	open := func() *Content {
		t.Helper()
		c, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}

	c := open()
	if _, err := io.ReadAll(c); err != nil || c.Verify() != nil || c.Changed() != nil {
		t.Errorf("the planned file: read %v, Verify %v, Changed %v", err, c.Verify(), c.Changed())
	}
	// A retry rewinds and reads it again: still the planned file.
	if _, err := c.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(c); err != nil || c.Verify() != nil {
		t.Errorf("after a rewind: read %v, Verify %v", err, c.Verify())
	}

	c = open()
	if _, err := io.ReadFull(c, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	if c.Verify() == nil || c.Changed() != nil {
		t.Errorf("half read: Verify %v, Changed %v; want only Verify to fail", c.Verify(), c.Changed())
	}
	if _, err := c.Seek(3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	_, _ = io.ReadAll(c)
	if c.Verify() == nil {
		t.Error("a read from the middle verified")
	}

	c = open()
	if err := os.WriteFile(filepath.Join(dir, "app.js"), []byte("BBBB"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(c); err != nil {
		t.Fatal(err)
	}
	if err := c.Verify(); err == nil || c.Changed() == nil || !strings.Contains(err.Error(), `"app.js" changed while it was uploaded`) {
		t.Errorf("rewritten in place: Verify %v, Changed %v", err, c.Changed())
	}
}
