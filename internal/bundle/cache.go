package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// artifactCache stores artifacts under dir/artifacts/<input key>/: the files themselves and a
// manifest.json naming each file's MIME type and sha256. An entry appears whole or not at all
// (written in a temporary directory, then renamed), and a damaged entry reads as a miss.
type artifactCache struct {
	dir string
}

type manifestEntry struct {
	Name     string `json:"name"`
	MIMEType string `json:"mime_type"`
	SHA256   string `json:"sha256"`
}

const manifestName = "manifest.json"

func (c artifactCache) entryDir(key string) string {
	return filepath.Join(c.dir, "artifacts", key)
}

// load returns the cached artifact for key, or nil on a miss.
func (c artifactCache) load(key string) *Artifact {
	dir := c.entryDir(key)
	raw, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil
	}
	var entries []manifestEntry
	if json.Unmarshal(raw, &entries) != nil || len(entries) == 0 {
		return nil
	}
	files := make([]File, 0, len(entries))
	for _, e := range entries {
		if !fs.ValidPath(e.Name) || filepath.Base(e.Name) != e.Name {
			return nil
		}
		content, err := os.ReadFile(filepath.Join(dir, e.Name))
		if err != nil {
			return nil
		}
		f := File{Name: e.Name, MIMEType: e.MIMEType, Content: content}
		if f.SHA256() != e.SHA256 {
			return nil
		}
		files = append(files, f)
	}
	return newArtifact(files)
}

// store writes a under key. Losing a race to another writer of the same key is fine: both
// wrote the same bytes.
func (c artifactCache) store(key string, a *Artifact) error {
	final := c.entryDir(key)
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return fmt.Errorf("bundle: cache: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(final), ".tmp-"+key[:12]+"-")
	if err != nil {
		return fmt.Errorf("bundle: cache: %w", err)
	}
	// Gone after the rename; a failed store leaves the directory behind only if this fails too,
	// and a ".tmp-" directory is never loaded.
	defer func() { _ = os.RemoveAll(tmp) }()
	entries := make([]manifestEntry, 0, len(a.Files))
	for _, f := range a.Files {
		if err := os.WriteFile(filepath.Join(tmp, f.Name), f.Content, 0o644); err != nil {
			return fmt.Errorf("bundle: cache: %w", err)
		}
		entries = append(entries, manifestEntry{Name: f.Name, MIMEType: f.MIMEType, SHA256: f.SHA256()})
	}
	manifest, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		return fmt.Errorf("bundle: cache: %w", err)
	}
	// The manifest goes last: load treats a directory without one as a miss.
	if err := os.WriteFile(filepath.Join(tmp, manifestName), manifest, 0o644); err != nil {
		return fmt.Errorf("bundle: cache: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		if c.load(key) != nil {
			return nil
		}
		// A damaged entry is in the way: replace it.
		if rmErr := os.RemoveAll(final); rmErr != nil {
			return fmt.Errorf("bundle: cache: %w", errors.Join(err, rmErr))
		}
		if err := os.Rename(tmp, final); err != nil {
			return fmt.Errorf("bundle: cache: %w", err)
		}
	}
	return nil
}
