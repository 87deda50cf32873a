/*
 * test_hang.c - the root of a hang (match_hang.c) on hand-built pending
 * operations: cycles, knots, open and idle roots, grouping, and which near
 * misses explain a wait.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "mt_match.h"

#define MAXP 16

static struct mt_match_pending P[MAXP];
static size_t np;

/* A receive on rank posted for `from` (-1: MPI_ANY_SOURCE). */
static struct mt_match_pending *recv_on(int32_t rank, int32_t from,
					uint8_t kind, int32_t tag)
{
	struct mt_match_pending *p = &P[np++];

	memset(p, 0, sizeof(*p));
	p->rank = rank;
	p->peer_rank = from;
	p->op.dir = MT_MATCH_DIR_RECV;
	p->op.ep = rank;
	p->op.peer = from;
	p->op.ts = 100 + np;
	p->op.f = (struct mt_match_fields){ .cid = 0, .comm_src = from, .tag = tag,
		.kind = kind, .internal = tag < 0, .has_tag = 1,
		.any_src = from < 0 };
	return p;
}

static void add_near(struct mt_match_pending *p, int32_t from, int32_t tag,
		     uint8_t field, uint8_t addr_only)
{
	struct mt_match_near *n = &p->near[p->n_near++];

	memset(n, 0, sizeof(*n));
	n->field = field;
	n->addr_only = addr_only;
	n->send.send_rank = from;
	n->send.recv_rank = p->rank;
	n->send.f = (struct mt_match_fields){ .cid = 0, .comm_src = from,
		.tag = tag, .kind = tag < 0 ? MT_MATCH_COLL : MT_MATCH_USER,
		.internal = tag < 0, .has_tag = 1 };
}

/* Ranks 0..nranks-1 traced, in state[r]. */
static struct mt_match_hang *analyse(const uint8_t *state, size_t nranks)
{
	struct mt_match_rank r[MAXP];
	struct mt_match_hang *h;

	for (size_t i = 0; i < nranks; i++)
		r[i] = (struct mt_match_rank){ (int32_t)i, state[i] };
	cr_assert_eq(mt_match_hang_new(P, np, r, nranks, &h), MT_OK);
	return h;
}

static void init(void)
{
	np = 0;
}

TestSuite(hang, .init = init);

/* The 16-rank hang: rank 0 in MPI_Recv from rank 1, which waits for
 * rank 0 in the barrier, where every other rank waits on its parent. */
Test(hang, cycle_with_tree_waiting_on_it)
{
	uint8_t st[16] = { 0 };

	recv_on(0, 1, MT_MATCH_USER, 99);
	recv_on(1, 0, MT_MATCH_COLL, -16);
	for (int r = 2; r < 16; r++)
		recv_on(r, r - (1 << (31 - __builtin_clz((unsigned)r))),
			MT_MATCH_COLL, -16);
	struct mt_match_hang *h = analyse(st, 16);

	cr_assert_eq(h->n_roots, 1);
	cr_assert_eq(h->roots[0].type, MT_MATCH_ROOT_CYCLE);
	cr_assert_eq(h->roots[0].size, 2);
	cr_assert_eq(h->roots[0].waiters, 14);
	cr_assert_eq(h->roots[0].n, 2);
	const struct mt_match_wait *a = &h->waits[h->path[h->roots[0].first]];
	const struct mt_match_wait *b = &h->waits[h->path[h->roots[0].first + 1]];

	cr_assert(a->rank == 0 && a->on == 1 && P[a->pending].op.f.tag == 99);
	cr_assert(b->rank == 1 && b->on == 0 && P[b->pending].op.f.tag == -16);
	cr_assert_eq(h->n_groups, 1, "the tree's waits are alike");
	cr_assert_eq(h->groups[0].n_ranks, 14);
	cr_assert_eq(h->groups[0].ranks[0], 2);
	cr_assert_eq(h->groups[0].ranks[13], 15);
	cr_assert_eq(h->groups[0].n_on, 8, "parents 0-7");
	cr_assert_eq(h->n_explain, 0);
	mt_match_hang_free(h);
}

