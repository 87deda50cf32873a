#!/usr/bin/env bash
# tags_trunc.sh TAGMODE PROVIDER_DIR MSGTRACE TAGS_TRUNC
#
# `msgtrace tags` on tags_trunc (4 ranks, $E2E_TCP): two MPI_ERR_TRUNCATE
# receives. For each truncated RECV of the program's log the report must
# list the receive (rank, buffer, source and tag filter) and the send that
# overflowed it: for the MPI_ANY_SOURCE/MPI_ANY_TAG receive, the first
# message its sender sent it (MPI's non-overtaking order: both had arrived),
# cause "wildcard"; for the specific receive, the send of that source and
# tag, cause "buffer".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
. "$here/tags_lib.sh"

[ $# -eq 4 ] || { echo "usage: $0 TAGMODE PROVIDER_DIR MSGTRACE TAGS_TRUNC" >&2; exit 2; }
mode=$1 E2E_PROVIDER_DIR=$2 msgtrace=$3 prog=$4
E2E_NP=4
E2E_NAME="tags_trunc[$mode]"
e2e_need_file "$prog" "the test program"
e2e_need_subcommand "$msgtrace" tags
e2e_setup
mkdir "$E2E_TMP/log"
e2e_run_ok "$E2E_TMP/out" "$E2E_TMP/trace" "$E2E_TCP" "$mode" "$prog" \
	--log "$E2E_TMP/log"
json=$E2E_TMP/tags.json
tags_report "$msgtrace" "$E2E_TMP/trace" "$json"
case $mode in full) layout=ofi_tag_full ;; *) layout=$mode ;; esac
tags_expect_layout "$json" "$layout"

tags_check_trunc "$E2E_TMP/log" "$json"
e2e_note "both truncated receives explained with their sends"
