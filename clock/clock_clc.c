/*
 * clock_clc.c - the controlled logical clock (Rabenseifner; Becker,
 * Rabenseifner, Wolf, EuroPVM/MPI 2007, equations 3 and 4 and section 3.2).
 *
 * Forward: per process, in an order that respects every message,
 *   LC(e_j) = max(C(e_j), LC(e_j-1) + 1, LC(e_j-1) + gamma (C(e_j) - C(e_j-1)),
 *                 LC(send) + lmin(link)   for each message received at e_j)
 * where C is the (linearly corrected) recorded time. When the last term wins,
 * the receive jumps by delta = LC - (max of the others) and the processes
 * run at gamma < 1 afterwards until their recorded clock catches up.
 *
 * Backward: each jump is then spread over the interval L = delta / slope
 * before it: an event u ns before the receive's unjumped time moves forward
 * by delta - slope * u (never below 0), except that no send may move past
 * its receive minus lmin. Each such cap c at a send k bends the ramp: before
 * k the shift falls away from c with the same slope, after k it rises on the
 * straight line from c to delta at the receive (the paper's piecewise linear
 * amortization). Every piece is non-decreasing in time, so events keep their
 * order and stay strictly increasing.
 *
 * Processes are scheduled with a ready stack and per-process waiter lists:
 * a process runs until it reaches a receive whose send is not computed yet,
 * then waits on the sender. A cycle (only possible when upstream matching
 * paired messages wrongly) is broken by dropping one blocking constraint.
 */
#include <math.h>
#include <stdlib.h>

#include "clock_int.h"

struct jump {
	uint32_t p;
	uint64_t ev;
	int64_t delta;
};

/* A message seen from one end: that end's event, the other end, and the
 * message; the passes read these in order instead of chasing msgs[].
 * 32-bit event numbers: mt_clock_correct refuses processes with 2^32
 * events or more (32 GiB of timestamps each). */
struct end {
	uint32_t ev;
	uint32_t other_ev;
	uint32_t other;
	uint32_t m;
};

struct clc {
	struct clk *c;
	uint64_t *in_off, *out_off;	/* per process, into in/out */
	struct end *in, *out;		/* messages by receiver / sender, by event */
	uint64_t *cur;			/* next event to compute */
	uint64_t *inp;			/* next message in in */
	int64_t *cprev;			/* recorded time of event cur - 1 */
	uint32_t *stack, nstack;
	uint32_t *whead, *wnext;	/* waiters on a process */
	uint32_t *wmsg;			/* message a waiting process needs, */
	uint32_t *wproc;		/* ... its sender */
	uint64_t *wev;			/* ... and its send event */
	unsigned char *ignore;		/* messages dropped to break cycles */
	struct jump *jumps;
	uint64_t njumps, capj;
	double *f, *cap;		/* backward amortization scratch */
	uint64_t capf;
};

static int64_t lmin_of(const struct clc *s, uint32_t m)
{
	return s->c->res->links[s->c->msg_link[m]].lmin_ns;
}

static int cmp_end(const void *x, const void *y)
{
	uint32_t a = ((const struct end *)x)->ev, b = ((const struct end *)y)->ev;

	return a < b ? -1 : a > b;
}

static void sort_groups(const struct clk *c, const uint64_t *off, struct end *e)
{
	for (uint32_t p = 0; p < c->np; p++) {
		struct end *g = e + off[p];
		uint64_t n = off[p + 1] - off[p];

		for (uint64_t k = 1; k < n; k++)
			if (g[k - 1].ev > g[k].ev) {
				qsort(g, n, sizeof(*g), cmp_end);
				break;
			}
	}
}

/* Messages grouped by receiver (in) and by sender (out), in one counting
 * sort, each group sorted by event; already sorted groups (the usual case)
 * cost one scan. */
