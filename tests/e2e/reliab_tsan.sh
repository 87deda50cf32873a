#!/usr/bin/env bash
# reliab_tsan.sh PROVIDER_DIR MSGTRACE BINDIR
# Only in a build with -DMSGTRACE_TSAN=ON (scripts/reliab tsan): the provider
# and reliab_threads carry ThreadSanitizer; reliab_threads runs 2 ranks x
# 4 threads x RELIAB_MSGS (default 300) messages on dup'ed communicators,
# then on one. The runs must succeed with every message in the trace, and
# TSan must report nothing whose first frame outside the TSan runtime is
# msgtrace's provider code. Open MPI and libfabric are not instrumented,
# so TSan sees their locks but not the memory they protect and reports
# races and lock-order cycles inside them by the hundred; those are
# counted and listed by function, not failed on. Open MPI's memory patcher
# crashes under TSan (SIGSEGV with or without the hook), hence
# --mca memory ^patcher.
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
mkdir tsan
export TSAN_OPTIONS="halt_on_error=0 exitcode=0 report_signal_unsafe=0 log_path=$E2E_TMP/tsan/report"
export RELIAB_MPIRUN_ARGS="--mca memory ^patcher -x TSAN_OPTIONS"
for mode in dup same; do
	RELIAB_MSGS=${RELIAB_MSGS:-300} E2E_KEEP=1 TMPDIR=$E2E_TMP \
		"$here/reliab_threads.sh" "$mode" "$E2E_PROVIDER_DIR" "$msgtrace" "$bindir" ||
		e2e_fail "reliab_threads $mode failed under TSan"
done

# One line per report: "<kind> <first non-runtime frame of each stack>".
reports() {
	awk '
	/WARNING: ThreadSanitizer:/ { if (r) print r; sub(/.*ThreadSanitizer: /, ""); sub(/ \(.*/, ""); r = $0; want = 0; next }
	/^  [A-Z].*:$/ || /^  (Read|Write|Atomic|Previous|Mutex)/ { want = 1; next }
	want && /#[0-9]+ / && !/libtsan|sanitizer_common|tsan_interceptors/ {
		f = $2; if ($3 ~ /\//) f = f "@" $3; r = r " " f; want = 0 }
	END { if (r) print r }' tsan/report.* 2>/dev/null || true
}
reports >all
ours=$(grep -E '@[^ ]*/provider/' all || true)
[ -z "$ours" ] || { echo "$ours" | sort | uniq -c >&2; e2e_fail "ThreadSanitizer reports in msgtrace's provider (above; full reports in $E2E_TMP/tsan)"; }
e2e_note "foreign TSan reports (Open MPI/libfabric internals, ignored): $(wc -l <all)"
sort all | uniq -c | sort -rn | head -n 5 | sed 's/^/    /'
e2e_note "PASS: no ThreadSanitizer report in the provider"
