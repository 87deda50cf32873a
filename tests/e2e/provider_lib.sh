# provider_lib.sh - shared by the provider_*.sh e2e tests (sourced).
# Arguments of every test: $1 = directory of libmsgtrace-fi.so,
# $2 = build directory of tests/e2e (provider_pingpong, provider_mtcheck),
# $3 = the msgtrace command (its reader cross-checks provider_mtcheck).
set -euo pipefail
# E2E_TCP, E2E_RXM: the providers this libfabric offers.
# shellcheck source=tests/e2e/fabric.sh
. "$(dirname "${BASH_SOURCE[0]}")/fabric.sh"

provdir=$1
bindir=$2
msgtrace=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

fail() { echo "FAIL: $*" >&2; exit 1; }

# run_pp NAME=VALUE... -- PINGPONG_ARGS...: a 2-rank run through the OFI
# MTL over PP_PROVIDER (default $E2E_TCP, fabric.sh); each NAME=VALUE is set
# for the ranks.
run_pp() (
	local xs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		export "${1?}"
		xs+=(-x "${1%%=*}")
		shift
	done
	[ $# -gt 0 ] && shift
	exec timeout 120 mpirun --oversubscribe -np 2 --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include "${PP_PROVIDER:-$E2E_TCP}" "${xs[@]}" \
		"$bindir/provider_pingpong" "$@"
)

# check_dir DIR: validates every trace file there; facts on stdout.
check_dir() {
	local files=("$1"/*.mt)
	[ -e "${files[0]}" ] || fail "no trace files in $1"
	"$bindir/provider_mtcheck" "${files[@]}" || fail "invalid trace file in $1"
}
