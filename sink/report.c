/*
 * report.c - statistics for `msgtrace report` (see report.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int mt_sink_report_init(struct report *r, const struct mt_run *run)
{
	memset(r, 0, sizeof(*r));
	r->trace = run->trace;
	r->n = run->nranks;
	/* Keys, not a count: with a host's directory missing, the ranks
	 * present are not 0..nprocs-1 (ranks 0 and 2 of 4). Up to twice the
	 * processes: the matrix is n x n, and a corrupt rank must not make it
	 * huge (beyond, the highest keys count as unknown ranks). */
	for (size_t p = 0; run->trace && p < run->trace->nprocs; p++) {
		int32_t key = run->trace->procs[p].key;

		if (key >= 0 && (size_t)key >= r->n && (size_t)key < 2 * run->nranks)
			r->n = (size_t)key + 1;
	}
	r->t0 = run->t0_ns;
	r->t1 = run->t1_ns;
	r->pair = calloc(r->n ? r->n * r->n : 1, sizeof(*r->pair));
	r->sym = mt_sink_sym(run->trace);
	r->no_peer = calloc(r->n ? r->n : 1, sizeof(*r->no_peer));
	if (!r->pair || !r->no_peer)
		return -1;
	if (!r->trace || r->trace->nhosts < 2 || !r->n)
		return 0;
	r->host = calloc(r->n, sizeof(*r->host));
	if (!r->host)
		return -1;
	for (size_t p = 0; p < r->trace->nprocs; p++) {
		const struct mt_trace_proc *pr = &r->trace->procs[p];

		if (pr->key >= 0 && (size_t)pr->key < r->n && pr->host[0])
			r->host[pr->key] = pr->host;
	}
	return 0;
}

const char *mt_sink_report_host(const struct report *r, int64_t key)
{
	return r->host && key >= 0 && (size_t)key < r->n ? r->host[key] : NULL;
}

void mt_sink_report_fini(struct report *r)
{
	free(r->pair);
	r->pair = NULL;
	free(r->used);
	r->used = NULL;
	free(r->host);
	r->host = NULL;
	free(r->no_peer);
	r->no_peer = NULL;
	mt_sym_free(r->sym);
	r->sym = NULL;
}

const char *mt_sink_report_site(const struct report *r, uint32_t site)
{
	const struct mt_sym_loc *l = mt_sym_site(r->sym, site);

	return l ? l->text : NULL;
}

enum mt_status mt_sink_report_start(void **state, FILE *out,
				   const struct mt_run *run, struct mt_err *err)
{
	struct report_sink *x = calloc(1, sizeof(*x));

	if (!x || mt_sink_report_init(&x->r, run))
		return free(x), mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	x->out = out;
	*state = x;
	return MT_OK;
}

enum mt_status mt_sink_report_consume(void *state, const struct mt_match_msg *b,
				     size_t n, struct mt_err *err)
{
	if (mt_sink_report_add(&((struct report_sink *)state)->r, b, n))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	return MT_OK;
}

enum mt_status mt_sink_report_end(struct report_sink *x, struct mt_err *err)
{
	enum mt_status rc = mt_sink_written(x->out, 1, err);

	mt_sink_report_fini(&x->r);
	free(x);
	return rc;
}

int mt_sink_report_internal(const struct mt_match_fields *f)
{
	return f->internal || (f->kind != MT_MATCH_USER && f->kind != MT_MATCH_SSEND);
}

static unsigned size_class(uint64_t bytes)
{
	unsigned c = bytes ? 64u - (unsigned)__builtin_clzll(bytes) : 0;

	return c < REPORT_CLASSES ? c : REPORT_CLASSES - 1;
}

const char *mt_sink_report_class_label(unsigned c, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned lo = c ? c - 1 : 0;	/* class c holds [2^lo, 2^(lo+1)) */

	if (!c)
		snprintf(buf, len, "0 B");
	else
		snprintf(buf, len, "%s%llu %s", c == REPORT_CLASSES - 1 ? ">=" : "",
			 1ull << (lo % 10), unit[lo / 10]);
	return buf;
}

