/*
 * feed.h - turns trace records into the matcher's operations (private to
 * pipeline/): endpoint numbering, fi_addr resolution through the reader, tag
 * decoding with each endpoint's layout, completion semantics from the
 * endpoint's op flags and CQ binds.
 */
#ifndef MT_FEED_H
#define MT_FEED_H

#include "mt_match.h"
#include "mt_pipe.h"

#define FEED_ADDR_CACHE 256	/* fi_addr values cached per endpoint */
#define FEED_BATCH 128		/* merged records read ahead of the matcher.
				 * Built with link-time optimization, the
				 * merge runs inlined in mt_pipe_feed_read's
				 * loop, and longer runs of it pay: bench_match
				 * ratio median 0.247 at 64, 0.262 at 128,
				 * 0.261 at 256 (11 alternated runs each),
				 * although callgrind simulates fewer L1
				 * misses at 64 (3.58 per event, 5.15 at 256) */
#define FEED_MEMO_BITS 12	/* 2^12 decoded operations remembered, a
				 * line each: bench/match.sh's benign
				 * traffic repeats 800 (endpoint, tag, peer
				 * or mask), and 2^10 slots missed 40% */

struct feed_proc_cache {
	uint64_t ep_id, cq_id;		/* last endpoint and CQ looked up */
	int32_t ep, cq_ep;		/* their endpoint indices (-2: none yet) */
	int64_t offset_ns;		/* the process's merge_offset_ns, here
					 * with what every record reads */
};

/* A tagged operation decoded (feed.c: decode_memo), alone in its cache
 * line: a look-up reads one line, not two (56 bytes packed, most slots
 * straddled two). */
struct feed_memo {
	uint64_t tag, aux;	/* aux: a send's CQ data (0 without), a
				 * receive's ignore mask */
	uint64_t ep_how;	/* 0: empty; else endpoint << 32 | how, how
				 * = 1 | send << 1 | in << 2 (MT_TAG_IN_* or
				 * MT_TAG_RECV_* bits): one comparison for
				 * both, the word the hash mixes in */
	struct mt_match_fields f;
	uint64_t src_id;
} __attribute__((aligned(64)));

struct feed {
	const struct mt_trace *t;
	struct mt_match *m;
	const struct mt_pipe_route *route; /* NULL: operations go to m */
	struct mt_tag_layout *lay;	/* per endpoint (index in t->eps) */
	enum mt_tag_confidence *conf;
	struct mt_tag_detect_result *det; /* per endpoint: with the evidence */
	uint8_t *sel_tx, *sel_rx;	/* FI_SELECTIVE_COMPLETION per direction */
	int32_t *proc_ep;		/* first endpoint of each process, or -1 */
	uint64_t skipped;
	/* Look-up caches: the reader's searches cost more than matching. */
	struct feed_proc_cache *pc;	/* per process */
	int32_t (*addr)[FEED_ADDR_CACHE]; /* per endpoint: fi_addr -> ep + 2 */
	struct feed_memo *memo;		/* 2^FEED_MEMO_BITS, direct-mapped */
	struct mt_trace_event ev[FEED_BATCH];	/* mt_pipe_feed_read's */
	/* Their records, where the merge decoded them (compacted files):
	 * the merge's copy lasts until its next record only. */
	uint64_t decoded[FEED_BATCH][MT_TRACE_DECODED_MAX / 8];
	size_t n_ev;
	int compact;			/* some file is compacted: records to copy */
};

/* Detects each endpoint's layout (mt_pipe_detect) and its binds. */
enum mt_status mt_pipe_feed_init(struct feed *fd, const struct mt_trace *t,
			 enum mt_tag_layout_id force, struct mt_err *err);
/* The same from every endpoint's evidence gathered elsewhere (ev: t->neps,
 * mt_pipe_evidence's); only MT_ERR_NOMEM fails it. */
enum mt_status mt_pipe_feed_init_from(struct feed *fd, const struct mt_trace *t,
				      enum mt_tag_layout_id force,
				      const struct mt_tag_evidence *ev);
/* mt_pipe_detect's two steps. The evidence of each endpoint (ev: t->neps):
 * its attributes and its first successful tagged operations (failed calls
 * put no tag on the wire), from the files of the processes p with keep[p]
 * set (NULL: every file); an endpoint's operations are in its own
 * process's files only. Returns the first of these files' bad record
 * status (err; its index in t->files into *bad_file unless NULL), or
 * MT_OK. */
enum mt_status mt_pipe_evidence(const struct mt_trace *t, const uint8_t *keep,
				struct mt_tag_evidence *ev, size_t *bad_file,
				struct mt_err *err);
/* Each endpoint's layout from the evidence of every endpoint, detected or
 * forced. */
void mt_pipe_layouts(const struct mt_trace *t, enum mt_tag_layout_id force,
		     const struct mt_tag_evidence *ev,
		     struct mt_tag_detect_result *det, struct mt_tag_layout *lay);
/* Registers the endpoints with m (made with mt_pipe_feed_match_cfg), each
 * with its own layout's masks. */
enum mt_status mt_pipe_feed_attach(struct feed *fd, struct mt_match *m);
void mt_pipe_feed_fini(struct feed *fd);
/* Matcher configuration: the layout of endpoint 0, for what belongs to no
 * endpoint (mt_pipe_feed_attach gives each endpoint its own), and the
 * decoding of receive completions when a message needs it (cfg.fields:
 * fd must outlive the matcher). */
void mt_pipe_feed_match_cfg(const struct feed *fd, struct mt_match_cfg *cfg);
/*
 * Reads the next merged records (up to FEED_BATCH) into fd->ev, fd->n_ev of
 * them, for mt_pipe_feed_event: the merge runs ahead of decoding and
 * matching, so that each keeps its own memory and branches warm (one
 * record at a time, the merge ran at a third of its own speed). Returns
 * the merge's status after them: MT_OK (more may follow), MT_END, or its
 * error (in err; the records before the bad one are in fd->ev).
 */
enum mt_status mt_pipe_feed_read(struct feed *fd, struct mt_trace_merge *mg,
				 struct mt_err *err);
/* run as the trace and the feed say before any record is read (the
 * pipeline's pass, and each live view: pipeline.c). */
void mt_pipe_describe(struct mt_run *run, const struct mt_trace *t,
		      const struct feed *fd, const struct mt_note *note);
/* One merged record in. */
enum mt_status mt_pipe_feed_event(struct feed *fd, const struct mt_trace_event *ev);
/* The records fd->ev[from..to) in, in order, up to the first that fails:
 * returns its status (MT_OK: none did), *next the index after the last
 * record taken. One call per run of records: per record, the call and its
 * frame cost about as much as the feed's own work on an operation's
 * completion. */
enum mt_status mt_pipe_feed_events(struct feed *fd, size_t from, size_t to,
				   size_t *next);

#endif /* MT_FEED_H */
