#!/usr/bin/env bash
# Replays a generated traffic mix through workerd (Miniflare from the repo's node_modules)
# for the edge Worker, a no-cache baseline Worker and a one-KV-read JS pass-through Worker,
# and prints KV reads per 1,000 requests against the floor, warm latency against the
# pass-through, and the Wasm size. The last line is machine-readable:
#   bench-edge: kv_reads_vs_floor=<ratio> latency_p50_vs_js=<ratio> latency_p99_vs_js=<ratio> gzip_bytes=<n>
# Extra arguments go to the Go program (e.g. -n 5000 -rate 50 -budget 45).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ ! -f node_modules/miniflare/package.json ]; then
	echo "bench-edge: node_modules/miniflare is missing: run npm ci at the repo root" >&2
	exit 1
fi
exec go run ./internal/workertest/cmd/bench-edge "$@"
