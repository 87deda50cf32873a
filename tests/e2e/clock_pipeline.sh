#!/bin/bash
# clock_pipeline.sh - `--clock` through the whole pipeline on real traces,
# for provider_pingpong (2 ranks; rank 1 moved) and p2p_mix (4 ranks; ranks
# 2 and 3 moved, one clock between them):
# 1. One host: auto leaves every time as recorded (messages CSV identical
#    to --clock none), the report says no correcting stage ran.
# 2. The same trace with the moved ranks put by trace_perturb on host "far"
#    with a clock of its own (offset, drift, CLOCK_REALTIME error): as
#    recorded, receives precede their sends (times of two hosts meet through
#    CLOCK_REALTIME, so its error is set past the minimum latency between
#    the hosts, 10 us on an idle machine, 2.7 ms measured on a loaded one:
#    a fixed 300 us error left no receive before its send there, once in 16
#    runs of the suite beside two busy loops); auto must remove every such
#    violation and give back the original times up to one shift: per
#    message between the hosts, receive post and receive done relative to
#    the send post within a fraction of the larger of the two directions'
#    minimum latencies between the hosts in the unperturbed trace (median
#    over all such differences): half for the ping-pong, the bound of a
#    round-trip offset estimate (no data can tell how the minimum round trip
#    splits between directions); all of it for p2p_mix, whose ~70 messages
#    between the hosts in under a second leave the drift mostly to the
#    prior, an error growing away from the centre of their traffic.
# usage: clock_pipeline.sh PROVIDER_DIR MSGTRACE PINGPONG P2P_MIX TRACE_PERTURB
set -euo pipefail
. "$(dirname "$0")/lib.sh"
E2E_PROVIDER_DIR=$1
msgtrace=$2 pingpong=$3 p2p_mix=$4 perturb=$5
e2e_need_subcommand "$msgtrace" messages
e2e_need_file "$pingpong" "provider_pingpong"
e2e_need_file "$p2p_mix" "p2p_mix"
e2e_need_file "$perturb" "trace_perturb"
e2e_setup

# csv OUT ARGS...: msgtrace messages ARGS > OUT, failing with its stderr.
csv() { e2e_messages_to "$msgtrace" "$@"; }

# json_clock TRACE MODE: the report's clock object, one key=value a line.
json_clock() {
	"$msgtrace" report --json --clock "$2" "$1" >"$E2E_TMP/r.json" ||
		e2e_fail "msgtrace report --json --clock $2 $1 failed"
	sed 's/.*"clock":{//; s/,"domains".*//; s/"//g' "$E2E_TMP/r.json" |
		tr , '\n' | tr : =
}

# clock_key TRACE MODE KEY: one value of the report's clock object.
clock_key() {
	json_clock "$1" "$2" | sed -n "s/^$3=//p"
}

# awk's d(a, b): a - b exactly for ns times past 2^53 (CLOCK_REALTIME), by
# 12-digit halves subtracted half from half: summing a's halves first rounds
# to a multiple of 256 ns, and the CLC puts a receive 1 ns after its send
# when the link's measured minimum latency is not positive, so half such
# receives read as received before they were sent (the flaky "N receives
# before their sends after --clock auto" under load, where the linear map
# leaves violations for the CLC more often).
ns_diff='function d(a, b) { return (hi(a) - hi(b)) * 1e12 + (lo(a) - lo(b)) }
function hi(x) { return length(x) > 12 ? substr(x, 1, length(x) - 12) + 0 : 0 }
function lo(x) { return length(x) > 12 ? substr(x, length(x) - 11) + 0 : x + 0 }'

