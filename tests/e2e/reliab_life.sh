#!/usr/bin/env bash
# reliab_life.sh fork|fork-thread|exit-waitall PROVIDER_DIR MSGTRACE BINDIR
# A traced rank's life events (reliab_life.c says what each mode does):
#   fork, fork-thread  2 ranks fork after traffic (from the main thread or
#       from a second one); the child's only thread ends with pthread_exit.
#   exit-waitall  1 rank calls exit(3) while its 4 other threads are inside
#       MPI_Waitall, recording; RELIAB_LIFE_RUNS runs (default 5).
# Each traced run prints the same and ends with the same status as the
# untraced one, the hook logs nothing, `msgtrace dump` reads the trace,
# which holds files of the ranks only (the children recorded nothing),
# every file closed cleanly, and every exchange the ranks made.
mode=$1
shift
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
life=$bindir/reliab_life
e2e_need_file "$life" "reliab_life"
iters=200
case $mode in
fork | fork-thread) export E2E_NP=2 runs=1 ;;
exit-waitall) export E2E_NP=1 runs=${RELIAB_LIFE_RUNS:-5} ;;
*) e2e_fail "unknown mode '$mode' (fork, fork-thread or exit-waitall)" ;;
esac

reliab_run plain.out - -- "$life" "$mode" --iters "$iters"
for run in $(seq "$runs"); do
	rm -rf trace
	reliab_run traced.out "$E2E_TMP/trace" -- "$life" "$mode" --iters "$iters"
	reliab_same_as_plain plain.out traced.out
	reliab_no_warning traced.out.err
	"$msgtrace" dump --summary trace >summary.txt 2>summary.err ||
		e2e_fail "run $run: msgtrace dump fails on the trace: $(cat summary.err)"
	e2e_check_trace trace "$E2E_NP"
	if grep -q 'not closed' summary.txt; then
		sed 's/^/    /' summary.txt >&2
		e2e_fail "run $run: trace files left not closed"
	fi
	for r in $(seq 0 $((E2E_NP - 1))); do
		sends=0 recvs=0
		for tag in 300 301 302 303; do
			read -r s1 r1 < <(reliab_user_ops trace "$r" "$tag")
			sends=$((sends + s1)) recvs=$((recvs + r1))
		done
		case $mode in
		exit-waitall) [ "$sends" -ge "$iters" ] && [ "$recvs" -ge "$iters" ] ;;
		*) [ "$sends" -eq $((2 * iters)) ] && [ "$recvs" -eq $((2 * iters)) ] ;;
		esac || e2e_fail "run $run: rank $r's trace holds $sends sends and $recvs receives of its $((2 * iters)) (exit-waitall: at least $iters) exchanges"
	done
done
e2e_note "PASS ($mode): $runs traced run(s) as untraced (status $(cat plain.out.rc)), every file closed, every exchange recorded"
