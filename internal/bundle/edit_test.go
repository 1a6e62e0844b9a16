package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"
)

// repoCopy returns a copy of the source snapshot to edit.
func repoCopy(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	for p, f := range repoSources {
		m[p] = &fstest.MapFile{Data: f.Data, Mode: f.Mode}
	}
	return m
}

// commentEdits numbers editComment's edits in this process.
var commentEdits atomic.Int64

// editComment adds a comment line no earlier edit added to the end of the file at p (a Go or
// JS file): a new input every time, so that with -count above 1 an edit is never one an
// earlier run of the test left in the shared cache.
func editComment(t *testing.T, m fstest.MapFS, p string) {
	t.Helper()
	f, ok := m[p]
	if !ok {
		t.Fatalf("%s is not among the sources", p)
	}
	data := append(bytes.Clone(f.Data), fmt.Sprintf("\n// test edit %d-%d\n", os.Getpid(), commentEdits.Add(1))...)
	m[p] = &fstest.MapFile{Data: data, Mode: 0o644}
}

func TestWorker_ShimCommentEditChangesHash(t *testing.T) {
	base, shared, _ := sharedWorker(t)
	m := repoCopy(t)
	editComment(t, m, "worker-src/edge/js/worker.mjs")
	b, counter := countingBuilder(t, m)
	b.CacheDir = shared.CacheDir // same cache: the edit alone must make it a miss

	edited, err := b.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if edited.SHA256 == base.SHA256 {
		t.Error("editing worker.mjs left the SHA256 unchanged")
	}
	if n := counter.builds(); n != 1 {
		t.Errorf("go build ran %d times after a source edit, want 1", n)
	}
}

func TestWorker_GoCodeEditChangesHash(t *testing.T) {
	base, _, _ := sharedWorker(t)
	m := repoCopy(t)
	// A new file in the adapter package that the linker cannot drop.
	m["worker-src/edge/wasm/zz_probe.go"] = &fstest.MapFile{Data: []byte(`//go:build js && wasm

package main

import "os"

func init() {
	if len(os.Args) > 1000 {
		println("bundle test probe")
	}
}
`)}
	b, _ := countingBuilder(t, m)
	edited, err := b.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if edited.SHA256 == base.SHA256 {
		t.Error("a code change in the Worker left the SHA256 unchanged")
	}
}

// A Go comment edit is a new input (so a rebuild) but the same bytes: the plan stays empty.
func TestWorker_GoCommentEditRebuildsToTheSameBytes(t *testing.T) {
	base, shared, _ := sharedWorker(t)
	m := repoCopy(t)
	editComment(t, m, "worker-src/edge/doc.go")
	b, counter := countingBuilder(t, m)
	b.CacheDir = shared.CacheDir

	edited, err := b.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.builds(); n != 1 {
		t.Errorf("go build ran %d times after a source edit, want 1 (the input key must change)", n)
	}
	if edited.SHA256 != base.SHA256 {
		t.Errorf("a comment edit changed the SHA256: %s, was %s", edited.SHA256, base.SHA256)
	}
}

func TestWorker_TestFilesAndTestdataDoNotCount(t *testing.T) {
	plain := repoCopy(t)
	withTests := repoCopy(t)
	withTests["worker-src/edge/zz_extra_test.go"] = &fstest.MapFile{Data: []byte("package edge\n")}
	withTests["worker-src/edge/testdata/x.go"] = &fstest.MapFile{Data: []byte("not go")}
	withTests["worker-src/edge/README.md"] = &fstest.MapFile{Data: []byte("# notes")}
	a, err := readSources(plain, workerRecipe.roots)
	if err != nil {
		t.Fatal(err)
	}
	b, err := readSources(withTests, workerRecipe.roots)
	if err != nil {
		t.Fatal(err)
	}
	tc := &toolchainInfo{version: "go1.26.0"}
	if inputKey(workerRecipe, tc, a, nil, nil) != inputKey(workerRecipe, tc, b, nil, nil) {
		t.Error("a test file, testdata or a README changed the input key")
	}
	for _, s := range a {
		if strings.HasSuffix(s.path, "_test.go") || strings.Contains(s.path, "/testdata/") {
			t.Errorf("%s was copied into the build", s.path)
		}
	}
}

func TestWorker_BrokenSourceReportsTheCompiler(t *testing.T) {
	m := repoCopy(t)
	m["worker-src/edge/zz_broken.go"] = &fstest.MapFile{Data: []byte("package edge\n\nfunc broken() int { return \"not an int\" }\n")}
	b, _ := countingBuilder(t, m)

	_, err := b.Worker(context.Background())
	var buildErr *BuildError
	if !errors.As(err, &buildErr) {
		t.Fatalf("err = %v, want a *BuildError", err)
	}
	for _, want := range []string{"worker-src/edge/zz_broken.go:3", "not an int"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not contain %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "kamuidash-bundle-") {
		t.Errorf("error names the temporary build directory:\n%v", err)
	}
}

func TestMissingSourcesSayWhatToEmbed(t *testing.T) {
	b, _ := countingBuilder(t, fstest.MapFS{"main.go": {Data: []byte("package main")}})
	_, err := b.Worker(context.Background())
	if err == nil || !strings.Contains(err.Error(), "worker-src") || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v, want a missing-tree error naming worker-src", err)
	}
}
