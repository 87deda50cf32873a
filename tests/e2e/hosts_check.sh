# shellcheck shell=bash
# hosts_check.sh - checks the tests across test hosts share (source it
# after hosts_lib.sh).
#
#   hosts_same_output PLAIN TRACED  the untraced and traced job printed the
#                                   same lines (in any order: ranks on
#                                   several hosts interleave them)
#   hosts_own_files NP              every host's directory holds the files
#                                   of NP processes, each named after it

hosts_same_output() {
	sort "$1" >"$E2E_TMP/p.sorted"
	sort "$2" >"$E2E_TMP/t.sorted"
	e2e_same_output "$E2E_TMP/p.sorted" "$E2E_TMP/t.sorted" "traced and untraced output differ"
}

hosts_own_files() {
	local h d others
	for h in "${HOSTS_NAMES[@]}"; do
		d=$(hosts_dir "$h")
		e2e_check_trace "$d" "$1"
		others=$(find "$d" -name '*.mt' ! -name "$h.*" -printf '%f ')
		[ -z "$others" ] || e2e_fail "host $h's directory holds files of other hosts: $others"
	done
}
