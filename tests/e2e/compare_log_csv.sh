#!/usr/bin/env bash
# compare_log_csv.sh [--hung-ssends N] LOGDIR CSV - does a trace tell what
# the program did?
#
# LOGDIR holds rank<N>.log files written by an MPI test program through
# mpilog (format: mpilog.h); CSV is `msgtrace messages TRACEDIR --csv` of
# the same run. The program's own log is the truth; the trace must agree:
#
#   1. user sends: the multiset of (send_rank, recv_rank, tag, bytes) of
#      the CSV's user messages (kind user, or ssend: the data of an
#      MPI_Ssend) equals that of the logs' SEND lines;
#   2. completed receives: the multiset of (send_rank, recv_rank, tag,
#      bytes) of the CSV's matched user messages equals that of the logs'
#      RECV status=ok lines (so per receiver, the counts agree too);
#   3. truncation: every RECV status=truncated line has a CSV row with
#      status truncated for the same (send_rank, recv_rank, tag), and no
#      other row is truncated; for a posted_tag=ANY line any tag, since
#      MPI's status of a truncated receive need not carry it;
#   4. cancels: per receiver, as many CSV rows with status cancelled as
#      RECV status=cancelled lines;
#   5. synchronous sends: every ssend/issend SEND line got its ACK, so
#      there are as many matched ssend_ack rows as such lines, less N with
#      --hung-ssends N (the hang tests: N synchronous sends never returned);
#   6. no user message is left unmatched or ambiguous, but for up to N
#      synchronous sends with --hung-ssends N that no receive matched
#      (unmatched_send: an application hang, not only a missing ACK).
# Collective-internal and untagged messages are not compared: the program
# cannot know them. A message with a negative MPI tag is collective-internal
# whatever its kind: Open MPI's barrier on a non-power-of-two number of
# ranks sends synchronously, so kind ssend/ssend_ack with tag -16 occurs.
# Ranks are world ranks on both sides.
#
# Exit status: 0 agree, 1 they differ (every difference is printed), 2 usage.
set -euo pipefail

usage() {
	echo "usage: compare_log_csv.sh [--hung-ssends N] LOGDIR CSV" >&2
	exit 2
}
hung=0
case "${1:-}" in
-h | --help)
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
--hung-ssends)
	[[ "${2:-}" =~ ^[0-9]+$ ]] || usage
	hung=$2
	shift 2
	;;
