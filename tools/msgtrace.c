/*
 * msgtrace.c - the `msgtrace` command: dispatches to one subcommand.
 * Only tools/ prints; the libraries return statuses and error causes.
 */
#include <stdio.h>

#include "cmd.h"

/* Subcommands, in the order `msgtrace --help` lists them. */
static const struct mt_cmd *const cmds[] = {
	&mt_cmd_run,
	&mt_cmd_report,
	&mt_cmd_dump,
	&mt_cmd_tag,
	&mt_cmd_decode,
	&mt_cmd_messages,
	&mt_cmd_export,
	&mt_cmd_tags,
	&mt_cmd_watch,
	&mt_cmd_compact,
	NULL
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace COMMAND [OPTIONS] ...\n"
		"Trace the messages of an MPI job at the libfabric level and analyse\n"
		"the trace:\n"
		"  msgtrace run -- mpirun -np 4 ./app    run it traced, summarise\n"
		"  msgtrace report msgtrace-.../         the whole report\n"
		"Without msgtrace run: FI_PROVIDER_PATH=<prefix>/lib/libfabric\n"
		"FI_HOOK=msgtrace in the ranks' environment (and for Open MPI\n"
		"--mca pml cm --mca mtl ofi) records into FI_OFI_HOOK_MSGTRACE_DIR.\n\n"
		"Commands:\n");
	for (size_t i = 0; cmds[i]; i++)
		fprintf(out, "  %-10s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(out, "\n`msgtrace COMMAND --help` describes each command.\n"
		"Exit status: 0 success, 1 bad input, 2 usage error (msgtrace run:\n"
		"the launcher's).\n");
}

int main(int argc, char **argv)
{
	static const struct mt_cmd_prog prog = {
		"msgtrace", MSGTRACE_VERSION, usage, cmds, NULL
	};

	/* Each line to stderr in one write(2), however many printf calls
	 * build it: unbuffered, glibc writes each call (and 2.37 and later
	 * each 128 bytes of one) apart, and a log shared with other
	 * processes gets them spliced into its lines. */
	setvbuf(stderr, NULL, _IOLBF, BUFSIZ);
	return mt_cmd_dispatch(&prog, argc, argv);
}
