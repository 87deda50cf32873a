/*
 * match_msg.c - a message as the caller sees it, built from its send and
 * receive operations, and the sender's world rank learnt from the
 * communicator fields when the receive alone names it. Below the pairing
 * files (match_ops.c, match_pair.c, match_ssend.c), which all build
 * messages: it calls none of them.
 */
#include <stddef.h>
#include <string.h>

#include "match_priv.h"

/* The world rank of the sender of f on the communicator, as learnt from
 * the sends seen so far to receiving endpoint ep, or -1. */
int32_t mt_match_comm_rank(const struct mt_match *m, int32_t ep,
			   const struct mt_match_fields *f)
{
	if (f->cid < 0 || f->comm_src < 0)
		return -1;
	struct map_key k = { .a = (uint64_t)f->cid,
			     .b = (uint64_t)(uint32_t)f->comm_src,
			     .c = (uint32_t)ep };
	const struct map_slot *s = mt_match_map_get(&m->comm, &k);

	return s ? (int32_t)s->v - 1 : -1;
}

/* The fields of receive r's completion. */
static void completion_fields(const struct mt_match *m, const struct op *r,
			      struct mt_match_fields *f)
{
	if (!m->cfg.fields) {
		*f = r->rf;
		return;
	}
	struct mt_match_cqe c = { .ep = r->rc.ep, .tag = r->rc.tag,
				  .data = r->rc.data, .flags = r->rc.flags,
				  .len = r->done_len };

	m->cfg.fields(m->cfg.fields_arg, &c, f);
}

/* Every byte of msg is written below, its padding included (pad, pad2,
 * and the fields' tail, copied from the ops or cleared): no memset of the
 * 136 bytes first, a third of building a message. */
_Static_assert(offsetof(struct mt_match_msg, send_site) ==
	       offsetof(struct mt_match_msg, pad) + sizeof(((struct mt_match_msg *)0)->pad) &&
	       offsetof(struct mt_match_msg, raw_tag) ==
	       offsetof(struct mt_match_msg, pad2) + sizeof(uint32_t),
	       "struct mt_match_msg has padding that no member names");

/* The send's side of a message: the message as sent. */
static void send_side(const struct op *so, struct mt_match_msg *msg)
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

/* A receive without its send: the message as the receive saw it. */
static void recv_alone(const struct mt_match *m, const struct op *ro,
		       struct mt_match_msg *msg)
{
	int done = (ro->state & OP_DONE) || (ro->state & OP_FINAL);

	msg->send_ep = ro->rsrc_ep;
	memset(&msg->f, 0, sizeof(msg->f)); /* cfg.fields sets members only */
	if (done)
		completion_fields(m, ro, &msg->f);
	else
		msg->f = ro->p.f;
	msg->raw_tag = done ? ro->rtag : ro->p.tag;
	msg->bytes = ro->done_len;
	msg->t_send_post = msg->t_send_done = MT_MATCH_NOTIME;
	msg->send_site = 0;
}

static void recv_side(const struct op *ro, struct mt_match_msg *msg)
{
	msg->recv_ep = ro->p.ep;
	msg->t_recv_post = ro->p.ts;
	msg->t_recv_done = ro->done_ts;
	msg->recv_buf = ro->p.len;
	msg->recv_f = ro->p.f;
	msg->recv_site = ro->p.site;
}

static void no_recv(struct mt_match_msg *msg)
{
	msg->recv_buf = 0;
	memset(&msg->recv_f, 0, sizeof(msg->recv_f));
	msg->t_recv_post = msg->t_recv_done = MT_MATCH_NOTIME;
	msg->recv_site = 0;
}

void mt_match_build_msg(const struct mt_match *m, uint32_t s, uint32_t r,
			struct mt_match_msg *msg)
{
	const struct op *so = s ? &m->op[s] : NULL, *ro = r ? &m->op[r] : NULL;

	if (so)
		send_side(so, msg);
	else
		recv_alone(m, ro, msg);
	if (ro)
		recv_side(ro, msg);
	else
		no_recv(msg);
	msg->send_rank = ep_rank(m, msg->send_ep);
	msg->recv_rank = ep_rank(m, msg->recv_ep);
	if (msg->send_rank < 0 && !so)
		msg->send_rank = mt_match_comm_rank(m, ro->p.ep, &msg->f);
	msg->status = !so || !ro ? MT_MATCH_ST_MATCHED :
		(ro->state & OP_TRUNC) || so->p.len > ro->p.len ?
		MT_MATCH_ST_TRUNCATED : (ro->state & OP_AMBIG) ?
		MT_MATCH_ST_AMBIGUOUS : MT_MATCH_ST_MATCHED;
	memset(msg->pad, 0, sizeof(msg->pad));
	msg->pad2 = 0;
}
