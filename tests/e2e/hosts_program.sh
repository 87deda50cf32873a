#!/usr/bin/env bash
# hosts_program.sh PROVIDER_DIR MSGTRACE FABRIC_VAR PROGRAM [ARGS...] - an
# mpilog test program (match_patterns, tags_trunc) on two test hosts
# (hosts_lib.sh), 2 ranks each, over the provider list fabric.sh's variable
# FABRIC_VAR (E2E_TCP, E2E_MPROBE) names, where the program works untraced,
# bound to the hosts' own interface:
#   1. it prints the same traced and untraced;
#   2. each host wrote the files of its own ranks, named after it, into its
#      own directory;
#   3. the two directories, given without saying which host is which, hold
#      every message the program logged (compare_log_csv.sh), in either
#      order;
#   4. the report names both hosts (run line, clock domains, every pair's
#      hosts: even ranks on hA, odd on hB, mapped by node) and
#      counts the user messages between hosts as the log does;
#   5. hA's directory alone: the report names hB's ranks as missing, and
#      every rank of hA whose log has messages with hB among the ranks that
#      talked to what is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/hosts_lib.sh"
. "$here/hosts_check.sh"
[ $# -ge 4 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE FABRIC_VAR PROGRAM [ARGS...]" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 provider=${!3:-} prog=$4
[ -n "$provider" ] || e2e_fail "fabric.sh gives no provider list as $3"
shift 4
E2E_NAME="hosts[$(basename "$prog")]"
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" messages
e2e_setup
hosts_up hA hB
a=$(hosts_dir hA) b=$(hosts_dir hB)
HOSTS_MPIRUN_EXTRA=(--map-by node)

hosts_run_ok "$E2E_TMP/plain.out" - "$provider" full hA:2,hB:2 "$prog" "$@"
mkdir "$E2E_TMP/log"
hosts_run_ok "$E2E_TMP/traced.out" trace "$provider" full hA:2,hB:2 "$prog" \
	--log "$E2E_TMP/log" "$@"
hosts_same_output "$E2E_TMP/plain.out" "$E2E_TMP/traced.out"

hosts_own_files 2

"$msgtrace" messages "$a" "$b" --csv >"$E2E_TMP/ab.csv" 2>"$E2E_TMP/ab.err" ||
	{ cat "$E2E_TMP/ab.err" >&2; e2e_fail "msgtrace messages $a $b failed"; }
"$msgtrace" messages "$b" "$a" --csv >"$E2E_TMP/ba.csv" 2>"$E2E_TMP/ba.err" ||
	{ cat "$E2E_TMP/ba.err" >&2; e2e_fail "msgtrace messages $b $a failed"; }
"$here/compare_log_csv.sh" "$E2E_TMP/log" "$E2E_TMP/ab.csv" ||
	e2e_fail "the trace of both hosts disagrees with the program's log (above)"
e2e_same_output "$E2E_TMP/ab.csv" "$E2E_TMP/ba.csv" \
	"the messages depend on the order the directories are given in"

"$msgtrace" report "$b" "$a" >"$E2E_TMP/report.txt" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report $b $a failed"; }
grep -q '4 ranks on 2 hosts' "$E2E_TMP/report.txt" ||
	e2e_fail "the report does not say '4 ranks on 2 hosts': $(sed -n 2p "$E2E_TMP/report.txt")"
for h in hA hB; do
	grep -Eq "^  [0-9]+ +[0-9,-]+ +$h " "$E2E_TMP/report.txt" ||
		e2e_fail "the report's clock domains do not name host $h"
done
"$msgtrace" report --json "$a" "$b" >"$E2E_TMP/report.json" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report --json failed"; }
wrong=$(jq -c '[.pairs[] | select(.send_host != (if .send_rank % 2 == 0 then "hA" else "hB" end)
	or .recv_host != (if .recv_rank % 2 == 0 then "hA" else "hB" end))]' "$E2E_TMP/report.json")
[ "$wrong" = "[]" ] || e2e_fail "pairs with the wrong hosts: $wrong"
logged=$(cat "$E2E_TMP"/log/rank*.log | grep '^SEND ' |
	sed 's/.*world_src=\([0-9]*\) world_dst=\([0-9]*\) .*/\1 \2/' |
	awk '$1 % 2 != $2 % 2 { n++ } END { print n + 0 }')
traced=$(jq '.hosts.between_hosts.user_msgs' "$E2E_TMP/report.json")
[ "$traced" = "$logged" ] ||
	e2e_fail "user messages between hosts: the log has $logged, the report $traced"
grep -q '^  between hosts ' "$E2E_TMP/report.txt" && grep -q '^  inside a host ' "$E2E_TMP/report.txt" ||
	e2e_fail "the report's PAIRS do not tell traffic inside a host from between hosts"
e2e_note "$logged user messages between the hosts"

"$msgtrace" report "$a" >"$E2E_TMP/alone.txt" 2>"$E2E_TMP/alone.err" ||
	{ cat "$E2E_TMP/alone.err" >&2; e2e_fail "msgtrace report $a failed"; }
grep -qx '  ranks 1,3 of 4 left no trace (a host.s directory not given?)' "$E2E_TMP/alone.txt" ||
	e2e_fail "hA's directory alone: the report does not name ranks 1,3 as missing: $(sed -n '/^RUN/,/^$/p' "$E2E_TMP/alone.txt")"
line=$(grep '^  [0-9]* messages with a side of unknown rank' "$E2E_TMP/alone.txt" || true)
for r in 0 2; do
	want=$(cat "$E2E_TMP"/log/rank*.log | grep -E '^(SEND|RECV) ' |
		sed 's/.*world_src=\([0-9-]*\) world_dst=\([0-9]*\) .*/\1 \2/' |
		awk -v r=$r '($1 == r && $2 % 2) || ($2 == r && $1 % 2 && $1 >= 0) { n++ } END { print n + 0 }')
	got=$(echo "$line" | sed -n "s/.*[ ,]$r (\([0-9]*\)).*/\1/p")
	[ "$want" = 0 ] && [ -z "$got" ] && continue
	[ -n "$got" ] ||
		e2e_fail "hA's directory alone: rank $r logged $want messages with hB, the report says: '$line'"
done
e2e_note "hA alone: $(echo "$line" | sed 's/^ *//')"
e2e_note "$(sed -n 2p "$E2E_TMP/report.txt" | sed 's/^ *//'), every logged message matched"
