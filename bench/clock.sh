#!/bin/sh
# clock.sh [MESSAGES [PROCS]] - throughput of clock correction
# (mt_clock_correct in clc mode) on a generated MPI-like event graph with
# perturbed clocks (default 10^7 messages, 16 processes), in events/s of
# CPU time (single-threaded: per core), and its ratio to a plain copy of
# the timestamps measured in the same run. Target: >= 20 M events/s.
# Builds bench_clock in $BUILD_DIR (default build/) first.
set -eu
case "${1:-}" in
-h | --help) sed -n '2,7s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j2 --target bench_clock >/dev/null
exec "$build/bench/bench_clock" "$@"
