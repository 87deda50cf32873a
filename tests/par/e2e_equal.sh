#!/usr/bin/env bash
# e2e_equal.sh finish|hang PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE
#              MSGTRACE_MPI NPS PROGRAM [ARGS...]
#
# msgtrace-mpi on a trace recorded here and now: PROGRAM (one of
# tests/e2e's MPI programs) runs traced on NP ranks over PROVIDER in
# TAGMODE, as the end-to-end tests run it (tests/e2e/lib.sh), and must end
# as EXPECT says (finish: status 0; hang: still running when it is killed
# after E2E_HANG_TIMEOUT s, default 5). Then, for each N in NPS, `mpirun
# -np N msgtrace-mpi` prints and writes what msgtrace does on that trace:
# report, report --json, messages and export (equal.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/../e2e/lib.sh"

[ $# -ge 9 ] || { echo "usage: $0 finish|hang PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE MSGTRACE_MPI NPS PROGRAM [ARGS...]" >&2; exit 2; }
expect=$1 provider=$2 mode=$3 E2E_NP=$4 E2E_PROVIDER_DIR=$5 serial=$6 par=$7 nps=$8
prog=$9
shift 9
E2E_NAME="par $(basename "$prog")[$expect $provider $mode np $nps]"
e2e_need_file "$prog" "the test program"
e2e_setup

case $expect in
finish)
	e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$provider" "$mode" "$prog" "$@" ;;
hang)
	status=0
	E2E_TIMEOUT=${E2E_HANG_TIMEOUT:-5} e2e_run "$E2E_TMP/out" \
		"$E2E_TMP/trace" "$provider" "$mode" "$prog" "$@" || status=$?
	e2e_timed_out $status ||
		e2e_fail "expected a hang (timeout, status 124 or 137), got status $status" ;;
*)
	e2e_fail "unknown expectation '$expect' (finish or hang)" ;;
esac
e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
"$here/equal.sh" "$serial" "$par" "$nps" "$E2E_TMP/trace"
"$here/equal.sh" --only export "$serial" "$par" "$nps" "$E2E_TMP/trace" >/dev/null
e2e_note "msgtrace-mpi = msgtrace (report, messages, export) for np $nps"
