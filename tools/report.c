/*
 * report.c - statistics for `msgtrace report` (see report.h).
 */
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

int report_internal(unsigned kind)
{
	return kind != MT_MATCH_USER && kind != MT_MATCH_SSEND;
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
		int side = report_internal(m->f.kind) ? REPORT_INTERNAL : REPORT_USER;
		int paired = m->status == MT_MATCH_ST_MATCHED ||
			     m->status == MT_MATCH_ST_AMBIGUOUS;
		uint64_t dur = 0;

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
			int64_t off = (int64_t)m->t_recv_done - r->t0;
			int64_t bin = off * REPORT_BINS / (r->t1 - r->t0 + 1);

			if (bin >= 0 && bin < REPORT_BINS)
				r->bin_bytes[bin] += m->bytes;
		}
	}
}
