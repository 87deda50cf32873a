#!/usr/bin/env bash
# reliab_kill.sh abort|kill|term PROVIDER_DIR MSGTRACE BINDIR
# A traced job that ends badly, run the same way without the hook:
#   abort  rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) at iteration 300;
#   kill   rank 1 gets SIGKILL once it has done 300 iterations;
#   term   mpirun gets SIGTERM once rank 1 has done 300 iterations.
# The job's output and exit status equal the untraced run's, the hook logs
# nothing, `msgtrace dump` reads every rank's files (exit 0), and each
# rank's trace holds every user send and receive the rank had completed
# (its reliab_mix --progress line, written after each iteration) and at
# most the one iteration in flight beyond it.
mode=$1
shift
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
export E2E_NP=3
prog=("$mix" --iters 1000000 --nap-us 2000)

# at_300 PROGRESSDIR JOB: waits until rank 1 has done 300 iterations (a
# count, not a time: a loaded machine may take seconds to start the job).
at_300() {
	local it=0
	for _ in $(seq 600); do
		it=$({ tail -n 1 "$1/rank1.progress" 2>/dev/null || true; } | cut -d' ' -f1)
		[ "${it:-0}" -ge 300 ] && return 0
		sleep 0.1
	done
	wait "$2"
	e2e_fail "rank 1 never reached iteration 300"
}

# job OUT TRACEDIR PROGRESSDIR: one run ending the way $mode says.
job() {
	local out=$1 trace=$2 progress=$3 bg
	mkdir "$progress"
	case $mode in
	abort)
		reliab_run "$out" "$trace" -- "${prog[@]}" --abort-at 300 --progress "$progress"
		;;
	kill)
		reliab_run "$out" "$trace" -- "${prog[@]}" --progress "$progress" &
		bg=$!
		at_300 "$progress" $bg
		kill -KILL "$(cat "$progress/rank1.pid")"
		wait $bg
		;;
	term)
		reliab_run "$out" "$trace" -- "${prog[@]}" --progress "$progress" &
		bg=$!
		at_300 "$progress" $bg
		# reliab_run's timeout hands the SIGTERM on to mpirun.
		pkill -TERM -x -P $bg timeout
		wait $bg
		;;
	*) e2e_fail "unknown mode '$mode' (abort, kill, term)" ;;
	esac
}

# gone PROGRESSDIR: wait until every rank of the job has exited (mpirun
# can return before ranks it signalled are gone, and they keep recording).
gone() {
	for _ in $(seq 100); do
		local alive=0
		for f in "$1"/rank*.pid; do
			kill -0 "$(cat "$f")" 2>/dev/null && alive=1
		done
		[ "$alive" = 0 ] && return 0
		sleep 0.1
	done
	e2e_fail "ranks of the $mode job still alive 10 s after mpirun returned"
}

job plain.out - plain.progress
job traced.out "$E2E_TMP/trace" traced.progress
gone traced.progress
[ "$(cat plain.out.rc)" != 0 ] || e2e_fail "the untraced job did not fail"
# A killed job's output is whatever the ranks had printed: none print
# before the end, except the aborting rank.
reliab_same_as_plain plain.out traced.out
reliab_no_warning traced.out.err

"$msgtrace" dump trace >dump.txt 2>dump.err ||
	e2e_fail "msgtrace dump fails on the trace of the $mode: $(cat dump.err)"
e2e_check_trace trace "$E2E_NP"
for r in $(seq 0 $((E2E_NP - 1))); do
	read -r it sends recvs < <(tail -n 1 "traced.progress/rank$r.progress") ||
		e2e_fail "rank $r of the traced job wrote no progress line"
	read -r s1 r1 < <(reliab_user_ops trace "$r" 101)
	read -r s2 r2 < <(reliab_user_ops trace "$r" 102)
	ts=$((s1 + s2)) tr=$((r1 + r2))
	[ "$ts" -ge "$sends" ] && [ "$tr" -ge "$recvs" ] ||
		e2e_fail "rank $r completed $sends sends and $recvs receives (iteration $it) but its trace holds $ts and $tr"
	[ "$ts" -le $((sends + 2)) ] && [ "$tr" -le $((recvs + 2)) ] ||
		e2e_fail "rank $r's trace holds $ts sends and $tr receives, more than the $sends and $recvs done plus one iteration"
	e2e_note "rank $r: $it iterations, trace holds $ts/$sends sends, $tr/$recvs receives"
done
e2e_note "PASS ($mode): exit status $(cat traced.out.rc) as without the hook, every rank's trace complete"
