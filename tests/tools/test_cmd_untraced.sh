#!/usr/bin/env bash
# test_cmd_untraced.sh MSGTRACE: every command that reads a trace, given a
# missing directory or one holding no trace file, says what usually causes
# it (the MPI did not use libfabric, the hook's variables did not reach the
# ranks) and how to check (fi_info -l, msgtrace run).
bin=$1
# shellcheck source=tests/tools/cmd_lib.sh
. "$(dirname "$0")/cmd_lib.sh"
mkdir "$dir/empty"
for cmd in report messages dump decode tags "export --csv -o $dir/x.csv" "watch --once" compact; do
	for d in "$dir/missing" "$dir/empty"; do
		# compact has nothing to do in an empty directory: no error.
		[ "$cmd $d" = "compact $dir/empty" ] && continue
		# shellcheck disable=SC2086
		"$bin" $cmd "$d" >"$dir/out" 2>"$dir/err" &&
			fail "msgtrace $cmd $d succeeded"
		for want in "nothing was traced in $d" "ob1 or ucx" "UCX" \
			"FI_HOOK=msgtrace or FI_PROVIDER_PATH" "fi_info -l" \
			"ofi_hook_msgtrace" "msgtrace run"; do
			grep -qF "$want" "$dir/err" ||
				fail "msgtrace $cmd $d: no '$want' in: $(cat "$dir/err")"
		done
		! grep -q "nothing was traced" "$dir/out" ||
			fail "msgtrace $cmd $d: explanation on stdout"
	done
done
# A directory that holds a trace file gets no such explanation, even when
# the file is bad.
echo junk >"$dir/empty/h.1.0.mt"
"$bin" report "$dir/empty" >/dev/null 2>"$dir/err"
grep -q "nothing was traced" "$dir/err" && fail "a bad trace called untraced"
[ $fails -eq 0 ] && echo "cmd_untraced: all checks passed"
exit $((fails > 0))
