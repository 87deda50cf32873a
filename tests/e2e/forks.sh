#!/bin/bash
# forks.sh - a forked process that records is a process of its own, marked
# as a fork of its parent's rank. fork_fabric: 2 MPI ranks each
# fork a child that forks a grandchild; children and grandchildren use
# libfabric themselves (MPI is not usable after fork):
#   rank r      <-> rank 1-r          MPI_MSGS + 1 (the address swap) each way
#   child of r  <-> child of 1-r      CHILD_MSGS each way
#   child of r  <-> its grandchild    GRAND_MSGS each way
# The trace holds 6 processes, the forks named r+f1 (child) and r+f2
# (grandchild, a fork of r+f1), and every message goes between the right
# two of them in the report, CSV, JSON, dump, OTF2 and Chrome - not merged
# into ranks 0 and 1 as before. Traced and untraced runs print the same.
# usage: forks.sh PROVIDER_DIR MSGTRACE FORK_FABRIC
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/fork_fabric_lib.sh"
E2E_PROVIDER_DIR=$1
msgtrace=$2 prog=$3
e2e_need_subcommand "$msgtrace" report
e2e_need_file "$prog" fork_fabric
command -v otf2-print >/dev/null ||
	e2e_fail "otf2-print not found (Debian package otf2-tools)"
e2e_setup
E2E_NAME="forks"

# The children use the ranks' provider, one where a forked child can use
# libfabric (E2E_FORK; mpi_defects.sh fork shows where it cannot).
E2E_TCP=$E2E_FORK E2E_NP=2 e2e_run_both "$E2E_TMP/out" "$E2E_TMP/t" "$prog" "$E2E_FORK"
fork_fabric_said "$E2E_TMP/out"
e2e_check_trace "$E2E_TMP/t" 6

"$msgtrace" report "$E2E_TMP/t" >"$E2E_TMP/report" || e2e_fail "msgtrace report failed"
grep -q "^  6 processes (4 forked) on 1 host" "$E2E_TMP/report" ||
	{ head -n 4 "$E2E_TMP/report" >&2; e2e_fail "report: not 6 processes, 4 forked"; }
"$msgtrace" tags "$E2E_TMP/t" | grep -q "^msgtrace tags: 6 processes (4 forked), 6 endpoints" ||
	e2e_fail "tags: not 6 processes, 4 forked"
"$msgtrace" watch --once "$E2E_TMP/t" | grep -q "^msgtrace watch: 6 processes (4 forked), " ||
	e2e_fail "watch: not 6 processes, 4 forked"

# dump --summary: r+f1 is a fork of rank r's pid, r+f2 of r+f1's.
"$msgtrace" dump --summary "$E2E_TMP/t" >"$E2E_TMP/dump" || e2e_fail "msgtrace dump failed"
pid_of() { awk -v r="$1" '$1 == "rank" && $2 == r { print $6; exit }' "$E2E_TMP/dump"; }
parent_of() { awk -v r="$1" '$1 == "rank" && $2 == r && $7 == "(fork" { sub(/\)/, "", $10); print $10; exit }' "$E2E_TMP/dump"; }
for r in 0 1; do
	[ -n "$(pid_of $r)" ] && [ "$(parent_of $r+f1)" = "$(pid_of $r)" ] &&
		[ "$(parent_of $r+f2)" = "$(pid_of $r+f1)" ] ||
		{ grep "^rank" "$E2E_TMP/dump" >&2
		  e2e_fail "dump: $r+f1 is not rank $r's fork or $r+f2 not $r+f1's"; }
done

# Every message between the right two processes, both sides known.
e2e_messages_csv "$msgtrace" "$E2E_TMP/t" "$E2E_TMP/csv"
awk -F, 'NR > 1 && $6 == "user" && ($12 == "matched" || $12 == "ambiguous") {
	n[$1 " " $2]++ } END { for (p in n) print p, n[p] }' "$E2E_TMP/csv" |
	sort >"$E2E_TMP/got"
fork_fabric_pairs >"$E2E_TMP/want"
e2e_same_output "$E2E_TMP/want" "$E2E_TMP/got" "CSV: user messages not between the right processes"
awk -F, 'NR > 1 && $12 != "matched" && $12 != "ambiguous" { bad = 1 } END { exit bad }' \
	"$E2E_TMP/csv" || e2e_fail "CSV: a message without both sides"

"$msgtrace" report --json "$E2E_TMP/t" >"$E2E_TMP/json" || e2e_fail "msgtrace report --json failed"
grep -q '"send_rank":"0+f1","recv_rank":"1+f1","user_msgs":3,' "$E2E_TMP/json" &&
	grep -q '"send_rank":0,"recv_rank":1,"user_msgs":5,' "$E2E_TMP/json" ||
	e2e_fail "JSON: no pairs 0+f1 -> 1+f1 (3) and 0 -> 1 (5)"

"$msgtrace" export --otf2 -o "$E2E_TMP/otf2" "$E2E_TMP/t" >"$E2E_TMP/otf2.out" 2>&1 ||
	e2e_fail "msgtrace export --otf2 failed"
otf2-print -G "$E2E_TMP/otf2/traces.otf2" >"$E2E_TMP/defs" &&
	otf2-print "$E2E_TMP/otf2/traces.otf2" >"$E2E_TMP/events" ||
	e2e_fail "otf2-print cannot read the archive"
awk '$1 == "LOCATION_GROUP" { sub(/^[^"]*"/, ""); sub(/".*/, ""); print }' \
	"$E2E_TMP/defs" | sort >"$E2E_TMP/got"
printf 'rank %s\n' 0 0+f1 0+f2 1 1+f1 1+f2 >"$E2E_TMP/want"
e2e_same_output "$E2E_TMP/want" "$E2E_TMP/got" "OTF2: location groups are not the 6 processes"
loc=$(awk '$1 == "LOCATION" && /Name: "rank 0\+f1 thread/ { print $2; exit }' "$E2E_TMP/defs")
n=$(grep -cE "^MPI_ISEND +${loc:-none} .*Receiver: [0-9]+ \(\"rank 1\+f1 thread" "$E2E_TMP/events" || true)
[ "$n" = 3 ] || e2e_fail "OTF2: $n sends from 0+f1 to 1+f1, not 3"

"$msgtrace" export --chrome -o "$E2E_TMP/chrome.json" "$E2E_TMP/t" >/dev/null 2>&1 ||
	e2e_fail "msgtrace export --chrome failed"
for r in 0+f1 0+f2 1+f1 1+f2; do
	grep -q "\"args\":{\"name\":\"rank $r (" "$E2E_TMP/chrome.json" ||
		e2e_fail "Chrome: no process named rank $r"
done
e2e_note "6 processes, forks 0+f1 0+f2 1+f1 1+f2 each paired with the right peer"
