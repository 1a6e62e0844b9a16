#!/usr/bin/env bash
# Runs the edge benchmark (scripts/bench-edge.sh) several times, each run with workerd started
# afresh, and prints every run's goal ratios, then their medians. One run's p99 moves by up
# to 20 % from one run to the next, more than the interval a run prints for itself (that
# interval resamples the run's own rounds and cannot see what differs between runs:
# docs/PERFORMANCE.md), so the p99 goal is read as the median over runs.
#
#   scripts/bench-edge-runs.sh [-runs N] [bench-edge arguments…]
#
# N defaults to 5 (about 35 minutes). Each run's whole output is kept in $BENCH_LOG_DIR
# (default: a new directory under /tmp, named on the first line). The last line is
# machine-readable:
#   bench-edge-runs: runs=<n> latency_p50_vs_seed=<median> latency_p99_vs_seed=<median> p99_runs=<r1>,<r2>,…
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=5
if [ "${1:-}" = "-runs" ]; then
	runs="${2:?-runs needs a number}"
	shift 2
fi
case "$runs" in
'' | *[!0-9]* | 0)
	echo "bench-edge-runs: -runs wants a positive whole number, got '$runs'" >&2
	exit 2
	;;
esac
logs="${BENCH_LOG_DIR:-$(mktemp -d /tmp/bench-edge-runs.XXXXXX)}"
mkdir -p "$logs"
echo "bench-edge-runs: $runs runs, each run's output in $logs"

# field <name> <line>: the value of name=value in a bench-edge result line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" $2"; }

# median of the numbers on standard input, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

p50s=() p99s=()
for i in $(seq "$runs"); do
	log="$logs/run$i.log"
	if ! "$root/scripts/bench-edge.sh" "$@" >"$log" 2>&1; then
		echo "bench-edge-runs: run $i failed; its output:" >&2
		tail -20 "$log" >&2
		exit 1
	fi
	result=$(grep '^bench-edge: kv_reads_vs_floor=' "$log" | tail -1 || true)
	load=$(grep '^bench-edge: machine load' "$log" | tail -1 | sed 's/^bench-edge: machine load (1-minute average) //' || true)
	p50=$(field latency_p50_vs_seed "$result")
	p99=$(field latency_p99_vs_seed "$result")
	if [ -z "$p50" ] || [ -z "$p99" ]; then
		echo "bench-edge-runs: run $i printed no latency ratios (see $log)" >&2
		exit 1
	fi
	p50s+=("$p50") p99s+=("$p99")
	echo "bench-edge-runs: run $i: latency_p50_vs_seed=$p50 latency_p99_vs_seed=$p99 (load $load)"
done
p50_median=$(printf '%s\n' "${p50s[@]}" | median)
p99_median=$(printf '%s\n' "${p99s[@]}" | median)
p99_list=$(
	IFS=,
	echo "${p99s[*]}"
)
echo "bench-edge-runs: runs=$runs latency_p50_vs_seed=$p50_median latency_p99_vs_seed=$p99_median p99_runs=$p99_list"
