#!/usr/bin/env bash
# full_hang.sh file|ring PROVIDER_DIR MSGTRACE RING_HANG
#
# ring_hang's 2 ranks make 1500 round trips with a small buffer per thread
# (FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE 16K in the default mode, about 180
# records, and a 64K ring), then rank 0
# waits for tag 99, which rank 1 never sends, rank 1 in the barrier; killed.
#   file  the default mode: the files hold only the first round trips.
#         `msgtrace report` must say first that each rank's trace ends there
#         while the job went on, and draw no hang conclusion from the
#         receives pending where the buffers filled (no cause, no wait on
#         tag 5 or 6); --json, messages (a note), the CSV processes file
#         and the Chrome export mark both processes as ended early.
#   ring  FI_OFI_HOOK_MSGTRACE_MODE=ring: each thread keeps its last
#         records, windows starting at different times. The report must say
#         first what time each rank's trace covers and name the root of the
#         hang in its first lines (rank 0 waits on rank 1 for tag 99), with
#         no warning the windows make up (a completion without its post, a
#         ping-pong message never received); --json gives every window.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 4 ] || { echo "usage: $0 file|ring PROVIDER_DIR MSGTRACE RING_HANG" >&2; exit 2; }
mode=$1 E2E_PROVIDER_DIR=$2 msgtrace=$3 prog=$4
E2E_NAME="full_hang[$mode]"
e2e_need_file "$prog" "ring_hang"
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
trace=$E2E_TMP/trace
job=
stop() { [ -z "$job" ] || e2e_stop_job "$job"; job=; }
trap 'stop; e2e_cleanup' EXIT

# hang_run SECONDS TRIPS: ring_hang ping-pongs that long and that many round
# trips at least, hangs, is killed.
# Local ranks inherit mpirun's environment.
hang_run() {
	local size=16K
	[ "$mode" = ring ] && size=64K
	rm -rf "$trace" "$E2E_TMP/ready"
	mkdir "$E2E_TMP/ready"
	FI_OFI_HOOK_MSGTRACE_MODE=$mode FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=$size \
		E2E_NP=2 E2E_TIMEOUT=120 e2e_run "$E2E_TMP/out" "$trace" \
		"tcp;ofi_rxm" full "$prog" "$E2E_TMP/ready" "$1" "$2" &
	job=$!
	for _ in $(seq 240); do
		[ "$(find "$E2E_TMP/ready" -name 'ready.*' | wc -l)" -ge 2 ] && break
		kill -0 "$job" 2>/dev/null || break
		sleep 0.5
	done
	kill -0 "$job" 2>/dev/null || { sed 's/^/    /' "$E2E_TMP/out.err" | tail -n 20 >&2
		e2e_fail "the job ended by itself: expected it to hang"; }
	sleep 1
	stop
}

# 1500 round trips at least, however loaded the machine: ~4500 records a
# rank, which overflow both buffers.
hang_run 1 1500
trips=$(awk '/round trips/ { print $NF; exit }' "$E2E_TMP/out")
[ "${trips:-0}" -ge 1500 ] || e2e_fail "ring_hang made ${trips:-0} round trips, not 1500"

