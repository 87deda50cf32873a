#!/usr/bin/env bash
# callsite.sh PROVIDER_DIR MSGTRACE CALLSITE
#
# Call sites (FI_OFI_HOOK_MSGTRACE_CALLSITE=1) on real jobs of callsite.c,
# which writes the source line of each MPI call it makes (lines.RANK):
# - a truncation: rank 1's MPI_Recv into 100 bytes of rank 0's 512-byte
#   MPI_Send. The report's warning, `tags`' truncation, the messages CSV,
#   --json, --html and the OTF2 export must name both lines of callsite.c
#   with the MPI entry point (via MPI_Recv / via MPI_Send). The same job
#   traced without the option must show no call site at all.
# - a hang (4 ranks): rank 0 in MPI_Recv from rank 1, which never sends,
#   the others in MPI_Barrier; killed once every rank waits in the trace.
#   The hang's cause must name rank 0's MPI_Recv line and rank 1's
#   MPI_Barrier line, the group of the other ranks the barrier's line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE CALLSITE" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
e2e_need_file "$prog" "callsite"
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup

# line WHAT RANK: the line callsite.c says it made that call on.
line() {
	local l
	l=$(awk -v w="$1" '$1 == w { print $2; exit }' "$log/lines.$2")
	[ -n "$l" ] || e2e_fail "callsite.c logged no '$1' line for rank $2"
	echo "$l"
}

# must FILE PATTERN WHAT: FILE holds a line matching PATTERN (grep -E).
must() {
	grep -Eq -- "$2" "$1" && return 0
	sed 's/^/    /' "$1" | head -n 60 >&2
	e2e_fail "$3 (no line matches '$2')"
}

# --- the truncation, without the option: no call site anywhere ---
log=$E2E_TMP/off
mkdir "$log"
E2E_NP=2 e2e_run_ok "$E2E_TMP/off.out" "$E2E_TMP/off.trace" "$E2E_TCP" full \
	"$prog" trunc "$log"
"$msgtrace" report "$E2E_TMP/off.trace" >"$E2E_TMP/off.report"
"$msgtrace" messages "$E2E_TMP/off.trace" >"$E2E_TMP/off.csv"
! grep -q 'callsite\.c' "$E2E_TMP/off.report" ||
	e2e_fail "call sites shown though FI_OFI_HOOK_MSGTRACE_CALLSITE was not set"
head -n 1 "$E2E_TMP/off.csv" | grep -q ',status$' ||
	e2e_fail "the messages CSV has call-site columns without call sites: $(head -n 1 "$E2E_TMP/off.csv")"

# --- the truncation, with call sites ---
export FI_OFI_HOOK_MSGTRACE_CALLSITE=1
log=$E2E_TMP/trunc
mkdir "$log"
trace=$E2E_TMP/trunc.trace
E2E_NP=2 e2e_run_ok "$E2E_TMP/trunc.out" "$trace" "$E2E_TCP" full \
	"$prog" trunc "$log"
send=$(line send 0) recv=$(line recv 1)
sent="callsite\.c:$send \(trunc_job\) via MPI_Send"
received="callsite\.c:$recv \(trunc_job\) via MPI_Recv"

"$msgtrace" report "$trace" >"$E2E_TMP/report"
sed -n '/^WARNINGS/,/^PENDING/p' "$E2E_TMP/report" >"$E2E_TMP/warnings"
must "$E2E_TMP/warnings" "^ +received at $received$" \
	"the truncation warning does not name the MPI_Recv of line $recv"
must "$E2E_TMP/warnings" "^ +sent at $sent$" \
	"the truncation warning does not name the MPI_Send of line $send"

"$msgtrace" tags "$trace" >"$E2E_TMP/tags"
must "$E2E_TMP/tags" "^  recv at: $received$" \
	"msgtrace tags' truncation does not name the MPI_Recv of line $recv"

"$msgtrace" messages "$trace" >"$E2E_TMP/csv"
head -n 1 "$E2E_TMP/csv" | grep -q ',status,send_site,recv_site$' ||
	e2e_fail "the messages CSV lacks the call-site columns: $(head -n 1 "$E2E_TMP/csv")"
must "$E2E_TMP/csv" ",truncated,$sent,$received$" \
	"the truncated message's CSV line does not end with both call sites"

