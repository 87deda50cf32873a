/*
 * test_clock.c - clock correction on small hand-built event graphs whose
 * corrected timestamps follow from the CLC equations (Becker, Rabenseifner,
 * Wolf 2007, eq. 3-4 and section 3.2) worked out by hand in the comments.
 *
 * For the CLC cases every process is on its own host with no calibration
 * pairs and no two-way traffic, so the linear stage has nothing to measure
 * and leaves the times alone, and every link's minimum latency is
 * opts.lmin_default_ns = 10. gamma = 0.9, slope = 0.1 keep the arithmetic
 * readable.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt_clock.h"
#include "mt_format.h"

#define MAXP 4
#define MAXE 8

struct graph {
	uint32_t np;
	char host[MAXP][8];
	uint64_t n[MAXP];
	int64_t t[MAXP][MAXE];
	int64_t out[MAXP][MAXE];
	struct mt_clock_proc procs[MAXP];
	uint64_t nm;
	struct mt_clock_msg msgs[16];
	struct mt_clock_opts o;
	struct mt_clock_result res;
	struct mt_err err;
};

static void proc(struct graph *g, uint32_t p, const char *host, uint64_t n,
		 const int64_t *t)
{
	snprintf(g->host[p], sizeof(g->host[p]), "%s", host);
	g->n[p] = n;
	if (n)
		memcpy(g->t[p], t, n * sizeof(*t));
	if (p >= g->np)
		g->np = p + 1;
}

static void msg(struct graph *g, uint32_t sp, uint64_t se, uint32_t rp,
		uint64_t re)
{
	g->msgs[g->nm++] = (struct mt_clock_msg){
		.send_proc = sp, .send_ev = se, .recv_proc = rp, .recv_ev = re };
}

static enum mt_status correct(struct graph *g, enum mt_clock_mode mode)
{
	int64_t *out[MAXP];

	for (uint32_t p = 0; p < g->np; p++) {
		g->procs[p] = (struct mt_clock_proc){
			.host = g->host[p], .clock_source = MT_CLOCK_MONOTONIC,
			.nevents = g->n[p], .t = g->t[p] };
		out[p] = g->out[p];
	}
	return mt_clock_correct(mode, &g->o, g->np, g->procs, g->nm, g->msgs,
				out, &g->res, &g->err);
}

static void expect(const struct graph *g, uint32_t p, const int64_t *want)
{
	for (uint64_t j = 0; j < g->n[p]; j++)
		cr_expect_eq(g->out[p][j], want[j],
			     "process %u event %llu: %lld, want %lld", p,
			     (unsigned long long)j, (long long)g->out[p][j],
			     (long long)want[j]);
}

static void clc_setup(struct graph *g)
{
	memset(g, 0, sizeof(*g));
	mt_clock_opts_default(&g->o);
	g->o.gamma = 0.9;
	g->o.slope = 0.1;
	g->o.lmin_default_ns = 10;
}

Test(clock, single_violating_receive)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 1, (int64_t[]){ 1095 });
	proc(&g, 1, "b", 5, (int64_t[]){ 0, 1000, 1090, 1100, 2000 });
	msg(&g, 0, 0, 1, 2);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_OK, "%s", g.err.msg);
	/* Receive: max(C 1090, 1000 + 1, 1000 + 0.9 * 90, send 1095 + 10) =
	 * 1105, a jump of 15 over 1090. Forward: 1105 + 0.9 * 10 = 1114 beats
	 * C 1100; then C 2000 beats 1114 + 0.9 * 900. Backward over
	 * 15 / 0.1 = 150 ns: event 1 is 90 before 1090, moves 15 - 0.1 * 90 = 6;
	 * event 0 is out of reach. */
	expect(&g, 0, (int64_t[]){ 1095 });
	expect(&g, 1, (int64_t[]){ 0, 1006, 1105, 1114, 2000 });
	cr_expect_eq(g.res.viol_before, 1);
	cr_expect_eq(g.res.viol_after, 0);
	cr_expect_eq(g.res.jumps, 1);
	cr_expect_eq(g.res.clc_max_ns, 15);
	mt_clock_result_free(&g.res);
}

