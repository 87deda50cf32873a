# shellcheck shell=bash
# cmd_lib.sh - helpers for the msgtrace command tests (source it after
# setting bin=MSGTRACE): a scratch $dir removed on exit, fail (counts in
# $fails) and run (exit status checked, output in $dir/out and $dir/err).
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# run WANT_RC ARGS...: output in $dir/out, errors in $dir/err
run() {
	local want=$1 rc
	shift
	"$bin" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	[ "$rc" = "$want" ] || fail "msgtrace $* exited $rc, want $want: $(cat "$dir/err")"
}
