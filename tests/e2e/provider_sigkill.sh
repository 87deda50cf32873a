#!/usr/bin/env bash
# SIGKILL of a traced rank mid-run: its file stays readable, every committed
# record is valid, and it holds at least what was committed before the kill.
. "$(dirname "$0")/provider_lib.sh"

run_pp FI_PROVIDER_PATH="$provdir" FI_HOOK=msgtrace \
	FI_OFI_HOOK_MSGTRACE_DIR="$work/trace" -- 100000 5 >/dev/null 2>&1 &
job=$!

victim=
for _ in $(seq 100); do
	sleep 0.1
	victim=$(ls trace 2>/dev/null | grep -E '\.0\.mt$' | head -1 || true)
	[ -n "$victim" ] && break
done
[ -n "$victim" ] || { kill "$job"; fail "no trace file appeared"; }
# Let it record a few dozen operations, then kill it mid-run.
before=0
for _ in $(seq 100); do
	sleep 0.2
	before=$("$bindir/provider_mtcheck" "trace/$victim" | grep -c '^op ' || true)
	[ "$before" -ge 40 ] && break
done
pid=$(echo "$victim" | awk -F. '{print $(NF-2)}')
kill -KILL "$pid"
wait "$job" || true

"$bindir/provider_mtcheck" "trace/$victim" >after.txt ||
	fail "killed rank's file is invalid"
after=$(grep -c '^op ' after.txt || true)
grep -q "^file $victim .* closed 0 " after.txt ||
	fail "killed rank's file claims a clean close"
[ "$before" -gt 0 ] || fail "no records before the kill"
[ "$after" -ge "$before" ] ||
	fail "records lost by the kill: $before before, $after after"
dumped=$("$msgtrace" dump --kind op "trace/$victim" | grep -c ' op ' || true)
[ "$dumped" -eq "$after" ] || fail "msgtrace dump reads $dumped ops, expected $after"
echo "PASS: provider_sigkill ($after ops survived, $before seen before the kill)"
