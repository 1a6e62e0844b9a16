package bundle

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorker_ModulesForTheUpload(t *testing.T) {
	w, b, _ := sharedWorker(t)

	if w.MainModule != "worker.mjs" {
		t.Errorf("MainModule = %q, want worker.mjs", w.MainModule)
	}
	wantTypes := map[string]string{
		"edge.wasm":    "application/wasm",
		"wasm_exec.js": "application/javascript+module",
		"worker.mjs":   "application/javascript+module",
	}
	if len(w.Files) != len(wantTypes) {
		t.Fatalf("modules = %v, want exactly %v", fileNames(w.Artifact), wantTypes)
	}
	for _, f := range w.Files {
		if want, ok := wantTypes[f.Name]; !ok || f.MIMEType != want {
			t.Errorf("module %s has type %q, want %q", f.Name, f.MIMEType, want)
		}
	}

	wasm, _ := w.File("edge.wasm")
	if !bytes.HasPrefix(wasm.Content, []byte("\x00asm")) {
		t.Errorf("edge.wasm does not start with the Wasm magic: % x", wasm.Content[:8])
	}
	shim, _ := w.File("worker.mjs")
	if !bytes.Equal(shim.Content, repoSources["worker-src/edge/js/worker.mjs"].Data) {
		t.Error("worker.mjs differs from worker-src/edge/js/worker.mjs")
	}
	wasmExec, _ := w.File("wasm_exec.js")
	tc, err := b.toolchainInfo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	wantExec, err := os.ReadFile(filepath.Join(tc.goroot, "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(wasmExec.Content, wantExec) {
		t.Error("wasm_exec.js differs from the building toolchain's copy")
	}
	// Every module the shim imports is part of the upload.
	for _, name := range []string{"./wasm_exec.js", "./edge.wasm"} {
		if !bytes.Contains(shim.Content, []byte(`"`+name+`"`)) {
			t.Errorf("worker.mjs no longer imports %s; the module set needs a look", name)
		}
	}
}

func TestWorker_HashAndSizeCoverEveryModule(t *testing.T) {
	w, _, _ := sharedWorker(t)
	var listing bytes.Buffer
	var size int64
	for _, name := range []string{"edge.wasm", "wasm_exec.js", "worker.mjs"} {
		f, _ := w.File(name)
		listing.WriteString(f.SHA256() + "  " + name + "\n")
		size += int64(len(f.Content))
	}
	if got, want := w.SHA256, sha256Hex(listing.Bytes()); got != want {
		t.Errorf("SHA256 = %s, want sha256 of the sorted sha256sum listing %s", got, want)
	}
	if w.Size != size {
		t.Errorf("Size = %d, want %d", w.Size, size)
	}
	t.Logf("worker: sha256=%s size=%d", w.SHA256, w.Size)
}

func TestWorker_ReproducibleWithEmptyCaches(t *testing.T) {
	first, _, _ := sharedWorker(t)
	// Fresh artifact cache and a fresh go build cache: everything, the standard library
	// included, is compiled again.
	b := &Builder{
		Sources:    repoSources,
		CacheDir:   newTempDir(t, "cache-"),
		GoCacheDir: newTempDir(t, "gocache-"),
	}
	second, err := b.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if second.SHA256 != first.SHA256 {
		t.Errorf("SHA256 differs between builds: %s then %s", first.SHA256, second.SHA256)
	}
	for _, f := range first.Files {
		g, ok := second.File(f.Name)
		if !ok || !bytes.Equal(g.Content, f.Content) {
			t.Errorf("%s differs between builds", f.Name)
		}
	}
}

func TestWorker_CacheHitRunsNoBuild(t *testing.T) {
	first, shared, counter := sharedWorker(t)
	if n := counter.builds(); n != 1 {
		t.Fatalf("the first build ran go build %d times, want 1", n)
	}

	// The same builder again: nothing at all is run.
	before := counter.total.Load()
	again, err := shared.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.total.Load() - before; n != 0 {
		t.Errorf("a cached build ran the go command %d times, want 0", n)
	}
	if again.SHA256 != first.SHA256 {
		t.Errorf("cached SHA256 %s, built %s", again.SHA256, first.SHA256)
	}

	// A new builder on the same cache (a new provider process) asks the toolchain who it is,
	// and builds nothing.
	c := &goCounter{}
	fresh := &Builder{Sources: repoSources, CacheDir: shared.CacheDir, GoCacheDir: shared.GoCacheDir, RunGo: c.run}
	cached, err := fresh.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := c.builds(); n != 0 {
		t.Errorf("a new builder on a warm cache ran go build %d times, want 0", n)
	}
	if cached.SHA256 != first.SHA256 || !bytes.Equal(cached.Files[0].Content, first.Files[0].Content) {
		t.Error("the cached artifact differs from the built one")
	}
}

func TestWorker_DamagedCacheEntryIsRebuilt(t *testing.T) {
	first, shared, _ := sharedWorker(t)
	b, counter := countingBuilder(t, nil)
	b.GoCacheDir = shared.GoCacheDir
	if _, err := b.Worker(context.Background()); err != nil {
		t.Fatal(err)
	}
	entries, err := filepath.Glob(filepath.Join(b.CacheDir, "artifacts", "*", "edge.wasm"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("cache entries: %v %v", entries, err)
	}
	if err := os.WriteFile(entries[0], []byte("not wasm"), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := b.Worker(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := counter.builds(); n != 2 {
		t.Errorf("go build ran %d times, want 2 (the damaged entry must not be served)", n)
	}
	if again.SHA256 != first.SHA256 {
		t.Errorf("rebuilt SHA256 %s, want %s", again.SHA256, first.SHA256)
	}
}

// TestWorker_UnusableCacheDirSaysSo: a cache directory that cannot be created (a file in the way,
// a read-only disk) is the machine's problem, not the sources': the error must name the directory
// and not read as a failed compile, which the provider reports as "fix the sources".
func TestWorker_UnusableCacheDirSaysSo(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, configure := range map[string]func(*Builder){
		"CacheDir":   func(b *Builder) { b.CacheDir = filepath.Join(blocker, "bundle") },
		"GoCacheDir": func(b *Builder) { b.GoCacheDir = filepath.Join(blocker, "gocache") },
	} {
		t.Run(name, func(t *testing.T) {
			b, counter := countingBuilder(t, nil)
			configure(b)
			_, err := b.Worker(context.Background())
			var buildErr *BuildError
			if err == nil || errors.As(err, &buildErr) {
				t.Fatalf("err = %v, want an error that is not a *BuildError", err)
			}
			for _, want := range []string{blocker, "writable"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if n := counter.builds(); n != 0 {
				t.Errorf("go build ran %d times without a usable cache", n)
			}
		})
	}
}

func fileNames(a *Artifact) []string {
	var names []string
	for _, f := range a.Files {
		names = append(names, f.Name)
	}
	return names
}

// scripts/build-worker.sh (make worker, the benchmarks and the local edge's tests) and the
// bundle (what the provider uploads) must build the same Worker: the same flags, the same
// toolchain, the same bytes.
func TestWorker_SameBytesAsBuildWorkerScript(t *testing.T) {
	w, _, _ := sharedWorker(t)
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "scripts", "build-worker.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build-worker.sh: %v\n%s", err, b)
	}
	for _, name := range []string{"edge.wasm", "wasm_exec.js", "worker.mjs"} {
		script, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := w.File(name)
		if !bytes.Equal(script, f.Content) {
			t.Errorf("%s: build-worker.sh wrote %d bytes, the bundle built %d different ones; are their flags the same (workerGCFlags)?", name, len(script), len(f.Content))
		}
	}
}
