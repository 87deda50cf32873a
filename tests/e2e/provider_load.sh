#!/usr/bin/env bash
# The provider loads as a hook (a failing dlopen makes libfabric drop it
# silently, so fi_info -l must list it) and declares its parameters.
. "$(dirname "$0")/provider_lib.sh"

FI_PROVIDER_PATH=$provdir FI_HOOK=msgtrace fi_info -l >list.txt 2>&1 ||
	fail "fi_info -l failed: $(cat list.txt)"
grep -q '^ofi_hook_msgtrace:' list.txt ||
	fail "ofi_hook_msgtrace not listed by fi_info -l (dlopen failed?)"

FI_PROVIDER_PATH=$provdir fi_info -e >params.txt 2>&1 || true
for p in ENABLE DIR ALL_LAYERS BUFFER_SIZE FILE_MODE; do
	grep -aq "FI_OFI_HOOK_MSGTRACE_$p:" params.txt ||
		fail "fi_info -e does not show FI_OFI_HOOK_MSGTRACE_$p"
done
echo "PASS: provider_load"
