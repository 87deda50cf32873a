#!/usr/bin/env bash
# test_cmd_clock.sh MSGTRACE TRACE_PERTURB [GEN_TRACE] - `--clock` on the
# pipeline commands: usage errors (exit 2) and help on every command; with
# bench/gen_trace built, a synthetic 4-process trace on one host (auto
# leaves the CSV byte for byte as --clock none and says so) and the same
# trace with processes 2 and 3 moved by trace_perturb to host "far" with one
# clock of their own (auto runs the linear stage over 2 domains, every
# receive ends after its send, the export and the messages CSV agree, the
# pending receives are on the corrected time base too; a $TMPDIR where the
# messages cannot wait for their correction is an error naming it).
set -u
# shellcheck disable=SC2034 # bin: cmd_lib.sh runs it
bin=$1 perturb=$2 gen=${3:-}
# shellcheck source=cmd_lib.sh
. "$(dirname "$0")/cmd_lib.sh"

# pending_gap TRACE ARGS...: rank 2's pending receive posted after rank 0's,
# in ns, by report --json ARGS.
pending_gap() {
	local t=$1
	shift
	run 0 report --json "$@" "$t"
	jq '[.pending[] | select(.rank == 0 or .rank == 2) | .posted_ns] |
		.[1] - .[0]' "$dir/out"
}

# json_has KEY_VALUE: the last report --json output holds "KEY":VALUE in
# its clock object.
json_has() {
	sed 's/.*"clock":{//' "$dir/out" | grep -q "$1" ||
		fail "report --json clock object lacks $1: $(sed 's/.*"clock"://' "$dir/out")"
}

for cmd in messages report tags; do
	run 0 $cmd --help
	grep -q -- "--clock MODE" "$dir/out" || fail "$cmd --help does not explain --clock"
	run 2 $cmd --clock fast "$dir"
	grep -q -- "--clock 'fast': expected none, linear, clc or auto" "$dir/err" ||
		fail "$cmd --clock fast: $(cat "$dir/err")"
	run 2 $cmd --clock "$dir"
done
run 0 export --help
grep -q -- "--clock MODE" "$dir/out" || fail "export --help does not explain --clock"
run 2 export --csv -o "$dir/x" --clock fast "$dir"
grep -q -- "--clock 'fast'" "$dir/err" || fail "export --clock fast: $(cat "$dir/err")"

if [ -z "$gen" ]; then
	echo "bench/gen_trace not built: trace checks skipped"
	[ $fails = 0 ] && exit 0 || exit 1
fi
# Every process ends with a receive pending (a hang).
"$gen" --pending "$dir/one" 3000 4 >/dev/null || { echo "FAIL: gen_trace"; exit 1; }

# One host, one clock: checked on the data, nothing to correct.
run 0 messages --clock none "$dir/one"
mv "$dir/out" "$dir/none.csv"
run 0 messages "$dir/one"
cmp -s "$dir/none.csv" "$dir/out" || fail "one host: auto changed the CSV"
run 0 report "$dir/one"
grep -q "^CLOCKS (--clock auto)" "$dir/out" || fail "report has no CLOCKS section"
grep -q "clocks checked on the data: no receive before its send" "$dir/out" ||
	fail "one host: CLOCKS does not say the clock was checked"
run 0 report --json "$dir/one"
json_has '"asked":"auto","corrected":true,"linear":false,"clc":false'
json_has '"declared_domains":1,"split_processes":0,"problem":"none","messages":3000,"violations_before":0'
run 0 report --json --clock linear "$dir/one"
json_has '"corrected":true,"linear":true,"clc":false'
json_has '"violations_after":0'

# One host whose processes do not agree (process 1 50 us and 30 ppm off, a
# clock fault on the clock declared shared): auto checks the declared clock
# on the data, splits it and corrects it, and calls it a clock problem.
cp -r "$dir/one" "$dir/skew"
"$perturb" bench 50000 30 0 "$dir/skew/bench.1001.0.mt" || fail "trace_perturb 1001"
run 0 report --json --clock none "$dir/skew"
grep -q '"violations_before":0,' "$dir/out" &&
	fail "one host, skewed: no receive before its send as recorded"