Test(hang, idle_roots_say_finished_or_untraced)
{
	uint8_t st[3] = { MT_MATCH_RANK_RUNNING, MT_MATCH_RANK_FINISHED,
			  MT_MATCH_RANK_RUNNING };

	recv_on(0, 1, MT_MATCH_USER, 5);
	recv_on(2, 1, MT_MATCH_USER, 5);
	recv_on(2, 7, MT_MATCH_USER, 6);	/* rank 7 is not in the trace */
	struct mt_match_hang *h = analyse(st, 3);

	cr_assert_eq(h->n_roots, 2);
	cr_assert_eq(h->roots[0].type, MT_MATCH_ROOT_IDLE);
	cr_assert_eq(h->roots[0].rank, 1, "most waiters first");
	cr_assert_eq(h->roots[0].waiters, 2);
	cr_assert_eq(h->roots[0].state, MT_MATCH_RANK_FINISHED);
	cr_assert_eq(h->roots[1].rank, 7);
	cr_assert_eq(h->roots[1].state, MT_MATCH_RANK_UNTRACED);
	cr_assert_eq(h->n_groups, 2);
	mt_match_hang_free(h);
}

/* The full buffer: ranks 0 and 1 in a ping-pong when their files
 * filled, so each ends with a receive pending on the other: no cycle, no
 * wait at all. Rank 2, traced to its end, waits on rank 0: rank 0 is the
 * root, and what it did next is unknown, not "has no pending operation". */
Test(hang, trace_ended_early_is_no_wait)
{
	uint8_t st[3] = { MT_MATCH_RANK_ENDED, MT_MATCH_RANK_ENDED,
			  MT_MATCH_RANK_RUNNING };
	struct mt_match_hang *h;

	recv_on(0, 1, MT_MATCH_USER, 5);
	recv_on(1, 0, MT_MATCH_USER, 5);
	h = analyse(st, 2);
	cr_expect_eq(h->n_waits, 0);
	cr_expect_eq(h->n_roots, 0, "a cycle from where two traces ended");
	cr_expect_eq(h->n_groups, 0);
	mt_match_hang_free(h);
	recv_on(2, 0, MT_MATCH_USER, 9);
	h = analyse(st, 3);
	cr_assert_eq(h->n_waits, 1);
	cr_assert_eq(h->n_roots, 1);
	cr_expect_eq(h->roots[0].type, MT_MATCH_ROOT_IDLE);
	cr_expect_eq(h->roots[0].rank, 0);
	cr_expect_eq(h->roots[0].state, MT_MATCH_RANK_ENDED);
	mt_match_hang_free(h);
}

/* A near miss differing only in source explains a wait on a rank that
 * finished, not on one whose trace ended early (it may have sent later). */
Test(hang, ended_rank_explains_no_source_miss)
{
	uint8_t st[3] = { MT_MATCH_RANK_RUNNING, MT_MATCH_RANK_ENDED,
			  MT_MATCH_RANK_FINISHED };
	struct mt_match_pending *a = recv_on(0, 1, MT_MATCH_USER, 5);
	struct mt_match_pending *b = recv_on(0, 2, MT_MATCH_USER, 6);
	struct mt_match_hang *h;

	add_near(a, 2, 5, MT_MATCH_F_SRC, 0);
	add_near(b, 1, 6, MT_MATCH_F_SRC, 0);
	h = analyse(st, 3);
	cr_assert_eq(h->n_explain, 1);
	cr_expect_eq(h->explain[0].pending, 1, "only the wait on finished rank 2");
	mt_match_hang_free(h);
}

