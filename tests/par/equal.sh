#!/usr/bin/env bash
# equal.sh [--only CMD] [--files] [--export] MSGTRACE MSGTRACE_MPI NPS TRACE... -
# `mpirun -np N msgtrace-mpi CMD` prints what `msgtrace CMD` prints, byte
# for byte, for each N in NPS ("1 2 3 4"), one output per N in turn:
# report --json at N = 1 and 3, messages at 2 and 4, and the text report
# at 2; --export adds export in one format per N (--csv at N = 1 and 4,
# --otf2 at 2, --chrome at 3), writing the same files (an OTF2 anchor file
# differs in its random trace identifier alone: otf2-print -A compares the
# rest); --only CMD: that one at every N (report, messages, export). Same
# exit status; same stderr (an mpirun that ends with a non-zero status
# adds its own lines after the command's). --files: every output written
# with -o, none to stdout (a trace whose runs write notes on stderr after
# their output: Open MPI 5.0.7's mpirun was seen to put the tail of the
# standard output at the head of its standard error there, README's Known
# MPI defects).
# Why not every output at every N: each MPI job costs 0.5 s to start and
# end, the analysis of a fixture a few ms, and the suite has hundreds;
# over N = 1..4 each output is still compared on one rank and on several
# (the report's data, summed over the ranks, at 2 and 3; the messages,
# gathered from the ranks, at 2 and 4), and the text report and exports
# are the serial sinks on rank 0, fed those.
# The MPI job of the analysis: mpi_env.sh.
set -euo pipefail
only= files= export=
[ "${1:-}" != --only ] || { only=$2; shift 2; }
[ "${1:-}" != --files ] || { files=1; shift; }
[ "${1:-}" != --export ] || { export=1; shift; }
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

# ended WHAT: whether msgtrace-mpi's job ($tmp/p) ended, so that what it
# said can be compared. A job that ran out of time fails. One whose mpirun
# lingered after its ranks had ended (par_mpirun) is compared, without its
# status, when the serial run failed too (the ranks' status 1 is when
# Open MPI 5.0.7's mpirun was seen to linger), and fails otherwise.
ended() {
	case "$(cat "$tmp/p.rc")" in
	124|137) echo "FAIL: $1: timed out" >&2; fail=1; return 1 ;;
	lingered)
		if [ "$(cat "$tmp/s.rc")" = 0 ]; then
			echo "FAIL: $1: mpirun did not end after its ranks had" >&2
			fail=1
			return 1
		fi
		echo "note: $1: mpirun lingered after its ranks had ended (an Open MPI defect): killed, its status not compared" ;;
	esac
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
	[ "$(cat "$tmp/s.rc")" = 0 ] && [ -z "$files" ] || set -- -o "$tmp/out" "$@"
	par_mpirun "$tmp/p" -np "$n" "$par" "$cmd" "$@"
	ended "$what" || return 0
	if [ "$1" = -o ]; then
		[ ! -s "$tmp/p" ] || { echo "FAIL: $what: stdout with -o" >&2; fail=1; }
		mv "$tmp/out" "$tmp/p.out" 2>/dev/null || : >"$tmp/p.out"
		run "$tmp/s2" "$serial" "$cmd" "$@"
		same "$what: output (-o)" "$tmp/out" "$tmp/p.out"
	else
		same "$what: stdout" "$tmp/s" "$tmp/p"
	fi
	status_same "$what" "$tmp/s.err"
}

# status_same WHAT S_ERR: msgtrace-mpi's run ($tmp/p) ended as the serial
# one ($tmp/s, its stderr as S_ERR): the same status and stderr, or, when
# it failed, a failure whose stderr starts with the serial one's.
status_same() {
	if [ "$(cat "$tmp/s.rc")" = 0 ]; then
		same "$1: exit status" "$tmp/s.rc" "$tmp/p.rc"
		same "$1: stderr" "$2" "$tmp/p.err"
	else
		[ "$(cat "$tmp/p.rc")" != 0 ] ||
			{ echo "FAIL: $1: exit 0, serial $(cat "$tmp/s.rc")" >&2; fail=1; }
		head -c "$(wc -c <"$2")" "$tmp/p.err" >"$tmp/p.err.head"
		same "$1: stderr" "$2" "$tmp/p.err.head"
	fi
}

# files_same WHAT S_DIR P_DIR: the two directories hold the same files.
files_same() {
	local f
	diff -rq "$2" "$3" >/dev/null && return 0
	(cd "$2" && find . -type f) | sort >"$tmp/s.files"
	(cd "$3" && find . -type f) | sort >"$tmp/p.files"
	same "$1: files written" "$tmp/s.files" "$tmp/p.files"
	while read -r f; do
		[ -f "$3/$f" ] || continue
		if [ "${f##*/}" = traces.otf2 ]; then
			otf2-print -A "$2/$f" | grep -v '^Trace identifier' >"$tmp/s.anchor"
			otf2-print -A "$3/$f" | grep -v '^Trace identifier' >"$tmp/p.anchor"
			same "$1: $f" "$tmp/s.anchor" "$tmp/p.anchor"
		else
			same "$1: $f" "$2/$f" "$3/$f"
		fi
	done <"$tmp/s.files"
}

# check_export N FORMAT TRACE...: serial and msgtrace-mpi on N ranks write
# the same export (-o into a directory of their own) and say the same.
check_export() {
	local n=$1 fmt=$2
	shift 2
	local what="np $n: export $fmt"
	rm -rf "$tmp/sd" "$tmp/pd"
	mkdir "$tmp/sd" "$tmp/pd"
	run "$tmp/s" "$serial" export "$fmt" -o "$tmp/sd/out" "$@"
	par_mpirun "$tmp/p" -np "$n" "$par" export "$fmt" -o "$tmp/pd/out" "$@"
	ended "$what" || return 0
	[ ! -s "$tmp/p" ] || { echo "FAIL: $what: printed on stdout" >&2; fail=1; }
	files_same "$what" "$tmp/sd" "$tmp/pd"
	# The serial messages name its -o, msgtrace-mpi's its own.
	sed "s|$tmp/sd/|$tmp/pd/|g" "$tmp/s.err" >"$tmp/s.err.p"
	status_same "$what" "$tmp/s.err.p"
}

# export_format N: the format export is checked in at N.
export_format() {
	local formats=(--csv --otf2 --chrome)
	echo "${formats[($1 - 1) % 3]}"
}

for n in $nps; do
	case $only in
	export) check_export "$n" "$(export_format "$n")" "$@" ;;
	?*) check "$n" "$only" "$@" ;;
	*)
		[ "$n" != 2 ] || check "$n" report "$@"
		if [ $((n % 2)) = 1 ]; then
			check "$n" report --json "$@"
		else
			check "$n" messages "$@"
		fi
		[ -z "$export" ] || check_export "$n" "$(export_format "$n")" "$@" ;;
	esac
done
[ $fail = 0 ] && echo "msgtrace-mpi = msgtrace for np $nps on $*"
exit $fail
