package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// MIME types of Worker modules, as the Workers script upload expects them.
const (
	MIMEModule = "application/javascript+module"
	MIMEWasm   = "application/wasm"
	// MIMEExecutable marks a router binary; it never travels as a Worker module.
	MIMEExecutable = "application/octet-stream"
)

// File is one output of a build.
type File struct {
	Name     string // a flat file name, e.g. "edge.wasm"
	MIMEType string
	Content  []byte
}

// SHA256 returns the hex sha256 of the file's content.
func (f File) SHA256() string {
	return sha256Hex(f.Content)
}

// Artifact is the set of files one build produced, sorted by name.
type Artifact struct {
	Files []File
	// SHA256 is the hex sha256 of the canonical listing: one "<sha256>  <name>\n" line per
	// file in name order, exactly what `sha256sum` prints for the sorted file names, so
	// `sha256sum $(ls) | sha256sum` in an output directory reproduces it.
	SHA256 string
	// Size is the total number of bytes of all files.
	Size int64
	// GoVersion is the toolchain that built the files ("go1.26.8"); part of the cache key, so a
	// cached artifact always carries the version that made it.
	GoVersion string
}

// File returns the file called name.
func (a *Artifact) File(name string) (File, bool) {
	for _, f := range a.Files {
		if f.Name == name {
			return f, true
		}
	}
	return File{}, false
}

// newArtifact sorts files and computes the combined hash and size.
func newArtifact(files []File) *Artifact {
	sorted := append([]File(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	a := &Artifact{Files: sorted}
	var listing strings.Builder
	for _, f := range sorted {
		fmt.Fprintf(&listing, "%s  %s\n", f.SHA256(), f.Name)
		a.Size += int64(len(f.Content))
	}
	a.SHA256 = sha256Hex([]byte(listing.String()))
	return a
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
