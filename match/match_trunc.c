/*
 * match_trunc.c - why a receive was truncated. The matcher has paired the
 * receive with the send whose bytes it got; comparing what the receive
 * asked for (its filter) with what the send carried tells the causes apart.
 */
#include "mt_match.h"

#define NAME_STR(n, s) s,
static const char *const cause_names[] = { MT_MATCH_TRUNC_CAUSES(NAME_STR) };
#undef NAME_STR

const char *mt_match_trunc_cause_str(unsigned cause)
{
	return cause < MT_MATCH_TRUNC_COUNT ? cause_names[cause] : "?";
}

static int differs(int64_t want, int64_t got)
{
	return want >= 0 && got >= 0 && want != got;
}

/*
 * A collision: the wire tags matched although the decoded fields differ
 * (a field was cut to its width on the way), or an internal message was
 * taken by a receive asking for a user tag or MPI_ANY_TAG, which Open MPI
 * keeps away from internal tags unless the tag field wrapped. Otherwise a
 * wildcard receive took a message of a stream it was not meant for, or
 * the sender simply sent more than the buffer holds.
 */
enum mt_match_trunc_cause mt_match_trunc_cause(const struct mt_match_msg *msg)
{
	const struct mt_match_fields *s = &msg->f, *r = &msg->recv_f;
	int internal = s->internal;

	if (msg->t_send_post != MT_MATCH_NOTIME && msg->t_recv_post != MT_MATCH_NOTIME) {
		if (differs(r->cid, s->cid) ||
		    (!r->any_src && differs(r->comm_src, s->comm_src)) ||
		    (r->has_tag && s->has_tag && r->tag != s->tag) ||
		    (internal && !r->has_tag))
			return MT_MATCH_TRUNC_COLLISION;
	}
	if (r->any_src || !r->has_tag)
		return MT_MATCH_TRUNC_WILDCARD;
	return MT_MATCH_TRUNC_BUFFER;
}
