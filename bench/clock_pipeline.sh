#!/usr/bin/env bash
# clock_pipeline.sh [BUILD_DIR] [NMSG] - what --clock costs `msgtrace
# messages`: a synthetic trace of NMSG messages (default 2*10^6) among 4
# processes (gen_trace), processes 2 and 3 moved onto a second "host" with
# their own clock (trace_perturb), then `messages --clock none` (streaming:
# the baseline), `--clock auto` (spilled messages + linear) and `--clock clc`, in
# the same run. Prints CPU seconds, the ratio to the baseline, peak RSS and
# the extra peak bytes per message (the trace's mapped pages are in every
# RSS; the difference is what the clock stage keeps and solves with).
set -euo pipefail
build=${1:-$(dirname "$0")/../build}
nmsg=${2:-2000000}
msgtrace=$build/tools/msgtrace gen=$build/bench/gen_trace
perturb=$build/tests/tools/trace_perturb
for b in "$msgtrace" "$gen" "$perturb"; do
	[ -x "$b" ] || { echo "clock_pipeline.sh: $b not built" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$gen" "$tmp/trace" "$nmsg" 4 >/dev/null
for pid in 1002 1003; do
	"$perturb" far 5000000 30 200000 "$tmp/trace/bench.$pid.0.mt"
	mv "$tmp/trace/bench.$pid.0.mt" "$tmp/trace/far.$pid.0.mt"
done
printf '%-6s %9s %7s %10s %14s\n' mode cpu_s ratio rss_MB extra_B/msg
base_cpu='' base_rss=''
for mode in none auto clc; do
	/usr/bin/time -f '%U %S %M' -o "$tmp/time" \
		"$msgtrace" messages --clock "$mode" "$tmp/trace" >/dev/null
	read -r user sys rss <"$tmp/time"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')
	base_cpu=${base_cpu:-$cpu} base_rss=${base_rss:-$rss}
	awk -v m="$mode" -v c="$cpu" -v b="$base_cpu" -v r="$rss" -v br="$base_rss" \
		-v n="$nmsg" 'BEGIN { printf "%-6s %9.2f %7.2f %10.1f %14.1f\n",
		m, c, c / b, r / 1024, (r - br) * 1024 / n }'
done