run 0 report --json "$dir/skew"
json_has '"corrected":true,"linear":true'
json_has '"declared_domains":1,"split_processes":4,"problem":"clock"'
json_has '"violations_after":0'
run 0 report "$dir/skew"
grep -q "a clock problem, corrected: 4 processes declared on one clock (one host)" "$dir/out" ||
	fail "one host, skewed: no clock problem said: $(sed -n '/^CLOCKS/,$p' "$dir/out")"
grep -q "pairing problem\|receive completed before its send" "$dir/out" &&
	fail "one host, skewed: a clock fault blamed on the pairing: $(cat "$dir/out")"

# Processes 2 and 3 on host "far", 5 ms, 30 ppm and 0.2 ms (CLOCK_REALTIME)
# off: one domain of two processes there.
cp -r "$dir/one" "$dir/two"
for pid in 1002 1003; do
	"$perturb" far 5000000 30 200000 "$dir/two/bench.$pid.0.mt" ||
		fail "trace_perturb $pid"
	mv "$dir/two/bench.$pid.0.mt" "$dir/two/far.$pid.0.mt"
done
run 0 report --json --clock none "$dir/two"
grep -q '"violations_before":0,' "$dir/out" &&
	fail "two hosts: no receive before its send as recorded"
run 0 report --json "$dir/two"
json_has '"corrected":true,"linear":true'
json_has '"declared_domains":2'
json_has '"violations_after":0'
json_has '"ranks":\[2,3\],"host":"far","split":false,"estimate":"messages"'
run 0 report "$dir/two"
grep -q "^  1      2-3      far        messages" "$dir/out" ||
	fail "two hosts: CLOCKS lacks the far domain: $(sed -n '/^CLOCKS/,$p' "$dir/out")"
run 0 report --html "$dir/two"
grep -q '<section id="clocks"><h2>Clocks</h2>.*<td>far</td><td>messages</td>' "$dir/out" ||
	fail "two hosts: the HTML report has no Clocks section with the far domain"
run 0 messages "$dir/two"
mv "$dir/out" "$dir/two.csv"
[ "$(wc -l <"$dir/two.csv")" = "$(wc -l <"$dir/none.csv")" ] ||
	fail "two hosts: another number of messages"
awk -F, 'NR > 1 && $12 == "matched" && $11 <= $8 { n++ } END { exit n > 0 }' \
	"$dir/two.csv" || fail "two hosts: a receive at or before its send after auto"
cmp -s "$dir/none.csv" "$dir/two.csv" && fail "two hosts: times not corrected"
# The pending receives: 20 ns apart in truth, 0.2 ms apart as recorded (the
# hosts meet on CLOCK_REALTIME, 0.2 ms off), and
# back within 1 us of the truth after correction.
gap_one=$(pending_gap "$dir/one")
gap_none=$(pending_gap "$dir/two" --clock none)
gap_auto=$(pending_gap "$dir/two")
echo "pending receives of ranks 0 and 2: ${gap_one} ns apart on one host, ${gap_none} ns on two as recorded, ${gap_auto} ns corrected"
[ "$gap_one" = 20 ] || fail "one host: pending receives $gap_one ns apart, want 20"
[ "${gap_none#-}" -gt 100000 ] ||
	fail "two hosts: pending receives only $gap_none ns apart as recorded"
[ "${gap_auto#-}" -lt 1000 ] ||
	fail "two hosts: pending receives $gap_auto ns apart after correction (20 in truth)"
run 0 export --csv -o "$dir/ex" "$dir/two"
cmp -s "$dir/two.csv" "$dir/ex.messages.csv" ||
	fail "two hosts: export --csv and messages disagree"
# Correcting keeps the matched messages in a temporary file in $TMPDIR: one
# that cannot be made is an error naming the directory; streaming needs none.
TMPDIR=$dir/absent run 1 messages "$dir/two"
grep -q "cannot create a temporary file in $dir/absent for the clock correction" \
	"$dir/err" || fail "two hosts, TMPDIR absent: $(cat "$dir/err")"
TMPDIR=$dir/absent run 0 messages --clock none "$dir/two"

[ $fails = 0 ] && echo "all clock command checks passed"
[ $fails = 0 ]
