#!/usr/bin/env bash
# mpi_instr.sh - instructions a tracer adds per one-way message in a real
# MPI ping-pong, counted by callgrind (repeatable where wall-clock time on
# a shared machine is not).
#
# Runs bench/mpi_bench pingpong (2 ranks, tcp;ofi_rxm through Open MPI's
# cm/ofi path) with each rank under valgrind --tool=callgrind, counting
# only inside pingpong() (the timed loops: every size's warm-up and timed
# round trips), untraced, under msgtrace (BUILD's provider, and BASE's
# when given: the same run's baseline of another build) and under EZTrace
# (`eztrace -t openmpi`, Debian `eztrace`). Per mode it prints the
# instructions per one-way message (both ranks) and the difference to
# untraced; for msgtrace also the hook's own instructions per message by
# hook function (callgrind self cost of provider/ code).
#
# Caveat, measured: the totals are dominated by busy-polling (a blocking
# receive reads the CQ until the peer, slowed some 50x by valgrind, sends):
# hundreds of CQ reads per message, against about 4.5 natively, so the
# totals differ by more between runs than any tracer adds. What is
# repeatable is the hook's cost per call: a CQ read that returns nothing
# costs the same each time, so the hook's own instructions divided by its
# calls (cq_read* self cost is a fixed 4 instructions per call) give the
# cost per empty poll and per record. RUNS > 1 prints each run's totals.
#
# Usage: bench/mpi_instr.sh BUILD_DIR [BASE_BUILD_DIR]
#   env: ITERS (200 round trips per size) RUNS (1) MODES ("none msgtrace
#        eztrace", plus "base" when BASE_BUILD_DIR is given) PROV
set -euo pipefail

. "$(dirname "$0")/mpi_lib.sh"
mpi_setup mpi_instr "$@"
iters=${ITERS:-200}
runs=${RUNS:-1}
read -r -a modes <<<"${MODES:-none msgtrace${base:+ base} eztrace}"
command -v valgrind >/dev/null || { echo "mpi_instr: valgrind not installed" >&2; exit 1; }
cg=(valgrind --tool=callgrind --collect-atstart=no --toggle-collect=pingpong
    "--callgrind-out-file=$work/cg.%q{OMPI_COMM_WORLD_RANK}")

# run MODE: one mpirun; callgrind files cg.0 and cg.1, program output out.
run() {
	local mode=$1 tdir=$work/trace
	rm -rf "$tdir" "$work"/cg.* && mkdir -p "$tdir"
	case $mode in
	none | eztrace) mpi_run "$mode" "$tdir" - "${cg[@]}" "$bench" pingpong "$iters" ;;
	msgtrace | base)
		mpi_run msgtrace "$tdir" "$(provider_dir "$mode")" "${cg[@]}" "$bench" pingpong "$iters" ;;
	*) echo "mpi_instr: unknown mode $mode" >&2; exit 1 ;;
	esac >"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
}

total() { awk '/^(summary|totals):/ {print $2; exit}' "$1"; }
hook_self() { # CGFILE: the provider's own instructions by function, "name Ir"
	callgrind_annotate --inclusive=no --threshold=100 "$1" 2>/dev/null |
		awk '/[ \/]provider\/[a-z_]+\.[ch]:/ { ir = $1; gsub(",", "", ir)
			fn = $0; sub(/ \[.*$/, "", fn); sub(/^.*:/, "", fn)
			by[fn] += ir } END { for (f in by) print f, by[f] }'
}

echo "mpi_instr: ${modes[*]}; pingpong $iters round trips per size (+10% warm-up), 5 sizes; $runs run(s); provider $prov"
for ((r = 0; r < runs; r++)); do
	for m in "${modes[@]}"; do
		run "$m"
		msgs=$(awk '$1 == "msgs" {print $2}' "$work/out")
		for k in 0 1; do
			echo "$m $r $(total "$work/cg.$k") $msgs" >>"$work/tot"
			[ "$m" = msgtrace ] || [ "$m" = base ] || continue
			hook_self "$work/cg.$k" | awk -v m="$msgs" -v mode="$m" \
				'{printf "%s %s %.4f\n", mode, $1, $2 / m}' >>"$work/hook"
		done
	done
done

# Both ranks' instructions summed, over the run's one-way messages.
awk '{ k = $1 " " $2; sum[k] += $3; m[k] = $4 } END { for (k in sum) print k, sum[k] / m[k] }' \
	"$work/tot" | sort -k1,1 -k2n >"$work/per"
none_med=$(awk '$1 == "none" {print $3}' "$work/per" | median)
printf '\ninstructions per one-way message (both ranks, inside pingpong(); busy-polling included)\n'
for m in "${modes[@]}"; do
	med=$(awk -v m="$m" '$1 == m {print $3}' "$work/per" | median)
	printf '%-9s median %10.0f  (%+9.0f vs none)  runs:%s\n' "$m" "$med" \
		"$(awk -v a="$med" -v b="${none_med:-0}" 'BEGIN {print a - b}')" \
		"$(awk -v m="$m" '$1 == m {printf " %.0f", $3}' "$work/per")"
done

[ -f "$work/hook" ] || exit 0
printf '\nmsgtrace hooks: own instructions per one-way message (both ranks, mean over runs)\n'
for m in msgtrace base; do
	grep -q "^$m " "$work/hook" || continue
	awk -v m="$m" -v runs="$runs" '$1 == m { by[$2] += $3; t += $3 }
		END { for (f in by) if (by[f] / runs >= 0.05)
			printf "%-8s %-22s %12.2f\n", m, f, by[f] / runs
		      printf "%-8s %-22s %12.2f\n", m, "~total", t / runs }' "$work/hook" |
		sort -k1,1 -k3 -g -r
done
