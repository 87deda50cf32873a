#!/usr/bin/env bash
# export_hang.sh PROVIDER_DIR MSGTRACE HANG_SSEND_TAG1
#
# Exports of a hung run: 3 ranks of hang_ssend_tag1 in ofi_tag_1, killed
# once every rank waits (e2e_wait_hang). Rank 0 waits forever for the ACK of its MPI_Ssend to rank 2:
# the OTF2 archive must hold that receive as an MPI_IRECV_REQUEST with the
# status "pending" on rank 0's location, and the Chrome JSON a
# "fi_trecv (pending)" slice of kind ssend_ack in rank 0's process.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE HANG_SSEND_TAG1" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
e2e_need_file "$prog" "hang_ssend_tag1"
e2e_need_file "$msgtrace" "the msgtrace command"
command -v otf2-print >/dev/null || e2e_fail "otf2-print not found (otf2-tools)"
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
mkdir "$E2E_TMP/log"
E2E_NP=3 E2E_TIMEOUT=120 e2e_run "$E2E_TMP/out" "$E2E_TMP/trace" "$E2E_TCP" \
	ofi_tag_1 "$prog" --log "$E2E_TMP/log" &
job=$!
trap 'e2e_stop_job "$job"; e2e_cleanup' EXIT
e2e_wait_hang "$job" "$E2E_TMP/log" "$E2E_TMP/trace" 3 "$msgtrace" "$E2E_TMP/out"
e2e_stop_job "$job"
e2e_check_trace "$E2E_TMP/trace" 3

"$msgtrace" export --otf2 -o "$E2E_TMP/otf2" "$E2E_TMP/trace" ||
	e2e_fail "export --otf2 failed on the killed run's trace"
otf2-print "$E2E_TMP/otf2/traces.otf2" >"$E2E_TMP/events" ||
	e2e_fail "otf2-print cannot read the archive"
# (awk reads all: an early exit would kill otf2-print with SIGPIPE.)
loc0=$(otf2-print -G "$E2E_TMP/otf2/traces.otf2" |
	awk '/^LOCATION .*Name: "rank 0 / && !n++ { print $2 }')
[ -n "$loc0" ] || e2e_fail "no location for rank 0"
awk -v l="$loc0" '$1 == "MPI_IRECV_REQUEST" && $2 == l { want = 1; next }
	want && /"status".*"pending"/ { found = 1 } { want = 0 }
	END { exit !found }' "$E2E_TMP/events" ||
	e2e_fail "rank 0's pending receive is not in the OTF2 archive"

"$msgtrace" export --chrome -o "$E2E_TMP/trace.json" "$E2E_TMP/trace" ||
	e2e_fail "export --chrome failed on the killed run's trace"
jq -e '[.traceEvents[] | select(.ph == "X" and .pid == 0 and
	.name == "fi_trecv (pending)" and .cat == "ssend_ack")] | length == 1' \
	"$E2E_TMP/trace.json" >/dev/null ||
	e2e_fail "no pending ssend_ack receive slice for rank 0 in the Chrome JSON"
e2e_note "PASS: the hung receive is in both exports"
