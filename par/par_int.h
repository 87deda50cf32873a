/*
 * par_int.h - msgtrace-mpi's insides (private to par/): the routed
 * operations and tagged messages that travel between analysis ranks, the
 * route (route.c), the order of messages (order.c) and the combined
 * summary (reduce.c). See mt_par.h for the division of work.
 */
#ifndef PAR_INT_H
#define PAR_INT_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "mt_match.h"
#include "mt_pipe.h"
#include "mt_sink.h"

/* What a routed record holds. */
enum par_kind {
	PAR_NONE,		/* a record with no operation: counted only */
	PAR_SKIP,		/* an operation on an endpoint never enabled */
	PAR_POST,
	PAR_CQE,
	PAR_CLOSE,
	PAR_ACK,		/* an Ssend ACK's send, matched on another rank:
				 * what it pays is kept here (mt_match.h:
				 * mt_match_ack_elsewhere) */
};

/* One record read, on its way to the rank that matches it. */
struct par_ev {
	struct mt_pipe_at at;
	uint32_t kind;			/* enum par_kind */
	int32_t ep;			/* PAR_CLOSE */
	uint64_t ts;			/* PAR_CLOSE */
	union {
		struct mt_match_op op;
		struct mt_match_cqe cqe;
	} u;
};

/* Where a message (or a warning's example) stands in the serial output:
 * phase 0, the place of the record that finished it; phase 1 (the end's
 * first step), its receiving endpoint; phase 2, the post time and endpoint
 * of its earlier operation; then the order its rank gave it. */
struct par_key {
	uint64_t phase, a, b, sub;
};

struct par_msg {
	struct par_key key;
	struct mt_match_msg msg;
};

/* -1, 0, 1 as x is before, with, after y. */
int mt_par_key_cmp(const struct par_key *x, const struct par_key *y);
int mt_par_at_cmp(const struct mt_pipe_at *x, const struct mt_pipe_at *y);
/* The key of a message that left at the end, in phase 1 or 2. */
struct par_key mt_par_end_key(unsigned phase, const struct mt_match_msg *msg,
			      uint64_t sub);

/* A growable array of fixed-size items, consumed from its head. */
struct par_buf {
	void *v;
	size_t head, n, cap, size;	/* items [head, n) are live */
};

void *mt_par_buf_add(struct par_buf *b);	/* NULL: out of memory */
/* k items from p at the end of b; -1: out of memory. */
int mt_par_buf_append(struct par_buf *b, const void *p, size_t k);
void mt_par_buf_drop(struct par_buf *b, size_t k);	/* k from the head */
static inline void *mt_par_buf_at(const struct par_buf *b, size_t i)
{
	return (char *)b->v + (b->head + i) * b->size;
}
static inline size_t mt_par_buf_len(const struct par_buf *b)
{
	return b->n - b->head;
}
void mt_par_buf_free(struct par_buf *b);
/* b holds n items from its head (their contents undefined); -1: out of
 * memory. */
int mt_par_buf_reserve(struct par_buf *b, size_t n);

/* Who owns what (own.c): per process whether this rank does, per endpoint
 * its process and that process's owner. */
struct par_owners {
	uint8_t *keep;
	int *ep_owner;
	uint32_t *ep_proc;
};

enum mt_status mt_par_own(const struct mt_trace *t, int rank, int n,
			  struct par_owners *o);
void mt_par_owners_free(struct par_owners *o);

/* sp's layouts, decided alike on every rank from the evidence each read
 * in its own processes' files (evidence.c). Collective; fails only when
 * out of memory. */
enum mt_status mt_par_layouts(MPI_Comm comm, struct mt_pipe_split *sp,
			      const struct par_owners *own, struct mt_err *err);

/* The synchronous sends m still owes an ACK, each into the matcher of
 * its sender's owner (owed.c), before mt_match_finish. Collective: a rank
 * with nothing to give (its run aborted) passes m NULL. */
enum mt_status mt_par_owed_share(MPI_Comm comm, struct mt_match *m,
				 const int *ep_owner);

/* Every rank's keyed messages (msgs, emptied) to rank 0, merged by key
 * into d (got: rank 0's buffer). Collective; d's failure comes back on
 * rank 0. */
enum mt_status mt_par_deliver(MPI_Comm comm, struct par_buf *msgs,
			      struct par_buf *got, struct mt_pipe_dest *d,
			      struct mt_err *err);

/*
 * The route of one rank's records (route.c): each operation into the
 * outbox of the rank that matches it, with the place of its record.
 */
struct par_ctxmap;

