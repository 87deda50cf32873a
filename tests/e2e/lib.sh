# shellcheck shell=bash
# lib.sh - shared helpers for the end-to-end test scripts (source it).
#
# Every run goes through e2e_run, which builds the one mpirun command line
# the tests use (Open MPI's cm PML over the OFI MTL, one libfabric provider,
# one tag layout), wraps it in `timeout`, and runs it with or without the
# msgtrace hook. Scripts call e2e_setup first; it makes a scratch directory
# ($E2E_TMP) that is removed on exit unless E2E_KEEP=1.
#
# Settings (environment):
#   E2E_NP        ranks per run (default 4)
#   E2E_TIMEOUT   seconds one mpirun may take (default 60)
#   E2E_KEEP=1    keep $E2E_TMP (logs, traces, outputs) for a post-mortem
#   E2E_MPIRUN    mpirun to use (default: mpirun)
#   E2E_PML       the --mca pml value (default cm; cm,monitoring adds Open
#                 MPI's per-peer message counters)

# Open MPI refuses to run as root unless told it is wanted.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

E2E_NAME=$(basename "$0" .sh)
# E2E_TCP, E2E_RXM: the providers this libfabric offers (fabric.sh).
# shellcheck source=tests/e2e/fabric.sh
. "$(dirname "${BASH_SOURCE[0]}")/fabric.sh"

e2e_fail() {
	echo "$E2E_NAME: FAIL: $*" >&2
	[ -n "${E2E_TMP:-}" ] && [ "${E2E_KEEP:-0}" = 1 ] &&
		echo "$E2E_NAME: files kept in $E2E_TMP" >&2
	exit 1
}

e2e_note() {
	echo "$E2E_NAME: $*"
}

e2e_cleanup() {
	[ -n "${E2E_TMP:-}" ] && [ "${E2E_KEEP:-0}" != 1 ] && rm -rf "$E2E_TMP"
	return 0
}

e2e_setup() {
	E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-e2e.XXXXXX") ||
		e2e_fail "cannot create a scratch directory"
	trap e2e_cleanup EXIT
}

# e2e_need_file PATH WHAT: fail clearly when a build product is missing.
e2e_need_file() {
	[ -e "$1" ] || e2e_fail "$2 not built: $1 does not exist"
}

# e2e_mpirun_args PROVIDER TAGMODE: prints the mpirun options, one a line.
#   PROVIDER  a libfabric provider list for mtl_ofi_provider_include
#             ("$E2E_TCP", "sockets", ...)
#   TAGMODE   full | ofi_tag_1 | ofi_tag_2 (full is forced, not left to
#             auto, so a change in auto's choice cannot go unnoticed)
e2e_mpirun_args() {
	local provider=$1 mode=$2
	case $mode in
	full) mode=ofi_tag_full ;;
	ofi_tag_1 | ofi_tag_2) ;;
	*) e2e_fail "unknown tag mode '$mode' (full, ofi_tag_1, ofi_tag_2)" ;;
	esac
	printf '%s\n' -np "${E2E_NP:-4}" --oversubscribe \
		--mca pml "${E2E_PML:-cm}" --mca mtl ofi \
		--mca mtl_ofi_provider_include "$provider" \
		--mca mtl_ofi_tag_mode "$mode"
	# sockets' automatic progress thread makes each small message take
	# milliseconds; manual progress keeps the runs short.
	case $provider in
	*sockets*) printf '%s\n' --mca mtl_ofi_data_progress manual ;;
	esac
}

