#!/usr/bin/env bash
# A trace directory that is a symlink is refused: each rank logs one
# FI_WARN naming the cause and runs on untraced, with unchanged output.
. "$(dirname "$0")/provider_lib.sh"

mkdir real
ln -s real link
run_pp -- 2 >plain.txt || fail "untraced run failed"
run_pp FI_PROVIDER_PATH="$provdir" FI_HOOK=msgtrace FI_LOG_LEVEL=warn \
	FI_OFI_HOOK_MSGTRACE_DIR="$work/link" -- 2 >traced.txt 2>err.txt ||
	fail "run with a symlinked trace directory failed: $(cat err.txt)"
diff <(sort plain.txt) <(sort traced.txt) || fail "output changed"
[ -z "$(ls real)" ] || fail "files were written through the symlink"
n=$(grep -c 'msgtrace: tracing disabled: .*symlink' err.txt || true)
[ "$n" = 2 ] || fail "expected one warning per rank, got $n: $(cat err.txt)"
echo "PASS: provider_baddir"
