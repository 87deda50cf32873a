/*
 * match_ops.c - posted operations and their completions: pairing by context,
 * probes and claims (match_order.c: the order in which receives enter
 * matching).
 */
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "match_fast.h"

static int learn_comm(struct mt_match *m, const struct mt_match_op *op)
{
	/* The sender knows its own world rank and its rank in the
	 * communicator: receives that only know the latter learn it here. */
	if ((op->f.cid | op->f.comm_src | op->peer) < 0)	/* one unknown */
		return MT_OK;
	/* Senders repeat the same few triples: a per-endpoint cache of the
	 * last ones spares the map (this runs for every send). */
	struct ep *e = &m->ep[op->ep];
	unsigned slot = ((unsigned)op->peer ^ (unsigned)op->f.cid) % EP_LEARNT;

	if (e->learnt[slot].cid == op->f.cid && e->learnt[slot].peer == op->peer &&
	    e->learnt[slot].comm_src == op->f.comm_src)
		return MT_OK;
	e->learnt[slot].cid = op->f.cid;
	e->learnt[slot].peer = op->peer;
	e->learnt[slot].comm_src = op->f.comm_src;
	struct map_key k = { .a = (uint64_t)op->f.cid,
			     .b = (uint64_t)(uint32_t)op->f.comm_src,
			     .c = (uint32_t)op->peer };
	int32_t rank = ep_rank(m, op->ep);

	return rank < 0 ? MT_OK : mt_match_map_put(&m->comm, &k, (uint32_t)rank + 1);
}

static void list_append(struct mt_match *m, uint32_t i)
{
	struct ep *e = &m->ep[m->op[i].p.ep];

	m->op[i].l_prev = e->lt;
	m->op[i].l_next = NIL;
	if (e->lt)
		m->op[e->lt].l_next = i;
	else
		e->lh = i;
	e->lt = i;
	m->op[i].state |= OP_LISTED;
}

static struct map_key claim_key(const struct mt_match *m, int32_t ep,
				uint64_t context)
{
	return (struct map_key){ .a = context, .b = 1,
				 .c = (uint32_t)ep_proc(m, ep) };
}

/* An FI_CLAIM receive names the message its probe claimed by context: it
 * adds no new receive, it only waits for the claimed one's data. */
static int post_claim(struct mt_match *m, const struct mt_match_op *op,
		      int *taken)
{
	struct map_key k = claim_key(m, op->ep, op->context);
	struct map_slot *s = mt_match_map_get(&m->claims, &k);

	*taken = s != NULL;
	if (!s)
		return MT_OK;
	uint32_t i = s->v;

	mt_match_map_del(&m->claims, s);
	m->op[i].state &= ~(uint32_t)OP_CLAIMED;
	m->op[i].p.len = op->len;
	return mt_match_ctx_push(m, i);
}

int mt_match_op_waits(const struct mt_match_op *op)
{
	return op->dir != MT_MATCH_DIR_SEND ||
	       !(op->inject || (op->selective && !(op->flags & FI_COMPLETION)));
}

enum mt_status mt_match_post(struct mt_match *m, const struct mt_match_op *op)
{
	int32_t proc = ep_proc(m, op->ep);

	if (proc < 0 || op->dir > MT_MATCH_DIR_RECV)
		return MT_ERR_ARG;
	m->sum.ops++;
	if (op->dir == MT_MATCH_DIR_RECV && (op->flags & FI_CLAIM) &&
	    !(op->flags & FI_PEEK)) {
		int taken, rc = post_claim(m, op, &taken);

		if (rc || taken)
			return rc;
	}
	uint32_t i = mt_match_op_alloc(m);

	if (!i)
		return MT_ERR_NOMEM;
	struct op *o = &m->op[i];

