#!/usr/bin/env bash
# The parameters' defaults and the off switch: with no
# FI_OFI_HOOK_MSGTRACE_DIR both ranks write into one ./msgtrace-<job id>
# in the working directory (mpirun gives the job id); with
# FI_OFI_HOOK_MSGTRACE_ENABLE=0 the hook records nothing and creates
# nothing. The program's output is the untraced one either way.
. "$(dirname "$0")/provider_lib.sh"

run_pp -- 2 >plain.txt || fail "untraced run failed"

mkdir default && cd default
run_pp FI_PROVIDER_PATH="$provdir" FI_HOOK=msgtrace -- 2 >../traced.txt ||
	fail "traced run with the default directory failed"
cd ..
diff <(sort plain.txt) <(sort traced.txt) || fail "output changed by tracing"
dirs=(default/msgtrace-*)
[ ${#dirs[@]} = 1 ] && [ -d "${dirs[0]}" ] ||
	fail "expected one ./msgtrace-<job id> directory, found: $(ls -A default)"
check_dir "${dirs[0]}" >facts.txt
[ "$(grep -c '^file ' facts.txt)" = 2 ] ||
	fail "the ranks did not share ${dirs[0]}: $(ls "${dirs[0]}")"

mkdir off && cd off
run_pp FI_PROVIDER_PATH="$provdir" FI_HOOK=msgtrace \
	FI_OFI_HOOK_MSGTRACE_ENABLE=0 -- 2 >../off.txt || fail "run with ENABLE=0 failed"
cd ..
diff <(sort plain.txt) <(sort off.txt) || fail "output changed with ENABLE=0"
[ -z "$(ls -A off)" ] || fail "ENABLE=0 still created: $(ls -A off)"
echo "PASS: provider_params (default directory ${dirs[0]#default/}, ENABLE=0)"