esac
[ $# -eq 2 ] || usage
logdir=$1 csv=$2
logs=("$logdir"/rank*.log)
[ -e "${logs[0]}" ] || { echo "compare_log_csv.sh: no rank*.log in $logdir" >&2; exit 1; }
[ -r "$csv" ] || { echo "compare_log_csv.sh: cannot read $csv" >&2; exit 1; }

# The CSV's columns, as `msgtrace messages --csv` prints them; a change
# there must be seen here, not silently misread.
header='send_rank,recv_rank,cid,comm_src,tag,kind,bytes,t_send_post_ns,t_send_done_ns,t_recv_post_ns,t_recv_done_ns,status'

awk -v header="$header" -v csvname="$csv" -v hung="$hung" '
# Log lines are "WORD key=value ...": f[key] = value.
function parse(    i, kv) {
	delete f
	for (i = 2; i <= NF; i++) {
		split($i, kv, "=")
		f[kv[1]] = kv[2]
	}
}
function key(src, dst, tag, bytes) {
	return src "->" dst " tag " tag (bytes == "" ? "" : " bytes " bytes)
}

# ---- the logs (every file but the last) ----
FILENAME != csvname && $1 == "SEND" {
	parse()
	log_send[key(f["world_src"], f["world_dst"], f["tag"], f["bytes"])]++
	if (f["call"] == "ssend" || f["call"] == "issend")
		log_ssends++
	next
}
FILENAME != csvname && $1 == "RECV" {
	parse()
	if (f["status"] == "ok")
		log_recv[key(f["world_src"], f["world_dst"], f["tag"], f["bytes"])]++
	else if (f["status"] == "truncated" && f["posted_tag"] == "ANY")
		log_trunc_any[f["world_src"] "->" f["world_dst"]]++
	else if (f["status"] == "truncated")
		log_trunc[key(f["world_src"], f["world_dst"], f["tag"])]++
	else if (f["status"] == "cancelled")
		log_cancel["receiver " f["world_dst"]]++
	next
}
FILENAME != csvname { next }

# ---- the CSV ----
FNR == 1 {
	if ($0 != header) {
		printf "%s: header is\n  %s\nexpected\n  %s\n", csvname, $0, header
		bad_header = 1
		exit 1
	}
	have_header = 1
	next
}
{
	n = split($0, c, ",")
	if (n != 12) {
		printf "%s:%d: %d fields, expected 12\n", csvname, FNR, n
		bad_header = 1
		exit 1
	}
	src = c[1]; dst = c[2]; tag = c[5]; kind = c[6]; bytes = c[7]
	status = c[12]
	if (status == "cancelled") {
		csv_cancel["receiver " dst]++
		next
	}
	if (tag != "" && tag + 0 < 0)
		next
	if (kind == "ssend_ack") {
		if (status == "matched")
			csv_acks++
		next
	}
	if (kind != "user" && kind != "ssend")
		next
	if (status == "matched" || status == "truncated" ||
	    status == "unmatched_send" || status == "ambiguous")
		csv_send[key(src, dst, tag, bytes)]++
	if (status == "matched")
		csv_recv[key(src, dst, tag, bytes)]++
	else if (status == "truncated") {
		csv_trunc[key(src, dst, tag)]++
		trunc_pair[key(src, dst, tag)] = src "->" dst
	} else if (status == "unmatched_send" && kind == "ssend" && unreceived < hung)
		unreceived++	# a hung Ssend that no receive matched either
	else
		odd[status " " key(src, dst, tag, bytes) " (CSV line " FNR ")"]++
}

# compare(A, B, what): prints every key whose counts differ.
function compare(a, b, what,    k, seen, bad) {
	for (k in a) seen[k] = 1
	for (k in b) seen[k] = 1
	for (k in seen)
		if (a[k] + 0 != b[k] + 0) {
			if (!bad++)
				printf "%s differ (log count, trace count):\n", what
			printf "  %-40s %5d %5d\n", k, a[k], b[k]
		}
	return bad > 0
}
END {
	if (bad_header)
		exit 1
	if (!have_header) {
		printf "%s: empty, expected at least the header line\n", csvname
		exit 1
	}
	fail += compare(log_send, csv_send, "user sends per (src->dst, tag, bytes)")
	fail += compare(log_recv, csv_recv, "completed receives per (src->dst, tag, bytes)")
	# The status of a truncated MPI_ANY_TAG receive has no reliable tag (Open
	# MPI 4.1 reports 0): such lines take any tag of their sender.
	for (k in csv_trunc)
		while (csv_trunc[k] > log_trunc[k] + 0 && log_trunc_any[trunc_pair[k]] > 0) {
			csv_trunc[k]--
			log_trunc_any[trunc_pair[k]]--
			wild_trunc++
		}
	for (k in log_trunc_any)
		if (log_trunc_any[k])
			log_trunc[k " tag ANY"] = log_trunc_any[k]
	fail += compare(log_trunc, csv_trunc, "truncated receives per (src->dst, tag)")
	fail += compare(log_cancel, csv_cancel, "cancelled receives")
	if (log_ssends - hung != csv_acks) {
		printf "synchronous sends: %d logged (%d expected to hang), %d matched ssend_ack messages traced\n",
		       log_ssends, hung, csv_acks
		fail++
	}
	for (k in odd) {
		if (!odd_seen++)
			print "user messages the trace could not pair:"
		printf "  %s\n", k
		fail++
	}
	if (fail)
		exit 1
	for (k in log_send) nsend += log_send[k]
	for (k in log_recv) nrecv += log_recv[k]
	for (k in log_trunc) ntrunc += log_trunc[k]
	ntrunc += wild_trunc
	for (k in log_cancel) ncancel += log_cancel[k]
	printf "log and trace agree: %d user sends, %d receives, %d truncated, %d cancelled, %d synchronous\n",
	       nsend, nrecv, ntrunc, ncancel, log_ssends
}
' "${logs[@]}" "$csv"