double mt_sink_report_mbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0.0;
}

double mt_sink_report_sec(const struct report *r, uint64_t t)
{
	return ((double)(int64_t)t - (double)r->t0) / 1e9;
}

static void add_cell(struct report_cell *c, const struct mt_match_msg *m,
		     int side, uint64_t dur)
{
	c->msgs[side]++;
	c->bytes[side] += m->bytes;
	if (dur) {
		c->bw_bytes += m->bytes;
		c->bw_ns += dur;
	}
}

/* The cell of pair i, noted among the used ones at its first message. */
static struct report_cell *pair_cell(struct report *r, size_t i)
{
	struct report_cell *c = &r->pair[i];

	if (c->msgs[0] + c->msgs[1])
		return c;
	if (r->npairs == r->cap_pairs) {
		size_t cap = r->cap_pairs ? 2 * r->cap_pairs : 64;
		size_t *u = realloc(r->used, cap * sizeof(*u));

		if (!u)
			return NULL;
		r->used = u;
		r->cap_pairs = cap;
	}
	r->used[r->npairs++] = i;
	return c;
}

static int cmp_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

const size_t *mt_sink_report_pairs(struct report *r)
{
	if (r->npairs > 1)	/* used is NULL while no pair was used */
		qsort(r->used, r->npairs, sizeof(*r->used), cmp_index);
	return r->used;
}

int mt_sink_report_add(struct report *r, const struct mt_match_msg *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct mt_match_msg *m = &b[i];
		int side = mt_sink_report_internal(&m->f) ? REPORT_INTERNAL : REPORT_USER;
		int paired = m->status == MT_MATCH_ST_MATCHED ||
			     m->status == MT_MATCH_ST_AMBIGUOUS;
		uint64_t dur = 0;

		r->sends += m->t_send_post != MT_MATCH_NOTIME;
		r->recvs += m->t_recv_post != MT_MATCH_NOTIME;
		if (m->status == MT_MATCH_ST_CANCELLED)
			continue;
		r->msgs++;
		r->bytes += m->bytes;
		r->kind[m->f.kind < MT_MATCH_KIND_COUNT ? m->f.kind : 0]++;
		if (paired && m->bytes && m->t_recv_done != MT_MATCH_NOTIME &&
		    m->t_recv_done > m->t_send_post)
			dur = m->t_recv_done - m->t_send_post;
		add_cell(&r->size[size_class(m->bytes)], m, side, dur);
		if (m->send_rank >= 0 && m->recv_rank >= 0 &&
		    (size_t)m->send_rank < r->n && (size_t)m->recv_rank < r->n) {
			struct report_cell *c = pair_cell(r, (size_t)m->send_rank * r->n +
							     (size_t)m->recv_rank);

			if (!c)
				return -1;
			add_cell(c, m, side, dur);
		} else {
			r->no_rank++;
			if (m->send_rank >= 0 && (size_t)m->send_rank < r->n)
				r->no_peer[m->send_rank]++;
			if (m->recv_rank >= 0 && (size_t)m->recv_rank < r->n)
				r->no_peer[m->recv_rank]++;
		}
		const char *hs = mt_sink_report_host(r, m->send_rank);
		const char *hr = mt_sink_report_host(r, m->recv_rank);

		if (hs && hr) {
			int w = strcmp(hs, hr) ? REPORT_BETWEEN : REPORT_INSIDE;

			add_cell(&r->where[w], m, side, dur);
			add_cell(&r->size_where[w][size_class(m->bytes)], m, side, dur);
		}
		if (paired && m->t_recv_done != MT_MATCH_NOTIME && r->t1 > r->t0) {
			/* 128-bit: a corrupt trace's times must not overflow
			 * (fuzz crash regress/report-bin-overflow). */
			__int128 off = (__int128)(int64_t)m->t_recv_done - r->t0;
			__int128 bin = off * REPORT_BINS / ((__int128)r->t1 - r->t0 + 1);

			if (bin >= 0 && bin < REPORT_BINS)
				r->bin_bytes[bin] += m->bytes;
		}
	}
	return 0;
}

