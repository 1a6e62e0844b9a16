// Package bundle builds the sources the provider carries (worker-src/ and internal/route/)
// into deployable artifacts, reproducibly: the edge Worker (edge.wasm, its ES-module shim and
// the toolchain's wasm_exec.js), the router as static linux binaries, and the router as an OCI
// image index.
//
// Builds run the local Go toolchain in a temporary synthetic module: the same module path as
// this repository (so imports of internal/route resolve) and no requirements, so nothing is
// ever downloaded. The environment is isolated (no GOFLAGS, GOPROXY=off, GOTOOLCHAIN=local,
// no cgo, no user go.env) and the flags pinned (-trimpath, -buildvcs=false, no build id), so
// the same sources and toolchain give the same bytes, and so the same SHA256, on every
// machine. Artifacts are cached by a hash of their inputs; a cache hit runs no compiler.
package bundle
