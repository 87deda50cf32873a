/*
 * match_msg.c - a message as the caller sees it, built from its send and
 * receive operations (a matched pair's inline, in match_fast.h), and the
 * sender's world rank learnt from the communicator fields when the receive
 * alone names it. Below the pairing
 * files (match_ops.c, match_pair.c, match_ssend.c), which all build
 * messages: it calls none of them.
 */
#include <string.h>

#include "match_fast.h"

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

	if (so && ro) {
		mt_match_msg_pair(m, so, ro, msg);
		return;
	}
	if (so) {
		mt_match_msg_send_side(so, msg);
		no_recv(msg);
	} else {
		recv_alone(m, ro, msg);
		mt_match_msg_recv_side(ro, msg);
	}
	msg->send_rank = ep_rank(m, msg->send_ep);
	msg->recv_rank = ep_rank(m, msg->recv_ep);
	if (msg->send_rank < 0 && !so)
		msg->send_rank = mt_match_comm_rank(m, ro->p.ep, &msg->f);
	mt_match_msg_status(msg, MT_MATCH_ST_MATCHED);
}
