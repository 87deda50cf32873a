#!/usr/bin/env bash
# reliab_buffer.sh PROVIDER_DIR MSGTRACE BINDIR
# Buffer exhaustion: FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=8K (the smallest,
# room for about 40 records per thread) under a run of ~22,000 records per
# rank. The output and exit status equal the untraced run's, each process
# warns once that a file reached its limit and once how many records it
# lost, and no record is lost silently: the records kept plus those counted
# as "full" in `msgtrace dump --summary` equal, exactly, the records of
# the same run traced with the default buffer (reliab_mix --no-probe makes
# the same fabric calls every run). The cost of a dropped record against a
# recorded one is measured by bench/rec_loss.sh, not here.
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
prog=("$mix" --iters 2000 --no-probe)
reliab_plain "${prog[@]}"
reliab_run big.out "$E2E_TMP/big" -- "${prog[@]}"
reliab_same_as_plain plain.out big.out
reliab_run tiny.out "$E2E_TMP/tiny" FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=8K -- "${prog[@]}"
reliab_same_as_plain plain.out tiny.out
reliab_warned tiny.out.err 'reached its size limit \(8192 bytes\)' "$E2E_NP"
reliab_warned tiny.out.err 'records lost \(size limit [1-9][0-9]*, no space 0, no file 0\)' "$E2E_NP"

"$msgtrace" dump tiny >tiny.dump 2>tiny.err ||
	e2e_fail "msgtrace dump cannot read the tiny-buffer trace: $(cat tiny.err)"
size=$(stat -c %s tiny/*.mt | sort -n | tail -1)
[ "$size" -le 8192 ] || e2e_fail "a trace file grew to $size bytes past its 8K limit"
full=$(reliab_summary_sum tiny full)
[ "$full" -gt 0 ] || e2e_fail "nothing counted as lost with an 8K buffer"
# Records of every type, summed over ranks.
records() {
	"$msgtrace" dump --summary "$1" | awk '$1 == "records:" {
		for (i = 2; i < NF; i += 2) s += $(i + 1) } END { print s + 0 }'
}
kept=$(records tiny) total=$(records big)
[ $((kept + full)) -eq "$total" ] ||
	e2e_fail "records kept ($kept) + counted lost ($full) = $((kept + full)), but the run with the default buffer recorded $total"
e2e_note "PASS: $kept records kept + $full counted lost = $total recorded with the default buffer"