Test(clock, chain_of_messages)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 1, (int64_t[]){ 100 });
	proc(&g, 1, "b", 2, (int64_t[]){ 50, 60 });
	proc(&g, 2, "c", 1, (int64_t[]){ 40 });
	msg(&g, 0, 0, 1, 0);
	msg(&g, 1, 1, 2, 0);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_OK, "%s", g.err.msg);
	/* b0 = max(50, 100 + 10) = 110; b1 = max(60, 111, 110 + 0.9 * 10) =
	 * 119; c0 = max(40, 119 + 10) = 129. Nothing precedes either jump. */
	expect(&g, 1, (int64_t[]){ 110, 119 });
	expect(&g, 2, (int64_t[]){ 129 });
	cr_expect_eq(g.res.viol_before, 2);
	cr_expect_eq(g.res.viol_after, 0);
	cr_expect_eq(g.res.jumps, 2);
	mt_clock_result_free(&g.res);
}

Test(clock, backward_amortization_limited_by_send)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 1, (int64_t[]){ 1040 });
	proc(&g, 1, "b", 5, (int64_t[]){ 0, 800, 900, 950, 1000 });
	proc(&g, 2, "c", 1, (int64_t[]){ 915 });
	msg(&g, 0, 0, 1, 4);
	msg(&g, 1, 2, 2, 0);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_OK, "%s", g.err.msg);
	/* b4 jumps from 1000 to 1040 + 10 = 1050: delta 50, reach 500.
	 * Ideal shifts 50 - 0.1 * u: b3 (u = 50) 45, b2 (u = 100) 40,
	 * b1 (u = 200) 30. But b2 sends to c0 = 915: at most 915 - 10 - 900 = 5.
	 * Before b2 the shift falls from 5 with slope 0.1: b1 gets
	 * 5 - 0.1 * 100 < 0, nothing. After b2 it rises on the line from
	 * (u = 100, 5) to (0, 50): b3 gets 50 - 0.45 * 50 = 27.5, floored. */
	expect(&g, 1, (int64_t[]){ 0, 800, 905, 977, 1050 });
	expect(&g, 2, (int64_t[]){ 915 });
	cr_expect_geq(g.out[2][0] - g.out[1][2], 10);
	mt_clock_result_free(&g.res);
}

Test(clock, process_without_messages)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 1, (int64_t[]){ 100 });
	proc(&g, 1, "b", 2, (int64_t[]){ 50, 500 });
	proc(&g, 2, "c", 3, (int64_t[]){ 5, 10, 15 });
	proc(&g, 3, "d", 0, NULL);
	msg(&g, 0, 0, 1, 0);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_OK, "%s", g.err.msg);
	/* b1: forward amortization, 110 + 0.9 * 450 = 515 beats C 500. */
	expect(&g, 1, (int64_t[]){ 110, 515 });
	expect(&g, 2, (int64_t[]){ 5, 10, 15 });
	cr_expect_eq(g.res.domains[g.res.proc_domain[2]].est, MT_CLOCK_EST_NONE);
	mt_clock_result_free(&g.res);
}

Test(clock, equal_timestamps_become_strictly_increasing)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 3, (int64_t[]){ 10, 10, 10 });
	proc(&g, 1, "b", 1, (int64_t[]){ 100 });
	msg(&g, 0, 2, 1, 0);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_OK, "%s", g.err.msg);
	expect(&g, 0, (int64_t[]){ 10, 11, 12 });
	mt_clock_result_free(&g.res);
}

Test(clock, message_cycle_is_broken_not_fatal)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 2, (int64_t[]){ 0, 10 });
	proc(&g, 1, "b", 2, (int64_t[]){ 0, 10 });
	msg(&g, 1, 1, 0, 0);
	msg(&g, 0, 1, 1, 0);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_OK, "%s", g.err.msg);
	cr_expect_eq(g.res.cycles_broken, 1);
	cr_expect_gt(g.out[0][1], g.out[0][0]);
	cr_expect_gt(g.out[1][1], g.out[1][0]);
	mt_clock_result_free(&g.res);
}

/* Two processes on one host: a shared clock is kept when the data agrees,
 * split when a message arrives before it left. */
