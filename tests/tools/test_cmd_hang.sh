#!/usr/bin/env bash
# test_cmd_hang.sh MSGTRACE GEN_TRACE
#
# The root of a hang at scale, on traces bench/gen_trace --hang writes:
# 1,000 and 10,000 killed processes where rank 0 waits for tag 99 from rank 1 while
# rank 1 and everyone else wait in a barrier (see gen_trace.c). The PENDING
# section of `msgtrace report` must state the cause first and stay within
# 40 lines; --json must keep every operation.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 MSGTRACE GEN_TRACE" >&2; exit 2; }
mt=$1 gen=$2
n=10000
dir=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-hang.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq not found (Debian package jq)"

# pending TRACE: the PENDING section of the report, without the blank line
# and the CLOCKS heading after it.
pending() {
	"$mt" report "$1" >"$1.report" || fail "msgtrace report $1 failed"
	sed -n '/^PENDING/,/^CLOCKS/p' "$1.report" | sed '$d' | sed '$d'
}

# One barrier (1,000 ranks: the bounds are checked on 10,000 below): the
# cause and one line for the 998 other ranks.
"$gen" --hang "$dir/one" 1000 >/dev/null || fail "gen_trace --hang"
pending "$dir/one" >"$dir/one.pending"
cat "$dir/one.pending"
cat >"$dir/one.want" <<EOT
PENDING AT THE END OF THE TRACE (hang suspects)
  cause: a cycle, 2 ranks wait on each other:
    rank 0 waits on rank 1: recv user cid 0 tag 99
    rank 1 waits on rank 0: recv coll cid 0 tag -16
    (998 other ranks wait on them, directly or through others)
  other waits (998 operations):
    ranks 2-999 wait: recv coll cid 0 tag -16, on ranks 0-487
EOT
diff -u "$dir/one.want" "$dir/one.pending" || fail "one barrier: not the 7-line summary"

# 97 communicators and 10 ranks waiting on processes that left no trace:
# 11 roots and 97 groups, still at most 40 lines.
"$gen" --hang "$dir/many" $n 97 >/dev/null || fail "gen_trace --hang ... 97"
pending "$dir/many" >"$dir/many.pending"
cat "$dir/many.pending"
lines=$(wc -l <"$dir/many.pending")
[ "$lines" -le 40 ] || fail "the PENDING section takes $lines lines (at most 40)"
awk 'length > 80 { exit 1 }' "$dir/many.pending" || fail "a PENDING line passes 80 columns"
sed -n 2p "$dir/many.pending" | grep -q '^  cause: a cycle, 2 ranks' ||
	fail "the cycle of ranks 0 and 1 is not the first cause"
grep -q '^    rank 999 waits on fi_addr 10999 (no traced rank): recv coll cid 29 tag -16$' \
	"$dir/many.pending" || fail "rank 999's wait on an untraced process is not a cause"
grep -q 'more roots (--json lists all)$' "$dir/many.pending" || fail "no note of the roots not shown"
grep -q 'more groups (--json lists every operation)$' "$dir/many.pending" ||
	fail "no note of the groups not shown"
grep -q '^  why' "$dir/many.pending" &&
	fail "near misses shown as explanations: every barrier message here is only not received yet"

"$mt" report --json "$dir/many" >"$dir/many.json" || fail "msgtrace report --json failed"
jq -e --argjson n $n '(.pending | length) == $n and (.hang.waits | length) == $n' \
	"$dir/many.json" >/dev/null || fail "--json does not keep all $n pending operations"
jq -e '.hang.roots | length == 11 and .[0].type == "cycle" and
	([.[1:][] | select(.type == "open")] | length) == 10' "$dir/many.json" >/dev/null ||
	fail "--json roots: $(jq -c '[.hang.roots[] | {type, rank, waiters}]' "$dir/many.json")"
jq -e --argjson n $n '([.hang.groups[].operations] | add) +
	([.hang.roots[].waits | length] | add) == $n and (.hang.groups | length) == 97' \
	"$dir/many.json" >/dev/null || fail "--json groups do not hold every other wait"

# msgtrace watch: one view of the killed job within the same bounds, with
# how long each group has waited; a job whose writers all closed ends the
# watch by itself; bad options are usage errors.
"$mt" watch --once "$dir/many" >"$dir/watch" || fail "msgtrace watch --once failed"
[ "$(wc -l <"$dir/watch")" -le 48 ] || fail "the watch view takes $(wc -l <"$dir/watch") lines"
# (a group's line wraps: its time may be on the continuation line)
grep -Eq '(^    ranks .* wait: recv coll cid [0-9]+ tag -16, |^      ).*for [0-9]+\.[0-9] s' "$dir/watch" ||
	fail "msgtrace watch does not say how long groups have waited"
grep -q '^SENDS NEVER RECEIVED: 9998 (9998 coll)$' "$dir/watch" ||
	fail "msgtrace watch does not count the 9998 barrier messages never received"
"$gen" "$dir/done" 200 4 >/dev/null || fail "gen_trace"
timeout 60 "$mt" watch --interval 0.1 "$dir/done" >"$dir/done.watch" ||
	fail "msgtrace watch did not end by itself on a trace whose writers closed"
grep -q '^Every writer has closed its file' "$dir/done.watch" || fail "no word of the end"
for bad in "--interval 0" "--interval x" "--bogus"; do
	status=0
	# shellcheck disable=SC2086
	"$mt" watch $bad "$dir/done" >/dev/null 2>&1 || status=$?
	[ $status -eq 2 ] || fail "msgtrace watch $bad: status $status, want 2"
done
echo "PASS: $n ranks summarised in $lines lines, watched"
