/*
 * mt_pipe.h - the pipeline (library mt_pipe): the one place where
 * msgtrace's stages meet. The trace reader's time-ordered merge -> tag
 * decoding (each endpoint under its own layout, detected or forced) -> the
 * matcher -> clock correction (--clock) -> one sink (mt_sink.h).
 *
 * It must not print: failures come back as an mt_status and an mt_err,
 * what the user should know without failing goes to opts->note, and the
 * progress of long runs to opts->progress. It knows no command line.
 */
#ifndef MT_PIPE_H
#define MT_PIPE_H

#include <stdint.h>
#include <stdio.h>

#include "mt_clock.h"
#include "mt_decode.h"
#include "mt_sink.h"
#include "mt_status.h"
#include "mt_trace.h"

#define MT_PIPE_PROGRESS_EVERY 65536u	/* events between two tick calls */

/* Progress of the pass that reads the trace: start with the records to
 * read, a tick every MT_PIPE_PROGRESS_EVERY records, end. */
struct mt_pipe_progress {
	void (*start)(void *arg, uint64_t total);
	void (*tick)(void *arg, uint64_t done);
	void (*end)(void *arg);
	void *arg;
};

struct mt_pipe_opts {
	const char *const *paths;	/* trace directories or files */
	size_t npaths;
	enum mt_tag_layout_id layout;	/* MT_TAG_LAYOUT_NONE: detect */
	enum mt_clock_mode clock;	/* --clock, MT_CLOCK_MODE_AUTO by default */
	void *sink_arg;			/* handed to sink->init in *state */
	struct mt_note note;		/* notes of the pipeline and the sink */
	const struct mt_pipe_progress *progress; /* NULL: none */
};

/*
 * Runs the whole pipeline into sink, writing to out. MT_OK, or: MT_ERR_ARG
 * (a path that is no trace), MT_ERR_CORRUPT and the reader's other errors
 * (a bad record: the records before it were still analysed and the sink
 * finished, which a note said), MT_ERR_NOMEM, MT_ERR_INTERNAL (a matcher
 * invariant broke), or a sink's status. err says why when the run stopped
 * there; it is empty when a note already said it.
 */
enum mt_status mt_pipe_run(const struct mt_pipe_opts *o,
			   const struct mt_sink_ops *sink, FILE *out,
			   struct mt_err *err);

/*
 * The pipeline divided by traced process (msgtrace-mpi, par/): every
 * analysis rank opens the whole trace (the same processes, endpoints and
 * layouts everywhere, as the serial pass has them; each endpoint's layout
 * from the evidence its process's reader gathered) and reads the records
 * of its own processes only, each record's operation handed to a route
 * instead of a matcher; the caller pairs them where it chooses, and the
 * rank that writes runs the pass (clock stage, sink) on the messages it is
 * given, in order.
 */
struct mt_pipe_split;
struct mt_pipe_dest;			/* where the pass's messages go */

/* Where a record's operation goes (a record gives at most one). */
struct mt_pipe_route {
	enum mt_status (*post)(void *arg, const struct mt_match_op *op);
	enum mt_status (*complete)(void *arg, const struct mt_match_cqe *c);
	enum mt_status (*close)(void *arg, int32_t ep, uint64_t ts);
	void *arg;
};

/*
 * A record's place in the merge of every file: records of any subsets of
 * the files, each subset read in the order its merge gives, sorted by
 * (key, where) come in the order of the merge of every file. key is the
 * latest merge time of the record's file so far (its own time, unless the
 * file went back in time), order-preserving as an unsigned.
 */
struct mt_pipe_at {
	uint64_t key;
	uint64_t where;			/* file slot << 40 | record index */
};

/*
 * The trace of o opened for a divided run as part number part of nparts
 * (mt_trace.h: mt_trace_open_part): every file opened, this part's share
 * scanned. MT_END without a message when o names an MPI-level OTF2
 * archive (run mt_pipe_run on it). The other parts' scans come in with
 * mt_pipe_split_take (each part's mt_pipe_split_scans); then
 * mt_pipe_split_opened finishes the opening, the layouts not yet known
 * (mt_pipe_split_layouts). A split that failed on the way is only closed.
 */
enum mt_status mt_pipe_split_open(const struct mt_pipe_opts *o, unsigned part,
				  unsigned nparts, struct mt_pipe_split **out,
				  struct mt_err *err);
enum mt_status mt_pipe_split_scans(const struct mt_pipe_split *s, unsigned part,
				   void **buf, size_t *len);
enum mt_status mt_pipe_split_take(struct mt_pipe_split *s, unsigned from,
				  const void *buf, size_t len, struct mt_err *err);
enum mt_status mt_pipe_split_opened(struct mt_pipe_split *s, struct mt_err *err);
void mt_pipe_split_close(struct mt_pipe_split *s);
const struct mt_trace *mt_pipe_split_trace(const struct mt_pipe_split *s);
/* The layouts' evidence (t->neps entries) read from the files of the
 * processes p with keep[p] set: complete for their endpoints, only their
 * attributes for the others' (an endpoint's operations are in its own
 * process's files). *bad_file: the index in t->files of the first of these
 * files with a bad record among those read (its error in err, where the
 * serial pass leaves the first file's), SIZE_MAX: none. NULL: out of
 * memory; free with free(). */
struct mt_tag_evidence *mt_pipe_split_evidence(struct mt_pipe_split *s,
					       const uint8_t *keep,
					       size_t *bad_file,
					       struct mt_err *err);
