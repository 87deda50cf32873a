/*
 * test_clock_bound.c - the linear stage's rules between two hosts, a and
 * b, whose true times are known (a's clock is the truth; b's may carry an
 * offset and a drift put on it here):
 *  - the offset it leaves lies inside the interval the round trips bound
 *    (no message between the hosts with a negative delay), whatever other
 *    measurements (CLOCK_REALTIME calibrations) claim;
 *  - a drift the messages do not support (a line of the prior's drift, here
 *    none, fits them as well as chance allows) is not taken: with few
 *    messages whose delays happen to slope, the times stay as recorded
 *    instead of being tilted, which moved events away from the messages by
 *    more than the bound;
 *  - a drift the messages do support is taken, also where a line of no
 *    drift would still fit between the envelopes: 40 ppm over a ping-pong
 *    of a few hundred messages, and -13.6 ppm over a long run whose later
 *    part has only slow messages.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt_clock.h"
#include "mt_format.h"

/* A ping-pong of n round trips over span ns: a -> b, then b -> a 100 ns
 * later; the i-th delays are ab(i) and ba(i) ns. b's last event is at
 * tail ns (after the messages). b's clock reads off_ns + (1 + ppm 1e-6) t
 * at true time t. */
struct spec {
	int n;
	int64_t span, tail;
	int64_t (*ab)(int i, int n), (*ba)(int i, int n);
	double off_ns, ppm;
};

struct two {
	struct spec s;
	int64_t *truth[2], *t[2], *out[2];
	uint64_t n[2];
	struct mt_clock_cal cal[2][2];
	struct mt_clock_proc procs[2];
	struct mt_clock_msg *msgs;
	uint64_t nm;
	int64_t lab, lba;	/* smallest true delay each way */
	struct mt_clock_opts o;
	struct mt_clock_result res;
	struct mt_err err;
};

static int64_t on_b(const struct two *g, int64_t t)
{
	return t + (int64_t)llround(g->s.off_ns + g->s.ppm * 1e-6 * (double)t);
}

static void build(struct two *g, const struct spec *s)
{
	size_t nev = 2 * (size_t)s->n + 1;

	memset(g, 0, sizeof(*g));
	g->s = *s;
	mt_clock_opts_default(&g->o);
	for (int p = 0; p < 2; p++) {
		g->truth[p] = calloc(nev, sizeof(int64_t));
		g->t[p] = calloc(nev, sizeof(int64_t));
		g->out[p] = calloc(nev, sizeof(int64_t));
		cr_assert(g->truth[p] && g->t[p] && g->out[p]);
	}
	g->msgs = calloc(2 * (size_t)s->n, sizeof(*g->msgs));
	cr_assert(g->msgs);
	g->lab = g->lba = INT64_MAX;
	for (int i = 0; i < s->n; i++) {
		int64_t t = (int64_t)i * s->span / (s->n - 1);
		int64_t ab = s->ab(i, s->n), ba = s->ba(i, s->n);

		g->lab = ab < g->lab ? ab : g->lab;
		g->lba = ba < g->lba ? ba : g->lba;
		g->msgs[g->nm++] = (struct mt_clock_msg){ 0, 1, g->n[0], g->n[1] };
		g->truth[0][g->n[0]++] = t;
		g->truth[1][g->n[1]++] = t + ab;
		g->msgs[g->nm++] = (struct mt_clock_msg){ 1, 0, g->n[1], g->n[0] };
		g->truth[1][g->n[1]++] = t + ab + 100;
		g->truth[0][g->n[0]++] = t + ab + 100 + ba;
	}
	g->truth[1][g->n[1]++] = s->tail;
	memcpy(g->t[0], g->truth[0], g->n[0] * sizeof(int64_t));
	for (uint64_t j = 0; j < g->n[1]; j++)
		g->t[1][j] = on_b(g, g->truth[1][j]);
}

/* cal_off: b's CLOCK_REALTIME calibration says its clock is this far
 * ahead of its true reading (0: calibrations tell the truth); -1: no
 * calibrations. */
