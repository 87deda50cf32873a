/*
 * cli.c - command-line parsing that several subcommands share (see cmd.h).
 * Kept out of the cmd_*.c files so that a pipeline user (bench/) links it
 * without pulling in a subcommand.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "mt_otf2in.h"
#include "progress.h"

/* -o's stdio buffer (given: glibc ignores the size of one it allocates). */
static char out_buf[1 << 20];

#define PIPE_BASE_OPTS 7	/* mt_cmd_pipe_main's own options */
#define PIPE_EXTRA_OPTS 4	/* a command's own, at most */

/* --layout NAME for any subcommand (cmd: "msgtrace report"): 0, or -1
 * after saying what is valid. */
int mt_cmd_parse_layout(const char *cmd, const char *name, enum mt_tag_layout_id *id)
{
	if (!mt_tag_layout_find(name, id))
		return 0;
	fprintf(stderr, "%s: --layout: unknown layout '%s'; valid:", cmd, name);
	for (int i = 0; i < MT_TAG_LAYOUT_COUNT; i++)
		fprintf(stderr, " %s", mt_tag_layout_name(i));
	fprintf(stderr, "\n");
	return -1;
}

void mt_cmd_say(void *arg, const char *msg)
{
	fprintf(stderr, "%s: %s\n", (const char *)arg, msg);
}

int mt_cmd_dispatch(const struct mt_cmd_prog *p, int argc, char **argv)
{
	if (argc < 2) {
		p->usage(stderr);
		return MT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		p->usage(stdout);
		return MT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("%s %s\n", p->name, p->version);
		return MT_EXIT_OK;
	}
	for (size_t i = 0; p->cmds[i]; i++)
		if (!strcmp(argv[1], p->cmds[i]->name))
			return p->run ? p->run(p->cmds[i], argc - 1, argv + 1) :
				p->cmds[i]->run(argc - 1, argv + 1);
	fprintf(stderr, "%s: unknown command '%s' (see %s --help)\n", p->name,
		argv[1], p->name);
	return MT_EXIT_USAGE;
}

mt_cmd_engine_fn *mt_cmd_pipe_engine = mt_pipe_run;
int mt_cmd_writes_files = 1;

int mt_cmd_pipe_run(const char *cmd, struct mt_pipe_opts *o,
		    const struct mt_sink_ops *sink, FILE *out)
{
	struct mt_err err = { { 0 } };
	struct progress pg;
	enum mt_status s;

	mt_cmd_progress_init(&pg, cmd);
	o->progress = &pg.cb;
	o->note = (struct mt_note){ .fn = mt_cmd_say, .arg = (void *)cmd };
	s = mt_cmd_pipe_engine(o, sink, out, &err);
	if (err.msg[0])
		mt_cmd_say((void *)cmd, err.msg);
	if (s)
		mt_cmd_untraced(cmd, o->paths, o->npaths, 1);
	return !s ? MT_EXIT_OK : s == MT_ERR_ARG ? MT_EXIT_USAGE :
		MT_EXIT_BAD_INPUT;
}