static void group(struct clc *s)
{
	const struct clk *c = s->c;

	for (uint32_t p = 0; p <= c->np; p++)
		s->in_off[p] = s->out_off[p] = 0;
	for (uint64_t i = 0; i < c->nm; i++) {
		s->in_off[c->msgs[i].recv_proc + 1]++;
		s->out_off[c->msgs[i].send_proc + 1]++;
	}
	for (uint32_t p = 0; p < c->np; p++) {
		s->in_off[p + 1] += s->in_off[p];
		s->out_off[p + 1] += s->out_off[p];
	}
	for (uint64_t i = 0; i < c->nm; i++) {
		const struct mt_clock_msg *m = &c->msgs[i];

		s->in[s->in_off[m->recv_proc]++] = (struct end){
			(uint32_t)m->recv_ev, (uint32_t)m->send_ev, m->send_proc,
			(uint32_t)i };
		s->out[s->out_off[m->send_proc]++] = (struct end){
			(uint32_t)m->send_ev, (uint32_t)m->recv_ev, m->recv_proc,
			(uint32_t)i };
	}
	for (uint32_t p = c->np; p > 0; p--) {
		s->in_off[p] = s->in_off[p - 1];
		s->out_off[p] = s->out_off[p - 1];
	}
	s->in_off[0] = s->out_off[0] = 0;
	sort_groups(c, s->in_off, s->in);
	sort_groups(c, s->out_off, s->out);
}

static int add_jump(struct clc *s, uint32_t p, uint64_t ev, int64_t delta)
{
	if (s->njumps == s->capj) {
		uint64_t n = s->capj ? 2 * s->capj : 1024;
		struct jump *j = realloc(s->jumps, n * sizeof(*j));

		if (!j)
			return -1;
		s->jumps = j;
		s->capj = n;
	}
	s->jumps[s->njumps++] = (struct jump){ p, ev, delta };
	return 0;
}

enum run_result { RUN_DONE, RUN_BLOCKED, RUN_NOMEM };

/* Computes LC for process p from its next event on, until it is done or
 * needs a send not computed yet (then s->wmsg/wproc/wev[p] say which). */
static enum run_result run(struct clc *s, uint32_t p)
{
	const struct clk *c = s->c;
	const uint64_t n = c->procs[p].nevents, iend = s->in_off[p + 1];
	const double g = c->res->domains[c->res->proc_domain[p]].gamma;
	int64_t *lc = c->out[p];	/* LC before j, recorded C from j on */
	int64_t cprev = s->cprev[p];
	uint64_t ip = s->inp[p], j;

	for (j = s->cur[p]; j < n; j++) {
		int64_t cj = lc[j], v = cj, base;
		uint64_t k;

		if (j) {
			int64_t prev = lc[j - 1];
			int64_t fwd = prev + (int64_t)(g * (double)(cj - cprev));

			v = prev + 1 > v ? prev + 1 : v;
			v = fwd > v ? fwd : v;
		}
		base = v;
		for (k = ip; k < iend && s->in[k].ev == j; k++) {
			uint32_t m = s->in[k].m;
			uint32_t q = s->in[k].other;
			uint64_t done = q == p ? j : s->cur[q];

			if (s->ignore && s->ignore[m])
				continue;
			if (done <= s->in[k].other_ev) {
				s->cur[p] = j;
				s->inp[p] = ip;
				s->cprev[p] = cprev;
				s->wmsg[p] = m;
				s->wproc[p] = q;
				s->wev[p] = s->in[k].other_ev;
				return RUN_BLOCKED;
			}
			int64_t need = c->out[q][s->in[k].other_ev] + lmin_of(s, m);

			v = need > v ? need : v;
		}
		ip = k;
		if (v > base && add_jump(s, p, j, v - base))
			return RUN_NOMEM;
		lc[j] = v;
		cprev = cj;
	}
	s->cur[p] = n;
	s->inp[p] = ip;
	return RUN_DONE;
}

