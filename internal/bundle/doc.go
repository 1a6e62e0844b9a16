// Package bundle builds the sources the provider carries (worker-src/ and internal/route/)
// into deployable artifacts, reproducibly: the edge Worker (edge.wasm, its ES-module shim and
// the toolchain's wasm_exec.js), the router as static linux binaries, and the router as an OCI
// image index.
//
// Builds run one pinned Go release (PinnedToolchain, the file go-toolchain), whatever Go the
// operator has installed: the installed go command (Go 1.21 or newer) resolves it through
// GOTOOLCHAIN with the operator's own module proxy settings, fetching it into their module cache
// the first time, and the builds then run that release's own go command. They run in a
// temporary synthetic module: the same module path as this repository (so imports of
// internal/route resolve) and no requirements, so nothing else is ever downloaded. The build
// environment is isolated (no GOFLAGS, GOPROXY=off, GOTOOLCHAIN=local, no cgo, no user go.env)
// and the flags pinned (-trimpath, -buildvcs=false, no build id), so the same sources give the
// same bytes, and so the same SHA256, on every machine. The bytes equal those of
// scripts/build-worker.sh and scripts/build-router.sh, which read the same go-toolchain file.
// Artifacts are cached by a hash of their inputs; a cache hit runs no compiler.
//
// The provider's main package embeds the sources (go:embed cannot reach parent directories,
// so the embedding lives at the repository root):
//
//	//go:embed worker-src internal/route
//	var bundledSources embed.FS
//
//	b := &bundle.Builder{Sources: bundledSources} // or os.DirFS(source_dir) for a fork
//	w, err := b.Worker(ctx) // errors.Is(err, bundle.ErrNoToolchain): say how to install Go
//	// w.SHA256, w.Size for the plan; w.Files (name, MIME type, bytes) and w.MainModule to upload
//
// Embedding whole directories also carries test files and testdata; the builder skips them,
// and they do not change an artifact's input hash.
package bundle
