#!/usr/bin/env bash
# export_chrome.sh PROVIDER_DIR MSGTRACE P2P_MIX
#
# msgtrace export --chrome on a real 4-rank p2p_mix trace, checked with jq:
# the JSON parses; every flow has exactly one start and one end, each inside
# a slice of its track, from the sender's process to the receiver's, one per
# paired message of `msgtrace messages --csv`; one slice per operation side;
# every slice's process and track are named; slices of one track never
# overlap (lanes).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/export_lib.sh"
export_setup "$@"
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"

json=$E2E_TMP/trace.json
"$msgtrace" export --chrome -o "$json" "$trace" 2>"$E2E_TMP/export.err" ||
	{ cat "$E2E_TMP/export.err" >&2; e2e_fail "export --chrome failed"; }
jq empty "$json" 2>"$E2E_TMP/jq.err" ||
	{ cat "$E2E_TMP/jq.err" >&2; e2e_fail "the output is not JSON"; }
csv=$E2E_TMP/messages.csv

# Flows: start and end ids pair up one to one.
jq -r '.traceEvents[] | select(.ph == "s") | .id' "$json" | sort >"$E2E_TMP/s"
jq -r '.traceEvents[] | select(.ph == "f") | .id' "$json" | sort >"$E2E_TMP/f"
[ -z "$(uniq -d "$E2E_TMP/s")" ] || e2e_fail "a flow id starts twice"
e2e_same_output "$E2E_TMP/s" "$E2E_TMP/f" "flow starts and ends do not pair up"
want=$(awk -F, 'NR > 1 && $8 != "" && $10 != "" && $12 != "cancelled"' "$csv" | wc -l)
[ "$(wc -l <"$E2E_TMP/s")" -eq "$want" ] ||
	e2e_fail "$(wc -l <"$E2E_TMP/s") flows, want $want (paired messages in the CSV)"

# Each flow goes from the sender's process to the receiver's (pid = rank).
jq -r '[.traceEvents[] | select(.ph == "s" or .ph == "f")] | group_by(.id)[] |
	"\(.[] | select(.ph == "s") | .pid) \(.[] | select(.ph == "f") | .pid)"' \
	"$json" | sort >"$E2E_TMP/got_pairs"
awk -F, 'NR > 1 && $8 != "" && $10 != "" && $12 != "cancelled" { print $1, $2 }' \
	"$csv" | sort >"$E2E_TMP/want_pairs"
e2e_same_output "$E2E_TMP/want_pairs" "$E2E_TMP/got_pairs" \
	"flow ends are not the CSV's sender and receiver ranks"

# One slice per side of an operation.
slices=$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$json")
want=$(awk -F, 'NR > 1 { n += ($8 != "") + ($10 != "") } END { print n + 0 }' "$csv")
[ "$slices" -eq "$want" ] || e2e_fail "$slices slices, want $want (operation sides)"

# Every slice's track and process are named; every flow point lies inside a
# slice of its own track.
bad=$(jq -r '(.traceEvents | map(select(.ph == "M" and .name == "thread_name") |
		"\(.pid)/\(.tid)") | INDEX(.)) as $t |
	(.traceEvents | map(select(.ph == "M" and .name == "process_name") |
		"\(.pid)") | INDEX(.)) as $p |
	.traceEvents[] | select(.ph == "X") |
	select(($t["\(.pid)/\(.tid)"] == null) or ($p["\(.pid)"] == null)) |
	"\(.pid)/\(.tid)"' "$json" | sed -n 1,3p)
[ -z "$bad" ] || e2e_fail "slices on unnamed tracks: $bad"
bad=$(jq -r '[.traceEvents[] | select(.ph == "X")] as $x |
	.traceEvents[] | select(.ph == "s" or .ph == "f") | . as $e |
	select([$x[] | select(.pid == $e.pid and .tid == $e.tid and
		.ts <= $e.ts and $e.ts <= .ts + .dur)] | length == 0) | .id' \
	"$json" | sed -n 1,3p)
[ -z "$bad" ] || e2e_fail "flow points outside any slice of their track: ids $bad"

# Lanes: within one track, a slice starts after the previous one ended.
jq -r '.traceEvents[] | select(.ph == "X") |
	"\(.pid) \(.tid) \(.ts * 1000 | round) \((.ts + .dur) * 1000 | round)"' \
	"$json" | sort -k1,1n -k2,2n -k3,3n |
	awk '$1 == p && $2 == t && $3 < end { print "track " $1 "/" $2 " at " $3; bad = 1 }
	     { p = $1; t = $2; end = $4 } END { exit bad }' >&2 ||
	e2e_fail "overlapping slices on one track"
e2e_note "PASS: $slices slices, $(wc -l <"$E2E_TMP/s") flows, all paired and on named tracks"
