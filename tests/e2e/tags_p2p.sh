#!/usr/bin/env bash
# tags_p2p.sh TAGMODE PROVIDER_DIR MSGTRACE P2P_MIX
#
# `msgtrace tags` on the p2p_mix program (4 ranks, $E2E_TCP; PROVIDER in
# the environment picks another) in one tag mode: every
# endpoint in the forced layout, field usage equal to what the program's
# log says it sent (distinct user tags, smallest and largest, largest
# source rank), the run fitting its own layout, and one truncation per
# truncated receive of the log, each with the send of the logged tag.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/tags_lib.sh"

[ $# -eq 4 ] || { echo "usage: $0 TAGMODE PROVIDER_DIR MSGTRACE P2P_MIX" >&2; exit 2; }
mode=$1 E2E_PROVIDER_DIR=$2 msgtrace=$3 prog=$4
provider=${PROVIDER:-$E2E_TCP}
E2E_NP=4
E2E_NAME="tags_p2p[$provider $mode]"
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" tags
e2e_setup
mkdir "$E2E_TMP/log"
args=()
# Open MPI 4.1.4 hangs on MPI_Ssend in ofi_tag_1/2 (TAG-LAYOUTS.md).
[ "$mode" = full ] || args=(--no-ssend)
e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$provider" "$mode" "$prog" \
	--log "$E2E_TMP/log" "${args[@]}"
json=$E2E_TMP/tags.json
tags_report "$msgtrace" "$E2E_TMP/trace" "$json"
case $mode in full) layout=ofi_tag_full ;; *) layout=$mode ;; esac
tags_expect_layout "$json" "$layout"

field() { jq -r --arg f "$1" '.fields[] | select(.field == $f) |
	"\(.distinct) \(.min) \(.max)"' "$json"; }
tags=$(tags_log_values "$E2E_TMP/log" tag)
want="$(echo "$tags" | wc -l) $(echo "$tags" | head -n 1) $(echo "$tags" | tail -n 1)"
[ "$(field tag_user)" = "$want" ] ||
	e2e_fail "user tags (distinct min max): report $(field tag_user), log $want"
srcs=$(tags_log_values "$E2E_TMP/log" comm_src)
got=$(field source | cut -d' ' -f3)
[ "$got" = "$(echo "$srcs" | tail -n 1)" ] ||
	e2e_fail "largest source rank: report $got, log $(echo "$srcs" | tail -n 1)"
[ "$(field cid | cut -d' ' -f2)" = 0 ] || e2e_fail "MPI_COMM_WORLD (cid 0) not seen"
[ "$(jq '[.whatif[] | select(.in_force)] | .[0].fits' "$json")" = true ] ||
	e2e_fail "the layout in force does not fit its own run"

trunc=$(grep -h '^RECV.*status=truncated' "$E2E_TMP"/log/rank*.log |
	sed 's/.*world_src=\([0-9]*\) world_dst=\([0-9]*\) .*posted_tag=\([0-9]*\) .*/\1 \2 \3/' | sort)
got=$(jq -r '.truncations.list[] | "\(.send.rank) \(.recv.rank) \(.send.tag)"' "$json" | sort)
[ "$got" = "$trunc" ] || { diff <(echo "$trunc") <(echo "$got") >&2 || true;
	e2e_fail "truncations (send rank, receive rank, tag) differ from the log (- log, + report)"; }
e2e_note "$(echo "$tags" | wc -l) user tags, sources up to $(echo "$srcs" | tail -n 1), $(echo "$trunc" | grep -c . || true) truncation(s) as logged"
