#!/usr/bin/env bash
# ALL_LAYERS under tcp;ofi_rxm: rxm's inner tcp objects come out internal
# (layer 1), and the tcp layer carries tagged sends with the very tags and
# lengths of the application's eager sends: rxm kept its dynamic-receive-
# buffer protocol under the hook. Under FI_HOOK="noop;msgtrace" (libfabric's
# wrapping hook below ours) the same run shows no tagged op at the tcp layer
# at all: wrapping changes the protocol, cloning does not.
. "$(dirname "$0")/provider_lib.sh"

run_pp FI_PROVIDER_PATH="$provdir" FI_HOOK=msgtrace \
	FI_OFI_HOOK_MSGTRACE_ALL_LAYERS=1 FI_OFI_HOOK_MSGTRACE_DIR="$work/all" \
	-- 3 >/dev/null || fail "traced run failed"
check_dir all >all.txt
grep '^file ' all.txt | grep -v ' flags 3 ' && fail "MT_FILE_ALL_LAYERS not set"

for f in $(grep '^file ' all.txt | cut -d' ' -f2); do
	grep -Eq "^type $f layer 1 (OBJ|EP) " all.txt ||
		fail "$f: no internal (layer 1) objects"
	grep -E "^op $f layer 0 T(INJECT|SEND)(DATA)? " all.txt |
		awk '{print $7, $9}' | sort >app.txt
	grep -E "^op $f layer 1 T(INJECT|SEND)(DATA)? " all.txt |
		awk '{print $7, $9}' | sort >inner.txt
	[ -s inner.txt ] || fail "$f: no tagged sends at the tcp layer"
	# Every inner tagged send is an application send (tag and length).
	[ -z "$(comm -13 app.txt inner.txt)" ] ||
		fail "$f: tcp-layer tagged sends that the application did not make"
	for t in 0x0 0x1; do
		grep -q "^$t " inner.txt || fail "$f: eager tag $t not seen at the tcp layer"
	done
done

run_pp FI_PROVIDER_PATH="$provdir" "FI_HOOK=noop;msgtrace" \
	FI_OFI_HOOK_MSGTRACE_ALL_LAYERS=1 FI_OFI_HOOK_MSGTRACE_DIR="$work/noop" \
	-- 3 >/dev/null || fail "noop run failed"
check_dir noop >noop.txt
grep -Eq '^op .* layer 1 T' noop.txt &&
	fail "noop wrapping expected to remove tagged ops at the tcp layer"
grep -Eq '^op .* layer 1 (SEND|INJECT)' noop.txt ||
	fail "noop run: no message ops at the tcp layer"
echo "PASS: provider_layers"
