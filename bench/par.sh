#!/usr/bin/env bash
# par.sh [BUILD_DIR] [NMSG] [NPROC] - msgtrace-mpi against the serial
# msgtrace on one generated trace (gen_trace's benign traffic: NMSG
# messages, default 28.2 M, among NPROC processes, default 10,000: 10^8
# events, 8.3 GB, in the page cache), all in the same run: the serial
# command, then msgtrace-mpi on N = 1 and N = 2 analysis ranks, alternated
# RUNS times (default 1: about 9 minutes a round on 2 cores), each figure
# the median of its runs. Prints per
# configuration the wall time (mpirun's start included), events (trace
# records) per second per rank and the peak resident memory of each rank
# (the trace's mapped pages a rank touched included), then the ratios the
# targets name: N=1 / serial (target <= 1.10), N=1 / N=2 wall (target
# >= 1.7), N=2's largest rank / N=1's memory (target <= 0.6). COMMAND
# (default messages; CMD=report ...) writes its output with -o to a file
# (rank 0 writes it: mpirun's forwarding of stdout is not measured).
# The load average is printed before and after: the machine is shared.
# INSNS=NMSG (e.g. 200000) adds instruction counts, which the load does
# not change: callgrind on each rank, on a trace of NMSG messages among
# NPROC processes; a rank's work is its instructions less those spent in
# Open MPI's polling while it waits (opal_progress); the ratios are N=1 /
# serial (target <= 1.10) and N=2's busiest rank / N=1 (<= 0.59 for the
# 1.7x).
set -euo pipefail
build=${1:-$(dirname "$0")/../build}
nmsg=${2:-28200000}
nproc=${3:-10000}
runs=${RUNS:-1}
cmd=${CMD:-messages}
serial=$build/tools/msgtrace par=$build/par/msgtrace-mpi gen=$build/bench/gen_trace
for b in "$serial" "$par" "$gen"; do
	[ -x "$b" ] || { echo "par.sh: $b not built" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "par.sh: needs GNU time (/usr/bin/time)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
unset FI_HOOK FI_PROVIDER_PATH
# One host: Open MPI's ob1 over shared memory, libfabric left out, as
# README advises for msgtrace-mpi there (probing libfabric's providers is
# 1.3 s of each rank's start with Open MPI 4.1.4, not the analysis).
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=^tcp,ofi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-benchpar.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "generating $nmsg messages among $nproc processes ..."
events=$("$gen" "$tmp/trace" "$nmsg" "$nproc" | sed -n 's/ records$//p')
echo "trace: $(du -sh "$tmp/trace" | cut -f1), $events events (records)"
cat "$tmp"/trace/* >/dev/null	# every run reads from the page cache

# one NAME N: one run (N 0: the serial command); appends "wall mem0 mem1.."
# to $tmp/NAME.res.
one() {
	local name=$1 n=$2 t0 t1 mems=
	rm -f "$tmp"/mem.*
	t0=$(date +%s.%N)
	if [ "$n" = 0 ]; then
		/usr/bin/time -f %M -o "$tmp/mem.0" "$serial" $cmd -o "$tmp/out" "$tmp/trace"
	else
		# mpirun's own binding, a core per rank, as a user's job
		# gets it: unbound, N=2 took 1.11 times as long (10^7
		# events among 10,000 processes, medians of 3 pairs).
		mpirun --oversubscribe -np "$n" sh -c \
			'exec /usr/bin/time -f %M -o "$0/mem.$OMPI_COMM_WORLD_RANK" "$@"' \
			"$tmp" "$par" $cmd -o "$tmp/out" "$tmp/trace"
	fi
	t1=$(date +%s.%N)
	for f in $(ls "$tmp"/mem.* | sort -t. -k2 -n); do
		mems="$mems $(cat "$f")"
	done
	echo "$(echo "$t1 - $t0" | bc)$mems" >>"$tmp/$name.res"
}

for ((r = 0; r < runs; r++)); do
	one serial 0
	one np1 1
	one np2 2
done

# median NAME: the run of median wall time.
median() { sort -g -k1 "$tmp/$1.res" | sed -n "$(( (runs + 1) / 2 ))p"; }
printf '%-8s %9s %16s  %s\n' config wall_s events/s/rank "peak MB per rank"
for c in serial:1 np1:1 np2:2; do
	name=${c%:*} n=${c#*:}
	read -r wall mems <<<"$(median "$name")"
	mb=$(for m in $mems; do printf '%.0f ' "$(echo "$m / 1024" | bc -l)"; done)
	printf '%-8s %9.2f %16.0f  %s\n' "$name" "$wall" \
		"$(echo "$events / $wall / $n" | bc -l)" "$mb"
	eval "wall_$name=$wall mem_$name=$(echo "$mems" | tr ' ' '\n' | sort -g | tail -n 1)"
done
printf 'np1/serial wall %.3f (target <= 1.10)\n' "$(echo "$wall_np1 / $wall_serial" | bc -l)"
printf 'np1/np2 wall    %.3f (target >= 1.7)\n' "$(echo "$wall_np1 / $wall_np2" | bc -l)"
printf 'np2/np1 memory of the largest rank %.3f (target <= 0.6)\n' \
	"$(echo "$mem_np2 / $mem_np1" | bc -l)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

[ -n "${INSNS:-}" ] || exit 0
command -v valgrind >/dev/null || { echo "par.sh: INSNS needs valgrind" >&2; exit 1; }
"$gen" "$tmp/small" "$INSNS" "$nproc" >/dev/null
cg="valgrind --tool=callgrind --callgrind-out-file=$tmp/cg"
$cg.serial.0 "$serial" $cmd -o "$tmp/out" "$tmp/small" 2>/dev/null
for n in 1 2; do
	mpirun --oversubscribe --bind-to none -np "$n" $cg.np$n.%q{OMPI_COMM_WORLD_RANK} \
		"$par" $cmd -o "$tmp/out" "$tmp/small" 2>/dev/null
done
# work FILE: the instructions of one rank, less its waiting in MPI.
work() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | awk '
		/PROGRAM TOTALS/ { gsub(",", "", $1); t = $1 }
		/:opal_progress / && !w { gsub(",", "", $1); w = $1 }
		END { printf "%.0f %.0f\n", t / 1e6, (t - w) / 1e6 }'
}
echo "instructions (millions), $INSNS messages among $nproc processes: total, work"
for c in serial:0 np1:0 np2:0 np2:1; do
	read -r tot wk <<<"$(work "$tmp/cg.${c%:*}.${c#*:}")"
	printf '%-6s rank %s %7s %7s\n' "${c%:*}" "${c#*:}" "$tot" "$wk"
	eval "w_${c%:*}_${c#*:}=$wk"
done
printf 'np1/serial instructions %.3f (target <= 1.10)\n' "$(echo "$w_np1_0 / $w_serial_0" | bc -l)"
busy=$(( w_np2_0 > w_np2_1 ? w_np2_0 : w_np2_1 ))
printf 'np2 busiest rank / np1 instructions %.3f (target <= 0.59)\n' "$(echo "$busy / $w_np1_0" | bc -l)"