static void run(struct two *g, int64_t cal_off)
{
	for (int p = 0; p < 2; p++) {
		int64_t off = p ? cal_off : 0;

		for (int k = 0; k < 2; k++) {
			int64_t t = k ? g->s.tail : 0;

			g->cal[p][k] = (struct mt_clock_cal){ p ? on_b(g, t) : t, t - off };
		}
		g->procs[p] = (struct mt_clock_proc){
			.host = p ? "b" : "a", .clock_source = MT_CLOCK_MONOTONIC,
			.ncal = cal_off < 0 ? 0 : 2, .cal = g->cal[p],
			.nevents = g->n[p], .t = g->t[p] };
	}
	cr_assert_eq(mt_clock_correct(MT_CLOCK_MODE_LINEAR, &g->o, 2, g->procs,
				      g->nm, g->msgs, g->out, &g->res, &g->err),
		     MT_OK, "%s", g->err.msg);
	cr_assert_eq(g->res.ndomains, 2);
}

static void done(struct two *g)
{
	mt_clock_result_free(&g->res);
	for (int p = 0; p < 2; p++) {
		free(g->truth[p]);
		free(g->t[p]);
		free(g->out[p]);
	}
	free(g->msgs);
}

/* Every message between the hosts keeps a non-negative delay. */
static void expect_no_reversal(const struct two *g, const char *what)
{
	for (uint64_t k = 0; k < g->nm; k++) {
		const struct mt_clock_msg *m = &g->msgs[k];

		cr_expect_geq(g->out[m->recv_proc][m->recv_ev],
			      g->out[m->send_proc][m->send_ev],
			      "%s: message %llu received before it was sent", what,
			      (unsigned long long)k);
	}
}

/* The largest |corrected - true| over b's events up to time 'upto'. */
static int64_t worst_error(const struct two *g, int64_t upto)
{
	int64_t w = 0;

	for (uint64_t j = 0; j < g->n[1] && g->truth[1][j] <= upto; j++) {
		int64_t e = llabs(g->out[1][j] - g->truth[1][j]);

		w = e > w ? e : w;
	}
	return w;
}

static int64_t flat(int i, int n) { (void)i; (void)n; return 20; }

static uint64_t seed;
static int64_t draw(uint64_t mod)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (int64_t)((seed >> 33) % mod);
}

/* Delays of 10 ns plus a tail up to 190 ns, drawn per message (LCG): on
 * one clock with few messages, the smallest of them slope by chance. */
static int64_t noisy(int i, int n) { (void)i; (void)n; return 10 + draw(191); }

/* A loopback ping-pong's delays: 10 us, most within 3 us more, one in
 * eight up to 50 us more. */
static int64_t tcp(int i, int n)
{
	(void)i;
	(void)n;
	return 10000 + (draw(8) ? draw(3000) : draw(50000));
}

/* As tcp for the first third of the run, then only slow messages (64 us
 * and more): a loaded machine. */
static int64_t loaded(int i, int n)
{
	return 3 * i < n ? tcp(i, n) : 64000 + draw(20000);
}

Test(clock_bound, offset_kept_inside_round_trip_bound)
{
	struct two g;

	build(&g, &(struct spec){ 24, 1000000, 5000000, flat, flat, 0, 0 });
	/* A calibration said to be exact, and 500 ns wrong. */
	g.o.realtime_sd_ns = 1;
	run(&g, 500);
	const struct mt_clock_domain *b = &g.res.domains[1];

	cr_expect(b->offset_ns >= -20 && b->offset_ns <= 20,
		  "offset %.1f ns outside the round-trip bound [-20, 20]", b->offset_ns);
	expect_no_reversal(&g, "flat");
	done(&g);
}

/* Few messages each way with noisy delays on one clock: a fit taking the
 * drift of their smallest, which slope by chance, tilted b's times and
 * moved its last event by more than the round trips allow. */
