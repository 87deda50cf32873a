#!/usr/bin/env bash
# test_cmd_match.sh MSGTRACE [GEN_TRACE] - `msgtrace messages` and
# `msgtrace report`: usage and input errors, the exact CSV header, and, when
# bench/gen_trace is built, a synthetic 1000-message trace: every message
# matched, the JSON report valid and agreeing, a corrupt record reported
# with its file and offset (exit 1) after the records before it.
set -u
# shellcheck disable=SC2034 # bin: cmd_lib.sh runs it
bin=$1 gen=${2:-}
# shellcheck source=cmd_lib.sh
. "$(dirname "$0")/cmd_lib.sh"

header='send_rank,recv_rank,cid,comm_src,tag,kind,bytes,t_send_post_ns,t_send_done_ns,t_recv_post_ns,t_recv_done_ns,status'
for cmd in messages report; do
	run 0 $cmd --help
	grep -q "Usage: msgtrace $cmd" "$dir/out" || fail "$cmd --help has no usage line"
	run 2 $cmd
	grep -q "no trace given" "$dir/err" || fail "$cmd without a trace: $(cat "$dir/err")"
	run 2 $cmd --bogus "$dir"
	run 2 $cmd --layout ofi_tag_9 "$dir"
	grep -q "unknown layout 'ofi_tag_9'" "$dir/err" || fail "$cmd --layout: $(cat "$dir/err")"
	run 1 $cmd "$dir/missing"
	grep -q "$dir/missing" "$dir/err" || fail "$cmd does not name the missing path"
done
run 2 messages --json "$dir"
run 2 report --csv "$dir"
for kind in user coll ssend ssend_ack untagged; do
	run 0 messages --help
	grep -qw "$kind" "$dir/out" || fail "messages --help does not explain kind $kind"
done

if [ -n "$gen" ]; then
	"$gen" "$dir/t" 1000 4 || fail "gen_trace failed"
	run 0 messages "$dir/t" --csv -o "$dir/m.csv"
	[ "$(head -n 1 "$dir/m.csv")" = "$header" ] || fail "CSV header: $(head -n 1 "$dir/m.csv")"
	[ "$(grep -c ',user,.*,matched$' "$dir/m.csv")" = 1000 ] ||
		fail "expected 1000 matched user messages"
	# An output that cannot be written: exit 1, the error said once.
	for cmd in messages report; do
		run 1 $cmd -o /dev/full "$dir/t"
		[ "$(grep -c 'cannot write the output' "$dir/err")" = 1 ] ||
			fail "$cmd -o /dev/full: $(cat "$dir/err")"
	done
	run 0 report --json "$dir/t"
	jq -e '.messages.total == 1000 and .messages.status.matched == 1000 and
		(.pending | length) == 0 and .run.layout.name == "ofi_tag_full"' \
		"$dir/out" >/dev/null || fail "report --json disagrees: $(head -c 300 "$dir/out")"
	run 0 report "$dir/t"
	grep -q "^PAIRS" "$dir/out" || fail "text report has no PAIRS section"
	# Record 3 of process 1001 (after PROC and CLOCK, whose sizes are
	# the 16-bit fields at byte 2 of each header) gets a size of 3 bytes.
	cp -r "$dir/t" "$dir/bad"
	f=$dir/bad/bench.1001.0.mt
	s1=$(od -An -tu2 -j $((4096 + 2)) -N2 "$f" | tr -d ' ')
	s2=$(od -An -tu2 -j $((4096 + s1 + 2)) -N2 "$f" | tr -d ' ')
	printf '\003\000' | dd of="$f" bs=1 seek=$((4096 + s1 + s2 + 2)) \
		conv=notrunc status=none
	run 1 messages "$dir/bad"
	grep -q "bench.1001.0.mt: offset" "$dir/err" || fail "corrupt record not located: $(cat "$dir/err")"
	head -n 1 "$dir/out" | grep -qx "$header" || fail "no CSV before the corrupt record"
fi

[ "$fails" = 0 ] && echo "cmd_match: all checks passed"
exit $((fails > 0))
