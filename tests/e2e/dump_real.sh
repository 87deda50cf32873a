#!/usr/bin/env bash
# dump_real.sh PROVIDER_DIR MSGTRACE P2P_MIX
#
# The trace reader on a real trace: 4 ranks of p2p_mix over $E2E_TCP (fabric.sh),
# then `msgtrace dump` must read it without error, in time order, with
# every application op's fi_addr resolved to a rank, PROC records giving
# ranks 0..3, clean closes, and --rank/--kind filters that keep only what
# they name.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE P2P_MIX" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
e2e_need_file "$prog" "p2p_mix"
e2e_need_file "$msgtrace" "the msgtrace command"
e2e_setup

e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$E2E_TCP" full "$prog"
e2e_check_trace "$E2E_TMP/trace" 4
"$msgtrace" dump "$E2E_TMP/trace" >"$E2E_TMP/dump" 2>"$E2E_TMP/dump.err" ||
	{ cat "$E2E_TMP/dump.err" >&2; e2e_fail "dump failed on a real trace"; }
[ -s "$E2E_TMP/dump.err" ] && { cat "$E2E_TMP/dump.err" >&2; e2e_fail "dump wrote to stderr"; }

# Field 1 is seconds since the first record: never decreasing among the
# application layer's records (an internal layer's record nested inside an
# application call is written first but stamped later: file order wins).
awk '$4 != "app" { next }
     n++ && $1 < prev { print "line " NR ": " $1 " after " prev; bad = 1 }
     { prev = $1 } END { exit bad }' "$E2E_TMP/dump" >&2 ||
	e2e_fail "records are not in time order"
for r in 0 1 2 3; do
	grep -q "^[0-9.]* r$r .* proc  pid=[0-9]* world_rank=$r world_size=4 " \
		"$E2E_TMP/dump" || e2e_fail "no PROC record for rank $r"
done
ops=$(grep -c ' app op ' "$E2E_TMP/dump" || true)
[ "$ops" -gt 0 ] || e2e_fail "no application ops in the trace"
# An op naming a peer (addr=N, not unspec) must resolve: addr=N->rK.
unresolved=$(grep ' app op ' "$E2E_TMP/dump" | grep -E ' addr=[0-9]+ ' || true)
[ -z "$unresolved" ] || { echo "$unresolved" | head -5 >&2;
	e2e_fail "fi_addr not resolved to a rank"; }
resolved=$(grep -c -E ' app op .* addr=[0-9]+->r[0-3] ' "$E2E_TMP/dump" || true)
[ "$resolved" -gt 0 ] || e2e_fail "no op resolved to a rank"

"$msgtrace" dump --summary "$E2E_TMP/trace" >"$E2E_TMP/summary" ||
	e2e_fail "dump --summary failed"
[ "$(grep -c '^rank [0-3] .*(all closed cleanly)' "$E2E_TMP/summary")" = 4 ] ||
	{ cat "$E2E_TMP/summary" >&2; e2e_fail "summary lacks 4 cleanly closed ranks"; }

"$msgtrace" dump --rank 2 --kind op,cqe "$E2E_TMP/trace" >"$E2E_TMP/r2"
[ -s "$E2E_TMP/r2" ] || e2e_fail "--rank 2 --kind op,cqe printed nothing"
other=$(awk '$2 != "r2" || ($5 != "op" && $5 != "cqe")' "$E2E_TMP/r2" | head -3)
[ -z "$other" ] || { echo "$other" >&2; e2e_fail "filters let other records through"; }
e2e_note "PASS: $ops ops, $resolved with a resolved peer, time-ordered, filters exact"
