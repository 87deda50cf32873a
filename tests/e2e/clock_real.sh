#!/bin/bash
# clock_real.sh - clock correction validated on a real run's event graph.
# Traces provider_pingpong (2 ranks over $E2E_TCP, one host, so every
# timestamp is on one clock: the truth), pairs its messages with
# `msgtrace messages --csv`, then clock_validate puts per-rank offsets
# (up to 1 ms), drifts (50 ppm) and jitter on that graph, corrects it and
# asserts the targets against the recorded times: the maximum error per
# event, against what the messages near it allow (clock_validate's header;
# under load a run can leave only slow messages for a long stretch).
# usage: clock_real.sh PROVIDER_DIR MSGTRACE PINGPONG CLOCK_VALIDATE
set -euo pipefail
. "$(dirname "$0")/lib.sh"
E2E_PROVIDER_DIR=$1
msgtrace=$2 pingpong=$3 validate=$4
e2e_need_subcommand "$msgtrace" messages
e2e_need_file "$pingpong" "provider_pingpong"
e2e_need_file "$validate" "clock_validate"
e2e_setup
E2E_NP=2
e2e_run_ok "$E2E_TMP/run.out" "$E2E_TMP/trace" "$E2E_TCP" full \
	"$pingpong" 500
e2e_check_trace "$E2E_TMP/trace" 2
e2e_messages_csv "$msgtrace" "$E2E_TMP/trace" "$E2E_TMP/messages.csv"
"$validate" --messages "$E2E_TMP/messages.csv" --verbose ||
	e2e_fail "clock correction missed its targets on the real event graph"
