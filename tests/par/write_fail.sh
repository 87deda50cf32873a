#!/usr/bin/env bash
# write_fail.sh GEN_TRACE MSGTRACE MSGTRACE_MPI - the CSV that every rank
# writes into rank 0's -o, where writing fails on one rank alone (a
# file-size limit on it, as a full disk on its node would). On rank 1,
# whose lines rank 0 leaves room for: rank 0 says what msgtrace says when
# it cannot write its output, with its status. On rank 0, whose pass then
# stops while the others hold lines waiting for their places: the same,
# or, when the lines past the limit all fell to the others, msgtrace's
# whole output. Every rank ends, none waits. The limit, 32 MiB, lets Open MPI's
# shared-memory segment be made (16 MiB in Open MPI 5.0.7) and msgtrace's
# own clock spill file (23 MB here), not the 39 MB of CSV. SIGXFSZ is
# ignored, so that a write past the limit fails (EFBIG) rather than
# killing the process.
set -euo pipefail
[ $# = 3 ] || { echo "usage: $0 GEN_TRACE MSGTRACE MSGTRACE_MPI" >&2; exit 2; }
gen=$1 serial=$2 par=$3
# shellcheck source=mpi_env.sh
. "$(dirname "$0")/mpi_env.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-parwrite.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
limit=32768	# KiB
fail=0

"$gen" "$tmp/trace" 600000 16 >/dev/null
(trap '' XFSZ; ulimit -f $limit
 "$serial" messages -o "$tmp/s.csv" "$tmp/trace" 2>"$tmp/s.err") && rc=0 || rc=$?
[ "$rc" != 0 ] && grep -q 'cannot write the output' "$tmp/s.err" ||
	{ echo "FAIL: msgtrace under the limit: status $rc, $(cat "$tmp/s.err")" >&2; exit 1; }
"$serial" messages -o "$tmp/whole.csv" "$tmp/trace"
for at in 1 0; do
	for n in 2 3; do
		what="np $n, limit on rank $at"
		par_mpirun "$tmp/p" -np $n bash -c 'trap "" XFSZ
			[ "${OMPI_COMM_WORLD_RANK:-$PMIX_RANK}" != '$at' ] ||
				ulimit -f '$limit'
			exec "$@"' write_fail "$par" messages -o "$tmp/p.csv" "$tmp/trace"
		case $(cat "$tmp/p.rc") in
		124|137) echo "FAIL: $what: msgtrace-mpi hung" >&2; fail=1; continue ;;
		0)	if [ $at = 0 ] && cmp -s "$tmp/whole.csv" "$tmp/p.csv" &&
				[ ! -s "$tmp/p.err" ]; then
				echo "$what: rank 0 wrote nothing past the limit: the whole output"
				continue
			fi
			echo "FAIL: $what: status 0, msgtrace's $rc" >&2; fail=1 ;;
		"$rc") ;;
		*) echo "FAIL: $what: status $(cat "$tmp/p.rc"), msgtrace's $rc" >&2; fail=1 ;;
		esac
		head -c "$(wc -c <"$tmp/s.err")" "$tmp/p.err" | cmp -s - "$tmp/s.err" ||
			{ echo "FAIL: $what: said $(head -n 3 "$tmp/p.err")" >&2; fail=1; }
	done
done
[ $fail = 0 ] && echo "a failed write on rank 1, then on rank 0, at np 2 and 3: msgtrace's error, or the whole output when rank 0 wrote nothing past its limit"
exit $fail