Test(clock, domain_verified_or_split)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 2, (int64_t[]){ 0, 1000 });
	proc(&g, 1, "a", 2, (int64_t[]){ 500, 2000 });
	msg(&g, 0, 0, 1, 0);
	msg(&g, 1, 0, 0, 1);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_AUTO), MT_OK, "%s", g.err.msg);
	cr_expect_eq(g.res.ndomains, 1);
	cr_expect_eq(g.res.domains[0].intra_msgs, 2);
	cr_expect_eq(g.res.linear_done + g.res.clc_done, 0);
	expect(&g, 1, (int64_t[]){ 500, 2000 });
	mt_clock_result_free(&g.res);

	g.t[1][0] = -500;	/* received 500 ns before it was sent */
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_AUTO), MT_OK, "%s", g.err.msg);
	cr_expect_eq(g.res.ndomains, 2);
	cr_expect(g.res.domains[1].split);
	cr_expect_eq(g.res.domains[1].intra_violations, 1);
	cr_expect_eq(g.res.viol_after, 0);
	mt_clock_result_free(&g.res);
}

/* Four processes of one host kept on one clock: how far apart the data
 * allow each pair, from the fastest message each way. Process 1's fastest
 * from 0 took 400 ns, to 0 took 600: it reads 100 ns behind, within
 * [-600, 400]. Process 2 talks to 0 one way only, and with 3 by messages
 * that waited (more than twice the domain's fastest, 400): not measured. */
Test(clock, domain_agreement_from_fastest_messages)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 4, (int64_t[]){ 0, 2200, 3000, 5000 });
	proc(&g, 1, "a", 3, (int64_t[]){ 400, 1600, 2000 });
	proc(&g, 2, "a", 2, (int64_t[]){ 100, 5900 });
	proc(&g, 3, "a", 1, (int64_t[]){ 4000 });
	msg(&g, 0, 0, 1, 0);	/* 0 -> 1 in 400 */
	msg(&g, 1, 1, 0, 1);	/* 1 -> 0 in 600 */
	msg(&g, 1, 2, 0, 2);	/* 1 -> 0 in 1000 */
	msg(&g, 0, 3, 2, 1);	/* 0 -> 2 in 900, one way */
	msg(&g, 2, 0, 3, 0);	/* 2 <-> 3 both ways, but one waited: */
	msg(&g, 3, 0, 2, 1);	/* 3900 and 1900 > twice 400 */
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_AUTO), MT_OK, "%s", g.err.msg);
	cr_assert_eq(g.res.ndomains, 1);
	cr_expect_eq(g.res.domains[0].agree_pairs, 1);
	cr_expect_eq(g.res.domains[0].agree_a, 0);
	cr_expect_eq(g.res.domains[0].agree_b, 1);
	cr_expect_float_eq(g.res.domains[0].agree_ns, -100.0, 1e-9);
	cr_expect_eq(g.res.domains[0].agree_lo_ns, -600);
	cr_expect_eq(g.res.domains[0].agree_hi_ns, 400);
	mt_clock_result_free(&g.res);

	/* Split (a message arrives before it left): nothing to agree on. */
	g.t[1][0] = -1000;
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_AUTO), MT_OK, "%s", g.err.msg);
	cr_expect_gt(g.res.ndomains, 1);
	for (uint32_t d = 0; d < g.res.ndomains; d++)
		cr_expect_eq(g.res.domains[d].agree_pairs, 0);
	mt_clock_result_free(&g.res);
}

/* Host b's clock is 1000 ns ahead; messages take 100 ns both ways. The
 * envelopes give the offset exactly and the minimum latency as 100. */
Test(clock, linear_offset_from_two_way_traffic)
{
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 4, (int64_t[]){ 0, 1400, 3000, 4400 });
	proc(&g, 1, "b", 4, (int64_t[]){ 1100, 2300, 4100, 5300 });
	msg(&g, 0, 0, 1, 0);	/* sent 0, arrives 100 = b's 1100 */
	msg(&g, 1, 1, 0, 1);	/* sent 1300 = b's 2300, arrives 1400 */
	msg(&g, 0, 2, 1, 2);
	msg(&g, 1, 3, 0, 3);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_LINEAR), MT_OK, "%s", g.err.msg);
	cr_assert_eq(g.res.ndomains, 2);
	cr_expect_eq(g.res.domains[1].est, MT_CLOCK_EST_MESSAGES);
	cr_expect_float_eq(g.res.domains[1].offset_ns, 1000, 1e-6);
	cr_expect_float_eq(g.res.domains[1].drift_ppm, 0, 1e-6);
	expect(&g, 1, (int64_t[]){ 100, 1300, 3100, 4300 });
	cr_assert_eq(g.res.nlinks, 2);
	cr_expect_eq(g.res.links[0].lmin_ns, 100);
	cr_expect_eq(g.res.links[0].src, MT_CLOCK_LAT_ROUND_TRIP);
	mt_clock_result_free(&g.res);
}