int mt_cmd_pipe_main(const struct mt_cmd_pipe *cli, int argc, char **argv)
{
	struct option longopts[PIPE_BASE_OPTS + PIPE_EXTRA_OPTS + 1] = {
		{ "csv", no_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "html", no_argument, NULL, 'H' },
		{ "output", required_argument, NULL, 'o' },
		{ "layout", required_argument, NULL, 'l' },
		{ "clock", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
	};
	struct mt_pipe_opts o = { .layout = MT_TAG_LAYOUT_NONE,
				  .sink_arg = cli->sink_arg,
				  .clock = MT_CLOCK_MODE_AUTO };
	const char *cmd = cli->cmd;
	const struct mt_sink_ops *sink = cli->sink;
	const char *path = NULL;
	FILE *out = stdout;
	int c, rc;

	for (size_t i = 0; cli->extra && cli->extra[i].name && i < PIPE_EXTRA_OPTS; i++)
		longopts[PIPE_BASE_OPTS + i] = cli->extra[i];
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		if ((c == 'c' && !cli->csv) || (c == 'j' && !cli->json) ||
		    (c == 'H' && !cli->html))
			c = '?';
		switch (c) {
		case 'c':
			sink = cli->csv;
			break;
		case 'j':
			sink = cli->json;
			break;
		case 'H':
			sink = cli->html;
			break;
		case 'o':
			path = optarg;
			break;
		case 'l':
		case 'k':
			if (mt_cmd_pipe_opt(cmd, c, optarg, &o))
				return MT_EXIT_USAGE;
			break;
		case 'h':
			cli->usage(stdout);
			return MT_EXIT_OK;
		default:
			if (c >= 256 && cli->opt) {
				if (cli->opt(c, optarg, cli->sink_arg))
					return MT_EXIT_USAGE;
				break;
			}
			fprintf(stderr, "%s: unknown or incomplete option '%s' (see %s "
				"--help)\n", cmd, argv[optind - 1], cmd);
			return MT_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "%s: no trace given (see %s --help)\n", cmd, cmd);
		return MT_EXIT_USAGE;
	}
	o.paths = (const char *const *)argv + optind;
	o.npaths = (size_t)(argc - optind);
	if (path && mt_cmd_writes_files && !(out = mt_cmd_out_open(cmd, path)))
		return MT_EXIT_USAGE;
	if (cli->joined && o.npaths > 1 && mt_otf2in_is_archive(o.paths[o.npaths - 1]))
		rc = cli->joined(cmd, &o, sink, out);
	else
		rc = mt_cmd_pipe_run(cmd, &o, sink, out);
	return out != stdout ? mt_cmd_out_close(cmd, out, path, rc) : rc;
}

FILE *mt_cmd_out_open(const char *cmd, const char *path)
{
	FILE *out = fopen(path, "w");

	if (!out) {
		fprintf(stderr, "%s: -o: cannot create '%s': %s\n", cmd, path,
			strerror(errno));
		return NULL;
	}
	/* Big blocks: each write(2) holds the file's lock while it copies,
	 * and msgtrace-mpi's ranks write into this file at once; stdio's
	 * 4 KiB would have them wait for each other at every block. */
	setvbuf(out, out_buf, _IOFBF, sizeof(out_buf));
	return out;
}

int mt_cmd_out_close(const char *cmd, FILE *out, const char *path, int rc)
{
	if (fclose(out) && rc == MT_EXIT_OK) {
		fprintf(stderr, "%s: cannot write '%s'\n", cmd, path);
		return MT_EXIT_BAD_INPUT;
	}
	return rc;
}

int mt_cmd_pipe_opt(const char *cmd, int c, const char *arg,
		    struct mt_pipe_opts *o)
{
	return c == 'l' ? mt_cmd_parse_layout(cmd, arg, &o->layout) :
		mt_cmd_parse_clock(cmd, arg, &o->clock);
}

int mt_cmd_parse_clock(const char *cmd, const char *arg,
			enum mt_clock_mode *mode)
{
	if (!mt_clock_mode_parse(arg, mode))
		return 0;
	fprintf(stderr, "%s: --clock '%s': expected none, linear, clc or auto\n",
		cmd, arg);
	return -1;
}

void mt_cmd_clock_help(FILE *out)
{
	fprintf(out,
		"  --clock MODE     clock correction of the times (default auto):\n"
		"                   none    times as recorded\n"
		"                   linear  offset and drift per clock domain (host\n"
		"                           and clock source) onto the largest one\n"
		"                   clc     linear, then the controlled logical clock:\n"
		"                           every receive after its send plus the\n"
		"                           minimum latency of its link\n"
		"                   auto    linear when the trace spans several clock\n"
		"                           domains, clc only while receives precede\n"
		"                           their sends; nothing on one clock\n"
		"                   Correcting reads the trace once: the matched\n"
		"                   messages wait in a temporary file in $TMPDIR\n"
		"                   (40 to 60 bytes each, at most 144); where\n"
		"                   times move, 40 bytes per message stay in\n"
		"                   memory (about 200 while solving); the\n"
		"                   report's CLOCKS section says what was done\n");
}
