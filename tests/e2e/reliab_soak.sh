#!/usr/bin/env bash
# reliab_soak.sh PROVIDER_DIR MSGTRACE BINDIR
# A traced 4-rank reliab_mix job of continuous mixed traffic (ring
# point-to-point, probes, allreduce, bcast, barrier) for RELIAB_SOAK_SECONDS
# (default 12; scripts/soak runs 120 and more). Every RELIAB_SOAK_EVERY
# seconds (default 1) the RSS of each rank is read from /proc: RssAnon (heap
# and stacks: what tracing could leak) and RssFile (mapped pages, the trace
# files among them: they grow with the trace and are page cache the kernel
# writes back). The same job runs untraced first, as the baseline. Passes
# when both succeed, each traced rank's RssAnon grows from half-way in (the
# MPI library's own pools still grow during the first seconds, by amounts
# that vary from run to run) to its maximum by no more than the untraced
# ranks' largest such growth plus 8 MiB, `msgtrace dump --summary` and `msgtrace dump` read the
# whole trace, and `msgtrace report` and `messages --csv` analyse it in less
# than 64 MiB of heap (RssAnon) with --clock none, and 256 bytes a message
# more with the clock correction, their peak memory printed next to the
# trace size.
# The table of samples goes to RELIAB_SOAK_LOG (default: the scratch dir).
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
export E2E_NP=4
secs=${RELIAB_SOAK_SECONDS:-12} every=${RELIAB_SOAK_EVERY:-1}
log=${RELIAB_SOAK_LOG:-$E2E_TMP/soak.tsv}
printf 'run\tt_s\trank\tpid\trss_anon_kb\trss_file_kb\titerations\ttrace_mb\n' >"$log"

# soak RUN TRACEDIR: one job of $secs seconds, its ranks sampled into $log.
soak() {
	local run=$1 tracedir=$2 job pids t0 t r mb anon file it
	mkdir "$run.progress"
	E2E_TIMEOUT=$((secs + 120)) reliab_run "$run.out" "$tracedir" -- \
		"$mix" --seconds "$secs" --progress "$E2E_TMP/$run.progress" &
	job=$!
	for _ in $(seq 300); do
		[ "$(ls "$run".progress/*.pid 2>/dev/null | wc -l)" -eq "$E2E_NP" ] && break
		sleep 0.1
	done
	pids=$(cat "$run".progress/rank*.pid)
	t0=$(date +%s)
	while kill -0 $job 2>/dev/null; do
		t=$(($(date +%s) - t0))
		r=0
		mb=0
		[ -d "$tracedir" ] && mb=$(du -sm "$tracedir" 2>/dev/null | cut -f1)
		for p in $pids; do
			anon=$(awk '/^RssAnon/ {print $2}' /proc/"$p"/status 2>/dev/null || true)
			file=$(awk '/^RssFile/ {print $2}' /proc/"$p"/status 2>/dev/null || true)
			it=$({ tail -n 1 "$run.progress/rank$r.progress" 2>/dev/null || true; } | cut -d' ' -f1)
			[ -n "$anon" ] && printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$t" \
				"$r" "$p" "$anon" "$file" "${it:-0}" "$mb" >>"$log"
			r=$((r + 1))
		done
		sleep "$every"
	done
	wait $job || true
	[ "$(cat "$run.out.rc")" = 0 ] ||
		{ tail -n 20 "$run.out.err" >&2; e2e_fail "$run soak job failed (status $(cat "$run.out.rc"))"; }
}
soak plain -
soak traced "$E2E_TMP/trace"
reliab_no_warning traced.out.err

# RssAnon growth per rank from half-way to its maximum after: the traced
# ranks may not grow by more than the untraced ones plus 8 MiB (a leak of
# 8 bytes per record shows in the 12 s run, of 1 byte in scripts/soak's 120 s).
awk -v warm=$((secs / 2)) -F'\t' 'NR > 1 && $2 >= warm {
	k = $1 " " $3
	if (!(k in base)) base[k] = $5
	if ($5 > max[k]) max[k] = $5
	if ($1 == "traced") last[$3] = $6
}
END {
	for (k in base) {
		split(k, p, " ")
		g = max[k] - base[k]
		if (p[1] == "plain" && g > pg) pg = g
		if (p[1] == "traced") tg[p[2]] = g
	}
	bad = 0
	for (r in tg) {
		printf "rank %s: RssAnon %d kB at %d s, +%d kB after (untraced ranks: at most +%d kB); RssFile %d kB at the end\n",
			r, base["traced " r], warm, tg[r], pg, last[r]
		if (tg[r] > pg + 8192) bad = 1
	}
	exit bad
}' "$log" >rss.txt || { cat rss.txt >&2; e2e_fail "memory of a traced rank grew more than untraced (samples in $log)"; }
sed 's/^/    /' rss.txt

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
# The analysis streams: with --clock none its heap follows the messages
# in flight (a few per rank here), not the trace, which it maps. The clock
# correction (--clock auto, the default, on a trace of several processes)
# keeps every message's times and its solve peaks at about 200 bytes a
# message (pipeline/clockstage.h): 256 bytes a message more at most. (A
# fixed 64 MiB held only while a 12 s soak wrote under 30 MB.)
msgs=$(("$("$msgtrace" messages --csv --clock none trace | wc -l)" - 1))
rn_kb=$(peak "$msgtrace" report --clock none trace)
mn_kb=$(peak "$msgtrace" messages --csv --clock none trace)
r_kb=$(peak "$msgtrace" report trace)
m_kb=$(peak "$msgtrace" messages --csv trace)
for kb in "$rn_kb" "$mn_kb"; do
	[ "${kb%%/*}" -lt $((64 * 1024)) ] ||
		e2e_fail "the analysis of a ${size} MB trace with --clock none peaked at ${kb%%/*} kB RssAnon (limit 64 MiB)"
done
limit=$((64 * 1024 + msgs / 4))		# kB: 256 bytes a message
for kb in "$r_kb" "$m_kb"; do
	[ "${kb%%/*}" -lt "$limit" ] ||
		e2e_fail "the analysis of a ${size} MB trace ($msgs messages) peaked at ${kb%%/*} kB RssAnon (limit 64 MiB + 256 B a message: $limit kB)"
done
"$msgtrace" dump --summary trace >summary.txt || e2e_fail "msgtrace dump --summary failed on the soak trace"
ops=$(reliab_summary_sum trace op)
lost=$(($(reliab_summary_sum trace full) + $(reliab_summary_sum trace nospace)))
e2e_note "trace ${size} MB, $ops ops, $msgs messages, $lost records lost; peak RssAnon/RSS in kB: dump --summary ${s_kb}, dump ${d_kb}, report ${r_kb} (--clock none ${rn_kb}), messages --csv ${m_kb} (--clock none ${mn_kb})"
e2e_note "PASS: ${secs} s soak, RssAnon of every traced rank grew no more than untraced ($(grep -c traced "$log") samples)"