Test(clock, bad_input_names_the_culprit)
{
	struct graph g;
	enum mt_clock_mode m;

	clc_setup(&g);
	proc(&g, 0, "a", 2, (int64_t[]){ 10, 5 });
	cr_expect_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_ERR_ARG);
	cr_expect(strstr(g.err.msg, "process 0: event 1"), "%s", g.err.msg);
	g.t[0][1] = 20;
	msg(&g, 0, 0, 0, 7);
	cr_expect_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_ERR_ARG);
	cr_expect(strstr(g.err.msg, "message 0"), "%s", g.err.msg);
	g.nm = 0;
	g.o.gamma = 1;
	cr_expect_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_ERR_ARG);
	cr_expect(strstr(g.err.msg, "gamma"), "%s", g.err.msg);
	cr_expect_eq(mt_clock_mode_parse("clc", &m), MT_OK);
	cr_expect_eq(m, MT_CLOCK_MODE_CLC);
	cr_expect_eq(mt_clock_mode_parse("fast", &m), MT_ERR_ARG);
	cr_expect_str_eq(mt_clock_mode_name(MT_CLOCK_MODE_AUTO), "auto");
}

/* Process b's clock is 2^61 - 1 ahead: times within the limit each, but
 * mapping a's onto b's (the reference: the larger domain, b and c) throws
 * them past it, where the CLC's sums would overflow. */
Test(clock, linear_map_beyond_the_time_limit_is_corrupt)
{
	const int64_t far = MT_CLOCK_TIME_LIMIT - 1;
	struct graph g;

	clc_setup(&g);
	proc(&g, 0, "a", 2, (int64_t[]){ 0, 2000 });
	proc(&g, 1, "b", 2, (int64_t[]){ 1000 - far, 1200 - far });
	proc(&g, 2, "b", 1, (int64_t[]){ 1100 - far });
	msg(&g, 0, 0, 1, 0);
	msg(&g, 1, 1, 0, 1);
	msg(&g, 1, 0, 2, 0);
	cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_ERR_CORRUPT, "%s", g.err.msg);
	cr_expect_eq(g.res.corrupt_proc, 0);
	cr_expect(strstr(g.err.msg, "process 0: the linear clock map"), "%s", g.err.msg);
}

/* Two messages between two processes: their times become sorted events
 * of the process each belongs to, each send post -> receive completion an
 * edge, and corrected times go back where they came from. */
