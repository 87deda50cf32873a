# export_lib.sh - shared set-up of the export_*.sh tests (source it after
# lib.sh). export_setup PROVIDER_DIR MSGTRACE P2P_MIX checks the arguments,
# traces one 4-rank p2p_mix run over $E2E_TCP into $E2E_TMP/trace and
# writes `msgtrace messages --csv` of it to $E2E_TMP/messages.csv, the
# reference every export is compared with. Sets $msgtrace and $trace.

export_setup() {
	[ $# -eq 3 ] || { echo "usage: $0 PROVIDER_DIR MSGTRACE P2P_MIX" >&2; exit 2; }
	E2E_PROVIDER_DIR=$1 msgtrace=$2
	local prog=$3
	e2e_need_file "$prog" "p2p_mix"
	e2e_need_file "$msgtrace" "the msgtrace command"
	e2e_setup
	trace=$E2E_TMP/trace
	e2e_run_ok "$E2E_TMP/out" "$trace" "$E2E_TCP" full "$prog"
	e2e_check_trace "$trace" 4
	"$msgtrace" messages --csv "$trace" >"$E2E_TMP/messages.csv" ||
		e2e_fail "msgtrace messages failed on the trace"
	[ "$(wc -l <"$E2E_TMP/messages.csv")" -gt 10 ] ||
		e2e_fail "the trace holds almost no messages"
}
