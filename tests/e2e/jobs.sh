#!/bin/bash
# jobs.sh - a process is (job, rank), and every output says so:
# 1. MPI_Comm_spawn: a 2-rank job spawns 2 children; parent rank 0 sends one
#    message to child rank 1. The trace holds 4 processes in 2 jobs (the
#    children's spawned in the parent's launch), and the one user message
#    goes from 0 to 1:1 (report, CSV, JSON) - not "0 -> 1" inside one job.
#    Traced and untraced runs print the same. In OTF2 the communicators are
#    per (job, cid): each job's world holds its own 2 processes, a group
#    mixes the jobs only when it is named for both (the intercommunicator),
#    and the message goes on it from rank 0 to 1:1.
# 2. Two unrelated ping-pong jobs traced into one directory: 2 jobs from 2
#    launches, kept apart: each job's messages stay between its own ranks,
#    as many as each program sent.
# usage: jobs.sh PROVIDER_DIR MSGTRACE SPAWN PINGPONG
set -euo pipefail
. "$(dirname "$0")/lib.sh"
E2E_PROVIDER_DIR=$1
msgtrace=$2 spawn=$3 pingpong=$4
e2e_need_subcommand "$msgtrace" report
e2e_need_file "$spawn" spawn
e2e_need_file "$pingpong" provider_pingpong
e2e_setup

# user_pairs CSV: "SENDER RECEIVER COUNT" per pair of user messages.
user_pairs() {
	awk -F, '$6 == "user" && $12 == "matched" { n[$1 " " $2]++ }
		END { for (p in n) print p, n[p] }' "$1" | sort
}

# --- 1. MPI_Comm_spawn --------------------------------------------------------
E2E_NAME="jobs[spawn]"
E2E_NP=2 e2e_run_both "$E2E_TMP/spawn.out" "$E2E_TMP/spawn" "$spawn"
grep -qx "child 1 of 2: received 64 bytes tag 7 from parent 0" "$E2E_TMP/spawn.out" ||
	e2e_fail "the spawned child 1 did not report its message"
e2e_check_trace "$E2E_TMP/spawn" 4
"$msgtrace" report "$E2E_TMP/spawn" >"$E2E_TMP/spawn.report" ||
	e2e_fail "msgtrace report failed"
grep -q "^  4 processes in 2 jobs on " "$E2E_TMP/spawn.report" ||
	{ head -n 8 "$E2E_TMP/spawn.report" >&2; e2e_fail "report: not 4 processes in 2 jobs"; }
grep -q "^  job 1: .*, 2 processes, ranks 1:0-1:1, spawned in job 0's launch$" \
	"$E2E_TMP/spawn.report" ||
	{ head -n 8 "$E2E_TMP/spawn.report" >&2; e2e_fail "report: job 1 not the spawned children"; }
grep -Eq "^  0 -> 1:1 +1 +64 B " "$E2E_TMP/spawn.report" ||
	{ sed -n '/^PAIRS/,/^$/p' "$E2E_TMP/spawn.report" >&2
	  e2e_fail "report: the user message is not 0 -> 1:1"; }
e2e_messages_csv "$msgtrace" "$E2E_TMP/spawn" "$E2E_TMP/spawn.csv"
[ "$(user_pairs "$E2E_TMP/spawn.csv")" = "0 1:1 1" ] ||
	{ user_pairs "$E2E_TMP/spawn.csv" >&2; e2e_fail "CSV: user messages other than one 0 -> 1:1"; }
awk -F, '$6 == "user" && !($5 == 7 && $7 == 64) { bad = 1 } END { exit bad }' \
	"$E2E_TMP/spawn.csv" || e2e_fail "CSV: the user message is not tag 7, 64 bytes"
"$msgtrace" report --json "$E2E_TMP/spawn" >"$E2E_TMP/spawn.json" ||
	e2e_fail "msgtrace report --json failed"
grep -q '"send_rank":0,"recv_rank":"1:1","user_msgs":1,"user_bytes":64,' \
	"$E2E_TMP/spawn.json" || e2e_fail "JSON: no pair 0 -> \"1:1\" with the user message"
command -v otf2-print >/dev/null ||
	e2e_fail "otf2-print not found (Debian package otf2-tools)"
