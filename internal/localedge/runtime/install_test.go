package runtime

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// fakeNPM puts an npm on PATH that records each run in calls and, unless it is to fail, lays out
// node_modules/miniflare in its working directory as npm ci would.
func fakeNPM(t *testing.T, fail bool) (calls string) {
	t.Helper()
	bin := t.TempDir()
	calls = filepath.Join(t.TempDir(), "calls")
	script := "#!/bin/sh\necho \"$@\" >>" + calls + "\n"
	if fail {
		script += "echo 'npm error network request failed' >&2\nexit 1\n"
	} else {
		script += "test -f package-lock.json || exit 3\nmkdir -p node_modules/miniflare && echo '{}' >node_modules/miniflare/package.json\n"
	}
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return calls
}

var manifest = fstest.MapFS{
	"package.json":      {Data: []byte(`{"dependencies":{"miniflare":"4.20251217.0"}}`)},
	"package-lock.json": {Data: []byte(`{"lockfileVersion":3}`)},
}

// TestInstallNodeModules_OncePerLockfile: the first start installs (and says so), the next ones
// find the packages in place; another lockfile is another install.
func TestInstallNodeModules_OncePerLockfile(t *testing.T) {
	calls := fakeNPM(t, false)
	cache := t.TempDir()
	var progress strings.Builder
	dir, err := InstallNodeModules(context.Background(), manifest, cache, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if !hasMiniflare(dir) || !strings.HasPrefix(dir, cache) || !strings.Contains(progress.String(), "installing") {
		t.Fatalf("installed into %s (miniflare %v), progress %q", dir, hasMiniflare(dir), progress.String())
	}
	progress.Reset()
	again, err := InstallNodeModules(context.Background(), manifest, cache, &progress)
	if err != nil || again != dir || progress.Len() != 0 {
		t.Errorf("second start: %s, %v, progress %q; want the same packages and no install", again, err, progress.String())
	}
	if b, _ := os.ReadFile(calls); strings.Count(string(b), "ci") != 1 || !strings.Contains(string(b), "ci --no-audit --no-fund") {
		t.Errorf("npm runs: %q, want one npm ci", b)
	}

	other := fstest.MapFS{"package.json": manifest["package.json"], "package-lock.json": {Data: []byte(`{"lockfileVersion":3,"x":1}`)}}
	if d, err := InstallNodeModules(context.Background(), other, cache, &progress); err != nil || d == dir {
		t.Errorf("another lockfile: %s, %v; want an install of its own", d, err)
	}
}

// TestInstallNodeModules_FailureLeavesNothing: a failed npm ci names its log (which holds npm's
// output) and leaves no node_modules that a later start would take for complete.
func TestInstallNodeModules_FailureLeavesNothing(t *testing.T) {
	fakeNPM(t, true)
	cache := t.TempDir()
	_, err := InstallNodeModules(context.Background(), manifest, cache, &strings.Builder{})
	if err == nil {
		t.Fatal("a failed npm ci passed")
	}
	logPath := err.Error()[strings.Index(err.Error(), cache):]
	if b, rerr := os.ReadFile(logPath); rerr != nil || !strings.Contains(string(b), "network request failed") {
		t.Errorf("error %q: its log %s holds %q (%v)", err, logPath, b, rerr)
	}
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if e.IsDir() {
			t.Errorf("a failed install left %s behind", e.Name())
		}
	}
}

// TestInstallNodeModules_NoNPM says what to install.
func TestInstallNodeModules_NoNPM(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := InstallNodeModules(context.Background(), manifest, t.TempDir(), &strings.Builder{})
	if !errors.Is(err, ErrNoNPM) || !strings.Contains(err.Error(), "install Node.js") {
		t.Errorf("without npm: %v", err)
	}
}
