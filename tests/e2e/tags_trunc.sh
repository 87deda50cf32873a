#!/usr/bin/env bash
# tags_trunc.sh TAGMODE PROVIDER_DIR MSGTRACE TAGS_TRUNC
#
# `msgtrace tags` on tags_trunc (4 ranks, tcp;ofi_rxm): two MPI_ERR_TRUNCATE
# receives. For each truncated RECV of the program's log the report must
# list the receive (rank, buffer, source and tag filter) and the send that
# overflowed it: for the MPI_ANY_SOURCE/MPI_ANY_TAG receive, the first
# message its sender sent it (MPI's non-overtaking order: both had arrived),
# cause "wildcard"; for the specific receive, the send of that source and
# tag, cause "buffer".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/tags_lib.sh"

[ $# -eq 4 ] || { echo "usage: $0 TAGMODE PROVIDER_DIR MSGTRACE TAGS_TRUNC" >&2; exit 2; }
mode=$1 E2E_PROVIDER_DIR=$2 msgtrace=$3 prog=$4
E2E_NP=4
E2E_NAME="tags_trunc[$mode]"
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" tags
e2e_setup
mkdir "$E2E_TMP/log"
e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "tcp;ofi_rxm" "$mode" "$prog" \
	--log "$E2E_TMP/log"
json=$E2E_TMP/tags.json
tags_report "$msgtrace" "$E2E_TMP/trace" "$json"
case $mode in full) layout=ofi_tag_full ;; *) layout=$mode ;; esac
tags_expect_layout "$json" "$layout"

val() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
n=0
while read -r recv; do
	dst=$(val world_dst "$recv") src=$(val world_src "$recv")
	psrc=$(val posted_src "$recv") ptag=$(val posted_tag "$recv")
	buf=$(val buf "$recv")
	if [ "$ptag" = ANY ]; then
		send=$(grep -h "^SEND world_src=$src world_dst=$dst " "$E2E_TMP"/log/rank*.log |
			head -n 1)
		cause=wildcard
	else
		send=$(grep -h "^SEND world_src=$src world_dst=$dst .* tag=$ptag " \
			"$E2E_TMP"/log/rank*.log | head -n 1)
		cause=buffer
	fi
	tag=$(val tag "$send") bytes=$(val bytes "$send")
	got=$(jq -r --argjson r "$dst" '.truncations.list[] | select(.recv.rank == $r) |
		"\(.recv.buffer) \(.recv.any_source) \(.recv.any_tag) \(.send.rank) \(.send.tag) \(.send.bytes) \(.cause)"' "$json")
	anys=false; [ "$psrc" = ANY ] && anys=true
	anyt=false; [ "$ptag" = ANY ] && anyt=true
	want="$buf $anys $anyt $src $tag $bytes $cause"
	[ "$got" = "$want" ] ||
		e2e_fail "rank $dst's truncated receive: report '$got', expected '$want' (buffer any_source any_tag send_rank tag bytes cause)"
	n=$((n + 1))
done < <(grep -h '^RECV.*status=truncated' "$E2E_TMP"/log/rank*.log)
[ "$n" -eq 2 ] || e2e_fail "$n truncated receives in the log, expected 2"
count=$(jq '.truncations.count' "$json")
[ "$count" -eq "$n" ] || e2e_fail "report counts $count truncations, the log $n"
grep -q "cause:   wildcard receive matched another stream" "$json.txt" ||
	e2e_fail "the text names no wildcard cause"
e2e_note "both truncated receives explained with their sends"