Test(clock, graph_from_message_times)
{
	struct mt_clock_times m[2] = {
		{ 0, 1, { 100, 150, 20, 300 } },
		{ 1, 0, { 400, MT_CLOCK_NOTIME, 90, 380 } },
	};
	struct mt_clock_graph g;
	struct mt_err err;
	int64_t out0[4] = { 1, 2, 3, 4 }, out1[3] = { 5, 6, 7 };
	int64_t *out[2] = { out0, out1 };

	cr_assert_eq(mt_clock_graph_build(2, m, 2, &g, &err), MT_OK, "%s", err.msg);
	/* Process 0: 90 (m1 recv post), 100, 150 (m0 send), 380 (m1 recv done);
	 * process 1: 20, 300 (m0 receive), 400 (m1 send post). */
	cr_assert_eq(g.nevents[0], 4);
	cr_assert_eq(g.nevents[1], 3);
	for (int j = 0; j < 4; j++)
		cr_expect_eq(g.t[0][j], ((int64_t[]){ 90, 100, 150, 380 })[j]);
	for (int j = 0; j < 3; j++)
		cr_expect_eq(g.t[1][j], ((int64_t[]){ 20, 300, 400 })[j]);
	cr_assert_eq(g.nmsgs, 2);
	cr_expect(g.msgs[0].send_proc == 0 && g.msgs[0].send_ev == 1 &&
		  g.msgs[0].recv_proc == 1 && g.msgs[0].recv_ev == 1);
	cr_expect(g.msgs[1].send_proc == 1 && g.msgs[1].send_ev == 2 &&
		  g.msgs[1].recv_proc == 0 && g.msgs[1].recv_ev == 3);
	mt_clock_graph_apply(&g, out, m, 2);
	cr_expect_eq(m[0].t[MT_CLOCK_SEND_POST], 2);
	cr_expect_eq(m[0].t[MT_CLOCK_RECV_DONE], 6);
	cr_expect_eq(m[1].t[MT_CLOCK_RECV_DONE], 4);
	cr_expect_eq(m[1].t[MT_CLOCK_SEND_DONE], MT_CLOCK_NOTIME);
	mt_clock_graph_free(&g);
	m[1].recv_proc = 2;
	cr_expect_eq(mt_clock_graph_build(2, m, 2, &g, &err), MT_ERR_ARG);
	cr_expect(strstr(err.msg, "message 1"), "%s", err.msg);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* Random causal graphs (messages only from an earlier to a later true
 * time) under random per-process offsets: whatever the CLC does, the result
 * must keep every receive at least lmin after its send and every process
 * strictly increasing, without breaking a cycle. */
/* Many messages among three processes, times drawn from a few values
 * (ties) with runs going up and down: each process's events come out
 * sorted by time, ties in the order they were given (message, then send
 * post, send done, receive post, receive done), each where its message
 * says. */
Test(clock, graph_sorts_events_by_time_then_given_order)
{
	enum { N = 2000, NP = 3 };
	static struct mt_clock_times m[N];
	struct mt_clock_graph g;
	struct mt_err err;
	uint64_t seed = 12345;

	for (uint32_t i = 0; i < N; i++) {
		m[i].send_proc = i % NP;
		m[i].recv_proc = (i / NP) % NP;
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* a slope with noise: runs, and ties among 40 values */
			m[i].t[w] = (int64_t)(i / 50) + (int64_t)((seed >> 33) % 40);
		}
		if (i % 7 == 0)
			m[i].t[MT_CLOCK_SEND_DONE] = MT_CLOCK_NOTIME;
	}
	cr_assert_eq(mt_clock_graph_build(NP, m, N, &g, &err), MT_OK, "%s", err.msg);
	for (uint32_t p = 0; p < NP; p++)
		for (uint64_t j = 1; j < g.nevents[p]; j++)
			cr_assert_leq(g.t[p][j - 1], g.t[p][j], "process %u event %llu",
				      p, (unsigned long long)j);
	/* Ties keep the given order: an event given later never sorts before
	 * an earlier one of the same process and time. */
	for (uint32_t i = 0; i < N; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			uint32_t p = w < MT_CLOCK_RECV_POST ? m[i].send_proc : m[i].recv_proc;

			if (m[i].t[w] == MT_CLOCK_NOTIME) {
				cr_assert_eq(g.ev[i][w], UINT32_MAX);
				continue;
			}
			cr_assert_eq(g.t[p][g.ev[i][w]], m[i].t[w]);
			for (uint32_t i2 = i; i2 < N && i2 < i + 60; i2++)
				for (unsigned w2 = 0; w2 < MT_CLOCK_WHEN_COUNT; w2++) {
					uint32_t p2 = w2 < MT_CLOCK_RECV_POST ?
						m[i2].send_proc : m[i2].recv_proc;

					if ((i2 == i && w2 <= w) || p2 != p ||
					    m[i2].t[w2] != m[i].t[w])
						continue;
					cr_assert_lt(g.ev[i][w], g.ev[i2][w2],
						     "tie between message %u.%u and %u.%u", i, w, i2, w2);
				}
		}
	mt_clock_graph_free(&g);
}

