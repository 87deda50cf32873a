# mpi_lib.sh - sourced by the MPI benches (mpi_overhead.sh, mpi_instr.sh):
# one 2-rank run of a program untraced, under msgtrace or under EZTrace,
# and the median they report (mpi_setup sets what the others need).

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# mpi_setup NAME BUILD_DIR [BASE_BUILD_DIR]: the arguments of bench NAME
# (build, base: absolute, base empty when not given), bench (mpi_bench),
# prov (PROV, default tcp;ofi_rxm) and work, a directory removed at exit.
mpi_setup() {
	local name=$1
	build=$(cd "${2:?usage: $name.sh BUILD_DIR [BASE_BUILD_DIR]}" && pwd)
	base=${3:+$(cd "$3" && pwd)}
	bench=$build/bench/mpi_bench
	prov=${PROV:-tcp;ofi_rxm}
	[ -x "$bench" ] || { echo "$name: $bench not built (MPI missing?)" >&2; exit 1; }
	[ -z "$base" ] || [ -f "$base/provider/libmsgtrace-fi.so" ] ||
		{ echo "$name: $base/provider/libmsgtrace-fi.so not built" >&2; exit 1; }
	work=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-$name.XXXXXX")
	trap 'rm -rf "$work"' EXIT
}

# mpi_run MODE TRACEDIR PROVIDER_DIR CMD...: mpirun of CMD (a program, or a
# wrapper such as valgrind and its program) with MODE none, msgtrace (the
# hook from PROVIDER_DIR) or eztrace, tracing into TRACEDIR; the program's
# output on stdout (EZTrace's own messages dropped). 2 for another MODE.
mpi_run() {
	local mode=$1 tdir=$2 provdir=$3
	local args=(-np 2 --oversubscribe --mca pml cm --mca mtl ofi
		    --mca mtl_ofi_provider_include "$prov")
	shift 3
	case $mode in
	none) mpirun "${args[@]}" "$@" ;;
	msgtrace)
		FI_PROVIDER_PATH=$provdir FI_HOOK=msgtrace FI_OFI_HOOK_MSGTRACE_DIR=$tdir \
			mpirun "${args[@]}" "$@" ;;
	eztrace)
		(cd "$tdir" && mpirun "${args[@]}" eztrace -o "$tdir" -t openmpi "$@") \
			2>/dev/null ;;
	*) return 2 ;;
	esac
}

# provider_dir MODE: where the hook is, the baseline build's for mode base.
provider_dir() { if [ "$1" = base ]; then echo "$base/provider"; else echo "$build/provider"; fi; }

# median: of the numbers on stdin, one per line.
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
