#!/usr/bin/env bash
# decode.sh [BUILD_DIR] - decodes/s of mt_tag_decode and the ratio to a plain
# mask-and-shift loop measured in the same run. Target: >= 100 M decodes/s.
set -euo pipefail
build=${1:-$(dirname "$0")/../build}
exe=$build/bench/bench_decode
[ -x "$exe" ] || { echo "decode.sh: $exe not built (cmake --build $build)" >&2; exit 1; }
"$exe" "${MILLION_TAGS:-16}" "${ROUNDS:-5}"