# e2e_run OUT TRACEDIR PROVIDER TAGMODE PROGRAM [ARGS...]
# Runs PROGRAM under mpirun with stdout in OUT and stderr in OUT.err.
# TRACEDIR "-" runs without the hook; otherwise the msgtrace hook (from
# $E2E_PROVIDER_DIR) records into TRACEDIR, which must not exist yet.
# Returns mpirun's status (124 or 137 when `timeout` ended it: see
# e2e_timed_out).
e2e_run() {
	local out=$1 tracedir=$2 provider=$3 mode=$4
	shift 4
	local args env=()
	[ -n "$provider" ] ||
		e2e_fail "no libfabric provider: 'fi_info --version' names no libfabric (libfabric-bin installed?)"
	mapfile -t args < <(e2e_mpirun_args "$provider" "$mode")
	if [ "$tracedir" != - ]; then
		e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" \
			"the msgtrace provider"
		mkdir "$tracedir" || e2e_fail "cannot create $tracedir"
		# Call sites, when the test asks for them (callsite.sh).
		[ -z "${FI_OFI_HOOK_MSGTRACE_CALLSITE:-}" ] ||
			args=(-x FI_OFI_HOOK_MSGTRACE_CALLSITE "${args[@]}")
		env=(FI_PROVIDER_PATH="$E2E_PROVIDER_DIR" FI_HOOK=msgtrace
			FI_OFI_HOOK_MSGTRACE_DIR="$tracedir")
		# mpirun passes the environment to every rank.
		args=(-x FI_PROVIDER_PATH -x FI_HOOK -x FI_OFI_HOOK_MSGTRACE_DIR
			"${args[@]}")
		# A test that edits records in place records them uncompacted.
		[ -z "${FI_OFI_HOOK_MSGTRACE_COMPACT:-}" ] ||
			args=(-x FI_OFI_HOOK_MSGTRACE_COMPACT "${args[@]}")
	fi
	env "${env[@]}" timeout --kill-after=15 "${E2E_TIMEOUT:-60}" \
		"${E2E_MPIRUN:-mpirun}" "${args[@]}" "$@" >"$out" 2>"$out.err"
}

# e2e_run_ok: e2e_run, failing the test (with the job's stderr) unless the
# job exits 0.
# e2e_timed_out STATUS: whether the job ran until e2e_run's timeout: 124
# when TERM ended it, 137 when mpirun was still tearing down 15 s later and
# timeout sent KILL (after 5 s, seen on a loaded machine).
e2e_timed_out() {
	[ "$1" -eq 124 ] || [ "$1" -eq 137 ]
}

e2e_run_ok() {
	local out=$1 status=0
	e2e_run "$@" || status=$?
	[ $status -eq 0 ] && return 0
	[ -d "$E2E_TMP" ] ||
		e2e_fail "scratch directory $E2E_TMP vanished during the run (removed by someone else?)"
	[ -r "$out.err" ] && sed 's/^/    /' "$out.err" | tail -n 30 >&2
	e2e_timed_out $status &&
		e2e_fail "mpirun timed out after ${E2E_TIMEOUT:-60} s: ${*:5}"
	e2e_fail "mpirun exited with status $status: ${*:5}"
}

# e2e_run_both OUT TRACEDIR PROGRAM [ARGS...]: PROGRAM untraced (stdout in
# OUT.plain) then traced into TRACEDIR (stdout in OUT), both on $E2E_TCP
# with E2E_NP ranks, each exiting 0; their outputs (lines in any order, as
# ranks interleave them) must be the same.
e2e_run_both() {
	local out=$1 tracedir=$2
	shift 2
	e2e_run_ok "$out.plain" - "$E2E_TCP" full "$@"
	e2e_run_ok "$out" "$tracedir" "$E2E_TCP" full "$@"
	sort "$out.plain" >"$E2E_TMP/a"
	sort "$out" >"$E2E_TMP/b"
	e2e_same_output "$E2E_TMP/a" "$E2E_TMP/b" "traced and untraced output differ"
}

# e2e_check_trace TRACEDIR NP: the hook must have written files for NP
# processes (file names are <host>.<pid>.<thread>.mt).
e2e_check_trace() {
	local dir=$1 np=$2 procs
	procs=$(find "$dir" -name '*.mt' -printf '%f\n' | cut -d. -f1,2 |
		sort -u | wc -l)
	[ "$procs" -eq "$np" ] ||
		e2e_fail "expected trace files from $np processes in $dir, found $procs" \
			"(is FI_HOOK=msgtrace loading $E2E_PROVIDER_DIR/libmsgtrace-fi.so?)"
}

# e2e_same_output EXPECTED ACTUAL WHAT: fail with the diff when they differ.
e2e_same_output() {
	diff -u "$1" "$2" >"$E2E_TMP/diff" && return 0
	sed 's/^/    /' "$E2E_TMP/diff" >&2
	e2e_fail "$3"
}

# e2e_need_subcommand MSGTRACE NAME: fail clearly until `msgtrace NAME`
# exists.
e2e_need_subcommand() {
	e2e_need_file "$1" "the msgtrace command"
	"$1" "$2" --help >/dev/null 2>&1 ||
		e2e_fail "msgtrace $2 not built: '$1 $2 --help' fails"
}

