#!/bin/sh
# symbols.sh PREFIXES=FILES... - every global symbol a library defines
# carries its library's prefix. Each argument names the prefixes a
# library's symbols may start with (comma-separated) and its archive or
# object files (colon-separated), e.g. "mt_trace_=trace/libmt_trace.a".
# Prints each symbol that does not, and fails if there is one. Symbols the
# sanitizers add for a global (__odr_asan.NAME) are checked as NAME.
bad=0
for arg in "$@"; do
	prefixes=${arg%%=*}
	files=$(echo "${arg#*=}" | tr ':' ' ')
	pattern=$(echo "$prefixes" | sed 's/,/|/g; s/[^|]*/^&/g')
	# shellcheck disable=SC2086 # files: one word each
	out=$(nm -g --defined-only $files 2>&1) || { echo "symbols: nm $files: $out"; exit 1; }
	wrong=$(echo "$out" | awk 'NF == 3 { sub(/^__odr_asan\./, "", $3); print $3 }' |
		grep -Ev "$pattern" | sort -u)
	n=$(echo "$out" | awk 'NF == 3' | wc -l)
	if [ -n "$wrong" ]; then
		echo "symbols: without a prefix $prefixes in ${arg#*=}:"
		echo "$wrong" | sed 's/^/  /'
		bad=1
	fi
	echo "symbols: $prefixes: $n global symbols checked"
done
exit $bad
