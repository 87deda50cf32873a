# shellcheck shell=bash
# hosts_lib.sh - test hosts made on this machine (source it after lib.sh).
#
# A test host is a set of namespaces held by one process: its own network
# (a loopback and one interface, mt0, with a 10.77.0.x address), hostname
# (UTS), mounts (its trace directory bind-mounted over one common path,
# $HOSTS_TRACE, and an /etc/hosts naming every test host) and process ids.
# The holder is process 1 of its pid namespace: when it exits every process
# of the host ends with it (/proc stays this machine's, so that the rsh
# agent, run inside one host, can still name the holders of the others), and its network namespace and links vanish. No
# namespace is named in /run/netns and no link is made in this machine's
# own namespace, so nothing outlives the holders; each holder exits when
# its standard input, a pipe whose only writer is the test script, closes:
# a test killed by SIGKILL still leaves nothing behind. Two hosts are joined
# by one veth pair; three or four by a bridge in a namespace of its own.
# Only the hosts' own 10.77.0.x addresses and loopback are used: there is
# no default route, so nothing leaves.
#
# Jobs start on the first host; Open MPI's rsh launcher reaches the others
# through hosts_agent.sh (nsenter into the other host's namespaces; --root
# keeps a chroot's root, such as scripts/debian13's, for the job). Needs
# root, iproute2, util-linux's unshare and nsenter.
#
# A setting for one host only: export MSGTRACE_HOSTS_ENV_<HOST>="NAME=VALUE
# ..." (words without spaces) before hosts_run; hosts_agent.sh sets them for
# the daemon it starts on that host, whose ranks inherit them. Only for
# hosts other than the first (whose ranks mpirun starts itself, in its own
# environment), and only for variables mpirun does not forward (not -x, not
# MCA parameters: those reach every host): e.g. FI_PROVIDER,
# FI_OFI_HOOK_MSGTRACE_CALLSITE.
#
#   hosts_up NAME...     makes the hosts (2 to 4); sets HOSTS_TRACE
#   hosts_exec NAME CMD  runs CMD inside host NAME
#   hosts_run OUT TRACE PROVIDER TAGMODE HOSTSPEC PROGRAM [ARGS...]
#                        mpirun from the first host; TRACE "-" untraced,
#                        else traced into $HOSTS_TRACE on every host
#   hosts_dir NAME       the directory host NAME's trace went to
#   hosts_down           ends every holder (run by the EXIT trap too)

HOSTS_NET=10.77.0
HOSTS_IF=mt0
declare -A HOSTS_PID=()	# holder: process 1 of the host's pid namespace
declare -A HOSTS_UNSHARE=()	# its parent, unshare (--kill-child)
HOSTS_NAMES=()

# hosts_need: the test cannot run without these; say which one is missing.
hosts_need() {
	[ "$(id -u)" = 0 ] || e2e_fail "test hosts need root (network namespaces)"
	local t
	for t in ip unshare nsenter; do
		command -v "$t" >/dev/null || e2e_fail "test hosts need '$t' (iproute2, util-linux)"
	done
}

hosts_down() {
	local n p
	for n in "${HOSTS_NAMES[@]}" _switch; do
		p=${HOSTS_UNSHARE[$n]:-}
		[ -n "$p" ] || continue
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	HOSTS_PID=()
	HOSTS_UNSHARE=()
	[ -z "${HOSTS_ALIVE_FD:-}" ] || exec {HOSTS_ALIVE_FD}>&-
	HOSTS_ALIVE_FD=
}

hosts_cleanup() {
	hosts_down
	e2e_cleanup
}

