/*
 * align.c - each rank's archive clock put on the fabric's (see
 * mt_join.h): its recorded sends inside their calls.
 */
#include <stdlib.h>

#include "join_int.h"

/* A send by its key (receiver, tag, length) and time: a fabric send's
 * post, or (ref: index of the archive's send) a recorded one's call. */
struct snd {
	int32_t dest, tag;
	uint64_t len, t;
	size_t ref;
};

static int cmp_snd(const void *a, const void *b)
{
	const struct snd *x = a, *y = b;

	if (x->dest != y->dest)
		return x->dest < y->dest ? -1 : 1;
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
	return x->dest == y->dest && x->tag == y->tag && x->len == y->len;
}

/* A fabric send an MPI send call posts: the data of a point-to-point
 * message (not an ACK, a collective's or the library's own traffic). */
static int data_send(const struct mt_match_msg *m)
{
	return (m->f.kind == MT_MATCH_USER || m->f.kind == MT_MATCH_SSEND) &&
	       m->f.has_tag && m->t_send_post != MT_MATCH_NOTIME &&
	       m->send_rank >= 0 && m->recv_rank >= 0;
}

/* Rank r's offset from its fabric sends f and recorded sends a, each
 * sorted by key then time: the k-th of a key with the k-th. */
static enum mt_status align_rank(struct mt_join *j, int32_t r, const struct snd *f,
				 size_t nf, const struct snd *a, size_t na,
				 struct mt_err *err)
{
	int64_t lo = INT64_MIN, hi = INT64_MAX;
	size_t i = 0, k = 0, used = 0;

	while (k < na) {
		while (i < nf && cmp_snd(&f[i], &a[k]) < 0 && !same_key(&f[i], &a[k]))
			i++;
		if (i == nf || !same_key(&f[i], &a[k]))
			return mt_err_set(err, MT_ERR_ARG, "rank %d sent rank %d tag %d "
					  "(%llu B) in %s, a send the fabric trace "
					  "does not hold: not the same run", r, a[k].dest,
					  a[k].tag, (unsigned long long)a[k].len,
					  j->calls[j->c->send[a[k].ref].call].name);
		const struct mt_otf2in_call *c = &j->calls[j->c->send[a[k].ref].call];

		if (c->leave_ns != UINT64_MAX) {
			int64_t x = (int64_t)(f[i].t - c->leave_ns);
			int64_t y = (int64_t)(f[i].t - c->enter_ns);

			lo = x > lo ? x : lo;
			hi = y < hi ? y : hi;
			used++;
		}
		i++;
		k++;
	}
	if (!used)
		return MT_OK;		/* nothing to rest on: not aligned */
	if (lo > hi)
		return mt_err_set(err, MT_ERR_ARG, "rank %d: no clock offset puts "
				  "its %zu fabric sends inside their MPI calls (they "
				  "miss by %lld ns): not the same run, or a clock that "
				  "drifts", r, used, (long long)(lo - hi));
	j->align[r] = (struct mt_join_align){
		.offset_ns = lo + (hi - lo) / 2,
		.uncertainty_ns = (uint64_t)(hi - lo) / 2,
		.anchors = used, .ok = 1 };
	return MT_OK;
}

enum mt_status mt_join_align_all(struct mt_join *j, struct mt_err *err)
{
	struct snd *f = malloc((j->nmsg ? j->nmsg : 1) * sizeof(*f));
	struct snd *a = malloc((j->c->nsend ? j->c->nsend : 1) * sizeof(*a));
	enum mt_status s = MT_OK;

	if (!f || !a)
		s = mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (size_t r = 0; r < j->nranks && !s; r++) {
		size_t nf = 0, na = 0;

		for (size_t i = 0; i < j->nmsg; i++) {
			const struct mt_match_msg *m = &j->msg[i];

			if (data_send(m) && (size_t)m->send_rank == r)
				f[nf++] = (struct snd){ .dest = m->recv_rank,
					.tag = m->f.tag, .len = m->bytes,
					.t = m->t_send_post, .ref = i };
		}
		for (size_t i = 0; i < j->c->nsend; i++) {
			const struct mt_otf2in_send *x = &j->c->send[i];

			if ((size_t)j->calls[x->call].proc == r)
				a[na++] = (struct snd){ .dest = x->dest, .tag = x->tag,
					.len = x->len, .t = j->calls[x->call].enter_ns,
					.ref = i };
		}
		qsort(f, nf, sizeof(*f), cmp_snd);
		qsort(a, na, sizeof(*a), cmp_snd);
		s = align_rank(j, (int32_t)r, f, nf, a, na, err);
	}
	free(f);
	free(a);
	return s;
}
