// Package staticsite turns a directory of static files into a deterministic, content-addressed
// manifest: what kamuidash_static_site uploads to R2 and what the Worker serves. The same
// files give the same version on every machine, whatever their modification times, owners or
// the order the file system lists them in.
package staticsite

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Limits keep a plan from reading something that is not a static site (a home directory, a
// node_modules tree) into memory.
const (
	MaxFiles      = 20000
	MaxTotalBytes = 512 << 20
	MaxFileBytes  = 64 << 20
)

// VersionLength is how many hex digits of the content hash name a version: 64 bits, so two
// different sites of one app never share a prefix in practice.
const VersionLength = 16

// File is one file of a site.
type File struct {
	// Path is slash-separated and relative to the site root, e.g. "assets/app.js".
	Path string
	// ContentType is derived from the extension (see ContentType).
	ContentType string
	// ETag is the hex MD5 of the content: what R2 reports for a single-request upload, so a
	// listing can be compared with the manifest without downloading anything.
	ETag string
	Size int64
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

// Prefix is the object-key prefix of one version of a site: sites/<name>/<version>/.
func Prefix(name, version string) string { return SitePrefix(name) + version + "/" }

// SitePrefix holds every version of a site: sites/<name>/.
func SitePrefix(name string) string { return "sites/" + name + "/" }

// Read walks dir and builds its manifest. Hidden files and directories (a leading ".") are
// left out, so a checkout's .git never ships. Symbolic links and other non-regular files are
// refused rather than followed, so the site is exactly what the directory shows.
func Read(dir string) (*Manifest, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the site directory: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	var (
		files []File
		total int64
	)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (symbolic links and devices are not uploaded); copy the file into the site directory instead", rel)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > MaxFileBytes {
			return fmt.Errorf("%s is %d bytes; a static site file may be at most %d bytes", rel, fi.Size(), MaxFileBytes)
		}
		total += fi.Size()
		if len(files) == MaxFiles || total > MaxTotalBytes {
			return fmt.Errorf("the site is larger than %d files or %d bytes; is source_dir the built site, not the project?", MaxFiles, MaxTotalBytes)
		}
		files = append(files, File{Path: rel, ContentType: ContentType(rel), Size: fi.Size(), source: p})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("the site directory has no files to upload")
	}
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })

	version := sha256.New()
	for i := range files {
		content, err := os.ReadFile(files[i].source)
		if err != nil {
			return nil, err
		}
		m := md5.Sum(content)
		files[i].ETag = hex.EncodeToString(m[:])
		s := sha256.Sum256(content)
		// Length-prefixed fields: no two different sites hash the same input.
		fmt.Fprintf(version, "%d:%s%d:%s%x\n", len(files[i].Path), files[i].Path, len(files[i].ContentType), files[i].ContentType, s)
	}
	return &Manifest{Files: files, Version: hex.EncodeToString(version.Sum(nil))[:VersionLength]}, nil
}

// Content reads a file's bytes for upload.
func (f File) Content() ([]byte, error) { return os.ReadFile(f.source) }

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
