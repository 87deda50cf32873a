#!/usr/bin/env bash
# test_cmd_tags.sh MSGTRACE [GEN_TRACE] - `msgtrace tags`: usage and input
# errors with their exit codes, and on bench/gen_trace's synthetic
# ofi_tag_full trace (when built): valid JSON with every section, the five
# text sections, --mem-tag-format adding three what-if cases.
set -u
# shellcheck disable=SC2034 # bin: cmd_lib.sh runs it
bin=$1 gen=${2:-}
# shellcheck source=cmd_lib.sh
. "$(dirname "$0")/cmd_lib.sh"

run 0 tags --help
grep -q "Usage: msgtrace tags" "$dir/out" || fail "tags --help has no usage line"
for word in "LAYOUT IN FORCE" "FIELD USAGE" WHAT-IF "INTERNAL TAGS" "TRUNCATION ERRORS" \
	--mem-tag-format --json; do
	grep -q -- "$word" "$dir/out" || fail "tags --help does not explain $word"
done
run 2 tags
grep -q "no trace given" "$dir/err" || fail "tags without a trace: $(cat "$dir/err")"
run 2 tags --bogus "$dir"
run 2 tags --csv "$dir"
run 2 tags --layout ofi_tag_9 "$dir"
grep -q "^msgtrace tags: --layout: unknown layout 'ofi_tag_9'" "$dir/err" ||
	fail "tags --layout: $(cat "$dir/err")"
for bad in zz 0 -5 0x1ffffffffffffffff; do
	run 2 tags --mem-tag-format "$bad" "$dir"
	grep -q -- "--mem-tag-format: '$bad'" "$dir/err" ||
		fail "--mem-tag-format $bad: $(cat "$dir/err")"
done
run 2 tags --mem-tag-format 1 --mem-tag-format 2 --mem-tag-format 3 \
	--mem-tag-format 4 --mem-tag-format 5 "$dir"
run 1 tags "$dir/missing"
grep -q "$dir/missing" "$dir/err" || fail "tags does not name the missing path"

if [ -n "$gen" ]; then
	"$gen" "$dir/t" 1000 4 || fail "gen_trace failed"
	run 0 tags --json "$dir/t"
	jq -e '.layout.layout == "ofi_tag_full" and (.endpoints | length) == 4 and
		(.fields | length) == 4 and (.whatif | length) == 6 and
		([.whatif[] | select(.in_force)] | length) == 1 and
		.truncations.count == 0' "$dir/out" >/dev/null ||
		fail "tags --json: $(head -c 300 "$dir/out")"
	run 0 tags --json --mem-tag-format 0x00ffffffffffffff "$dir/t"
	jq -e '[.whatif[] | select(.case.mem_tag_format == "0x00ffffffffffffff")] |
		length == 3 and (map(select(.case.layout == "ofi_tag_1")) | .[0].mpi_starts
		== false)' "$dir/out" >/dev/null ||
		fail "--mem-tag-format case: $(head -c 300 "$dir/out")"
	run 0 tags "$dir/t"
	for s in "LAYOUT IN FORCE" "FIELD USAGE" "WHAT-IF" "INTERNAL TAGS" "TRUNCATION ERRORS"; do
		grep -q "^$s" "$dir/out" || fail "text has no $s section"
	done
fi

[ "$fails" = 0 ] && echo "cmd_tags: all checks passed"
exit $((fails > 0))
