#!/usr/bin/env bash
# Replays a generated traffic mix through workerd (Miniflare from the repo's node_modules)
# for the edge Worker, js-seed (the seed design of the request path, docs/ARCHITECTURE.md, in
# plain JavaScript, the yardstick), a one-KV-read JS pass-through (the limit) and a no-cache baseline, in
# alternating rounds, then a flood of distinct random platform labels. It prints per Worker
# KV reads, Cache API lookups/puts and R2 reads per 1,000 requests, p50/p99 (median over the
# rounds, with the spread; beside the goal, as diagnostics, the medians' 90% intervals from
# resampling the rounds and the whole run's p50/p99 ratios),
# the floor and the known floor (without the unknown hosts' reads), per kind of request the
# sequential I/O rounds before the response starts, each Worker's cold start (its first
# request to a fresh isolate against the second) and the Wasm size.
# The last line is machine-readable:
#   bench-edge: kv_reads_vs_floor=<ratio> kv_reads_vs_known_floor=<ratio> flood_kv_reads=<n> flood_fp_bound=<n> latency_p50_vs_seed=<ratio> latency_p99_vs_seed=<ratio> latency_p50_vs_js=<ratio> gzip_bytes=<n>
# Extra arguments go to the Go program (e.g. -n 5000 -rate 50 -rounds 6 -flood 1000 -budget 45).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [ ! -f node_modules/miniflare/package.json ]; then
	echo "bench-edge: node_modules/miniflare is missing: run npm ci at the repo root" >&2
	exit 1
fi
exec go run ./internal/workertest/cmd/bench-edge "$@"
