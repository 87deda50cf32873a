/*
 * order.c - the order of the serial output (see mt_par.h): records by
 * their place in the merge of every file, messages by the key of what
 * made them leave the matcher.
 */
#include "par_int.h"

#define CMP3(x, y) (((x) > (y)) - ((x) < (y)))

int mt_par_at_cmp(const struct mt_pipe_at *x, const struct mt_pipe_at *y)
{
	int c = CMP3(x->key, y->key);

	return c ? c : CMP3(x->where, y->where);
}

int mt_par_key_cmp(const struct par_key *x, const struct par_key *y)
{
	int c;

	if ((c = CMP3(x->phase, y->phase)) || (c = CMP3(x->a, y->a)) ||
	    (c = CMP3(x->b, y->b)))
		return c;
	return CMP3(x->sub, y->sub);
}

/* At the end (mt_match.h: mt_match_finish) a message leaves in phase 1
 * with its receiving endpoint's, in phase 2 at its earlier operation: post
 * time, then endpoint. A side without a post time is not there. */
struct par_key mt_par_end_key(unsigned phase, const struct mt_match_msg *msg,
			      uint64_t sub)
{
	struct par_key k = { phase, 0, 0, sub };

	if (phase == 1) {
		k.a = (uint64_t)(uint32_t)msg->recv_ep;
		return k;
	}
	k.a = MT_MATCH_NOTIME;
	k.b = UINT64_MAX;
	if (msg->t_send_post != MT_MATCH_NOTIME) {
		k.a = msg->t_send_post;
		k.b = (uint64_t)(uint32_t)msg->send_ep;
	}
	if (msg->t_recv_post != MT_MATCH_NOTIME &&
	    (msg->t_recv_post < k.a ||
	     (msg->t_recv_post == k.a && (uint64_t)(uint32_t)msg->recv_ep < k.b))) {
		k.a = msg->t_recv_post;
		k.b = (uint64_t)(uint32_t)msg->recv_ep;
	}
	return k;
}
