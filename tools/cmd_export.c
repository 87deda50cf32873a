/*
 * cmd_export.c - `msgtrace export`: a trace's messages for other tools:
 * OTF2 (Vampir, otf2-print), Chrome trace-event JSON (Perfetto UI) and CSV
 * tables (spreadsheets, scripts).
 */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>

#include "cmd.h"
#include "mt_otf2in.h"
#include "mt_sink.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace export --otf2|--chrome|--csv -o OUT [OPTIONS] DIR|FILE...\n"
		"       msgtrace export --otf2 -o OUT [OPTIONS] DIR|FILE... ARCHIVE\n"
		"An OTF2 archive (an MPI-level trace from Score-P or EZTrace: its anchor\n"
		"file or directory, alone) is read the same way: its MPI messages.\n"
		"A fabric trace then an OTF2 archive of the same run (the joined view of\n"
		"`msgtrace report`) export --otf2 with both: per rank a location \"rank N\n"
		"MPI calls\" of the archive's MPI calls as regions on the fabric's clock,\n"
		"their sends and blocking receives on the communicator \"MPI calls: world\n"
		"ranks\", and the fabric messages on communicators named \"fabric: ...\".\n"
		"Pair every send of a msgtrace trace with its receive and write the\n"
		"messages in a format other tools open:\n"
		"  --otf2    OUT is a directory (created; must not hold an archive yet)\n"
		"            receiving OUT/traces.otf2, OUT/traces.def, OUT/traces/.\n"
		"            Open it in Vampir or read it with otf2-print. One location\n"
		"            group per rank, one location per traced thread, a system\n"
		"            tree of the host names; per message MpiIsend and\n"
		"            MpiIsendComplete on the sender, MpiIrecvRequest and MpiIrecv\n"
		"            on the receiver (request id: the message number), each in a\n"
		"            region named after the fabric operation and the message kind\n"
		"            (\"fi_tsend [user]\", \"recv completion [coll]\", ...);\n"
		"            cancelled operations end with MpiRequestCancelled; messages\n"
		"            not plainly matched carry a \"status\" attribute, every\n"
		"            message its fabric fields (msgtrace::kind, ...): msgtrace\n"
		"            reads the archive back as the same messages. One\n"
		"            communicator per cid seen (cid 0 is MPI_COMM_WORLD); the rank\n"
		"            fields index its members in order of first appearance.\n"
		"            MPI tags are written as their 32-bit two's complement:\n"
		"            Open MPI's negative internal tags read as values >= 2^31\n"
		"            (4294967280 is -16).\n"
		"  --chrome  OUT is a Chrome trace-event JSON file for ui.perfetto.dev\n"
		"            (or chrome://tracing): a process per rank, a track per\n"
		"            rank, direction and lane of overlapping operations, a slice\n"
		"            per fabric operation from post to completion, an arrow from\n"
		"            each send to its receive. Written as a stream.\n"
		"  --csv     OUT is a prefix: OUT.messages.csv (as `msgtrace messages\n"
		"            --csv`), OUT.pairs.csv (messages, bytes and bandwidth per\n"
		"            sender and receiver, user and internal), OUT.sizes.csv\n"
		"            (the same per power-of-two message-size class) and\n"
		"            OUT.processes.csv (per rank what time its trace covers:\n"
		"            first and last record, whether it is a window, a ring's\n"
		"            latest records, or ends early, a full buffer).\n"
		"Each export says per process what time its trace covers (OTF2:\n"
		"properties of its location group, Chrome: a process label).\n\n"
		"Options:\n"
		"  -o, --output OUT  where to write (required)\n"
		"  --layout NAME     decode tags with this layout instead of detecting it\n");
	mt_cmd_clock_help(out);
	fprintf(out,
		"  -h, --help        this text\n\n"
		"Times are ns on the merged trace clock (CLOCK_MONOTONIC on one host,\n"
		"CLOCK_REALTIME across hosts), corrected as --clock says. On a\n"
		"terminal, progress is shown on stderr. Exit status: 0 success, 1 bad\n"
		"trace or write error, 2 usage.\n");
}

