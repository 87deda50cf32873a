#!/usr/bin/env bash
# match.sh [BUILD_DIR] [NMSG] - read + decode + match throughput.
# Generates a synthetic trace of NMSG messages (default 10^7) between 4
# processes with gen_trace, then runs bench_match, which prints the events/s
# of the pipeline and of the bare merge iteration measured in the same run.
# The trace (several GB at 10^7) lives in a temporary directory, removed at
# exit.
set -euo pipefail
build=${1:-$(dirname "$0")/../build}
nmsg=${2:-10000000}
for b in gen_trace bench_match; do
	[ -x "$build/bench/$b" ] || { echo "match.sh: $build/bench/$b not built" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "generating $nmsg messages ..."
"$build/bench/gen_trace" "$tmp/trace" "$nmsg" 4
du -sh "$tmp/trace" | sed 's/^/trace size /'
"$build/bench/bench_match" "$tmp/trace"
