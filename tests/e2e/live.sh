#!/bin/bash
# live.sh - reading a trace while its job writes it:
# 1. The ranks of a running ping-pong stopped (SIGSTOP) mid-run: every
#    report exits 0 and says its files are still being written (the writers
#    run), never "not closed (killed or aborted)"; dump --summary says so of
#    both processes.
# 2. Let go, reports taken over and over while the job runs to its end and
#    its writers truncate their files at close: each one exits 0 (no SIGBUS,
#    no false corruption); after the end all files are closed, and every
#    message is there.
# 3. The same job with its ranks killed (SIGKILL): its files are "not closed
#    (killed or aborted)", none "still being written".
# usage: live.sh PROVIDER_DIR MSGTRACE PINGPONG
set -euo pipefail
. "$(dirname "$0")/lib.sh"
E2E_PROVIDER_DIR=$1
msgtrace=$2 pingpong=$3
e2e_need_subcommand "$msgtrace" report
e2e_need_file "$pingpong" provider_pingpong
e2e_setup
ITERS=40 NAP_MS=20	# 5 sizes x 40 round trips, 20 ms apart: seconds
# The job runs beside a loop of reports that takes a core: 9 s alone, 30 s
# beside two busy loops, and over 60 s (lib.sh's limit) at load 14 with
# two test suites running; the limit is there for hangs only.
export E2E_TIMEOUT=${E2E_TIMEOUT:-150}

# start NAME: the ping-pong traced into $E2E_TMP/NAME in the background;
# sets job (mpirun's pid) and pids (the ranks', from their PROC records)
# once both ranks recorded.
start() {
	local tr=$E2E_TMP/$1 i
	E2E_NP=2 e2e_run "$E2E_TMP/$1.out" "$tr" "$E2E_TCP" full \
		"$pingpong" $ITERS $NAP_MS &
	job=$!
	for i in $(seq 600); do
		pids=$("$msgtrace" dump --kind proc "$tr" 2>/dev/null |
			sed -n 's/.* pid=\([0-9]*\) .*/\1/p' | tr '\n' ' ') || true
		[ "$(wc -w <<<"$pids")" -eq 2 ] && return 0
		kill -0 $job 2>/dev/null || e2e_fail "the job ended before both ranks recorded"
		sleep 0.1
	done
	e2e_fail "no PROC records of both ranks after 60 s"
}

# report TRACE OUT: msgtrace report, failing the test unless it exits 0.
report() {
	"$msgtrace" report "$1" >"$2" 2>"$2.err" && return 0
	sed 's/^/    /' "$2.err" >&2
	e2e_fail "msgtrace report failed on a trace being written (status $?)"
}

# --- 1. stopped mid-run --------------------------------------------------------
E2E_NAME="live[stopped]"
start run
# shellcheck disable=SC2086
kill -STOP $pids
"$msgtrace" dump --summary "$E2E_TMP/run" >"$E2E_TMP/sum" ||
	e2e_fail "msgtrace dump --summary failed on a trace being written"
[ "$(grep -c ' still being written)' "$E2E_TMP/sum")" -eq 2 ] ||
	{ cat "$E2E_TMP/sum" >&2; kill -CONT $pids; e2e_fail "dump --summary: not 2 processes being written"; }
for i in 1 2 3; do
	report "$E2E_TMP/run" "$E2E_TMP/r$i"
	grep -Eq '^  [0-9]+ files? still being written \(the job runs\)$' "$E2E_TMP/r$i" &&
		! grep -q 'not closed' "$E2E_TMP/r$i" ||
		{ head -n 8 "$E2E_TMP/r$i" >&2
		  kill -CONT $pids; e2e_fail "a running job's files not reported as being written"; }
done
# shellcheck disable=SC2086
kill -CONT $pids

# --- 2. read while the writers finish -----------------------------------------
E2E_NAME="live[closing]"
n=0
while kill -0 $job 2>/dev/null; do
	report "$E2E_TMP/run" "$E2E_TMP/closing"
	n=$((n + 1))
done
wait $job || e2e_fail "the traced job failed (status $?)"
report "$E2E_TMP/run" "$E2E_TMP/end"
! grep -Eq 'still being written|not closed' "$E2E_TMP/end" ||
	{ head -n 8 "$E2E_TMP/end" >&2; e2e_fail "files of a finished job not all closed"; }
e2e_messages_csv "$msgtrace" "$E2E_TMP/run" "$E2E_TMP/end.csv"
[ "$(awk -F, '$6 == "user" && $12 == "matched"' "$E2E_TMP/end.csv" | wc -l)" -eq \
	$((2 * 5 * ITERS)) ] || e2e_fail "the finished trace lacks messages"

# --- 3. killed -----------------------------------------------------------------
E2E_NAME="live[killed]"
start killed
# shellcheck disable=SC2086
kill -KILL $pids
wait $job && e2e_fail "the job survived its ranks' SIGKILL"
report "$E2E_TMP/killed" "$E2E_TMP/k"
grep -Eq '^  [0-9]+ files? not closed \(killed or aborted\)$' "$E2E_TMP/k" &&
	! grep -q 'still being written' "$E2E_TMP/k" ||
	{ head -n 8 "$E2E_TMP/k" >&2; e2e_fail "a killed job's files not reported as such"; }
e2e_note "stopped: being written; $n reports while closing, all fine; killed: not closed"
