#!/usr/bin/env bash
# otf2.sh [BUILD_DIR] [NMSG] - reading and matching an OTF2 archive.
# Generates a synthetic fabric trace of NMSG messages (default 10^6)
# between 4 processes with gen_trace, exports it with `msgtrace export
# --otf2` (per message MpiIsend, MpiIsendComplete, MpiIrecvRequest and
# MpiIrecv, each inside Enter/Leave), then runs bench_otf2 on the archive:
# msgtrace reading and matching it against libotf2 alone reading it with
# callbacks that do nothing, alternated in the same run. Prints the
# events/s of both per round and the median ratio (OTF2_RATIO).
set -euo pipefail
build=${1:-$(dirname "$0")/../build}
nmsg=${2:-1000000}
for b in bench/gen_trace bench/bench_otf2 tools/msgtrace; do
	[ -x "$build/$b" ] || { echo "otf2.sh: $build/$b not built" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "generating $nmsg messages ..."
"$build/bench/gen_trace" "$tmp/trace" "$nmsg" 4
"$build/tools/msgtrace" export --otf2 -o "$tmp/otf2" --clock none "$tmp/trace"
du -sh "$tmp/otf2" | sed 's/^/OTF2 archive size /'
"$build/bench/bench_otf2" "$tmp/otf2/traces.otf2" "${ROUNDS:-5}"