# d itself, on times 1 ns apart at CLOCK_REALTIME magnitude.
[ "$(awk "$ns_diff"'
	BEGIN { for (i = 0; i < 1000; i++) n += d("1795560290203" (357001 + i),
						 "1795560290203" (357000 + i)) == 1
		print n }')" = 1000 ] || e2e_fail "d() is not exact on ns times"

# violations CSV: matched messages received at or before they were sent.
violations() {
	awk -F, "$ns_diff"'
		$12 == "matched" && $8 != "" && $11 != "" && d($11, $8) <= 0 { n++ }
		END { print n + 0 }' "$1"
}

# errors ORIG CORR: per matched message between the hosts (one rank in
# $moved) of ORIG and the same message of CORR (same key, same order by
# send post), |(t - t_send_post) in CORR - (t - t_send_post) in ORIG| for t
# the receive post and completion, one a line, sorted.
errors() {
	local k='-k1,1n -k2,2n -k3,3n -k4,4n -k5,5n -k6,6 -k8,8n'
	# shellcheck disable=SC2086
	tail -n +2 "$1" | sort -t, $k >"$E2E_TMP/o.sorted"
	# shellcheck disable=SC2086
	tail -n +2 "$2" | sort -t, $k >"$E2E_TMP/c.sorted"
	paste -d, "$E2E_TMP/o.sorted" "$E2E_TMP/c.sorted" |
	awk -F, -v moved=" $moved " "$ns_diff"'
		function far(r) { return index(moved, " " r " ") > 0 }
		{ for (i = 1; i <= 7; i++) if ($i != $(i + 12)) { print "key"; exit 1 } }
		$12 != "matched" || far($1) == far($2) { next }
		{ for (w = 10; w <= 11; w++) if ($w != "" && $(w + 12) != "") {
			e = d($(w + 12), $20) - d($w, $8); print e < 0 ? -e : e } }' |
	sort -n
}

# median FILE: the middle line of a sorted file of numbers.
median() {
	sed -n "$(( ($(wc -l <"$1") + 1) / 2 ))p" "$1"
}

# scenario NAME NP "MOVED RANKS" DIV PROGRAM ARGS...: one traced run, both
# checks; corrected median error below 1/DIV of the minimum latency.
scenario() {
	local name=$1 np=$2 moved=$3 div=$4 tr far lmin pid f r v_none v_auto
	local med_none med_auto max_auto rt_err
	shift 4
	E2E_NAME="clock_pipeline[$name]"
	tr=$E2E_TMP/$name far=$E2E_TMP/$name.far
	# trace_perturb edits version 1 records in place: recorded uncompacted,
	# the far copy is compacted after it (the pipeline reads both forms).
	FI_OFI_HOOK_MSGTRACE_COMPACT=0 E2E_NP=$np e2e_run_ok "$E2E_TMP/$name.out" \
		"$tr" "$E2E_TCP" full "$@"
	e2e_check_trace "$tr" "$np"

	# --- one host: nothing to correct, nothing changed ---------------------------
	csv "$E2E_TMP/$name.none.csv" --clock none "$tr"
	csv "$E2E_TMP/$name.auto.csv" "$tr"
	cmp -s "$E2E_TMP/$name.none.csv" "$E2E_TMP/$name.auto.csv" ||
		e2e_fail "one host: --clock auto changed the messages CSV of --clock none"
	# auto checks the declared clock on the data; it confirms it here, so
	# neither correcting stage runs.
	[ "$(clock_key "$tr" auto linear),$(clock_key "$tr" auto clc)" = false,false ] ||
		e2e_fail "one host: the report says auto corrected times"
	[ "$(clock_key "$tr" auto violations_before)" = 0 ] ||
		e2e_fail "one host: receives before their sends on one clock"
	# lmin: the larger of the two directions' minimum latencies between hosts.
	lmin=$(awk -F, -v moved=" $moved " '
		function far(r) { return index(moved, " " r " ") > 0 }
		$12 == "matched" && far($1) != far($2) { l = $11 - $8; k = far($1)
			if (!(k in m) || l < m[k]) m[k] = l }
		END { ok = length(m) == 2; for (k in m) { ok = ok && m[k] > 0; if (m[k] > hi) hi = m[k] }
		      print ok ? hi + 0 : 0 }' "$E2E_TMP/$name.none.csv")
	[ "$lmin" -gt 0 ] || e2e_fail "one host: no positive minimum latency ($lmin ns)"

	# --- the moved ranks on another host with its own clock ----------------------
	# Its CLOCK_REALTIME is off by 300 us plus lmin: the fastest message from
	# the far host to this one (no slower than lmin) is received "before" it
	# was sent, however slow the machine made the messages.
	rt_err=$((300000 + lmin))
	cp -r "$tr" "$far"
	for r in $moved; do
		pid=$("$msgtrace" dump --kind proc "$tr" |
			sed -n "s/.* r$r .*pid=\([0-9]*\) .*/\1/p")
		[ -n "$pid" ] || e2e_fail "no PROC record for rank $r in the dump"
		"$perturb" far 2500000 40 "$rt_err" "$far"/*."$pid".*.mt ||
			e2e_fail "trace_perturb failed"
		for f in "$far"/*."$pid".*.mt; do
			mv "$f" "$far/far.${f#"$far"/*.}"
		done
	done
	"$msgtrace" compact "$far" >/dev/null || e2e_fail "msgtrace compact failed"
	csv "$E2E_TMP/$name.far_none.csv" --clock none "$far"
	csv "$E2E_TMP/$name.far_auto.csv" --clock auto "$far"
	v_none=$(violations "$E2E_TMP/$name.far_none.csv")
	v_auto=$(violations "$E2E_TMP/$name.far_auto.csv")
	[ "$v_none" -gt 0 ] ||
		e2e_fail "two hosts: no receive before its send as recorded (perturbation lost? CLOCK_REALTIME off by $rt_err ns, minimum latency $lmin ns)"
	[ "$v_auto" = 0 ] ||
		e2e_fail "two hosts: $v_auto receives before their sends after --clock auto"
	json_clock "$far" auto >"$E2E_TMP/clock.kv"
	grep -qx 'corrected=true' "$E2E_TMP/clock.kv" &&
		grep -qx 'declared_domains=2' "$E2E_TMP/clock.kv" &&
		grep -qx 'violations_after=0' "$E2E_TMP/clock.kv" &&
		grep -qx "violations_before=$v_none" "$E2E_TMP/clock.kv" ||
		{ sed 's/^/    /' "$E2E_TMP/clock.kv" >&2
		  e2e_fail "two hosts: report --json clock object wrong"; }
	errors "$E2E_TMP/$name.none.csv" "$E2E_TMP/$name.far_none.csv" >"$E2E_TMP/$name.err_none" ||
		e2e_fail "two hosts: other messages than on one host"
	errors "$E2E_TMP/$name.none.csv" "$E2E_TMP/$name.far_auto.csv" >"$E2E_TMP/$name.err_auto" ||
		e2e_fail "two hosts: other messages after correction than on one host"
	med_none=$(median "$E2E_TMP/$name.err_none") med_auto=$(median "$E2E_TMP/$name.err_auto")
	max_auto=$(tail -n 1 "$E2E_TMP/$name.err_auto")
	e2e_note "minimum latency (larger direction) $lmin ns; relative time error median: recorded" \
		"$med_none ns, corrected $med_auto ns (largest $max_auto ns);" \
		"violations $v_none -> $v_auto"
	[ "$med_none" -gt "$lmin" ] ||
		e2e_fail "two hosts: the perturbation moved times by less than the minimum latency"
	[ $((med_auto * div)) -lt "$lmin" ] ||
		e2e_fail "two hosts: corrected times off by $med_auto ns (median), over 1/$div of the minimum latency $lmin ns"
}

scenario pingpong 2 "1" 2 "$pingpong" 500
scenario p2p_mix 4 "2 3" 1 "$p2p_mix"
