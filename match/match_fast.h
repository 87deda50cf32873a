/*
 * match_fast.h - the matcher's steps that every event takes, static inline
 * (the write-side split of LTTng's frontend_api.h): taking and freeing an
 * operation, pairing it with its completion by context, a receive's
 * posting list and its entry into matching when nothing precedes it, room
 * for a message and a matched pair's message, and the Ssend ACK
 * bookkeeping most messages skip. Out of line, each cost a call from the
 * file that needs it; their rare cases (a pool or queue to grow, a context
 * shared or colliding, a receive that waits its turn, a synchronous send)
 * stay there (match.c, match_order.c, match_ssend.c).
 */
#ifndef MATCH_FAST_H
#define MATCH_FAST_H

#include <stddef.h>
#include <string.h>

#include "match_priv.h"

/* match.c: the slow paths. */
uint32_t mt_match_op_more(struct mt_match *m);
enum mt_status mt_match_ctx_push_map(struct mt_match *m, uint32_t i, uint32_t h);
uint32_t mt_match_ctx_pop_map(struct mt_match *m, int32_t proc, uint64_t context,
			      uint32_t h);
struct mt_match_msg *mt_match_out_more(struct mt_match *m);

/* A free operation, its links cleared (the caller sets the posted op and
 * times), or NIL when out of memory. */
static inline uint32_t mt_match_op_alloc(struct mt_match *m)
{
	uint32_t i = m->free_op;

	if (i)
		m->free_op = m->op[i].ctx_next;
	else if (!(i = mt_match_op_more(m)))
		return NIL;
	struct op *o = &m->op[i];

	o->state = 0;
	o->ctx_next = o->q_next = o->l_prev = o->l_next = o->peer_op = NIL;
	o->grp = o->wait_cls = NIL;
	o->done_len = o->rtag = 0;
	o->rsrc = MT_MATCH_NOSRC;
	/* Typed, not memset: a char store may alias anything, and after it
	 * gcc loaded m->op again for every later access. */
	o->rf = (struct mt_match_fields){ 0 };
	return i;
}

static inline void mt_match_op_free(struct mt_match *m, uint32_t i)
{
	m->op[i].state = 0;
	m->op[i].ctx_next = m->free_op;
	m->free_op = i;
}

static inline uint32_t mt_match_ctx_hash(int32_t proc, uint64_t context)
{
	return (uint32_t)(((context >> 3) ^ (uint64_t)proc * 0x9E3779B1u) *
			  0x9E3779B97F4A7C15ull >> (64 - CTX_FAST_BITS));
}

/*
 * Appends op i to the FIFO of ops of its process waiting on its context:
 * contexts are reused, and completions come back in posting order. Most
 * ops sit alone in a direct-mapped slot; the map takes collisions and
 * repeats (.over counts them per slot), and an op goes to the slot only
 * when the map holds nothing of that slot, so the slot's op is always the
 * oldest of its key.
 */
static inline enum mt_status mt_match_ctx_push(struct mt_match *m, uint32_t i)
{
	uint32_t h = mt_match_ctx_hash(m->op[i].proc, m->op[i].p.context);

	m->op[i].state |= OP_CTX;
	m->op[i].ctx_next = NIL;
	if (m->ctx_slot[h].fast || m->ctx_slot[h].over)
		return mt_match_ctx_push_map(m, i, h);
	m->ctx_slot[h].fast = i;
	return MT_OK;
}

/* Takes the oldest op of proc waiting on context, or NIL. */
static inline uint32_t mt_match_ctx_pop(struct mt_match *m, int32_t proc,
					uint64_t context)
{
	uint32_t h = mt_match_ctx_hash(proc, context);
	uint32_t i = m->ctx_slot[h].fast;

	if (!i || m->op[i].p.context != context || m->op[i].proc != proc)
		return mt_match_ctx_pop_map(m, proc, context, h);
	m->ctx_slot[h].fast = NIL;	/* its ctx_next is NIL: the map
					 * chains the later ones of its key */
	m->op[i].state &= ~(uint32_t)OP_CTX;
	return i;
}

/* Room for one more message at the end of the output queue (counted in
 * it at once: fill it in before returning to the caller), or NULL when out
 * of memory. */
static inline struct mt_match_msg *mt_match_out_slot(struct mt_match *m)
{
	if (m->out_head + m->out_n == m->out_cap)
		return mt_match_out_more(m);
	return &m->out[m->out_head + m->out_n++];
}

/* Every byte of a message is written by the builders (below, and
 * match_msg.c), its padding included (pad, pad2, and the fields' tail,
 * copied from the ops or cleared): no memset of the 136 bytes first, a
 * third of building a message. */
_Static_assert(offsetof(struct mt_match_msg, send_site) ==
	       offsetof(struct mt_match_msg, pad) + sizeof(((struct mt_match_msg *)0)->pad) &&
	       offsetof(struct mt_match_msg, raw_tag) ==
	       offsetof(struct mt_match_msg, pad2) + sizeof(uint32_t),
	       "struct mt_match_msg has padding that no member names");

