/*
 * report.c - statistics for `msgtrace report` (see report.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

int report_init(struct report *r, const struct mt_run *run)
{
	memset(r, 0, sizeof(*r));
	r->n = run->nranks;
	r->t0 = run->t0_ns;
	r->t1 = run->t1_ns;
	r->pair = calloc(r->n ? r->n * r->n : 1, sizeof(*r->pair));
	return r->pair ? 0 : -1;
}

void report_fini(struct report *r)
{
	free(r->pair);
	r->pair = NULL;
}

int report_sink_init(void **state, FILE *out, const struct mt_run *run)
{
	struct report_sink *x = calloc(1, sizeof(*x));

	if (!x || report_init(&x->r, run))
		return free(x), -1;
	x->out = out;
	*state = x;
	return 0;
}

int report_sink_consume(void *state, const struct mt_match_msg *b, size_t n)
{
	report_add(&((struct report_sink *)state)->r, b, n);
	return 0;
}

int report_sink_end(struct report_sink *x)
{
	int rc = fflush(x->out) || ferror(x->out) ? -1 : 0;

	report_fini(&x->r);
	free(x);
	return rc;
}

int report_internal(const struct mt_match_fields *f)
{
	return f->internal || (f->kind != MT_MATCH_USER && f->kind != MT_MATCH_SSEND);
}

static unsigned size_class(uint64_t bytes)
{
	unsigned c = bytes ? 64u - (unsigned)__builtin_clzll(bytes) : 0;

	return c < REPORT_CLASSES ? c : REPORT_CLASSES - 1;
}

const char *report_class_label(unsigned c, char *buf, size_t len)
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

double report_mbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 1e3 / (double)ns : 0.0;
}

double report_sec(const struct report *r, uint64_t t)
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

void report_add(struct report *r, const struct mt_match_msg *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct mt_match_msg *m = &b[i];
		int side = report_internal(&m->f) ? REPORT_INTERNAL : REPORT_USER;
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
		    (size_t)m->send_rank < r->n && (size_t)m->recv_rank < r->n)
			add_cell(&r->pair[(size_t)m->send_rank * r->n +
					  (size_t)m->recv_rank], m, side, dur);
		else
			r->no_rank++;
		if (paired && m->t_recv_done != MT_MATCH_NOTIME && r->t1 > r->t0) {
			/* 128-bit: a corrupt trace's times must not overflow
			 * (fuzz crash regress/report-bin-overflow). */
			__int128 off = (__int128)(int64_t)m->t_recv_done - r->t0;
			__int128 bin = off * REPORT_BINS / ((__int128)r->t1 - r->t0 + 1);

			if (bin >= 0 && bin < REPORT_BINS)
				r->bin_bytes[bin] += m->bytes;
		}
	}
}

const char *report_human(uint64_t b, char *buf, size_t len)
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

static const char *rank_str(int32_t rank, char *buf, size_t len)
{
	if (rank >= 0)
		snprintf(buf, len, "%d", rank);
	else
		snprintf(buf, len, "?");
	return buf;
}

void report_msg_line(const struct report *r, const struct mt_match_msg *m,
		     char *buf, size_t len)
{
	char s[16], d[16], t[16], sz[16], when[32] = "";

	if (m->f.has_tag)
		snprintf(t, sizeof(t), "%d", m->f.tag);
	else
		snprintf(t, sizeof(t), "?");
	if (m->t_send_post != MT_MATCH_NOTIME)
		snprintf(when, sizeof(when), ", sent %.6f s",
			 report_sec(r, m->t_send_post));
	else if (m->t_recv_done != MT_MATCH_NOTIME)
		snprintf(when, sizeof(when), ", received %.6f s",
			 report_sec(r, m->t_recv_done));
	snprintf(buf, len, "rank %s -> %s cid %" PRId64 " tag %s %s %s%s",
		 rank_str(m->send_rank, s, sizeof(s)),
		 rank_str(m->recv_rank, d, sizeof(d)), m->f.cid, t,
		 mt_match_kind_str(m->f.kind), report_human(m->bytes, sz, sizeof(sz)),
		 when);
	if (m->status == MT_MATCH_ST_TRUNCATED) {
		size_t n = strlen(buf);

		snprintf(buf + n, len - n, " into a %s buffer",
			 report_human(m->recv_buf, sz, sizeof(sz)));
	}
}

void report_pending_line(const struct report *r,
			 const struct mt_match_pending *p, char *buf, size_t len)
{
	const struct mt_match_op *op = &p->op;
	char peer[64], tag[16], sz[16];

	if (op->f.has_tag)
		snprintf(tag, sizeof(tag), "%d", op->f.tag);
	else
		snprintf(tag, sizeof(tag), "ANY");
	if (op->dir == MT_MATCH_DIR_RECV && op->peer >= 0)
		snprintf(peer, sizeof(peer), "fi_addr %" PRIu64 " (rank %d)", op->addr,
			 p->peer_rank);
	else if (op->dir == MT_MATCH_DIR_RECV && p->peer_rank >= 0)
		snprintf(peer, sizeof(peer), "rank %d", p->peer_rank);
	else if (op->dir == MT_MATCH_DIR_RECV && op->f.comm_src >= 0)
		snprintf(peer, sizeof(peer), "comm rank %d", op->f.comm_src);
	else
		snprintf(peer, sizeof(peer), "any source");
	if (op->dir == MT_MATCH_DIR_RECV)
		snprintf(buf, len, "rank %d waits: recv %s from %s cid %" PRId64
			 " tag %s, %s buf, posted %.6f s", p->rank,
			 mt_match_kind_str(op->f.kind), peer, op->f.cid, tag,
			 report_human(op->len, sz, sizeof(sz)), report_sec(r, op->ts));
	else
		snprintf(buf, len, "rank %d: send %s to rank %d cid %" PRId64
			 " tag %s, %s, posted %.6f s, never completed%s", p->rank,
			 mt_match_kind_str(op->f.kind), p->peer_rank, op->f.cid, tag,
			 report_human(op->len, sz, sizeof(sz)), report_sec(r, op->ts),
			 p->delivered ? " (delivered)" : "");
}

uint64_t report_bypassed(const struct report *r, const struct mt_match_summary *s)
{
	uint64_t recvs = r->recvs;

	for (size_t i = 0; i < s->n_pending; i++) {
		if (s->pending[i].op.dir == MT_MATCH_DIR_SEND)
			return 0;
		recvs++;
	}
	return r->sends ? 0 : recvs;
}