enum fmt { FMT_NONE, FMT_OTF2, FMT_CHROME, FMT_CSV };

/* OTF2 writes OUT/traces.otf2, OUT/traces.def and OUT/traces/ and will not
 * overwrite them: say so before reading the trace. */
static int otf2_out_ok(const char *cmd, const char *dir)
{
	static const char *const part[] = { "traces.otf2", "traces.def", "traces" };
	struct stat sb;
	char path[4096];

	if (stat(dir, &sb))
		return 0;
	if (!S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "%s: -o '%s' exists and is not a directory\n", cmd, dir);
		return -1;
	}
	for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, part[i]);
		if (!stat(path, &sb)) {
			fprintf(stderr, "%s: -o '%s' already holds an OTF2 archive "
				"('%s'): remove it or choose another directory\n", cmd,
				dir, part[i]);
			return -1;
		}
	}
	return 0;
}

static int run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "otf2", no_argument, NULL, '2' },
		{ "chrome", no_argument, NULL, 'C' },
		{ "csv", no_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "layout", required_argument, NULL, 'l' },
		{ "clock", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const sink[] = {
		[FMT_OTF2] = "otf2", [FMT_CHROME] = "chrome", [FMT_CSV] = "csv-files",
	};
	struct mt_pipe_opts o = { .layout = MT_TAG_LAYOUT_NONE,
				  .clock = MT_CLOCK_MODE_AUTO };
	const char *cmd = "msgtrace export";
	enum fmt fmt = FMT_NONE;
	const char *path = NULL;
	FILE *out = NULL;
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		enum fmt f = c == '2' ? FMT_OTF2 : c == 'C' ? FMT_CHROME :
			     c == 'c' ? FMT_CSV : FMT_NONE;

		if (f != FMT_NONE && fmt != FMT_NONE && f != fmt) {
			fprintf(stderr, "%s: give one of --otf2, --chrome, --csv\n", cmd);
			return MT_EXIT_USAGE;
		}
		if (f != FMT_NONE) {
			fmt = f;
			continue;
		}
		switch (c) {
		case 'o':
			path = optarg;
			break;
		case 'l':
		case 'k':
			if (mt_cmd_pipe_opt(cmd, c, optarg, &o))
				return MT_EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return MT_EXIT_OK;
		default:
			fprintf(stderr, "%s: unknown or incomplete option '%s' (see %s "
				"--help)\n", cmd, argv[optind - 1], cmd);
			return MT_EXIT_USAGE;
		}
	}
	if (fmt == FMT_NONE || !path || optind == argc) {
		fprintf(stderr, "%s: %s (see %s --help)\n", cmd,
			fmt == FMT_NONE ? "give one of --otf2, --chrome, --csv" :
			!path ? "-o OUT is required" : "no trace given", cmd);
		return MT_EXIT_USAGE;
	}
	if (fmt == FMT_OTF2 && mt_cmd_writes_files && otf2_out_ok(cmd, path))
		return MT_EXIT_USAGE;
	o.paths = (const char *const *)argv + optind;
	o.npaths = (size_t)(argc - optind);
	o.sink_arg = (void *)path;
	if (fmt == FMT_CHROME && mt_cmd_writes_files && !(out = mt_cmd_out_open(cmd, path)))
		return MT_EXIT_USAGE;
	if (o.npaths > 1 && mt_otf2in_is_archive(o.paths[o.npaths - 1]))
		rc = mt_cmd_joined(cmd, &o, mt_sink_find(sink[fmt]), out ? out : stdout);
	else
		rc = mt_cmd_pipe_run(cmd, &o, mt_sink_find(sink[fmt]), out ? out : stdout);
	return out ? mt_cmd_out_close(cmd, out, path, rc) : rc;
}

const struct mt_cmd mt_cmd_export = {
	.name = "export",
	.summary = "messages as OTF2 (Vampir), Chrome JSON (Perfetto) or CSV tables",
	.run = run,
};