	o->p = *op;
	o->proc = proc;
	o->seq = ++m->seq;
	o->done_ts = MT_MATCH_NOTIME;
	o->rsrc_ep = -1;
	if (op->dir == MT_MATCH_DIR_SEND) {
		m->posted_sends++;
		if (!mt_match_op_waits(op)) {
			o->state |= OP_DONE;
			o->done_ts = op->ts;
		} else if (mt_match_ctx_push(m, i)) {
			return MT_ERR_NOMEM;
		}
		return learn_comm(m, op) ? MT_ERR_NOMEM : mt_match_pair_send(m, i);
	}
	if (op->flags & FI_PEEK) {
		o->state |= OP_PEEK;
		m->sum.probes++;
		return mt_match_ctx_push(m, i);
	}
	m->posted_recvs++;
	list_append(m, i);
	mt_match_order_posted(m, i);
	return mt_match_ctx_push(m, i);
}

static void take_completion(const struct mt_match *m, struct op *o,
			    const struct mt_match_cqe *c)
{
	o->done_ts = c->ts;
	o->done_len = c->len;
	o->rtag = o->p.tagged ? c->tag : 0;
	o->rsrc = c->src_id;
	if (m->cfg.fields) {	/* decoded if a message needs them */
		o->rc.tag = c->tag;
		o->rc.data = c->data;
		o->rc.ep = c->ep;
		o->rc.flags = (uint8_t)(c->flags & (FI_TAGGED | FI_MSG));
	} else {
		o->rf = c->f;
	}
	o->rsrc_ep = c->src_ep >= 0 ? c->src_ep : o->p.peer;
}

static __attribute__((cold)) void warn_op(struct mt_match *m, uint32_t i,
					  unsigned w)
{
	struct mt_match_msg msg;
	struct mt_match_warn *wn = &m->sum.warn[w];

	if (m->op[i].p.dir == MT_MATCH_DIR_SEND)
		mt_match_build_msg(m, i, NIL, &msg);
	else
		mt_match_build_msg(m, NIL, i, &msg);
	if (wn->n_examples < MT_MATCH_EXAMPLES) {
		wn->example[wn->n_examples++] = msg;
		m->sum.n_examples++;
	}
	wn->count++;
}

/* A probe's completion: a miss (FI_ENOMSG) or a hit; a hit with FI_CLAIM
 * takes its message now, so it enters matching here, at the claim. Out of
 * line, as recv_failed (cold) and warn_op: inlined in mt_match_complete,
 * they made every completion save and restore more registers. */
static __attribute__((noinline)) int probe_done(struct mt_match *m, uint32_t i,
						const struct mt_match_cqe *c)
{
	struct op *o = &m->op[i];

	if (c->err == FI_ENOMSG) {
		m->sum.probe_misses++;
	} else if (c->err) {
		warn_op(m, i, MT_MATCH_W_OP_ERROR);
	} else {
		m->sum.probe_hits++;
		if (o->p.flags & FI_CLAIM) {
			struct map_key k = claim_key(m, o->p.ep, o->p.context);

			m->sum.claims++;
			m->posted_recvs++;
			take_completion(m, o, c);
			o->done_ts = MT_MATCH_NOTIME;
			o->state = OP_CLAIMED | OP_FINAL;
			if (mt_match_map_put(&m->claims, &k, i))
				return MT_ERR_NOMEM;
			return mt_match_pair_recv(m, i);
		}
	}
	mt_match_op_free(m, i);
	return MT_OK;
}

static int send_done(struct mt_match *m, uint32_t i,
		     const struct mt_match_cqe *c)
{
	struct op *o = &m->op[i];

	o->state |= OP_DONE;
	o->done_ts = c->ts;
	if (c->err) {		/* one test for the usual completion */
		if (c->err == FI_ECANCELED && !(o->state & OP_PAIRED)) {
			o->state |= OP_CANCEL;
			return mt_match_emit_alone(m, i, MT_MATCH_ST_CANCELLED);
		}
		warn_op(m, i, MT_MATCH_W_OP_ERROR);
	}
	return mt_match_try_emit(m, i);
}

