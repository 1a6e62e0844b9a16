package bundle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Worker module names: the shim imports "./wasm_exec.js" and "./edge.wasm".
const (
	WorkerMainModule = "worker.mjs"
	workerWasm       = "edge.wasm"
	workerWasmExec   = "wasm_exec.js"
	workerShimSource = "worker-src/edge/js/worker.mjs"
)

// Worker is the edge Worker's upload: its modules (Files, each with its MIME type) and the
// name of the main module.
type Worker struct {
	*Artifact
	MainModule string
}

// workerGCFlags choose where the compiler inlines, for the Worker's size (gzip, against the
// 1 MB goal) and speed. Inlining everywhere costs 65 KB of gzip; nowhere, the Go code in
// workerd pays a call for every small function (most of it runs in V8's baseline tier, where
// a call costs the most). In between: inlining in the standard library except the four
// packages where it costs the most bytes (runtime 22 KB, fmt 8 KB, reflect 7 KB, encoding/json
// 4 KB when measured, 5.9 KB now), and not in this repository's packages (12 KB more now: the
// core 8.8, internal/route 3.7, wire 1.3, the wasm main 1.1). That Wasm was 150 KB smaller raw
// and 4.4 KB smaller gzipped than with no inlining at all, and its core paths ran 3–10 %
// faster (the Serve benchmarks in Node's Wasm). Inlining more (this repository's packages,
// encoding/json, reflect: 15–31 KB, which fit since SHA-256 and HMAC come from the runtime)
// took up to a tenth off the CPU of static paths in Node's Wasm but measured nothing in
// bench-edge's latency in workerd (docs/PERFORMANCE.md, "Compiler and runtime"). A later
// pattern overrides an earlier one for the packages it matches. scripts/build-worker.sh passes
// the same flags (a test compares the bytes).
var workerGCFlags = []string{
	// The runtime's SHA-256 and HMAC-SHA256 in place of the standard library's
	// (internal/route/digest.go).
	"-tags=hostdigest",
	"-gcflags=all=-l",
	"-gcflags=std=",
	"-gcflags=runtime=-l",
	"-gcflags=fmt=-l",
	"-gcflags=reflect=-l",
	"-gcflags=encoding/json=-l",
}

// workerRecipe builds worker-src/edge/wasm for js/wasm, with workerGCFlags.
var workerRecipe = recipe{
	name:  "worker",
	roots: []string{"worker-src/edge", "internal/route"},
	targets: []target{{
		platform: Platform{OS: "js", Arch: "wasm"},
		pkg:      "./worker-src/edge/wasm",
		flags:    append(slices.Clone(reproducibleFlags), workerGCFlags...),
		output:   workerWasm,
		mimeType: MIMEWasm,
	}},
	extras: workerExtras,
}

// workerExtras are the shim from the sources and wasm_exec.js from the very toolchain that
// compiled edge.wasm (the two must match).
func workerExtras(tc *toolchainInfo, sources []sourceFile) ([]File, error) {
	shim, ok := sourceFileAt(sources, workerShimSource)
	if !ok {
		return nil, fmt.Errorf("bundle: the sources have no %s", workerShimSource)
	}
	wasmExec, err := os.ReadFile(filepath.Join(tc.goroot, "lib", "wasm", workerWasmExec))
	if err != nil {
		return nil, fmt.Errorf("bundle: the Go toolchain at %s has no lib/wasm/%s: %w", tc.goroot, workerWasmExec, err)
	}
	return []File{
		{Name: WorkerMainModule, MIMEType: MIMEModule, Content: shim},
		{Name: workerWasmExec, MIMEType: MIMEModule, Content: wasmExec},
	}, nil
}

// Worker returns the edge Worker built from b.Sources, from the cache when the inputs are
// unchanged.
func (b *Builder) Worker(ctx context.Context) (*Worker, error) {
	a, err := b.build(ctx, workerRecipe)
	if err != nil {
		return nil, err
	}
	return &Worker{Artifact: a, MainModule: WorkerMainModule}, nil
}
