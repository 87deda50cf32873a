#!/usr/bin/env bash
# test_cmd_run.sh MSGTRACE FIXTURES: msgtrace run without MPI. Launchers
# are shell commands: the environment they get, their exit status and
# signals passed through, their standard output left alone, and the
# summary of a trace a "launcher" leaves (a recorded fixture copied into
# the trace directory, with the program's own log beside it).
bin=$1 fixtures=$2
# shellcheck source=tests/tools/cmd_lib.sh
. "$(dirname "$0")/cmd_lib.sh"
cd "$dir" || exit 1
unset FI_HOOK FI_PROVIDER_PATH FI_OFI_HOOK_MSGTRACE_DIR FI_PROVIDER \
	"${!OMPI_MCA_@}"

# Usage errors and --help.
run 2 run
grep -q "no launcher given" "$dir/err" || fail "run without a launcher: $(cat "$dir/err")"
run 2 run --bogus -- true
run 0 run --help
grep -q "^Usage: msgtrace run" "$dir/out" || fail "run --help not on stdout"

# The launcher's exit status, its stdout untouched, nothing traced said.
run 3 run -- sh -c 'echo job-out; exit 3'
[ "$(cat "$dir/out")" = job-out ] || fail "stdout is not the job's: $(cat "$dir/out")"
grep -q "nothing was traced" "$dir/err" || fail "no 'nothing was traced': $(cat "$dir/err")"
grep -q "removed the empty" "$dir/err" || fail "its own empty directory left"
[ -z "$(find . -maxdepth 1 -name 'msgtrace-*')" ] || fail "empty trace directory left"
run 127 run -- ./no-such-launcher
grep -q "cannot run ./no-such-launcher" "$dir/err" || fail "launcher not found not said"

# Killed by a signal: the status the shell shows for the launcher itself.
{ "$bin" run -- sh -c 'kill -KILL $$'; } 2>/dev/null
rc=$?
[ $rc -eq 137 ] || fail "launcher killed by SIGKILL: exit $rc, want 137"
{ "$bin" run -- sh -c 'kill -SEGV $$'; } 2>/dev/null
rc=$?
[ $rc -eq 139 ] || fail "launcher killed by SIGSEGV: exit $rc, want 139"
[ ! -e core ] || fail "msgtrace run left a core file"

# SIGTERM to msgtrace run reaches the launcher, which decides the status.
"$bin" run -- sh -c 'trap "exit 7" TERM; echo ready; while :; do sleep 0.1; done' \
	>"$dir/term.out" 2>/dev/null &
pid=$!
for _ in $(seq 600); do
	grep -q ready "$dir/term.out" 2>/dev/null && break
	sleep 0.1
done
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 7 ] || fail "SIGTERM forwarded: exit $rc, want the launcher's 7"

# The environment: FI_* always, Open MPI's settings unless the user's.
show='echo "$FI_HOOK|$OMPI_MCA_pml|$OMPI_MCA_mtl|$FI_OFI_HOOK_MSGTRACE_DIR"; ls "${FI_PROVIDER_PATH%%:*}"'
FI_HOOK=perf OMPI_MCA_pml=ob1 run 0 run -o tr -- sh -c "$show"
[ "$(head -1 "$dir/out")" = "perf;msgtrace|ob1|ofi|$dir/tr" ] ||
	fail "environment: $(head -1 "$dir/out")"
grep -qx libmsgtrace-fi.so "$dir/out" || fail "FI_PROVIDER_PATH has no libmsgtrace-fi.so"
grep -q "yours kept: pml" "$dir/err" || fail "kept pml not said: $(cat "$dir/err")"
# An Open MPI mpirun by name (this one runs its program, past --mca).
mkdir "$dir/bin"
printf '#!/bin/sh\nshift 3\nexec "$@"\n' >"$dir/bin/mpirun"
chmod +x "$dir/bin/mpirun"
run 0 run -- "$dir/bin/mpirun" --mca pml ob1 sh -c "$show"
case $(head -1 "$dir/out") in
"msgtrace||ofi|$dir/msgtrace-"*) ;;
*) fail "mpirun --mca pml ob1: $(head -1 "$dir/out")" ;;
esac

# A trace the launcher leaves: where it is and the summary, which agrees
# with the program's own log; a directory holding a trace is refused.
src=$fixtures/match_patterns
# shellcheck disable=SC2016
run 0 run -o got -- sh -c 'cp "$1"/trace/* "$FI_OFI_HOOK_MSGTRACE_DIR"/' sh "$src"
[ ! -s "$dir/out" ] || fail "summary on stdout: $(cat "$dir/out")"
grep -q "trace in $dir/got" "$dir/err" || fail "trace location not said: $(cat "$dir/err")"
user=$(cat "$src"/log/rank*.log | grep -c '^SEND')
grep -qE "^  [0-9]+ messages \($user user, " "$dir/err" ||
	fail "summary does not count the $user user messages logged: $(cat "$dir/err")"
grep -q "records, 0 lost" "$dir/err" || fail "records lost not said"
grep -q "hang suspects: none" "$dir/err" || fail "hang suspects not said"
run 2 run -o got -- true
grep -q "holds a trace already" "$dir/err" || fail "a used directory accepted"
run 0 run --no-summary -o got2 -- sh -c 'cp "$1"/trace/* "$FI_OFI_HOOK_MSGTRACE_DIR"/' sh "$src"
! grep -q "messages" "$dir/err" || fail "--no-summary summarised"
hang=$fixtures/hang_tag_mismatch
run 0 run -o hung -- sh -c 'cp "$1"/trace/* "$FI_OFI_HOOK_MSGTRACE_DIR"/' sh "$hang"
grep -qE "hang suspects: [1-9][0-9]* operations? pending" "$dir/err" ||
	fail "a hang's pending operations not said: $(cat "$dir/err")"

[ $fails -eq 0 ] && echo "cmd_run: all checks passed"
exit $((fails > 0))
