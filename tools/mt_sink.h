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

/* What the pipeline knows about the run. */
struct mt_run {
	const struct mt_trace *trace;
	size_t nranks;			/* processes in the trace */
	size_t nhosts;
	char provider[32], fabric[32];
	struct mt_tag_layout layout;	/* of the first endpoint */
	enum mt_tag_confidence layout_conf;
	size_t layouts_differ;		/* endpoints using another layout */
	int64_t t0_ns, t1_ns;		/* first and last record, merged clock */
	uint64_t events;		/* records read (final at finalize) */
	uint64_t lost;			/* records the writers dropped */
	uint64_t skipped;		/* ops on endpoints never enabled */
	size_t unclean_files;		/* files whose writer did not close */
	struct mt_run_clock clock;	/* final at finalize */
};

struct mt_sink_ops {
	const char *name;
	int (*init)(void **state, FILE *out, const struct mt_run *run);
	int (*consume)(void *state, const struct mt_match_msg *batch, size_t n);
	/* Writes what is left; frees state. 0 on success. */
	int (*finalize)(void *state, const struct mt_run *run,
			const struct mt_match_summary *sum);
};

extern const struct mt_sink_ops mt_sink_csv, mt_sink_text, mt_sink_json;

struct mt_pipe_opts {
	const char *const *paths;	/* trace directories or files */
	size_t npaths;
	enum mt_tag_layout_id layout;	/* MT_TAG_LAYOUT_NONE: detect */
	const char *cmd;		/* for error messages: "msgtrace report" */
	enum mt_clock_mode clock;	/* --clock, MT_CLOCK_MODE_AUTO by default */
};

/* Runs the whole pipeline into sink, writing to out. Prints errors on
 * stderr; returns the exit status (MT_EXIT_*). */
int mt_pipe_run(const struct mt_pipe_opts *o, const struct mt_sink_ops *sink,
		FILE *out);

/* A command that runs the pipeline: its options and the sinks they pick. */
struct mt_pipe_cli {
	const char *name;		/* "report" */
	const char *cmd;		/* "msgtrace report" */
	void (*usage)(FILE *out);
	const struct mt_sink_ops *sink;	/* default */
	const struct mt_sink_ops *csv;	/* --csv, NULL: not offered */
	const struct mt_sink_ops *json;	/* --json, NULL: not offered */
};

/* Parses DIR|FILE... --csv --json -o FILE --layout NAME --clock MODE
 * --help and runs the pipeline; returns the exit status. */
int mt_pipe_main(const struct mt_pipe_cli *cli, int argc, char **argv);
/* The --clock lines of a pipeline command's --help. */
void mt_pipe_clock_help(FILE *out);

#endif /* MT_SINK_H */
