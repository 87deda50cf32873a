#!/usr/bin/env bash
# longrun.sh - the flight recorder over a long run that ends in a hang.
#
# A 2-rank job (tests/e2e/ring_hang.c) exchanges 4-byte ping-pongs for
# DURATION seconds, traced in ring mode with a RING-byte ring per thread;
# then rank 0 waits for a tag rank 1 never sends and rank 1 waits in a
# barrier. Once both wait, HANG_WAIT seconds later, the job is killed. It
# prints the trace's bytes on disk beside the ring's size, the records
# recorded (kept + overwritten, from each file's header) against the round
# trips the program counted, the time `msgtrace report` takes on the
# trace, and the report's first lines (its hang section).
# Last, the instruction cost of ring mode against the default mode, from
# bench/overhead.sh's callgrind runs in the same invocation.
# Not a test: it takes DURATION seconds (default 600) and a few minutes.
#
# Usage: bench/longrun.sh BUILD_DIR
#   env: DURATION (s, default 600) RING (default 4M) PROV (default
#        tcp;ofi_rxm) HANG_WAIT (s, default 5) KEEP=1 (keep the trace)
set -euo pipefail

build=${1:?usage: longrun.sh BUILD_DIR}
prog=$build/tests/e2e/ring_hang
msgtrace=$build/tools/msgtrace
duration=${DURATION:-600}
ring=${RING:-4M}
prov=${PROV:-tcp;ofi_rxm}
hang_wait=${HANG_WAIT:-5}
for f in "$prog" "$msgtrace" "$build/provider/libmsgtrace-fi.so"; do
	[ -e "$f" ] || { echo "longrun.sh: $f not built" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-longrun.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir "$work/ready"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

echo "ring_hang: 2 ranks, $duration s of ping-pongs then a hang; ring $ring per thread, provider $prov"
FI_PROVIDER_PATH=$build/provider FI_HOOK=msgtrace FI_OFI_HOOK_MSGTRACE_MODE=ring \
	FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=$ring FI_OFI_HOOK_MSGTRACE_DIR=$work/trace \
	timeout $((duration + 600)) mpirun -np 2 --oversubscribe --mca pml cm \
	--mca mtl ofi --mca mtl_ofi_provider_include "$prov" \
	"$prog" "$work/ready" "$duration" >"$work/out" 2>"$work/err" &
job=$!
while [ "$(find "$work/ready" -name 'ready.*' | wc -l)" -lt 2 ]; do
	kill -0 "$job" 2>/dev/null || { cat "$work/err" >&2; echo "longrun.sh: the job ended before its hang" >&2; exit 1; }
	sleep 1
done
sleep "$hang_wait"
# $job is timeout itself, which passes the TERM on to mpirun.
kill -TERM "$job" 2>/dev/null || true
wait "$job" 2>/dev/null || true
cat "$work/out"

# Header fields (mt_format.h, struct mt_file_hdr) as unsigned integers.
field() { od -A n -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
ring_bytes=$(numfmt --from=iec "$ring")
echo
printf '%-28s %8s %12s %12s %12s\n' file version "bytes" "on disk" overwritten
total=0 over=0
for f in "$work"/trace/*.mt; do
	v=$(od -A n -t u4 -j 8 -N 4 "$f" | tr -d ' ')
	o=$(field "$f" 144)
	size=$(stat -c %s "$f") disk=$(($(stat -c %b "$f") * $(stat -c %B "$f")))
	printf '%-28s %8s %12s %12s %12s\n' "$(basename "$f")" "$v" "$size" "$disk" "$o"
	total=$((total + disk)) over=$((over + o))
done
nfiles=$(find "$work/trace" -name '*.mt' | wc -l)
awk -v t="$total" -v n="$nfiles" -v r="$ring_bytes" 'BEGIN {
	printf "trace on disk: %d bytes in %d files = %.2f x the ring per file\n", t, n, t / n / r }'

summary=$("$msgtrace" dump --summary "$work/trace")
kept=$(echo "$summary" | awk '/records:/ { for (i = 2; i < NF; i += 2) if ($i == "op" || $i == "cqe") k += $(i + 1) } END { print k + 0 }')
trips=$(awk '/round trips/ { s += $NF } END { print s + 0 }' "$work/out")
echo "ring records (OP, CQE): $((kept + over)) recorded, $over overwritten, $kept kept"
echo "round trips (both ranks' counts): $trips -> $(awk -v r=$((kept + over)) -v t="$trips" 'BEGIN { printf "%.2f", t ? r / t : 0 }') ring records per rank-round trip"

start=$(date +%s.%N)
"$msgtrace" report "$work/trace" >"$work/report" 2>&1 || true
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN { printf "msgtrace report: %.3f s\n", b - a }'
echo
echo "report, its hang section:"
sed -n '/^PENDING/,/^$/p' "$work/report"
echo
echo "report, its CLOCKS section (one host: how far apart its processes are):"
sed -n "/^CLOCKS/,/^\$/p" "$work/report"
echo
echo "instructions per record, ring mode against the default mode (bench/overhead.sh, callgrind):"
RUNS=1 ITERS=20000 "$(dirname "$0")/overhead.sh" "$build" | grep 'ring vs default'
