#!/usr/bin/env bash
# Builds the edge Worker reproducibly into build/worker/ (or $1): edge.wasm, worker.mjs and
# an unchanged copy of the toolchain's wasm_exec.js, then prints each file's sha256 and the
# Wasm's raw and gzip size. Same sources → same bytes: the build uses the Go release the
# provider's bundle pins (internal/bundle/go-toolchain), which the go command fetches once when
# another is installed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/build/worker}"
mkdir -p "$out"
cd "$root"
GOTOOLCHAIN=$(cat internal/bundle/go-toolchain)
export GOTOOLCHAIN

# Pinned flags: no paths, no VCS stamp, no build id, no symbol tables; the hostdigest tag (the
# runtime's SHA-256 and HMAC, internal/route/digest.go), and for a test build the tags in
# KAMUIDASH_WORKER_TAGS (kamuidash_fault: worker-src/edge/wasm/fault_injected.go). Inlining in the
# standard library except runtime, fmt, reflect and encoding/json, and not in this repository's
# packages: internal/bundle/worker.go (workerGCFlags) says why; it builds with the same flags,
# and a test compares the bytes.
export GOOS=js GOARCH=wasm CGO_ENABLED=0 GOFLAGS=-mod=readonly
go build -trimpath -buildvcs=false -tags="hostdigest${KAMUIDASH_WORKER_TAGS:+,$KAMUIDASH_WORKER_TAGS}" -gcflags=all=-l -gcflags=std= -gcflags=runtime=-l \
	-gcflags=fmt=-l -gcflags=reflect=-l -gcflags=encoding/json=-l -ldflags='-s -w -buildid=' \
	-o "$out/edge.wasm.tmp" ./worker-src/edge/wasm
mv "$out/edge.wasm.tmp" "$out/edge.wasm"
cp "$(go env GOROOT)/lib/wasm/wasm_exec.js" "$out/wasm_exec.js"
cp worker-src/edge/js/worker.mjs "$out/worker.mjs"
chmod 0644 "$out/edge.wasm" "$out/wasm_exec.js" "$out/worker.mjs"

(cd "$out" && sha256sum edge.wasm wasm_exec.js worker.mjs)
raw=$(wc -c <"$out/edge.wasm")
gz=$(gzip -9 -n -c "$out/edge.wasm" | wc -c)
echo "edge.wasm raw_bytes=$raw gzip_bytes=$gz"
