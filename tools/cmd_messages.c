/*
 * cmd_messages.c - `msgtrace messages`: every message of a trace, each send
 * paired with its receive, as CSV.
 */
#include <stdio.h>

#include "cmd.h"
#include "mt_sink.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace messages [OPTIONS] DIR|FILE... [--csv]\n"
		"An OTF2 archive (an MPI-level trace from Score-P or EZTrace: its anchor\n"
		"file or directory, alone) is read the same way: its MPI messages.\n"
		"Pair every send of a msgtrace trace with its receive and write one CSV\n"
		"line per message (with a header line):\n"
		"  send_rank,recv_rank,cid,comm_src,tag,kind,bytes,t_send_post_ns,\n"
		"  t_send_done_ns,t_recv_post_ns,t_recv_done_ns,status\n\n"
		"  send_rank, recv_rank  MPI world ranks of sender and receiver\n"
		"  cid, comm_src, tag    communicator id, sender's rank in it, MPI tag\n"
		"                        (signed: Open MPI's collectives use negative tags)\n"
		"  kind    user       application point-to-point message\n"
		"          coll       MPI-internal traffic (collectives, negative tags)\n"
		"          ssend      the data of a synchronous send (MPI_Ssend)\n"
		"          ssend_ack  the 0-byte ACK the receiver returns for it\n"
		"          untagged   untagged fi_send/fi_recv protocol traffic\n"
		"          handshake  Open MPI 5's exCID exchange (untagged, 32 B)\n"
		"  bytes   length sent (received length when there is no send)\n"
		"  t_*_ns  post and completion times in ns on the trace clock\n"
		"          (CLOCK_MONOTONIC on one host, CLOCK_REALTIME across hosts),\n"
		"          corrected as --clock says (across hosts, by default)\n"
		"  status  matched         paired send and receive\n"
		"          unmatched_send  no receive took it\n"
		"          unmatched_recv  completed receive with no recorded send\n"
		"          truncated       send longer than the receive buffer\n"
		"          cancelled       cancelled operation (only one side)\n"
		"          ambiguous       paired by time: the layout carries no source\n"
		"                          and none was recorded\n"
		"A trace recorded with FI_OFI_HOOK_MSGTRACE_CALLSITE=1 has two more\n"
		"columns at the end, send_site and recv_site: where the application\n"
		"called MPI, \"file.c:LINE (function) via MPI_Send\" (quoted when it\n"
		"holds a comma; object+0xOFF without debug information).\n"
		"A field is empty when it is not known: the rank of a process that left\n"
		"no trace, the completion time of an operation never completed. A send\n"
		"that completes without a CQ entry (inject, selective completion) has\n"
		"t_send_done_ns = t_send_post_ns.\n"
		"A rank whose trace is a window (ring mode: its latest records only)\n"
		"or ends early (a full buffer) is said on stderr with what time its\n"
		"trace covers: its messages outside it are not in the lines.\n\n"
		"Options:\n"
		"  --csv            CSV output (the default and only format)\n"
		"  -o, --output F   write to F instead of standard output\n"
		"  --layout NAME    decode tags with this layout instead of detecting it\n"
		"                   (see `msgtrace tag --help` for the names)\n");
	mt_cmd_clock_help(out);
	fprintf(out,
		"  -h, --help       this text\n\n"
		"Exit status: 0 success, 1 bad trace (messages before the bad record\n"
		"are written), 2 usage error.\n");
}

static int run(int argc, char **argv)
{
	static const struct mt_cmd_pipe cli = {
		.cmd = "msgtrace messages", .usage = usage,
		.sink = &mt_sink_csv, .csv = &mt_sink_csv,
	};

	return mt_cmd_pipe_main(&cli, argc, argv);
}

const struct mt_cmd mt_cmd_messages = {
	.name = "messages",
	.summary = "pair every send with its receive: one CSV line per message",
	.run = run,
};
