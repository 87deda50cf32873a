#!/usr/bin/env bash
# reliab_dir.sh PROVIDER_DIR MSGTRACE BINDIR
# The trace directory parameter under faults. In every case the job's
# output and exit status equal the untraced run's, and each process says
# what happened in exactly one FI_WARN line (FI_LOG_LEVEL=warn):
#   missing      created (0700, files 0600), no warning, a readable trace;
#   nested       missing parents are not created: one warning, no trace;
#   read-only    an existing directory on a read-only tmpfs mounted here
#                (skipped when mount is impossible): one warning;
#   symlink      the last component is a symlink to a directory: refused,
#                never followed (the target stays empty): one warning;
#   file         the path names a regular file: one warning;
#   too long     a path longer than PATH_MAX: one warning, nothing written.
. "$(dirname "$0")/reliab_lib.sh"
cd "$E2E_TMP"
prog=("$mix" --iters 40)

reliab_plain "${prog[@]}"

# traced CASE DIR: run traced into DIR and compare with the untraced run.
traced() {
	reliab_run "$1.out" "$2" -- "${prog[@]}"
	reliab_same_as_plain plain.out "$1.out"
}

traced missing "$E2E_TMP/missing"
reliab_no_warning missing.out.err
[ "$(stat -c %a missing)" = 700 ] || e2e_fail "created directory has mode $(stat -c %a missing), not 700"
modes=$(stat -c %a missing/*.mt | sort -u)
[ "$modes" = 600 ] || e2e_fail "trace files have modes '$modes', not 600"
"$msgtrace" dump --summary missing >/dev/null || e2e_fail "trace of the created directory is unreadable"
e2e_check_trace missing "$E2E_NP"

traced nested "$E2E_TMP/no/such/parent"
reliab_warned nested.out.err 'tracing disabled: cannot use trace directory .*No such file' "$E2E_NP"
[ ! -e no ] || e2e_fail "missing parent directories were created"

mkdir ro
if mount -t tmpfs -o ro,size=64k tmpfs ro 2>/dev/null; then
	traced readonly "$E2E_TMP/ro"
	umount ro
	reliab_warned readonly.out.err 'tracing disabled: cannot write to trace directory .*Read-only' "$E2E_NP"
else
	e2e_note "SKIP read-only case: cannot mount a read-only tmpfs here (not root?)"
fi

mkdir target
ln -s target link
traced symlink "$E2E_TMP/link"
reliab_warned symlink.out.err "cannot use trace directory .*symlink is never followed" "$E2E_NP"
[ -z "$(ls -A target)" ] || e2e_fail "the symlink was followed: $(ls target)"

touch afile
traced file "$E2E_TMP/afile"
reliab_warned file.out.err 'cannot use trace directory .*Not a directory' "$E2E_NP"
[ ! -s afile ] || e2e_fail "the regular file was written to"

long=$E2E_TMP/$(printf 'd%.0s' $(seq 5000))
traced toolong "$long"
reliab_warned toolong.out.err 'tracing disabled: .*trace directory .*(too long|File name too long)' "$E2E_NP"
e2e_note "PASS: missing, nested, read-only, symlink, file and too-long directories"
