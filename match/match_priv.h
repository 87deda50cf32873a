/*
 * match_priv.h - the matcher's internal state, shared by the match/ sources only.
 * Operations live in one pool and are named by uint32 indices (0 = none),
 * so that growing the pool never leaves a dangling pointer in a queue.
 */
#ifndef MATCH_PRIV_H
#define MATCH_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "match_map.h"
#include "mt_match.h"

#define NIL 0u

enum op_state {
	OP_CTX = 1u << 0,	/* waiting for its completion */
	OP_DONE = 1u << 1,	/* completed (or completes at post) */
	OP_FINAL = 1u << 2,	/* receive: its place in matching order fixed */
	OP_PAIRED = 1u << 3,
	OP_QUEUED = 1u << 4,	/* in a key queue, waiting for a partner */
	OP_LISTED = 1u << 5,	/* receive: in its endpoint's posting list */
	OP_PEEK = 1u << 6,	/* probe */
	OP_CLAIMED = 1u << 7,	/* probe claimed a message; FI_CLAIM recv next */
	OP_TRUNC = 1u << 8,
	OP_CANCEL = 1u << 9,
	OP_AMBIG = 1u << 10,
	OP_ERROR = 1u << 11,
	OP_INDEXED = 1u << 12,	/* receive: posted, in its filter classes */
	OP_READY = 1u << 13,	/* receive: completed, its turn came */
};

struct op {
	struct mt_match_op p;	/* as posted */
	uint64_t done_ts;
	uint64_t done_len;
	uint64_t rtag;		/* receive: tag of its completion */
	uint64_t rsrc;		/* receive: source identity of its completion */
	union {			/* receive: its completion */
		struct mt_match_fields rf; /* decoded (no cfg.fields) */
		struct {	/* as given, for cfg.fields */
			uint64_t tag, data;
			int32_t ep;
			uint8_t flags;	/* FI_TAGGED and FI_MSG */
		} rc;
	};
	int32_t rsrc_ep;	/* receive: known source endpoint, or -1 */
	uint32_t seq;		/* posting sequence number (1, 2, ...) */
	uint32_t ctx_next;	/* same-context FIFO; free list */
	uint32_t q_next, q_prev; /* key queue */
	uint32_t l_prev, l_next; /* endpoint posting list */
	uint32_t peer_op;	/* partner once paired */
	uint32_t state;		/* enum op_state */
	/* Receive ordering (match_order.c): while posted, the op's filter
	 * classes (its own source; all directed sources, if directed: else
	 * NIL) and its links in them; once
	 * completed and waiting, its completion group and the class it waits
	 * on (0: none). */
	uint32_t cls[2], c_prev[2], c_next[2];
	uint32_t grp, wait_cls;
	int32_t proc;		/* of p.ep: ops pair with completions by
				 * (process, context), and every post and
				 * completion asks (in the padding the struct
				 * had) */
};

/* Operation indices ordered by posting sequence: a binary min-heap of
 * seq << 32 | index (match_order.c: sh_key), so that sifting compares
 * words in the heap, not the sequence numbers of ops all over the pool. */
struct seqheap {
	uint64_t *v;
	uint32_t n, cap;
};

/* Posted receives of one endpoint that could take the same messages:
 * filter (tagged, ignore, tag outside ignore) and source (a directed one,
 * any source, or every directed one of the filter). A receive that
 * completed while one of these, posted before it, is still posted waits on
 * the class. */
struct cls {
	uint32_t head, tail;	/* posted receives in posting order */
	struct seqheap waiters;	/* completed receives it holds back */
	uint32_t next_free;
	struct map_key k;
};

/* Completed receives of one endpoint waiting with one key: they enter
 * matching in posting order. */
struct grp {
	struct seqheap h;
	uint32_t next_free;
	struct map_key k;
};

/* The ignore masks of an endpoint's indexed receives (few: a layout has a
 * handful of wildcard combinations). count 0: a free entry. */
struct maskg {
	uint64_t ignore;
	uint32_t count;
	uint32_t directed;	/* of count, receives from a named source: the
				 * classes blocker asks for a completion's
				 * source exist only if some are, the class of
				 * any source only if not all are */
	uint8_t tagged;
};

/* A synchronous send received, whose ACK has not been sent yet. */
struct owed {
	struct mt_match_msg msg;
	uint8_t claimed;
	uint32_t next_free;
};

/* A key's slot in the key map: its waiting sends and receives. */
struct key_slot {
	struct map_slot s;	/* s.v: 1 */
	uint32_t sh, st;	/* send queue head, tail */
	uint32_t rh, rt;	/* receive queue */
	uint32_t unused[4];	/* to 64 bytes: a map's slot size is a
				 * power of two (match_map.h) */
};
_Static_assert(sizeof(struct key_slot) == 64, "a key slot fills 64 bytes");

#define CTX_FAST_BITS 12	/* 2^12 direct-mapped slots of waiting contexts
				 * (32 KiB): most ops wait alone in one, even
				 * with a thousand receives posted (a server's
				 * wildcard receives: at 2^10, 55% of the
				 * completions had to ask the map) */
#define EP_LEARNT 8		/* (cid, comm_src, peer) triples cached */

