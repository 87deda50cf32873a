#!/usr/bin/env bash
# export.sh [BUILD_DIR] [NMSG] - `msgtrace export` throughput.
# Generates a synthetic trace of NMSG messages (default 10^7) between 4
# processes with gen_trace, then runs bench_export: the pipeline with a null
# sink (baseline), the OTF2 export and the Chrome export, each timed in CPU
# seconds in the same run. Prints trace records/s, the ratios to the
# baseline, and the OTF2 records written per second (from the archive's
# location definitions). The trace and the archive (several GB at 10^7)
# live in a temporary directory, removed at exit.
set -euo pipefail
build=${1:-$(dirname "$0")/../build}
nmsg=${2:-10000000}
for b in gen_trace bench_export; do
	[ -x "$build/bench/$b" ] || { echo "export.sh: $build/bench/$b not built" >&2; exit 1; }
done
command -v otf2-print >/dev/null ||
	{ echo "export.sh: otf2-print not found (Debian package otf2-tools)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/msgtrace-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "generating $nmsg messages ..."
"$build/bench/gen_trace" "$tmp/trace" "$nmsg" 4
du -sh "$tmp/trace" | sed 's/^/trace size /'
"$build/bench/bench_export" "$tmp/trace" "$tmp/otf2" | tee "$tmp/out"
secs=$(awk '/^OTF2_SECONDS/ { print $2 }' "$tmp/out")
written=$(otf2-print -G "$tmp/otf2/traces.otf2" |
	awk -F'# Events: ' '/^LOCATION/ { split($2, a, ","); n += a[1] } END { print n }')
du -sh "$tmp/otf2" | sed 's/^/OTF2 archive size /'
awk -v n="$written" -v s="$secs" 'BEGIN {
	printf "OTF2 records written %d (Enter, MPI event, Leave per fabric event): %.2f M/s\n",
		n, n / s / 1e6 }'
