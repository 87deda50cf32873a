#!/usr/bin/env bash
# reliab_threads.sh dup|same PROVIDER_DIR MSGTRACE BINDIR
# MPI_THREAD_MULTIPLE: 2 ranks x 4 threads, each thread exchanging
# RELIAB_MSGS (default 1000) messages with its twin on the other rank, on
# its own MPI_Comm_dup (dup) or all on MPI_COMM_WORLD (same). No record is
# lost or torn: the trace reads cleanly with nothing counted lost, and for
# every (rank, thread tag) it holds exactly the sends and receives the
# thread counted, all posted from one trace file (the thread's own), and
# exactly as many receive completions (read by whichever thread polled).
# Full size: RELIAB_MSGS=100000 (see scripts/reliab; about 30 min here).
# Under ThreadSanitizer: scripts/reliab tsan.
mode=$1
shift
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
e2e_need_file "$threads" "reliab_threads"
args=(--threads 4 --msgs "${RELIAB_MSGS:-1000}")
case $mode in
dup) ;;
same) args+=(--same-comm) ;;
*) e2e_fail "unknown mode '$mode' (dup or same)" ;;
esac

E2E_TIMEOUT=${E2E_TIMEOUT:-200} reliab_run traced.out "$E2E_TMP/trace" ${RELIAB_ENV:-} -- "$threads" "${args[@]}"
[ "$(cat traced.out.rc)" = 0 ] ||
	{ tail -n 20 traced.out.err >&2; e2e_fail "traced threaded run failed (status $(cat traced.out.rc))"; }
reliab_no_warning traced.out.err
[ "$(grep -c '^rank' traced.out)" -eq 8 ] || e2e_fail "expected 8 thread lines: $(cat traced.out)"
"$msgtrace" dump --kind op,cqe trace >dump.txt 2>dump.err ||
	e2e_fail "msgtrace dump fails on the threaded trace: $(cat dump.err)"
lost=$(($(reliab_summary_sum trace full) + $(reliab_summary_sum trace nospace) +
	$(reliab_summary_sum trace nofile)))
[ "$lost" -eq 0 ] || e2e_fail "$lost records counted lost"

# Per "r<rank> <tag>": sends, receives posted, files posting them, receive
# completions. Tags are the low 32 bits of the fabric tag (ofi_tag_full).
awk '$4 == "app" {
	tag = ""
	for (i = 6; i <= NF; i++) if ($i ~ /^tag=0x/) tag = substr($i, 15)
	k = $2 " " tag
	if ($5 == "op" && $6 ~ /^(tsend|tinject)/) { s[k]++; f[k "," $3] = 1 }
	else if ($5 == "op" && $6 ~ /^trecv/) { r[k]++; f[k "," $3] = 1 }
	else if ($5 == "cqe" && $0 ~ /FI_RECV/) c[k]++
}
END {
	for (kf in f) { split(kf, p, ","); nf[p[1]]++ }
	for (k in s) print k, s[k], r[k] + 0, nf[k], c[k] + 0
}' dump.txt | sort >counted
while read -r _ rank _ t _ tag _ sent _ received _ _; do
	hex=$(printf '%08x' "$tag")
	line=$(grep "^r$rank $hex " counted || true)
	[ "$line" = "r$rank $hex $sent $received 1 $received" ] ||
		e2e_fail "rank $rank thread $t (tag $tag) sent $sent and received $received; trace: '${line:-nothing}' (sends receives files completions)"
done <traced.out
e2e_note "PASS ($mode): 8 threads x ${RELIAB_MSGS:-1000} messages each way, every one in the trace"
