// Package bundle builds the sources the provider carries (worker-src/ and internal/route/)
// into deployable artifacts, reproducibly: the edge Worker (edge.wasm, its ES-module shim and
// the toolchain's wasm_exec.js), the router as static linux binaries, and the router as an OCI
// image index.
//
// Builds run one pinned Go release (PinnedToolchain, the file go-toolchain), whatever Go the
// operator has installed: the installed go command (Go 1.21 or newer) resolves it through
// GOTOOLCHAIN with the operator's own module proxy settings, fetching it into their module cache
// the first time, and the builds then run that release's own go command. They run in a
// temporary synthetic module with the same module path as this repository (so imports of
// internal/route resolve). The build environment is isolated (no GOFLAGS, GOPROXY=off,
// GOTOOLCHAIN=local, no cgo, no user go.env, a module cache of the bundle's own that stays
// empty) and the flags pinned (-trimpath, -buildvcs=false, no build id), so the same sources
// give the same bytes, and so the same SHA256, on every machine. The Worker's bytes equal those
// of scripts/build-worker.sh, which reads the same go-toolchain file. Artifacts are cached by a
// hash of their inputs; a cache hit runs no compiler.
//
// The Worker uses the standard library only; the router also uses third-party packages
// (fasthttp and what it imports). Their sources travel inside the embedded tree, in
// RouterDepsDir (worker-src/router/_deps): for each package the router needs on its platforms,
// its non-test sources, assembly and embedded files, each module's license files, and a
// manifest (module, version, go.sum hash, go version, packages). `make router-deps`
// (cmd/router-deps) writes it from go.mod and the module cache, and a drift check fails while it
// is stale. A router build lays the tree out as the synthetic module's vendor/ with a
// vendor/modules.txt derived from the manifest, requires exactly those modules in its go.mod and
// builds with -mod=vendor, so it needs neither a module proxy nor a module cache. The tree is not
// named vendor because module zips leave out vendor directories: a provider installed with
// `go install …@version` would have lost it. Its files are sources like any other, so an edit
// to one changes the router's cache key (and never the Worker's).
//
// The provider's main package embeds the sources (go:embed cannot reach parent directories,
// so the embedding lives at the repository root):
//
//	//go:embed worker-src internal/route all:worker-src/router/_deps
//	var bundledSources embed.FS
//
//	b := &bundle.Builder{Sources: bundledSources} // or os.DirFS(source_dir) for a fork
//	w, err := b.Worker(ctx) // errors.Is(err, bundle.ErrNoToolchain): say how to install Go
//	// w.SHA256, w.Size for the plan; w.Files (name, MIME type, bytes) and w.MainModule to upload
//
// Embedding whole directories also carries test files and testdata; the builder skips them,
// and they do not change an artifact's input hash. A plain pattern leaves out names beginning
// with _ or ., hence the all: pattern for the dependency tree.
package bundle
