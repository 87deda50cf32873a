#!/usr/bin/env bash
# apart.sh MSGTRACE MSGTRACE_MPI TRACEDIR - analysis ranks that do not see
# the same files, as on several nodes (here: each rank gets a command line
# of its own, picked by its rank; mpirun's MPMD form "A : B" would say the
# same, but Open MPI 5.0.7's mpirun crashes on it, README's known MPI
# defects):
#  - an -o that only rank 0 can create (a node-local directory elsewhere
#    missing): only rank 0 opens it; the output is msgtrace's;
#  - an -o that rank 0 cannot create: every rank ends promptly with
#    msgtrace's usage error, whatever the others could do;
#  - a rank whose line is bad (unknown option): every rank ends promptly
#    with a non-zero status, none waits for it;
#  - a rank that cannot open the trace (its path missing there): every
#    rank ends promptly, and rank 0 says that rank's error, the one
#    msgtrace says about that path.
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 MSGTRACE MSGTRACE_MPI TRACEDIR" >&2; exit 2; }
serial=$1 par=$2 trace=$3
# shellcheck source=mpi_env.sh
. "$(dirname "$0")/mpi_env.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-parapart.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
elsewhere=$tmp/missing/out.csv

# job OUT LINE0 -- LINE1: rank 0 runs msgtrace-mpi LINE0, rank 1 LINE1;
# stdout in OUT, stderr in OUT.err, status in OUT.rc.
job() {
	local out=$1
	shift
	par_mpirun "$out" -np 2 bash -c 'par=$1; shift
			for ((i = 1; i <= $#; i++)); do [ "${!i}" != -- ] || break; done
			if [ "${OMPI_COMM_WORLD_RANK:-$PMIX_RANK}" = 0 ]; then
				exec "$par" "${@:1:i-1}"
			fi
			exec "$par" "${@:i+1}"' apart "$par" "$@"
	case $(cat "$out.rc") in
	124|137) echo "FAIL: $out: msgtrace-mpi hung" >&2; fail=1 ;;
	esac
}

"$serial" messages --csv -o "$tmp/serial.csv" "$trace"

job "$tmp/a" messages --csv -o "$tmp/a.csv" "$trace" -- messages --csv -o "$elsewhere" "$trace"
[ "$(cat "$tmp/a.rc")" = 0 ] && cmp -s "$tmp/serial.csv" "$tmp/a.csv" ||
	{ echo "FAIL: an -o only rank 0 can create: status $(cat "$tmp/a.rc")" >&2; cat "$tmp/a.err" >&2; fail=1; }

rc=0
"$serial" messages --csv -o "$elsewhere" "$trace" 2>"$tmp/s.err" || rc=$?
job "$tmp/b" messages --csv -o "$elsewhere" "$trace" -- messages --csv -o "$tmp/b.csv" "$trace"
# (par_mpirun's "lingered": Open MPI 5.0.7's mpirun outliving its failed
# ranks, the status lost.)
case $(cat "$tmp/b.rc") in "$rc"|lingered) b_ended=1 ;; *) b_ended= ;; esac
[ -n "$b_ended" ] && [ "$(head -n 1 "$tmp/b.err")" = "$(cat "$tmp/s.err")" ] ||
	{ echo "FAIL: an -o rank 0 cannot create: status $(cat "$tmp/b.rc"), serial $rc" >&2; cat "$tmp/b.err" >&2; fail=1; }

job "$tmp/c" messages --csv "$trace" -- messages --bogus "$trace"
[ "$(cat "$tmp/c.rc")" != 0 ] ||
	{ echo "FAIL: a bad line on rank 1: status 0" >&2; fail=1; }

rc=0
"$serial" messages --csv "$tmp/missing" 2>"$tmp/d.serial.err" || rc=$?
job "$tmp/d" messages --csv "$trace" -- messages --csv "$tmp/missing"
case $(cat "$tmp/d.rc") in "$rc"|lingered) d_ended=1 ;; *) d_ended= ;; esac
[ -n "$d_ended" ] && [ "$(head -n 1 "$tmp/d.err")" = "$(head -n 1 "$tmp/d.serial.err")" ] ||
	{ echo "FAIL: rank 1 cannot open the trace: status $(cat "$tmp/d.rc"), serial $rc" >&2; cat "$tmp/d.err" >&2; fail=1; }

[ $fail = 0 ] && echo "msgtrace-mpi ranks apart: rank 0's output, no wait"
exit $fail
