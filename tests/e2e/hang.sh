#!/usr/bin/env bash
# hang.sh EXPECT PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]
#
# Runs a hang program (hang_ssend_tag1, hang_mprobe_ssend, hang_barrier3)
# traced, with its mpilog log, and checks what the trace says. One run per
# scenario serves every check on it.
#   EXPECT=hang    the job must hang: killed once every rank is at the call
#                  it hangs in (mpilog_blocks) and waits in the trace
#                  (e2e_wait_hang), the Open MPI 4.1.4 defect is reproduced.
#                  The logs written before the kill must be there, the
#                  trace must hold every process, msgtrace messages must
#                  account for every logged user message with each logged
#                  MPI_Ssend left without its ACK, and msgtrace report must
#                  list a rank (the logged Ssend's sender, if any) waiting
#                  for an ssend_ack, with an explanation under it (near
#                  miss, or Ssend taken by a claim).
#   EXPECT=ack_source   hang, and (hang_ssend_tag1, ofi_tag_1/2) rank 0
#                  waits for the ACK of its MPI_Ssend to rank 2 with a
#                  receive posted for the wrong source: the report must show
#                  that receive pending on rank 0 with rank 2's ACK as a near
#                  miss differing only in the source address.
#   EXPECT=ack_missing  hang, and (hang_mprobe_ssend) rank 1 takes rank 0's
#                  MPI_Ssend with MPI_Improbe + MPI_Mrecv and never sends the
#                  ACK: the report must show rank 0's ACK receive pending and
#                  name rank 1 as the receiver of the unacknowledged
#                  (claimed) message.
#   EXPECT=finish  the control run: the same program where it does not
#                  hang must finish, every message and ACK matched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -ge 7 ] || { echo "usage: $0 hang|ack_source|ack_missing|finish PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]" >&2; exit 2; }
expect=$1 provider=$2 mode=$3 E2E_NP=$4 E2E_PROVIDER_DIR=$5 msgtrace=$6 prog=$7
shift 7
E2E_NAME="$(basename "$prog")[$expect $provider $mode${*:+ $*}]"
e2e_need_file "$prog" "the test program"
e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" "the msgtrace provider"
e2e_need_subcommand "$msgtrace" messages
e2e_need_subcommand "$msgtrace" report
e2e_setup
mkdir "$E2E_TMP/log"

case $expect in
hang|ack_source|ack_missing)
	E2E_TIMEOUT=120 e2e_run "$E2E_TMP/out" "$E2E_TMP/trace" "$provider" \
		"$mode" "$prog" --log "$E2E_TMP/log" "$@" &
	job=$!
	trap 'e2e_stop_job "$job"; e2e_cleanup' EXIT
	# A job that ends by itself fails here: if Open MPI no longer has
	# this defect, this test needs a new hang. In hang_barrier3 only
	# rank 0 waits (for an ACK): the others leave the barrier and wait in
	# MPI_Finalize, where nothing is posted.
	[ "$(basename "$prog")" != hang_barrier3 ] || export E2E_WAITING=1
	e2e_wait_hang "$job" "$E2E_TMP/log" "$E2E_TMP/trace" "$E2E_NP" \
		"$msgtrace" "$E2E_TMP/out"
	e2e_stop_job "$job"
	[ "$(cat "$E2E_TMP"/log/rank*.log | wc -l)" -ge "$E2E_NP" ] ||
		e2e_fail "the logs lost lines at the kill: $(cat "$E2E_TMP"/log/rank*.log | wc -l) lines for $E2E_NP ranks"
	;;
finish)
	e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$provider" "$mode" "$prog" \
		--log "$E2E_TMP/log" "$@"
	;;
*)
	e2e_fail "unknown expectation '$expect' (hang, ack_source, ack_missing or finish)"
	;;
esac
e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
e2e_messages_csv "$msgtrace" "$E2E_TMP/trace" "$E2E_TMP/messages.csv"
# The hang's signature: the program's synchronous sends whose ACK never
# matched (the barrier's are internal, not in the log).
hung=0
[ "$expect" != finish ] && hung=$(cat "$E2E_TMP"/log/rank*.log | grep -c 'call=ssend' || true)
"$here/compare_log_csv.sh" --hung-ssends "$hung" "$E2E_TMP/log" \
	"$E2E_TMP/messages.csv" ||
	e2e_fail "the trace disagrees with the program's log (above)"
[ "$expect" != finish ] || exit 0

# msgtrace report must name the hang: its cause first (a rank that waits
# for an Ssend's ACK in it), then the Ssend's sender still waiting for its
# ACK with (indented below) why.
"$msgtrace" report "$E2E_TMP/trace" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report failed on the trace"; }
sed -n '/^PENDING/,$p' "$E2E_TMP/report"
sender=$(cat "$E2E_TMP"/log/rank*.log | sed -n 's/^SEND world_src=\([0-9]*\) .*call=ssend.*/\1/p' |
	head -n 1)
sed -n '/^PENDING/,/^CLOCKS/p' "$E2E_TMP/report" | sed -n '2p' | grep -q '^  cause: ' ||
	e2e_fail "msgtrace report does not state the cause of the hang first"
sed -n '/^  cause: /,/^  [^ ]/p' "$E2E_TMP/report" |
	grep -Eq "^    rank ${sender:-[0-9]+} waits on .*: ssend ack " ||
	e2e_fail "the cause does not name rank ${sender:-any} waiting for its Ssend's ACK"
# Wording may change; the shape is "    rank R waits: <recv> ssend_ack ..."
# (continued on lines indented by 6 past 80 columns) followed by a more
# indented line that says why.
awk -v want="^    rank ${sender:-[0-9]+} waits: [a-z]+ ssend_ack " '
	$0 ~ want { found = 1; next }
	found == 1 && /^      [^ ]/ { next }
	found == 1 { explained = /^        /; exit }
	END { exit !(found && explained) }' "$E2E_TMP/report" ||
	e2e_fail "msgtrace report does not list rank ${sender:-any} waiting for an ssend_ack, with a reason"
[ "$expect" != hang ] || exit 0

# The partner that is missing, from the JSON report.
json=$E2E_TMP/report.json
"$msgtrace" report --json "$E2E_TMP/trace" >"$json" ||
	e2e_fail "msgtrace report --json failed on the killed job's trace"
ack='.pending[] | select(.rank == 0 and .dir == "recv" and .kind == "ssend_ack")'
jq -e "[$ack] | length == 1" "$json" >/dev/null ||
	e2e_fail "rank 0's ACK receive is not reported pending"
case $expect in
ack_source)
	jq -e "$ack | .near_misses | any(.differs_in == \"source address\" and
		.send.send_rank == 2 and .send.kind == \"ssend_ack\")" "$json" >/dev/null ||
		e2e_fail "rank 2's ACK is not named as the near miss"
	grep -q 'differs only in source address' "$E2E_TMP/report" ||
		e2e_fail "the text report does not explain the near miss"
	;;
ack_missing)
	jq -e "$ack | .unacknowledged_ssend | .claimed and .message.recv_rank == 1
		and .message.kind == \"ssend\"" "$json" >/dev/null ||
		e2e_fail "rank 1 is not named as the receiver that never acknowledged"
	grep -q 'never acknowledged' "$E2E_TMP/report" ||
		e2e_fail "the text report does not name the unacknowledged Ssend"
	;;
esac
e2e_note "the report names the missing partner"
