#!/usr/bin/env bash
# e2e_record.sh finish|hang PROVIDER TAGMODE NP PROVIDER_DIR TRACEDIR
#               PROGRAM [ARGS...]
#
# A trace for msgtrace-mpi's tests recorded here and now: PROGRAM (one of
# tests/e2e's MPI programs) runs traced into TRACEDIR (made anew) on NP
# ranks over PROVIDER in TAGMODE, as the end-to-end tests run it
# (tests/e2e/lib.sh), and must end as EXPECT says (finish: status 0; hang:
# still running when it is killed after E2E_HANG_TIMEOUT s, default 5),
# with a file for each of its NP processes. The par_e2e_* tests then
# compare msgtrace-mpi with msgtrace on TRACEDIR (equal.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/../e2e/lib.sh"

[ $# -ge 7 ] || { echo "usage: $0 finish|hang PROVIDER TAGMODE NP PROVIDER_DIR TRACEDIR PROGRAM [ARGS...]" >&2; exit 2; }
expect=$1 provider=$2 mode=$3 E2E_NP=$4 E2E_PROVIDER_DIR=$5 trace=$6 prog=$7
shift 7
E2E_NAME="par record $(basename "$prog")[$expect $provider $mode]"
e2e_need_file "$prog" "the test program"
rm -rf "$trace"
e2e_setup

case $expect in
finish)
	e2e_run_ok "$E2E_TMP/out" "$trace" "$provider" "$mode" "$prog" "$@" ;;
hang)
	status=0
	E2E_TIMEOUT=${E2E_HANG_TIMEOUT:-5} e2e_run "$E2E_TMP/out" \
		"$trace" "$provider" "$mode" "$prog" "$@" || status=$?
	e2e_timed_out $status ||
		e2e_fail "expected a hang (timeout, status 124 or 137), got status $status" ;;
*)
	e2e_fail "unknown expectation '$expect' (finish or hang)" ;;
esac
e2e_check_trace "$trace" "$E2E_NP"
e2e_note "recorded in $trace"
