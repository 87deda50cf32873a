#!/usr/bin/env bash
# read_fail.sh MSGTRACE MSGTRACE_MPI TRACEDIR - when a trace file cannot be
# read (here: cut to 8 bytes, shorter than a header), `mpirun -np N
# msgtrace-mpi report` for N = 1..4 ends promptly with a non-zero status
# and says what `msgtrace report` says about that file, first, on stderr
# (mpirun adds its own lines after it), and prints nothing on stdout.
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 MSGTRACE MSGTRACE_MPI TRACEDIR" >&2; exit 2; }
serial=$1 par=$2 src=$3
# shellcheck source=mpi_env.sh
. "$(dirname "$0")/mpi_env.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-parfail.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -r "$src" "$tmp/trace"
files=("$tmp"/trace/*.mt)
# The last file: with 4 analysis ranks its owner is not rank 0's first.
printf 'garbage!' >"${files[-1]}"
rc=0
"$serial" report "$tmp/trace" >"$tmp/s" 2>"$tmp/s.err" || rc=$?
[ $rc != 0 ] || { echo "FAIL: msgtrace report accepted a cut file" >&2; exit 1; }
grep -q "${files[-1]##*/}" "$tmp/s.err" ||
	{ echo "FAIL: msgtrace's error does not name the file:" >&2; cat "$tmp/s.err" >&2; exit 1; }
fail=0
for n in 1 2 3 4; do
	par_mpirun "$tmp/p" -np $n "$par" report "$tmp/trace"
	rc=$(cat "$tmp/p.rc")
	case $rc in
	124|137)
		echo "FAIL: np $n: msgtrace-mpi hung on a cut file" >&2
		fail=1
		continue ;;
	lingered)	# par_mpirun: an Open MPI defect once the ranks failed
		echo "note: np $n: mpirun lingered after its ranks had ended: killed" ;;
	esac
	[ "$rc" != 0 ] || { echo "FAIL: np $n: exit status 0 on a cut file" >&2; fail=1; }
	cmp -s "$tmp/s" "$tmp/p" || { echo "FAIL: np $n: stdout differs" >&2; fail=1; }
	head -c "$(wc -c <"$tmp/s.err")" "$tmp/p.err" | cmp -s - "$tmp/s.err" || {
		echo "FAIL: np $n: stderr does not start with msgtrace's error:" >&2
		head -n 5 "$tmp/p.err" >&2
		fail=1
	}
done
[ $fail = 0 ] && echo "msgtrace-mpi: $(cat "$tmp/s.err") (np 1-4)"
exit $fail
