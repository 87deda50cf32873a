#!/usr/bin/env bash
# bad_equal.sh BAD_RECORD MSGTRACE MSGTRACE_MPI NPS TRACEDIR - a copy of
# TRACEDIR whose last file has a bad record in its middle (BAD_RECORD, the
# bad_record helper, makes it): msgtrace stops its merge there, analyses
# what came before, says so and exits 1; so must msgtrace-mpi, for each N
# in NPS, whichever rank owns that file (equal.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# = 5 ] || { echo "usage: $0 BAD_RECORD MSGTRACE MSGTRACE_MPI NPS TRACEDIR" >&2; exit 2; }
bad=$1 serial=$2 par=$3 nps=$4 src=$5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-parbad.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/trace"
files=("$tmp"/trace/*.mt)
"$bad" "${files[-1]}" >/dev/null
rc=0
"$serial" messages "$tmp/trace" >/dev/null 2>"$tmp/err" || rc=$?
[ $rc = 1 ] && grep -q 'records after it are ignored' "$tmp/err" ||
	{ echo "FAIL: msgtrace did not stop at the bad record (status $rc):" >&2; cat "$tmp/err" >&2; exit 1; }
"$here/equal.sh" "$serial" "$par" "$nps" "$tmp/trace"