const char *mt_sink_report_human(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	unsigned u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

void mt_sink_report_msg_line(const struct report *r, const struct mt_match_msg *m,
		     char *buf, size_t len)
{
	char s[MT_SINK_RANK_LEN], d[MT_SINK_RANK_LEN], t[16], sz[16], when[32] = "";

	if (m->f.has_tag)
		snprintf(t, sizeof(t), "%d", m->f.tag);
	else
		snprintf(t, sizeof(t), "?");
	if (m->t_send_post != MT_MATCH_NOTIME)
		snprintf(when, sizeof(when), ", sent %.6f s",
			 mt_sink_report_sec(r, m->t_send_post));
	else if (m->t_recv_done != MT_MATCH_NOTIME)
		snprintf(when, sizeof(when), ", received %.6f s",
			 mt_sink_report_sec(r, m->t_recv_done));
	snprintf(buf, len, "rank %s -> %s cid %" PRId64 " tag %s %s %s%s",
		 m->send_rank < 0 ? "?" : mt_sink_rank(r->trace, m->send_rank, s, sizeof(s)),
		 m->recv_rank < 0 ? "?" : mt_sink_rank(r->trace, m->recv_rank, d, sizeof(d)),
		 m->f.cid, t,
		 mt_match_kind_str(m->f.kind), mt_sink_report_human(m->bytes, sz, sizeof(sz)),
		 when);
	if (m->status == MT_MATCH_ST_TRUNCATED) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " into a %s buffer",
			 mt_sink_report_human(m->recv_buf, sz, sizeof(sz)));
	}
}

void mt_sink_report_pending_line(const struct report *r,
			 const struct mt_match_pending *p, char *buf, size_t len)
{
	const struct mt_match_op *op = &p->op;
	char peer[64], tag[16], sz[16], me[MT_SINK_RANK_LEN], pr[MT_SINK_RANK_LEN];

	if (op->f.has_tag)
		snprintf(tag, sizeof(tag), "%d", op->f.tag);
	else
		snprintf(tag, sizeof(tag), "ANY");
	if (op->dir == MT_MATCH_DIR_RECV && op->peer >= 0)
		snprintf(peer, sizeof(peer), "fi_addr %" PRIu64 " (rank %s)", op->addr,
			 mt_sink_rank(r->trace, p->peer_rank, pr, sizeof(pr)));
	else if (op->dir == MT_MATCH_DIR_RECV && p->peer_rank >= 0)
		snprintf(peer, sizeof(peer), "rank %s", mt_sink_rank(r->trace, p->peer_rank, pr, sizeof(pr)));
	else if (op->dir == MT_MATCH_DIR_RECV && op->f.comm_src >= 0)
		snprintf(peer, sizeof(peer), "comm rank %d", op->f.comm_src);
	else if (op->dir == MT_MATCH_DIR_RECV && op->addr != UINT64_MAX)
		snprintf(peer, sizeof(peer), "fi_addr %" PRIu64 " (no traced rank)",
			 op->addr);
	else
		snprintf(peer, sizeof(peer), "any source");
	if (op->dir == MT_MATCH_DIR_RECV)
		snprintf(buf, len, "rank %s waits: recv %s from %s cid %" PRId64
			 " tag %s, %s buf, posted %.6f s",
			 mt_sink_rank(r->trace, p->rank, me, sizeof(me)),
			 mt_match_kind_str(op->f.kind), peer, op->f.cid, tag,
			 mt_sink_report_human(op->len, sz, sizeof(sz)), mt_sink_report_sec(r, op->ts));
	else
		snprintf(buf, len, "rank %s: send %s to rank %s cid %" PRId64
			 " tag %s, %s, posted %.6f s, never completed%s",
			 mt_sink_rank(r->trace, p->rank, me, sizeof(me)),
			 mt_match_kind_str(op->f.kind),
			 mt_sink_rank(r->trace, p->peer_rank, pr, sizeof(pr)),
			 op->f.cid, tag,
			 mt_sink_report_human(op->len, sz, sizeof(sz)), mt_sink_report_sec(r, op->ts),
			 p->delivered ? " (delivered)" : "");
}

