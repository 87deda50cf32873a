#!/usr/bin/env bash
# decode_p2p_mix.sh PROVIDER TAGMODE PROVIDER_DIR MSGTRACE P2P_MIX
#
# decode/ end to end: a traced 4-rank p2p_mix run (p2p_mix.c, logging
# through mpilog.h) in one Open MPI tag mode over one libfabric provider.
# `msgtrace decode` must find that mode on every endpoint with high
# confidence, decode no operation with bits the layout does not explain,
# and give back every send and delivered receive exactly as the program
# logged it: communicator, rank in the communicator, tag
# (decode_compare.awk). Decoding the same trace under a wrong layout must
# fail that comparison, which shows it can.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

[ $# -eq 5 ] || { echo "usage: $0 PROVIDER TAGMODE PROVIDER_DIR MSGTRACE P2P_MIX" >&2; exit 2; }
provider=$1 mode=$2 E2E_PROVIDER_DIR=$3 msgtrace=$4 prog=$5
E2E_NAME="decode_p2p_mix[$provider $mode]"
e2e_need_file "$prog" "p2p_mix"
e2e_need_file "$msgtrace" "the msgtrace command"
case $mode in
full) layout=ofi_tag_full wrong=ofi_tag_1 args=() ;;
ofi_tag_1) layout=ofi_tag_1 wrong=ofi_tag_2 args=(--no-ssend) ;;
ofi_tag_2) layout=ofi_tag_2 wrong=ofi_tag_1 args=(--no-ssend) ;;
*) e2e_fail "unknown tag mode '$mode' (full, ofi_tag_1, ofi_tag_2)" ;;
esac
e2e_setup
cd "$E2E_TMP"

mkdir log
e2e_run_ok out trace "$provider" "$mode" "$prog" --log log "${args[@]}"
e2e_check_trace trace 4
"$msgtrace" decode --ops trace >decoded 2>decoded.err ||
	{ cat decoded.err >&2; e2e_fail "msgtrace decode failed on the trace"; }

n=$(grep -c ": $layout, confidence high$" decoded || true)
[ "$n" = 4 ] || { grep -v '^rank=' decoded >&2; e2e_fail "$layout found on $n of 4 endpoints"; }
if grep -E ' (stray-bits|odd-ignore|maybe-aliased)' decoded >&2; then
	e2e_fail "operations the layout does not explain (above)"
fi
grep -q ' internal ' decoded || e2e_fail "no collective traffic decoded"
awk -f "$here/decode_compare.awk" log/rank*.log decoded ||
	e2e_fail "decoded operations differ from the program's log (above)"

"$msgtrace" decode --ops --layout "$wrong" trace >wrong
awk -f "$here/decode_compare.awk" log/rank*.log wrong >/dev/null &&
	e2e_fail "decoding under $wrong also matches the log: the check cannot fail"
e2e_note "decoded as logged; --layout $wrong does not match"
