#!/usr/bin/env bash
# reliab_diskfull.sh tmpfs|fsize PROVIDER_DIR MSGTRACE BINDIR
# The disk fills up in the middle of a traced run. Each trace file grows
# in 4 MiB chunks; the space allowed holds the first chunk of each of the
# two ranks' files but not a second one:
#   tmpfs   the trace directory is a 10 MiB tmpfs mounted here (root);
#   fsize   the job runs under `ulimit -f` 6 MiB (RLIMIT_FSIZE): the file
#           may never pass it, and passing it would kill with SIGXFSZ.
# The job's output and exit status equal the untraced run's (under the same
# limit), each process whose file filled warns once that it cannot grow
# and once how many records it lost, `msgtrace dump` reads every record written before
# the disk filled, and `msgtrace dump --summary` shows the loss counted as
# "nospace". A tmpfs run where mount is impossible falls back to fsize.
mode=$1
shift
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
prog=("$mix" --iters 5000)
mkdir trace
if [ "$mode" = tmpfs ] && ! mount -t tmpfs -o size=10m,mode=0700 tmpfs trace 2>/dev/null; then
	e2e_note "cannot mount a tmpfs here (not root?): falling back to RLIMIT_FSIZE"
	mode=fsize
fi
limit=unlimited
case $mode in
tmpfs) trap 'umount "$E2E_TMP/trace" 2>/dev/null; e2e_cleanup' EXIT ;;
fsize) limit=$((6 * 1024)) ;;
*) e2e_fail "unknown mode '$mode' (tmpfs or fsize)" ;;
esac

# Only the jobs run under the limit (msgtrace's own output may be larger).
(ulimit -f "$limit" && reliab_run plain.out - -- "${prog[@]}")
[ "$(cat plain.out.rc)" = 0 ] ||
	e2e_fail "untraced run failed (status $(cat plain.out.rc)): $(tail -5 plain.out.err)"
(ulimit -f "$limit" && reliab_run traced.out "$E2E_TMP/trace" -- "${prog[@]}")
reliab_same_as_plain plain.out traced.out
grep -q 'File size limit' traced.out.err && e2e_fail "a rank got SIGXFSZ"
# Ranks write at different rates (probes spin): some may never fill up.
reliab_warned_some traced.out.err 'trace file cannot grow'
reliab_warned_some traced.out.err 'records lost \(size limit 0, no space [1-9]'
[ "$(grep 'trace file cannot grow' traced.out.err | cut -d: -f2 | sort)" = \
  "$(grep 'records lost' traced.out.err | cut -d: -f2 | sort)" ] ||
	e2e_fail "the processes that could not grow are not those that report losses"

"$msgtrace" dump trace >dump.txt 2>dump.err ||
	e2e_fail "msgtrace dump cannot read the trace of a full disk: $(cat dump.err)"
nospace=$(reliab_summary_sum trace nospace)
kept=$(grep -c ' op ' dump.txt || true)
[ "$nospace" -gt 0 ] || e2e_fail "no record counted as lost for lack of space"
[ "$kept" -gt 10000 ] || e2e_fail "only $kept op records kept before the disk filled"
# Every process's file ends with its CLOCK END: the reserve held.
ends=$(grep -c ' clock end ' dump.txt || true)
[ "$ends" -eq "$E2E_NP" ] || e2e_fail "$ends files closed with CLOCK END, expected $E2E_NP"
e2e_note "PASS ($mode): $kept op records kept, $nospace records counted lost (nospace)"