static int by_rank(const void *a, const void *b)
{
	int32_t x = ((const struct mt_match_rank *)a)->rank;
	int32_t y = ((const struct mt_match_rank *)b)->rank;

	return (x > y) - (x < y);
}

enum mt_status mt_sink_report_hang(const struct mt_run *run,
				   const struct mt_match_summary *s,
				   struct mt_match_hang **h)
{
	const struct mt_trace *t = run->trace;
	size_t n = 0, nprocs = t ? t->nprocs : 0;
	struct mt_match_rank *ranks = malloc((nprocs + 1) * sizeof(*ranks));
	enum mt_status rc;

	if (!ranks)
		return MT_ERR_NOMEM;
	for (size_t p = 0; p < nprocs; p++) {
		const struct mt_trace_proc *pr = &t->procs[p];
		int clean = pr->nfiles > 0;
		struct mt_sink_span sp;

		if (pr->key < 0)
			continue;
		for (size_t f = 0; f < pr->nfiles; f++)
			clean &= mt_trace_file_clean(pr->files[f]);
		mt_sink_proc_span(pr, &sp);
		ranks[n++] = (struct mt_match_rank){ pr->key, sp.ended ?
			MT_MATCH_RANK_ENDED : clean ? MT_MATCH_RANK_FINISHED :
			MT_MATCH_RANK_RUNNING };
	}
	qsort(ranks, n, sizeof(*ranks), by_rank);
	rc = mt_match_hang_new(s->pending, s->n_pending, ranks, n, h);
	free(ranks);
	return rc;
}

const char *mt_sink_report_ranks(const struct mt_trace *t, const int32_t *r,
				 size_t n, char *buf, size_t len)
{
	size_t k = 0, i;
	char more[40];

	buf[0] = 0;
	snprintf(more, sizeof(more), ",... (%zu in all)", n);
	for (i = 0; i < n; i++) {
		size_t e = i;
		char one[2 * MT_SINK_RANK_LEN + 2], a[MT_SINK_RANK_LEN],
			b[MT_SINK_RANK_LEN];
		int w;

		while (e + 1 < n && mt_sink_rank_joins(t, r[e], r[e + 1]))
			e++;
		w = snprintf(one, sizeof(one), e > i ? "%s%s-%s" : "%s%s",
			     k ? "," : "", mt_sink_rank(t, r[i], a, sizeof(a)),
			     mt_sink_rank(t, r[e], b, sizeof(b)));
		/* Room for this and, unless it is the last, the "more". */
		if (k + (size_t)w + (e + 1 < n ? strlen(more) : 0) >= len)
			break;
		memcpy(buf + k, one, (size_t)w + 1);
		k += (size_t)w;
		i = e;
	}
	if (i < n)
		snprintf(buf + k, len - k, "%s", more + !k);
	return buf;
}

/* "recv user cid 0 tag 99", "ssend ack cid 0 tag 5" */
static void wait_what(unsigned why, unsigned kind, int64_t cid, int has_tag,
		      int32_t tag, char *buf, size_t len)
{
	char t[16];

	if (has_tag)
		snprintf(t, sizeof(t), "%d", tag);
	else
		snprintf(t, sizeof(t), "ANY");
	snprintf(buf, len, "%s %s cid %" PRId64 " tag %s", mt_match_wait_str(why),
		 why == MT_MATCH_WAIT_SSEND ? "ack" : mt_match_kind_str(kind),
		 cid, t);
}

/* "rank 3", "any sender", "fi_addr 7 (no traced rank)", "an unknown rank" */
static const char *wait_on(const struct mt_trace *t, int32_t on, int any,
			   const struct mt_match_op *op, char *buf, size_t len)
{
	char k[MT_SINK_RANK_LEN];

	if (any)
		snprintf(buf, len, "any sender");
	else if (on >= 0)
		snprintf(buf, len, "rank %s", mt_sink_rank(t, on, k, sizeof(k)));
	else if (op && op->dir == MT_MATCH_DIR_RECV && op->f.comm_src >= 0)
		snprintf(buf, len, "comm rank %d (not traced)", op->f.comm_src);
	else if (op && op->addr != UINT64_MAX)
		snprintf(buf, len, "fi_addr %" PRIu64 " (no traced rank)", op->addr);
	else
		snprintf(buf, len, "an unknown rank");
	return buf;
}

