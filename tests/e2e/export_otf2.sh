#!/usr/bin/env bash
# export_otf2.sh PROVIDER_DIR MSGTRACE P2P_MIX
#
# msgtrace export --otf2 on a real 4-rank p2p_mix trace, read back with
# otf2-print: it must read the archive; MPI_ISEND / MPI_IRECV /
# MPI_IRECV_REQUEST / MPI_REQUEST_CANCELLED counts and, per message, the
# (sender rank, receiver rank, tag, length) of the sends and receives must
# equal `msgtrace messages --csv`; timestamps never decrease per
# location; the definitions hold the clock, the host, 4 location groups,
# MPI_COMM_WORLD; the truncated message carries its status attribute.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/export_lib.sh"
export_setup "$@"
command -v otf2-print >/dev/null ||
	e2e_fail "otf2-print not found (Debian package otf2-tools)"

out=$E2E_TMP/otf2
"$msgtrace" export --otf2 -o "$out" "$trace" 2>"$E2E_TMP/export.err" ||
	{ cat "$E2E_TMP/export.err" >&2; e2e_fail "export --otf2 failed"; }
otf2-print "$out/traces.otf2" >"$E2E_TMP/events" 2>"$E2E_TMP/print.err" ||
	{ cat "$E2E_TMP/print.err" >&2; e2e_fail "otf2-print cannot read the archive"; }
otf2-print -G "$out/traces.otf2" >"$E2E_TMP/defs" ||
	e2e_fail "otf2-print -G cannot read the definitions"

# Location id -> world rank, from the location names ("rank N thread ...").
awk '/^LOCATION / { match($0, /Name: "rank [0-9]+/);
	split(substr($0, RSTART, RLENGTH), a, " "); print $2, a[3] }' \
	"$E2E_TMP/defs" >"$E2E_TMP/loc_rank"
[ "$(wc -l <"$E2E_TMP/loc_rank")" -ge 4 ] ||
	e2e_fail "fewer than 4 locations named after their rank"

# Expected, from the CSV (tags as OTF2's unsigned 32 bits, unknown rank ?):
# sends: rows with a send post; receives: rows with a receive completion
# that was not cancelled.
awk -F, 'NR > 1 && $8 != "" { t = sprintf("%.0f", $5 < 0 ? $5 + 4294967296 : $5);
	print ($1 == "" ? "?" : $1), ($2 == "" ? "?" : $2), t, $7 }' \
	"$E2E_TMP/messages.csv" | sort >"$E2E_TMP/want_send"
awk -F, 'NR > 1 && $11 != "" && $12 != "cancelled" {
	t = sprintf("%.0f", $5 < 0 ? $5 + 4294967296 : $5);
	print ($1 == "" ? "?" : $1), ($2 == "" ? "?" : $2), t, $7 }' \
	"$E2E_TMP/messages.csv" | sort >"$E2E_TMP/want_recv"

# Found, from the events: the location gives this side's rank, the
# partner's location name the other's.
awk 'NR == FNR { rank[$1] = $2; next }
     $1 == "MPI_ISEND" || $1 == "MPI_IRECV" {
	peer = "?"
	if (match($0, /\("rank [0-9]+/)) { split(substr($0, RSTART, RLENGTH), a, " "); peer = a[2] }
	match($0, /Tag: [0-9]+/); tag = substr($0, RSTART + 5, RLENGTH - 5)
	match($0, /Length: [0-9]+/); len = substr($0, RSTART + 8, RLENGTH - 8)
	if ($1 == "MPI_ISEND") print rank[$2], peer, tag, len > "/dev/stderr"
	else print peer, rank[$2], tag, len }' \
	"$E2E_TMP/loc_rank" "$E2E_TMP/events" 2>"$E2E_TMP/got_send_raw" |
	sort >"$E2E_TMP/got_recv"
sort "$E2E_TMP/got_send_raw" >"$E2E_TMP/got_send"
e2e_same_output "$E2E_TMP/want_send" "$E2E_TMP/got_send" \
	"MPI_ISEND events differ from the CSV's sends (sender receiver tag bytes)"
e2e_same_output "$E2E_TMP/want_recv" "$E2E_TMP/got_recv" \
	"MPI_IRECV events differ from the CSV's receives (sender receiver tag bytes)"

count() { grep -c "^$1 " "$E2E_TMP/events" || true; }
want_req=$(awk -F, 'NR > 1 && $10 != ""' "$E2E_TMP/messages.csv" | wc -l)
want_cancel=$(awk -F, 'NR > 1 && $12 == "cancelled" && ($9 != "" || $11 != "")' \
	"$E2E_TMP/messages.csv" | wc -l)
[ "$(count MPI_IRECV_REQUEST)" -eq "$want_req" ] ||
	e2e_fail "$(count MPI_IRECV_REQUEST) MPI_IRECV_REQUEST, want $want_req"
[ "$(count MPI_REQUEST_CANCELLED)" -eq "$want_cancel" ] ||
	e2e_fail "$(count MPI_REQUEST_CANCELLED) MPI_REQUEST_CANCELLED, want $want_cancel"
[ "$(count ENTER)" -eq "$(count LEAVE)" ] || e2e_fail "ENTER and LEAVE counts differ"
if [ "$(awk -F, '$12 == "truncated"' "$E2E_TMP/messages.csv" | wc -l)" -gt 0 ]; then
	grep -q '"status" <[0-9]*>; STRING; "truncated"' "$E2E_TMP/events" ||
		e2e_fail "the truncated message has no status attribute"
fi

# Times never decrease per location (equal times stay equal).
awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
	if (($2 in last) && $3 < last[$2]) { print "location " $2 ": " $3 " after " last[$2]; bad = 1 }
	last[$2] = $3 } END { exit bad }' "$E2E_TMP/events" >&2 ||
	e2e_fail "timestamps decrease on a location"

grep -q '^CLOCK_PROPERTIES .*Ticks per Seconds: 1000000000' "$E2E_TMP/defs" ||
	e2e_fail "no 1 GHz clock properties"
grep -q "^SYSTEM_TREE_NODE .*Name: \"$(hostname)\"" "$E2E_TMP/defs" ||
	e2e_fail "no system tree node named after the host $(hostname)"
[ "$(grep -c '^LOCATION_GROUP ' "$E2E_TMP/defs")" -eq 4 ] ||
	e2e_fail "want 4 location groups (one per rank)"
grep -q '^GROUP .*Type: COMM_LOCATIONS, .* 4 Members' "$E2E_TMP/defs" ||
	e2e_fail "no MPI_COMM_WORLD locations group of 4"
grep -q '^COMM .*Name: "MPI_COMM_WORLD' "$E2E_TMP/defs" ||
	e2e_fail "no MPI_COMM_WORLD communicator"
e2e_note "PASS: $(wc -l <"$E2E_TMP/got_send") sends and $(wc -l <"$E2E_TMP/got_recv")" \
	"receives equal the CSV; times non-decreasing per location"
