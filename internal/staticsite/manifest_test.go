package staticsite

import (
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSite(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
	if sum := md5.Sum([]byte("<h1>hi</h1>")); a.Files[2].ETag != hex.EncodeToString(sum[:]) {
		t.Fatalf("index.html etag %q is not the hex MD5 of its content", a.Files[2].ETag)
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
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("a symbolic link was accepted: %v", err)
	}
	if _, err := Read(writeSite(t, map[string]string{".only-hidden": "x"})); err == nil || !strings.Contains(err.Error(), "no files") {
		t.Fatalf("an empty site was accepted: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing")); err == nil {
		t.Fatal("a missing directory was accepted")
	}
}

func TestContentType(t *testing.T) {
	for p, want := range map[string]string{
		"index.HTML": "text/html; charset=utf-8", "a/b.wasm": "application/wasm", "Makefile": "application/octet-stream", "x.unknown": "application/octet-stream",
	} {
		if got := ContentType(p); got != want {
			t.Errorf("ContentType(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestPrefix(t *testing.T) {
	if got := Prefix("docs", "0123456789abcdef"); got != "sites/docs/0123456789abcdef/" {
		t.Fatalf("Prefix = %q", got)
	}
}