void mt_sink_report_wait_line(const struct mt_trace *t,
			      const struct mt_match_summary *s,
			      const struct mt_match_wait *w, char *buf,
			      size_t len)
{
	const struct mt_match_op *op = &s->pending[w->pending].op;
	char what[80], on[64], me[MT_SINK_RANK_LEN];

	wait_what(w->why, op->f.kind, op->f.cid, op->f.has_tag, op->f.tag, what,
		  sizeof(what));
	snprintf(buf, len, "rank %s waits on %s: %s",
		 mt_sink_rank(t, w->rank, me, sizeof(me)),
		 wait_on(t, w->on, w->any, op, on, sizeof(on)), what);
}

void mt_sink_report_root_line(const struct mt_trace *t,
			      const struct mt_match_root *rt, char *buf,
			      size_t len)
{
	char k[MT_SINK_RANK_LEN];

	if (rt->type == MT_MATCH_ROOT_CYCLE && rt->size > rt->n)
		snprintf(buf, len, "%zu ranks wait on each other, for one:",
			 rt->size);
	else if (rt->type == MT_MATCH_ROOT_CYCLE && rt->size > 1)
		snprintf(buf, len, "a cycle, %zu ranks wait on each other:",
			 rt->size);
	else if (rt->type == MT_MATCH_ROOT_CYCLE)
		snprintf(buf, len, "rank %s waits on itself:",
			 mt_sink_rank(t, rt->rank, k, sizeof(k)));
	else if (rt->type == MT_MATCH_ROOT_OPEN)
		snprintf(buf, len, "rank %s waits on no traced rank:",
			 mt_sink_rank(t, rt->rank, k, sizeof(k)));
	else
		snprintf(buf, len, "rank %s, waited on, %s",
			 mt_sink_rank(t, rt->rank, k, sizeof(k)),
			 rt->state == MT_MATCH_RANK_RUNNING ? "has no pending "
			 "operation (busy, or blocked outside the traced calls)" :
			 mt_match_rank_state_str(rt->state));
}

void mt_sink_report_group_line(const struct mt_trace *t,
			       const struct mt_match_group *g, uint64_t now,
			       char *buf, size_t len)
{
	char ranks[MT_SINK_RANKS_WIDTH], what[80], on[MT_SINK_RANKS_WIDTH + 8];
	size_t k;

	wait_what(g->why, g->kind, g->cid, g->has_tag, g->tag, what, sizeof(what));
	if (g->n_on) {
		k = (size_t)snprintf(on, sizeof(on), "%s ", g->n_on == 1 ? "rank" :
				     "ranks");
		mt_sink_report_ranks(t, g->on, g->n_on, on + k, sizeof(on) - k);
	} else {
		wait_on(t, -1, g->any, NULL, on, sizeof(on));
	}
	k = (size_t)snprintf(buf, len, "%s %s wait%s: %s, on %s", g->n_ranks == 1 ?
			     "rank" : "ranks", mt_sink_report_ranks(t, g->ranks,
			     g->n_ranks, ranks, sizeof(ranks)), g->n_ranks == 1 ?
			     "s" : "", what, on);
	if (k < len && now != MT_MATCH_NOTIME && g->first_ts <= now)
		k += (size_t)snprintf(buf + k, len - k, ", for %.1f s",
				      (double)(now - g->first_ts) / 1e9);
	if (k < len && g->n_ops > g->n_ranks)
		snprintf(buf + k, len - k, ", %zu operations", g->n_ops);
}

uint64_t mt_sink_report_bypassed(const struct report *r,
				 const struct mt_match_summary *s)
{
	uint64_t recvs = r->recvs;

	for (size_t i = 0; i < s->n_pending; i++) {
		if (s->pending[i].op.dir == MT_MATCH_DIR_SEND)
			return 0;
		recvs++;
	}
	return r->sends ? 0 : recvs;
}
