#!/bin/sh
# `msgtrace watch` refresh: incremental view against a whole re-read, same
# run, on NPROC processes left open by gen_trace --hang; each round PER
# processes publish one more receive before both are timed.
# Usage: bench/watch.sh [build-dir] [NPROC] [ROUNDS] [PER]
set -e
build=${1:-build}
n=${2:-10000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-watch.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$build/bench/gen_trace" --hang "$dir/t" "$n" >/dev/null
"$build/bench/bench_watch" "$dir/t" "$n" "${3:-5}" "${4:-100}"
