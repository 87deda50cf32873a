#!/usr/bin/env bash
# test_hostile_strings.sh MSGTRACE TRACEFILE
# Strings in a trace are data. From a real trace file, two hostile copies:
#   named  stored as "x<ESC>[2J<b>y.<pid>.<seq>.mt": the host taken from
#          the file name holds a terminal escape and markup;
#   proc   stored as "a.mt" (no host in the name, so the PROC hostname is
#          used), with that hostname and the endpoint's provider and
#          fabric names set to terminal escapes, "%n%s", CR LF followed by
#          a forged output line, and <script>.
# Every command that reads traces (dump, dump --summary, messages, report
# in text, JSON and HTML, decode, tags, export in every format) must accept
# them (exit 0) and print them inert: no control byte reaches the output, no forged line appears
# (in text; in HTML a line feed is white space), HTML holds no <script>, and `dump` shows the escaped forms
# (format directives printed as is).
set -euo pipefail
msgtrace=$1 seed=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-hostile.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
evil='\033]0;owned\a%%n%%s\r\nrank 0 FAKE<script>x</script>'

# put FILE OFFSET: write the hostile string (NUL-terminated) at OFFSET.
put() {
	printf "$evil\\0" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# Offset of the first record of type $2 in file $1 (records from 4096).
find_rec() {
	local off=4096 size type
	size=$(stat -c %s "$1")
	while [ "$off" -lt "$size" ]; do
		read -r type _ lo hi < <(od -An -tu1 -j "$off" -N4 "$1")
		[ "$type" -eq "$2" ] && { echo "$off"; return; }
		[ $((lo + 256 * hi)) -gt 0 ] || break
		off=$((off + lo + 256 * hi))
	done
	fail "no record of type $2 in $1"
}

mkdir "$work/named" "$work/proc"
rest=$(basename "$seed")
rest=${rest#*.}
cp "$seed" "$work/named/$(printf 'x\033[2J<b>y').$rest"
cp "$seed" "$work/proc/a.mt"
# struct mt_rec_proc.hostname: +56 in the PROC record (type 1);
# struct mt_rec_ep prov_name +112, fabric_name +144 (type 4).
put "$work/proc/a.mt" $(($(find_rec "$work/proc/a.mt" 1) + 56))
ep=$(find_rec "$work/proc/a.mt" 4)
put "$work/proc/a.mt" $((ep + 112))
put "$work/proc/a.mt" $((ep + 144))

for t in named proc; do
	for args in "dump --kind proc,ep" "dump --summary" "messages" "report" \
		"report --json" "report --html" "decode" "tags"; do
		# shellcheck disable=SC2086
		"$msgtrace" $args "$work/$t" >"$work/out" 2>"$work/err" ||
			fail "$t: msgtrace $args exits $? on the hostile trace: $(head -c 300 "$work/err")"
		if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$work/out" "$work/err"; then
			fail "$t: msgtrace $args printed control bytes: $(LC_ALL=C grep -a $'[\x01-\x08\x0b-\x1f\x7f]' "$work/out" | head -2 | cat -v)"
		fi
		# In HTML a line feed is only white space; markup is what matters.
		case $args in
		*html*) grep -q '<script>x' "$work/out" && fail "$t: report --html holds the trace's <script>" ;;
		*) grep -q '^rank 0 FAKE' "$work/out" && fail "$t: msgtrace $args let the trace forge an output line" ;;
		esac
	done
done
# The exports: output only where -o says (run from an empty directory that
# must stay empty), no control byte in the JSON and CSV, valid JSON, and an
# OTF2 archive otf2-print reads, holding only its own files.
mkdir "$work/cwd"
for t in named proc; do
	rm -rf "$work/x"
	mkdir "$work/x"
	(cd "$work/cwd" &&
		"$msgtrace" export --chrome -o "$work/x/t.json" "$work/$t" &&
		"$msgtrace" export --csv -o "$work/x/t" "$work/$t" &&
		"$msgtrace" export --otf2 -o "$work/x/otf2" "$work/$t") 2>"$work/err" ||
		fail "$t: msgtrace export fails on the hostile trace: $(head -c 300 "$work/err")"
	[ -z "$(ls -A "$work/cwd")" ] || fail "$t: export wrote outside -o: $(ls -A "$work/cwd")"
	if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$work"/x/t.*; then
		fail "$t: an export holds control bytes: $(LC_ALL=C grep -la $'[\x01-\x08\x0b-\x1f\x7f]' "$work"/x/t.*)"
	fi
	jq empty "$work/x/t.json" || fail "$t: export --chrome wrote invalid JSON"
	otf2-print "$work/x/otf2/traces.otf2" >/dev/null ||
		fail "$t: otf2-print cannot read the export"
	[ "$(cd "$work/x/otf2" && find . -mindepth 1 -maxdepth 1 | sort | tr '\n' ' ')" = \
		"./traces ./traces.def ./traces.otf2 " ] ||
		fail "$t: the OTF2 archive holds other files: $(ls -A "$work/x/otf2")"
done
"$msgtrace" dump --kind proc,ep "$work/proc" >"$work/out"
# host holds 64 bytes, prov and fabric 32: the string cut there.
grep -qF 'host=\x1b]0;owned\x07%n%s\x0d\x0arank 0 FAKE<script>x</script> ' "$work/out" ||
	fail "dump does not show host= escaped: $(head -c 400 "$work/out")"
for field in prov fabric; do
	grep -qF " $field="'\x1b]0;owned\x07%n%s\x0d\x0arank 0 FAKE<scri ' "$work/out" ||
		fail "dump does not show $field= escaped, cut at 32 bytes: $(grep ' ep ' "$work/out" | head -c 600)"
done
"$msgtrace" dump --summary "$work/named" | grep -qF 'host x\x1b[2J<b>y ' ||
	fail "dump --summary does not show the file-name host escaped"
echo "PASS: hostile host, provider and fabric names printed inert by every command"
