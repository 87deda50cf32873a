#!/usr/bin/env bash
# match_hang.sh CASE PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]
#
# A real Open MPI 4.1.4 hang (TAG-LAYOUTS.md "Known defects"), killed by
# timeout; `msgtrace report` on the trace left behind must name the partner
# that is missing:
#   ack_source   hang_ssend_tag1 (ofi_tag_1/2): rank 0 waits for the ACK of
#                its MPI_Ssend to rank 2 with a receive posted for the wrong
#                source; the report must show that receive pending on rank 0
#                with rank 2's ACK as a near miss differing only in the
#                source address.
#   ack_missing  hang_mprobe_ssend: rank 1 takes rank 0's MPI_Ssend with
#                MPI_Improbe + MPI_Mrecv and never sends the ACK; the report
#                must show rank 0's ACK receive pending and name rank 1 as
#                the receiver of the unacknowledged (claimed) message.
# E2E_HANG_TIMEOUT (default 10) is how long the job may run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 7 ] || { echo "usage: $0 ack_source|ack_missing PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]" >&2; exit 2; }
case=$1 provider=$2 mode=$3 E2E_NP=$4 E2E_PROVIDER_DIR=$5 msgtrace=$6 prog=$7
shift 7
E2E_NAME="match_hang[$case $provider $mode]"
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" messages
e2e_setup
status=0
E2E_TIMEOUT=${E2E_HANG_TIMEOUT:-10} e2e_run "$E2E_TMP/out" "$E2E_TMP/trace" \
	"$provider" "$mode" "$prog" "$@" || status=$?
[ $status -eq 124 ] || e2e_fail "expected the job to hang (status 124), got $status"
e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
json=$E2E_TMP/report.json
"$msgtrace" report --json "$E2E_TMP/trace" >"$json" ||
	e2e_fail "msgtrace report --json failed on the killed job's trace"
"$msgtrace" report "$E2E_TMP/trace" >"$E2E_TMP/report.txt" ||
	e2e_fail "msgtrace report failed on the killed job's trace"
ack='.pending[] | select(.rank == 0 and .dir == "recv" and .kind == "ssend_ack")'
jq -e "[$ack] | length == 1" "$json" >/dev/null ||
	{ sed -n '/^PENDING/,$p' "$E2E_TMP/report.txt" >&2; e2e_fail "rank 0's ACK receive is not reported pending"; }
case $case in
ack_source)
	jq -e "$ack | .near_misses | any(.differs_in == \"source address\" and
		.send.send_rank == 2 and .send.kind == \"ssend_ack\")" "$json" >/dev/null ||
		{ sed -n '/^PENDING/,$p' "$E2E_TMP/report.txt" >&2
		  e2e_fail "rank 2's ACK is not named as the near miss"; }
	grep -q 'differs only in source address' "$E2E_TMP/report.txt" ||
		e2e_fail "the text report does not explain the near miss"
	;;
ack_missing)
	jq -e "$ack | .unacknowledged_ssend | .claimed and .message.recv_rank == 1
		and .message.kind == \"ssend\"" "$json" >/dev/null ||
		{ sed -n '/^PENDING/,$p' "$E2E_TMP/report.txt" >&2
		  e2e_fail "rank 1 is not named as the receiver that never acknowledged"; }
	grep -q 'never acknowledged' "$E2E_TMP/report.txt" ||
		e2e_fail "the text report does not name the unacknowledged Ssend"
	;;
*)
	e2e_fail "unknown case '$case' (ack_source, ack_missing)"
	;;
esac
e2e_note "the report names the missing partner"
sed -n '/^PENDING/,$p' "$E2E_TMP/report.txt"
