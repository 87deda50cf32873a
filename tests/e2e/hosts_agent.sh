#!/bin/sh
# hosts_agent.sh HOST COMMAND... - Open MPI's rsh launcher agent for the
# test hosts of hosts_lib.sh (--mca plm_rsh_agent): runs COMMAND, a shell
# command line as ssh would hand it to the remote shell, inside HOST's
# namespaces. The holder of each host is named by the environment the
# launcher inherits: MSGTRACE_HOSTS_PID_<HOST>. The command stays in the
# launcher's pid namespace (a process may enter only namespaces below its
# own), the first host's: every process of a job ends with that host.
# --root keeps the launcher's root directory (entering a mount namespace
# would otherwise leave a chroot) and --wd its working directory.
# MSGTRACE_HOSTS_ENV_<HOST>, when set, is a list of NAME=VALUE words (no
# spaces inside one) set for COMMAND on that host only: the remote daemon
# passes its environment to the ranks it starts, except for what mpirun
# forwards (-x, MCA parameters), which the ranks get on every host.
host=$1
shift
eval "pid=\${MSGTRACE_HOSTS_PID_$host:-}"
[ -n "$pid" ] || { echo "hosts_agent.sh: no test host named '$host'" >&2; exit 255; }
eval "vars=\${MSGTRACE_HOSTS_ENV_$host:-}"
# shellcheck disable=SC2086,SC2154 # one word per NAME=VALUE; vars set by eval
exec nsenter -t "$pid" -n -u -m --root --wd="$PWD" env $vars /bin/sh -c "$*"
