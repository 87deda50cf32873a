#!/usr/bin/env bash
# compact.sh PROVIDER_DIR MSGTRACE PINGPONG
#
# Compaction at exit on a real job: provider_pingpong traced twice, with
# FI_OFI_HOOK_MSGTRACE_COMPACT=0 (version 1 files) and by default (every
# file compacted: version 2, smaller). Both traces must hold the user
# messages the program says it sent and received, per rank; and `msgtrace
# compact` of the version 1 trace gives a trace whose every command output
# equals the version 1 trace's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE PINGPONG" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
e2e_need_file "$prog" "provider_pingpong"
e2e_need_file "$msgtrace" "the msgtrace command"
e2e_setup
iters=20

# version FILE: the format version in the file's header.
version() { od -An -tu4 -j8 -N4 "$1" | tr -d ' '; }

# check_counts TRACE OUT: user messages per sender and receiver rank, as the
# program printed them ("rank R of N: sent S received V ...").
check_counts() {
	local tr=$1 out=$2 r sent recv got_s got_r
	"$msgtrace" messages --csv "$tr" >"$tr.csv" 2>"$tr.csv.err" ||
		{ cat "$tr.csv.err" >&2; e2e_fail "messages failed on $tr"; }
	for r in 0 1; do
		sent=$(sed -n "s/^rank $r of [0-9]*: sent \([0-9]*\) .*/\1/p" "$out")
		recv=$(sed -n "s/^rank $r of [0-9]*: .* received \([0-9]*\) .*/\1/p" "$out")
		[ -n "$sent" ] && [ -n "$recv" ] || e2e_fail "rank $r printed no counts"
		got_s=$(awk -F, -v r="$r" '$1 == r && $6 == "user" && $12 == "matched"' "$tr.csv" | wc -l)
		got_r=$(awk -F, -v r="$r" '$2 == r && $6 == "user" && $12 == "matched"' "$tr.csv" | wc -l)
		[ "$got_s" -eq "$sent" ] ||
			e2e_fail "$tr: rank $r sent $sent messages, the trace has $got_s"
		[ "$got_r" -eq "$recv" ] ||
			e2e_fail "$tr: rank $r received $recv messages, the trace has $got_r"
	done
}

FI_OFI_HOOK_MSGTRACE_COMPACT=0 E2E_NP=2 e2e_run_ok "$E2E_TMP/v1.out" "$E2E_TMP/v1" \
	"$E2E_TCP" full "$prog" "$iters"
E2E_NP=2 e2e_run_ok "$E2E_TMP/v2.out" "$E2E_TMP/v2" "$E2E_TCP" full "$prog" "$iters"
e2e_check_trace "$E2E_TMP/v1" 2
e2e_check_trace "$E2E_TMP/v2" 2
# The application's output does not depend on compaction.
cmp -s <(sort "$E2E_TMP/v1.out") <(sort "$E2E_TMP/v2.out") ||
	e2e_fail "the program's output differs with compaction"

for f in "$E2E_TMP"/v1/*.mt; do
	[ "$(version "$f")" = 1 ] || e2e_fail "$f: version $(version "$f") with compaction off"
done
for f in "$E2E_TMP"/v2/*.mt; do
	[ "$(version "$f")" = 2 ] || e2e_fail "$f: version $(version "$f"), not compacted at exit"
done
ls "$E2E_TMP"/v2 | grep -q '\.tmp$' && e2e_fail "a .tmp file was left in the trace"
b1=$(cat "$E2E_TMP"/v1/*.mt | wc -c) b2=$(cat "$E2E_TMP"/v2/*.mt | wc -c)
[ "$b2" -lt "$b1" ] || e2e_fail "compacted trace ($b2 bytes) not smaller than v1 ($b1)"

check_counts "$E2E_TMP/v1" "$E2E_TMP/v1.out"
check_counts "$E2E_TMP/v2" "$E2E_TMP/v2.out"

# The same trace compacted offline reads exactly as its version 1 form.
cp -r "$E2E_TMP/v1" "$E2E_TMP/c1"
"$msgtrace" compact "$E2E_TMP/c1" >/dev/null || e2e_fail "msgtrace compact failed"
for f in "$E2E_TMP"/c1/*.mt; do
	[ "$(version "$f")" = 2 ] || e2e_fail "$f: not compacted by msgtrace compact"
done
for cmd in "dump" "dump --summary" "messages" "report" "report --json" "tags" "decode --ops"; do
	# shellcheck disable=SC2086
	(cd "$E2E_TMP/v1" && "$msgtrace" $cmd .) >"$E2E_TMP/o1" 2>&1 || true
	# shellcheck disable=SC2086
	(cd "$E2E_TMP/c1" && "$msgtrace" $cmd .) >"$E2E_TMP/o2" 2>&1 || true
	cmp -s "$E2E_TMP/o1" "$E2E_TMP/o2" ||
		{ diff "$E2E_TMP/o1" "$E2E_TMP/o2" | head -10 >&2
		  e2e_fail "msgtrace $cmd differs on the compacted copy"; }
done
e2e_note "PASS: $b1 -> $b2 bytes compacted at exit, counts as the program says, offline compaction reads identically"
