#!/usr/bin/env bash
# hosts_clock.sh PROVIDER_DIR MSGTRACE PINGPONG TRACE_PERTURB - clock
# correction between two test hosts (hosts_lib.sh) against a known truth.
# The hosts share this machine's clock: the true offset and drift between
# them are 0, and the times as recorded (--clock none) are the truth. A
# ping-pong of 600 messages (dense) and one of 30 (sparse) between rank 0
# on hA and rank 1 on hB:
#   1. as recorded: no receive before its send; the smallest one-way delay
#      each way, lab (hA -> hB) and lba, bound hB's offset to [-lba, lab];
#   2. --clock auto: hB's offset within that bound (and, dense, within 5 us
#      of 0), no receive before its send, no time moved by more than the
#      larger of lab and lba;
#   3. hB's files given a clock of their own by trace_perturb (offset
#      2.5 ms, drift 40 ppm, CLOCK_REALTIME off by 300 us plus lab, so that
#      as recorded receives precede their sends): --clock auto leaves no
#      receive before its send and gives back every message's delays
#      (receive post and completion minus send post) within the smaller of
#      lab and lba.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/hosts_lib.sh"
[ $# -eq 4 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE PINGPONG TRACE_PERTURB" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3 perturb=$4
E2E_NAME=hosts_clock
e2e_need_file "$prog" provider_pingpong
e2e_need_file "$perturb" trace_perturb
e2e_need_subcommand "$msgtrace" report
e2e_setup
hosts_up hA hB
# job NAME ITERS: a traced ping-pong, its hosts' files moved to NAME.hA and
# NAME.hB. trace_perturb edits records in place: recorded uncompacted.
HOSTS_MPIRUN_EXTRA=(-x FI_OFI_HOOK_MSGTRACE_COMPACT)
job() {
	local h
	FI_OFI_HOOK_MSGTRACE_COMPACT=0 hosts_run_ok "$E2E_TMP/$1.out" trace \
		"$E2E_TCP" full hA:1,hB:1 "$prog" "$2"
	for h in hA hB; do
		mkdir "$E2E_TMP/$1.$h"
		mv "$(hosts_dir $h)"/* "$E2E_TMP/$1.$h/"
	done
}
job dense 60
job sparse 3

# awk's d(a, b): a - b for ns times of one run, exact (CLOCK_REALTIME ns
# exceed 2^53): their last 13 digits, modulo 10^13 (2.7 hours).
ns_diff='function d(a, b,  x) { x = substr(a, length(a) - 12) - substr(b, length(b) - 12)
	return x > 5e12 ? x - 1e13 : x < -5e12 ? x + 1e13 : x }'

csv() { e2e_messages_to "$msgtrace" "$@"; }

# smallest FROM TO CSV: the smallest receive done minus send post of the
# matched messages from rank FROM to rank TO.
smallest() {
	awk -F, -v f="$1" -v t="$2" "$ns_diff"'
		$12 == "matched" && $1 == f && $2 == t { l = d($11, $8)
			if (!n++ || l < m) m = l }
		END { print n ? m : "none" }' "$3"
}

violations() {
	awk -F, "$ns_diff"'$12 == "matched" && d($11, $8) <= 0 { n++ } END { print n + 0 }' "$1"
}

# domain JSON HOST KEY: a value of HOST's clock domain in a report --json.
domain() {
	jq -r --arg h "$2" ".clock.domains[] | select(.host == \$h) | .$3" "$1"
}

# shared NAME NEAR: the checks of the shared clock on job NAME; hB's offset
# within NEAR ns of 0 too unless NEAR is "-". Leaves lab, lba, lmin.
shared() {
	local a=$E2E_TMP/$1.hA b=$E2E_TMP/$1.hB near=$2 off sd drift moved after
	csv "$E2E_TMP/$1.none.csv" --clock none "$a" "$b"
	lab=$(smallest 0 1 "$E2E_TMP/$1.none.csv") lba=$(smallest 1 0 "$E2E_TMP/$1.none.csv")
	[ "$lab" != none ] && [ "$lba" != none ] || e2e_fail "$1: no messages both ways between the hosts"
	[ "$(violations "$E2E_TMP/$1.none.csv")" = 0 ] && [ "$lab" -gt 0 ] && [ "$lba" -gt 0 ] ||
		e2e_fail "$1: as recorded on one clock, receives precede their sends (lab $lab, lba $lba ns)"
	lmax=$((lab > lba ? lab : lba)) lmin=$((lab < lba ? lab : lba))
	"$msgtrace" report --json "$a" "$b" >"$E2E_TMP/$1.json" || e2e_fail "msgtrace report --json failed"
	[ "$(domain "$E2E_TMP/$1.json" hA estimate)" = reference ] ||
		e2e_fail "$1: hA is not the reference clock: $(jq -c .clock.domains "$E2E_TMP/$1.json")"
	off=$(domain "$E2E_TMP/$1.json" hB offset_ns) sd=$(domain "$E2E_TMP/$1.json" hB offset_sd_ns)
	drift="$(domain "$E2E_TMP/$1.json" hB drift_ppm) (sd $(domain "$E2E_TMP/$1.json" hB drift_sd_ppm))"
	moved=$(jq .clock.correction_max_ns "$E2E_TMP/$1.json")
	after=$(jq .clock.violations_after "$E2E_TMP/$1.json")
	e2e_note "$1, shared clock (truth 0): $(jq .clock.messages "$E2E_TMP/$1.json") messages;" \
		"one-way minimum hA->hB $lab ns, hB->hA $lba ns;" \
		"hB offset $off ns (sd $sd), drift $drift ppm; times moved at most $moved ns;" \
		"$after receives before their sends"
	awk -v o="$off" -v lo=-"$lba" -v hi="$lab" 'BEGIN { exit !(o >= lo && o <= hi) }' ||
		e2e_fail "$1: hB's offset $off ns lies outside the round-trip bound [-$lba, $lab] ns"
	[ "$near" = - ] || awk -v o="$off" -v n="$near" 'BEGIN { exit !(o >= -n && o <= n) }' ||
		e2e_fail "$1: hB's offset $off ns is more than $near ns from the truth, 0"
	[ "$after" = 0 ] || e2e_fail "$1: $after receives before their sends after correction"
	[ "$moved" -le "$lmax" ] || e2e_fail "$1: times moved by up to $moved ns, beyond the bound $lmax ns"
}
shared dense 5000
shared sparse -
cp "$E2E_TMP/dense.none.csv" "$E2E_TMP/none.csv"
a=$E2E_TMP/dense.hA b=$E2E_TMP/dense.hB

# --- hB with a clock of its own -----------------------------------------------
pa=$E2E_TMP/pA pb=$E2E_TMP/pB
cp -r "$a" "$pa"
cp -r "$b" "$pb"
for pid in $(find "$pb" -name '*.mt' -printf '%f\n' | cut -d. -f2 | sort -u); do
	"$perturb" hB 2500000 40 $((300000 + lab)) "$pb"/hB."$pid".*.mt ||
		e2e_fail "trace_perturb failed"
done
csv "$E2E_TMP/pnone.csv" --clock none "$pa" "$pb"
csv "$E2E_TMP/pauto.csv" "$pa" "$pb"
"$msgtrace" report --json "$pa" "$pb" >"$E2E_TMP/pauto.json" || e2e_fail "msgtrace report --json failed"
# errors CSV: per matched message between the hosts, the largest change
# of its receive post and completion relative to its send post against
# the truth.
errors() {
	local k='-k1,1n -k2,2n -k3,3n -k4,4n -k5,5n -k6,6 -k8,8n'
	# shellcheck disable=SC2086
	tail -n +2 "$E2E_TMP/none.csv" | sort -t, $k >"$E2E_TMP/t.sorted"
	# shellcheck disable=SC2086
	tail -n +2 "$1" | sort -t, $k >"$E2E_TMP/c.sorted"
	paste -d, "$E2E_TMP/t.sorted" "$E2E_TMP/c.sorted" | awk -F, "$ns_diff"'
		{ for (i = 1; i <= 7; i++) if ($i != $(i + 12)) { print "key"; exit } }
		$12 != "matched" || $1 == $2 { next }
		{ for (w = 10; w <= 11; w++) { e = d($(w + 12), $20) - d($w, $8)
			e = e < 0 ? -e : e; if (e > m) m = e } }
		END { print m + 0 }'
}
err_none=$(errors "$E2E_TMP/pnone.csv") err_auto=$(errors "$E2E_TMP/pauto.csv")
[ "$err_none" != key ] && [ "$err_auto" != key ] || e2e_fail "the perturbed trace holds other messages"
v_none=$(violations "$E2E_TMP/pnone.csv") v_auto=$(violations "$E2E_TMP/pauto.csv")
e2e_note "hB at +2.5 ms, +40 ppm: hB offset $(domain "$E2E_TMP/pauto.json" hB offset_ns) ns" \
	"(sd $(domain "$E2E_TMP/pauto.json" hB offset_sd_ns)), drift $(domain "$E2E_TMP/pauto.json" hB drift_ppm) ppm" \
	"(sd $(domain "$E2E_TMP/pauto.json" hB drift_sd_ppm));" \
	"largest delay error recorded $err_none ns, corrected $err_auto ns (bound $lmin ns);" \
	"receives before their sends $v_none -> $v_auto"
[ "$v_none" -gt 0 ] || e2e_fail "the perturbation left no receive before its send"
[ "$v_auto" = 0 ] || e2e_fail "$v_auto receives before their sends after correction"
[ "$err_auto" -le "$lmin" ] ||
	e2e_fail "corrected delays off by up to $err_auto ns, beyond the smallest one-way latency $lmin ns"
