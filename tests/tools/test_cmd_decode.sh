#!/usr/bin/env bash
# test_cmd_decode.sh MSGTRACE - `msgtrace decode` usage and input errors
# (decoding itself is checked end to end by tests/e2e/decode_p2p_mix.sh).
set -u
bin=$1
fails=0
out=$(mktemp) err=$(mktemp) dir=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$dir"' EXIT

check() {	# check WANT_RC TEXT_IN_OUTPUT ARGS...
	local want=$1 text=$2; shift 2
	"$bin" "$@" >"$out" 2>"$err"
	local rc=$?
	if [ "$rc" != "$want" ] || ! cat "$out" "$err" | grep -qF -- "$text"; then
		echo "FAIL: msgtrace $* -> exit $rc (want $want), output:"
		cat "$out" "$err"
		fails=$((fails + 1))
	fi
}

check 0 "Usage: msgtrace decode [--layout NAME] [--ops] DIR|FILE..." decode --help
check 0 "decode     tag layout of each endpoint" --help
check 2 "no trace given" decode
check 2 "unknown layout 'ofi_tag_9'; valid: raw ofi_tag_full" decode --layout ofi_tag_9 "$dir"
check 2 "unknown or incomplete option '--bogus'" decode --bogus "$dir"
check 1 "msgtrace decode: $dir/missing" decode "$dir/missing"
printf 'not a trace file' >"$dir/bad.mt"
check 1 "msgtrace decode: $dir/bad.mt" decode "$dir/bad.mt"

[ "$fails" = 0 ] && echo "cmd_decode: all checks passed"
exit $((fails > 0))
