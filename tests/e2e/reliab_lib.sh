# reliab_lib.sh - shared by the reliab_*.sh fault tests (source it after
# setting nothing; it reads the three arguments every reliab test gets):
#   $1 directory of libmsgtrace-fi.so   $2 the msgtrace command
#   $3 build directory of tests/e2e (reliab_mix, reliab_threads)
# On top of lib.sh it runs jobs with any msgtrace parameter set, with
# FI_LOG_LEVEL=warn so that the hook's FI_WARN lines reach the job's stderr,
# and counts those lines per process.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -ge 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE BINDIR" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 bindir=$3
mix=$bindir/reliab_mix threads=$bindir/reliab_threads
e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" "the msgtrace provider"
e2e_need_file "$msgtrace" "the msgtrace command"
e2e_need_file "$mix" "reliab_mix"
e2e_setup
RELIAB_PROVIDER=${RELIAB_PROVIDER:-$E2E_TCP}
export E2E_NP=${E2E_NP:-2}

# reliab_run OUT TRACEDIR [NAME=VALUE...] -- PROGRAM [ARGS...]
# Runs PROGRAM under mpirun (stdout in OUT, stderr in OUT.err, exit status
# in OUT.rc) and returns 0 whatever the job did. TRACEDIR "-" runs without
# the hook; otherwise FI_OFI_HOOK_MSGTRACE_DIR=TRACEDIR is passed as is
# (nothing is created: the hook must cope). NAME=VALUE pairs are set for
# every rank.
reliab_run() {
	local out=$1 tracedir=$2 args xs=() status=0
	shift 2
	mapfile -t args < <(e2e_mpirun_args "$RELIAB_PROVIDER" full)
	# Extra mpirun options, space-separated (reliab_tsan.sh).
	# shellcheck disable=SC2206
	args+=(${RELIAB_MPIRUN_ARGS:-})
	local env=(FI_LOG_LEVEL=warn)
	if [ "$tracedir" != - ]; then
		env+=(FI_PROVIDER_PATH="$E2E_PROVIDER_DIR" FI_HOOK=msgtrace
			FI_OFI_HOOK_MSGTRACE_DIR="$tracedir")
	fi
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		env+=("$1")
		shift
	done
	shift
	for v in "${env[@]}"; do
		xs+=(-x "${v%%=*}")
	done
	# The limit catches hangs only: at load 11 on 2 cores, a 5,000-iteration
	# untraced reliab_mix passed 60 s (e2e_reliab_diskfull_fsize).
	env "${env[@]}" timeout --kill-after=5 "${E2E_TIMEOUT:-150}" \
		"${E2E_MPIRUN:-mpirun}" "${xs[@]}" "${args[@]}" "$@" \
		>"$out" 2>"$out.err" || status=$?
	echo "$status" >"$out.rc"
}

# reliab_plain PROGRAM [ARGS...]: the untraced run every comparison uses,
# in plain.out; fails the test unless it succeeds.
reliab_plain() {
	reliab_run plain.out - -- "$@"
	[ "$(cat plain.out.rc)" = 0 ] ||
		e2e_fail "untraced run failed (status $(cat plain.out.rc)): $(tail -5 plain.out.err)"
}

# reliab_same_as_plain PLAIN TRACED: same sorted stdout and exit status
# (ranks' lines reach mpirun's stdout in no fixed order).
reliab_same_as_plain() {
	local p=$1 t=$2
	[ "$(cat "$p.rc")" = "$(cat "$t.rc")" ] ||
		e2e_fail "exit status $(cat "$t.rc") with the hook, $(cat "$p.rc") without"
	# Open MPI 5.0.7's launcher at times writes a NUL byte before the line
	# of a rank that calls MPI_Abort, untraced too: not the program's output.
	tr -d '\000' <"$p" | sort >"$p.sorted"
	tr -d '\000' <"$t" | sort >"$t.sorted"
	e2e_same_output "$p.sorted" "$t.sorted" \
		"output differs with the msgtrace hook (- without, + with)"
}

# reliab_warned ERRFILE REGEX NPROC: exactly NPROC processes logged a
# msgtrace FI_WARN line matching REGEX, each exactly once.
reliab_warned() {
	local err=$1 re=$2 np=$3 lines procs
	lines=$(grep -E 'ofi_hook_msgtrace' "$err" | grep -cE "$re" || true)
	procs=$({ grep -E 'ofi_hook_msgtrace' "$err" || true; } |
		{ grep -E "$re" || true; } | cut -d: -f2 | sort -u | wc -l)
	if [ "$lines" -ne "$np" ] || [ "$procs" -ne "$np" ]; then
		sed 's/^/    /' "$err" | tail -n 20 >&2
		e2e_fail "expected one warning /$re/ from each of $np processes, got $lines lines from $procs"
	fi
}

# reliab_warned_some ERRFILE REGEX: at least one process logged a msgtrace
# FI_WARN line matching REGEX, and none logged it twice.
reliab_warned_some() {
	local err=$1 re=$2 lines procs
	lines=$(grep -E 'ofi_hook_msgtrace' "$err" | grep -cE "$re" || true)
	procs=$({ grep -E 'ofi_hook_msgtrace' "$err" || true; } |
		{ grep -E "$re" || true; } | cut -d: -f2 | sort -u | wc -l)
	if [ "$procs" -lt 1 ] || [ "$lines" -ne "$procs" ]; then
		sed 's/^/    /' "$err" | tail -n 20 >&2
		e2e_fail "expected one warning /$re/ from each process that hit it, got $lines lines from $procs"
	fi
}

# reliab_no_warning ERRFILE: the hook logged nothing.
reliab_no_warning() {
	if grep -q ofi_hook_msgtrace "$1"; then
		sed 's/^/    /' "$1" >&2
		e2e_fail "unexpected msgtrace warnings"
	fi
}

# reliab_summary_field TRACEDIR FIELD: FIELD ("full", "nospace", "nofile",
# "op", "cqe" ...) summed over every rank of `msgtrace dump --summary`.
reliab_summary_sum() {
	"$msgtrace" dump --summary "$1" |
		awk -v f="$2" '{ for (i = 1; i < NF; i++) if ($i == f) s += $(i + 1) }
			END { print s + 0 }'
}

# reliab_user_ops TRACEDIR RANK TAG: "<sends> <receives posted>" of the
# application layer with MPI tag TAG (the low 32 bits of the fabric tag in
# ofi_tag_full mode) in rank RANK's files.
reliab_user_ops() {
	"$msgtrace" dump --kind op --rank "$2" "$1" |
		awk -v tag="$(printf '%08x' "$3")" '
		$4 == "app" {
			t = ""
			for (i = 6; i <= NF; i++) if ($i ~ /^tag=0x/) t = substr($i, 15)
			if (t != tag) next
			if ($6 ~ /^(tsend|tinject)/) s++
			else if ($6 ~ /^trecv/ && $0 !~ /FI_PEEK/) r++
		}
		END { print s + 0, r + 0 }'
}
