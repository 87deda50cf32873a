/*
 * cmd_watch.c - `msgtrace watch`: a live view of a running job, refreshed
 * until every writer has closed its file (or once).
 */
#include <getopt.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "mt_sink.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace watch [OPTIONS] DIR|FILE...\n"
		"A live view of a job being traced, refreshed every few seconds:\n"
		"  the causes of a hang (ranks waiting on each other, a rank waiting on\n"
		"  no traced rank, a rank waited on that finished or left no trace),\n"
		"  the other waits grouped with how long each group has waited, and\n"
		"  the sends no receive has taken yet, oldest first (see `msgtrace\n"
		"  report --help`, PENDING). Ranks whose trace is a window (ring\n"
		"  mode) or ends early (a full buffer) are named first, with what time\n"
		"  their trace covers. It ends when every writer has closed its\n"
		"  file (a job killed never closes them: stop it with Ctrl-C).\n\n"
		"Options:\n"
		"  --interval S     seconds between two views (default 2)\n"
		"  --once           one view, then exit\n"
		"  --layout NAME    decode tags with this layout instead of detecting it\n"
		"  -h, --help       this text\n\n"
		"The first view reads the whole trace; each later one reads every\n"
		"file on from where the last stopped, up to what its writer has\n"
		"committed, and matches only the new records (a new file, endpoint\n"
		"or address makes it read the trace anew). Times are as recorded:\n"
		"no clock correction.\n"
		"Exit status: 0 success, 1 bad trace, 2 usage error.\n");
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One view; MT_EXIT_OK or the status to exit with, said. */
static int view(const char *cmd, struct mt_pipe_live *l)
{
	struct mt_err err = { { 0 } };
	enum mt_status s = mt_pipe_live_view(l, &mt_sink_watch, stdout, &err);

	if (err.msg[0])
		mt_cmd_say((void *)cmd, err.msg);
	return !s ? MT_EXIT_OK : s == MT_ERR_ARG ? MT_EXIT_USAGE : MT_EXIT_BAD_INPUT;
}

/* Views until every writer has closed its file, or one with once; each
 * reads on from where the last stopped (mt_pipe_live_view). */
static int watch(const char *cmd, struct mt_pipe_opts *po,
		 struct mt_sink_watch_opts *now, double interval, int once,
		 int tty)
{
	struct timespec pause = { (time_t)interval,
		(long)((interval - (double)(time_t)interval) * 1e9) };
	struct mt_err err = { { 0 } };
	struct mt_pipe_live *l;
	int rc;

	po->note = (struct mt_note){ .fn = mt_cmd_say, .arg = (void *)cmd };
	if (mt_pipe_live_new(po, &l, &err)) {
		mt_cmd_say((void *)cmd, err.msg);
		mt_cmd_untraced(cmd, po->paths, po->npaths, 1);
		return MT_EXIT_BAD_INPUT;
	}
	for (;;) {
		now->now_monotonic_ns = now_ns(CLOCK_MONOTONIC);
		now->now_realtime_ns = now_ns(CLOCK_REALTIME);
		if (tty && !once)
			fputs("\033[H\033[2J", stdout);	/* home, clear */
		printf("msgtrace watch: ");
		rc = view(cmd, l);
		if (rc || once)
			break;
		if (now->all_closed) {
			printf("\nEvery writer has closed its file: the job ended.\n");
			break;
		}
		fflush(stdout);
		nanosleep(&pause, NULL);
	}
	mt_pipe_live_free(l);
	if (rc)
		mt_cmd_untraced(cmd, po->paths, po->npaths, 1);
	return rc;
}

static int run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "once", no_argument, NULL, '1' },
		{ "layout", required_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cmd = "msgtrace watch";
	struct mt_pipe_opts po = { .layout = MT_TAG_LAYOUT_NONE,
				   .clock = MT_CLOCK_MODE_AUTO };
	struct mt_sink_watch_opts now = { 0 };
	double interval = 2;
	int once = 0, c, tty = isatty(STDOUT_FILENO);
	char *end;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || !(interval >= 0.1 && interval <= 3600)) {
				fprintf(stderr, "%s: --interval: '%s' is not a number "
					"of seconds from 0.1 to 3600\n", cmd, optarg);
				return MT_EXIT_USAGE;
			}
			break;
		case '1':
			once = 1;
			break;
		case 'L':
			if (mt_cmd_parse_layout(cmd, optarg, &po.layout))
				return MT_EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return MT_EXIT_OK;
		default:
			usage(stderr);
			return MT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "%s: no trace given\n", cmd);
		usage(stderr);
		return MT_EXIT_USAGE;
	}
	po.paths = (const char *const *)argv + optind;
	po.npaths = (size_t)(argc - optind);
	po.sink_arg = &now;
	return watch(cmd, &po, &now, interval, once, tty);
}

const struct mt_cmd mt_cmd_watch = {
	.name = "watch",
	.summary = "live view of a running job: the root of a hang, who waits",
	.run = run,
};