Test(clock, random_graphs_keep_the_invariants)
{
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct graph g;
		uint64_t rng = seed;
		int64_t truth[MAXP][MAXE];

		clc_setup(&g);
		g.o.slope = 0.05;
		for (uint32_t p = 0; p < MAXP; p++) {
			int64_t now = (int64_t)(lcg(&rng) % 100), off = (int64_t)(lcg(&rng) % 4000) - 2000;
			char host[2] = { (char)('a' + p % 3), 0 };	/* procs 0 and 3 share */
			int64_t t[MAXE];

			for (int j = 0; j < MAXE; j++) {
				now += 1 + (int64_t)(lcg(&rng) % 500);
				truth[p][j] = now;
				t[j] = now + (p % 3 ? off : 0);
			}
			proc(&g, p, host, MAXE, t);
		}
		for (int k = 0; k < 12; k++) {
			uint32_t sp = (uint32_t)(lcg(&rng) % MAXP), rp = (uint32_t)(lcg(&rng) % MAXP);
			uint64_t se = lcg(&rng) % MAXE, re = lcg(&rng) % MAXE;

			if (truth[sp][se] < truth[rp][re] && (sp != rp || se < re))
				msg(&g, sp, se, rp, re);
		}
		cr_assert_eq(correct(&g, MT_CLOCK_MODE_CLC), MT_OK, "seed %llu: %s",
			     (unsigned long long)seed, g.err.msg);
		cr_expect_eq(g.res.cycles_broken, 0, "seed %llu", (unsigned long long)seed);
		cr_expect_eq(g.res.viol_after, 0, "seed %llu", (unsigned long long)seed);
		for (uint64_t i = 0; i < g.nm; i++) {
			const struct mt_clock_msg *m = &g.msgs[i];
			int64_t lmin = 0;

			for (uint32_t k = 0; k < g.res.nlinks; k++)
				if (g.res.links[k].from == g.res.proc_domain[m->send_proc] &&
				    g.res.links[k].to == g.res.proc_domain[m->recv_proc])
					lmin = g.res.links[k].lmin_ns;
			cr_expect_geq(g.out[m->recv_proc][m->recv_ev] -
				      g.out[m->send_proc][m->send_ev], lmin,
				      "seed %llu message %llu", (unsigned long long)seed,
				      (unsigned long long)i);
		}
		for (uint32_t p = 0; p < g.np; p++)
			for (uint64_t j = 1; j < g.n[p]; j++)
				cr_expect_gt(g.out[p][j], g.out[p][j - 1], "seed %llu process %u event %llu",
					     (unsigned long long)seed, p, (unsigned long long)j);
		mt_clock_result_free(&g.res);
	}
}

static struct mt_match_msg mmsg(int32_t from, int32_t to, uint64_t sp,
				uint64_t sd, uint64_t rp, uint64_t rd)
{
	return (struct mt_match_msg){
		.send_rank = from, .recv_rank = to, .send_ep = -1, .recv_ep = -1,
		.t_send_post = sp, .t_send_done = sd, .t_recv_post = rp,
		.t_recv_done = rd };
}

/* The matcher's messages corrected in place: rank 1's clock is 1000 ns
 * ahead, messages take 100 ns both ways; a message from an unknown rank
 * keeps its times. */
Test(clock, matcher_messages_corrected_in_place)
{
	struct mt_match_msg m[] = {
		mmsg(0, 1, 0, 10, 1050, 1100),
		mmsg(1, 0, 2300, 2310, 1350, 1400),
		mmsg(0, 1, 3000, 3010, 4050, 4100),
		mmsg(1, 0, 5300, 5310, 4350, 4400),
		mmsg(-1, 1, MT_MATCH_NOTIME, MT_MATCH_NOTIME, 6000, 6100),
	};
	struct mt_clock_proc procs[2] = {
		{ .host = "a", .clock_source = MT_CLOCK_MONOTONIC },
		{ .host = "b", .clock_source = MT_CLOCK_MONOTONIC },
	};
	struct mt_clock_result res;
	struct mt_err err;

	cr_assert_eq(mt_clock_correct_msgs(MT_CLOCK_MODE_LINEAR, NULL, 2, procs,
					   m, 5, &res, &err), MT_OK, "%s", err.msg);
	cr_expect_float_eq(res.domains[1].offset_ns, 1000, 1e-6);
	cr_expect_eq(m[0].t_send_post, 0);
	cr_expect_eq(m[0].t_recv_done, 100);
	cr_expect_eq(m[1].t_send_post, 1300);
	cr_expect_eq(m[1].t_recv_done, 1400);
	cr_expect_eq(m[3].t_send_done, 4310);
	cr_expect_eq(m[4].t_recv_done, 5100, "its receiver's clock is corrected");
	cr_expect_eq(m[4].t_send_post, MT_MATCH_NOTIME);
	mt_clock_result_free(&res);
}

