#!/usr/bin/env bash
# p2p_mix.sh CHECK PROVIDER TAGMODE PROVIDER_DIR MSGTRACE P2P_MIX
#
# Runs the 4-rank p2p_mix program (p2p_mix.c) over one libfabric PROVIDER
# ("tcp;ofi_rxm", "sockets") in one TAGMODE (full, ofi_tag_1, ofi_tag_2)
# and checks one thing:
#   output  the hook changes nothing the program sees: its output with the
#           msgtrace hook equals its output without it;
#   counts  the trace accounts for every message the program logged
#           (compare_log_csv.sh on `msgtrace messages --csv`).
# PROVIDER_DIR holds libmsgtrace-fi.so, MSGTRACE is the msgtrace command,
# P2P_MIX the program. ofi_tag_1/2 runs pass --no-ssend: Open MPI 4.1.4
# hangs on MPI_Ssend in those modes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 6 ] || { echo "usage: $0 output|counts PROVIDER TAGMODE PROVIDER_DIR MSGTRACE P2P_MIX" >&2; exit 2; }
check=$1 provider=$2 mode=$3 E2E_PROVIDER_DIR=$4 msgtrace=$5 prog=$6
E2E_NAME="p2p_mix[$check $provider $mode]"
e2e_need_file "$prog" "p2p_mix"
e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" "the msgtrace provider"
args=()
[ "$mode" = full ] || args=(--no-ssend)
e2e_setup

case $check in
output)
	e2e_run_ok "$E2E_TMP/plain.out" - "$provider" "$mode" "$prog" "${args[@]}"
	e2e_run_ok "$E2E_TMP/traced.out" "$E2E_TMP/trace" "$provider" "$mode" \
		"$prog" "${args[@]}"
	e2e_check_trace "$E2E_TMP/trace" 4
	e2e_same_output "$E2E_TMP/plain.out" "$E2E_TMP/traced.out" \
		"output differs with the msgtrace hook (- without, + with)"
	e2e_note "output identical with and without the hook ($(wc -l <"$E2E_TMP/plain.out") lines)"
	;;
counts)
	e2e_need_file "$msgtrace" "the msgtrace command"
	"$msgtrace" messages --help >/dev/null 2>&1 ||
		e2e_fail "msgtrace messages not built: '$msgtrace messages --help' fails"
	mkdir "$E2E_TMP/log"
	e2e_run_ok "$E2E_TMP/traced.out" "$E2E_TMP/trace" "$provider" "$mode" \
		"$prog" --log "$E2E_TMP/log" "${args[@]}"
	e2e_check_trace "$E2E_TMP/trace" 4
	"$msgtrace" messages "$E2E_TMP/trace" --csv >"$E2E_TMP/messages.csv" \
		2>"$E2E_TMP/messages.err" ||
		{ cat "$E2E_TMP/messages.err" >&2; e2e_fail "msgtrace messages failed on the trace"; }
	"$here/compare_log_csv.sh" "$E2E_TMP/log" "$E2E_TMP/messages.csv" ||
		e2e_fail "the trace disagrees with the program's log (above)"
	;;
*)
	e2e_fail "unknown check '$check' (output or counts)"
	;;
esac
