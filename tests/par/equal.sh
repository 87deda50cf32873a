#!/usr/bin/env bash
# equal.sh [--only CMD] MSGTRACE MSGTRACE_MPI NPS TRACE... - `mpirun -np N
# msgtrace-mpi CMD` prints what `msgtrace CMD` prints, byte for byte, for
# each N in NPS ("1 2 3 4") and each CMD: report, report --json, messages;
# --only CMD: that one (report, messages). Same exit status; same stderr
# (an mpirun that ends with a non-zero status adds its own lines after the
# command's).
# The MPI job of the analysis: mpi_env.sh.
set -euo pipefail
only=
[ "${1:-}" != --only ] || { only=$2; shift 2; }
[ $# -ge 4 ] || { echo "usage: $0 MSGTRACE MSGTRACE_MPI NPS TRACE..." >&2; exit 2; }
serial=$1 par=$2 nps=$3
shift 3
# shellcheck source=mpi_env.sh
. "$(dirname "$0")/mpi_env.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-par.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0

# same WHAT EXPECTED ACTUAL: files equal, or say where they differ.
same() {
	cmp -s "$2" "$3" && return 0
	echo "FAIL: $1 differs:" >&2
	diff "$2" "$3" | head -n 20 >&2
	fail=1
}

# run OUT PROG... : PROG's stdout in OUT, stderr in OUT.err, status in OUT.rc.
run() {
	local out=$1 rc=0
	shift
	timeout --kill-after=5 50 "$@" >"$out" 2>"$out.err" || rc=$?
	echo $rc >"$out.rc"
}

# check N CMD... : serial and msgtrace-mpi on N ranks agree on CMD.
check() {
	local n=$1
	shift
	local what="np $n: $*"
	local cmd=$1
	shift
	run "$tmp/s" "$serial" "$cmd" "$@"
	# A run that ends with a non-zero status writes its output with -o:
	# Open MPI 5.0.7's mpirun drops parts of the standard output of a
	# process that exits so (README, Known MPI defects).
	[ "$(cat "$tmp/s.rc")" = 0 ] || set -- -o "$tmp/out" "$@"
	run "$tmp/p" mpirun --oversubscribe --bind-to none -np "$n" "$par" "$cmd" "$@"
	case "$(cat "$tmp/p.rc")" in
	124|137) echo "FAIL: $what: timed out" >&2; fail=1; return ;;
	esac
	if [ "$1" = -o ]; then
		[ ! -s "$tmp/p" ] || { echo "FAIL: $what: stdout with -o" >&2; fail=1; }
		mv "$tmp/out" "$tmp/p.out" 2>/dev/null || : >"$tmp/p.out"
		run "$tmp/s2" "$serial" "$cmd" "$@"
		same "$what: output (-o)" "$tmp/out" "$tmp/p.out"
	else
		same "$what: stdout" "$tmp/s" "$tmp/p"
	fi
	if [ "$(cat "$tmp/s.rc")" = 0 ]; then
		same "$what: exit status" "$tmp/s.rc" "$tmp/p.rc"
		same "$what: stderr" "$tmp/s.err" "$tmp/p.err"
	else
		[ "$(cat "$tmp/p.rc")" != 0 ] ||
			{ echo "FAIL: $what: exit 0, serial $(cat "$tmp/s.rc")" >&2; fail=1; }
		head -c "$(wc -c <"$tmp/s.err")" "$tmp/p.err" >"$tmp/p.err.head"
		same "$what: stderr" "$tmp/s.err" "$tmp/p.err.head"
	fi
}

for n in $nps; do
	if [ -n "$only" ]; then
		check "$n" "$only" "$@"
		continue
	fi
	check "$n" report "$@"
	check "$n" report --json "$@"
	check "$n" messages "$@"
done
[ $fail = 0 ] && echo "msgtrace-mpi = msgtrace for np $nps on $*"
exit $fail
