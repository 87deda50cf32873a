#!/usr/bin/env bash
# full_hang.sh PROVIDER_DIR MSGTRACE RING_HANG
#
# A trace that ends early: ring_hang's 2 ranks ping-pong for 3 s in the
# default mode with FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=64K (full after about
# 300 records per thread), then rank 0 waits for a tag rank 1 never sends,
# rank 1 in the barrier; killed. The files hold only the first round trips:
# `msgtrace report` must say first that each rank's trace ends there while
# the job went on, and must draw no hang conclusion from the receives
# pending where the buffers filled (no cause, no wait on tag 5 or 6);
# --json marks both processes as ended early, with their spans.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE RING_HANG" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
e2e_need_file "$prog" "ring_hang"
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
mkdir "$E2E_TMP/ready"
trace=$E2E_TMP/trace

# Local ranks inherit mpirun's environment.
FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=64K E2E_NP=2 E2E_TIMEOUT=120 \
	e2e_run "$E2E_TMP/out" "$trace" "tcp;ofi_rxm" full "$prog" "$E2E_TMP/ready" 3 &
job=$!
stop() { e2e_stop_job "$job"; }
trap 'stop; e2e_cleanup' EXIT
for _ in $(seq 240); do
	[ "$(find "$E2E_TMP/ready" -name 'ready.*' | wc -l)" -ge 2 ] && break
	kill -0 "$job" 2>/dev/null || break
	sleep 0.5
done
kill -0 "$job" 2>/dev/null || { sed 's/^/    /' "$E2E_TMP/out.err" | tail -n 20 >&2
	e2e_fail "the job ended by itself: expected it to hang"; }
sleep 1
stop
trips=$(awk '/round trips/ { print $NF; exit }' "$E2E_TMP/out")
[ "${trips:-0}" -gt 1000 ] || e2e_fail "ring_hang made only ${trips:-0} round trips"

"$msgtrace" report "$trace" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report failed"; }
head -n 12 "$E2E_TMP/report"
[ "$(head -n 1 "$E2E_TMP/report")" = "TRACE ENDS EARLY: a buffer filled, records were lost, the job went on" ] ||
	e2e_fail "the report does not start by saying the traces end early"
for r in 0 1; do
	head -n 4 "$E2E_TMP/report" |
		grep -Eq "^  rank $r's trace ends at [0-9]+\.[0-9]{6} s; [1-9][0-9]* records lost after it$" ||
		e2e_fail "the report's first lines do not say where rank $r's trace ends"
done
pending=$(sed -n '/^PENDING/,/^CLOCKS/p' "$E2E_TMP/report")
if echo "$pending" | grep -Eq 'cause:|tag [56]\b'; then
	echo "$pending" >&2
	e2e_fail "a hang concluded from receives pending where the buffers filled"
fi

"$msgtrace" report --json "$trace" >"$E2E_TMP/json" 2>"$E2E_TMP/json.err" ||
	{ cat "$E2E_TMP/json.err" >&2; e2e_fail "msgtrace report --json failed"; }
[ "$(jq '[.run.processes[] | select(.ended_early and .lost > 0 and
	.end_ns <= .last_ns and .first_ns < .end_ns)] | length' "$E2E_TMP/json")" = 2 ] ||
	e2e_fail "--json does not mark both processes as ended early: $(jq -c .run.processes "$E2E_TMP/json")"
[ "$(jq '.hang.waits | length' "$E2E_TMP/json")" = 0 ] ||
	e2e_fail "--json lists waits of ranks whose trace ended early: $(jq -c .hang.waits "$E2E_TMP/json")"
e2e_note "PASS: $trips round trips, both traces end early, no hang concluded"
