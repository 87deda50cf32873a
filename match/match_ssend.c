/*
 * match_ssend.c - synchronous sends still owed an ACK. When a hang leaves
 * the sender waiting for an ACK that nobody sent (no near miss to show),
 * the report can still name the receiver that took the message and never
 * answered (Open MPI 4.1.4 with MPI_Improbe + MPI_Mrecv). Entries live from
 * the pairing of the data to the posting of its ACK: memory follows what is
 * in flight. Where matchers divide the processes among them, an ACK is paid
 * by the matcher of the process that sent it, and what is still owed at the
 * end moves to the sender's (mt_match.h: mt_match_ack_elsewhere).
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

/* A new entry for key k (replacing one of the same key, as the serial
 * order wants: the latest paired), its message and claim filled by the
 * caller. NULL when out of memory. */
static struct owed *owe(struct mt_match *m, const struct map_key *k)
{
	uint32_t i = m->free_owe;

	if (i) {
		m->free_owe = m->owe[i].next_free;
	} else {
		if (!m->n_owe)
			m->n_owe = 1;
		if (m->n_owe >= m->cap_owe &&
		    mt_match_grow((void **)&m->owe, &m->cap_owe, sizeof(*m->owe)))
			return NULL;
		i = m->n_owe++;
	}
	return mt_match_map_put(&m->owed, k, i) ? NULL : &m->owe[i];
}

enum mt_status mt_match_owe_ack_ssend(struct mt_match *m, uint32_t s, uint32_t r)
{
	const struct op *so = &m->op[s];

	if (!ep_ack(m, so->p.ep))
		return MT_OK;
	struct map_key k = owed_key(m, so->p.ep, so->p.tag);
	struct owed *ow = owe(m, &k);

	if (!ow)
		return MT_ERR_NOMEM;
	mt_match_build_msg(m, s, r, &ow->msg);
	ow->claimed = (m->op[r].state & OP_CLAIMED) || !(m->op[r].state & OP_DONE);
	if (ow->claimed)		/* its buffer comes with the claim */
		ow->msg.status = MT_MATCH_ST_MATCHED;
	return MT_OK;
}

/* The ACK for ssender's synchronous send of tag was sent: owed no more. */
static void pay(struct mt_match *m, int32_t ssender, uint64_t tag)
{
	if (ssender < 0)
		return;
	struct map_key k = owed_key(m, ssender, tag);
	struct map_slot *sl = mt_match_map_get(&m->owed, &k);

	if (!sl)
		return;
	m->owe[sl->v].next_free = m->free_owe;
	m->free_owe = sl->v;
	mt_match_map_del(&m->owed, sl);
}

void mt_match_ack_sent_ack(struct mt_match *m, uint32_t s)
{
	pay(m, m->op[s].p.peer, m->op[s].p.tag);
}

void mt_match_ack_elsewhere(struct mt_match *m, const struct mt_match_op *op)
{
	if (op->dir == MT_MATCH_DIR_SEND && op->f.kind == MT_MATCH_SSEND_ACK)
		pay(m, op->peer, op->tag);
}

const struct owed *mt_match_owed_for(const struct mt_match *m, const struct op *r)
{
	if (r->p.f.kind != MT_MATCH_SSEND_ACK)
		return NULL;
	struct map_key k = owed_key(m, r->p.ep, r->p.tag);
	const struct map_slot *sl = mt_match_map_get(&m->owed, &k);

	return sl ? &m->owe[sl->v] : NULL;
}

size_t mt_match_owed_list(const struct mt_match *m, struct mt_match_owed *out,
			  size_t cap)
{
	size_t n = 0;

	for (uint32_t i = 0; m->owed.used && i <= m->owed.mask; i++) {
		const struct map_slot *sl = mt_match_map_slot(&m->owed, i);

		if (!sl->v)
			continue;
		if (n < cap) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].msg = m->owe[sl->v].msg;
			out[n].claimed = m->owe[sl->v].claimed;
		}
		n++;
	}
	return n;
}

enum mt_status mt_match_owed_add(struct mt_match *m, const struct mt_match_owed *o)
{
	int32_t ssender = o->msg.send_ep;

	if (ssender < 0 || (uint32_t)ssender >= m->n_ep)
		return MT_ERR_ARG;
	struct map_key k = owed_key(m, ssender, o->msg.raw_tag);

	if (mt_match_map_get(&m->owed, &k))
		return MT_OK;
	struct owed *ow = owe(m, &k);

	if (!ow)
		return MT_ERR_NOMEM;
	ow->msg = o->msg;
	ow->claimed = o->claimed;
	return MT_OK;
}
