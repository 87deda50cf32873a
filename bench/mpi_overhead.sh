#!/usr/bin/env bash
# mpi_overhead.sh - what tracing costs a real MPI job: msgtrace against
# EZTrace (a PMPI tracer writing OTF2) on the same runs.
#
# Runs bench/mpi_bench (2 ranks, tcp;ofi_rxm through Open MPI's cm/ofi
# path) in these modes, interleaved so that machine noise hits them alike:
#   none      untraced
#   msgtrace  FI_PROVIDER_PATH=BUILD/provider FI_HOOK=msgtrace
#   eztrace   mpirun ... eztrace -t openmpi ./mpi_bench (Debian `eztrace`)
#   callsite  msgtrace with FI_OFI_HOOK_MSGTRACE_CALLSITE=1 (not run by
#             default: MODES="none msgtrace callsite")
#   base      msgtrace from BASE_BUILD_DIR (added to the default modes
#             when given): an older version's cost measured in the same
#             runs
# each RUNS times, for a ping-pong (one-way latency per size: half the
# median round trip of a run) and a message rate test (median window); the
# script prints the medians over runs (and the lowest run, the least
# disturbed on a shared machine), the ratios to untraced, the added
# one-way latency per message, and trace bytes per message (all files each
# tracer wrote, divided by the messages the program counted; for msgtrace
# also before its compaction at exit) from the same runs. EZTrace is installed only for this bench (scripts/quickstart bench).
#
# Usage: bench/mpi_overhead.sh BUILD_DIR [BASE_BUILD_DIR]
#   env: RUNS (5) PP_ITERS (2000 round trips per size) RATE_ITERS (300
#        windows of 64) MODES ("none msgtrace eztrace", plus "base" when
#        BASE_BUILD_DIR is given) PROV (tcp;ofi_rxm)
set -euo pipefail

. "$(dirname "$0")/mpi_lib.sh"
mpi_setup mpi_overhead "$@"
runs=${RUNS:-5}
pp_iters=${PP_ITERS:-2000}
rate_iters=${RATE_ITERS:-300}
read -r -a modes <<<"${MODES:-none msgtrace eztrace${base:+ base}}"
for m in "${modes[@]}"; do
	[ "$m" != base ] || [ -n "$base" ] ||
		{ echo "mpi_overhead: mode base needs BASE_BUILD_DIR" >&2; exit 1; }
	[ "$m" != eztrace ] || command -v eztrace >/dev/null ||
		{ echo "mpi_overhead: eztrace not installed (scripts/quickstart bench installs it)" >&2; exit 1; }
done

