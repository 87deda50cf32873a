#!/usr/bin/env bash
# hosts_hang.sh PROVIDER_DIR MSGTRACE HANG_RECV_BARRIER - a hang across two
# test hosts (hosts_lib.sh): hang_recv_barrier on 4 ranks mapped by node
# (ranks 0 and 2 on hA, 1 and 3 on hB), so that the cycle at its root, rank
# 0's MPI_Recv of tag 99 from rank 1 and rank 1's barrier waiting on rank
# 0, runs between the hosts. Once every rank waits in the trace of both
# hosts' directories, the job is killed; `msgtrace report` on the two
# directories must state the cycle first, naming both waits, and --json
# must give one root, a cycle through ranks 0 and 1 that all 4 ranks wait
# on.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/hosts_lib.sh"
[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE HANG_RECV_BARRIER" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
E2E_NAME=hosts_hang
np=4
e2e_need_file "$prog" hang_recv_barrier
e2e_need_subcommand "$msgtrace" report
e2e_setup
hosts_up hA hB
a=$(hosts_dir hA) b=$(hosts_dir hB)
mkdir "$E2E_TMP/ready"
HOSTS_MPIRUN_EXTRA=(--map-by node)
hosts_run "$E2E_TMP/out" trace "$E2E_TCP" full hA:2,hB:2 "$prog" "$E2E_TMP/ready" &
job=$!
trap 'e2e_stop_job "$job"; hosts_cleanup' EXIT
e2e_wait_hang "$job" "$E2E_TMP/ready" "$a" $np "$msgtrace" "$E2E_TMP/out" "$b"
e2e_stop_job "$job"
trap hosts_cleanup EXIT

"$msgtrace" report "$b" "$a" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report failed on the killed job's trace"; }
sed -n '/^PENDING/,/^CLOCKS/p' "$E2E_TMP/report" | sed '$d' | sed '$d' >"$E2E_TMP/pending"
cat "$E2E_TMP/pending"
e2e_expect_recv_barrier_cause "$E2E_TMP/pending"
"$msgtrace" report --json "$a" "$b" >"$E2E_TMP/report.json" || e2e_fail "msgtrace report --json failed"
jq -e --argjson np $np '.hang.roots | length == 1 and .[0].type == "cycle" and
	.[0].ranks_in_it + .[0].waiters == $np and
	(.[0].waits | map(.rank) | index(0) != null and index(1) != null)' \
	"$E2E_TMP/report.json" >/dev/null ||
	e2e_fail "the root is not one cycle through ranks 0 and 1 that all $np ranks wait on: $(jq -c .hang.roots "$E2E_TMP/report.json")"
jq -e '[.pairs[] | select(.send_rank == 1 and .recv_rank == 0)][0] |
	.send_host == "hB" and .recv_host == "hA"' "$E2E_TMP/report.json" >/dev/null ||
	e2e_fail "ranks 0 and 1 are not on hA and hB: $(jq -c .pairs "$E2E_TMP/report.json")"
e2e_note "the cycle between hA and hB stated first"
