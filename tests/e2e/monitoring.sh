#!/usr/bin/env bash
# monitoring.sh PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM
#
# An independent witness for every message, collectives included: Open
# MPI's pml monitoring counts, per sender -> receiver pair, the messages and
# bytes of user point-to-point traffic ("E") and of MPI-internal traffic
# such as collectives ("I"). The traced run is done under it, and the
# trace's messages (`msgtrace messages --csv`) must give the same counts
# and bytes per pair: non-negative tags are user traffic, negative ones
# internal. Monitoring does not see Ssend ACKs (kind ssend_ack), untagged
# protocol messages or cancelled receives, so those are left out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 6 ] || { echo "usage: $0 PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM" >&2; exit 2; }
provider=$1 mode=$2 E2E_NP=$3 E2E_PROVIDER_DIR=$4 msgtrace=$5 prog=$6
E2E_NAME="$(basename "$prog")[monitoring $provider $mode np=$E2E_NP]"
e2e_need_file "$prog" "the test program"
e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" "the msgtrace provider"
e2e_need_subcommand "$msgtrace" messages
args=()
[ "$mode" = full ] || args=(--no-ssend)
e2e_setup

# "--mca pml cm" alone silently disables monitoring: it must be listed.
E2E_PML=cm,monitoring e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" \
	"$provider" "$mode" --mca pml_monitoring_enable 2 \
	--mca pml_monitoring_enable_output 3 \
	--mca pml_monitoring_filename "$E2E_TMP/mon" "$prog" "${args[@]}"
e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
e2e_messages_csv "$msgtrace" "$E2E_TMP/trace" "$E2E_TMP/messages.csv"
ls "$E2E_TMP"/mon.*.prof >/dev/null 2>&1 ||
	e2e_fail "pml monitoring wrote no $E2E_TMP/mon.*.prof files"

# Profile lines: "E|I <tab> src <tab> dst <tab> N bytes <tab> M msgs sent ..."
awk -F'\t' '$1 == "E" || $1 == "I" {
	split($5, m, " "); split($4, b, " ")
	print $1, $2 "->" $3, m[1], b[1]
}' "$E2E_TMP"/mon.*.prof | sort >"$E2E_TMP/monitoring.txt"
awk -F, 'NR > 1 && $6 != "ssend_ack" && $6 != "untagged" && $12 != "cancelled" {
	k = ($5 + 0 < 0 ? "I" : "E") " " $1 "->" $2
	n[k]++; b[k] += $7
}
END { for (k in n) print k, n[k], b[k] }' "$E2E_TMP/messages.csv" |
	sort >"$E2E_TMP/trace.txt"
e2e_same_output "$E2E_TMP/monitoring.txt" "$E2E_TMP/trace.txt" \
	"per-pair counts differ (E user, I internal; pair, messages, bytes; - monitoring, + trace)"
e2e_note "trace agrees with pml monitoring on $(wc -l <"$E2E_TMP/trace.txt") pair/kind counts"