struct ep {
	int32_t proc, rank;
	uint64_t loose, ack;	/* its layout's masks (struct mt_match_cfg) */
	uint64_t field_mask[MT_MATCH_F_COUNT];
	struct { int64_t cid; int32_t peer, comm_src; } learnt[EP_LEARNT];
	uint32_t lh, lt;	/* receives in posting order, until final */
	uint32_t n_deferred;	/* completed but not final */
	uint32_t unidx;		/* first posted receive not yet in classes:
				 * no completed one follows it */
	struct maskg *mg;
	uint32_t n_mg;
	uint32_t n_mg_used;	/* entries of mg whose count is not 0 */
	/* The class index_op or blocker found last, and its key (0: none):
	 * a wildcard server's receives all fall in one, asked for at every
	 * completion (match_order.c: cls_find). */
	uint32_t cls_last;
	struct map_key cls_last_k;
	uint64_t close_ts;	/* MT_MATCH_NOTIME while open */
	int window;		/* its trace starts late (mt_match_ep_window) */
	uint64_t window_start;	/* there (0: not known) */
	uint64_t taken_early;	/* sends to it passed over as taken before
				 * its window, not yet set against a receive
				 * left without a send */
};

struct mt_match {
	struct mt_match_cfg cfg;
	struct op *op;		/* pool; op[0] unused */
	uint32_t n_op, cap_op, free_op;
	struct ep *ep;
	uint32_t n_ep;
	struct {
		uint32_t fast;	/* an op waiting for completion, by context */
		uint32_t over;	/* ops of the slot's hash in the map */
	} ctx_slot[1u << CTX_FAST_BITS]; /* together: one cache line a look-up */
	struct map ctx;		/* (proc, context) -> first op waiting: the rest */
	struct map keys;	/* (ep, tag, src): struct key_slot */
	struct map comm;	/* (recv ep, cid, comm_src) -> sender rank + 1 */
	struct map claims;	/* (proc, context) -> receive a probe claimed */
	struct map owed;	/* (ssender ep, tag) -> unacknowledged Ssend */
	struct cls *cls;	/* cls[0] unused */
	uint32_t n_cls, cap_cls, free_cls;
	struct map clsmap;	/* (ep, mask entry, source, tag) -> class */
	struct grp *grp;	/* grp[0] unused */
	uint32_t n_grp, cap_grp, free_grp;
	struct map grpmap;	/* (ep, tagged, key) -> completion group */
	struct seqheap ready;	/* receives whose turn came */
	struct owed *owe;	/* owe[0] unused */
	uint32_t n_owe, cap_owe, free_owe;
	struct mt_match_msg *out;
	size_t out_head, out_n, out_cap;
	uint32_t seq;
	struct mt_match_summary sum;
	int windowed;		/* some endpoint's trace starts late */
	int posted_ended;	/* mt_match_finish_posted ran */
	/* check mode: posting seqs already paired, one bit each */
	uint8_t *paired_bits;
	size_t paired_cap;
	uint64_t violations;
	char violation[160];
	/* Ops posted and ended (reported, or failed): the difference is the
	 * pool's (match_check.c). */
	uint64_t posted_sends, posted_recvs, ended_sends, ended_recvs;
};

enum mt_status mt_match_grow(void **arr, uint32_t *cap, size_t elem);
/* Endpoint ep was added. One test: a negative ep, as uint32_t, is past
 * any count of endpoints (numbered by int32_t from 0, densely). */
static inline int ep_known(const struct mt_match *m, int32_t ep)
{
	return (uint32_t)ep < m->n_ep;
}

static inline int32_t ep_proc(const struct mt_match *m, int32_t ep)
{
	return ep_known(m, ep) ? m->ep[ep].proc : -1;
}

/* Masks of endpoint ep, the matcher's own for an unknown one. */
static inline uint64_t ep_loose(const struct mt_match *m, int32_t ep)
{
	return ep_known(m, ep) ? m->ep[ep].loose : m->cfg.loose_mask;
}

static inline uint64_t ep_ack(const struct mt_match *m, int32_t ep)
{
	return ep_known(m, ep) ? m->ep[ep].ack : m->cfg.ack_mask;
}

static inline int32_t ep_rank(const struct mt_match *m, int32_t ep)
{
	return ep_known(m, ep) ? m->ep[ep].rank : -1;
}


enum mt_status mt_match_pair_send(struct mt_match *m, uint32_t s);
enum mt_status mt_match_pair_recv(struct mt_match *m, uint32_t r);
enum mt_status mt_match_try_emit(struct mt_match *m, uint32_t i);
enum mt_status mt_match_flush_pair(struct mt_match *m, uint32_t s, uint32_t r);
void mt_match_unqueue(struct mt_match *m, uint32_t i);
enum mt_status mt_match_emit_alone(struct mt_match *m, uint32_t i, unsigned status);
void mt_match_build_msg(const struct mt_match *m, uint32_t s, uint32_t r,
	       struct mt_match_msg *msg);
void mt_match_violate(struct mt_match *m, const char *what);
const struct owed *mt_match_owed_for(const struct mt_match *m, const struct op *r);
/* match_order.c: when completed receives enter matching (the usual one
 * enters at once: mt_match_order_done, match_fast.h). */
enum mt_status mt_match_order_wait(struct mt_match *m, uint32_t i);
enum mt_status mt_match_order_drop(struct mt_match *m, uint32_t i);
enum mt_status mt_match_order_drain(struct mt_match *m);
enum mt_status mt_match_order_end(struct mt_match *m, int32_t ep);
void mt_match_order_free(struct mt_match *m);
int32_t mt_match_comm_rank(const struct mt_match *m, int32_t ep,
		  const struct mt_match_fields *f);

#endif /* MATCH_PRIV_H */