static void push(struct clc *s, uint32_t p)
{
	s->stack[s->nstack++] = p;
}

/* Moves the waiters of q whose send is now computed to the ready stack. */
static void wake(struct clc *s, uint32_t q)
{
	uint32_t *link = &s->whead[q];

	while (*link != UINT32_MAX) {
		uint32_t w = *link;

		if (s->cur[q] > s->wev[w]) {
			*link = s->wnext[w];
			push(s, w);
		} else {
			link = &s->wnext[w];
		}
	}
}

/* Drops the constraint one waiting process blocks on; returns 0 when no
 * process waits (all done). */
static int break_cycle(struct clc *s)
{
	const struct clk *c = s->c;

	for (uint32_t p = 0; p < c->np; p++) {
		if (s->cur[p] >= c->procs[p].nevents)
			continue;
		uint32_t m = s->wmsg[p];
		uint32_t *link = &s->whead[s->wproc[p]];

		while (*link != p)
			link = &s->wnext[*link];
		*link = s->wnext[p];
		if (!s->ignore) {
			s->ignore = calloc(c->nm + 1, 1);
			if (!s->ignore)
				return -1;
		}
		s->ignore[m] = 1;
		c->res->cycles_broken++;
		push(s, p);
		return 1;
	}
	return 0;
}

static enum mt_status forward(struct clc *s)
{
	const struct clk *c = s->c;
	int rc;

	for (uint32_t p = c->np; p-- > 0;) {
		s->whead[p] = UINT32_MAX;
		push(s, p);
	}
	do {
		while (s->nstack) {
			uint32_t p = s->stack[--s->nstack];
			enum run_result rr = run(s, p);

			if (rr == RUN_NOMEM)
				return MT_ERR_NOMEM;
			if (rr == RUN_BLOCKED) {
				uint32_t q = s->wproc[p];

				s->wnext[p] = s->whead[q];
				s->whead[q] = p;
			}
			wake(s, p);
		}
		rc = break_cycle(s);
	} while (rc > 0);
	return rc < 0 ? MT_ERR_NOMEM : MT_OK;
}

/* Smallest room a send event ev of p has before one of its receives,
 * INFINITY when ev sends nothing. *op walks p's sends downwards. */
static double send_cap(const struct clc *s, uint32_t p, uint64_t ev,
		       int64_t lc, uint64_t *op)
{
	const struct clk *c = s->c;
	double cap = INFINITY;

	for (; *op > s->out_off[p] && s->out[*op - 1].ev >= ev; (*op)--) {
		const struct end *e = &s->out[*op - 1];

		if (e->ev != ev || (s->ignore && s->ignore[e->m]))
			continue;
		double room = (double)(c->out[e->other][e->other_ev] -
				       lmin_of(s, e->m) - lc);

		cap = room < cap ? room : cap;
	}
	return cap;
}

