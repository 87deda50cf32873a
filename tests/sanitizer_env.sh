# sanitizer_env.sh - sourced by the scripts that run the msgtrace binary on
# hostile input (tests/fuzz/replay.sh, tests/tools/test_malformed.sh) with
# MSGTRACE: sets vlimit, the `ulimit -v` to run it under (KiB), from
# LIMIT_MB. An ASan build reserves terabytes of address space, so it gets
# an RSS limit instead; and sanitizers exit 1 by default, which would read
# as "bad input", so they exit 99. asan=1 tells the script it runs an ASan
# build, whose every run costs the sanitizer's start-up and leak check.
vlimit=$((LIMIT_MB << 10)) asan=0
if grep -qa __asan_init "$msgtrace"; then
	vlimit=unlimited asan=1
	export ASAN_OPTIONS=${ASAN_OPTIONS:-hard_rss_limit_mb=$LIMIT_MB}
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=99"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=99"