"$msgtrace" export --otf2 -o "$E2E_TMP/spawn.otf2" "$E2E_TMP/spawn" \
	>"$E2E_TMP/otf2.out" 2>&1 || e2e_fail "msgtrace export --otf2 failed"
otf2-print -G "$E2E_TMP/spawn.otf2/traces.otf2" >"$E2E_TMP/spawn.defs" &&
	otf2-print "$E2E_TMP/spawn.otf2/traces.otf2" >"$E2E_TMP/spawn.events" ||
	e2e_fail "otf2-print cannot read the spawn archive"
# Per communicator group: NAME|members of job 0|members of job 1.
awk '$1 == "GROUP" && / Type: COMM_GROUP,/ {
	name = $0; sub(/^[^"]*"/, "", name); sub(/".*/, "", name)
	n0 = gsub(/"rank [0-9]+ thread/, "&"); n1 = gsub(/"rank 1:[0-9]+ thread/, "&")
	print name "|" n0 "|" n1 }' "$E2E_TMP/spawn.defs" >"$E2E_TMP/spawn.groups"
grep -qx "MPI_COMM_WORLD (cid 0)|2|0" "$E2E_TMP/spawn.groups" ||
	{ cat "$E2E_TMP/spawn.groups" >&2
	  e2e_fail "OTF2: MPI_COMM_WORLD (cid 0) is not the parent job's 2 processes"; }
awk -F'|' '$2 && $3 && $1 !~ /^jobs 0-1 / { bad = 1 } END { exit bad }' \
	"$E2E_TMP/spawn.groups" ||
	{ cat "$E2E_TMP/spawn.groups" >&2
	  e2e_fail "OTF2: a communicator of one job holds processes of the other"; }
loc0=$(awk '$1 == "LOCATION" && /Name: "rank 0 thread/ { print $2; exit }' "$E2E_TMP/spawn.defs")
grep -E "^MPI_ISEND +${loc0:-none} .*Receiver: [0-9]+ \(\"rank 1:1 thread .*Communicator: \"jobs 0-1 cid [0-9]+\" .*Tag: 7, Length: 64," \
	"$E2E_TMP/spawn.events" >/dev/null ||
	{ grep "Tag: 7," "$E2E_TMP/spawn.events" >&2
	  e2e_fail "OTF2: the user message is not 0 -> 1:1 on the intercommunicator"; }

# --- 2. two unrelated jobs in one directory -----------------------------------
E2E_NAME="jobs[two]"
E2E_NP=2 e2e_run_ok "$E2E_TMP/one.out" "$E2E_TMP/one" "$E2E_TCP" full "$pingpong" 3
E2E_NP=2 e2e_run_ok "$E2E_TMP/two.out" "$E2E_TMP/two" "$E2E_TCP" full "$pingpong" 3
cp "$E2E_TMP"/two/*.mt "$E2E_TMP/one/"
e2e_check_trace "$E2E_TMP/one" 4
"$msgtrace" report "$E2E_TMP/one" >"$E2E_TMP/two.report" ||
	e2e_fail "msgtrace report failed"
grep -q "^  4 processes in 2 jobs on " "$E2E_TMP/two.report" &&
	grep -q "^  job 1: .*, 2 processes, ranks 1:0-1:1, launched apart$" "$E2E_TMP/two.report" &&
	grep -q "^  2 unrelated launches in one trace: kept apart$" \
		"$E2E_TMP/two.report" ||
	{ head -n 8 "$E2E_TMP/two.report" >&2; e2e_fail "report: the two jobs are not told apart"; }
e2e_messages_csv "$msgtrace" "$E2E_TMP/one" "$E2E_TMP/two.csv"
# provider_pingpong 3: 3 round trips for each of 5 sizes, 15 each way.
printf '%s\n' "0 1 15" "1 0 15" "1:0 1:1 15" "1:1 1:0 15" >"$E2E_TMP/want"
user_pairs "$E2E_TMP/two.csv" >"$E2E_TMP/got"
e2e_same_output "$E2E_TMP/want" "$E2E_TMP/got" "CSV: user messages not kept within each job"
e2e_note "spawn: 0 -> 1:1 in 2 jobs, OTF2 communicators per job; two launches: 15 messages each way within each job"