/* Receive i failed (c->err, not FI_ETRUNC): cancelled, it is reported
 * alone; else it is dropped with a warning. */
static __attribute__((cold, noinline)) int recv_failed(struct mt_match *m,
							uint32_t i,
							const struct mt_match_cqe *c)
{
	struct op *o = &m->op[i];

	if (o->state & OP_LISTED && mt_match_order_drop(m, i))
		return MT_ERR_NOMEM;
	if (c->err == FI_ECANCELED) {
		o->state |= OP_CANCEL | OP_DONE;
		if (mt_match_emit_alone(m, i, MT_MATCH_ST_CANCELLED))
			return MT_ERR_NOMEM;
	} else {
		warn_op(m, i, MT_MATCH_W_OP_ERROR);
		m->ended_recvs++;
		mt_match_op_free(m, i);
	}
	return mt_match_order_drain(m);
}

static int recv_done(struct mt_match *m, uint32_t i,
		     const struct mt_match_cqe *c)
{
	struct op *o = &m->op[i];

	take_completion(m, o, c);
	if (c->err) {		/* one test for the usual completion */
		if (c->err != FI_ETRUNC)
			return recv_failed(m, i, c);
		o->state |= OP_TRUNC;
	}
	if (o->state & OP_LISTED)
		return mt_match_order_done(m, i);
	o->state |= OP_DONE;		/* a claimed message's data arrived */
	return mt_match_try_emit(m, i);
}

/* A completion without a posted operation: on an endpoint whose trace is
 * a window, of one posted before it; a receive's takes its message as if
 * posted for exactly it (mt_match_ep_window). */
static __attribute__((cold, noinline)) enum mt_status
orphan(struct mt_match *m, const struct mt_match_cqe *c)
{
	struct mt_match_op op = {
		.ts = c->ts, .context = c->context, .tag = c->tag, .len = c->len,
		.src_id = c->src_id, .addr = FI_ADDR_UNSPEC, .ep = c->ep,
		.peer = c->src_ep, .dir = MT_MATCH_DIR_RECV, .tagged = 1,
	};
	enum mt_status st;

	if (!m->ep[c->ep].window) {
		m->sum.warn[MT_MATCH_W_ORPHAN_CQE].count++;
		return MT_OK;
	}
	m->sum.before_window++;
	if (c->err || (c->flags & (FI_RECV | FI_TAGGED)) != (FI_RECV | FI_TAGGED))
		return MT_OK;
	/* Posted for exactly what it took: its own fields, which the caller
	 * leaves unset when cfg.fields decodes them. */
	if (m->cfg.fields)
		m->cfg.fields(m->cfg.fields_arg, c, &op.f);
	else
		op.f = c->f;
	if ((st = mt_match_post(m, &op)))
		return st;
	m->sum.ops--;		/* made here, not in the input */
	m->sum.cqes--;		/* counted again below */
	return mt_match_complete(m, c);
}

enum mt_status mt_match_complete(struct mt_match *m, const struct mt_match_cqe *c)
{
	int32_t proc = ep_proc(m, c->ep);

	if (proc < 0)
		return MT_ERR_ARG;
	m->sum.cqes++;
	uint32_t i = mt_match_ctx_pop(m, proc, c->context);

	if (!i)
		return orphan(m, c);
	if (m->op[i].state & OP_PEEK)
		return probe_done(m, i, c);
	if (m->op[i].p.dir == MT_MATCH_DIR_SEND)
		return send_done(m, i, c);
	return recv_done(m, i, c);
}

enum mt_status mt_match_close(struct mt_match *m, int32_t ep, uint64_t ts)
{
	if (ep_proc(m, ep) < 0)
		return MT_ERR_ARG;
	m->ep[ep].close_ts = ts;
	return MT_OK;
}
