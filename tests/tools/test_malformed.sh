#!/usr/bin/env bash
# test_malformed.sh MSGTRACE TRACEFILE
# Malformed trace files through the msgtrace binary (the reader's own
# unit tests, tests/trace, cover the library; this covers what users run).
# From one real trace file:
#   - truncated at every offset of its header struct and of its records,
#     and every 64th of the header page's padding;
#   - every bit of the header struct flipped, and one bit of every 4th
#     record byte;
#   - wrong version, data offset and committed size past the end, absurd
#     capacity, a record size running past the end, a zero record size,
#     loss counters at their maximum.
# Each run of `msgtrace dump --summary` (and of `msgtrace dump` for every
# 8th case) must end within 5 s under a 512 MiB address-space limit with
# exit 0 or 1, never a signal; exit 1 must come with one line naming the
# file and the offset at fault. Files cut short must be rejected (exit 1)
# once the magic is there. MALFORMED_STRIDE=N (default 1) truncates and
# flips at every Nth record byte only: ctest uses 8 (records are 8-byte
# aligned, so every boundary is still cut); the full run is 2 minutes.
# Under ASan, where each run pays the sanitizer's start-up and leak check,
# one bit of each header byte is flipped (a different bit in each byte)
# instead of all eight: the normal build flips them all.
set -euo pipefail
msgtrace=$1 seed=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-malformed.XXXXXX")
trap 'rm -rf "$work"' EXIT
f=$work/bad.mt
size=$(stat -c %s "$seed")
LIMIT_MB=512
. "$(dirname "$0")/../sanitizer_env.sh"
HDR=96 DATA=4096 runs=0 rejected=0 stride=${MALFORMED_STRIDE:-1}

fail() { echo "FAIL: $*" >&2; exit 1; }

# check CASE MUST_REJECT [ANY_MESSAGE]: run msgtrace on $f as described
# above; ANY_MESSAGE=1 lets an error name the file without an offset (a
# file too short to hold a magic is "a header never written").
check() {
	local what=$1 must=$2 st cmds=("dump --summary") offset_re='offset [0-9]+: '
	[ "${3:-0}" = 1 ] && offset_re=''
	[ $((runs % 8)) -eq 0 ] && cmds+=("dump")
	for c in "${cmds[@]}"; do
		st=0
		# shellcheck disable=SC2086
		(ulimit -v $vlimit; exec timeout 5 "$msgtrace" $c "$f") \
			>/dev/null 2>"$work/err" || st=$?
		runs=$((runs + 1))
		[ "$st" -le 1 ] || fail "$what: msgtrace $c exit status $st: $(head -c 300 "$work/err")"
		[ "$must" = 0 ] || [ "$st" -eq 1 ] || fail "$what: msgtrace $c accepted it (exit 0)"
		if [ "$st" -eq 1 ]; then
			rejected=$((rejected + 1))
			grep -qE "^msgtrace dump: $f: ${offset_re}" "$work/err" ||
				fail "$what: msgtrace $c error does not name file and offset: $(head -c 300 "$work/err")"
		fi
	done
}

# put OFFSET HEXBYTES...: overwrite bytes of $f.
put() {
	local off=$1
	shift
	printf "$(printf '\\x%s' "$@")" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}

# Truncations. The empty file and cuts inside the magic may be taken for
# a file whose header was never written, which a reader may skip.
for ((off = 0; off < size; off++)); do
	if [ "$off" -ge "$HDR" ] && [ "$off" -lt "$DATA" ] && [ $((off % 64)) -ne 0 ]; then
		continue
	fi
	[ "$off" -ge "$DATA" ] && [ $(((off - DATA) % stride)) -ne 0 ] && continue
	head -c "$off" "$seed" >"$f"
	if [ "$off" -ge 8 ]; then
		check "truncated at $off" 1
	else
		check "truncated at $off" 0 1
	fi
done

# Bit flips: anything may be accepted, nothing may crash.
for ((bit = 0; bit < HDR * 8; bit++)); do
	[ "$asan" = 1 ] && [ $((bit % 8)) -ne $((bit / 8 % 8)) ] && continue
	cp "$seed" "$f"
	byte=$(od -An -tu1 -j $((bit / 8)) -N1 "$seed")
	put $((bit / 8)) "$(printf '%02x' $((byte ^ (1 << (bit % 8)))))"
	check "header bit $bit flipped" 0
done
for ((off = DATA; off < size; off += 4 * stride)); do
	cp "$seed" "$f"
	byte=$(od -An -tu1 -j "$off" -N1 "$seed")
	put "$off" "$(printf '%02x' $((byte ^ (1 << (off % 8)))))"
	check "record byte $off bit $((off % 8)) flipped" 0
done

# Named defects (little-endian fields of struct mt_file_hdr / mt_rec_hdr).
cp "$seed" "$f"; put 8 03 00 00 00
check "version 3" 1
grep -q "format version 3" "$work/err" || fail "version 3 not named: $(cat "$work/err")"
cp "$seed" "$f"; put 16 f8 ff ff ff ff ff ff 7f
check "data offset near 2^63" 1
cp "$seed" "$f"; put 24 00 00 00 00 00 00 00 40
check "committed 2^62" 1
cp "$seed" "$f"; put 32 ff ff ff ff ff ff ff ff; put 24 00 00 00 00 00 00 00 40
check "committed 2^62 within an absurd capacity" 1
cp "$seed" "$f"; put $((DATA + 2)) f8 ff
check "first record size 65528, past the end" 1
cp "$seed" "$f"; put $((DATA + 2)) 00 00
check "first record size 0" 1
cp "$seed" "$f"; put 56 ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff
check "loss counters at UINT64_MAX" 0
echo "PASS: $runs runs on $((size)) bytes of real trace, $rejected rejected with file and offset, no crash or hang"
