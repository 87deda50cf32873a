/*
 * match_finish.c - the end of the input: what never found a partner, what
 * is still pending (the hang diagnosis) and the near misses that explain it.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "match_fast.h"

static int add_pending(struct mt_match *m, const struct op *o, size_t *cap)
{
	struct mt_match_summary *s = &m->sum;

	if (s->n_pending == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct mt_match_pending *p = realloc(s->pending, c * sizeof(*p));

		if (!p)
			return MT_ERR_NOMEM;
		s->pending = p;
		*cap = c;
	}
	struct mt_match_pending *p = &s->pending[s->n_pending++];

	memset(p, 0, sizeof(*p));
	p->op = o->p;
	p->rank = ep_rank(m, o->p.ep);
	p->peer_rank = ep_rank(m, o->p.peer);
	if (p->peer_rank < 0 && o->p.dir == MT_MATCH_DIR_RECV)
		p->peer_rank = mt_match_comm_rank(m, o->p.ep, &o->p.f);
	return MT_OK;
}

/*
 * Would unmatched send s reach pending receive r but for one field? The
 * provider's test is (send tag ^ filter) & ~ignore == 0 plus the directed
 * source; name the single field that fails, or "nothing" when none does
 * (the send came too late, or its record was lost).
 */
static int near_field(const struct mt_match *m, const struct op *s,
		      const struct mt_match_op *r, struct mt_match_near *n)
{
	uint64_t diff = s->p.tagged ? (s->p.tag ^ r->tag) & ~r->ignore : 0;
	const uint64_t *fm = m->ep[r->ep].field_mask;
	int addr = r->peer >= 0 && r->peer != s->p.ep;

	if (s->p.peer != r->ep || s->p.tagged != r->tagged)
		return 0;
	memset(n, 0, sizeof(*n));
	if (!diff) {
		n->addr_only = (uint8_t)addr;
		n->field = addr ? MT_MATCH_F_SRC : MT_MATCH_F_COUNT;
		return 1;
	}
	if (addr)
		return 0;
	for (unsigned f = 0; f < MT_MATCH_F_COUNT; f++)
		if (fm[f] && !(diff & ~fm[f])) {
			n->field = (uint8_t)f;
			return 1;
		}
	return 0;
}

/* The unmatched sends sorted by destination endpoint, then posting order:
 * a receive's candidates are one run, found by bisection, so a hang of N
 * ranks costs N log N, not N pending receives times N sends. Posting
 * order, not the pool's: a matcher given part of the operations (each
 * receiver's, msgtrace-mpi) names the same near misses. */
