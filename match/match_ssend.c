/*
 * match_ssend.c - synchronous sends still owed an ACK. When a hang leaves
 * the sender waiting for an ACK that nobody sent (no near miss to show),
 * the report can still name the receiver that took the message and never
 * answered (Open MPI 4.1.4 with MPI_Improbe + MPI_Mrecv). Entries live from
 * the pairing of the data to the posting of its ACK: memory follows what is
 * in flight.
 */
#include "match_fast.h"

/* The ACK's tag is the data's with the SYNC bit swapped for the ACK bit:
 * both reduce to the same key at the ssender. The source field is left out:
 * MPICH's ACK carries 0 there, Open MPI's the ssender, whose rank in the
 * communicator the key's cid and endpoint already fix. */
static struct map_key owed_key(const struct mt_match *m, int32_t ssender,
			       uint64_t tag)
{
	const uint64_t src = ep_known(m, ssender) ?
		m->ep[ssender].field_mask[MT_MATCH_F_SRC] :
		m->cfg.field_mask[MT_MATCH_F_SRC];

	return (struct map_key){ .a = tag & ~(ep_loose(m, ssender) |
					      ep_ack(m, ssender) | src),
				 .b = 0, .c = (uint32_t)ssender };
}

enum mt_status mt_match_owe_ack_ssend(struct mt_match *m, uint32_t s, uint32_t r)
{
	const struct op *so = &m->op[s];

	if (!ep_ack(m, so->p.ep))
		return MT_OK;
	uint32_t i = m->free_owe;

	if (i) {
		m->free_owe = m->owe[i].next_free;
	} else {
		if (!m->n_owe)
			m->n_owe = 1;
		if (m->n_owe >= m->cap_owe &&
		    mt_match_grow((void **)&m->owe, &m->cap_owe, sizeof(*m->owe)))
			return MT_ERR_NOMEM;
		i = m->n_owe++;
	}
	struct map_key k = owed_key(m, so->p.ep, so->p.tag);

	mt_match_build_msg(m, s, r, &m->owe[i].msg);
	m->owe[i].claimed = (m->op[r].state & OP_CLAIMED) ||
			    !(m->op[r].state & OP_DONE);
	if (m->owe[i].claimed)		/* its buffer comes with the claim */
		m->owe[i].msg.status = MT_MATCH_ST_MATCHED;
	return mt_match_map_put(&m->owed, &k, i);
}

void mt_match_ack_sent_ack(struct mt_match *m, uint32_t s)
{
	const struct op *so = &m->op[s];

	if (so->p.peer < 0)
		return;
	struct map_key k = owed_key(m, so->p.peer, so->p.tag);
	struct map_slot *sl = mt_match_map_get(&m->owed, &k);

	if (!sl)
		return;
	m->owe[sl->v].next_free = m->free_owe;
	m->free_owe = sl->v;
	mt_match_map_del(&m->owed, sl);
}

const struct owed *mt_match_owed_for(const struct mt_match *m, const struct op *r)
{
	if (r->p.f.kind != MT_MATCH_SSEND_ACK)
		return NULL;
	struct map_key k = owed_key(m, r->p.ep, r->p.tag);
	const struct map_slot *sl = mt_match_map_get(&m->owed, &k);

	return sl ? &m->owe[sl->v] : NULL;
}
