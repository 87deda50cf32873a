#!/usr/bin/env bash
# reliab_concurrent.sh PROVIDER_DIR MSGTRACE BINDIR
# Two jobs trace into the same directory at the same time. Each job's
# output equals the untraced run's, neither logs a warning, the directory
# holds the files of all four processes, `msgtrace dump` reads them all,
# and every process's record counts equal those of the same job traced
# alone (reliab_mix --no-probe makes the same fabric calls every run), so
# neither job's files were touched by the other.
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
prog=("$mix" --iters 1500 --no-probe)

reliab_plain "${prog[@]}"
reliab_run solo.out "$E2E_TMP/solo" -- "${prog[@]}"
reliab_same_as_plain plain.out solo.out

mkdir shared
reliab_run a.out "$E2E_TMP/shared" -- "${prog[@]}" &
a=$!
reliab_run b.out "$E2E_TMP/shared" -- "${prog[@]}" &
b=$!
wait $a $b
for j in a b; do
	reliab_same_as_plain plain.out $j.out
	reliab_no_warning $j.out.err
done
e2e_check_trace shared $((2 * E2E_NP))
"$msgtrace" dump shared >/dev/null 2>dump.err ||
	e2e_fail "msgtrace dump fails on the shared directory: $(cat dump.err)"
counts() {
	"$msgtrace" dump --summary "$1" | grep '^  records:' | sort | uniq -c
}
counts solo | awk '{ $1 = $1 * 2; print }' >expected
counts shared | awk '{ $1 = $1; print }' >actual
e2e_same_output expected actual "per-process record counts of the two jobs differ from a job traced alone"
e2e_note "PASS: two jobs, $(ls shared | wc -l) files, every process's counts as when traced alone"
