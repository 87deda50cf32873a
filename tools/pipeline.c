/*
 * pipeline.c - the one place where msgtrace's stages meet: reader merge ->
 * decode (feed.c) -> match -> clock correction (clockstage.c) -> sink.
 * When times need correcting, a first pass over the trace collects them and
 * the output pass (the same merge and matching again) gets them corrected.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "clockstage.h"
#include "cmd.h"
#include "feed.h"
#include "mt_sink.h"
#include "progress.h"
#include "names.h"

#define BATCH 1024
#define PIPE_BASE_OPTS 7	/* mt_pipe_main's own options */
#define PIPE_EXTRA_OPTS 4	/* a command's own, at most */

static void describe(struct mt_run *run, const struct mt_trace *t,
		     const struct feed *fd)
{
	memset(run, 0, sizeof(*run));
	run->trace = t;
	run->nranks = t->nprocs;
	run->t0_ns = INT64_MAX;
	run->t1_ns = INT64_MIN;
	for (size_t p = 0; p < t->nprocs; p++) {
		const struct mt_trace_proc *pr = &t->procs[p];
		size_t q;

		for (q = 0; q < p && strcmp(t->procs[q].host, pr->host); q++)
			;
		run->nhosts += q == p;
		for (size_t f = 0; f < pr->nfiles; f++) {
			const struct mt_trace_file *fl = pr->files[f];
			int64_t a = mt_trace_ticks_ns(&pr->clock, fl->first_ts) +
				pr->merge_offset_ns;
			int64_t b = mt_trace_ticks_ns(&pr->clock, fl->last_ts) +
				pr->merge_offset_ns;

			if (!fl->nrecs)
				continue;
			run->t0_ns = a < run->t0_ns ? a : run->t0_ns;
			run->t1_ns = b > run->t1_ns ? b : run->t1_ns;
			for (int l = 0; l < MT_LOSS_COUNT; l++)
				run->lost += fl->hdr->lost[l];
			run->unclean_files += !mt_trace_file_clean(fl);
		}
	}
	if (run->t0_ns > run->t1_ns)
		run->t0_ns = run->t1_ns = 0;
	if (t->neps) {
		const struct mt_rec_ep *e = t->eps[0].rec;

		/* Trace strings are data: escaped once, here, for every sink. */
		mt_name_text(run->provider, sizeof(run->provider), e->prov_name,
			     sizeof(e->prov_name));
		mt_name_text(run->fabric, sizeof(run->fabric), e->fabric_name,
			     sizeof(e->fabric_name));
		run->layout = fd->lay[0];
		run->ep_layout = fd->lay;
		run->ep_detect = fd->det;
		run->layout_conf = fd->conf[0];
		for (size_t i = 1; i < t->neps; i++)
			run->layouts_differ += fd->lay[i].id != fd->lay[0].id;
	} else {
		mt_tag_layout_get(MT_TAG_LAYOUT_RAW, 0, &run->layout);
	}
}

/* Where a pass's finished messages go: the clock stage alone (collecting
 * pass), or the clock stage then the sink (output pass). */
struct dest {
	struct clockstage *cs;
	const struct mt_sink_ops *sink;	/* NULL: collecting pass */
	void *st;
	int quiet;			/* bad records were reported already */
	int streamed;			/* the pass got as far as the merge */
};

/* Hands every finished message on, a batch at a time. */
static int drain(struct mt_match *m, struct dest *d)
{
	static struct mt_match_msg batch[BATCH];
	size_t n;

	while ((n = mt_match_take(m, batch, BATCH))) {
		if (!d->sink) {
			if (clockstage_collect(d->cs, batch, n))
				return -1;
			continue;
		}
		clockstage_apply(d->cs, batch, n);
		if (d->sink->consume(d->st, batch, n))
			return -1;
	}
	return 0;
}

/* Merge every record through the matcher into d. */
static int stream(const char *cmd, const struct mt_trace *t, struct feed *fd,
		  struct mt_match *m, struct dest *d, struct mt_run *run)
{
	struct mt_trace_merge *mg;
	struct mt_trace_event ev;
	struct mt_err err = { { 0 } };
	enum mt_status s = mt_trace_merge_open(t, &mg);
	int rc = MT_EXIT_OK, mrc = MT_MATCH_OK;
	struct progress pg;
	uint64_t total = 0;

