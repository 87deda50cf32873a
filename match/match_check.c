/*
 * match_check.c - mt_match_check(): the matcher's invariants, for tests and
 * debug builds. Each operation is matched at most once (checked as pairs are
 * made, with cfg.check), partners point at each other, queues hold only
 * unpaired operations, and every posted operation is either still live or
 * accounted for in exactly one emitted record.
 */
#include <stdio.h>

#include "match_priv.h"

static const char *check_op(const struct mt_match *m, uint32_t i)
{
	const struct op *o = &m->op[i];

	if ((o->state & OP_PAIRED) &&
	    (!o->peer_op || m->op[o->peer_op].peer_op != i ||
	     !(m->op[o->peer_op].state & OP_PAIRED)))
		return "paired operations do not point at each other";
	if ((o->state & OP_PAIRED) && (o->state & OP_QUEUED))
		return "a paired operation still waits in a key queue";
	if (o->p.dir == MT_MATCH_DIR_RECV && (o->state & OP_QUEUED) &&
	    !(o->state & OP_FINAL))
		return "a receive entered matching before its turn";
	if ((o->state & OP_LISTED) && (o->state & OP_FINAL))
		return "a receive is both in its posting list and in matching";
	return NULL;
}

enum mt_status mt_match_check(const struct mt_match *m, char *why, size_t why_len)
{
	const char *err = m->violations ? m->violation : NULL;
	uint64_t sends = 0, recvs = 0;

	for (uint32_t i = 1; i < m->n_op && !err; i++) {
		const struct op *o = &m->op[i];

		if (!o->state || (o->state & OP_PEEK))
			continue;
		if (o->p.dir == MT_MATCH_DIR_SEND)
			sends++;
		else
			recvs++;
		err = check_op(m, i);
	}
	for (uint32_t e = 0; e < m->n_ep && !err; e++) {
		uint32_t done = 0;

		for (uint32_t i = m->ep[e].lh; i; i = m->op[i].l_next)
			done += !!(m->op[i].state & OP_DONE);
		if (done != m->ep[e].n_deferred)
			err = "an endpoint miscounts its completed receives";
	}
	/* Those posted and not ended are the pool's. */
	if (!err && (sends != m->posted_sends - m->ended_sends ||
		     recvs != m->posted_recvs - m->ended_recvs))
		err = "an operation was lost or reported twice";
	if (!err)
		return MT_OK;
	snprintf(why, why_len, "%s (%llu violations)", err,
		 (unsigned long long)m->violations);
	return MT_ERR_INTERNAL;
}
