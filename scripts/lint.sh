#!/usr/bin/env bash
# The linters `make lint` and the README's test command (scripts/test.sh) run: go vet,
# staticcheck, a build of the provider for windows/386 (the release's odd one out), then
# golangci-lint with .golangci.yml (errcheck, unparam, forcetypeassert and the rest it enables).
# Any finding fails the run.
#
# All the Go code is one module, the root's go.mod (the provider, worker-src/edge and
# worker-src/router), so ./... covers it; tools/go.mod and tools/golangci/go.mod only pin tools
# and hold no code. golangci-lint has a module of its own so that its many requirements cannot
# move staticcheck's or tfplugindocs' versions in tools/go.mod.
set -euo pipefail
cd "$(dirname "$0")/.."

run() {
  echo "$*"
  "$@"
}

run go vet ./...
run go tool -modfile=tools/go.mod staticcheck ./...
# The release builds the provider for every system .goreleaser.yml lists. Windows has no process
# groups or SIGTERM, and 386 has 32-bit ints: one build for windows/386 catches code that holds
# on neither (the other targets are unix, 64-bit or both, like the machines the tests run on).
run env GOOS=windows GOARCH=386 go build -o /dev/null .

echo "golangci-lint: from tools/golangci/go.mod (built once into Go's build cache; the first build takes a minute or two)"
start=$SECONDS
# The binary's path rather than `go tool golangci-lint`: GOOS=js below must reach the linter,
# not the go command that builds it.
golangci_lint=$(go tool -n -modfile=tools/golangci/go.mod golangci-lint)
if ((SECONDS - start > 5)); then
  echo "golangci-lint: built in $((SECONDS - start))s"
fi
# --allow-serial-runners: another golangci-lint on this machine (a developer's, another
# checkout's test run) makes this one wait for it rather than fail with "parallel golangci-lint
# is running".
echo "golangci-lint run ./..."
"$golangci_lint" run --allow-serial-runners ./...
# The Wasm adapter builds only for js/wasm (its build tag), and internal/route's runtime
# digests only with the Worker's hostdigest tag too (digest_host.go), so the run above sees
# neither.
echo "GOOS=js GOARCH=wasm golangci-lint run --build-tags hostdigest ./worker-src/edge/wasm/... ./internal/route/..."
GOOS=js GOARCH=wasm "$golangci_lint" run --allow-serial-runners --build-tags hostdigest ./worker-src/edge/wasm/... ./internal/route/...
# The adapter's test build (fault_injected.go, which the workertest tests build) too.
echo "GOOS=js GOARCH=wasm golangci-lint run --build-tags hostdigest,kamuidash_fault ./worker-src/edge/wasm/..."
GOOS=js GOARCH=wasm "$golangci_lint" run --allow-serial-runners --build-tags hostdigest,kamuidash_fault ./worker-src/edge/wasm/...