static int by_dest(const void *a, const void *b, void *arg)
{
	const struct mt_match *m = arg;
	const struct op *x = &m->op[*(const uint32_t *)a], *y = &m->op[*(const uint32_t *)b];

	if (x->p.peer != y->p.peer)
		return x->p.peer < y->p.peer ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static void find_near(struct mt_match *m, struct mt_match_pending *p,
		      const uint32_t *sends, size_t n_sends)
{
	size_t lo = 0, hi = n_sends;

	while (lo < hi) {		/* first send to p's endpoint */
		size_t mid = lo + (hi - lo) / 2;

		if (m->op[sends[mid]].p.peer < p->op.ep)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n_sends && p->n_near < MT_MATCH_NEAR &&
	     m->op[sends[i]].p.peer == p->op.ep; i++) {
		struct mt_match_near *n = &p->near[p->n_near];

		if (near_field(m, &m->op[sends[i]], &p->op, n)) {
			mt_match_build_msg(m, sends[i], NIL, &n->send);
			n->send.status = MT_MATCH_ST_UNMATCHED_SEND;
			p->n_near++;
		}
	}
}

/* Three-way comparison of two integers. */
#define CMP3(x, y) (((x) > (y)) - ((x) < (y)))

int mt_match_pending_cmp(const void *a, const void *b)
{
	const struct mt_match_pending *x = a, *y = b;
	int c;

	if ((c = CMP3(x->rank, y->rank)) || (c = CMP3(x->op.ts, y->op.ts)) ||
	    (c = CMP3(x->op.ep, y->op.ep)) || (c = CMP3(x->op.dir, y->op.dir)) ||
	    (c = CMP3(x->op.peer, y->op.peer)) ||
	    (c = CMP3(x->op.context, y->op.context)) ||
	    (c = CMP3(x->op.tag, y->op.tag)))
		return c;
	return CMP3(x->op.len, y->op.len);
}

/*
 * Pending receives are hang suspects, except those on an endpoint that was
 * closed normally and that no unmatched send comes close to: Open MPI leaves
 * such receives (pre-posted, abandoned) at finalize; they are only counted.
 * So is Open MPI 5's exCID handshake receive, which stays posted while the
 * job runs: a standing buffer, not a rank waiting.
 */
static int pending_recvs(struct mt_match *m, const uint32_t *sends,
			 size_t n_sends, size_t *cap)
{
	for (uint32_t i = 1; i < m->n_op; i++) {
		struct op *o = &m->op[i];

		if (!o->state || o->p.dir != MT_MATCH_DIR_RECV ||
		    (o->state & (OP_DONE | OP_PEEK)))
			continue;
		if (add_pending(m, o, cap))
			return MT_ERR_NOMEM;
		struct mt_match_pending *p = &m->sum.pending[m->sum.n_pending - 1];

		find_near(m, p, sends, n_sends);
		const struct owed *ow = mt_match_owed_for(m, o);

		if (ow) {
			p->unacked = 1;
			p->unacked_claimed = ow->claimed;
			p->unacked_msg = ow->msg;
		}
		if (!p->n_near && !p->unacked && !(o->state & OP_PAIRED) &&
		    (m->ep[o->p.ep].close_ts != MT_MATCH_NOTIME ||
		     o->p.f.kind == MT_MATCH_HANDSHAKE)) {
			m->sum.n_pending--;
			m->sum.abandoned_at_close++;
		}
	}
	return MT_OK;
}

/* Sends still waiting for a receive: the unmatched ones. */
static int collect_sends(struct mt_match *m, uint32_t **out, size_t *n,
			 size_t *cap)
{
	uint32_t *v = NULL;
	size_t k = 0;

	for (uint32_t i = 1; i < m->n_op; i++)
		if ((m->op[i].state & OP_QUEUED) &&
		    m->op[i].p.dir == MT_MATCH_DIR_SEND) {
			if (!(k & (k + 1)) || !v) {
				uint32_t *nv = realloc(v, (k + 1) * 2 * sizeof(*nv));

				if (!nv)
					return free(v), MT_ERR_NOMEM;
				v = nv;
			}
			v[k++] = i;
			if (!(m->op[i].state & OP_DONE) &&
			    add_pending(m, &m->op[i], cap))
				return free(v), MT_ERR_NOMEM;
		}
	*out = v;
	*n = k;
	return MT_OK;
}

/* Into m->sum: the pending operations with their near misses; *sends the
 * sends no receive has taken (n_sends, by destination). Reads the
 * operations only. */
static int diagnose(struct mt_match *m, uint32_t **sends, size_t *n_sends)
{
	size_t cap = 0;
	int rc = collect_sends(m, sends, n_sends, &cap);

	if (!rc && *n_sends)
		qsort_r(*sends, *n_sends, sizeof(**sends), by_dest, m);
	if (!rc)
		rc = pending_recvs(m, *sends, *n_sends, &cap);
	if (m->sum.n_pending)
		qsort(m->sum.pending, m->sum.n_pending, sizeof(*m->sum.pending),
		      mt_match_pending_cmp);
	return rc;
}

enum mt_status mt_match_view(struct mt_match *m, struct mt_match_summary *sum,
			     struct mt_match_msg **unmatched, size_t *n)
{
	struct mt_match_summary keep = m->sum;
	uint32_t *sends = NULL;
	size_t n_sends = 0;
	int rc;

	m->sum.pending = NULL;
	m->sum.n_pending = 0;
	rc = diagnose(m, &sends, &n_sends);
	*sum = m->sum;
	m->sum = keep;
	*unmatched = rc ? NULL : calloc(n_sends ? n_sends : 1, sizeof(**unmatched));
	*n = 0;
	if (!rc && !*unmatched)
		rc = MT_ERR_NOMEM;
	for (size_t i = 0; !rc && i < n_sends; i++) {
		mt_match_build_msg(m, sends[i], NIL, &(*unmatched)[i]);
		(*unmatched)[i].status = MT_MATCH_ST_UNMATCHED_SEND;
		*n = i + 1;
	}
	free(sends);
	if (rc) {
		free(sum->pending);
		sum->pending = NULL;
		sum->n_pending = 0;
	}
	return rc;
}

/* Op o left without a partner: does that partner lie before a window?
 * A send posted before its receiver's window, and done, may have been
 * received there. A receive completed: when its sender's trace is a window, the
 * send lay before it (a send in the window would have paired), and so
 * may one its endpoint's receives passed over as taken before its own
 * window (one each). The sender is the endpoint the completion named, or
 * else the one whose rank the message carried. */
static int partner_before_window(struct mt_match *m, const struct op *o)
{
	if (o->p.dir == MT_MATCH_DIR_SEND)
		return (o->state & OP_DONE) && o->p.peer >= 0 &&
		       (uint32_t)o->p.peer < m->n_ep &&
		       m->ep[o->p.peer].window &&
		       o->p.ts < m->ep[o->p.peer].window_start;
	if (o->done_ts == MT_MATCH_NOTIME)
		return 0;
	if (m->ep[o->p.ep].taken_early) {
		m->ep[o->p.ep].taken_early--;
		return 1;
	}
	if (o->rsrc_ep >= 0 && (uint32_t)o->rsrc_ep < m->n_ep)
		return m->ep[o->rsrc_ep].window;
	for (uint32_t e = 0; e < m->n_ep; e++)
		if (m->ep[e].window && m->ep[e].rank >= 0 &&
		    (uint64_t)m->ep[e].rank == o->rsrc)
			return 1;
	return 0;
}

enum mt_status mt_match_finish_posted(struct mt_match *m)
{
	int rc = MT_OK;

	if (m->posted_ended)
		return MT_OK;
	m->posted_ended = 1;
	/* Receives still posted will never complete: they block no one. */
	for (uint32_t e = 0; e < m->n_ep && !rc; e++)
		rc = mt_match_order_end(m, (int32_t)e);
	return rc;
}

/* Ops left at the end in the order they leave: by post time, endpoint,
 * then posting order (the pool's order is its history's). */
static int by_post(const void *a, const void *b, void *arg)
{
	const struct mt_match *m = arg;
	const struct op *x = &m->op[*(const uint32_t *)a], *y = &m->op[*(const uint32_t *)b];
	int c;

	if ((c = CMP3(x->p.ts, y->p.ts)) || (c = CMP3(x->p.ep, y->p.ep)))
		return c;
	return CMP3(x->seq, y->seq);
}

/* The ops that leave at the end (paired or waiting for a partner), sorted
 * by by_post: *out (free it), *n of them. */
static int leaving(struct mt_match *m, uint32_t **out, size_t *n)
{
	uint32_t *v = NULL;
	size_t k = 0, cap = 0;

	for (uint32_t i = 1; i < m->n_op; i++) {
		if (!(m->op[i].state & (OP_PAIRED | OP_QUEUED)))
			continue;
		if (k == cap) {
			uint32_t *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*nv));

			if (!nv)
				return free(v), MT_ERR_NOMEM;
			v = nv;
		}
		v[k++] = i;
	}
	if (k)
		qsort_r(v, k, sizeof(*v), by_post, m);
	*out = v;
	*n = k;
	return MT_OK;
}

