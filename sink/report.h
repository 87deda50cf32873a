/*
 * report.h - the statistics of `msgtrace report` (private to sink/),
 * accumulated from message batches and rendered by sink_text and sink_json:
 * per-pair messages and bytes split user / internal, message sizes in
 * power-of-two classes, effective bandwidth (bytes over receive completion
 * minus send post) per pair and per size class, throughput over time;
 * across hosts, the traffic inside a host and between hosts apart.
 */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include "mt_sink.h"

#define REPORT_CLASSES 42	/* 0 B, then [2^(c-1), 2^c) up to 2^40 and more */
#define REPORT_BINS 20		/* throughput: the run cut in 20 */

enum { REPORT_USER, REPORT_INTERNAL };
enum { REPORT_INSIDE, REPORT_BETWEEN };	/* a host's ranks, or two hosts' */

struct report_cell {
	uint64_t msgs[2], bytes[2];	/* REPORT_USER / REPORT_INTERNAL */
	uint64_t bw_bytes, bw_ns;	/* matched messages with a duration */
};

struct report {
	const struct mt_trace *trace;	/* names the ranks (mt_sink_rank) */
	struct mt_sym *sym;		/* names call sites, NULL: none */
	size_t n;			/* ranks: matrix is n x n */
	struct report_cell *pair;	/* [sender * n + receiver] */
	/* The cells of pair holding a message, npairs of them: a job of
	 * 10,000 ranks has 10^8 cells, a few of which are used. Sorted by
	 * mt_sink_report_pairs(). */
	size_t *used, npairs, cap_pairs;
	struct report_cell size[REPORT_CLASSES];
	uint64_t bin_bytes[REPORT_BINS];
	int64_t t0, t1;
	uint64_t kind[MT_MATCH_KIND_COUNT];
	uint64_t msgs, bytes, no_rank;	/* no_rank: a side's rank unknown */
	uint64_t *no_peer;		/* per rank: its messages of no_rank */
	uint64_t sends, recvs;		/* sides posted, cancelled ones too */
	/* With more than one host (else NULL): each rank's host (NULL when
	 * unknown), and the messages whose two ranks' hosts are known, inside
	 * one host or between two, in all and per size class. */
	const char **host;
	struct report_cell where[2];
	struct report_cell size_where[2][REPORT_CLASSES];
};

int mt_sink_report_init(struct report *r, const struct mt_run *run);
/* Returns 0, or -1 when out of memory. */
int mt_sink_report_add(struct report *r, const struct mt_match_msg *m, size_t n);
void mt_sink_report_fini(struct report *r);
/* The indices of the cells of r->pair holding a message, ascending
 * (sender, then receiver); r->npairs of them. */
const size_t *mt_sink_report_pairs(struct report *r);
/* The state of a sink that renders the report at the end (sink_text,
 * sink_json): the statistics so far and where they go. */
struct report_sink {
	FILE *out;
	struct report r;
};
/* Such a sink's mt_sink_ops init and consume. */
enum mt_status mt_sink_report_start(void **state, FILE *out,
				   const struct mt_run *run, struct mt_err *err);
enum mt_status mt_sink_report_consume(void *state, const struct mt_match_msg *b,
				     size_t n, struct mt_err *err);
/* Frees it once rendered: 0, or -1 when the output could not be written. */
enum mt_status mt_sink_report_end(struct report_sink *x, struct mt_err *err);
/* Lower bound of size class c: "0 B", "1 B", "2 B", ... "1 KiB" (the
 * class holds sizes up to twice that, exclusive). */
const char *mt_sink_report_class_label(unsigned c, char *buf, size_t len);
/* The host of rank key, NULL when not known or the trace has one host. */
const char *mt_sink_report_host(const struct report *r, int64_t key);
/* Is this message MPI-internal? (an internal tag, ACKs, untagged protocol) */
int mt_sink_report_internal(const struct mt_match_fields *f);
/* Receives were posted (messages' or still pending) and not one send: the
 * traffic took a path the hook does not see. How many receives; 0 when
 * there was a send or no receive. */
uint64_t mt_sink_report_bypassed(const struct report *r,
				 const struct mt_match_summary *s);
/* MB/s (10^6 bytes per second) of bytes over ns, 0 when ns is 0. */
double mt_sink_report_mbps(uint64_t bytes, uint64_t ns);
/* Seconds since the start of the run. */
double mt_sink_report_sec(const struct report *r, uint64_t t);
/* "1.5 KiB" */
const char *mt_sink_report_human(uint64_t bytes, char *buf, size_t len);
/* One message in a line: "rank 0 -> 1 cid 0 tag 5 user 64 B, sent 0.123 s"
 * (" into a 32 B buffer" when truncated). */
void mt_sink_report_msg_line(const struct report *r, const struct mt_match_msg *m,
		     char *buf, size_t len);
/* Call site number site as "file.c:12 (main) via MPI_Recv", NULL when
 * there is none (0, or the trace has no call sites). */
const char *mt_sink_report_site(const struct report *r, uint32_t site);
/* One pending operation in a line: "rank 2 waits: receive user from rank 1
 * cid 0 tag 7, 64 B buffer, posted 0.5 s" or "rank 1: send ... never
 * completed". */
void mt_sink_report_pending_line(const struct report *r,
			 const struct mt_match_pending *p, char *buf, size_t len);

/* The hang's wait-for analysis of s (mt_match.h), ranks' states from the
 * trace: a process whose files all closed finished; a rank with no
 * process left no trace. MT_OK or MT_ERR_NOMEM; free with
 * mt_match_hang_free. */
enum mt_status mt_sink_report_hang(const struct mt_run *run,
				   const struct mt_match_summary *s,
				   struct mt_match_hang **h);
/* Sorted distinct ranks (process keys) as ranges, "0-3,7,9-12" (JOB:RANK
 * beyond the first job), cut to fit len with ",... (N in all)". The
 * helpers below name ranks through t too (NULL: keys are ranks). */
const char *mt_sink_report_ranks(const struct mt_trace *t, const int32_t *r,
				 size_t n, char *buf, size_t len);
#define MT_SINK_RANKS_WIDTH 40	/* a rank list's longest text, NUL included */
/* One wait: "rank 0 waits on rank 1: recv user cid 0 tag 99". */
void mt_sink_report_wait_line(const struct mt_trace *t,
			      const struct mt_match_summary *s,
			      const struct mt_match_wait *w, char *buf,
			      size_t len);
/* What a root of the hang is: "a cycle, 2 ranks wait on each other:". */
void mt_sink_report_root_line(const struct mt_trace *t,
			      const struct mt_match_root *rt, char *buf,
			      size_t len);
/* A group of waits: "ranks 2-15 wait: recv coll cid 0 tag -16, on ranks
 * 0-7" (", for 3.2 s" since the oldest post when now is a time). */
void mt_sink_report_group_line(const struct mt_trace *t,
			       const struct mt_match_group *g, uint64_t now,
			       char *buf, size_t len);
/* The hang's view of `report` (sink_text.c): its causes, the other waits
 * grouped, the near misses that explain; about 40 lines. now a time (the
 * sink's clock): how long each group has waited. */
void mt_sink_text_hang_view(FILE *o, const struct report *r,
			    const struct mt_match_summary *s,
			    const struct mt_match_hang *h, uint64_t now);

#endif /* MT_REPORT_H */
