#!/usr/bin/env bash
# bad_archive.sh MSGTRACE FIXTURE_TRACE - broken OTF2 archives at the
# command: msgtrace's export of a fixture trace, then a truncated event
# file, garbage in the global definitions, a location's event file
# missing, a truncated anchor. `msgtrace messages` must exit 1 with an
# error naming the archive's anchor file, and never call it an empty
# fabric trace (the hints for a run that traced nothing would mislead).
set -euo pipefail
msgtrace=$1 trace=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "bad_archive: FAIL: $*" >&2; exit 1; }

"$msgtrace" export --otf2 -o "$tmp/good" "$trace" 2>/dev/null || [ $? -eq 3 ] ||
	fail "export --otf2 of $trace failed"
[ -f "$tmp/good/traces/1.evt" ] || fail "no event file of location 1"
for k in cut_events bad_defs no_events cut_anchor; do
	cp -r "$tmp/good" "$tmp/$k"
done
truncate -s 100 "$tmp/cut_events/traces/1.evt"
printf 'garbagegarbage' | dd of="$tmp/bad_defs/traces.def" bs=1 seek=30 \
	conv=notrunc 2>/dev/null
rm "$tmp/no_events/traces/1.evt"
truncate -s 50 "$tmp/cut_anchor/traces.otf2"
for k in cut_events bad_defs no_events cut_anchor; do
	rc=0
	"$msgtrace" messages "$tmp/$k" >/dev/null 2>"$tmp/$k.err" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$tmp/$k.err" >&2; fail "$k: exit status $rc, want 1"; }
	grep -qF "$tmp/$k/traces.otf2" "$tmp/$k.err" ||
		{ cat "$tmp/$k.err" >&2; fail "$k: the error does not name the anchor file"; }
	! grep -q "nothing was traced" "$tmp/$k.err" ||
		{ cat "$tmp/$k.err" >&2; fail "$k: called an empty fabric trace"; }
done
echo "bad_archive: PASS: 4 broken archives rejected, each named"
