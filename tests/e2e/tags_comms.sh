#!/usr/bin/env bash
# tags_comms.sh TAGMODE PROVIDER_DIR MSGTRACE TAGS_COMMS
#
# `msgtrace tags` on tags_comms (2 ranks, $E2E_TCP): 300 MPI_Comm_dup of
# MPI_COMM_WORLD, a message on every 8th and the last, and tags near
# MPI_TAG_UB on MPI_COMM_WORLD. Checks, against the program's log:
#   - the trace's cid of duplicate i is 3 + i (Open MPI 4.1's c_contextid:
#     WORLD 0, SELF 1, NULL 2, then in order), and no other cid appears;
#   - every what-if case (ofi_tag_full/1/2 with this provider's
#     mem_tag_format, 0x5555555555555555 and --mem-tag-format
#     0x0fffffffffffffff, which leaves ofi_tag_1 8 cid bits) names exactly
#     the cids and user tags that do not fit, what each becomes and whether
#     it aliases a used value (cids 256 apart alias: every 8th duplicate);
#   - the layout in force is detected on every endpoint and fits;
#   - ofi_tag_2: MPI_TAG_UB 524287 fills the user tag field (0 bits free);
#   - the internal-tag reservations left in ofi_tag_2 for cid 0.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/tags_lib.sh"

[ $# -eq 4 ] || { echo "usage: $0 TAGMODE PROVIDER_DIR MSGTRACE TAGS_COMMS" >&2; exit 2; }
mode=$1 E2E_PROVIDER_DIR=$2 msgtrace=$3 prog=$4
E2E_NP=2
E2E_NAME="tags_comms[$mode]"
small_mtf=0x0fffffffffffffff
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" tags
e2e_setup
mkdir "$E2E_TMP/log"
e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$E2E_TCP" "$mode" "$prog" \
	--log "$E2E_TMP/log" --dups 300 --every 8
e2e_check_trace "$E2E_TMP/trace" 2
csv=$E2E_TMP/messages.csv
e2e_messages_csv "$msgtrace" "$E2E_TMP/trace" "$csv"

# Duplicate i carried tag i: its cid must be 3 + i.
ndup=$(grep -c '^SEND.*comm=dup' "$E2E_TMP/log/rank0.log")
bad=$(awk -F, 'NR > 1 && $6 == "user" && $3 != 0 && $3 != $5 + 3' "$csv")
[ -z "$bad" ] || { echo "$bad" >&2; e2e_fail "duplicate messages whose cid is not 3 + index (above)"; }
seen=$(awk -F, 'NR > 1 && $6 == "user" && $3 != 0' "$csv" | wc -l)
[ "$seen" -eq "$ndup" ] || e2e_fail "$ndup messages on duplicates logged, $seen in the trace"
cids=$({ echo 0; tags_log_values "$E2E_TMP/log" tag '/comm=dup/' |
	awk '{ print $1 + 3 }'; } | sort -n -u)
utags=$(tags_log_values "$E2E_TMP/log" tag)

json=$E2E_TMP/tags.json
tags_report "$msgtrace" "$E2E_TMP/trace" "$json" --mem-tag-format $small_mtf
case $mode in full) layout=ofi_tag_full ;; *) layout=$mode ;; esac
tags_expect_layout "$json" "$layout"
distinct=$(jq '.fields[] | select(.field == "cid") | .distinct' "$json")
[ "$distinct" -eq "$(echo "$cids" | wc -l)" ] ||
	e2e_fail "$distinct cids in the report, expected $(echo "$cids" | wc -l): $(echo $cids)"
[ "$(jq '[.whatif[] | select(.case.mem_tag_format == "'$small_mtf'")] | length' "$json")" -eq 3 ] ||
	e2e_fail "no what-if case for each layout with --mem-tag-format $small_mtf"

in_set() { grep -qx -- "$1" <<<"$2"; }
checked=0
for k in $(seq 0 $(($(jq '.whatif | length' "$json") - 1))); do
	l=$(jq -r ".whatif[$k].case.layout" "$json")
	mtf=$(jq -r ".whatif[$k].case.mem_tag_format" "$json")
	limit=$(tags_cid_limit "$l" "$mtf")
	want=$(for c in $cids; do
		[ "$c" -gt "$limit" ] || continue
		b=$((c & limit))
		in_set $b "$cids" && echo "$c $b true" || echo "$c $b false"
	done)
	got=$(tags_misfits "$json" "$k" cid)
	[ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got") >&2 || true;
		e2e_fail "$l mem_tag_format $mtf (cid limit $limit): misfit cids differ (- expected, + report)"; }
	# ofi_tag_2's tag is 20 bits, signed; the others carry 32.
	want=$(for t in $utags; do
		[ "$l" = ofi_tag_2 ] && [ "$t" -gt 524287 ] || continue
		b=$((t & 0xFFFFF))
		[ $b -gt 524287 ] && b=$((b - 0x100000))
		# Negative results are internal tags: Open MPI's below -26 only.
		in_set $b "$utags" && echo "$t $b true" || echo "$t $b false"
	done)
	got=$(tags_misfits "$json" "$k" tag_user)
	[ "$got" = "$want" ] || { diff <(echo "$want") <(echo "$got") >&2 || true;
		e2e_fail "$l mem_tag_format $mtf: misfit user tags differ (- expected, + report)"; }
	checked=$((checked + 1))
done
[ "$(jq '[.whatif[] | select(.in_force)] | .[0].fits' "$json")" = true ] ||
	e2e_fail "the layout in force does not fit its own run"

maxcid=$(echo "$cids" | tail -n 1)
grep -q "communicator id $maxcid used; ofi_tag_1 with mem_tag_format $small_mtf allows 255" \
	"$json.txt" || e2e_fail "the text does not say cid $maxcid does not fit ofi_tag_1 at 255"
if [ "$mode" = ofi_tag_2 ]; then
	read -r max free < <(jq -r '.fields[] | select(.field == "tag_user") |
		"\(.max) \(.headroom_bits)"' "$json")
	[ "$max" = 524287 ] && [ "$free" = 0 ] ||
		e2e_fail "MPI_TAG_UB in ofi_tag_2: user tag max $max, $free bits free (want 524287, 0)"
fi
read -r min left < <(jq -r '.internal_tags[] | select(.cid == 0) |
	"\(.min_tag) \(.ofi_tag_2.left)"' "$json")
[ -n "$min" ] && [ "$left" -eq $((min + 524288)) ] ||
	e2e_fail "cid 0: most negative internal tag '$min', $left reservations left in ofi_tag_2 (want min + 524288)"
e2e_note "$checked what-if cases exact over $(echo "$cids" | wc -l) cids (max $maxcid) and $(echo "$utags" | wc -l) user tags; cid 0 reached tag $min, $left left in ofi_tag_2"
