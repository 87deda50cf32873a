#!/usr/bin/env bash
# test_cmd_tag.sh MSGTRACE - `msgtrace tag`: decodings, filters, exit codes.
set -u
bin=$1
fails=0
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

# run EXPECTED_RC ARGS...: run msgtrace, check its exit status.
run() {
	local want=$1; shift
	"$bin" "$@" >"$out" 2>"$err"
	local rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL: msgtrace $* exited $rc, expected $want"; cat "$err"; fails=$((fails + 1))
	fi
}
# has FILE TEXT: FILE contains the line TEXT (fixed string, whole line).
has() {
	if ! grep -qxF -- "$2" "$1"; then
		echo "FAIL: expected line '$2' in:"; cat "$1"; fails=$((fails + 1))
	fi
}
contains() {
	if ! grep -qF -- "$2" "$1"; then
		echo "FAIL: expected '$2' in:"; cat "$1"; fails=$((fails + 1))
	fi
}

run 0 --help
contains "$out" "tag        decode a 64-bit tag under one or every tag layout"
run 0 tag --help
contains "$out" "Usage: msgtrace tag HEX"
contains "$out" "  ofi_tag_2          Open MPI 4.1-5.0: cid 24 | source 18 | proto 2 | tag 20"

# Open MPI ofi_tag_1: cid 3, source 5, Ssend, tag 7.
run 0 tag 0x0030001500000007 --layout ofi_tag_1
has "$out" "protocol  ssend-data"
has "$out" "cid       3 (max 4095, 12 usable bits)"
has "$out" "source    5"
has "$out" "mpi tag   7"
has "$out" "notes     user"

# ofi_tag_full: the source is in the CQ data; -16 is the barrier's tag.
run 0 tag 0xcfffffff0 --data 2 --layout ofi_tag_full
has "$out" "cid       3 (max 1073741823, 30 usable bits)"
has "$out" "source    2"
has "$out" "mpi tag   -16"
has "$out" "notes     internal"
run 0 tag 0xcfffffff0 --layout ofi_tag_full
has "$out" "source    unknown (travels in CQ data: give --data)"

# ofi_tag_2 sign-extends from bit 19; the net provider's mem_tag_format.
run 0 tag 0x00000300000ffff0 --layout ofi_tag_2 --mem-tag-format 0x5555555555555555
has "$out" "cid       3 (max 8388607, 23 usable bits)"
has "$out" "mpi tag   -16"

# Receive filters: ANY_SOURCE+ANY_TAG as Open MPI posts them.
run 0 tag 0x0030000000000000 --ignore 0x000ffffd7fffffff --layout ofi_tag_1
has "$out" "receive   recv"
has "$out" "source    ANY (MPI_ANY_SOURCE)"
has "$out" "mpi tag   ANY (MPI_ANY_TAG)"
run 0 tag 0x0030000000000000 --ignore 0x000ffffd7fffffff --layout ofi_tag_2
has "$out" "receive   recv (ignore mask not built by this layout's MPI)"
run 0 tag 0xc00000007 --ignore 0x100000000 --directed --peek --layout ofi_tag_full
has "$out" "receive   probe"
has "$out" "source    unknown (the receive's src_addr names it)"
run 0 tag 0x0030001600000007 --ignore 0 --layout ofi_tag_1
has "$out" "receive   ssend-ack-recv"
has "$out" "notes     user,source=ssender"

# Table over every layout.
run 0 tag 0x0030001500000007
has "$out" "tag 0x0030001500000007"
contains "$out" "LAYOUT             CID        SOURCE   MPI-TAG     PROTOCOL       NOTES"
has "$out" "ofi_tag_1          3          5        7           ssend-data     user"
[ "$(grep -c '^mpich-' "$out")" = 11 ] || { echo "FAIL: 11 MPICH rows expected"; fails=$((fails + 1)); }
run 0 tag 0x0030000000000000 --ignore 0x000ffffd7fffffff
has "$out" "ofi_tag_1          3          ANY      ANY         recv           -"

# Usage errors: exit 2 and a message naming the culprit.
run 2 tag
contains "$err" "expected exactly one tag"
run 2 tag 0xzz
contains "$err" "tag: 'zz' is not a hexadecimal 64-bit number"
run 2 tag 0x12345678901234567
contains "$err" "is not a hexadecimal 64-bit number"
run 2 tag 1 --ignore -5
contains "$err" "--ignore: '-5' is not a hexadecimal"
run 2 tag 1 --data 12abc
contains "$err" "--data: '12abc'"
run 2 tag 1 --layout ofi_tag_3
contains "$err" "unknown layout 'ofi_tag_3'; valid: raw ofi_tag_full ofi_tag_1 ofi_tag_2 mpich-3.3-data"
run 2 tag 1 --bogus
contains "$err" "unknown or incomplete option '--bogus'"
run 2 tag 1 --peek
contains "$err" "give its --ignore mask too"
run 2 tag 1 2

[ "$fails" = 0 ] && echo "cmd_tag: all checks passed"
exit $((fails > 0))