enum mt_status mt_match_finish(struct mt_match *m)
{
	uint32_t *sends = NULL, *left = NULL;
	size_t n_sends = 0, n_left = 0;
	int rc = mt_match_finish_posted(m);

	if (!rc)
		rc = diagnose(m, &sends, &n_sends);
	if (!rc)
		rc = leaving(m, &left, &n_left);
	for (size_t k = 0; k < n_left && !rc; k++) {
		uint32_t i = left[k];
		struct op *o = &m->op[i];

		if (!o->state)		/* left with its partner */
			continue;
		if (o->state & OP_PAIRED) {
			uint32_t j = o->peer_op;

			if (o->p.dir == MT_MATCH_DIR_SEND &&
			    !(o->state & OP_DONE))
				m->sum.pending_delivered_sends++;
			rc = o->p.dir == MT_MATCH_DIR_SEND ? mt_match_flush_pair(m, i, j) :
				mt_match_flush_pair(m, j, i);
		} else if (m->windowed && partner_before_window(m, o)) {
			mt_match_unqueue(m, i);
			m->sum.before_window++;
			if (o->p.dir == MT_MATCH_DIR_SEND)	/* as retire() counts */
				m->ended_sends++;
			else
				m->ended_recvs++;
			mt_match_op_free(m, i);
		} else {
			rc = mt_match_emit_alone(m, i, o->p.dir == MT_MATCH_DIR_SEND ?
					MT_MATCH_ST_UNMATCHED_SEND :
					MT_MATCH_ST_UNMATCHED_RECV);
		}
	}
	free(left);
	free(sends);
	return rc;
}