Test(clock_bound, unsupported_drift_left_out)
{
	for (uint64_t k = 1; k <= 20; k++)
		for (int64_t cal = -1; cal <= 0; cal++) {
			struct two g;
			char what[64];

			seed = k;
			build(&g, &(struct spec){ 24, 1000000, 5000000, noisy, noisy, 0, 0 });
			snprintf(what, sizeof(what), "seed %llu, %s",
				 (unsigned long long)k,
				 cal < 0 ? "no calibration" : "calibrated");
			run(&g, cal);
			const struct mt_clock_domain *b = &g.res.domains[1];

			cr_expect_float_eq(b->drift_ppm, 0, 1e-3,
					   "%s: drift %.3f ppm, the data do not support one",
					   what, b->drift_ppm);
			cr_expect(b->offset_ns >= -g.lba && b->offset_ns <= g.lab,
				  "%s: offset %.1f ns outside the round-trip bound [%lld, %lld]",
				  what, b->offset_ns, (long long)-g.lba, (long long)g.lab);
			for (uint64_t j = 0; j < g.n[1]; j++) {
				int64_t moved = g.out[1][j] - g.t[1][j];

				/* corrected = recorded - offset */
				cr_expect(moved >= -g.lab && moved <= g.lba,
					  "%s: b's event %llu (%lld ns) moved by %lld ns, beyond the bound",
					  what, (unsigned long long)j,
					  (long long)g.t[1][j], (long long)moved);
			}
			expect_no_reversal(&g, what);
			done(&g);
		}
}

static int64_t smaller(const struct two *g) { return g->lab < g->lba ? g->lab : g->lba; }
static int64_t larger(const struct two *g) { return g->lab > g->lba ? g->lab : g->lba; }

/* Over seeds 1..seeds: the run of s with b's calibrations cal_off (as in
 * run()) gives b the drift s->ppm within tol, no message received before
 * it was sent, and, unless bound is NULL, every event of b within
 * bound(g) ns of its true time. */
static void expect_recovered(const struct spec *s, int64_t cal_off, uint64_t seeds,
			     double tol, int64_t (*bound)(const struct two *))
{
	for (uint64_t k = 1; k <= seeds; k++) {
		struct two g;

		seed = k;
		build(&g, s);
		run(&g, cal_off);
		const struct mt_clock_domain *b = &g.res.domains[1];

		cr_expect(fabs(b->drift_ppm - s->ppm) < tol,
			  "seed %llu: drift %.3f ppm, truth %.1f", (unsigned long long)k,
			  b->drift_ppm, s->ppm);
		if (bound) {
			int64_t err = worst_error(&g, INT64_MAX);

			cr_expect_leq(err, bound(&g),
				      "seed %llu: b's times off by up to %lld ns, beyond %lld ns "
				      "(drift %.3f ppm)", (unsigned long long)k, (long long)err,
				      (long long)bound(&g), b->drift_ppm);
		}
		expect_no_reversal(&g, "recovered");
		done(&g);
	}
}

/* b 2.5 ms ahead and 40 ppm fast, 300 round trips over 100 ms (4 us of
 * drift against a 20 us band: a line of no drift still fits between the
 * envelopes), no calibration: the drift is recovered and every event of b
 * within the smallest one-way delay of its true time. */
Test(clock_bound, injected_drift_recovered)
{
	expect_recovered(&(struct spec){ 300, 100000000, 101000000, tcp, tcp, 2500000, 40 },
			 -1, 10, 10, smaller);
}

/* A long run with a real drift of -13.6 ppm (32 us over 2.4 s), fast
 * messages for its first third only: the drift is kept. */
Test(clock_bound, real_drift_kept_on_long_loaded_run)
{
	expect_recovered(&(struct spec){ 2500, 2390000000, 2391000000, loaded, loaded,
					 -3000, -13.6 }, -1, 5, 2, NULL);
}

/* Few messages (24 round trips over 5 ms), b 2.5 ms ahead and 40 ppm
 * fast, its CLOCK_REALTIME 300 us off (an NTP error: an offset) but its
 * drift true: the messages do not rule the calibrations' drift out, so it
 * is kept, and b's last event, 20 ms after the messages, is within the
 * round-trip bound of its truth. */
Test(clock_bound, realtime_drift_kept_on_sparse_traffic)
{
	expect_recovered(&(struct spec){ 24, 5000000, 25000000, tcp, tcp, 2500000, 40 },
			 300000, 20, 0.1, larger);
}
