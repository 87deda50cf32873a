/*
 * front.h - the pipeline's front ends (private to pipeline/): what turns
 * an input into the matcher's operations. The fabric trace (pipeline.c:
 * the reader's merge through feed.c) and an MPI-level OTF2 archive
 * (otf2front.c, through mt_otf2in) feed the same matcher, clock stage and
 * sinks; pipeline.c runs the one pass for either.
 */
#ifndef MT_FRONT_H
#define MT_FRONT_H

#include <stdio.h>

#include "clockstage.h"
#include "feed.h"
#include "spill.h"
#include "mt_match.h"
#include "mt_pipe.h"

/* Where the finished messages go: the sink, or, while times wait for
 * their correction, the clock stage (times) and the spill file (the
 * messages, in order). */
struct mt_pipe_dest {
	struct clockstage *cs;
	const struct mt_sink_ops *sink;
	void *st;
	struct mt_pipe_spill *spill;	/* NULL: straight to the sink */
	const struct mt_pipe_writer *w;	/* NULL: the sink's consume */
};

/* Hands every finished message of m on to d, a batch at a time. */
enum mt_status mt_pipe_drain(struct mt_match *m, struct mt_pipe_dest *d, struct mt_err *err);

/* The progress callbacks of o, when it has them. */
void mt_pipe_progress_start(const struct mt_pipe_opts *o, uint64_t total);
void mt_pipe_progress_tick(const struct mt_pipe_opts *o, uint64_t done);
void mt_pipe_progress_end(const struct mt_pipe_opts *o);

struct front_ops {
	/* The matcher's configuration; MT_ERR_* with err set on failure. */
	enum mt_status (*init)(void *fe, const struct mt_pipe_opts *o,
			       struct mt_match_cfg *cfg, struct mt_err *err);
	enum mt_status (*attach)(void *fe, struct mt_match *m);
	/* run as the input says before its events are read. */
	void (*describe)(void *fe, struct mt_run *run, const struct mt_note *note);
	/* Every event through m into d (drained as it goes), run->events and
	 * run->skipped counted; the pass calls mt_match_finish after it. */
	enum mt_status (*stream)(void *fe, const struct mt_pipe_opts *o,
				 struct mt_match *m, struct mt_pipe_dest *d,
				 struct mt_run *run, struct mt_err *err);
	/* stream finished the matcher itself (mt_match_finish) and put its
	 * last messages into d: the pass does not. */
	int finishes;
	/* The summary the sinks get (s itself, or fe's own copy). NULL when
	 * out of memory. */
	const struct mt_match_summary *(*summary)(void *fe,
						  const struct mt_match_summary *s);
	void (*fini)(void *fe);
};

/* The fabric front end (pipeline.c): the trace's merged records through
 * feed.c. Its attach and describe serve the divided pass too (split.c,
 * whose layouts come from every rank's evidence instead). */
struct fabric_front {
	const struct mt_trace *t;
	struct feed fd;
};

enum mt_status mt_pipe_fabric_attach(void *fe, struct mt_match *m);
void mt_pipe_fabric_describe(void *fe, struct mt_run *run, const struct mt_note *note);
/* The fabric trace o names (paths that are no OTF2 archive), opened whole
 * (part -1), or as part number part of nparts readers of some files each
 * (mt_trace_open_part: its opening the caller's to finish). */
enum mt_status mt_pipe_open_fabric(const struct mt_pipe_opts *o, int part,
				   unsigned nparts, struct mt_trace **t,
				   struct mt_err *err);

/* The OTF2 front end: an archive at path, run through the pass. */
enum mt_status mt_pipe_otf2_run(const struct mt_pipe_opts *o, const char *path,
				const struct mt_sink_ops *sink, FILE *out,
				struct mt_err *err);
/* The pass over one input, shared by the front ends (pipeline.c). */
enum mt_status mt_pipe_pass(const struct mt_pipe_opts *o, const struct front_ops *fo,
			    void *fe, struct mt_pipe_dest *d, FILE *out, struct mt_err *err);

#endif /* MT_FRONT_H */
