#!/usr/bin/env bash
# Receives posted and no send reached libfabric: the report says so, and
# explains it per MPI as the trace shows it, never blaming one MPI for
# another's trace. No MPI: fab_post posts 3 receives and exits with them
# pending (a job that ended before any message came), over tcp;ofi_rxm.
#   - the layout undetected (no MPI in the trace): no MPI is named as the
#     cause; the two explanations are said as such;
#   - read as Open MPI's (--layout ofi_tag_full): its OFI MTL hands every
#     message to libfabric, so none was sent while traced; MPICH is not
#     named;
#   - read as MPICH's (--layout mpich-4.0-data): its shared memory and
#     MPIR_CVAR_NOLOCAL=1, as before.
. "$(dirname "$0")/provider_lib.sh"

FI_PROVIDER_PATH=$provdir FI_HOOK=msgtrace FI_OFI_HOOK_MSGTRACE_DIR="$work/trace" \
	"$bindir/fab_post" "tcp;ofi_rxm" 3 open >out.txt 2>err.txt ||
	fail "fab_post failed: $(cat err.txt)"
note() { sed -n '/^  no send reached libfabric, yet 3 receives were posted/,/^$/p' "$1"; }
for layout in "" ofi_tag_full mpich-4.0-data; do
	"$msgtrace" report ${layout:+--layout "$layout"} "$work/trace" >"report$layout" ||
		fail "msgtrace report ${layout:+--layout $layout} failed"
	[ -n "$(note "report$layout")" ] ||
		{ cat "report$layout" >&2; fail "${layout:-no layout}: no note of the receives no send reached"; }
done
if note report | grep -qi 'MPICH moves\|MPIR_CVAR'; then
	note report >&2; fail "no MPI detected, yet MPICH is given as the cause"
fi
note report | grep -q 'does not show which MPI' ||
	{ note report >&2; fail "no MPI detected: the note does not say so"; }
note reportofi_tag_full | grep -qi 'mpich' &&
	{ note reportofi_tag_full >&2; fail "an Open MPI trace blames MPICH"; }
note reportofi_tag_full | grep -q "Open MPI's OFI MTL hands every message to libfabric" ||
	{ note reportofi_tag_full >&2; fail "Open MPI: the note does not say what its MTL does"; }
note reportmpich-4.0-data | grep -q 'MPIR_CVAR_NOLOCAL=1' ||
	{ note reportmpich-4.0-data >&2; fail "MPICH: the note lost its shared-memory advice"; }
echo "PASS: report_no_send"