/* got as want, field by field. */
static void expect_same_report(const struct mt_clock_result *got,
			       const struct mt_clock_result *want, uint32_t np)
{
	cr_expect(got->linear_done == want->linear_done && got->clc_done == want->clc_done);
	cr_expect(got->t0 == want->t0 && got->nevents == want->nevents &&
		  got->nmsgs == want->nmsgs, "t0 %lld/%lld events %llu/%llu",
		  (long long)got->t0, (long long)want->t0,
		  (unsigned long long)got->nevents, (unsigned long long)want->nevents);
	cr_expect(got->viol_before == want->viol_before &&
		  got->viol_linear == want->viol_linear && got->viol_after == want->viol_after);
	cr_expect(got->corr_max_ns == want->corr_max_ns &&
		  got->corr_median_ns == want->corr_median_ns &&
		  got->interval_change == want->interval_change &&
		  got->interval_max_change == want->interval_max_change);
	cr_assert_eq(got->ndomains, want->ndomains);
	cr_expect_eq(memcmp(got->domains, want->domains,
			    got->ndomains * sizeof(*got->domains)), 0, "domains");
	cr_expect_eq(memcmp(got->proc_domain, want->proc_domain,
			    np * sizeof(*got->proc_domain)), 0);
	cr_assert_eq(got->nlinks, want->nlinks);
	for (uint32_t k = 0; k < got->nlinks; k++)
		cr_expect(got->links[k].from == want->links[k].from &&
			  got->links[k].to == want->links[k].to &&
			  got->links[k].msgs == want->links[k].msgs &&
			  got->links[k].lmin_ns == want->links[k].lmin_ns &&
			  got->links[k].src == want->links[k].src, "link %u", k);
}

/* mt_clock_correct_times on m against the event graph and mt_clock_correct
 * on a copy: the same report, and the same times after. */
static void expect_times_as_graph(enum mt_clock_mode mode, uint32_t np,
				  const struct mt_clock_proc *procs,
				  struct mt_clock_times *m, uint64_t n)
{
	struct mt_clock_times *copy = malloc(n * sizeof(*copy));
	struct mt_clock_proc pr[8];
	int64_t *out[8];
	struct mt_clock_result want, got;
	struct mt_clock_graph g;
	struct mt_err err;

	cr_assert(copy && np <= 8);
	memcpy(copy, m, n * sizeof(*m));
	cr_assert_eq(mt_clock_graph_build(np, copy, n, &g, &err), MT_OK, "%s", err.msg);
	for (uint32_t p = 0; p < np; p++) {
		pr[p] = procs[p];
		pr[p].nevents = g.nevents[p];
		pr[p].t = g.t[p];
		out[p] = malloc((g.nevents[p] + 1) * sizeof(**out));
	}
	cr_assert_eq(mt_clock_correct(mode, NULL, np, pr, g.nmsgs, g.msgs, out,
				      &want, &err), MT_OK, "%s", err.msg);
	mt_clock_graph_apply(&g, out, copy, n);
	cr_assert_eq(mt_clock_correct_times(mode, NULL, np, procs, m, n, &got, &err),
		     MT_OK, "%s", err.msg);
	cr_expect_eq(memcmp(copy, m, n * sizeof(*m)), 0, "corrected times");
	expect_same_report(&got, &want, np);
	for (uint32_t p = 0; p < np; p++)
		free(out[p]);
	mt_clock_graph_free(&g);
	mt_clock_result_free(&want);
	mt_clock_result_free(&got);
	free(copy);
}

/* np processes on host "a", one clock. */
static void one_clock(struct mt_clock_proc *procs, uint32_t np)
{
	for (uint32_t p = 0; p < np; p++)
		procs[p] = (struct mt_clock_proc){ .host = "a",
						   .clock_source = MT_CLOCK_MONOTONIC };
}

/* n messages among np processes, one started every step ns (90% of it at
 * random), received 200 to 5200 ns later, or, with quantum, 1 to 4
 * quanta later; some without a send time, a sender or a receive post. */
static void random_times(struct mt_clock_times *m, uint32_t n, uint32_t np,
			 uint64_t seed, int64_t step, int64_t quantum)
{
	for (uint32_t i = 0; i < n; i++) {
		int64_t t0 = (int64_t)i * step + (int64_t)(lcg(&seed) % (uint64_t)(step * 9 / 10));

		m[i] = (struct mt_clock_times){
			(uint32_t)(lcg(&seed) % np), (uint32_t)(lcg(&seed) % np),
			{ t0, t0 + 5, t0 - (int64_t)(lcg(&seed) % 300),
			  quantum ? t0 + quantum * (int64_t)(1 + lcg(&seed) % 4) :
			  t0 + 200 + (int64_t)(lcg(&seed) % 5000) } };
		if (i % 11 == 0)
			m[i].t[MT_CLOCK_SEND_POST] = MT_CLOCK_NOTIME;
		if (i % 13 == 0)
			m[i].send_proc = MT_CLOCK_NOPROC;
		if (i % 17 == 0)
			m[i].t[MT_CLOCK_RECV_POST] = MT_CLOCK_NOTIME;
	}
}

