#!/usr/bin/env bash
# hosts_spawn.sh PROVIDER_DIR MSGTRACE SPAWN - MPI_Comm_spawn across two
# test hosts (hosts_lib.sh): the 2-rank parent job runs on hA (2 slots of
# hA:2,hB:2 used), and spawns its 2 children on hB (spawn's argument: the
# MPI_Info "host" key). Parent rank 0 sends one 64-byte message, tag 7, to
# child 1.
#   1. The program prints the same traced and untraced, and says the
#      parents ran on hA, the children on hB.
#   2. Each host's directory holds its own processes' files, named after it.
#   3. The report on both directories (in either order, not told which host
#      is which): 4 processes in 2 jobs on 2 hosts, the children's job
#      spawned in the parent's launch (not launched apart), every message
#      matched, the one user message 0 -> 1:1 with tag 7 and 64 bytes.
#   4. Hosts named and traffic inside a host told from between hosts: every
#      pair's hosts (job 0 on hA, job 1 on hB); the user message counted
#      between hosts, none inside a host, in the PAIRS table's totals and in
#      the size class of 64 B (its bandwidth "-" inside a host).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/hosts_lib.sh"
. "$here/hosts_check.sh"
[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE SPAWN" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
E2E_NAME=hosts_spawn
e2e_need_file "$prog" spawn
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
hosts_up hA hB
a=$(hosts_dir hA) b=$(hosts_dir hB)

# 2 parents in 4 slots: the children's 2 go where the program asks.
E2E_NP=2 hosts_run_ok "$E2E_TMP/plain.out" - "$E2E_TCP" full hA:2,hB:2 "$prog" hB
E2E_NP=2 hosts_run_ok "$E2E_TMP/traced.out" trace "$E2E_TCP" full hA:2,hB:2 "$prog" hB
hosts_same_output "$E2E_TMP/plain.out" "$E2E_TMP/traced.out"
for line in "parent 0 of 2 runs on hA" "parent 1 of 2 runs on hA" \
	"child 0 of 2 runs on hB" "child 1 of 2 runs on hB" \
	"parent 0 of 2: sent 64 bytes tag 7 to child 1" \
	"child 1 of 2: received 64 bytes tag 7 from parent 0"; do
	grep -qxF "$line" "$E2E_TMP/traced.out" ||
		{ sed 's/^/    /' "$E2E_TMP/traced.out" >&2; e2e_fail "the program did not say: $line"; }
done

hosts_own_files 2

"$msgtrace" report "$b" "$a" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report $b $a failed"; }
show_run() { sed -n '/^RUN/,/^$/p' "$E2E_TMP/report" >&2; }
grep -q "^  4 processes in 2 jobs on 2 hosts, " "$E2E_TMP/report" ||
	{ show_run; e2e_fail "report: not 4 processes in 2 jobs on 2 hosts"; }
grep -q "^  job 1: .*, 2 processes, ranks 1:0-1:1, spawned in job 0's launch$" "$E2E_TMP/report" ||
	{ show_run; e2e_fail "report: job 1 is not the children spawned in job 0's launch"; }
grep -Eq "^  0 -> 1:1 +1 +64 B .* hA -> hB$" "$E2E_TMP/report" ||
	{ sed -n '/^PAIRS/,/^$/p' "$E2E_TMP/report" >&2
	  e2e_fail "report: the user message is not 0 -> 1:1 from hA to hB"; }

e2e_messages_to "$msgtrace" "$E2E_TMP/ab.csv" "$a" "$b" --csv
e2e_messages_to "$msgtrace" "$E2E_TMP/ba.csv" "$b" "$a" --csv
e2e_same_output "$E2E_TMP/ab.csv" "$E2E_TMP/ba.csv" \
	"the messages depend on the order the directories are given in"
awk -F, 'NR > 1 && $12 != "matched" { print; bad = 1 } END { exit bad }' "$E2E_TMP/ab.csv" >&2 ||
	e2e_fail "messages not matched (above)"
user=$(awk -F, '$6 == "user" { print $1, $2, $5, $7 }' "$E2E_TMP/ab.csv")
[ "$user" = "0 1:1 7 64" ] ||
	e2e_fail "user messages (sender receiver tag bytes): '$user', not the one the program sent"

"$msgtrace" report --json "$a" "$b" >"$E2E_TMP/json" 2>"$E2E_TMP/json.err" ||
	{ cat "$E2E_TMP/json.err" >&2; e2e_fail "msgtrace report --json failed"; }
wrong=$(jq -c '[.pairs[] | select(
	.send_host != (if (.send_rank | type) == "number" then "hA" else "hB" end) or
	.recv_host != (if (.recv_rank | type) == "number" then "hA" else "hB" end))]' "$E2E_TMP/json")
[ "$wrong" = "[]" ] || e2e_fail "pairs with the wrong hosts (job 0 on hA, job 1 on hB): $wrong"
jq -e '.hosts.between_hosts.user_msgs == 1 and .hosts.between_hosts.user_bytes == 64 and
	.hosts.inside_host.user_msgs == 0 and
	(.sizes[] | select(.from_bytes == 64) | .between_hosts.user_msgs == 1 and
		.inside_host.user_msgs == 0 and .inside_host.internal_msgs == 0)' \
	"$E2E_TMP/json" >/dev/null ||
	e2e_fail "JSON: the user message is not counted between hosts alone: $(jq -c '.hosts, .sizes' "$E2E_TMP/json")"
grep -Eq '^  between hosts +1 +64 B ' "$E2E_TMP/report" &&
	grep -Eq '^  inside a host +0 +0 B ' "$E2E_TMP/report" &&
	grep -Eq '^  64 B +1 +0 +64 B +[0-9.]+ +- +[0-9.]+$' "$E2E_TMP/report" ||
	{ sed -n '/^PAIRS/,/^THROUGHPUT/p' "$E2E_TMP/report" >&2
	  e2e_fail "report: the user message is not counted between hosts alone (totals, 64 B class)"; }
e2e_note "parents on hA, children on hB: job 1 spawned in job 0's launch, 0 -> 1:1 between hosts, every message matched"
