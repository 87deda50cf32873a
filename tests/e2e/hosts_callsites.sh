#!/usr/bin/env bash
# hosts_callsites.sh PROVIDER_DIR MSGTRACE CALLSITE - a host that recorded
# with call sites and one without: callsite.c's truncation (rank 0's
# 512-byte MPI_Send into rank 1's 100-byte MPI_Recv) with rank 0 on hA,
# rank 1 on hB, FI_OFI_HOOK_MSGTRACE_CALLSITE=1 set on hB alone (through
# MSGTRACE_HOSTS_ENV_hB, hosts_agent.sh).
#   1. Traced, the job prints the same as untraced, both exiting 0.
#   2. Every message of the two directories has both sides; the truncated
#      one goes 0 -> 1, tag 7, 512 bytes.
#   3. Where call sites were recorded they are given: the receive's line
#      (callsite.c writes it) in the CSV, the report's truncation warning
#      and `msgtrace tags`, and every side of a message rank 1 posted has
#      one; where they were not, none is made up (no side rank 0 posted has
#      one), and the report's RUN section (and --json) says which process
#      recorded none: rank 0 on hA.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/hosts_lib.sh"
. "$here/hosts_check.sh"
[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE CALLSITE" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
E2E_NAME=hosts_callsites
e2e_need_file "$prog" callsite
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
hosts_up hA hB
a=$(hosts_dir hA) b=$(hosts_dir hB)
unset FI_OFI_HOOK_MSGTRACE_CALLSITE
export MSGTRACE_HOSTS_ENV_hB="FI_OFI_HOOK_MSGTRACE_CALLSITE=1"

mkdir "$E2E_TMP/plain.log" "$E2E_TMP/log"
hosts_run_ok "$E2E_TMP/plain.out" - "$E2E_TCP" full hA:1,hB:1 "$prog" trunc "$E2E_TMP/plain.log"
hosts_run_ok "$E2E_TMP/traced.out" trace "$E2E_TCP" full hA:1,hB:1 "$prog" trunc "$E2E_TMP/log"
hosts_same_output "$E2E_TMP/plain.out" "$E2E_TMP/traced.out"
hosts_own_files 1
recv=$(awk '$1 == "recv" { print $2; exit }' "$E2E_TMP/log/lines.1")
[ -n "$recv" ] || e2e_fail "callsite.c logged no 'recv' line for rank 1"
received="callsite\.c:$recv \(trunc_job\) via MPI_Recv"

e2e_messages_to "$msgtrace" "$E2E_TMP/csv" "$b" "$a" --csv
awk -F, 'NR > 1 && $12 != "matched" && $12 != "truncated" { print; bad = 1 } END { exit bad }' \
	"$E2E_TMP/csv" >&2 || e2e_fail "messages without both sides (above)"
head -n 1 "$E2E_TMP/csv" | grep -q ',status,send_site,recv_site$' ||
	e2e_fail "the messages CSV lacks the call-site columns: $(head -n 1 "$E2E_TMP/csv")"
grep -Eq "^0,1,0,0,7,user,512,[0-9]+,[0-9]+,[0-9]+,[0-9]+,truncated,,$received$" "$E2E_TMP/csv" ||
	{ grep -v ',coll,' "$E2E_TMP/csv" >&2
	  e2e_fail "CSV: the truncated 0 -> 1 does not give hB's receive site ($received) alone"; }
awk -F, 'NR > 1 && (($1 == 0) != ($13 == "") || ($2 == 0) != ($14 == "")) { print; bad = 1 }
	END { exit bad }' "$E2E_TMP/csv" >&2 ||
	e2e_fail "CSV: a site on rank 0's side (hA recorded none) or none on rank 1's (above)"

"$msgtrace" report "$a" "$b" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report failed"; }
grep -qx '  no call sites recorded by 1 of 2 processes: rank 0 on hA' "$E2E_TMP/report" ||
	{ sed -n '/^RUN/,/^$/p' "$E2E_TMP/report" >&2
	  e2e_fail "report: the RUN section does not say that rank 0 on hA recorded no call sites"; }
"$msgtrace" report --json "$b" "$a" >"$E2E_TMP/json" 2>"$E2E_TMP/json.err" ||
	{ cat "$E2E_TMP/json.err" >&2; e2e_fail "msgtrace report --json failed"; }
jq -e '.run.processes_without_call_sites == [{"rank": 0, "host": "hA"}]' "$E2E_TMP/json" >/dev/null ||
	e2e_fail "JSON: processes_without_call_sites is not rank 0 on hA: $(jq -c .run.processes_without_call_sites "$E2E_TMP/json")"
sed -n '/^WARNINGS/,/^PENDING/p' "$E2E_TMP/report" >"$E2E_TMP/warnings"
grep -Eq "^ +received at $received$" "$E2E_TMP/warnings" && ! grep -q 'sent at' "$E2E_TMP/warnings" ||
	{ sed 's/^/    /' "$E2E_TMP/warnings" >&2
	  e2e_fail "report: the truncation warning does not name hB's receive site alone"; }
"$msgtrace" tags "$a" "$b" >"$E2E_TMP/tags" 2>&1 || true
grep -Eq "^  recv at: $received$" "$E2E_TMP/tags" ||
	{ grep -A5 TRUNCATION "$E2E_TMP/tags" >&2; e2e_fail "msgtrace tags' truncation does not name hB's receive site"; }
e2e_note "receive site callsite.c:$recv from hB, none made up for hA; the report: $(grep 'no call sites' "$E2E_TMP/report" | sed 's/^ *//')"