# holder NAME SETUP: starts a holder running SETUP (sh) as process 1 of new
# namespaces, then waiting for the end of its standard input.
holder() {
	local name=$1 setup=$2
	unshare --net --uts --mount --propagation private --pid --fork \
		--kill-child sh -c "$setup
		echo up >'$E2E_TMP/hosts/$name.up'
		read -r _ || true" <"$E2E_TMP/hosts/alive" >"$E2E_TMP/hosts/$name.log" 2>&1 \
		{HOSTS_ALIVE_FD}>&- &
	HOSTS_UNSHARE[$name]=$!
	local u=$! i
	for i in $(seq 100); do
		[ -e "$E2E_TMP/hosts/$name.up" ] && break
		kill -0 "$u" 2>/dev/null ||
			e2e_fail "host $name did not start: $(cat "$E2E_TMP/hosts/$name.log")"
		sleep 0.1
	done
	[ -e "$E2E_TMP/hosts/$name.up" ] || e2e_fail "host $name did not start within 10 s"
	# unshare forks the holder: process 1 of the new pid namespace, the one
	# whose namespaces nsenter enters.
	HOSTS_PID[$name]=$(tr -d " " <"/proc/$u/task/$u/children")
	[ -n "${HOSTS_PID[$name]}" ] || e2e_fail "host $name: no holder process under unshare $u"
}

# in_ns NAME CMD...: CMD in the network namespace of holder NAME.
in_ns() {
	local p=${HOSTS_PID[$1]}
	shift
	nsenter -t "$p" -n "$@" {HOSTS_ALIVE_FD}>&-
}

