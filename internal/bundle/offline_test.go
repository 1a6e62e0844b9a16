package bundle

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// checkOfflineBuilds fails unless every go build b ran was offline: no module proxy, no GOFLAGS
// of the caller's, third-party packages from vendor/ only, and a module cache of its own (under
// b's fresh cache directory) that is still empty afterwards, so nothing came from any module
// cache either.
func checkOfflineBuilds(t *testing.T, b *Builder, c *goCounter) {
	t.Helper()
	builds := c.buildInvocations()
	if len(builds) == 0 {
		t.Fatal("no go build ran (a cache hit proves nothing about an offline build)")
	}
	modCache := filepath.Join(b.CacheDir, "gopath", "pkg", "mod")
	for _, inv := range builds {
		for _, want := range []string{"GOPROXY=off", "GOFLAGS=", "GOMODCACHE=" + modCache} {
			if !slices.Contains(inv.Env, want) {
				t.Errorf("go %s: the environment lacks %s: %q", strings.Join(inv.Args, " "), want, inv.Env)
			}
		}
		if !slices.Contains(inv.Args, "-mod=vendor") {
			t.Errorf("go %s: not built with -mod=vendor", strings.Join(inv.Args, " "))
		}
	}
	entries, err := os.ReadDir(modCache)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if len(entries) > 0 {
		t.Errorf("the build's module cache %s is not empty: %v", modCache, entries)
	}
}

// The router, fasthttp and all, builds from the sources alone: GOPROXY=off, an empty module
// cache, the dependency tree as vendor/.
func TestRouter_BuildsOfflineFromTheDependencyTree(t *testing.T) {
	r, b, c := sharedRouter(t)
	checkOfflineBuilds(t, b, c)
	if _, err := r.Binary(RouterPlatforms[0]); err != nil {
		t.Fatal(err)
	}
}

// A provider installed with `go install …@version` embeds the module as the module proxy serves
// it, a zip that leaves out every vendor directory and nested module. The router must build
// from that zip, offline, to the same bytes as from the checkout.
//
// The zip is made the way the proxy makes one, from the files of a commit: here the files a
// commit of this working tree would hold (git's tracked and untracked, less ignored ones), so
// that uncommitted work is tested too, through golang.org/x/mod/zip, which applies the go
// command's exclusions. (zip.CreateFromVCS would zip HEAD only, and refuses a git worktree.)
func TestRouter_BuildsFromThePublishedModule(t *testing.T) {
	want, _, _ := sharedRouter(t)
	repoRoot, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := filesOfWorkingTreeCommit(t, repoRoot)
	version := module.Version{Path: modulePath, Version: "v0.0.0-20260101000000-000000000000"}

	checked, err := modzip.CheckFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, dropped := range append(checked.Omitted, checked.Invalid...) {
		if strings.HasPrefix(dropped.Path, RouterDepsDir+"/") {
			t.Errorf("the module zip leaves out %s: %v", dropped.Path, dropped.Err)
		}
	}

	dir := newTempDir(t, "published-")
	zipFile := filepath.Join(dir, "module.zip")
	var buf bytes.Buffer
	if err := modzip.Create(&buf, version, files); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zipFile, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	extracted := filepath.Join(dir, "module")
	if err := modzip.Unzip(extracted, version, zipFile); err != nil {
		t.Fatal(err)
	}

	b, c := countingBuilder(t, os.DirFS(extracted))
	got, err := b.Router(context.Background())
	if err != nil {
		t.Fatalf("building the router from the published module: %v", err)
	}
	checkOfflineBuilds(t, b, c)
	if got.SHA256 != want.SHA256 {
		t.Errorf("from the published module SHA256 = %s, from the checkout %s", got.SHA256, want.SHA256)
	}
	t.Logf("module zip: %d bytes, %d files; router sha256=%s", buf.Len(), len(checked.Valid), got.SHA256)
}

// filesOfWorkingTreeCommit lists, as module zip files, what `git add -A && git commit` would
// commit in the checkout at root: tracked files still present and untracked ones not ignored.
func filesOfWorkingTreeCommit(t *testing.T, root string) []modzip.File {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("listing the checkout's files with git (the test needs a git checkout): %v", err)
	}
	var files []modzip.File
	seen := map[string]bool{}
	for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if p == "" || seen[p] {
			continue // ls-files repeats a path with unmerged stages
		}
		seen[p] = true
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if os.IsNotExist(err) {
			continue // deleted in the working tree: not in its commit
		}
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, checkoutFile{root: root, path: p, info: info})
	}
	return files
}

// checkoutFile is a file of the checkout as golang.org/x/mod/zip reads one.
type checkoutFile struct {
	root, path string
	info       os.FileInfo
}

func (f checkoutFile) Path() string                { return f.path }
func (f checkoutFile) Lstat() (os.FileInfo, error) { return f.info, nil }
func (f checkoutFile) Open() (io.ReadCloser, error) {
	return os.Open(filepath.Join(f.root, filepath.FromSlash(f.path)))
}
