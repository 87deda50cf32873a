#!/usr/bin/env bash
# export_csv.sh PROVIDER_DIR MSGTRACE P2P_MIX
#
# msgtrace export --csv on a real 4-rank p2p_mix trace: PREFIX.messages.csv
# is exactly `msgtrace messages --csv`; PREFIX.pairs.csv holds, per sender
# and receiver, the messages and bytes of the CSV's non-cancelled rows;
# PREFIX.sizes.csv the same per power-of-two size class.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/export_lib.sh"
export_setup "$@"

p=$E2E_TMP/out
"$msgtrace" export --csv -o "$p" "$trace" 2>"$E2E_TMP/export.err" ||
	{ cat "$E2E_TMP/export.err" >&2; e2e_fail "export --csv failed"; }
e2e_same_output "$E2E_TMP/messages.csv" "$p.messages.csv" \
	"messages.csv differs from msgtrace messages --csv"
head -1 "$p.pairs.csv" | grep -qx 'send_rank,recv_rank,user_msgs,user_bytes,internal_msgs,internal_bytes,bw_bytes,bw_ns,bw_mbps' ||
	e2e_fail "pairs.csv header: $(head -1 "$p.pairs.csv")"
head -1 "$p.sizes.csv" | grep -q '^size_min_bytes,size_class,user_msgs,' ||
	e2e_fail "sizes.csv header: $(head -1 "$p.sizes.csv")"

# Per pair: messages and bytes, from the message list and from pairs.csv.
awk -F, 'NR > 1 && $12 != "cancelled" && $1 != "" && $2 != "" {
	n[$1 " " $2]++; b[$1 " " $2] += $7 }
	END { for (k in n) print k, n[k], b[k] }' "$E2E_TMP/messages.csv" |
	sort >"$E2E_TMP/want_pairs"
awk -F, 'NR > 1 { print $1, $2, $3 + $5, $4 + $6 }' "$p.pairs.csv" |
	sort >"$E2E_TMP/got_pairs"
e2e_same_output "$E2E_TMP/want_pairs" "$E2E_TMP/got_pairs" \
	"pairs.csv (sender receiver messages bytes) disagrees with the messages"

# Per size class: [2^(c-1), 2^c), class 0 for empty messages.
awk -F, 'NR > 1 && $12 != "cancelled" { lo = 0; if ($7 > 0) { lo = 1; while (lo * 2 <= $7) lo *= 2 }
	n[lo]++; b[lo] += $7 } END { for (k in n) printf "%.0f %d %.0f\n", k, n[k], b[k] }' \
	"$E2E_TMP/messages.csv" | sort -n >"$E2E_TMP/want_sizes"
awk -F, 'NR > 1 { printf "%.0f %d %.0f\n", $1, $3 + $5, $4 + $6 }' "$p.sizes.csv" |
	sort -n >"$E2E_TMP/got_sizes"
e2e_same_output "$E2E_TMP/want_sizes" "$E2E_TMP/got_sizes" \
	"sizes.csv (class messages bytes) disagrees with the messages"
e2e_note "PASS: messages.csv identical, $(($(wc -l <"$p.pairs.csv") - 1)) pairs" \
	"and $(($(wc -l <"$p.sizes.csv") - 1)) size classes agree"
