#!/usr/bin/env bash
# reliab_soak.sh PROVIDER_DIR MSGTRACE BINDIR
# A traced 4-rank reliab_mix job of continuous mixed traffic (ring
# point-to-point, probes, allreduce, bcast, barrier) for RELIAB_SOAK_SECONDS
# (default 20; tools/soak runs 120 and more). Every RELIAB_SOAK_EVERY
# seconds (default 1) the RSS of each rank is read from /proc: RssAnon (heap
# and stacks: what tracing could leak) and RssFile (mapped pages, the trace
# files among them: they grow with the trace and are page cache the kernel
# writes back). Passes when the job succeeds, each rank's RssAnon stays
# within 4 MiB + 5% of its value once the job is warm (a quarter of the
# way in), and `msgtrace dump --summary` and `msgtrace dump` read the
# whole trace, their peak memory printed next to the trace size.
# The table of samples goes to RELIAB_SOAK_LOG (default: the scratch dir).
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
export E2E_NP=4
secs=${RELIAB_SOAK_SECONDS:-20} every=${RELIAB_SOAK_EVERY:-1}
log=${RELIAB_SOAK_LOG:-$E2E_TMP/soak.tsv}
mkdir progress
E2E_TIMEOUT=$((secs + 120)) reliab_run traced.out "$E2E_TMP/trace" -- \
	"$mix" --seconds "$secs" --progress "$E2E_TMP/progress" &
job=$!
for _ in $(seq 300); do
	[ "$(ls progress/*.pid 2>/dev/null | wc -l)" -eq "$E2E_NP" ] && break
	sleep 0.1
done
pids=$(cat progress/rank*.pid)
printf 't_s\trank\tpid\trss_anon_kb\trss_file_kb\titerations\ttrace_mb\n' >"$log"
t0=$(date +%s)
while kill -0 $job 2>/dev/null; do
	t=$(($(date +%s) - t0))
	r=0
	mb=$(du -sm trace 2>/dev/null | cut -f1)
	for p in $pids; do
		anon=$(awk '/^RssAnon/ {print $2}' /proc/"$p"/status 2>/dev/null || true)
		file=$(awk '/^RssFile/ {print $2}' /proc/"$p"/status 2>/dev/null || true)
		it=$({ tail -n 1 progress/rank$r.progress 2>/dev/null || true; } | cut -d' ' -f1)
		[ -n "$anon" ] && printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$t" "$r" "$p" \
			"$anon" "$file" "${it:-0}" "$mb" >>"$log"
		r=$((r + 1))
	done
	sleep "$every"
done
wait $job || true
[ "$(cat traced.out.rc)" = 0 ] ||
	{ tail -n 20 traced.out.err >&2; e2e_fail "soak job failed (status $(cat traced.out.rc))"; }
reliab_no_warning traced.out.err

# RssAnon per rank: the sample at a quarter of the run, then the maximum.
awk -v warm=$((secs / 4)) -F'\t' 'NR > 1 {
	if ($1 >= warm && !($2 in base)) base[$2] = $4
	if ($1 >= warm && $4 > max[$2]) max[$2] = $4
	last[$2] = $4; lt[$2] = $1
}
END {
	bad = 0
	for (r in base) {
		limit = base[r] * 1.05 + 4096
		printf "rank %s: RssAnon %d kB at %d s, max %d kB after, %d kB at %d s%s\n",
			r, base[r], warm, max[r], last[r], lt[r], max[r] > limit ? "  GROWING" : ""
		if (max[r] > limit) bad = 1
	}
	exit bad
}' "$log" >rss.txt || { cat rss.txt >&2; e2e_fail "memory of a traced rank grew (samples in $log)"; }
sed 's/^/    /' rss.txt

# peak CMD...: "<max RssAnon kB>/<max RSS kB>" of CMD, sampled every 50 ms
# (RSS includes the trace pages the reader maps; RssAnon is its own memory).
peak() {
	local pid anon max=0 hwm=0
	"$@" >/dev/null 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		anon=$(awk '/^RssAnon/ {print $2}' /proc/"$pid"/status 2>/dev/null || true)
		[ -n "$anon" ] && [ "$anon" -gt "$max" ] && max=$anon
		hwm=$(awk '/^VmHWM/ {print $2}' /proc/"$pid"/status 2>/dev/null || echo "$hwm")
		sleep 0.05
	done
	wait "$pid" || e2e_fail "$* failed on the soak trace"
	echo "$max/$hwm"
}
size=$(du -sm trace | cut -f1)
s_kb=$(peak "$msgtrace" dump --summary trace)
d_kb=$(peak "$msgtrace" dump trace)
"$msgtrace" dump --summary trace >summary.txt || e2e_fail "msgtrace dump --summary failed on the soak trace"
ops=$(reliab_summary_sum trace op)
lost=$(($(reliab_summary_sum trace full) + $(reliab_summary_sum trace nospace)))
e2e_note "trace ${size} MB, $ops ops, $lost records lost; peak RssAnon/RSS in kB: dump --summary ${s_kb}, dump ${d_kb}"
e2e_note "PASS: ${secs} s soak, RssAnon flat on every rank ($(grep -c . "$log") samples)"