	for (size_t i = 0; i < t->nfiles; i++)
		total += t->files[i]->nrecs;
	progress_start(&pg, cmd, total);
	if (s) {
		fprintf(stderr, "%s: cannot start the merge: %s\n", cmd,
			mt_status_str(s));
		return MT_EXIT_BAD_INPUT;
	}
	while (!mrc && (s = mt_trace_merge_next(mg, &ev, &err)) == MT_OK) {
		run->events++;
		mrc = feed_event(fd, &ev);
		if (!mrc && (run->events & 1023) == 0 && drain(m, d))
			mrc = MT_MATCH_ERR_NOMEM;
		if ((run->events & (PROGRESS_EVERY - 1)) == 0)
			progress_tick(&pg, run->events);
	}
	progress_end(&pg);
	mt_trace_merge_close(mg);
	if (s != MT_END && s != MT_OK) {
		/* Report, but still analyse the records before the bad one. */
		if (!d->quiet)
			fprintf(stderr, "%s: %s (%s); records after it are "
				"ignored\n", cmd, err.msg, mt_status_str(s));
		rc = MT_EXIT_BAD_INPUT;
	}
	if (mrc) {
		fprintf(stderr, "%s: matching failed: %s\n", cmd,
			mrc == MT_MATCH_ERR_NOMEM ? "out of memory" : "bad operation");
		return MT_EXIT_BAD_INPUT;
	}
	run->skipped = fd->skipped;
	return rc;
}

/* One pass over the trace: merge, decode, match, into d. The output pass
 * describes the run to the sink and finalizes it. */
static int pass(const struct mt_pipe_opts *o, const struct mt_trace *t,
		struct dest *d, FILE *out)
{
	struct mt_match *m = NULL;
	struct mt_match_cfg cfg;
	struct feed fd = { 0 };
	struct mt_err err = { { 0 } };
	struct mt_run run;
	enum mt_status s;
	int rc = MT_EXIT_BAD_INPUT, src;

	if ((s = feed_init(&fd, t, o->layout, &err))) {
		fprintf(stderr, "%s: %s\n", o->cmd, mt_status_str(s));
		goto end;
	}
	feed_match_cfg(&fd, &cfg);
#ifndef NDEBUG
	cfg.check = 1;			/* debug builds assert the invariants */
#endif
	if (mt_match_new(&cfg, &m) || feed_attach(&fd, m)) {
		fprintf(stderr, "%s: out of memory\n", o->cmd);
		goto end;
	}
	describe(&run, t, &fd);
	clockstage_describe(d->cs, &run);
	d->st = o->sink_arg;
	if (d->sink && d->sink->init(&d->st, out, &run)) {
		fprintf(stderr, "%s: cannot start the %s output\n", o->cmd,
			d->sink->name);
		goto end;
	}
	d->streamed = 1;
	src = stream(o->cmd, t, &fd, m, d, &run);
	if (mt_match_finish(m) || drain(m, d))
		src = MT_EXIT_BAD_INPUT;
#ifndef NDEBUG
	char why[256];

	if (mt_match_check(m, why, sizeof(why))) {
		fprintf(stderr, "%s: internal error: matcher invariant broken: %s\n",
			o->cmd, why);
		src = MT_EXIT_BAD_INPUT;
	}
#endif
	if (d->sink && clockstage_finish(d->cs)) {
		fprintf(stderr, "%s: internal error: the second pass over the trace "
			"paired other messages than the first\n", o->cmd);
		src = MT_EXIT_BAD_INPUT;
	}
	clockstage_describe(d->cs, &run);
	if (d->sink) {
		const struct mt_match_summary *sum =
			clockstage_summary(d->cs, mt_match_summary(m));

		if (!sum) {	/* the sink still ends, and frees its state */
			fprintf(stderr, "%s: out of memory\n", o->cmd);
			src = MT_EXIT_BAD_INPUT;
			sum = mt_match_summary(m);
		}
		if (d->sink->finalize(d->st, &run, sum))
			src = MT_EXIT_BAD_INPUT;
	}
	rc = src;
end:
	mt_match_free(m);
	feed_fini(&fd);
	return rc;
}

