#!/usr/bin/env bash
# test_cmd_export.sh MSGTRACE - `msgtrace export` and `report --html`:
# help, usage errors (exit 2) and a missing trace (exit 1), each with a
# message naming what is wrong. Exports of real traces: tests/e2e/export_*.
set -u
bin=$1
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run EXPECTED_RC MESSAGE_PART ARGS...: exit status and a stderr fragment.
run() {
	local want=$1 msg=$2
	shift 2
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: msgtrace $* exited $rc, expected $want"; cat "$tmp/err"
		fails=$((fails + 1))
	elif [ -n "$msg" ] && ! grep -qF -- "$msg" "$tmp/err"; then
		echo "FAIL: msgtrace $*: stderr lacks '$msg':"; cat "$tmp/err"
		fails=$((fails + 1))
	fi
}

run 0 "" export --help
for w in --otf2 --chrome --csv "two's complement" "-o OUT"; do
	grep -qF -- "$w" "$tmp/out" || { echo "FAIL: export --help lacks '$w'"; fails=$((fails + 1)); }
done
run 0 "" report --help
grep -qF -- "--html" "$tmp/out" || { echo "FAIL: report --help lacks --html"; fails=$((fails + 1)); }

run 2 "give one of --otf2, --chrome, --csv" export -o x "$tmp"
run 2 "give one of --otf2, --chrome, --csv" export --otf2 --chrome -o x "$tmp"
run 2 "-o OUT is required" export --otf2 "$tmp"
run 2 "no trace given" export --csv -o x
run 2 "unknown or incomplete option '--bogus'" export --otf2 --bogus -o x "$tmp"
run 2 "unknown layout 'nope'" export --otf2 --layout nope -o x "$tmp"
run 2 "cannot create '$tmp/no/such/dir/x.json'" export --chrome -o "$tmp/no/such/dir/x.json" "$tmp"
touch "$tmp/file"
run 2 "-o '$tmp/file' exists and is not a directory" export --otf2 -o "$tmp/file" "$tmp"
mkdir -p "$tmp/old/traces"
run 2 "already holds an OTF2 archive ('traces')" export --otf2 -o "$tmp/old" "$tmp"
run 1 "$tmp/missing" export --otf2 -o "$tmp/o" "$tmp/missing"
run 1 "$tmp/missing" report --html -o "$tmp/r.html" "$tmp/missing"
run 2 "unknown or incomplete option '--html'" messages --html "$tmp"

if [ "$fails" -ne 0 ]; then
	echo "$fails failure(s)"
	exit 1
fi
echo "PASS: msgtrace export / report --html options and errors"