struct par_route {
	int nranks;
	const int *ep_owner;		/* per endpoint: its process's owner */
	const uint32_t *ep_proc;	/* per endpoint: its process */
	struct par_buf *out;		/* per rank: struct par_ev */
	struct par_ctxmap *ctx;		/* operations waiting, by process and
					 * context: where they went */
	struct mt_pipe_at at;		/* the record being read */
	int self;
	int got;			/* it gave an operation */
	struct mt_pipe_route r;		/* for mt_pipe_split_start */
};

enum mt_status mt_par_route_init(struct par_route *rt, int self, int nranks,
				 const int *ep_owner, const uint32_t *ep_proc);
void mt_par_route_fini(struct par_route *rt);
/* The record just read gave no operation: counted where it was read. */
enum mt_status mt_par_route_none(struct par_route *rt, int skipped);

/*
 * The combined summary (reduce.c): each rank's counts, first examples
 * with their keys and pending operations, gathered to rank 0.
 */
struct par_example {
	struct par_key key;
	struct mt_match_msg msg;
};

struct par_local {
	struct par_example ex[MT_MATCH_W_COUNT][MT_MATCH_EXAMPLES];
	unsigned n_keyed[MT_MATCH_W_COUNT];	/* examples keyed so far */
	unsigned n_seen;			/* all warnings' (summary's
						 * n_examples) */
	uint64_t events, skipped;
};

/* Keys the examples m's summary gained since the last call (phase 0: at,
 * else mt_par_end_key's), in order, from *sub on. */
void mt_par_examples(struct par_local *l, const struct mt_match *m,
		     unsigned phase, const struct mt_pipe_at *at, uint64_t *sub);
/* Rank 0 gets in *out the summary of every rank's matcher (m: this
 * rank's), *events and *skipped their sums; free with
 * mt_par_summary_free. Collective; out of memory on rank 0 aborts the job
 * (no rank may wait for it). */
void mt_par_reduce(MPI_Comm comm, const struct mt_match *m,
			     const struct par_local *l,
			     struct mt_match_summary *out, uint64_t *events,
			     uint64_t *skipped);
void mt_par_summary_free(struct mt_match_summary *s);

/* wait.c: MPI_Wait for req, and a blocking MPI_Mprobe for a message from
 * src with *tag (MPI_ANY_TAG: any; *tag becomes the message's, *bytes its
 * size), sleeping ns between two looks instead of spinning. */
void mt_par_wait(MPI_Request *req, long ns);
void mt_par_wait_probe(MPI_Comm comm, int src, int *tag, long ns,
		       MPI_Message *msg, int *bytes);

/*
 * The sink's lines written by every rank (lines.c), once the reading is
 * over: rank 0's pass hands each batch to another rank with room, which
 * writes it with the sink's formatter (mt_sink_lines) into text, or
 * writes pieces of it itself while none has; rank 0 puts the texts into
 * its output in the batches' order.
 */
struct par_lines;

/* Rank 0: a writer of sink's lines into out, rank 0 alone writing until
 * mt_par_lines_share; *w is the pass's writer (mt_pipe_split_feeder).
 * NULL: out of memory. */
struct par_lines *mt_par_lines_new(MPI_Comm comm, const struct mt_sink_lines *sink,
				   const struct mt_trace *t, FILE *out);
const struct mt_pipe_writer *mt_par_lines_writer(struct par_lines *pl);
/* From now on the other ranks write too (each in mt_par_lines_serve). */
void mt_par_lines_share(struct par_lines *pl);
/* Ends the other ranks' mt_par_lines_serve (texts still out are taken and
 * dropped: the pass ended early) and frees pl. */
void mt_par_lines_free(struct par_lines *pl);
/* Any other rank: writes the batches rank 0 sends until it says the end.
 * Collective with rank 0's mt_par_lines_share ... mt_par_lines_free. */
void mt_par_lines_serve(MPI_Comm comm, const struct mt_sink_lines *sink,
			const struct mt_trace *t);

/* outfile.c: whether every rank can write rank 0's out in place (rank 0
 * passes out, the others NULL); *fd: another rank's descriptor of it, -1
 * on rank 0 or when not every rank can. Collective. */
int mt_par_outfile(MPI_Comm comm, FILE *out, int *fd);
/* The k bytes at p into fd at offset at: 0, or the errno of the failure. */
int mt_par_write_at(int fd, const void *p, size_t k, int64_t at);

/* engine.c: the pipeline command's analysis (mt_pipe_run's) divided among
 * the ranks of comm: rank 0 writes to out; every rank returns rank 0's
 * status where the run reached a common end, its own otherwise (rank 0's
 * exit status is the caller's to share). Collective. */
enum mt_status mt_par_engine(MPI_Comm comm, const struct mt_pipe_opts *o,
			     const struct mt_sink_ops *sink, FILE *out,
			     struct mt_err *err);

#endif /* PAR_INT_H */