/* Each endpoint's layout decided from ev, every endpoint's evidence as
 * its process's reader gathered it: what the serial pass decides. Before
 * mt_pipe_split_matcher and mt_pipe_split_start; fails only when out of
 * memory. */
enum mt_status mt_pipe_split_layouts(struct mt_pipe_split *s,
				     const struct mt_tag_evidence *ev,
				     struct mt_err *err);
/* A matcher of every endpoint of the trace, as the pass makes it. */
enum mt_status mt_pipe_split_matcher(struct mt_pipe_split *s, struct mt_match **out);
/* From now on mt_pipe_split_next reads the records of the processes p with
 * keep[p] set (t->nprocs entries), through route. */
enum mt_status mt_pipe_split_start(struct mt_pipe_split *s, const uint8_t *keep,
				   const struct mt_pipe_route *route);
/* The next record read: its operation through the route; *skipped set when
 * it was an operation on an endpoint never enabled (the pass counts them).
 * MT_OK, MT_END, or the reader's error for a bad record (err). */
enum mt_status mt_pipe_split_next(struct mt_pipe_split *s, struct mt_pipe_at *at,
				  int *skipped, struct mt_err *err);

/* Who writes the sink's batches instead of its consume (the sink's lines,
 * mt_sink_lines, written by the caller): every batch once its times are
 * corrected, in order; end writes what it still holds before the sink is
 * finalized. */
struct mt_pipe_writer {
	enum mt_status (*write)(void *arg, const struct mt_match_msg *b, size_t n,
				struct mt_err *err);
	enum mt_status (*end)(void *arg, struct mt_err *err);
	void *arg;
};

/* The caller's part of a divided pass on the rank that writes. */
struct mt_pipe_split_feeder {
	/* Every message into d (mt_pipe_put) in the serial order, m's too
	 * (m: the pass's matcher, for the caller's own share; the caller
	 * finishes it), run->events and run->skipped counted; MT_OK or the
	 * failure that ended the reading (err). */
	enum mt_status (*stream)(void *arg, struct mt_match *m,
				 struct mt_pipe_dest *d, struct mt_run *run,
				 struct mt_err *err);
	/* The summary of every matcher (own: m's). NULL: out of memory. */
	const struct mt_match_summary *(*summary)(void *arg,
						  const struct mt_match_summary *own);
	const struct mt_pipe_writer *writer;	/* NULL: the sink's consume */
	void *arg;
};

/* The pass over s, with feeder's messages, into sink (mt_pipe_run's). */
enum mt_status mt_pipe_split_run(struct mt_pipe_split *s, const struct mt_pipe_opts *o,
				 const struct mt_pipe_split_feeder *f,
				 const struct mt_sink_ops *sink, FILE *out,
				 struct mt_err *err);
/* n messages into d, in order. */
enum mt_status mt_pipe_put(struct mt_pipe_dest *d, struct mt_match_msg *b, size_t n,
			   struct mt_err *err);
/* A bad record ended the reading: says so as the serial pass does (the
 * records before it were analysed); returns s. */
enum mt_status mt_pipe_bad_record(const struct mt_pipe_opts *o, enum mt_status s,
				  const struct mt_err *why);

/*
 * Views of a trace still being written (live.c, `msgtrace watch`): the
 * first reads the trace whole; each later one reads every file on from
 * where the last stopped and feeds only the new records to the matcher
 * kept from view to view (the trace is read anew when a file, an endpoint
 * or an address appeared meanwhile). A view hands sink the
 * run, the sends no receive has taken yet (consume) and the operations
 * pending now (finalize), with times as recorded. o (and its paths) must
 * outlive l.
 */
struct mt_pipe_live;
struct mt_pipe_live_stats {
	uint64_t full_reads;		/* views that read the trace whole */
	uint64_t resumed;		/* views that read on */
	uint64_t records;		/* records the last view fed */
};

enum mt_status mt_pipe_live_new(const struct mt_pipe_opts *o,
				struct mt_pipe_live **out, struct mt_err *err);
enum mt_status mt_pipe_live_view(struct mt_pipe_live *l,
				 const struct mt_sink_ops *sink, FILE *out,
				 struct mt_err *err);
const struct mt_pipe_live_stats *mt_pipe_live_stats(const struct mt_pipe_live *l);
void mt_pipe_live_free(struct mt_pipe_live *l);

/*
 * The layout in force on each endpoint of t, with the evidence: det and lay
 * hold t->neps entries. Detected from the endpoint's attributes and first
 * tagged operations, undecided endpoints taking the job's layout
 * (mt_tag_detect_job), or forced (the evidence is still gathered). Every
 * command that decodes tags goes through here, so they all agree. Returns
 * MT_ERR_NOMEM, or a bad record's status (the first, in err: det and lay are
 * still filled from the records before it), or MT_OK.
 */
enum mt_status mt_pipe_detect(const struct mt_trace *t,
			      enum mt_tag_layout_id force,
			      struct mt_tag_detect_result *det,
			      struct mt_tag_layout *lay, struct mt_err *err);
/* Whether a send carries CQ data (the source rank in some layouts). */
int mt_pipe_has_data(const struct mt_rec_op *r);
/* How a receive was posted, as MT_TAG_RECV_* bits. */
unsigned mt_pipe_recv_in(const struct mt_rec_op *r);

#endif /* MT_PIPE_H */
