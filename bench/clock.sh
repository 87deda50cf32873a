#!/bin/sh
# Clock-correction throughput: builds bench_clock and runs it on a generated
# event graph (default 10^7 messages, 16 processes), printing events/s of
# mt_clock_correct and its ratio to a plain copy of the timestamps measured
# in the same run. Single-threaded: the figure is per core.
# usage: bench/clock.sh [MESSAGES [PROCS]]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cmake -S "$root" -B "$build" >/dev/null
cmake --build "$build" -j2 --target bench_clock >/dev/null
exec "$build/bench/bench_clock" "$@"