Test(hang, wildcard_receive_is_an_open_root)
{
	uint8_t st[4] = { 0 };

	recv_on(0, -1, MT_MATCH_USER, 3);
	for (int r = 1; r < 4; r++)
		recv_on(r, 0, MT_MATCH_COLL, -16);
	struct mt_match_hang *h = analyse(st, 4);

	cr_assert_eq(h->n_roots, 1);
	cr_assert_eq(h->roots[0].type, MT_MATCH_ROOT_OPEN);
	cr_assert_eq(h->roots[0].rank, 0);
	cr_assert_eq(h->roots[0].waiters, 3);
	cr_assert_eq(h->roots[0].n, 1);
	cr_assert(h->waits[h->path[h->roots[0].first]].any);
	mt_match_hang_free(h);
}

/* Ranks 0, 1, 2 all wait on each other: one knot, its shortest cycle
 * through rank 0 named. */
Test(hang, knot_shows_its_shortest_cycle)
{
	uint8_t st[3] = { 0 };

	recv_on(0, 2, MT_MATCH_USER, 1);
	recv_on(1, 0, MT_MATCH_USER, 1);
	recv_on(2, 1, MT_MATCH_USER, 1);
	recv_on(2, 0, MT_MATCH_USER, 2);
	struct mt_match_hang *h = analyse(st, 3);

	cr_assert_eq(h->n_roots, 1);
	cr_assert_eq(h->roots[0].size, 3);
	cr_assert_eq(h->roots[0].n, 2, "0 -> 2 -> 0, not the longer way");
	cr_assert_eq(h->waits[h->path[h->roots[0].first]].on, 2);
	cr_assert_eq(h->waits[h->path[h->roots[0].first + 1]].on, 0);
	cr_assert_eq(h->roots[0].waiters, 0);
	mt_match_hang_free(h);
}

Test(hang, self_wait_and_delivered_send)
{
	uint8_t st[2] = { 0 };
	struct mt_match_pending *s;

	recv_on(0, 0, MT_MATCH_SSEND_ACK, 2);
	s = recv_on(1, 0, MT_MATCH_USER, 4);
	s->op.dir = MT_MATCH_DIR_SEND;
	s->delivered = 1;		/* waits on no one */
	struct mt_match_hang *h = analyse(st, 2);

	cr_assert_eq(h->n_waits, 1);
	cr_assert_eq(h->n_roots, 1);
	cr_assert_eq(h->roots[0].type, MT_MATCH_ROOT_CYCLE);
	cr_assert_eq(h->roots[0].size, 1);
	cr_assert_eq(h->waits[0].why, MT_MATCH_WAIT_SSEND);
	mt_match_hang_free(h);
}

/* The ACK of an Ssend taken and never acknowledged: waits on its taker,
 * not on the receive's (wrong) source. */
Test(hang, unacked_ssend_waits_on_its_receiver)
{
	uint8_t st[3] = { 0 };
	struct mt_match_pending *p = recv_on(0, 2, MT_MATCH_SSEND_ACK, 2);

	p->unacked = 1;
	p->unacked_msg.recv_rank = 1;
	recv_on(1, 0, MT_MATCH_COLL, -16);
	struct mt_match_hang *h = analyse(st, 3);

	cr_assert_eq(h->waits[0].on, 1);
	cr_assert_eq(h->roots[0].size, 2);
	cr_assert_eq(h->n_explain, 1);
	cr_assert_eq(h->explain[0].near, MT_MATCH_NEAR, "the Ssend explains");
	mt_match_hang_free(h);
}

