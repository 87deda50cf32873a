#!/bin/bash
# clock_pipeline.sh - `--clock` through the whole pipeline on real traces.
# 1. One host (provider_pingpong, 2 ranks): auto leaves every time as
#    recorded (messages CSV identical to --clock none), report says so.
# 2. The same trace with rank 1 moved by trace_perturb onto host "far" with
#    its own clock (offset, drift, CLOCK_REALTIME error): as recorded,
#    receives precede their sends; auto must remove every such violation
#    and give back the original times up to one shift: per message, receive
#    post and receive done relative to the send post (times of two
#    processes) within half the larger of the two directions' minimum
#    latencies in the unperturbed trace (median over all such differences).
#    That is the bound of a round-trip offset estimate: no data can tell
#    how the minimum round trip splits between the two directions.
# usage: clock_pipeline.sh PROVIDER_DIR MSGTRACE PINGPONG TRACE_PERTURB
set -euo pipefail
. "$(dirname "$0")/lib.sh"
E2E_PROVIDER_DIR=$1
msgtrace=$2 pingpong=$3 perturb=$4
e2e_need_subcommand "$msgtrace" messages
e2e_need_file "$pingpong" "provider_pingpong"
e2e_need_file "$perturb" "trace_perturb"
e2e_setup
E2E_NP=2
tr=$E2E_TMP/trace far=$E2E_TMP/far
e2e_run_ok "$E2E_TMP/run.out" "$tr" "tcp;ofi_rxm" full "$pingpong" 500
e2e_check_trace "$tr" 2

# csv OUT ARGS...: msgtrace messages ARGS > OUT, failing with its stderr.
csv() {
	local out=$1
	shift
	"$msgtrace" messages "$@" >"$out" 2>"$out.err" && return 0
	sed 's/^/    /' "$out.err" >&2
	e2e_fail "msgtrace messages $* failed"
}

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
# 12-digit halves.
ns_diff='function d(a, b) { return hi(a) * 1e12 + lo(a) - hi(b) * 1e12 - lo(b) }
function hi(x) { return length(x) > 12 ? substr(x, 1, length(x) - 12) + 0 : 0 }
function lo(x) { return length(x) > 12 ? substr(x, length(x) - 11) + 0 : x + 0 }'

# violations CSV: matched messages received at or before they were sent.
violations() {
	awk -F, "$ns_diff"'
		$12 == "matched" && $8 != "" && $11 != "" && d($11, $8) <= 0 { n++ }
		END { print n + 0 }' "$1"
}

# errors ORIG CORR: per matched message of ORIG and the same message of
# CORR (same key, same order by send post), |(t - t_send_post) in CORR -
# (t - t_send_post) in ORIG| for t the receive post and completion, one a
# line, sorted.
errors() {
	local k='-k1,1n -k2,2n -k3,3n -k4,4n -k5,5n -k6,6 -k8,8n'
	# shellcheck disable=SC2086
	tail -n +2 "$1" | sort -t, $k >"$E2E_TMP/o.sorted"
	# shellcheck disable=SC2086
	tail -n +2 "$2" | sort -t, $k >"$E2E_TMP/c.sorted"
	paste -d, "$E2E_TMP/o.sorted" "$E2E_TMP/c.sorted" |
	awk -F, "$ns_diff"'
		{ for (i = 1; i <= 7; i++) if ($i != $(i + 12)) { print "key"; exit 1 } }
		$12 != "matched" { next }
		{ for (w = 10; w <= 11; w++) if ($w != "" && $(w + 12) != "") {
			e = d($(w + 12), $20) - d($w, $8); print e < 0 ? -e : e } }' |
	sort -n
}

# median FILE: the middle line of a sorted file of numbers.
median() {
	sed -n "$(( ($(wc -l <"$1") + 1) / 2 ))p" "$1"
}

