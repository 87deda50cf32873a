#!/usr/bin/env bash
# hosts_fork.sh PROVIDER_DIR MSGTRACE FORK_FABRIC - fork_fabric across two
# test hosts (hosts_lib.sh): rank 0 on hA, rank 1 on hB; each forks a child
# that forks a grandchild, and children and grandchildren use libfabric
# themselves (forks.sh has the program's traffic), so the two children talk
# between the hosts and each child to its grandchild inside its host.
#   1. Traced, the job behaves as untraced: the same exit status (0) and
#      output, and the program says it sent and received all it meant to.
#   2. Each host's directory holds the files of its rank and that rank's
#      forks (3 processes), named after it.
#   3. The report on both directories (in either order): 6 processes, 4 of
#      them forked, on 2 hosts; every message has both sides, each between
#      the processes the program used, as many as it says; every pair's
#      hosts are its processes' (0, 0+f1, 0+f2 on hA; 1, 1+f1, 1+f2 on hB).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/hosts_lib.sh"
. "$here/hosts_check.sh"
. "$here/fork_fabric_lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE FORK_FABRIC" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
E2E_NAME=hosts_fork
e2e_need_file "$prog" fork_fabric
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
hosts_up hA hB
a=$(hosts_dir hA) b=$(hosts_dir hB)

# The children use the ranks' provider, one where a forked child can use
# libfabric (E2E_FORK, fabric.sh), each bound to its host's address
# (fork_fabric's "hostname": the name /etc/hosts gives each test host).
hosts_run_ok "$E2E_TMP/plain.out" - "$E2E_FORK" full hA:1,hB:1 "$prog" "$E2E_FORK" hostname
hosts_run_ok "$E2E_TMP/traced.out" trace "$E2E_FORK" full hA:1,hB:1 "$prog" "$E2E_FORK" hostname
hosts_same_output "$E2E_TMP/plain.out" "$E2E_TMP/traced.out"
fork_fabric_said "$E2E_TMP/traced.out"

hosts_own_files 3

"$msgtrace" report "$b" "$a" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report $b $a failed"; }
grep -q "^  6 processes (4 forked) on 2 hosts" "$E2E_TMP/report" ||
	{ sed -n '/^RUN/,/^$/p' "$E2E_TMP/report" >&2; e2e_fail "report: not 6 processes, 4 forked, on 2 hosts"; }

e2e_messages_to "$msgtrace" "$E2E_TMP/ab.csv" "$a" "$b" --csv
e2e_messages_to "$msgtrace" "$E2E_TMP/ba.csv" "$b" "$a" --csv
e2e_same_output "$E2E_TMP/ab.csv" "$E2E_TMP/ba.csv" \
	"the messages depend on the order the directories are given in"
awk -F, 'NR > 1 && $12 != "matched" && $12 != "ambiguous" { print; bad = 1 } END { exit bad }' \
	"$E2E_TMP/ab.csv" >&2 || e2e_fail "messages without both sides (above)"
awk -F, 'NR > 1 && $6 == "user" { n[$1 " " $2]++ } END { for (p in n) print p, n[p] }' \
	"$E2E_TMP/ab.csv" | sort >"$E2E_TMP/got"
fork_fabric_pairs >"$E2E_TMP/want"
e2e_same_output "$E2E_TMP/want" "$E2E_TMP/got" "user messages not between the right processes"

"$msgtrace" report --json "$a" "$b" >"$E2E_TMP/json" 2>"$E2E_TMP/json.err" ||
	{ cat "$E2E_TMP/json.err" >&2; e2e_fail "msgtrace report --json failed"; }
wrong=$(jq -c 'def host: tostring | if startswith("0") then "hA" else "hB" end;
	[.pairs[] | select(.send_host != (.send_rank | host) or .recv_host != (.recv_rank | host))]' \
	"$E2E_TMP/json")
[ "$wrong" = "[]" ] || e2e_fail "pairs with the wrong hosts (0 and its forks on hA, 1 and its on hB): $wrong"
jq -e '.hosts.between_hosts.user_msgs == 16 and .hosts.inside_host.user_msgs == 8' "$E2E_TMP/json" >/dev/null ||
	e2e_fail "user messages between hosts / inside a host: $(jq -c .hosts "$E2E_TMP/json"), not 16 / 8"
e2e_note "0 and its forks on hA, 1 and its on hB: every message matched between the right processes"