hosts_up() {
	hosts_need
	[ $# -ge 2 ] && [ $# -le 4 ] || e2e_fail "hosts_up: 2 to 4 hosts, not $#"
	HOSTS_NAMES=("$@")
	HOSTS_TRACE=$E2E_TMP/trace
	mkdir -p "$E2E_TMP/hosts" "$HOSTS_TRACE"
	trap hosts_cleanup EXIT
	mkfifo "$E2E_TMP/hosts/alive"
	# Read-write: opening does not wait for a reader, and the test script
	# stays the pipe's one writer.
	exec {HOSTS_ALIVE_FD}<>"$E2E_TMP/hosts/alive"
	local i=0 n
	{
		echo "127.0.0.1 localhost"
		for n in "$@"; do
			i=$((i + 1))
			echo "$HOSTS_NET.$i $n"
		done
	} >"$E2E_TMP/hosts/etc_hosts"
	for n in "$@"; do
		mkdir "$E2E_TMP/hosts/$n.trace"
		holder "$n" "set -e
			hostname '$n'
			mount --bind '$E2E_TMP/hosts/$n.trace' '$HOSTS_TRACE'
			mount --bind '$E2E_TMP/hosts/etc_hosts' /etc/hosts
			ip link set lo up"
	done
	i=0
	if [ $# -eq 2 ]; then
		in_ns "$1" ip link add "$HOSTS_IF" type veth peer name "$HOSTS_IF" \
			netns "${HOSTS_PID[$2]}" || e2e_fail "cannot make a veth pair"
	else
		# Without STP (the default) a bridge port forwards once it is up.
		holder _switch "ip link add br0 type bridge && ip link set br0 up"
		for n in "$@"; do
			i=$((i + 1))
			in_ns _switch ip link add "p$i" type veth peer name "$HOSTS_IF" \
				netns "${HOSTS_PID[$n]}" || e2e_fail "cannot make a veth pair"
			in_ns _switch ip link set "p$i" master br0 up
		done
	fi
	i=0
	for n in "$@"; do
		i=$((i + 1))
		in_ns "$n" ip addr add "$HOSTS_NET.$i/24" dev "$HOSTS_IF"
		in_ns "$n" ip link set "$HOSTS_IF" up
	done
	for n in "$@"; do
		hosts_link_ready "$n"
	done
}

# hosts_link_ready NAME: waits until host NAME's interface has its carrier
# (LOWER_UP) and is up: a job started before then finds no usable interface
# for libfabric on that host (Open MPI: "No components were able to be
# opened in the pml framework", or a send failing with MPI_ERR_OTHER).
hosts_link_ready() {
	local i
	for i in $(seq 100); do
		in_ns "$1" ip -o link show "$HOSTS_IF" | grep -q 'LOWER_UP.* state UP ' && return 0
		sleep 0.1
	done
	e2e_fail "host $1: $HOSTS_IF not up within 10 s: $(in_ns "$1" ip -o link show "$HOSTS_IF")"
}

hosts_exec() {
	local p=${HOSTS_PID[$1]}
	shift
	nsenter -t "$p" -n -u -m -p --root --wd="$PWD" "$@" {HOSTS_ALIVE_FD}>&-
}

hosts_dir() {
	echo "$E2E_TMP/hosts/$1.trace"
}

# hosts_run OUT TRACE PROVIDER TAGMODE HOSTSPEC PROGRAM [ARGS...]: as
# e2e_run, over the hosts of HOSTSPEC (mpirun's --host, e.g. hA:2,hB:2),
# started on the first of HOSTS_NAMES. TRACE "-" runs untraced; anything
# else traces into $HOSTS_TRACE, each host's files in its own directory.
# Extra mpirun options come from HOSTS_MPIRUN_EXTRA (an array); E2E_NP, when
# set, starts fewer ranks than HOSTSPEC has slots (MPI_Comm_spawn's room).
# One slot per host maps by node: Open MPI 5 (PRRTE) with --oversubscribe
# otherwise puts every rank on the first host.
hosts_run() {
	local out=$1 trace=$2 provider=$3 mode=$4 spec=$5
	shift 5
	# TMPDIR: Open MPI and PMIx name a job's session directory after the host
	# and mpirun's pid, the same in every hosts test (names hA, hB; each pid
	# namespace numbers from 1): a job beside another hosts test (ctest -j),
	# or after one was killed, would take that test's directory as its own.
	local args env=(FI_TCP_IFACE=$HOSTS_IF FI_SOCKETS_IFACE=$HOSTS_IF
		MSGTRACE_HOSTS_STATE="$E2E_TMP/hosts" TMPDIR="$E2E_TMP/hosts")
	local n
	for n in "${HOSTS_NAMES[@]}"; do
		env+=("MSGTRACE_HOSTS_PID_$n=${HOSTS_PID[$n]}")
	done
	mapfile -t args < <(E2E_NP=${E2E_NP:-$(hosts_np "$spec")} e2e_mpirun_args "$provider" "$mode")
	[[ ",$spec" =~ ^(,[^,:]+:1)+$ ]] && args=(--map-by node "${args[@]}")
	args=(--host "$spec" --mca plm_rsh_agent "$(dirname "${BASH_SOURCE[0]}")/hosts_agent.sh"
		--mca oob_tcp_if_include "$HOSTS_IF" --mca btl_tcp_if_include "$HOSTS_IF"
		-x FI_TCP_IFACE -x FI_SOCKETS_IFACE "${HOSTS_MPIRUN_EXTRA[@]}" "${args[@]}")
	if [ "$trace" != - ]; then
		e2e_need_file "$E2E_PROVIDER_DIR/libmsgtrace-fi.so" "the msgtrace provider"
		env+=(FI_PROVIDER_PATH="$E2E_PROVIDER_DIR" FI_HOOK=msgtrace
			FI_OFI_HOOK_MSGTRACE_DIR="$HOSTS_TRACE")
		args=(-x FI_PROVIDER_PATH -x FI_HOOK -x FI_OFI_HOOK_MSGTRACE_DIR "${args[@]}")
	fi
	env "${env[@]}" timeout --kill-after=15 "${E2E_TIMEOUT:-60}" \
		nsenter -t "${HOSTS_PID[${HOSTS_NAMES[0]}]}" -n -u -m -p --root --wd="$PWD" \
		"${E2E_MPIRUN:-mpirun}" "${args[@]}" "$@" >"$out" 2>"$out.err" \
		{HOSTS_ALIVE_FD}>&-
}

# hosts_run_ok: hosts_run, failing the test unless the job exits 0.
hosts_run_ok() {
	local out=$1 status=0
	hosts_run "$@" || status=$?
	[ $status -eq 0 ] && return 0
	[ -r "$out.err" ] && sed 's/^/    /' "$out.err" | tail -n 30 >&2
	e2e_timed_out $status && e2e_fail "mpirun timed out after ${E2E_TIMEOUT:-60} s: ${*:6}"
	e2e_fail "mpirun exited with status $status: ${*:6}"
}

# hosts_np HOSTSPEC: the ranks HOSTSPEC asks for (hA:2,hB:2 -> 4).
hosts_np() {
	local np=0 h
	for h in ${1//,/ }; do
		np=$((np + ${h#*:}))
	done
	echo $np
}
HOSTS_MPIRUN_EXTRA=()
