#!/usr/bin/env bash
# ring_hang.sh PROVIDER_DIR MSGTRACE RING_HANG
#
# The flight recorder on a real job that ends in a hang (ring_hang.c):
# 2 ranks ping-pong for 1 s and at least 3000 round trips (~800 KB of
# records per rank), traced with FI_OFI_HOOK_MSGTRACE_MODE=ring and a
# 128 KiB ring, then rank 0 waits for tag 99, which rank 1 never sends.
# Once both wait in the trace the job is killed. The trace must be
# readable (msgtrace report and dump succeed), every file a ring (version
# 4) that wrapped and stays within its ring and pinned area, each rank's
# pinned records (PROC, EP, AV) intact, the records recorded (kept +
# overwritten) at least the 2 OPs per round trip each rank counted, and
# the last records there: the report names rank 0's receive of tag 99.
# Every output (report, --json, --html, messages, watch, the CSV, Chrome
# and OTF2 exports) says each rank's trace is a window and what it covers.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE RING_HANG" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
ring=131072
e2e_need_file "$prog" "ring_hang"
e2e_need_subcommand "$msgtrace" report
command -v jq >/dev/null || e2e_fail "jq not found (Debian package jq)"
e2e_setup
mkdir "$E2E_TMP/ready"
trace=$E2E_TMP/trace

export FI_OFI_HOOK_MSGTRACE_MODE=ring FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=$ring
E2E_NP=2 E2E_TIMEOUT=300 e2e_run "$E2E_TMP/out" "$trace" "tcp;ofi_rxm" full \
	"$prog" "$E2E_TMP/ready" 1 3000 &
job=$!
trap 'e2e_stop_job "$job"; e2e_cleanup' EXIT
e2e_wait_hang "$job" "$E2E_TMP/ready" "$trace" 2 "$msgtrace" "$E2E_TMP/out"
e2e_stop_job "$job"

# Header fields (trace/mt_format.h, struct mt_file_hdr).
u32() { od -A n -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
u64() { od -A n -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
over=0
for f in "$trace"/*.mt; do
	[ "$(u32 "$f" 8)" = 4 ] || e2e_fail "$(basename "$f"): format version $(u32 "$f" 8), not a ring (4)"
	[ "$(u64 "$f" 112)" = $ring ] || e2e_fail "$(basename "$f"): ring of $(u64 "$f" 112) bytes, want $ring"
	size=$(stat -c %s "$f")
	# The header, the ring, the pinned area's first chunk (64 KiB).
	[ "$size" -le $((4096 + ring + 65536)) ] ||
		e2e_fail "$(basename "$f"): $size bytes, more than the ring and its pinned area"
	over=$((over + $(u64 "$f" 144)))
done
[ "$over" -gt 0 ] || e2e_fail "no ring wrapped: 0 records overwritten"

"$msgtrace" dump --summary "$trace" >"$E2E_TMP/summary" 2>"$E2E_TMP/summary.err" ||
	{ cat "$E2E_TMP/summary.err" >&2; e2e_fail "msgtrace dump --summary failed on the ring trace"; }
for r in 0 1; do
	line=$(awk -v r="$r" '$1 == "rank" && $2 == r { getline; print; exit }' "$E2E_TMP/summary")
	for kind in proc ep av; do
		echo "$line" | grep -Eq " $kind [1-9]" ||
			e2e_fail "rank $r: no $kind record kept (pinned records lost): $line"
	done
done
kept=$(awk '/records:/ { for (i = 2; i < NF; i += 2) if ($i == "op") k += $(i + 1) } END { print k + 0 }' "$E2E_TMP/summary")
trips=$(awk '/round trips/ { s += $NF } END { print s + 0 }' "$E2E_TMP/out")
[ "$trips" -ge 6000 ] || e2e_fail "the program counted $trips round trips, want 2 x 3000"
# OPs and CQEs share the ring: every OP kept, or overwritten among them.
[ $((kept + over)) -ge $((2 * trips)) ] ||
	e2e_fail "recorded $kept OPs kept + $over overwritten records, fewer than 2 OPs per round trip ($trips)"

"$msgtrace" report "$trace" >"$E2E_TMP/report" 2>"$E2E_TMP/report.err" ||
	{ cat "$E2E_TMP/report.err" >&2; e2e_fail "msgtrace report failed on the ring trace"; }
grep -q "rank 0 waits on rank 1: recv user cid 0 tag 99" "$E2E_TMP/report" || {
	sed -n '/^PENDING/,/^$/p' "$E2E_TMP/report" >&2
	e2e_fail "the report does not show rank 0 waiting for tag 99: the hang's records are missing"
}
# Every output says, per rank, what time its trace covers and that it is a
# window (records overwritten before it): both ranks' rings wrapped.
win() { # WHAT COUNT: COUNT of 2 ranks said to be a window
	[ "$2" = 2 ] || e2e_fail "$1: $2 of 2 ranks said to hold a window"
}
"$msgtrace" report --json "$trace" >"$E2E_TMP/report.json" 2>/dev/null
win "report --json" "$(jq '[.run.processes[] | select(.wrapped and .overwritten > 0 and
	.window_start_ns > .first_ns and .last_ns > .window_start_ns)] | length' "$E2E_TMP/report.json")"
win report "$(grep -Ec "^  rank [01]'s trace covers [0-9.]+ to [0-9.]+ s; [1-9][0-9]* records overwritten" "$E2E_TMP/report")"
"$msgtrace" messages "$trace" >/dev/null 2>"$E2E_TMP/messages.err"
win messages "$(grep -Ec "rank [01]'s trace covers [0-9.]+ to [0-9.]+ s, a window: [1-9][0-9]* records overwritten before it" "$E2E_TMP/messages.err")"
"$msgtrace" watch --once "$trace" >"$E2E_TMP/watch" 2>/dev/null
win watch "$(grep -Ec "^  rank [01]'s trace covers [0-9.]+ to [0-9.]+ s, a window: [1-9]" "$E2E_TMP/watch")"
"$msgtrace" export --csv -o "$E2E_TMP/x" "$trace" 2>/dev/null
win "export --csv" "$(awk -F, 'NR > 1 && $4 == 1 && $5 > $2 && $6 > 0' "$E2E_TMP/x.processes.csv" | wc -l)"
"$msgtrace" export --chrome -o "$E2E_TMP/c.json" "$trace" 2>/dev/null
win "export --chrome" "$(jq '[.traceEvents[] | select(.name == "process_labels" and .args.window and
	.args.overwritten > 0 and (.args.labels | test("a window")))] | length' "$E2E_TMP/c.json")"
"$msgtrace" report --html -o "$E2E_TMP/r.html" "$trace" 2>/dev/null
win "report --html" "$(sed -n 's/.*<section id="spans">\(.*\)<\/section>.*/\1/p' "$E2E_TMP/r.html" |
	grep -o '<td class="warn">[1-9][0-9]* (a window)</td>' | wc -l)"
"$msgtrace" export --otf2 -o "$E2E_TMP/o" "$trace" 2>/dev/null
if command -v otf2-print >/dev/null; then
	win "export --otf2" "$(otf2-print -G "$E2E_TMP"/o/*.otf2 |
		grep -c 'Name: "msgtrace::window" <[0-9]*>, Type: UINT8, Value: 1$')"
fi

e2e_note "ok: $trips round trips, $over records overwritten, $kept OPs kept, hang at the end, windows said by every output"
