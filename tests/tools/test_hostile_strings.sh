#!/usr/bin/env bash
# test_hostile_strings.sh MSGTRACE TRACEFILE
# Strings in a trace are data: a real trace file whose PROC hostname holds
# terminal escapes, format directives, a newline and markup, stored under a
# file name whose host part holds an escape too, must come out of
# `msgtrace dump` and `dump --summary` as inert text: no control byte
# reaches the output, "%n%s" is printed as is, no forged line appears, and
# the escaped forms are there to read.
set -euo pipefail
msgtrace=$1 seed=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

base=$(basename "$seed")		# <host>.<pid>.<seq>.mt
rest=${base#*.}
name=$(printf 'x\033[2Jy').$rest
cp "$seed" "$work/$name"
# struct mt_rec_proc.hostname: the first record (at 4096) + 56, 64 bytes.
printf '\033]0;owned\a%%n%%s\r\nrank 0 FAKE<script>x</script>\0' |
	dd of="$work/$name" bs=1 seek=$((4096 + 56)) conv=notrunc status=none

for args in "dump --kind proc" "dump --summary"; do
	# shellcheck disable=SC2086
	"$msgtrace" $args "$work" >"$work/out" 2>"$work/err" ||
		fail "msgtrace $args exits $? on the hostile trace: $(cat "$work/err")"
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$work/out"; then
		fail "msgtrace $args printed control bytes: $(od -c "$work/out" | head)"
	fi
	grep -q '^rank 0 FAKE' "$work/out" && fail "msgtrace $args let the trace forge an output line"
	case $args in
	*proc*)
		grep -qF 'host=\x1b]0;owned\x07%n%s\x0d\x0arank 0 FAKE<script>x</script>' "$work/out" ||
			fail "hostname not printed escaped: $(cat "$work/out")" ;;
	*summary*)
		grep -qF 'host x\x1b[2Jy ' "$work/out" ||
			fail "file-name host not printed escaped: $(cat "$work/out")" ;;
	esac
done
echo "PASS: hostile hostname and file name printed as escaped text"
