#!/usr/bin/env bash
# ep_layouts.sh GEN_TRACE MSGTRACE - each endpoint matches under its own
# layout: processes 0-1 use ofi_tag_full (SYNC bit 32), 2-3 ofi_tag_2 (SYNC
# bit 20), every message a synchronous send whose receive completion omits
# the SYNC bit. Under endpoint 0's layout alone, the 2 <-> 3 messages found
# no partner (100 unmatched sends and 100 unmatched receives).
set -euo pipefail
gen=$1 mt=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-layouts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$gen" --pattern layouts "$tmp/trace" 200 4
"$mt" tags "$tmp/trace" > "$tmp/tags"
grep -q 'rank 2 ep 2 .*: ofi_tag_2,' "$tmp/tags" || { cat "$tmp/tags"; echo "FAIL: ep 2 not ofi_tag_2"; exit 1; }
grep -q 'rank 0 ep 0 .*: ofi_tag_full,' "$tmp/tags" || { cat "$tmp/tags"; echo "FAIL: ep 0 not ofi_tag_full"; exit 1; }
"$mt" messages --csv "$tmp/trace" > "$tmp/msgs.csv"
# Every message generated: 50 each way on each pair, all matched Ssends.
got=$(awk -F, 'NR > 1 { n[$1 "->" $2 " " $6 " " $12]++ }
	END { for (k in n) print k, n[k] }' "$tmp/msgs.csv" | sort | tr '\n' ';')
want='0->1 ssend matched 50;1->0 ssend matched 50;2->3 ssend matched 50;3->2 ssend matched 50;'
if [ "$got" != "$want" ]; then
	echo "FAIL: messages by pair, kind, status: $got (want $want)"
	exit 1
fi
echo "ok: 200 synchronous messages matched under two layouts"
