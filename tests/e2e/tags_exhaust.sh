#!/usr/bin/env bash
# tags_exhaust.sh PROVIDER_DIR MSGTRACE TAGS_COMMS
#
# Communicator-id exhaustion in ofi_tag_1 (2 ranks, $E2E_TCP):
# tags_comms duplicates MPI_COMM_WORLD until MPI_Comm_dup fails (Open MPI
# refuses near the 12-bit field's 4,095) and sends a message on the last
# duplicate. `msgtrace tags` must show the communicator-id field full:
# largest cid = 3 + duplicates - 1, 0 bits free, at least 99.9% used, and
# "0.0%" free in the text. Takes about 12 s here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/tags_lib.sh"

[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE TAGS_COMMS" >&2; exit 2; }
E2E_PROVIDER_DIR=$1 msgtrace=$2 prog=$3
E2E_NP=2
E2E_NAME="tags_exhaust[ofi_tag_1]"
E2E_TIMEOUT=${E2E_TIMEOUT:-120}
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" tags
e2e_setup
mkdir "$E2E_TMP/log"
e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$E2E_TCP" ofi_tag_1 "$prog" \
	--log "$E2E_TMP/log" --dups -1 --every 1000
n=$(sed -n 's/^communicators duplicated: \([0-9]*\);.*/\1/p' "$E2E_TMP/out")
[ -n "$n" ] || e2e_fail "the program did not say how many duplicates it got"
limit=$(tags_cid_limit ofi_tag_1 0xaaaaaaaaaaaaaaaa)
[ "$n" -lt "$limit" ] || e2e_fail "$n duplicates: MPI_Comm_dup never failed"
want=$((3 + n - 1))

json=$E2E_TMP/tags.json
tags_report "$msgtrace" "$E2E_TMP/trace" "$json"
tags_expect_layout "$json" ofi_tag_1
read -r max free pct < <(jq -r '.fields[] | select(.field == "cid") |
	"\(.max) \(.headroom_bits) \(.pct_used)"' "$json")
[ "$max" -eq "$want" ] || e2e_fail "largest cid $max, expected $want after $n duplicates"
[ "$free" -eq 0 ] || e2e_fail "cid field: $free bits free, expected 0"
awk -v p="$pct" 'BEGIN { exit !(p >= 99.9) }' ||
	e2e_fail "cid field $pct% used, expected at least 99.9%"
line=$(grep '^  communicator id' "$json.txt")
case $line in
*" 0/12 "*" 0.0% "*) ;;
*) e2e_fail "the text does not show the cid field full: $line" ;;
esac
e2e_note "$n duplicates, largest cid $max of $limit: $line"
