#!/usr/bin/env bash
# program.sh CHECK PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM
#
# Runs an mpilog test program (p2p_mix, match_patterns) on NP ranks over
# one libfabric PROVIDER ("tcp;ofi_rxm", "tcp", "sockets") in one TAGMODE (full,
# ofi_tag_1, ofi_tag_2) and checks one thing:
#   output  the hook changes nothing the program sees: its output with the
#           msgtrace hook equals its output without it;
#   counts  the trace accounts for every message the program logged
#           (compare_log_csv.sh on `msgtrace messages --csv`), and for its
#           probes (`msgtrace report --json`): one probe hit per probe that
#           found a message, one claim per MPI_Improbe/MPI_Mprobe that did,
#           and at least as many misses as probes that found nothing (a
#           blocking MPI_Probe or MPI_Mprobe may peek several times).
# PROVIDER_DIR holds libmsgtrace-fi.so, MSGTRACE is the msgtrace command.
# ofi_tag_1/2 runs pass --no-ssend: Open MPI 4.1.4 hangs on MPI_Ssend there.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 7 ] || { echo "usage: $0 output|counts PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM" >&2; exit 2; }
check=$1 provider=$2 mode=$3 E2E_NP=$4 E2E_PROVIDER_DIR=$5 msgtrace=$6 prog=$7
E2E_NAME="$(basename "$prog")[$check $provider $mode np=$E2E_NP]"
e2e_need_file "$prog" "the test program"
e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" "the msgtrace provider"
args=()
[ "$mode" = full ] || args=(--no-ssend)
e2e_setup

case $check in
output)
	e2e_run_ok "$E2E_TMP/plain.out" - "$provider" "$mode" "$prog" "${args[@]}"
	e2e_run_ok "$E2E_TMP/traced.out" "$E2E_TMP/trace" "$provider" "$mode" \
		"$prog" "${args[@]}"
	e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
	e2e_same_output "$E2E_TMP/plain.out" "$E2E_TMP/traced.out" \
		"output differs with the msgtrace hook (- without, + with)"
	e2e_note "output identical with and without the hook ($(wc -l <"$E2E_TMP/plain.out") lines)"
	;;
counts)
	e2e_need_subcommand "$msgtrace" messages
	mkdir "$E2E_TMP/log"
	e2e_run_ok "$E2E_TMP/traced.out" "$E2E_TMP/trace" "$provider" "$mode" \
		"$prog" --log "$E2E_TMP/log" "${args[@]}"
	e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
	e2e_messages_csv "$msgtrace" "$E2E_TMP/trace" "$E2E_TMP/messages.csv"
	"$here/compare_log_csv.sh" "$E2E_TMP/log" "$E2E_TMP/messages.csv" ||
		e2e_fail "the trace disagrees with the program's log (above)"
	e2e_need_subcommand "$msgtrace" report
	"$msgtrace" report --json "$E2E_TMP/trace" >"$E2E_TMP/report.json" \
		2>"$E2E_TMP/report.err" ||
		{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report --json failed"; }
	logged() { cat "$E2E_TMP"/log/rank*.log | grep -cE "^PROBE .*$1" || true; }
	traced() {
		grep -o "\"$1\": *[0-9]*" "$E2E_TMP/report.json" | grep -o '[0-9]*$' ||
			e2e_fail "no \"$1\" in msgtrace report --json"
	}
	hits=$(logged 'found=1') misses=$(logged 'found=0')
	claims=$(logged 'call=(improbe|mprobe) found=1')
	if [ "$(traced probe_hits)" -ne "$hits" ] ||
		[ "$(traced claims)" -ne "$claims" ] ||
		[ "$(traced probe_misses)" -lt "$misses" ]; then
		e2e_fail "probes: logged $hits hits, $misses misses, $claims claims;" \
			"traced $(traced probe_hits) hits, $(traced probe_misses) misses, $(traced claims) claims"
	fi
	e2e_note "probes agree: $hits hits, $claims claims, $(traced probe_misses) misses (>= $misses)"
	;;
*)
	e2e_fail "unknown check '$check' (output or counts)"
	;;
esac
