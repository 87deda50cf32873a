#!/usr/bin/env bash
# Each warning of the hook reaches the log as one write(2) of one whole
# line, so that ranks sharing a log (mpirun gathers their stderr) never
# splice each other's lines: glibc 2.37 and later write a formatted line to
# unbuffered stderr in 128-byte pieces. No MPI: fab_post posts 200 receives
# (400 records) into an 8K buffer (room for about 40), with a file mode
# that is refused: three warnings, each longer than 128 bytes (the file
# mode at start, the file reaching its limit, the records lost at exit),
# each seen by one_write as one message.
. "$(dirname "$0")/provider_lib.sh"

FI_PROVIDER_PATH=$provdir FI_HOOK=msgtrace FI_LOG_LEVEL=warn \
	FI_OFI_HOOK_MSGTRACE_DIR="$work/trace" FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE=8K \
	FI_OFI_HOOK_MSGTRACE_FILE_MODE=0x600 \
	"$bindir/one_write" --expect 3 ofi_hook_msgtrace -- \
	"$bindir/fab_post" "tcp;ofi_rxm" 200 >out.txt 2>err.txt ||
	{ cat err.txt >&2; fail "a warning was not written as one whole line"; }
for re in "FILE_MODE='0x600' is not an octal mode" 'reached its size limit \(8192 bytes\)' \
	'records lost \(size limit [1-9][0-9]*, no space 0, no file 0\)'; do
	[ "$(grep -cE "ofi_hook_msgtrace.*$re" err.txt)" = 1 ] ||
		{ cat err.txt >&2; fail "not one warning /$re/"; }
done
echo "PASS: provider_warn_lines"
