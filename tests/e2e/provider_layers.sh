#!/usr/bin/env bash
# ALL_LAYERS under tcp;ofi_rxm: rxm's inner tcp objects come out internal
# (layer 1), and the tcp layer carries every eager send the application
# made, as rxm's protocol on this libfabric has it:
#   1.x  rxm drives tcp with tagged sends carrying the application's very
#        tags and lengths (its dynamic-receive-buffer protocol), kept under
#        the hook; under FI_HOOK="noop;msgtrace" (libfabric's wrapping hook
#        below ours) the tcp layer shows no tagged op at all: wrapping
#        changes the protocol, cloning does not;
#   2.x  rxm drives tcp with untagged sends only, each eager application
#        send of L bytes one send of L + H bytes (H, rxm's header, the same
#        for all), into receive buffers rxm posts itself; the noop hook
#        changes nothing there, so both runs show the same tcp-layer sends.
. "$(dirname "$0")/provider_lib.sh"
# A check that fails without saying so (a pipeline under pipefail) still
# says where.
trap 'fail "provider_layers.sh line $LINENO: a command failed unexpectedly"' ERR
export PP_PROVIDER=$E2E_RXM
fi_major=${E2E_FI_API%%.*}

# sends FILE DUMP LAYER KINDS: "tag len" of the sends of KINDS (a regex of
# op names) at LAYER in FILE's records that were accepted (ret 0: a send
# refused with -FI_EAGAIN is tried again, as often as the load makes it),
# sorted. The lines: op FILE layer N KIND tag T len L ret R.
sends() {
	{ grep -E "^op $1 layer $3 ($4) " "$2" || true; } |
		awk '$11 == 0 { print $7, $9 }' | sort
}

# Eager: what rxm sends in one piece (its rendezvous and segmentation start
# above 16 KiB); provider_pingpong's sizes are 0, 1, 64, 1 KiB, 16 KiB, 64 KiB.
eager_max=16384

run_pp FI_PROVIDER_PATH="$provdir" FI_HOOK=msgtrace \
	FI_OFI_HOOK_MSGTRACE_ALL_LAYERS=1 FI_OFI_HOOK_MSGTRACE_DIR="$work/all" \
	-- 3 >/dev/null || fail "traced run failed"
check_dir all >all.txt
! grep '^file ' all.txt | grep -v ' flags 3 ' || fail "MT_FILE_ALL_LAYERS not set"
run_pp FI_PROVIDER_PATH="$provdir" "FI_HOOK=noop;msgtrace" \
	FI_OFI_HOOK_MSGTRACE_ALL_LAYERS=1 FI_OFI_HOOK_MSGTRACE_DIR="$work/noop" \
	-- 3 >/dev/null || fail "noop run failed"
check_dir noop >noop.txt

for f in $(grep '^file ' all.txt | cut -d' ' -f2); do
	grep -Eq "^type $f layer 1 (OBJ|EP) " all.txt ||
		fail "$f: no internal (layer 1) objects"
	sends "$f" all.txt 0 'T(INJECT|SEND)(DATA)?' >app.txt
	[ -s app.txt ] || fail "$f: no application tagged sends"
	if [ "$fi_major" -lt 2 ]; then
		sends "$f" all.txt 1 'T(INJECT|SEND)(DATA)?' >inner.txt
		[ -s inner.txt ] || fail "$f: no tagged sends at the tcp layer"
		# Every inner tagged send is an application send (tag and length).
		[ -z "$(comm -13 app.txt inner.txt)" ] ||
			fail "$f: tcp-layer tagged sends that the application did not make"
		for t in 0x0 0x1; do
			grep -q "^$t " inner.txt || fail "$f: eager tag $t not seen at the tcp layer"
		done
	else
		! grep -Eq "^op $f layer 1 T" all.txt ||
			fail "$f: tagged ops at the tcp layer: libfabric $E2E_FI_API's rxm was expected to drive tcp untagged"
		grep -Eq "^op $f layer 1 RECV " all.txt ||
			fail "$f: rxm posted no receive buffers at the tcp layer"
		sends "$f" all.txt 1 'INJECT|SEND|SENDV' | awk '{ print $2 }' |
			sort -n >inner.txt
		awk -v max=$eager_max '$2 <= max { print $2 }' app.txt | sort -n >eager.txt
		[ -s inner.txt ] || fail "$f: no untagged sends at the tcp layer"
		# H from the smallest send on both sides; then every eager
		# application send has its inner send of L + H.
		h=$(($(head -n 1 inner.txt) - $(head -n 1 eager.txt)))
		[ "$h" -gt 0 ] || fail "$f: no header between the application's and the tcp layer's sends ($h bytes)"
		awk -v h=$h '{ print $1 + h }' eager.txt | sort -n >want.txt
		missing=$(comm -23 want.txt inner.txt | sort -u | tr '\n' ' ')
		[ -z "$missing" ] ||
			fail "$f: eager application sends without a tcp-layer send of their length + $h bytes: $missing"
	fi
done

if [ "$fi_major" -lt 2 ]; then
	! grep -Eq '^op .* layer 1 T' noop.txt ||
		fail "noop wrapping expected to remove tagged ops at the tcp layer"
	grep -Eq '^op .* layer 1 (SEND|INJECT)' noop.txt ||
		fail "noop run: no message ops at the tcp layer"
else
	# File names differ between the runs (pids): compare the kinds and
	# lengths of all files' tcp-layer sends together.
	for d in all noop; do
		{ grep -E '^op .* layer 1 (INJECT|SEND|SENDV) ' $d.txt || true; } |
			awk '$11 == 0 { print $5, $9 }' | sort >$d.inner.txt
	done
	diff all.inner.txt noop.inner.txt >noop.diff ||
		{ cat noop.diff >&2; fail "the noop hook changed rxm's sends at the tcp layer (above: < msgtrace alone, > noop;msgtrace)"; }
fi
echo "PASS: provider_layers (libfabric $E2E_FI_API)"
