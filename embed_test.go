package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kamuidash/terraform-provider-kamuidash/internal/bundle"
)

// The embed carries the router's dependency tree (a plain //go:embed pattern would leave out
// the _deps directory) byte for byte as the checkout has it.
func TestBundledSourcesCarryTheRouterDependencyTree(t *testing.T) {
	checkout := os.DirFS(".")
	var n int
	err := fs.WalkDir(checkout, bundle.RouterDepsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		want, err := fs.ReadFile(checkout, p)
		if err != nil {
			return err
		}
		got, err := fs.ReadFile(bundledSources, p)
		if err != nil {
			t.Errorf("not embedded: %s (%v)", p, err)
			return nil
		}
		if !bytes.Equal(got, want) {
			t.Errorf("embedded %s differs from the checkout's", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("the checkout has no %s", bundle.RouterDepsDir)
	}
}

// The provider builds the router from the embedded files alone: no module proxy (GOPROXY=off)
// and a module cache of the build's own that is empty before and after.
func TestBundledSourcesBuildTheRouterOffline(t *testing.T) {
	goCache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	var (
		mu     sync.Mutex
		builds []bundle.Invocation
	)
	b := &bundle.Builder{
		Sources:  bundledSources,
		CacheDir: cacheDir,
		// The developer's go build cache (it never changes a build's bytes): a cold one would
		// compile the standard library twice over.
		GoCacheDir: strings.TrimSpace(string(goCache)),
		RunGo: func(ctx context.Context, inv bundle.Invocation) ([]byte, error) {
			if inv.Args[0] == "build" {
				mu.Lock()
				builds = append(builds, inv)
				mu.Unlock()
			}
			return bundle.RunGo(ctx, inv)
		},
	}
	r, err := b.Router(context.Background())
	if err != nil {
		t.Fatalf("building the router from the embedded sources: %v", err)
	}
	if len(builds) != len(bundle.RouterPlatforms) {
		t.Errorf("go build ran %d times, want one per platform (%d)", len(builds), len(bundle.RouterPlatforms))
	}
	modCache := filepath.Join(cacheDir, "gopath", "pkg", "mod")
	for _, inv := range builds {
		for _, want := range []string{"GOPROXY=off", "GOFLAGS=", "GOMODCACHE=" + modCache} {
			if !slices.Contains(inv.Env, want) {
				t.Errorf("go %s: the environment lacks %s", strings.Join(inv.Args, " "), want)
			}
		}
	}
	if entries, err := os.ReadDir(modCache); len(entries) > 0 || (err != nil && !os.IsNotExist(err)) {
		t.Errorf("the build's module cache is not empty: %v %v", entries, err)
	}
	t.Logf("router from the embedded sources: sha256=%s", r.SHA256)
}
