#!/usr/bin/env bash
# The provider loads as a hook (a failing dlopen makes libfabric drop it
# silently, so fi_info -l must list it) and declares its parameters.
. "$(dirname "$0")/provider_lib.sh"

FI_PROVIDER_PATH=$provdir FI_HOOK=msgtrace fi_info -l >list.txt 2>&1 ||
	fail "fi_info -l failed: $(cat list.txt)"
grep -q '^ofi_hook_msgtrace:' list.txt ||
	fail "ofi_hook_msgtrace not listed by fi_info -l (dlopen failed?)"
# The version it lists is msgtrace's own, not the libfabric headers' it was
# built with.
want=$("$msgtrace" --version | awk '{ split($2, v, "."); print v[1] "." v[2] }')
got=$(sed -n '/^ofi_hook_msgtrace:/{n;s/^ *version: *//p;}' list.txt)
[ "$got" = "$want" ] ||
	fail "fi_info -l lists ofi_hook_msgtrace version '$got', msgtrace is $want"

FI_PROVIDER_PATH=$provdir fi_info -e >params.txt 2>&1 || true
for p in ENABLE DIR ALL_LAYERS BUFFER_SIZE FILE_MODE; do
	grep -aq "FI_OFI_HOOK_MSGTRACE_$p:" params.txt ||
		fail "fi_info -e does not show FI_OFI_HOOK_MSGTRACE_$p"
done
echo "PASS: provider_load"
