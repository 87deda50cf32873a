#!/usr/bin/env bash
# match_coll.sh PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]
#
# The matcher on a real run that finishes: every collective-internal
# message (kind coll: negative MPI tags, invisible to the program's own log)
# and every synchronous-send ACK must be paired (status matched), and
# `msgtrace report --json` must be valid JSON that counts the same messages
# as `msgtrace messages --csv`, with no operation left pending. The text
# report must fit in 80 columns.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 6 ] || { echo "usage: $0 PROVIDER TAGMODE NP PROVIDER_DIR MSGTRACE PROGRAM [ARGS...]" >&2; exit 2; }
provider=$1 mode=$2 E2E_NP=$3 E2E_PROVIDER_DIR=$4 msgtrace=$5 prog=$6
shift 6
E2E_NAME="match_coll[$(basename "$prog") $provider $mode np$E2E_NP]"
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" messages
e2e_setup
# Open MPI 4.1.4 hangs on MPI_Ssend in ofi_tag_1/2 (TAG-LAYOUTS.md).
args=("$@")
[ "$mode" = full ] || args+=(--no-ssend)
e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$provider" "$mode" "$prog" \
	"${args[@]}"
e2e_check_trace "$E2E_TMP/trace" "$E2E_NP"
csv=$E2E_TMP/messages.csv
e2e_messages_csv "$msgtrace" "$E2E_TMP/trace" "$csv"

coll=$(awk -F, '$6 == "coll"' "$csv" | wc -l)
[ "$coll" -gt 0 ] || e2e_fail "no collective-internal message in the trace"
bad=$(awk -F, 'NR > 1 && ($6 == "coll" || $6 == "ssend_ack") && $12 != "matched"' "$csv")
[ -z "$bad" ] || { echo "$bad" | head -n 10 >&2; e2e_fail "internal messages not matched (above)"; }

"$msgtrace" report --json "$E2E_TMP/trace" >"$E2E_TMP/report.json" ||
	e2e_fail "msgtrace report --json failed"
jq -e . "$E2E_TMP/report.json" >/dev/null || e2e_fail "report --json is not valid JSON"
rows=$(awk -F, 'NR > 1 && $12 != "cancelled"' "$csv" | wc -l)
total=$(jq '.messages.total' "$E2E_TMP/report.json")
[ "$rows" -eq "$total" ] ||
	e2e_fail "report counts $total messages, messages --csv $rows (cancelled left out)"
pending=$(jq '.pending | length' "$E2E_TMP/report.json")
[ "$pending" -eq 0 ] || e2e_fail "$pending operations pending after a normal exit"

"$msgtrace" report "$E2E_TMP/trace" >"$E2E_TMP/report.txt" ||
	e2e_fail "msgtrace report failed"
wide=$(awk 'length($0) > 80' "$E2E_TMP/report.txt")
[ -z "$wide" ] || { echo "$wide" >&2; e2e_fail "report lines wider than 80 columns"; }
e2e_note "$coll collective-internal messages, all matched; $total messages in report and CSV"