# --- one host: nothing to correct, nothing changed ---------------------------
csv "$E2E_TMP/none.csv" --clock none "$tr"
csv "$E2E_TMP/auto.csv" "$tr"
cmp -s "$E2E_TMP/none.csv" "$E2E_TMP/auto.csv" ||
	e2e_fail "one host: --clock auto changed the messages CSV of --clock none"
[ "$(clock_key "$tr" auto corrected)" = false ] ||
	e2e_fail "one host: the report says auto corrected times"
[ "$(clock_key "$tr" auto violations_before)" = 0 ] ||
	e2e_fail "one host: receives before their sends on one clock"
# lmin: the larger of the two directions' minimum latencies.
lmin=$(awk -F, '$12 == "matched" && $1 != $2 { l = $11 - $8
		if (!($1 in m) || l < m[$1]) m[$1] = l }
	END { ok = 1; for (r in m) { ok = ok && m[r] > 0; if (m[r] > hi) hi = m[r] }
	      print ok ? hi + 0 : 0 }' "$E2E_TMP/none.csv")
[ "$lmin" -gt 0 ] || e2e_fail "one host: no positive minimum latency ($lmin ns)"

# --- rank 1 on another host with its own clock -------------------------------
cp -r "$tr" "$far"
pid=$("$msgtrace" dump --kind proc "$tr" | sed -n 's/.* r1 .*pid=\([0-9]*\) .*/\1/p')
[ -n "$pid" ] || e2e_fail "no PROC record for rank 1 in the dump"
"$perturb" far 2500000 40 300000 "$far"/*."$pid".*.mt ||
	e2e_fail "trace_perturb failed"
for f in "$far"/*."$pid".*.mt; do
	mv "$f" "$far/far.${f#"$far"/*.}"
done
csv "$E2E_TMP/far_none.csv" --clock none "$far"
csv "$E2E_TMP/far_auto.csv" --clock auto "$far"
v_none=$(violations "$E2E_TMP/far_none.csv")
v_auto=$(violations "$E2E_TMP/far_auto.csv")
[ "$v_none" -gt 0 ] ||
	e2e_fail "two hosts: no receive before its send as recorded (perturbation lost?)"
[ "$v_auto" = 0 ] ||
	e2e_fail "two hosts: $v_auto receives before their sends after --clock auto"
json_clock "$far" auto >"$E2E_TMP/clock.kv"
grep -qx 'corrected=true' "$E2E_TMP/clock.kv" &&
	grep -qx 'declared_domains=2' "$E2E_TMP/clock.kv" &&
	grep -qx 'violations_after=0' "$E2E_TMP/clock.kv" &&
	grep -qx "violations_before=$v_none" "$E2E_TMP/clock.kv" ||
	{ sed 's/^/    /' "$E2E_TMP/clock.kv" >&2
	  e2e_fail "two hosts: report --json clock object wrong"; }
errors "$E2E_TMP/none.csv" "$E2E_TMP/far_none.csv" >"$E2E_TMP/err_none" ||
	e2e_fail "two hosts: other messages than on one host"
errors "$E2E_TMP/none.csv" "$E2E_TMP/far_auto.csv" >"$E2E_TMP/err_auto" ||
	e2e_fail "two hosts: other messages after correction than on one host"
med_none=$(median "$E2E_TMP/err_none") med_auto=$(median "$E2E_TMP/err_auto")
max_auto=$(tail -n 1 "$E2E_TMP/err_auto")
e2e_note "minimum latency (larger direction) $lmin ns; relative time error median: recorded" \
	"$med_none ns, corrected $med_auto ns (largest $max_auto ns);" \
	"violations $v_none -> $v_auto"
[ "$med_none" -gt "$lmin" ] ||
	e2e_fail "two hosts: the perturbation moved times by less than the minimum latency"
[ $((med_auto * 2)) -lt "$lmin" ] ||
	e2e_fail "two hosts: corrected times off by $med_auto ns (median), over half the minimum latency $lmin ns"