Test(hang, near_misses_that_explain)
{
	uint8_t st[4] = { MT_MATCH_RANK_RUNNING, MT_MATCH_RANK_RUNNING,
			  MT_MATCH_RANK_FINISHED, MT_MATCH_RANK_RUNNING };
	struct mt_match_pending *p;

	/* The sender waited on sent the wrong tag: explains. */
	p = recv_on(0, 1, MT_MATCH_USER, 99);
	add_near(p, 1, 98, MT_MATCH_F_TAG, 0);
	/* A barrier message to a rank still in a user receive: does not. */
	add_near(p, 1, -16, MT_MATCH_F_TAG, 0);
	/* Another barrier peer's message, the waited-on rank running: not
	 * received yet. */
	p = recv_on(1, 3, MT_MATCH_COLL, -16);
	add_near(p, 0, -16, MT_MATCH_F_SRC, 1);
	/* The same, waiting on a rank that finished: explains. */
	p = recv_on(3, 2, MT_MATCH_COLL, -16);
	add_near(p, 0, -16, MT_MATCH_F_SRC, 1);
	struct mt_match_hang *h = analyse(st, 4);

	cr_assert_eq(h->n_explain, 2);
	cr_assert(h->explain[0].pending == 0 && h->explain[0].near == 0);
	cr_assert(h->explain[1].pending == 2 && h->explain[1].near == 0);
	mt_match_hang_free(h);
}

/* 100,000 ranks in one ring: no recursion as deep as the ring. */
Test(hang, long_ring)
{
	size_t n = 100000;
	struct mt_match_pending *ring = calloc(n, sizeof(*ring));
	struct mt_match_hang *h;

	cr_assert(ring);
	for (size_t r = 0; r < n; r++) {
		ring[r].rank = (int32_t)r;
		ring[r].peer_rank = (int32_t)((r + 1) % n);
		ring[r].op.dir = MT_MATCH_DIR_RECV;
		ring[r].op.peer = ring[r].peer_rank;
		ring[r].op.f.comm_src = ring[r].peer_rank;
	}
	cr_assert_eq(mt_match_hang_new(ring, n, NULL, 0, &h), MT_OK);
	cr_assert_eq(h->n_roots, 1);
	cr_assert_eq(h->roots[0].size, n);
	cr_assert_eq(h->roots[0].n, n);
	cr_assert_eq(h->n_groups, 0);
	mt_match_hang_free(h);
	free(ring);
}

/* ofi_tag_1: a source known only as comm rank 0 of cid 0 (MPI_COMM_WORLD)
 * is world rank 0; in another communicator it stays unknown. */
Test(hang, world_comm_rank_is_world_rank)
{
	uint8_t st[3] = { 0 };
	struct mt_match_pending *p = recv_on(1, 0, MT_MATCH_COLL, -16);

	p->peer_rank = -1;
	p->op.peer = -1;
	p->op.addr = UINT64_MAX;
	p = recv_on(2, 0, MT_MATCH_COLL, -16);
	p->peer_rank = -1;
	p->op.peer = -1;
	p->op.addr = UINT64_MAX;
	p->op.f.cid = 3;
	struct mt_match_hang *h = analyse(st, 3);

	cr_assert_eq(h->waits[0].on, 0);
	cr_assert_eq(h->waits[1].on, -1);
	cr_assert_eq(h->waits[1].any, 0, "a named source, only not resolved");
	mt_match_hang_free(h);
}

/* A corrupt trace's ranks are any int32: memory must follow the
 * operations, not the largest rank named. */
Test(hang, huge_ranks)
{
	struct mt_match_rank r[] = { { 5, MT_MATCH_RANK_RUNNING },
				     { INT32_MAX - 1, MT_MATCH_RANK_RUNNING } };
	struct mt_match_hang *h;

	recv_on(5, INT32_MAX, MT_MATCH_USER, 1);
	recv_on(INT32_MAX - 1, 5, MT_MATCH_USER, 1);
	recv_on(INT32_MAX, INT32_MAX - 1, MT_MATCH_USER, 1);
	cr_assert_eq(mt_match_hang_new(P, np, r, 2, &h), MT_OK);
	cr_assert_eq(h->n_roots, 1);
	cr_assert_eq(h->roots[0].size, 3);
	cr_assert_eq(h->roots[0].rank, 5);
	mt_match_hang_free(h);
}
