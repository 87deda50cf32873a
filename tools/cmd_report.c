/*
 * cmd_report.c - `msgtrace report`: what a trace says about the run, its
 * traffic, its problems and, if it hung, who waits for whom.
 */
#include <stdio.h>

#include "cmd.h"
#include "mt_sink.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace report [OPTIONS] DIR|FILE... [ARCHIVE]\n"
		"An OTF2 archive (an MPI-level trace from Score-P or EZTrace: its anchor\n"
		"file or directory, alone) is read the same way: its MPI messages.\n"
		"A fabric trace then an OTF2 archive of the same run (both recorded at\n"
		"once) add a JOINED VIEW (text, --json \"joined\", --html): each rank's\n"
		"clock offset between the two with its uncertainty, per MPI call kind\n"
		"(name and size) its calls, time in them, the fabric messages sent from\n"
		"inside them (matched, bytes, sizes, time on the wire) and fabric\n"
		"receives posted inside, the messages not matched and the operations\n"
		"pending at the end with the MPI calls that made them. Traces of\n"
		"different runs are refused.\n"
		"Summarise a msgtrace trace after pairing every send with its receive:\n"
		"  RUN       ranks, hosts, provider, tag layout and its field widths,\n"
		"            duration, records, records lost, files left unclosed\n"
		"  MESSAGES  counts per kind (user, coll, ssend, ssend_ack, untagged,\n"
		"            handshake; see `msgtrace messages --help`) and status,\n"
		"            probes\n"
		"  PAIRS     messages and bytes per sender -> receiver, user / internal,\n"
		"            effective bandwidth (bytes over receive completion minus send\n"
		"            post, matched messages); a matrix up to 12 ranks\n"
		"  SIZES     histogram in power-of-two classes with bandwidth per class\n"
		"  THROUGHPUT  bytes received per twentieth of the run\n"
		"  WARNINGS  counts and first examples: send without receive, receive\n"
		"            without send, receive done before its send was posted, send\n"
		"            longer than the receive buffer, ambiguous pairing, ...\n"
		"  PENDING   operations still posted at the end (after a kill, an abort\n"
		"            or a hang), as who waits on whom: first the cause (ranks\n"
		"            waiting on each other, a rank waiting on no traced rank, or\n"
		"            a rank waited on that finished, left no trace or has no\n"
		"            pending operation), then the other waits grouped (ranks as\n"
		"            ranges), then the unmatched sends that explain a wait: one\n"
		"            field differs (source address, cid, tag or protocol bit), or\n"
		"            an Ssend received and never acknowledged. About 40 lines\n"
		"            whatever the number of ranks; --json keeps every operation.\n"
		"            Receives left posted on an endpoint closed normally, with no\n"
		"            near miss, are only counted: Open MPI abandons some at\n"
		"            finalize.\n"
		"  CLOCKS    clock correction: mode asked and stages run, clock domains,\n"
		"            receives at or before their send (before / after), how far\n"
		"            times moved, offset and drift per domain with their standard\n"
		"            deviations, minimum latency per link, change of the local\n"
		"            intervals between one process's events\n"
		"A trace recorded with FI_OFI_HOOK_MSGTRACE_CALLSITE=1 names where the\n"
		"application called MPI under each example, wait and group:\n"
		"\"at file.c:LINE (function) via MPI_Recv\" (object+0xOFF without debug\n"
		"information); --json as send_site, recv_site and site objects.\n\n"
		"Options:\n"
		"  --json           the same content as one JSON object\n"
		"  --html           the same content as one self-contained HTML page\n"
		"                   (inline SVG charts: matrix heatmaps, sizes,\n"
		"                   bandwidth, throughput, latency, tag layout; prints)\n"
		"  -o, --output F   write to F instead of standard output\n"
		"  --layout NAME    decode tags with this layout instead of detecting it\n");
	mt_cmd_clock_help(out);
	fprintf(out,
		"  -h, --help       this text\n\n"
		"Times are seconds since the first record (ns on the trace clock in JSON).\n"
		"Exit status: 0 success, 1 bad trace (the report covers the records\n"
		"before the bad one), 2 usage error.\n");
}

static int run(int argc, char **argv)
{
	static const struct mt_cmd_pipe cli = {
		.cmd = "msgtrace report", .usage = usage,
		.sink = &mt_sink_text, .json = &mt_sink_json,
		.html = &mt_sink_html, .joined = mt_cmd_joined,
	};

	return mt_cmd_pipe_main(&cli, argc, argv);
}

const struct mt_cmd mt_cmd_report = {
	.name = "report",
	.summary = "run summary, traffic per pair and size, warnings, hangs",
	.run = run,
};
