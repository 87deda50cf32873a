#!/usr/bin/env bash
# compare_selftest.sh - compare_log_csv.sh must accept a trace that agrees
# with the logs and reject, with the right message, each way of disagreeing.
# data/compare holds 2-rank logs and a CSV that agree; every case below
# breaks one thing with sed and names the message that must come out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$here/lib.sh"
data=$here/data/compare
compare=$here/compare_log_csv.sh
e2e_setup

out=$("$compare" "$data" "$data/messages.csv") ||
	e2e_fail "the agreeing fixture was rejected: $out"

# expect_reject WHAT SED-ON-CSV SED-ON-RANK1-LOG MESSAGE
expect_reject() {
	local what=$1 csv_edit=$2 log_edit=$3 want=$4 status=0
	rm -rf "$E2E_TMP/case" && mkdir "$E2E_TMP/case"
	sed "$csv_edit" "$data/messages.csv" >"$E2E_TMP/case/messages.csv"
	cp "$data/rank0.log" "$E2E_TMP/case/"
	sed "$log_edit" "$data/rank1.log" >"$E2E_TMP/case/rank1.log"
	out=$("$compare" "$E2E_TMP/case" "$E2E_TMP/case/messages.csv" 2>&1) || status=$?
	[ $status -eq 1 ] || e2e_fail "$what: exit status $status, expected 1"
	grep -qF -- "$want" <<<"$out" ||
		e2e_fail "$what: no '$want' in: $out"
}

expect_reject "a user send missing" '/,5,user,8,/d' '' \
	'user sends per (src->dst, tag, bytes) differ'
expect_reject "wrong byte count" 's/,5,user,8,/,5,user,9,/' '' \
	'0->1 tag 5 bytes 9'
expect_reject "a receive left unmatched" 's/,9,user,8,\(.*\),matched/,9,user,8,\1,unmatched_send/' '' \
	'user messages the trace could not pair'
expect_reject "truncation not seen" 's/,truncated$/,matched/' '' \
	'truncated receives per (src->dst, tag) differ'
expect_reject "cancel not seen" '/,cancelled$/d' '' 'cancelled receives differ'
expect_reject "an extra cancel logged" '' 's/status=ok seq=0/status=cancelled seq=0/' \
	'cancelled receives differ'
expect_reject "Ssend ACK missing" '/,6,ssend_ack,/d' '' 'synchronous sends: 1 logged'
expect_reject "header changed" '1s/,status$/,state/' '' 'header is'
expect_reject "short line" '2s/,matched$//' '' '11 fields, expected 12'
# shellcheck disable=SC2016 # a sed address, not a shell expansion
expect_reject "empty CSV" '1,$d' '' 'empty, expected at least the header line'

# The fixture's tag -16 rows (coll, and an internal ssend with its ACK)
# passed above: internal rows never count as user ones. A hang expected
# where the Ssend was acknowledged must be rejected too.
out=$("$compare" --hung-ssends 1 "$data" "$data/messages.csv" 2>&1) &&
	e2e_fail "--hung-ssends 1 accepted a run whose one Ssend was acknowledged"
e2e_note "ok: the agreeing fixture passes, 11 broken variants are rejected"