# run MODE TEST ITERS OUT: one mpirun; the trace's bytes per message go to
# OUT.bpm, the program's output to OUT.
run() {
	local mode=$1 test=$2 iters=$3 out=$4 tdir=$work/trace
	rm -rf "$tdir" && mkdir -p "$tdir"
	case $mode in
	none) mpi_run none "$tdir" - "$bench" "$test" "$iters" >"$out" ;;
	msgtrace | callsite | base)
		FI_OFI_HOOK_MSGTRACE_CALLSITE=$([ "$mode" = callsite ] && echo 1 || echo 0) \
			mpi_run msgtrace "$tdir" "$(provider_dir "$mode")" "$bench" "$test" "$iters" >"$out" ;;
	eztrace)
		mpi_run eztrace "$tdir" - "$bench" "$test" "$iters" |
			grep -E '^(lat|rate|msgs) ' >"$out" ;;
	*) echo "mpi_overhead: unknown mode $mode" >&2; exit 1 ;;
	esac
	if [ "$mode" != none ]; then
		local bytes msgs
		bytes=$(find "$tdir" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
		msgs=$(awk '$1 == "msgs" {print $2}' "$out")
		awk -v b="$bytes" -v m="$msgs" 'BEGIN {printf "%.1f\n", b / m}' >>"$work/bpm.$mode.$test"
		# msgtrace compacts its files at exit: what they held before
		# (a compacted header's raw_bytes at offset 104, after the
		# 4096-byte version 1 header).
		if [ "$mode" = msgtrace ]; then
			bytes=0
			for f in "$tdir"/*.mt; do
				if [ "$(od -An -tu4 -j8 -N4 "$f" | tr -d ' ')" = 2 ]; then
					bytes=$((bytes + 4096 + $(od -An -tu8 -j104 -N8 "$f" | tr -d ' ')))
				else
					bytes=$((bytes + $(stat -c %s "$f")))
				fi
			done
			awk -v b="$bytes" -v m="$msgs" 'BEGIN {printf "%.1f\n", b / m}' \
				>>"$work/bpm.msgtrace-v1.$test"
		fi
	fi
}

echo "mpi_overhead: ${modes[*]}, $runs interleaved runs; ping-pong $pp_iters round trips per size, rate $rate_iters windows of 64; provider $prov"
for ((r = 0; r < runs; r++)); do
	for m in "${modes[@]}"; do
		run "$m" pingpong "$pp_iters" "$work/out"
		awk '$1 == "lat" {print $2, $3}' "$work/out" >>"$work/lat.$m"
		run "$m" rate "$rate_iters" "$work/out"
		awk '$1 == "rate" {print $2}' "$work/out" >>"$work/rate.$m"
	done
done

sizes=$(awk '{print $1}' "$work/lat.${modes[0]}" | sort -un)
# lat_table STAT TITLE: per size, STAT (median or lowest) over the runs'
# one-way latencies, each mode against untraced. The spread (max - min over
# runs) says how far a median can be trusted. On a shared machine another
# process only ever adds time, so the lowest run is the one least
# disturbed: a tracer's own cost, paid on every message, shows there too.
lat_table() {
	local stat=$1 s m
	printf '\nping-pong: one-way latency, us (%s; spread: max - min over runs, per mode)\n%-6s' "$2" size
	for m in "${modes[@]}"; do printf ' %10s' "$m"; done
	for m in "${modes[@]}"; do [ "$m" = none ] || printf ' %9s %9s' "$m/none" "+us"; done
	echo
	declare -A sum=()
	for s in $sizes; do
		declare -A lat=() spread=()
		for m in "${modes[@]}"; do
			lat[$m]=$(awk -v s="$s" '$1 == s {print $2}' "$work/lat.$m" |
				  if [ "$stat" = lowest ]; then sort -g | head -n 1; else median; fi)
			spread[$m]=$(awk -v s="$s" '$1 == s {v = $2; if (n++ == 0 || v < lo) lo = v; if (v > hi) hi = v}
				END {printf "%.3f", hi - lo}' "$work/lat.$m")
		done
		printf '%-6s' "$s"
		for m in "${modes[@]}"; do printf ' %10.3f' "${lat[$m]}"; done
		for m in "${modes[@]}"; do
			[ "$m" = none ] && continue
			awk -v a="${lat[$m]}" -v b="${lat[none]:-0}" \
				'BEGIN {if (b > 0) printf " %9.4f %+9.3f", a / b, a - b; else printf " %9s %9s", "-", "-"}'
			sum[$m]=$(awk -v t="${sum[$m]:-0}" -v a="${lat[$m]}" -v b="${lat[none]:-0}" 'BEGIN {print t + a - b}')
		done
		printf '   spread'
		for m in "${modes[@]}"; do printf ' %s' "${spread[$m]}"; done
		echo
	done
	# A tracer's cost hardly depends on the size: the mean over sizes is
	# the steadier figure.
	[ -n "${lat[none]:-}" ] || return 0
	printf '%-6s' mean
	for m in "${modes[@]}"; do printf ' %10s' ""; done
	for m in "${modes[@]}"; do
		[ "$m" = none ] || awk -v t="${sum[$m]}" -v n="$(echo "$sizes" | wc -w)" \
			'BEGIN {printf " %9s %+9.3f", "", t / n}'
	done
	echo
}
lat_table median "median of $runs runs"
lat_table lowest "lowest of $runs runs"

printf '\nmessage rate: msgs/s (median of %d)\n' "$runs"
declare -A rate=()
for m in "${modes[@]}"; do
	rate[$m]=$(median <"$work/rate.$m")
	printf '%-10s %12.0f (runs %s)' "$m" "${rate[$m]}" "$(sort -g "$work/rate.$m" | tr '\n' ' ' | sed 's/ $//')"
	[ "$m" = none ] || [ -z "${rate[none]:-}" ] ||
		awk -v a="${rate[$m]}" -v b="${rate[none]}" 'BEGIN {printf "   %.4f of untraced", a / b}'
	echo
done

printf '\ntrace bytes per message (median of %d, all files the tracer wrote)\n' "$runs"
for m in "${modes[@]}" msgtrace-v1; do
	[ "$m" = none ] || [ ! -f "$work/bpm.$m.rate" ] && continue
	printf '%-12s ping-pong %8.1f   rate %8.1f\n' "$m" \
		"$(median <"$work/bpm.$m.pingpong")" "$(median <"$work/bpm.$m.rate")"
done
echo "(msgtrace: the files as compacted at exit; msgtrace-v1: the same before compaction)"
