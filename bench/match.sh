#!/usr/bin/env bash
# match.sh [BUILD_DIR] [NMSG] [PATTERN...] - read + decode + match throughput
# for each traffic pattern of gen_trace (default: all of them). Each pattern's
# synthetic trace of about NMSG messages (default 2*10^6) between 4
# processes is generated, then bench_match measures the pipeline's events/s
# and, in the same run, the bare merge iteration over the same trace (the
# baseline), and samples the peak heap in use while matching; RUNS times
# (default 5), the run of median ratio kept (one run's baseline can be off
# by a third on a shared machine). The table at the end puts each pattern
# against its baseline and against the benign pattern, both as raw
# events/s and normalized by each run's own baseline (on a shared machine
# the baselines of two runs differ: the normalized figure compares like
# with like). Targets: ratio to the merge >= 0.25 for benign, every pattern
# >= 0.5 of benign, heap following the operations in flight. Traces live in
# a temporary directory, removed at exit.
set -euo pipefail
build=${1:-$(dirname "$0")/../build}
nmsg=${2:-2000000}
runs=${RUNS:-5}
shift $(( $# > 2 ? 2 : $# ))
patterns=${*:-benign preposted anysrc anytag unexpected cancel probe}
for b in gen_trace bench_match; do
	[ -x "$build/bench/$b" ] || { echo "match.sh: $build/bench/$b not built" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
declare -A res
for p in $patterns; do
	echo "== $p: generating $nmsg messages ..."
	"$build/bench/gen_trace" --pattern "$p" "$tmp/$p" "$nmsg" 4
	du -sh "$tmp/$p" | sed 's/^/trace size /'
	for ((r = 0; r < runs; r++)); do
		"$build/bench/bench_match" "$tmp/$p" | tee "$tmp/$p.out"
		sed -n 's/^result //p' "$tmp/$p.out" >>"$tmp/$p.res"
	done
	# The run of median ratio (its third field).
	res[$p]=$(sort -g -k3 "$tmp/$p.res" | sed -n "$(( (runs + 1) / 2 ))p")
	rm -rf "${tmp:?}/$p"
done
benign=$(echo "${res[benign]:-0 0 0}" | awk '{ print $1, $3 }')
echo
printf '%-11s %11s %13s %7s %10s %10s %9s\n' pattern "M events/s" "merge M ev/s" ratio \
	"of benign" "normalized" "heap MiB"
for p in $patterns; do
	echo "$p ${res[$p]} $benign" | awk '{ printf "%-11s %11.1f %13.1f %7.3f %10s %10s %9.1f\n",
		$1, $2 / 1e6, $3 / 1e6, $4, ($6 > 0 ? sprintf("%.2f", $2 / $6) : "-"),
		($7 > 0 ? sprintf("%.2f", $4 / $7) : "-"), $5 }'
done
