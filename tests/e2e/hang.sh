#!/usr/bin/env bash
# hang.sh EXPECT PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]
#
# Runs a hang program (hang_ssend_tag1, hang_mprobe_ssend) traced, with its
# mpilog log, and checks what the trace says against the log.
#   EXPECT=hang    the job must hang (killed after E2E_HANG_TIMEOUT s,
#                  default 10): the Open MPI 4.1.4 defect is reproduced.
#                  The logs written before the kill must be there, the
#                  trace must hold every process, and msgtrace messages
#                  must account for every logged user message and show
#                  exactly one synchronous send without its ACK.
#   EXPECT=finish  the control run: the same program where it does not
#                  hang must finish, every message matched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 7 ] || { echo "usage: $0 hang|finish PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]" >&2; exit 2; }
expect=$1 provider=$2 mode=$3 E2E_NP=$4 E2E_PROVIDER_DIR=$5 msgtrace=$6 prog=$7
shift 7
E2E_NAME="$(basename "$prog")[$expect $provider $mode${*:+ $*}]"
e2e_need_file "$prog" "the test program"
e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" "the msgtrace provider"
e2e_need_messages "$msgtrace"
e2e_setup
mkdir "$E2E_TMP/log"

case $expect in
hang)
	status=0
	E2E_TIMEOUT=${E2E_HANG_TIMEOUT:-10} e2e_run "$E2E_TMP/out" \
		"$E2E_TMP/trace" "$provider" "$mode" "$prog" --log "$E2E_TMP/log" \
		"$@" || status=$?
	if [ $status -ne 124 ]; then
		sed 's/^/    /' "$E2E_TMP/out.err" | tail -n 20 >&2
		e2e_fail "expected a hang (timeout, status 124), got status $status;" \
			"if Open MPI no longer has this defect, this test needs a new hang"
	fi
	grep -q 'call=ssend' "$E2E_TMP"/log/rank*.log ||
		e2e_fail "no log holds the synchronous send that hung (log lines lost at the kill?)"
	;;
finish)
	e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$provider" "$mode" "$prog" \
		--log "$E2E_TMP/log" "$@"
	;;
*)
	e2e_fail "unknown expectation '$expect' (hang or finish)"
	;;
esac
e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
e2e_messages_csv "$msgtrace" "$E2E_TMP/trace" "$E2E_TMP/messages.csv"
# The hang's signature: one synchronous send whose ACK never matched.
hung=0
[ "$expect" = hang ] && hung=1
"$here/compare_log_csv.sh" --hung-ssends $hung "$E2E_TMP/log" \
	"$E2E_TMP/messages.csv" ||
	e2e_fail "the trace disagrees with the program's log (above)"
