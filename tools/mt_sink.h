/*
 * mt_sink.h - the msgtrace command's output sinks and the pipeline feeding
 * them (tools/ public header).
 *
 * The pipeline (pipeline.c) is the one place that wires the stages: the
 * trace reader's time-ordered merge -> tag decoding (mt_tag_decode, layout
 * detected per endpoint or forced) -> the matcher (mt_match) -> clock
 * correction (clockstage.h, --clock) -> one sink. Sinks only see struct
 * mt_match_msg batches, times in ns on the corrected clock (as recorded
 * when nothing needed correcting; run->clock says which). A sink is init
 * once with the run's description, consumes batches of finished messages
 * (memory bounded by messages in flight unless times are corrected: then
 * 40 bytes per message are kept), and finalizes with the matcher's summary
 * (warnings, probes, pending ops; their times are as recorded).
 */
#ifndef MT_SINK_H
#define MT_SINK_H

#include <stdint.h>
#include <stdio.h>

struct option;				/* <getopt.h> */

#include "mt_decode.h"
#include "mt_match.h"
#include "mt_trace.h"

/* What the clock stage (clockstage.c) did to the times the sink sees. */
struct mt_run_clock {
	enum mt_clock_mode asked;	/* --clock */
	uint32_t declared;		/* clock domains: distinct (host, clock) */
	/* The correction that ran (every figure of the CLOCKS section), or
	 * NULL: times are as recorded. Its processes are world ranks, each
	 * described by procs[rank] (procs[rank].host NULL: not traced). */
	const struct mt_clock_result *res;
	const struct mt_clock_proc *procs;
	uint32_t nranks;
	/* res NULL: messages whose clock condition could be checked, and
	 * those received at or before the time they were sent. */
	uint64_t checked, violations;
};

/* The world ranks in clock domain d of c->res as ranges: "0-3,7". */
const char *mt_run_clock_ranks(const struct mt_run_clock *c, uint32_t d,
			       char *buf, size_t len);

/* What the pipeline knows about the run. */
struct mt_run {
	const struct mt_trace *trace;
	size_t nranks;			/* processes in the trace */
	size_t nhosts;
	char provider[32], fabric[32];
	struct mt_tag_layout layout;	/* of the first endpoint */
	enum mt_tag_confidence layout_conf;
	size_t layouts_differ;		/* endpoints using another layout */
	/* Per endpoint (index in trace->eps): the layout in force, with
	 * mem_tag_format applied, and the evidence for it. */
	const struct mt_tag_layout *ep_layout;
	const struct mt_tag_detect_result *ep_detect;
	int64_t t0_ns, t1_ns;		/* first and last record, merged clock */
	uint64_t events;		/* records read (final at finalize) */
	uint64_t lost;			/* records the writers dropped */
	uint64_t skipped;		/* ops on endpoints never enabled */
	size_t unclean_files;		/* files whose writer did not close */
	struct mt_run_clock clock;	/* final at finalize */
};

struct mt_sink_ops {
	const char *name;
	/* *state holds mt_pipe_opts.sink_arg on entry (the sink's settings,
	 * e.g. an output path; NULL for sinks that take none). */
	int (*init)(void **state, FILE *out, const struct mt_run *run);
	int (*consume)(void *state, const struct mt_match_msg *batch, size_t n);
	/* Writes what is left; frees state. 0 on success. */
	int (*finalize)(void *state, const struct mt_run *run,
			const struct mt_match_summary *sum);
};

extern const struct mt_sink_ops mt_sink_csv, mt_sink_text, mt_sink_json;
extern const struct mt_sink_ops mt_sink_tags, mt_sink_tags_json;
extern const struct mt_sink_ops mt_sink_otf2, mt_sink_chrome, mt_sink_html,
	mt_sink_csvset;

struct mt_pipe_opts {
	const char *const *paths;	/* trace directories or files */
	size_t npaths;
	enum mt_tag_layout_id layout;	/* MT_TAG_LAYOUT_NONE: detect */
	const char *cmd;		/* for error messages: "msgtrace report" */
	enum mt_clock_mode clock;	/* --clock, MT_CLOCK_MODE_AUTO by default */
	void *sink_arg;			/* handed to sink->init in *state */
};

/* Runs the whole pipeline into sink, writing to out. Prints errors on
 * stderr; returns the exit status (MT_EXIT_*). */
int mt_pipe_run(const struct mt_pipe_opts *o, const struct mt_sink_ops *sink,
		FILE *out);

/* A command that runs the pipeline: its options and the sinks they pick. */
struct mt_pipe_cli {
	const char *cmd;		/* "msgtrace report" */
	void (*usage)(FILE *out);
	const struct mt_sink_ops *sink;	/* default */
	const struct mt_sink_ops *csv;	/* --csv, NULL: not offered */
	const struct mt_sink_ops *json;	/* --json, NULL: not offered */
	const struct mt_sink_ops *html;	/* --html, NULL: not offered */
	/* The command's own options, if any: getopt_long entries (val >= 256,
	 * at most 4) each handed to opt(val, optarg, sink_arg),
	 * which prints its own error and returns non-zero on a bad value. */
	const struct option *extra;
	int (*opt)(int val, const char *arg, void *sink_arg);
	void *sink_arg;			/* mt_pipe_opts.sink_arg */
};

/* Parses DIR|FILE... --csv --json --html -o FILE --layout NAME --clock
 * MODE --help and runs the pipeline; returns the exit status. */
int mt_pipe_main(const struct mt_pipe_cli *cli, int argc, char **argv);
/* --clock MODE for commands parsing their own options: 0, or -1 after
 * saying what is wrong (exit with MT_EXIT_USAGE). */
int mt_pipe_parse_clock(const char *cmd, const char *arg,
			enum mt_clock_mode *mode);
/* The --clock lines of a pipeline command's --help. */
void mt_pipe_clock_help(FILE *out);

#endif /* MT_SINK_H */
