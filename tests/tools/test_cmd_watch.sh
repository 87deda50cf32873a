#!/usr/bin/env bash
# test_cmd_watch.sh MSGTRACE GEN_TRACE BENCH_WATCH
#
# `msgtrace watch` reads a running job's files on from where its last view
# stopped. On a hang gen_trace --hang leaves open (16 ranks):
# 1. the pipeline's live views (bench_watch --check): a receive published
#    and a file closed between two views are in the second (the receive
#    waits, the file is no longer left by a kill), which read those 2
#    records on instead of the whole trace; the first shows neither;
# 2. calls in progress (bench_watch --check-calls): a receive published
#    before its call returned is in no view until it returned, one taken
#    back after -FI_EAGAIN in none, and neither makes a view read the
#    trace whole;
# 3. the command: while `msgtrace watch` refreshes, rank 5 publishes a
#    receive (user tag 4243); a later view shows rank 5 waiting on it, the
#    first did not.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 MSGTRACE GEN_TRACE BENCH_WATCH" >&2; exit 2; }
mt=$1 gen=$2 bw=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-watch.XXXXXX")
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gen" --hang "$dir/a" 16 >/dev/null || fail "gen_trace --hang"
"$bw" --check "$dir/a" 16 || fail "bench_watch --check"

"$gen" --hang "$dir/c" 16 >/dev/null || fail "gen_trace --hang"
"$bw" --check-calls "$dir/c" 16 || fail "bench_watch --check-calls"

"$gen" --hang "$dir/b" 16 >/dev/null || fail "gen_trace --hang"
"$mt" watch --interval 0.2 "$dir/b" >"$dir/watch" 2>"$dir/watch.err" &
pid=$!
views() { grep -c '^msgtrace watch: ' "$dir/watch" || true; }
# Waits (up to 60 s, however loaded the machine) for the first view.
for _ in $(seq 600); do [ "$(views)" -ge 1 ] && break; sleep 0.1; done
[ "$(views)" -ge 1 ] || fail "no view from msgtrace watch in 60 s"
"$bw" --publish "$dir/b" 5 4243 || fail "bench_watch --publish"
for _ in $(seq 600); do grep -q 'tag 4243' "$dir/watch" && break; sleep 0.1; done
kill "$pid"
wait "$pid" 2>/dev/null || true
pid=
cat "$dir/watch.err" >&2
awk '/^msgtrace watch: / { n++ } n == 1 && /tag 4243/ { bad = 1 } END { exit bad }' \
	"$dir/watch" || fail "the first view shows a receive not yet published"
grep -q '^    rank 5 waits: recv user cid 0 tag 4243, on rank 1' "$dir/watch" ||
	{ tail -n 30 "$dir/watch" >&2; fail "no view shows rank 5's receive published meanwhile"; }
echo "PASS: a receive published between two views of msgtrace watch is in the later one"
