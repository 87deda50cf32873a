/*
 * test_match_patterns.c - the traffic patterns whose matching must neither
 * slow down nor hold messages: long-lived posted receives, wildcard
 * servers (MPI_ANY_SOURCE, MPI_ANY_TAG) with completions out of posting
 * order, a deep unexpected queue, many cancellations, probes and claims.
 * Each test knows which receive the provider gave every message (the
 * receive's post time) and that messages come out while the traffic flows,
 * not at the end: a finished message waits for nothing posted before it
 * that could not have taken it.
 */
#include <criterion/criterion.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "match_fixture.h"

TestSuite(match_patterns, .init = fx_setup, .fini = fx_teardown);

#define LATE_TAG 999
#define BUF (1u << 20)	/* receive buffers: ids fit */

static struct mt_match_msg out[4096];

/* One message from ep s to ep d (id = its length), received by the receive
 * posted at rts (its context), completed at ts. */
static void deliver(int s, int d, uint64_t tag, uint64_t id, uint64_t rts,
		    uint64_t ts)
{
	fx_send(s, d, tag, id, 0, ts);	/* context 0: completes below */
	fx_cqe(s, 0, ts + 1, 0, 0, 0, 0);
	fx_cqe(d, rts, ts + 2, tag, id, (uint64_t)s, 0);
}

static void expect(const struct mt_match_msg *msg, uint64_t id, uint64_t rts)
{
	cr_assert_eq(msg->status, MT_MATCH_ST_MATCHED, "message %llu: %s",
		     (unsigned long long)id, mt_match_status_str(msg->status));
	cr_assert_eq(msg->bytes, id);
	cr_assert_eq(msg->t_recv_post, rts, "message %llu went to the receive "
		     "posted at %llu, the provider gave it to %llu",
		     (unsigned long long)id, (unsigned long long)msg->t_recv_post,
		     (unsigned long long)rts);
}

/* 100 MPI_ANY_SOURCE receives of tag 999 stay posted through 2000
 * ping-pongs: every ping-pong message comes out at once (the matcher held
 * them all to the end once more than 64 receives were posted ahead). */
Test(match_patterns, long_lived_receives_hold_nothing)
{
	uint64_t late = fx_tag(1, LATE_TAG), pp = fx_tag(1, 1), t = 1000, id = 0;

	for (uint64_t k = 0; k < 100; k++)
		fx_recv(0, -1, late, SYNC_BIT, BUF, 10 + k, 10 + k);
	for (int i = 0; i < 2000; i++) {
		for (int dir = 0; dir < 2; dir++, t += 10) {
			int d = dir ? 0 : 1;

			fx_recv(d, 1 - d, pp, SYNC_BIT, BUF, t, t);
			deliver(1 - d, d, pp, ++id, t, t + 1);
			cr_assert_eq(fx_drain(out, 4096), 1, "ping-pong message %llu "
				     "held back", (unsigned long long)id);
			expect(&out[0], id, t);
		}
	}
	/* The late messages satisfy the preposted receives in posting order. */
	for (uint64_t k = 0; k < 100; k++, t += 10) {
		deliver(1, 0, late, ++id, 10 + k, t);
		cr_assert_eq(fx_drain(out, 4096), 1);
		expect(&out[0], id, 10 + k);
	}
	cr_assert_eq(fx_finish(out, 4096), 0);
}

/* A server keeps 200 wildcard receives posted; the provider gives each
 * message to the oldest, completions come back in reverse within windows
 * of 8 (the oldest last: nothing comes out before it), and each completion
 * reposts one receive. */
static void server(uint64_t ignore, int any_tag)
{
	static uint64_t rts[200 + 2000];	/* receive k's post time */
	uint64_t posted = 0, t = 1000;

	for (; posted < 200; posted++, t += 10) {
		rts[posted] = t;
		fx_recv(0, -1, fx_tag(1, 7), ignore, BUF, t, t);
	}
	for (uint64_t first = 0; first < 2000; first += 8) {
		for (uint64_t k = first; k < first + 8; k++, t += 10) {
			int s = 1 + (int)(k % 3);

			fx_send(s, 0, fx_tag(1, any_tag ? (int32_t)(k % 5) : 7), k + 1,
				0, t);
			fx_cqe(s, 0, t + 1, 0, 0, 0, 0);
		}
		for (uint64_t k = first + 8; k-- > first; t += 10)
			fx_cqe(0, rts[k], t, fx_tag(1, any_tag ? (int32_t)(k % 5) : 7),
			       k + 1, 1 + k % 3, 0);
		cr_assert_eq(fx_drain(out, 4096), 8, "window at %llu",
			     (unsigned long long)first);
		for (uint64_t j = 0; j < 8; j++)	/* in posting order */
			expect(&out[j], first + j + 1, rts[first + j]);
		for (int j = 0; j < 8; j++, posted++, t += 10) {
			rts[posted] = t;
			fx_recv(0, -1, fx_tag(1, 7), ignore, BUF, t, t);
		}
	}
	cr_assert_eq(fx_finish(out, 4096), 0);
}

Test(match_patterns, any_source_server)
{
	server(SYNC_BIT, 0);
}

Test(match_patterns, any_source_any_tag_server)
{
	server(SYNC_BIT | ANY_TAG_IGNORE, 1);
}

/* 20,000 sends wait unexpected at their receiver before any receive is
 * posted; the receives then take them in order, one out per receive. */
