#!/usr/bin/env bash
# A traced 2-rank ping-pong over $E2E_TCP (fabric.sh): the program's output is the
# same as untraced, each rank wrote one valid 0600 file whose PROC record
# has its rank, and the application layer holds exactly the sends, receives
# and receive completions the program made (5 sizes x 3 round trips, MPI
# tags 0..4 on MPI_COMM_WORLD, so the full 64-bit tag is the MPI tag).
. "$(dirname "$0")/provider_lib.sh"

run_pp -- 3 >plain.txt || fail "untraced run failed"
run_pp FI_PROVIDER_PATH="$provdir" FI_HOOK=msgtrace \
	FI_OFI_HOOK_MSGTRACE_DIR="$work/trace" -- 3 >traced.txt ||
	fail "traced run failed"
diff <(sort plain.txt) <(sort traced.txt) || fail "output changed by tracing"

check_dir trace >facts.txt
[ "$(stat -c %a trace)" = 700 ] || fail "trace directory is not 0700"
[ "$(grep -c '^file ' facts.txt)" = 2 ] || fail "expected 2 trace files"
grep '^file ' facts.txt | grep -v ' mode 600 ' && fail "file mode is not 0600"
grep '^file ' facts.txt | grep -v ' closed 1 ' && fail "file not closed cleanly"
for r in 0 1; do
	grep -q "^proc .* rank $r size 2 local $r " facts.txt ||
		fail "no PROC record for rank $r"
done
grep -q ' layer 1 ' facts.txt && fail "internal layer recorded by default"

for f in $(grep '^file ' facts.txt | cut -d' ' -f2); do
	sends=$(grep -Ec "^op $f layer 0 T(INJECT|SEND)(DATA)? tag 0x[0-4] " facts.txt || true)
	recvs=$(grep -Ec "^op $f layer 0 TRECV tag 0x[0-4] " facts.txt || true)
	cqes=$(grep -Ec "^cqe $f layer 0 RECV tag 0x[0-4] .* err 0$" facts.txt || true)
	[ "$sends" = 15 ] || fail "$f: $sends application sends, expected 15"
	[ "$recvs" = 15 ] || fail "$f: $recvs application receives, expected 15"
	[ "$cqes" = 15 ] || fail "$f: $cqes receive completions, expected 15"
done

# The reader library (msgtrace dump) agrees: per rank 15 + 1 barrier
# receive, nothing lost, files closed cleanly.
"$msgtrace" dump --summary trace >summary.txt || fail "msgtrace dump rejects the trace"
[ "$(grep -c '(all closed cleanly)' summary.txt)" = 2 ] || fail "dump: not 2 clean ranks"
[ "$(grep -c 'ops: .*trecv 16' summary.txt)" = 2 ] || fail "dump: trecv counts differ"
[ "$(grep -c 'lost: full 0 nospace 0 nofile 0 ' summary.txt)" = 2 ] || fail "dump: losses"
echo "PASS: provider_trace"
