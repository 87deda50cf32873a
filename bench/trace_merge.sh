#!/bin/sh
# Reader throughput: validating scan, per-file cursor (baseline), and the
# time-ordered merge, for 1..256 files holding the same 4M records in total.
# Usage: bench/trace_merge.sh [build-dir] [files] [total_records]
set -e
build=${1:-build}
exec "$build/bench/bench_trace_merge" ${2:-0} ${3:-4000000}
