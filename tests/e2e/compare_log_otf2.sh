#!/usr/bin/env bash
# compare_log_otf2.sh [--no-sendrecv] LOGDIR CSV - does `msgtrace messages --csv` of an
# MPI-level OTF2 archive (EZTrace) tell what the program did?
#
# LOGDIR holds the program's rank<N>.log files (mpilog.h); CSV is
# `msgtrace messages ARCHIVE --csv`. An MPI-level tracer records what the
# program called, so:
#   1. sends: the multiset of (send_rank, recv_rank, tag, bytes) of the
#      CSV's user rows with a send equals that of the logs' SEND lines;
#   2. every blocking receive the log says completed (call recv or
#      sendrecv, status ok) is a matched row with the same four fields:
#      the archive records both ends (MPI_Send/Isend, MPI_Recv);
#   3. every matched row is a receive the log has, (send_rank, recv_rank,
#      tag) with any status: nothing is paired that did not happen;
#   4. an unmatched send is one whose receive the archive cannot hold (a
#      nonblocking receive, MPI_Irecv, whose completion EZTrace does not
#      record, or MPI_Mrecv, which it does not trace): per (send_rank,
#      recv_rank, tag, bytes) no more of them than such log lines;
#   5. no receive is left without its send (unmatched_recv).
# --no-sendrecv: the archive holds no event of MPI_Sendrecv's messages
# (EZTrace 2.0; msgtrace says so): log lines with call=sendrecv are left
# out of the comparison.
# Exit status: 0 agree, 1 they differ (each difference printed), 2 usage.
set -euo pipefail
skip=none
[ "${1:-}" = --no-sendrecv ] && { skip=sendrecv; shift; }
[ $# -eq 2 ] || { echo "usage: compare_log_otf2.sh [--no-sendrecv] LOGDIR CSV" >&2; exit 2; }
logdir=$1 csv=$2
logs=("$logdir"/rank*.log)
[ -e "${logs[0]}" ] || { echo "compare_log_otf2.sh: no rank*.log in $logdir" >&2; exit 1; }
header='send_rank,recv_rank,cid,comm_src,tag,kind,bytes,t_send_post_ns,t_send_done_ns,t_recv_post_ns,t_recv_done_ns,status'

awk -v header="$header" -v csvname="$csv" -v skip="$skip" '
function parse(    i, kv) {
	delete f
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
}
FILENAME != csvname && ($1 == "SEND" || $1 == "RECV") && $0 ~ ("call=" skip " ") { next }
FILENAME != csvname && $1 == "SEND" {
	parse(); k = f["world_src"] " " f["world_dst"] " " f["tag"] " " f["bytes"]
	log_send[k]++
}
FILENAME != csvname && $1 == "RECV" {
	parse(); k = f["world_src"] " " f["world_dst"] " " f["tag"]
	log_recv3[k]++
	k4 = k " " f["bytes"]
	if (f["status"] == "ok" && (f["call"] == "recv" || f["call"] == "sendrecv"))
		log_blocking[k4]++
	if (f["status"] == "ok" && (f["call"] == "irecv" || f["call"] == "mrecv"))
		log_unrecorded[k4]++
}
FILENAME == csvname && FNR == 1 {
	if ($0 != header) { print "unexpected CSV header: " $0; bad = 1; exit 1 }
	FS = ","; next
}
FILENAME == csvname {
	split($0, c, ",")
	if (c[6] != "user") next
	k3 = c[1] " " c[2] " " c[5]; k4 = k3 " " c[7]
	if (c[8] != "") csv_send[k4]++
	if (c[12] == "matched") { csv_matched[k4]++; csv_matched3[k3]++ }
	if (c[12] == "unmatched_send") csv_unmatched[k4]++
	if (c[12] == "unmatched_recv") { print "receive without send: " $0; bad = 1 }
}
END {
	for (k in log_send) if (csv_send[k] != log_send[k]) {
		print "sends " k ": log " log_send[k] ", archive " (csv_send[k] + 0); bad = 1 }
	for (k in csv_send) if (!(k in log_send)) {
		print "send " k " in the archive, not in the log"; bad = 1 }
	for (k in log_blocking) if (csv_matched[k] < log_blocking[k]) {
		print "blocking receives " k ": log " log_blocking[k] ", matched " (csv_matched[k] + 0); bad = 1 }
	for (k in csv_matched3) if (csv_matched3[k] > log_recv3[k]) {
		print "matched " k ": " csv_matched3[k] ", log receives " (log_recv3[k] + 0); bad = 1 }
	for (k in csv_unmatched) if (csv_unmatched[k] > log_unrecorded[k]) {
		print "unmatched sends " k ": " csv_unmatched[k] ", receives the archive lacks " (log_unrecorded[k] + 0); bad = 1 }
	exit bad
}' "${logs[@]}" "$csv"
