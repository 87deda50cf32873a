/*
 * align.c - each rank's archive clock put on the fabric's (see
 * mt_join.h): its recorded sends and MPI_Recv receives inside their
 * calls.
 */
#include <stdlib.h>
#include <string.h>

#include "join_int.h"

/* A send or receive by its key (peer, tag, length) and time: a fabric
 * post, or (ref: index of the archive's record) a recorded one's call. */
struct snd {
	int32_t peer, tag;
	uint64_t len, t;
	size_t ref;
};

/* The offsets that fit so far: [lo, hi], over used posts. */
struct fit {
	int64_t lo, hi;
	size_t used;
};

static int cmp_snd(const void *a, const void *b)
{
	const struct snd *x = a, *y = b;

	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->ref < y->ref ? -1 : x->ref > y->ref;
}

static int same_key(const struct snd *x, const struct snd *y)
{
	return x->peer == y->peer && x->tag == y->tag && x->len == y->len;
}

/* The data of a point-to-point message (not an ACK, a collective's or the
 * library's own traffic), as an MPI send call posts it and an MPI_Recv
 * receives it. */
static int data_msg(const struct mt_match_msg *m)
{
	return (m->f.kind == MT_MATCH_USER || m->f.kind == MT_MATCH_SSEND) &&
	       m->f.has_tag && m->send_rank >= 0 && m->recv_rank >= 0;
}

/* Rank r's fabric posts of one side, by key then time: its data sends, or
 * the receives of its matched data messages. */
static size_t fabric_posts(const struct mt_join *j, int32_t r, int recv, struct snd *f)
{
	size_t n = 0;

	for (size_t i = 0; i < j->nmsg; i++) {
		const struct mt_match_msg *m = &j->msg[i];
		uint64_t t = recv ? m->t_recv_post : m->t_send_post;

		if (!data_msg(m) || t == MT_MATCH_NOTIME ||
		    (recv ? m->recv_rank : m->send_rank) != r ||
		    (recv && m->status != MT_MATCH_ST_MATCHED))
			continue;
		f[n++] = (struct snd){ .peer = recv ? m->send_rank : m->recv_rank,
				       .tag = m->f.tag, .len = m->bytes, .t = t, .ref = i };
	}
	qsort(f, n, sizeof(*f), cmp_snd);
	return n;
}

/* Rank r's recorded sends, or blocking receives of MPI_Recv calls (an
 * MPI_Mrecv's message was received by the probe before it, on the
 * fabric), by key then call. */
static size_t recorded(const struct mt_join *j, int32_t r, int recv, struct snd *a)
{
	const struct mt_otf2in_p2p *v = recv ? j->c->recv : j->c->send;
	size_t nv = recv ? j->c->nrecv : j->c->nsend, n = 0;

	for (size_t i = 0; i < nv; i++) {
		const struct mt_otf2in_call *c = &j->calls[v[i].call];

		if (c->proc != r || (recv && strcmp(c->name, "MPI_Recv")))
			continue;
		a[n++] = (struct snd){ .peer = v[i].peer, .tag = v[i].tag,
				       .len = v[i].len, .t = c->enter_ns, .ref = i };
	}
	qsort(a, n, sizeof(*a), cmp_snd);
	return n;
}

/* Narrows fit by rank r's posts of one side: the k-th recorded of a key
 * inside its call with the k-th fabric post of that key. A recorded send
 * the fabric lacks: another run (MT_ERR_ARG); a recorded receive it lacks
 * (truncated, or taken by a probe) is passed over. */
static enum mt_status narrow(const struct mt_join *j, int32_t r, int recv,
			     const struct snd *f, size_t nf, const struct snd *a,
			     size_t na, struct fit *fit, struct mt_err *err)
{
	const struct mt_otf2in_p2p *v = recv ? j->c->recv : j->c->send;
	size_t i = 0;

	for (size_t k = 0; k < na; k++) {
		const struct mt_otf2in_call *c = &j->calls[v[a[k].ref].call];

		while (i < nf && cmp_snd(&f[i], &a[k]) < 0 && !same_key(&f[i], &a[k]))
			i++;
		if (i == nf || !same_key(&f[i], &a[k])) {
			if (recv)
				continue;
			return mt_err_set(err, MT_ERR_ARG, "rank %d sent rank %d tag %d "
					  "(%llu B) in %s, a send the fabric trace "
					  "does not hold: not the same run", r, a[k].peer,
					  a[k].tag, (unsigned long long)a[k].len, c->name);
		}
		if (c->leave_ns != UINT64_MAX) {
			int64_t x = (int64_t)(f[i].t - c->leave_ns);
			int64_t y = (int64_t)(f[i].t - c->enter_ns);

			fit->lo = x > fit->lo ? x : fit->lo;
			fit->hi = y < fit->hi ? y : fit->hi;
			fit->used++;
		}
		i++;
	}
	return MT_OK;
}

enum mt_status mt_join_align_all(struct mt_join *j, struct mt_err *err)
{
	size_t na = j->c->nsend > j->c->nrecv ? j->c->nsend : j->c->nrecv;
	struct snd *f = malloc((j->nmsg ? j->nmsg : 1) * sizeof(*f));
	struct snd *a = malloc((na ? na : 1) * sizeof(*a));
	enum mt_status s = MT_OK;

	if (!f || !a)
		s = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (int32_t r = 0; (size_t)r < j->nranks && !s; r++) {
		struct fit fit = { INT64_MIN, INT64_MAX, 0 };

		for (int recv = 0; recv < 2 && !s; recv++) {
			size_t nf = fabric_posts(j, r, recv, f);

			s = narrow(j, r, recv, f, nf, a, recorded(j, r, recv, a), &fit, err);
		}
		if (s || !fit.used)
			continue;	/* nothing to rest on: not aligned */
		if (fit.lo > fit.hi)
			s = mt_err_set(err, MT_ERR_ARG, "rank %d: no clock offset puts "
				       "its %zu fabric operations inside their MPI calls "
				       "(they miss by %lld ns): not the same run, or a "
				       "clock that drifts", r, fit.used,
				       (long long)(fit.lo - fit.hi));
		else if (mt_join_settle(j, r, fit.lo, fit.hi, &j->align[r].offset_ns))
			s = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
		else {
			j->align[r].uncertainty_ns = (uint64_t)(fit.hi - fit.lo) / 2;
			j->align[r].anchors = fit.used;
			j->align[r].ok = 1;
		}
	}
	free(f);
	free(a);
	return s;
}
