/*
 * test_clock_bound.c - the linear stage's bound rules between two hosts
 * that share one true clock (the times given are the truth):
 *  - the offset it leaves lies inside the interval the round trips bound
 *    (no message between the hosts with a negative delay), whatever other
 *    measurements (CLOCK_REALTIME calibrations) claim;
 *  - a drift the messages do not need (the prior's, here none, fits them)
 *    is not taken: with few messages whose delays happen to slope, the
 *    times stay as recorded instead of being tilted, which moved events
 *    away from the messages by more than the bound.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "mt_clock.h"
#include "mt_format.h"

#define PER_WAY 24
#define NEV (2 * PER_WAY + 1)
#define SPAN 1000000		/* ns the messages take */
#define TAIL 5000000		/* a last event of b, after the messages */

struct two {
	int64_t t[2][NEV], out[2][NEV];
	uint64_t n[2];
	struct mt_clock_cal cal[2][2];
	struct mt_clock_proc procs[2];
	struct mt_clock_msg msgs[2 * PER_WAY];
	uint64_t nm;
	struct mt_clock_opts o;
	struct mt_clock_result res;
	struct mt_err err;
};

/* PER_WAY round trips over SPAN: a -> b, then b -> a 100 ns later; the
 * delays a -> b of the i-th are lab(i), b -> a lba(i). */
static void build(struct two *g, int64_t (*lab)(int), int64_t (*lba)(int))
{
	memset(g, 0, sizeof(*g));
	mt_clock_opts_default(&g->o);
	for (int i = 0; i < PER_WAY; i++) {
		int64_t t = (int64_t)i * SPAN / (PER_WAY - 1), ab = lab(i), ba = lba(i);

		g->msgs[g->nm++] = (struct mt_clock_msg){ 0, 1, g->n[0], g->n[1] };
		g->t[0][g->n[0]++] = t;
		g->t[1][g->n[1]++] = t + ab;
		g->msgs[g->nm++] = (struct mt_clock_msg){ 1, 0, g->n[1], g->n[0] };
		g->t[1][g->n[1]++] = t + ab + 100;
		g->t[0][g->n[0]++] = t + ab + 100 + ba;
	}
	g->t[1][g->n[1]++] = TAIL;
}

/* cal_off: b's CLOCK_REALTIME calibration says its clock is this far
 * ahead of a's (0: calibrations tell the truth); -1: no calibrations. */
static void run(struct two *g, int64_t cal_off)
{
	int64_t *out[2] = { g->out[0], g->out[1] };

	for (int p = 0; p < 2; p++) {
		int64_t off = p ? cal_off : 0;

		g->cal[p][0] = (struct mt_clock_cal){ 0, -off };
		g->cal[p][1] = (struct mt_clock_cal){ TAIL, TAIL - off };
		g->procs[p] = (struct mt_clock_proc){
			.host = p ? "b" : "a", .clock_source = MT_CLOCK_MONOTONIC,
			.ncal = cal_off < 0 ? 0 : 2, .cal = g->cal[p],
			.nevents = g->n[p], .t = g->t[p] };
	}
	cr_assert_eq(mt_clock_correct(MT_CLOCK_MODE_LINEAR, &g->o, 2, g->procs,
				      g->nm, g->msgs, out, &g->res, &g->err),
		     MT_OK, "%s", g->err.msg);
	cr_assert_eq(g->res.ndomains, 2);
}

/* Every message between the hosts keeps a non-negative delay. */
static void expect_no_reversal(const struct two *g)
{
	for (uint64_t k = 0; k < g->nm; k++) {
		const struct mt_clock_msg *m = &g->msgs[k];

		cr_expect_geq(g->out[m->recv_proc][m->recv_ev],
			      g->out[m->send_proc][m->send_ev],
			      "message %llu received before it was sent",
			      (unsigned long long)k);
	}
}
static int64_t flat(int i) { (void)i; return 20; }

Test(clock_bound, offset_kept_inside_round_trip_bound)
{
	struct two g;

	build(&g, flat, flat);
	/* A calibration said to be exact, and 500 ns wrong. */
	g.o.realtime_sd_ns = 1;
	run(&g, 500);
	const struct mt_clock_domain *b = &g.res.domains[1];

	cr_expect(b->offset_ns >= -20 && b->offset_ns <= 20,
		  "offset %.1f ns outside the round-trip bound [-20, 20]", b->offset_ns);
	expect_no_reversal(&g);
	mt_clock_result_free(&g.res);
}