/* The collecting pass and the correction, when the times need it. */
static int correct(const struct mt_pipe_opts *o, const struct mt_trace *t,
		   struct clockstage *cs)
{
	struct dest collect = { .cs = cs };
	struct mt_err err = { { 0 } };
	int rc = pass(o, t, &collect, NULL);
	enum mt_status s;

	/* A bad record is reported; the records before it are corrected. */
	if (!collect.streamed)
		return rc;
	if ((s = clockstage_solve(cs, &err))) {
		fprintf(stderr, "%s: clock correction failed: %s (--clock none "
			"skips it)\n", o->cmd, err.msg[0] ? err.msg : mt_status_str(s));
		return MT_EXIT_BAD_INPUT;
	}
	return MT_EXIT_OK;
}

int mt_pipe_run(const struct mt_pipe_opts *o, const struct mt_sink_ops *sink,
		FILE *out)
{
	struct mt_trace *t = NULL;
	struct mt_err err = { { 0 } };
	struct dest d = { .sink = sink };
	enum mt_status s = mt_trace_open(o->paths, o->npaths, &t, &err);
	int rc;

	if (s) {
		fprintf(stderr, "%s: %s\n", o->cmd, err.msg[0] ? err.msg :
			mt_status_str(s));
		return s == MT_ERR_ARG ? MT_EXIT_USAGE : MT_EXIT_BAD_INPUT;
	}
	d.cs = clockstage_new(o->clock, t);
	if (!d.cs) {
		fprintf(stderr, "%s: out of memory\n", o->cmd);
		rc = MT_EXIT_BAD_INPUT;
	} else if (!clockstage_buffers(d.cs)) {
		rc = pass(o, t, &d, out);
	} else if (!(rc = correct(o, t, d.cs))) {
		d.quiet = 1;
		rc = pass(o, t, &d, out);
	}
	clockstage_free(d.cs);
	mt_trace_close(t);
	return rc;
}

int mt_pipe_main(const struct mt_pipe_cli *cli, int argc, char **argv)
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
	struct mt_pipe_opts o = { .layout = MT_TAG_LAYOUT_NONE, .cmd = cli->cmd,
				  .sink_arg = cli->sink_arg,
				  .clock = MT_CLOCK_MODE_AUTO };
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
			if (mt_cmd_parse_layout(o.cmd, optarg, &o.layout))
				return MT_EXIT_USAGE;
			break;
		case 'k':
			if (mt_pipe_parse_clock(o.cmd, optarg, &o.clock))
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
				"--help)\n", o.cmd, argv[optind - 1], o.cmd);
			return MT_EXIT_USAGE;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "%s: no trace given (see %s --help)\n", o.cmd, o.cmd);
		return MT_EXIT_USAGE;
	}
	o.paths = (const char *const *)argv + optind;
	o.npaths = (size_t)(argc - optind);
	if (path && !(out = fopen(path, "w"))) {
		fprintf(stderr, "%s: -o: cannot create '%s': %s\n", o.cmd, path,
			strerror(errno));
		return MT_EXIT_USAGE;
	}
	rc = mt_pipe_run(&o, sink, out);
	if (out != stdout && fclose(out) && !rc) {
		fprintf(stderr, "%s: cannot write '%s'\n", o.cmd, path);
		rc = MT_EXIT_BAD_INPUT;
	}
	return rc;
}

int mt_pipe_parse_clock(const char *cmd, const char *arg,
			enum mt_clock_mode *mode)
{
	if (!mt_clock_mode_parse(arg, mode))
		return 0;
	fprintf(stderr, "%s: --clock '%s': expected none, linear, clc or auto\n",
		cmd, arg);
	return -1;
}

void mt_pipe_clock_help(FILE *out)
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
		"                   Correcting reads the trace twice and keeps 40\n"
		"                   bytes per message (about 200 while solving);\n"
		"                   the report's CLOCKS section says what was done\n");
}
