#!/bin/sh
# validate_real.sh CLOCK_VALIDATE GRAPH.csv.xz - clock_validate --messages on
# a real run's event graph kept in the tree (xz-compressed
# `msgtrace messages --csv`, the columns clock_validate reads).
#
# data/pingpong_loaded.csv.xz: an e2e_clock_real run (provider_pingpong 500,
# 2 ranks over tcp;ofi_rxm on one host, 5002 messages over 2.39 s) recorded
# at load average ~12, that failed the old max-error target (0.5 of the
# smallest latency: 5364 ns against 8736): fast messages (9-12 us) for its
# first 0.8 s, then only slow ones (64 us and more both ways) to the end,
# where the lines consistent with the data spread over [-8.8, +7.1] us.
set -eu
validate=$1 graph=$2
tmp=$(mktemp "${TMPDIR:-/tmp}/clock-real.XXXXXX")
trap 'rm -f "$tmp"' EXIT
xz -dc "$graph" > "$tmp"
"$validate" --messages "$tmp" --verbose
