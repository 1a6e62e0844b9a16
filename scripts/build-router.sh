#!/usr/bin/env bash
# Builds the internal router as static linux binaries, reproducibly: the same sources give the
# same bytes on every machine, built with the Go release the provider's bundle pins
# (internal/bundle/go-toolchain; the go command fetches it once when another is installed). Writes build/router/kamuidash-router-linux-<arch>
# and build/router/SHA256SUMS, and prints each sha256.
#
#   scripts/build-router.sh            build amd64 and arm64
#   scripts/build-router.sh --verify   also rebuild everything in an empty Go build cache and fail
#                                      unless the bytes are identical (slow: recompiles the
#                                      standard library twice)
#
# ROUTER_OUT_DIR overrides the output directory.
#
# These are not the provider's bytes (internal/bundle) since the router has third-party packages:
# this script builds in module mode, whose build info records each dependency's go.sum hash; the
# provider builds the embedded copies (worker-src/router/_deps) in vendor mode, which records
# none, and every address after that string moves. The code is the same.
set -euo pipefail

cd "$(dirname "$0")/.."
GOTOOLCHAIN=$(cat internal/bundle/go-toolchain)
export GOTOOLCHAIN
OUT="${ROUTER_OUT_DIR:-build/router}"
ARCHES=(amd64 arm64)
PKG=./worker-src/router/cmd/kamuidash-router

log() { echo "build-router: $*" >&2; }

verify=0
case "${1:-}" in
  --verify) verify=1 ;;
  "") ;;
  *) log "unknown argument: $1"; exit 2 ;;
esac

# Everything that could differ between machines is pinned: no cgo, no local paths, no VCS stamp,
# no build id, baseline instruction sets, and no GOFLAGS from the caller's environment.
build() { # build <arch> <out-file>
  CGO_ENABLED=0 GOOS=linux GOARCH="$1" GOAMD64=v1 GOARM64=v8.0 GOFLAGS=-mod=readonly \
    go build -trimpath -buildvcs=false -ldflags='-s -w -buildid=' -o "$2" "$PKG"
}

mkdir -p "$OUT"
log "$(go version)"
for arch in "${ARCHES[@]}"; do
  build "$arch" "$OUT/kamuidash-router-linux-$arch"
done
(cd "$OUT" && sha256sum kamuidash-router-linux-* >SHA256SUMS && cat SHA256SUMS)

if [ "$verify" = 1 ]; then
  tmp=$(mktemp -d)
  trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
  log "rebuilding in an empty build cache to check the bytes are reproducible…"
  for arch in "${ARCHES[@]}"; do
    GOCACHE="$tmp/cache" build "$arch" "$tmp/kamuidash-router-linux-$arch"
    if ! cmp -s "$tmp/kamuidash-router-linux-$arch" "$OUT/kamuidash-router-linux-$arch"; then
      log "NOT reproducible: linux/$arch differs between the two builds"
      exit 1
    fi
  done
  log "reproducible: both builds are byte-identical"
fi