"$msgtrace" report "$trace" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report failed"; }
head -n 12 "$E2E_TMP/report"
# first_lines_per_rank N LINE WHAT: the report's first N lines have
# "  rank R's LINE" for both ranks.
first_lines_per_rank() {
	for r in 0 1; do
		head -n "$1" "$E2E_TMP/report" | grep -Eq "^  rank $r's $2\$" ||
			e2e_fail "the report's first lines do not say $3 of rank $r"
	done
}
report_json() {
	"$msgtrace" report --json "$trace" >"$E2E_TMP/json" 2>"$E2E_TMP/json.err" ||
		{ cat "$E2E_TMP/json.err" >&2; e2e_fail "msgtrace report --json failed"; }
}
if [ "$mode" = ring ]; then
	[ "$(head -n 1 "$E2E_TMP/report")" = "TRACE WINDOWS: these ranks kept their latest records only (ring)" ] ||
		e2e_fail "the report does not start with the traces' windows"
	first_lines_per_rank 3 "trace covers [0-9]+\.[0-9]{6} to [0-9]+\.[0-9]{6} s; [1-9][0-9]* records overwritten" \
		"what the trace covers"
	head -n 8 "$E2E_TMP/report" | grep -q '^    rank 0 waits on rank 1: recv user cid 0 tag 99$' ||
		e2e_fail "the first lines do not name rank 0's receive of tag 99 as the root"
	warnings=$(sed -n '/^WARNINGS/,/^PENDING/p' "$E2E_TMP/report")
	if echo "$warnings" | grep -Eq 'completion without a posted|receive without send|before its send|tag [56] '; then
		echo "$warnings" >&2
		e2e_fail "a warning made up by the windows"
	fi
	report_json
	[ "$(jq '[.run.processes[] | select(.wrapped and .overwritten > 0 and
		.window_start_ns > .first_ns and .window_start_ns < .last_ns)] | length' "$E2E_TMP/json")" = 2 ] ||
		e2e_fail "--json does not give both windows: $(jq -c .run.processes "$E2E_TMP/json")"
	e2e_note "PASS: $trips round trips, both windows said, the root first"
	exit 0
fi
[ "$(head -n 1 "$E2E_TMP/report")" = "TRACE ENDS EARLY: a buffer filled, records were lost, the job went on" ] ||
	e2e_fail "the report does not start by saying the traces end early"
first_lines_per_rank 4 "trace ends at [0-9]+\.[0-9]{6} s; [1-9][0-9]* records lost after it" \
	"where the trace ends"
pending=$(sed -n '/^PENDING/,/^CLOCKS/p' "$E2E_TMP/report")
if echo "$pending" | grep -Eq 'cause:|tag [56]\b'; then
	echo "$pending" >&2
	e2e_fail "a hang concluded from receives pending where the buffers filled"
fi

report_json
[ "$(jq '[.run.processes[] | select(.ended_early and .lost > 0 and
	.end_ns <= .last_ns and .first_ns < .end_ns)] | length' "$E2E_TMP/json")" = 2 ] ||
	e2e_fail "--json does not mark both processes as ended early: $(jq -c .run.processes "$E2E_TMP/json")"
[ "$(jq '.hang.waits | length' "$E2E_TMP/json")" = 0 ] ||
	e2e_fail "--json lists waits of ranks whose trace ended early: $(jq -c .hang.waits "$E2E_TMP/json")"
# messages and the exports say it too, per rank.
"$msgtrace" messages "$trace" >/dev/null 2>"$E2E_TMP/messages.err"
[ "$(grep -Ec "rank [01]'s trace covers [0-9.]+ to [0-9.]+ s, ends early at [0-9.]+ s: [1-9][0-9]* records lost after it" \
	"$E2E_TMP/messages.err")" = 2 ] || e2e_fail "messages does not say where both traces end: $(cat "$E2E_TMP/messages.err")"
"$msgtrace" export --csv -o "$E2E_TMP/x" "$trace" 2>/dev/null
[ "$(awk -F, 'NR > 1 && $7 == 1 && $8 <= $3 && $9 > 0' "$E2E_TMP/x.processes.csv" | wc -l)" = 2 ] ||
	e2e_fail "processes.csv does not mark both traces as ending early: $(cat "$E2E_TMP/x.processes.csv")"
"$msgtrace" export --chrome -o "$E2E_TMP/c.json" "$trace" 2>/dev/null
[ "$(jq '[.traceEvents[] | select(.name == "process_labels" and .args.ended_early and
	(.args.labels | test("ends early")))] | length' "$E2E_TMP/c.json")" = 2 ] ||
	e2e_fail "the Chrome export does not label both traces as ending early"
e2e_note "PASS: $trips round trips, both traces end early (said by the report, --json, messages, CSV and Chrome), no hang concluded"
