#!/usr/bin/env bash
# gen_equal.sh GEN_TRACE MSGTRACE MSGTRACE_MPI NPS [--only CMD] [--files]
# GEN_ARGS... - writes a trace with bench/gen_trace (GEN_ARGS with the
# directory left out: gen_trace --pattern anysrc DIR 2000 8 is given as
# --pattern anysrc @DIR@ 2000 8) and checks it with equal.sh (--only and
# --files are equal.sh's).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 5 ] || { echo "usage: $0 GEN_TRACE MSGTRACE MSGTRACE_MPI NPS [--only CMD] [--files] GEN_ARGS..." >&2; exit 2; }
gen=$1 serial=$2 par=$3 nps=$4
shift 4
only=()
[ "$1" != --only ] || { only=(--only "$2"); shift 2; }
[ "$1" != --files ] || { only+=(--files); shift; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-pargen.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$gen" "${@/#@DIR@/$tmp/trace}" >/dev/null
"$here/equal.sh" "${only[@]}" "$serial" "$par" "$nps" "$tmp/trace"