/* First of p's sends at or after event ev. */
static uint64_t sends_from(const struct clc *s, uint32_t p, uint64_t ev)
{
	uint64_t lo = s->out_off[p], hi = s->out_off[p + 1];

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (s->out[mid].ev < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int grow_scratch(struct clc *s, uint64_t n)
{
	uint64_t cap = s->capf ? s->capf : 1024;

	while (cap < n)
		cap *= 2;
	double *f = realloc(s->f, cap * sizeof(*f));

	if (f)
		s->f = f;
	double *cp = f ? realloc(s->cap, cap * sizeof(*cp)) : NULL;

	if (!cp)
		return -1;
	s->cap = cp;
	s->capf = cap;
	return 0;
}

/* Backward amortization of one jump. Coordinates are u = LC - (LC of the
 * receive without its jump), negative before it. */
static int amortize(struct clc *s, const struct jump *jp)
{
	const double slope = s->c->o->slope, delta = (double)jp->delta;
	int64_t *lc = s->c->out[jp->p];
	const int64_t rb = lc[jp->ev] - jp->delta;
	const double reach = delta / slope;
	uint64_t op = sends_from(s, jp->p, jp->ev), j = jp->ev, j0, w;
	double ramp = INFINITY;	/* min over caps at or after j of cap - slope u */

	while (j > 0 && (double)(rb - lc[j - 1]) < reach)
		j--;
	j0 = j;
	if (j0 == jp->ev)
		return 0;
	if (jp->ev - j0 > s->capf && grow_scratch(s, jp->ev - j0))
		return -1;
	/* Backward: the ideal ramp, capped by the sends at and after each event. */
	for (j = jp->ev, w = jp->ev - j0; j-- > j0;) {
		double u = (double)(lc[j] - rb);
		double cap = send_cap(s, jp->p, j, lc[j], &op);

		w--;
		if (cap < INFINITY && cap - slope * u < ramp)
			ramp = cap - slope * u;
		s->cap[w] = cap;
		s->f[w] = fmin(delta + slope * u, ramp + slope * u);
	}
	/* Forward: the straight lines from caps before each event to the jump. */
	double rise = -INFINITY;

	for (j = j0, w = 0; j < jp->ev; j++, w++) {
		double u = (double)(lc[j] - rb);
		double f = rise > -INFINITY ? fmin(s->f[w], delta + rise * u) : s->f[w];

		if (s->cap[w] < INFINITY && u < 0) {
			double r = (delta - s->cap[w]) / -u;

			rise = r > rise ? r : rise;
		}
		if (f >= 1)
			lc[j] += (int64_t)f;
	}
	return 0;
}

static void clc_free(struct clc *s)
{
	free(s->in_off);
	free(s->out_off);
	free(s->in);
	free(s->out);
	free(s->cur);
	free(s->inp);
	free(s->cprev);
	free(s->stack);
	free(s->whead);
	free(s->wnext);
	free(s->wmsg);
	free(s->wproc);
	free(s->wev);
	free(s->ignore);
	free(s->jumps);
	free(s->f);
	free(s->cap);
}

enum mt_status mt_clock_clc(struct clk *c)
{
	const size_t np = c->np + 1, nm = c->nm + 1;
	struct clc s = {
		.c = c,
		.in_off = malloc(np * sizeof(uint64_t)),
		.out_off = malloc(np * sizeof(uint64_t)),
		.in = mt_clock_alloc_big(nm * sizeof(struct end)),
		.out = mt_clock_alloc_big(nm * sizeof(struct end)),
		.cur = calloc(np, sizeof(uint64_t)),
		.inp = malloc(np * sizeof(uint64_t)),
		.cprev = calloc(np, sizeof(int64_t)),
		.stack = malloc(np * sizeof(uint32_t)),
		.whead = malloc(np * sizeof(uint32_t)),
		.wnext = malloc(np * sizeof(uint32_t)),
		.wmsg = malloc(np * sizeof(uint32_t)),
		.wproc = malloc(np * sizeof(uint32_t)),
		.wev = malloc(np * sizeof(uint64_t)),
	};
	enum mt_status st = MT_ERR_NOMEM;

	if (!s.in_off || !s.out_off || !s.in || !s.out || !s.cur ||
	    !s.inp || !s.cprev || !s.stack || !s.whead || !s.wnext || !s.wmsg ||
	    !s.wproc || !s.wev)
		goto out;
	group(&s);
	for (uint32_t p = 0; p < c->np; p++)
		s.inp[p] = s.in_off[p];
	st = forward(&s);
	if (st != MT_OK)
		goto out;
	c->res->jumps = s.njumps;
	for (uint64_t k = 0; k < s.njumps; k++)
		if (amortize(&s, &s.jumps[k])) {
			st = MT_ERR_NOMEM;
			goto out;
		}
out:
	clc_free(&s);
	if (st != MT_OK)
		return mt_err_set(c->err, st, "clock CLC stage: out of memory");
	return MT_OK;
}
