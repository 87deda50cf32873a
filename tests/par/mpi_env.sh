# mpi_env.sh (sourced by the par tests): the environment of the analysis's
# own MPI job. It traces nothing (no hook) and runs on one host, its ranks
# talking through shared memory (Open MPI's ob1 over its self and
# shared-memory transports):
#  - TCP left out: in a root without network interfaces of its own (Open
#    MPI 5.0.7 in the Debian 13 root of scripts/debian13) it says on
#    stderr, which the tests compare with msgtrace's, that it found no
#    pairing of interfaces;
#  - libfabric left out (the ofi transport, the cm layer over it): probing
#    its providers took 1.3 s of each MPI_Init's 1.8 on Open MPI 4.1.4,
#    with ob1 over shared memory 0.5.
# shellcheck shell=bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=^tcp,ofi OMPI_MCA_pml=ob1
unset FI_HOOK FI_PROVIDER_PATH

# par_mpirun OUT MPIRUN_ARGS...: `mpirun --oversubscribe --bind-to none
# MPIRUN_ARGS`, stdout in OUT, stderr in OUT.err and its status in OUT.rc:
# mpirun's; 124 (137) when it ran past 50 s and TERM (KILL, 5 s later)
# ended it; "lingered" when it was still running 10 s after its last rank
# had ended, and was killed: Open MPI 5.0.7's mpirun does so at times
# (about 1 run in 7 on a busy machine) once ranks exited with a non-zero
# status (README, Known MPI defects). The caller decides what that may
# mean.
par_mpirun() {
	local out=$1 pid ticks=0 idle=0 seen= rc=
	shift
	mpirun --oversubscribe --bind-to none "$@" >"$out" 2>"$out.err" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 0.2
		ticks=$((ticks + 1))
		if [ $ticks = 250 ]; then
			rc=124
			kill -TERM "$pid" 2>/dev/null || :
		elif [ $ticks = 275 ]; then
			rc=137
			kill -KILL "$pid" 2>/dev/null || :
		elif [ -z "$rc" ]; then
			if par_children_run "$pid"; then
				seen=1 idle=0
			elif [ -n "$seen" ]; then
				idle=$((idle + 1))
			fi
			if [ $idle = 50 ]; then
				rc=lingered
				kill -KILL "$pid" 2>/dev/null || :
			fi
		fi
	done
	local st=0
	wait "$pid" || st=$?
	echo "${rc:-$st}" >"$out.rc"
}

# par_children_run PID: whether a child of PID is running (not a zombie).
par_children_run() {
	ps -o stat= --ppid "$1" | grep -qv '^Z'
}
