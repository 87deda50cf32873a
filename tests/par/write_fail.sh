#!/usr/bin/env bash
# write_fail.sh GEN_TRACE MSGTRACE MSGTRACE_MPI - the CSV that the other
# ranks write into rank 0's -o, where writing fails on one of them alone (a
# file-size limit on rank 1, as a full disk on its node would): every rank
# ends, none waits, and rank 0 says what msgtrace says when it cannot write
# its output, with its status. The limit, 32 MiB, lets Open MPI's
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
for n in 2 3; do
	par_mpirun "$tmp/p" -np $n bash -c 'trap "" XFSZ
		[ "${OMPI_COMM_WORLD_RANK:-$PMIX_RANK}" != 1 ] || ulimit -f '$limit'
		exec "$@"' write_fail "$par" messages -o "$tmp/p.csv" "$tmp/trace"
	case $(cat "$tmp/p.rc") in
	124|137) echo "FAIL: np $n: msgtrace-mpi hung" >&2; fail=1; continue ;;
	"$rc") ;;
	*) echo "FAIL: np $n: status $(cat "$tmp/p.rc"), msgtrace's $rc" >&2; fail=1 ;;
	esac
	head -c "$(wc -c <"$tmp/s.err")" "$tmp/p.err" | cmp -s - "$tmp/s.err" ||
		{ echo "FAIL: np $n: said $(head -n 3 "$tmp/p.err")" >&2; fail=1; }
done
[ $fail = 0 ] && echo "a failed write on rank 1: msgtrace's error at np 2 and 3"
exit $fail
