#!/usr/bin/env bash
# no_mpi.sh FILE... - none of these (the serial msgtrace, the provider)
# loads an MPI library: only msgtrace-mpi may (ldd's view of their
# dependencies, the indirect ones included).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 FILE..." >&2; exit 2; }
fail=0
for f in "$@"; do
	libs=$(ldd "$f") || { echo "FAIL: ldd $f" >&2; fail=1; continue; }
	if grep -Ei 'lib(mpi|mpich|open-pal|open-rte|pmix|prrte)' <<<"$libs" >&2; then
		echo "FAIL: $f loads MPI (above)" >&2
		fail=1
	fi
done
[ $fail = 0 ] && echo "no MPI library in $*"
exit $fail