/* The send's side of a message: the message as sent. */
static inline void mt_match_msg_send_side(const struct op *so, struct mt_match_msg *msg)
{
	msg->send_ep = so->p.ep;
	msg->recv_ep = so->p.peer;
	msg->f = so->p.f;
	msg->raw_tag = so->p.tag;
	msg->bytes = so->p.len;
	msg->t_send_post = so->p.ts;
	msg->t_send_done = so->done_ts;
	msg->send_site = so->p.site;
}

static inline void mt_match_msg_recv_side(const struct op *ro, struct mt_match_msg *msg)
{
	msg->recv_ep = ro->p.ep;
	msg->t_recv_post = ro->p.ts;
	msg->t_recv_done = ro->done_ts;
	msg->recv_buf = ro->p.len;
	msg->recv_f = ro->p.f;
	msg->recv_site = ro->p.site;
}

static inline void mt_match_msg_status(struct mt_match_msg *msg, unsigned status)
{
	msg->status = (uint8_t)status;
	memset(msg->pad, 0, sizeof(msg->pad));
	msg->pad2 = 0;
}

/* The message of send so and receive ro, paired. Inline: every message
 * is built here, and out of line the call and the tests of which side is
 * there cost a third of it. Both endpoints are known: mt_match_post took
 * no op of an endpoint outside m->ep. */
static inline void mt_match_msg_pair(const struct mt_match *m, const struct op *so,
				     const struct op *ro, struct mt_match_msg *msg)
{
	mt_match_msg_send_side(so, msg);
	mt_match_msg_recv_side(ro, msg);
	msg->send_rank = m->ep[so->p.ep].rank;
	msg->recv_rank = m->ep[ro->p.ep].rank;
	mt_match_msg_status(msg, (ro->state & OP_TRUNC) || so->p.len > ro->p.len ?
			    MT_MATCH_ST_TRUNCATED : (ro->state & OP_AMBIG) ?
			    MT_MATCH_ST_AMBIGUOUS : MT_MATCH_ST_MATCHED);
}

/* match_ssend.c: synchronous sends owed an ACK, for the ones that are. */
enum mt_status mt_match_owe_ack_ssend(struct mt_match *m, uint32_t s, uint32_t r);
void mt_match_ack_sent_ack(struct mt_match *m, uint32_t s);

/* Send s, paired with receive r: if a synchronous send, owed its ACK. */
static inline enum mt_status mt_match_owe_ack(struct mt_match *m, uint32_t s,
					      uint32_t r)
{
	return m->op[s].p.f.kind == MT_MATCH_SSEND ? mt_match_owe_ack_ssend(m, s, r) :
		MT_OK;
}

/* Send s is posted: if an Ssend ACK, its synchronous send is owed no more. */
static inline void mt_match_ack_sent(struct mt_match *m, uint32_t s)
{
	if (m->op[s].p.f.kind == MT_MATCH_SSEND_ACK)
		mt_match_ack_sent_ack(m, s);
}

/* Receive i leaves its endpoint's posting list (its turn came, or it
 * failed). */
static inline void mt_match_list_unlink(struct mt_match *m, uint32_t i)
{
	struct op *o = &m->op[i];
	struct ep *e = &m->ep[o->p.ep];

	if (!(o->state & OP_LISTED))
		return;
	if (o->l_prev)
		m->op[o->l_prev].l_next = o->l_next;
	else
		e->lh = o->l_next;
	if (o->l_next)
		m->op[o->l_next].l_prev = o->l_prev;
	else
		e->lt = o->l_prev;
	if (o->state & OP_DONE)
		e->n_deferred--;
	o->state &= ~(uint32_t)OP_LISTED;
}

/*
 * Posted receive i completed (its fields taken, not yet OP_DONE): it
 * enters matching. The usual receive is the first posted of its endpoint,
 * in no filter class, and no completed receive waits anywhere: nothing can
 * come before it, and it is paired at once, as match_order.c would after
 * passing it over and finding it alone (unlinked before it is marked
 * done, it was never counted deferred). Any other waits its turn there.
 */
static inline enum mt_status mt_match_order_done(struct mt_match *m, uint32_t i)
{
	struct op *o = &m->op[i];
	struct ep *e = &m->ep[o->p.ep];

	/* One test: the usual receive fails none of them. */
	if ((e->lh ^ i) | (e->unidx ^ i) | e->n_deferred | m->ready.n |
	    (o->state & OP_INDEXED))
		return mt_match_order_wait(m, i);
	/* It heads its posting list, listed and not yet done: the list
	 * loses its head, with none of mt_match_list_unlink's tests. */
	e->unidx = e->lh = o->l_next;
	if (o->l_next)
		m->op[o->l_next].l_prev = NIL;
	else
		e->lt = NIL;
	o->state = (o->state & ~(uint32_t)OP_LISTED) | OP_DONE | OP_FINAL;
	return mt_match_pair_recv(m, i);
}

/* Receive i was posted (match_order.c): the first posted receive of its
 * endpoint not yet in filter classes, if none is. */
static inline void mt_match_order_posted(struct mt_match *m, uint32_t i)
{
	struct ep *e = &m->ep[m->op[i].p.ep];

	if (!e->unidx)
		e->unidx = i;
}

#endif /* MATCH_FAST_H */
