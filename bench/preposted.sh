#!/usr/bin/env bash
# preposted.sh BUILD_DIR [PINGPONGS] [MSGTRACE] - `msgtrace report` on a real
# traced run with long-lived wildcard receives, against the same run
# without them.
#
# Traces tests/e2e/preposted twice on 2 ranks (Open MPI, pml cm, mtl ofi,
# tcp;ofi_rxm): rank 0 keeps 200 MPI_Irecv(MPI_ANY_SOURCE, tag 999) posted
# during PINGPONGS ping-pongs (default 50,000) with rank 1, satisfied at
# the end; then the same with no receive preposted. Times `msgtrace report`
# on each trace (CPU seconds, user + system: the machine may be shared;
# best of RUNS=5) and prints the ratio (target: 1.5 at most). MSGTRACE picks
# another msgtrace binary (e.g. an older build).
set -euo pipefail
build=${1:?usage: preposted.sh BUILD_DIR [PINGPONGS] [MSGTRACE]}
n=${2:-50000}
mt=${3:-$build/tools/msgtrace}
prog=$build/tests/e2e/preposted
runs=${RUNS:-5}
for f in "$prog" "$mt" "$build/provider/libmsgtrace-fi.so"; do
	[ -e "$f" ] || { echo "preposted.sh: $f not built" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export FI_PROVIDER_PATH=$build/provider FI_HOOK=msgtrace

trace() {	# DIR K
	mkdir "$1"
	FI_OFI_HOOK_MSGTRACE_DIR=$1 mpirun -x FI_PROVIDER_PATH -x FI_HOOK \
		-x FI_OFI_HOOK_MSGTRACE_DIR -np 2 --oversubscribe --mca pml cm \
		--mca mtl ofi --mca mtl_ofi_provider_include "tcp;ofi_rxm" \
		--mca mtl_ofi_tag_mode ofi_tag_full "$prog" --pingpongs "$n" \
		--preposted "$2" > "$1.out"
	cat "$1.out"
}

best() {	# TRACEDIR: best CPU seconds of `msgtrace report` over RUNS
	local b= t TIMEFORMAT='%U %S'
	for _ in $(seq "$runs"); do
		t=$({ time "$mt" report "$1" > /dev/null; } 2>&1)
		b=$(echo "$t ${b:-1e9}" | awk '{ d = $1 + $2; print d < $3 ? d : $3 }')
	done
	echo "$b"
}

trace "$tmp/with" 200
trace "$tmp/without" 0
with=$(best "$tmp/with")
without=$(best "$tmp/without")
"$mt" report "$tmp/with" | sed -n '/^MESSAGES/,/^ *0 truncated/p'
printf 'msgtrace report, %s ping-pongs: %.3f s with 200 receives preposted, %.3f s without (same run); ratio %.2f (target <= 1.5)\n' \
	"$n" "$with" "$without" "$(echo "$with $without" | awk '{ print $1 / $2 }')"
