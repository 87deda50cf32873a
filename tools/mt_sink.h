/*
 * mt_sink.h - the msgtrace command's output sinks and the pipeline feeding
 * them (tools/ public header).
 *
 * The pipeline (pipeline.c) is the one place that wires the stages: the
 * trace reader's time-ordered merge -> tag decoding (mt_tag_decode, layout
 * detected per endpoint or forced) -> the matcher (mt_match) -> one sink. A
 * clock-correction stage (mt_clock_correct) slots in between the matcher and
 * the sink: sinks only see struct mt_match_msg batches, times in ns as
 * recorded. A sink is init once with the run's description, consumes batches
 * of finished messages (memory stays bounded by messages in flight), and
 * finalizes with the matcher's summary (warnings, probes, pending ops).
 */
#ifndef MT_SINK_H
#define MT_SINK_H

#include <stdint.h>
#include <stdio.h>

struct option;				/* <getopt.h> */

#include "mt_decode.h"
#include "mt_match.h"
#include "mt_trace.h"

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

/* Parses DIR|FILE... --csv --json --html -o FILE --layout NAME --help and runs
 * the pipeline; returns the exit status. */
int mt_pipe_main(const struct mt_pipe_cli *cli, int argc, char **argv);

#endif /* MT_SINK_H */
