#!/usr/bin/env bash
# run.sh CHECK MSGTRACE RUN_JOB: `msgtrace run -- mpirun ...`
#   trace     with no other setting traces an Open MPI job, and what it
#             says agrees with the program's own log; the user's Open MPI
#             settings are kept (pml, provider)
#   exit      the launcher's exit status comes through (a rank exiting 3, a
#             rank killed by a signal): the same as mpirun's own, untraced
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 trace|exit MSGTRACE RUN_JOB" >&2; exit 2; }
check=$1 msgtrace=$2 run_job=$3
E2E_NAME="run[$check]"
for f in "$msgtrace" "$run_job"; do e2e_need_file "$f" "$(basename "$f")"; done
e2e_setup
cd "$E2E_TMP"
# Nothing of the test suite's own: only what a user has.
unset FI_PROVIDER_PATH FI_HOOK FI_OFI_HOOK_MSGTRACE_DIR FI_PROVIDER "${!OMPI_MCA_@}"
mpirun=(mpirun -np 4 --oversubscribe)
limit=(timeout --kill-after=5 "${E2E_TIMEOUT:-60}")

# traced NAME ARGS...: msgtrace run ARGS, stdout in NAME.out, stderr in
# NAME.err; its exit status in $status.
traced() {
	local name=$1
	shift
	status=0
	# timeout's TERM goes to msgtrace run, which hands it to mpirun.
	"${limit[@]}" "$msgtrace" run "$@" >"$name.out" 2>"$name.err" || status=$?
}
show() { sed 's/^/    /' "$1" | tail -n 30 >&2; }

# No setting at all: a trace that accounts for every logged message.
trace() {
	mkdir log
	traced job -- "${mpirun[@]}" "$run_job" --log log ok
	[ $status -eq 0 ] || { show job.err; e2e_fail "msgtrace run exited $status"; }
	dir=$(sed -n 's/^msgtrace run: trace in \([^ ]*\) .*/\1/p' job.err)
	[ -n "$dir" ] && [ -d "$dir" ] || { show job.err; e2e_fail "no trace location said"; }
	e2e_check_trace "$dir" 4
	grep -q "msgtrace" job.out && e2e_fail "msgtrace printed into the job's stdout"
	e2e_messages_csv "$msgtrace" "$dir" messages.csv
	"$here/compare_log_csv.sh" log messages.csv ||
		e2e_fail "the trace msgtrace run made disagrees with the program's log"
	user=$(cat log/rank*.log | grep -c '^SEND')
	grep -qE "^  [0-9]+ messages \($user user, " job.err ||
		{ show job.err; e2e_fail "the summary does not count the $user logged user messages"; }
	grep -q ", 0 lost" job.err || { show job.err; e2e_fail "records lost"; }
	grep -q "hang suspects: none" job.err || { show job.err; e2e_fail "hang suspects"; }
	e2e_note "traced with no setting: $user user messages logged, summary agrees"
}

# Exit status: as mpirun's own for the same job untraced (over the
# provider msgtrace run picks, so that only the hook differs).
exit_status() {
	"$msgtrace" run -- true 2>picked.err
	provider=$(sed -n 's/.*mtl_ofi_provider_include=\([^ ;]*\(;ofi_rxm\)\?\).*/\1/p' picked.err)
	[ -n "$provider" ] || e2e_fail "no provider said: $(head -1 picked.err)"
	for how in "exit 3" "signal 9"; do
		# shellcheck disable=SC2086
		plain=0
		"${limit[@]}" "${mpirun[@]}" --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include \
			"$provider" "$run_job" $how >plain.out 2>&1 || plain=$?
		[ $plain -ne 0 ] || e2e_fail "run_job $how: mpirun exited 0 untraced"
		# shellcheck disable=SC2086
		traced exit -- "${mpirun[@]}" "$run_job" $how
		[ $status -eq $plain ] ||
			{ show exit.err; e2e_fail "run_job $how: msgtrace run exited $status, mpirun $plain"; }
		grep -q "trace in " exit.err || { show exit.err; e2e_fail "run_job $how: no trace"; }
		e2e_note "run_job $how: exit status $status, as untraced"
	done
}

# The user's settings stay: --mca pml ob1 on mpirun's command line (no
# libfabric, so nothing traced, and said), a provider in the environment.
settings() {
	traced ob1 -- "${mpirun[@]}" --mca pml ob1 "$run_job" ok
	[ $status -eq 0 ] || { show ob1.err; e2e_fail "pml ob1: exit $status"; }
	grep -q "yours kept: pml" ob1.err && grep -q "nothing was traced" ob1.err &&
		grep -q "ob1 or ucx" ob1.err || { show ob1.err; e2e_fail "pml ob1 not kept or not explained"; }
	OMPI_MCA_mtl_ofi_provider_include=sockets OMPI_MCA_mtl_ofi_data_progress=manual \
		traced sockets -- "${mpirun[@]}" "$run_job" ok
	[ $status -eq 0 ] || { show sockets.err; e2e_fail "sockets: exit $status"; }
	grep -q "provider sockets" sockets.err || { show sockets.err; e2e_fail "the user's provider not used"; }
	e2e_note "the user's pml and provider kept"
}

case $check in
trace) trace; settings ;;
exit) exit_status ;;
*) e2e_fail "unknown check '$check' (trace, exit)" ;;
esac
