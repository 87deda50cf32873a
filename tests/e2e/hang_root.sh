#!/usr/bin/env bash
# hang_root.sh PROVIDER_DIR MSGTRACE HANG_RECV_BARRIER
#
# A real 16-rank hang whose cause is a cycle (hang_recv_barrier.c): rank 0
# waits in MPI_Recv for tag 99 from rank 1, rank 1 waits for rank 0 in
# MPI_Barrier, the 14 others wait in the barrier. The job is killed once
# every rank has reached its blocking call and every rank's wait is in the
# trace; `msgtrace watch --once` on the live trace must show it too.
# `msgtrace report` must state that cause first, in a few lines:
# a cycle holding rank 0's receive from rank 1 (user, cid 0, tag 99) and
# rank 1's wait on rank 0 (internal), with the 14 other ranks waiting on it;
# --json must keep every operation.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE HANG_RECV_BARRIER" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
np=16
e2e_need_file "$prog" "hang_recv_barrier"
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
mkdir "$E2E_TMP/ready"
trace=$E2E_TMP/trace

E2E_NP=$np E2E_TIMEOUT=300 e2e_run "$E2E_TMP/out" "$trace" "$E2E_TCP" full \
	"$prog" "$E2E_TMP/ready" &
job=$!
stop() { e2e_stop_job "$job"; }
trap 'stop; e2e_cleanup' EXIT
# Every rank at its blocking call, then every rank's wait in the trace.
e2e_wait_hang "$job" "$E2E_TMP/ready" "$trace" $np "$msgtrace" "$E2E_TMP/out"
# msgtrace watch --once on the live trace, while the job still hangs: the
# cause, and how long the others have waited.
"$msgtrace" watch --once "$trace" >"$E2E_TMP/watch" 2>"$E2E_TMP/watch.err" ||
	{ cat "$E2E_TMP/watch.err" >&2; e2e_fail "msgtrace watch --once failed on the live trace"; }
# The same, refreshed until killed: every view must hold the cycle.
status=0
timeout 6 "$msgtrace" watch --interval 0.5 "$trace" >"$E2E_TMP/watching" \
	2>"$E2E_TMP/watching.err" || status=$?
stop
[ $status -eq 124 ] || { cat "$E2E_TMP/watching.err" >&2
	e2e_fail "msgtrace watch on the hung job ended with status $status (want 124: still watching)"; }
views=$(grep -c '^msgtrace watch: ' "$E2E_TMP/watching" || true)
[ "$views" -ge 1 ] && [ "$(grep -c '^  cause: a cycle' "$E2E_TMP/watching")" -eq "$views" ] || {
	# The views without the cycle, for the post-mortem.
	awk '/^msgtrace watch: / { if (v != "" && !c) printf "%s", v; v = ""; c = 0 }
	     { v = v $0 "\n" } /^  cause: a cycle/ { c = 1 }
	     END { if (v != "" && !c) printf "%s", v }' "$E2E_TMP/watching" >&2
	e2e_fail "a refreshed view of msgtrace watch lost the cycle ($views views)"
}
cat "$E2E_TMP/watch"
grep -q '^  cause: a cycle' "$E2E_TMP/watch" &&
	grep -q '^    rank 0 waits on rank 1: recv user cid 0 tag 99$' "$E2E_TMP/watch" ||
	e2e_fail "msgtrace watch does not show the cycle of the live job"
grep -Eq '^    ranks? [-0-9,]+ waits?: recv coll .*, for [0-9]+\.[0-9] s' "$E2E_TMP/watch" ||
	e2e_fail "msgtrace watch does not say how long the barrier's ranks have waited"
grep -q '^SENDS NEVER RECEIVED: ' "$E2E_TMP/watch" ||
	e2e_fail "msgtrace watch does not count the sends never received"
trap e2e_cleanup EXIT
e2e_check_trace "$trace" $np

"$msgtrace" report "$trace" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report failed on the killed job's trace"; }
sed -n '/^PENDING/,/^CLOCKS/p' "$E2E_TMP/report" | sed '$d' | sed '$d' >"$E2E_TMP/pending"
cat "$E2E_TMP/pending"
lines=$(wc -l <"$E2E_TMP/pending")
[ "$lines" -le 12 ] || e2e_fail "the PENDING section takes $lines lines for $np ranks (at most 12)"
e2e_expect_recv_barrier_cause "$E2E_TMP/pending"

json=$E2E_TMP/report.json
"$msgtrace" report --json "$trace" >"$json" || e2e_fail "msgtrace report --json failed"
jq -e '.hang.roots | length == 1' "$json" >/dev/null ||
	e2e_fail "expected one root: $(jq -c '.hang.roots' "$json")"
jq -e --argjson np $np '.hang.roots[0] as $r | $r.type == "cycle" and
	$r.ranks_in_it + $r.waiters == $np and
	($r.waits | map(.rank) | index(0) != null and index(1) != null)' "$json" >/dev/null ||
	e2e_fail "the root is not a cycle through ranks 0 and 1 that all $np ranks wait on: $(jq -c '.hang.roots' "$json")"
jq -e '.pending as $p | .hang.roots[0].waits[] | select(.rank == 0) |
	.on == 1 and .what == "recv" and $p[.pending].kind == "user" and
	$p[.pending].tag == 99 and $p[.pending].cid == 0' "$json" >/dev/null ||
	e2e_fail "rank 0's wait in the cycle is not its MPI_Recv from rank 1, tag 99"
jq -e --argjson np $np '[.hang.waits[].rank] | unique | length == $np' "$json" >/dev/null ||
	e2e_fail "--json does not keep every rank's wait"
jq -e '(.hang.waits | length) == ([.pending[] | select(.delivered | not)] | length)' \
	"$json" >/dev/null || e2e_fail "--json does not keep every pending operation as a wait"
e2e_note "PASS: the cause of the $np-rank hang in $lines lines"