Test(match_patterns, deep_unexpected_queue)
{
	uint64_t t = 1000;

	for (uint64_t k = 0; k < 20000; k++, t += 10) {
		fx_send(1 + (int)(k % 3), 0, fx_tag(1, (int32_t)(k % 7)), k + 1, 0, t);
		fx_cqe(1 + (int)(k % 3), 0, t + 1, 0, 0, 0, 0);
	}
	cr_assert_eq(fx_drain(out, 4096), 0);
	for (uint64_t k = 0; k < 20000; k++, t += 10) {
		int s = 1 + (int)(k % 3);

		fx_recv(0, s, fx_tag(1, (int32_t)(k % 7)), SYNC_BIT, BUF, t, t);
		fx_cqe(0, t, t + 5, fx_tag(1, (int32_t)(k % 7)), k + 1, (uint64_t)s, 0);
		cr_assert_eq(fx_drain(out, 4096), 1);
		expect(&out[0], k + 1, t);
	}
	cr_assert_eq(fx_finish(out, 4096), 0);
}

/* Every process keeps 100 receives (tag 998) posted and, with every
 * message, cancels the oldest and reposts one; unsent sends are cancelled
 * out of a deep queue too. Messages flow meanwhile. */
Test(match_patterns, many_cancellations)
{
	uint64_t spare = fx_tag(1, 998), t = 100000, oldest = 1000, id = 0;
	uint64_t next = 1000;
	size_t cancelled = 0;

	for (int k = 0; k < 100; k++, next += 10)
		fx_recv(0, -1, spare, SYNC_BIT, BUF, next, next);
	for (int k = 0; k < 500; k++)	/* sends nobody will receive */
		fx_send(2, 3, fx_tag(1, 5), 100000 + (uint64_t)k, 50000 + (uint64_t)k, 500 + (uint64_t)k);
	for (int i = 0; i < 2000; i++, t += 100) {
		fx_recv(0, 1, fx_tag(1, 1), SYNC_BIT, BUF, t, t);
		deliver(1, 0, fx_tag(1, 1), ++id, t, t + 1);
		fx_cqe(0, oldest, t + 10, spare, 0, 0, FI_ECANCELED);
		oldest += 10;
		fx_recv(0, -1, spare, SYNC_BIT, BUF, next, t + 20);
		next += 10;
		if (i < 500)	/* the most recent unsent send first */
			fx_cqe(2, 50000 + 499 - (uint64_t)i, t + 30, 0, 0, 0, FI_ECANCELED);
		size_t n = fx_drain(out, 4096), matched = 0;

		for (size_t j = 0; j < n; j++) {
			if (out[j].status == MT_MATCH_ST_CANCELLED) {
				cancelled++;
				continue;
			}
			expect(&out[j], id, t);
			matched++;
		}
		cr_assert_eq(matched, 1, "message %llu held back", (unsigned long long)id);
	}
	cr_assert_eq(cancelled, 2000 + 500);
	cr_assert_eq(mt_match_summary(m)->by_status[MT_MATCH_ST_CANCELLED], 2500);
	/* The 100 spare receives still posted are pending, not messages. */
	cr_assert_eq(fx_finish(out, 4096), 0);
}

/* Every message found by a probe first; every other one claimed by it
 * (MPI_Mprobe + MPI_Mrecv), the rest received by a receive after the probe
 * (MPI_Iprobe + MPI_Recv), while 100 wildcard receives of another tag stay
 * posted. */
Test(match_patterns, probes_and_claims)
{
	uint64_t t = 100000, tag = fx_tag(1, 3);

	for (uint64_t k = 0; k < 100; k++)
		fx_recv(0, -1, fx_tag(1, LATE_TAG), SYNC_BIT, BUF, 10 + k, 10 + k);
	for (uint64_t i = 0; i < 2000; i++, t += 100) {
		struct mt_match_op probe = fx_recv_tmpl(0, 1, tag, SYNC_BIT, 0, t + 1, t + 1);

		fx_send(1, 0, tag, i + 1, 0, t);
		fx_cqe(1, 0, t + 2, 0, 0, 0, 0);
		probe.flags = FI_PEEK | ((i & 1) ? FI_CLAIM : 0);
		fx_send_op(&probe);	/* posts it, whatever its direction */
		fx_cqe(0, t + 1, t + 3, tag, i + 1, 1, 0);
		if (i & 1) {
			struct mt_match_op claim = fx_recv_tmpl(0, 1, tag, SYNC_BIT, BUF,
								t + 1, t + 4);

			claim.flags = FI_CLAIM;
			fx_send_op(&claim);
			fx_cqe(0, t + 1, t + 5, tag, i + 1, 1, 0);
			cr_assert_eq(fx_drain(out, 4096), 1);
			cr_assert_eq(out[0].status, MT_MATCH_ST_MATCHED);
			cr_assert_eq(out[0].bytes, i + 1);
			continue;
		}
		fx_recv(0, 1, tag, SYNC_BIT, BUF, t + 4, t + 4);
		fx_cqe(0, t + 4, t + 5, tag, i + 1, 1, 0);
		cr_assert_eq(fx_drain(out, 4096), 1);
		expect(&out[0], i + 1, t + 4);
	}
	const struct mt_match_summary *s = mt_match_summary(m);

	cr_assert_eq(s->probes, 2000);
	cr_assert_eq(s->probe_hits, 2000);
	cr_assert_eq(s->claims, 1000);
	cr_assert_eq(fx_finish(out, 4096), 0);
}
