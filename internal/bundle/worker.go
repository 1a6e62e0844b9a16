package bundle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// workerRecipe builds worker-src/edge/wasm for js/wasm. -gcflags=all=-l (no inlining) keeps
// the Wasm small; the Worker's time is spent waiting on I/O, not in Go.
var workerRecipe = recipe{
	name:  "worker",
	roots: []string{"worker-src/edge", "internal/route"},
	targets: []target{{
		platform: Platform{OS: "js", Arch: "wasm"},
		pkg:      "./worker-src/edge/wasm",
		flags:    append(append([]string(nil), reproducibleFlags...), "-gcflags=all=-l"),
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
