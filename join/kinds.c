/*
 * kinds.c - the join's table: MPI call kinds (name and recorded size)
 * with the fabric messages made inside their calls (see mt_join.h).
 */
#include <stdlib.h>
#include <string.h>

#include "join_int.h"

/* The kind of name and size, added if new; UINT32_MAX when out of memory.
 * Kinds are few (a program's distinct calls): a walk finds them. */
static uint32_t kind_of(struct mt_join *j, const char *name, int has, uint64_t bytes)
{
	for (size_t k = 0; k < j->nkinds; k++) {
		const struct mt_join_kind *x = &j->kinds[k];

		if (x->has_bytes == has && x->bytes == bytes &&
		    (x->name == name || (x->name && name && !strcmp(x->name, name))))
			return (uint32_t)k;
	}
	long k = mt_otf2in_push((void **)&j->kinds, &j->nkinds, &j->cap_kinds,
			      sizeof(*j->kinds));

	if (k < 0)
		return UINT32_MAX;
	j->kinds[k].name = name;
	j->kinds[k].has_bytes = (uint8_t)has;
	j->kinds[k].bytes = bytes;
	j->kinds[k].min_bytes = UINT64_MAX;
	return (uint32_t)k;
}

static struct mt_join_kind *kind_at(struct mt_join *j, const struct mt_otf2in_call *c,
				    uint32_t outside)
{
	return &j->kinds[c ? j->call_kind[c - j->calls] : outside];
}

static void count_sent(struct mt_join_kind *k, const struct mt_match_msg *m)
{
	k->sent++;
	k->status[m->status < MT_MATCH_ST_COUNT ? m->status : 0]++;
	k->sent_bytes += m->bytes;
	k->min_bytes = m->bytes < k->min_bytes ? m->bytes : k->min_bytes;
	k->max_bytes = m->bytes > k->max_bytes ? m->bytes : k->max_bytes;
	if (m->status == MT_MATCH_ST_MATCHED && m->t_recv_done != MT_MATCH_NOTIME &&
	    m->t_recv_done > m->t_send_post)
		k->wire_ns += m->t_recv_done - m->t_send_post;
}

enum mt_status mt_join_kinds(struct mt_join *j)
{
	uint32_t outside;

	if (!(j->call_kind = malloc((j->ncalls ? j->ncalls : 1) * sizeof(*j->call_kind))))
		return MT_ERR_NOMEM;
	for (size_t i = 0; i < j->ncalls; i++) {
		const struct mt_otf2in_call *c = &j->calls[i];
		uint32_t k = kind_of(j, c->name, c->has_bytes, c->bytes);

		if (k == UINT32_MAX)
			return MT_ERR_NOMEM;
		j->call_kind[i] = k;
		j->kinds[k].calls++;
		if (c->leave_ns != UINT64_MAX)
			j->kinds[k].call_ns += c->leave_ns - c->enter_ns;
	}
	if ((outside = kind_of(j, NULL, 0, 0)) == UINT32_MAX)
		return MT_ERR_NOMEM;
	for (size_t i = 0; i < j->nmsg; i++) {
		const struct mt_match_msg *m = &j->msg[i];
		const struct mt_otf2in_call *sc = NULL, *rc = NULL;

		if (m->t_send_post != MT_MATCH_NOTIME) {
			sc = mt_join_call_at(j, m->send_rank, m->t_send_post);
			count_sent(kind_at(j, sc, outside), m);
		}
		if (m->t_recv_post != MT_MATCH_NOTIME) {
			rc = mt_join_call_at(j, m->recv_rank, m->t_recv_post);
			kind_at(j, rc, outside)->recvs++;
		}
		if (m->status == MT_MATCH_ST_MATCHED)
			continue;
		if (j->nproblems < MT_JOIN_PROBLEMS)
			j->problem[j->nproblems++] = (struct mt_join_problem){
				.msg = *m, .send_call = sc, .recv_call = rc };
		j->problems++;
	}
	return MT_OK;
}