/* While no time moves (none; auto on one clock where every receive comes
 * after its send), the stage runs on the messages' own times without the
 * event graph: its report must be the graph's, entries with an unknown
 * time or process included. Where times move (a receive before its send;
 * a second host) it takes the graph's way and gives its result. */
Test(clock, times_at_rest_report_as_the_graph)
{
	enum { N = 3000, NP = 6 };
	static struct mt_clock_times m[N];
	struct mt_clock_proc procs[NP];

	one_clock(procs, NP);
	random_times(m, N, NP, 777, 100, 0);
	expect_times_as_graph(MT_CLOCK_MODE_AUTO, NP, procs, m, N);
	expect_times_as_graph(MT_CLOCK_MODE_NONE, NP, procs, m, N);
	m[5].t[MT_CLOCK_RECV_DONE] = m[5].t[MT_CLOCK_SEND_POST] - 1000;
	expect_times_as_graph(MT_CLOCK_MODE_AUTO, NP, procs, m, N);
	m[5].t[MT_CLOCK_RECV_DONE] = m[5].t[MT_CLOCK_SEND_POST] + 1000;
	procs[3].host = "b";
	expect_times_as_graph(MT_CLOCK_MODE_AUTO, NP, procs, m, N);
}

/* The stage at rest gathered message by message, in batches of uneven
 * sizes: mt_clock_correct_times's report, field by field. */
static void expect_rest_as_times(const struct mt_clock_proc *procs, uint32_t np,
				 const struct mt_clock_times *m, uint64_t n)
{
	struct mt_clock_times *copy = malloc(n * sizeof(*copy));
	struct mt_clock_result want, got;
	struct mt_clock_rest *r;
	struct mt_err err;

	cr_assert(copy);
	memcpy(copy, m, n * sizeof(*m));
	cr_assert_eq(mt_clock_correct_times(MT_CLOCK_MODE_AUTO, NULL, np, procs,
					    copy, n, &want, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(mt_clock_rest_new(MT_CLOCK_MODE_AUTO, NULL, np, procs, &r), MT_OK);
	for (uint64_t i = 0, k = 1; i < n; i += k, k = k * 7 % 61 + 1)
		mt_clock_rest_add(r, &m[i], i + k < n ? k : n - i);
	cr_assert_eq(mt_clock_rest_finish(r, &got, &err), MT_OK, "%s", err.msg);
	cr_expect_eq(got.mode, want.mode);
	expect_same_report(&got, &want, np);
	mt_clock_rest_free(r);
	mt_clock_result_free(&want);
	mt_clock_result_free(&got);
	free(copy);
}

/* Delays in steps of 100 ns make equal estimates in many pairs: the
 * agreement keeps the first pair met, which the gathered stage must know
 * from the order pairs first appear in. Where times move, or could, the
 * gathered stage says MT_END and the caller runs the whole one. */
Test(clock, rest_gathered_reports_as_the_times)
{
	enum { N = 4000, NP = 7 };
	static struct mt_clock_times m[N];
	struct mt_clock_proc procs[NP];
	struct mt_clock_result res;
	struct mt_clock_rest *r;
	struct mt_err err;

	one_clock(procs, NP);
	random_times(m, N, NP, 4242, 1000, 100);
	expect_rest_as_times(procs, NP, m, N);
	expect_rest_as_times(procs, NP, m, 1);
	expect_rest_as_times(procs, NP, m, 0);

	m[N - 1].t[MT_CLOCK_RECV_DONE] = m[N - 1].t[MT_CLOCK_SEND_POST];
	cr_assert_eq(mt_clock_rest_new(MT_CLOCK_MODE_AUTO, NULL, NP, procs, &r), MT_OK);
	mt_clock_rest_add(r, m, N);
	cr_expect_eq(mt_clock_rest_finish(r, &res, &err), MT_END,
		     "a receive at its send's time moves times");
	mt_clock_rest_free(r);

	cr_expect_eq(mt_clock_rest_new(MT_CLOCK_MODE_LINEAR, NULL, NP, procs, &r), MT_END);
	cr_expect_null(r);
	procs[3].host = "b";
	cr_expect_eq(mt_clock_rest_new(MT_CLOCK_MODE_AUTO, NULL, NP, procs, &r), MT_END,
		     "two declared domains");
	cr_expect_null(r);
}