"$msgtrace" report --json "$trace" >"$E2E_TMP/report.json"
jq -e --argjson s "$send" --argjson r "$recv" '[.warnings[] |
	select(.what == "send longer than the receive buffer") | .examples[0] |
	.recv_site.line == $r and .recv_site.file == "callsite.c" and
	.recv_site.mpi == "MPI_Recv" and .send_site.line == $s and
	.send_site.mpi == "MPI_Send"] == [true]' "$E2E_TMP/report.json" >/dev/null ||
	e2e_fail "--json's truncation example lacks its call sites: $(jq -c '.warnings' "$E2E_TMP/report.json")"

"$msgtrace" report --html "$trace" >"$E2E_TMP/report.html"
must "$E2E_TMP/report.html" "received at <code class=\"site\">$received</code>" \
	"--html's truncation warning does not name the MPI_Recv of line $recv"

if command -v otf2-print >/dev/null; then
	"$msgtrace" export --otf2 -o "$E2E_TMP/otf2" "$trace" >/dev/null
	otf2-print -G "$E2E_TMP/otf2/traces.otf2" >"$E2E_TMP/otf2.defs"
	must "$E2E_TMP/otf2.defs" "SOURCE_CODE_LOCATION .*File: \"callsite\.c\".*, Line Number: $recv$" \
		"the OTF2 export has no source code location for line $recv"
	otf2-print "$E2E_TMP/otf2/traces.otf2" >"$E2E_TMP/otf2.events"
	must "$E2E_TMP/otf2.events" "\"truncated\".*\"call_site\".*\"callsite\.c:$send\"" \
		"the OTF2 send event of the truncated message has no call_site attribute for line $send"
fi
e2e_note "truncation: MPI_Recv at line $recv and MPI_Send at line $send named in every output"

# --- the hang ---
np=4
log=$E2E_TMP/hang
mkdir "$log"
trace=$E2E_TMP/hang.trace
E2E_NP=$np E2E_TIMEOUT=300 e2e_run "$E2E_TMP/hang.out" "$trace" "$E2E_TCP" full \
	"$prog" hang "$log" &
job=$!
trap 'e2e_stop_job "$job"; e2e_cleanup' EXIT
# Every rank at its blocking call, then every rank's wait in the trace.
e2e_wait_hang "$job" "$log" "$trace" $np "$msgtrace" "$E2E_TMP/hang.out"
e2e_stop_job "$job"
trap e2e_cleanup EXIT
recv=$(line recv 0) barrier=$(line barrier 1)
[ "$(line barrier 2)" = "$barrier" ] || e2e_fail "ranks 1 and 2 logged different barrier lines"

"$msgtrace" report "$trace" >"$E2E_TMP/hang.report"
sed -n '/^PENDING/,/^CLOCKS/p' "$E2E_TMP/hang.report" >"$E2E_TMP/pending"
cat "$E2E_TMP/pending"
# Each wait of the cycle, followed by its call site.
grep -A1 '^    rank 0 waits on rank 1: recv user cid 0 tag 99$' "$E2E_TMP/pending" |
	grep -q "^      at callsite\.c:$recv (hang_job) via MPI_Recv$" ||
	e2e_fail "the hang's cause does not name rank 0's MPI_Recv at line $recv"
grep -A1 '^    rank 1 waits on rank 0: recv coll' "$E2E_TMP/pending" |
	grep -q "^      at callsite\.c:$barrier (hang_job) via MPI_Barrier$" ||
	e2e_fail "the hang's cause does not name rank 1's MPI_Barrier at line $barrier"
grep -A1 '^    ranks 2-3 wait: recv coll' "$E2E_TMP/pending" |
	grep -q "^      at callsite\.c:$barrier (hang_job) via MPI_Barrier$" ||
	e2e_fail "the other ranks' group does not name the MPI_Barrier at line $barrier"
"$msgtrace" report --json "$trace" >"$E2E_TMP/hang.json"
jq -e --argjson r "$recv" '[.pending[] | select(.rank == 0 and .tag == 99) |
	.site.line == $r and .site.mpi == "MPI_Recv"] == [true]' "$E2E_TMP/hang.json" >/dev/null ||
	e2e_fail "--json's pending MPI_Recv of rank 0 lacks its call site (line $recv)"
e2e_note "hang: MPI_Recv at line $recv and MPI_Barrier at line $barrier named in its cause"