# e2e_messages_csv MSGTRACE TRACEDIR CSV: the trace's messages as CSV.
e2e_messages_csv() {
	"$1" messages "$2" --csv >"$3" 2>"$3.err" && return 0
	sed 's/^/    /' "$3.err" >&2
	e2e_fail "msgtrace messages $2 --csv failed"
}

# e2e_messages_to MSGTRACE OUT ARGS...: `msgtrace messages ARGS` into OUT,
# failing with its stderr.
e2e_messages_to() {
	local msgtrace=$1 out=$2
	shift 2
	"$msgtrace" messages "$@" >"$out" 2>"$out.err" && return 0
	sed 's/^/    /' "$out.err" >&2
	e2e_fail "msgtrace messages $* failed"
}

# e2e_expect_recv_barrier_cause PENDING: the PENDING section of a report
# on hang_recv_barrier (in file PENDING) states the cycle first: rank 0's
# MPI_Recv of tag 99 from rank 1, and rank 1 waiting on rank 0 in the
# barrier.
e2e_expect_recv_barrier_cause() {
	sed -n 2p "$1" | grep -q '^  cause: a cycle' ||
		e2e_fail "the PENDING section does not start with the cycle"
	grep -q '^    rank 0 waits on rank 1: recv user cid 0 tag 99$' "$1" ||
		e2e_fail "the cause does not name rank 0's MPI_Recv from rank 1 (tag 99)"
	grep -Eq '^    rank 1 waits on rank 0: recv coll cid 0 tag -?[0-9]+$' "$1" ||
		e2e_fail "the cause does not name rank 1 waiting on rank 0 in the barrier"
}

# e2e_stop_job JOB: ends a job e2e_run runs in the background (pid JOB):
# its child is `timeout`, and a TERM to it ends mpirun and every rank.
e2e_stop_job() {
	local t
	t=$(pgrep -P "$1" -x timeout || true)
	[ -z "$t" ] || kill -TERM "$t" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}

# e2e_wait_hang JOB READYDIR TRACEDIR NP MSGTRACE OUT [TRACEDIR...]:
# returns once every one of the NP ranks of the background job JOB has created
# READYDIR/ready.RANK (just before its blocking call) and waits in the
# trace (`msgtrace report --json`), the same waits in three reads 0.5 s
# apart (more TRACEDIRs: the trace is all of them, e.g. one per host): a
# collective hangs step by step (a barrier's ranks still pass the
# steps their partners allow), and under load the last steps can come
# after every rank already waits on something. Fails when the job ended by
# itself (showing OUT.err) or when not every rank waits within two minutes.
# E2E_WAITING: how many ranks must wait in the trace, if not all (a hang
# that lets some ranks go on to wait where nothing is posted).
e2e_wait_hang() {
	local job=$1 ready=$2 np=$4 msgtrace=$5 out=$6 waiting=0
	local need=${E2E_WAITING:-$4}
	local trace=("$3" "${@:7}")
	local waits prev='' same=0
	for _ in $(seq 240); do
		[ "$(find "$ready" -name 'ready.*' | wc -l)" -ge "$np" ] && break
		kill -0 "$job" 2>/dev/null || break
		sleep 0.5
	done
	for _ in $(seq 240); do
		kill -0 "$job" 2>/dev/null || break
		waits=$("$msgtrace" report --json "${trace[@]}" 2>/dev/null |
			jq -c '.hang.waits | map([.rank, .what, .on, .any_sender]) | unique' ||
			echo '[]')
		waiting=$(echo "$waits" | jq 'map(.[0]) | unique | length')
		if [ "$waiting" -ge "$need" ] && [ "$waits" = "$prev" ]; then
			same=$((same + 1))
			[ $same -ge 2 ] && break
		else
			same=0
		fi
		prev=$waits
		sleep 0.5
	done
	kill -0 "$job" 2>/dev/null || {
		sed 's/^/    /' "$out.err" | tail -n 20 >&2
		e2e_fail "the job ended by itself: expected it to hang"
	}
	[ "$waiting" -ge "$need" ] || e2e_fail "only $waiting of $np ranks waiting in the trace"
	[ $same -ge 2 ] || e2e_fail "the ranks' waits in the trace still change after two minutes"
}
