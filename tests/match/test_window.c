/*
 * test_window.c - matching traces that are windows (ring mode): each
 * process's trace starts at its oldest kept record, so a partner, or an
 * operation's own post, may lie before it. Such operations count as before
 * the window: never unmatched, orphans or pending, and the pairing after
 * them stays aligned.
 */
#include <criterion/criterion.h>
#include <string.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "match_fixture.h"

TestSuite(window, .init = fx_setup, .fini = fx_teardown);

static struct mt_match_msg out[64];

#define RECV_FLAGS (FI_TAGGED | FI_RECV)

/* Endpoints a and b (-1: none) are windows starting at a_start, b_start. */
static void windows_at(int a, uint64_t a_start, int b, uint64_t b_start)
{
	if (a >= 0)
		cr_assert_eq(mt_match_ep_window(m, a, a_start), MT_OK);
	if (b >= 0)
		cr_assert_eq(mt_match_ep_window(m, b, b_start), MT_OK);
}

/* Windows whose start is not known. */
static void windows(int a, int b)
{
	windows_at(a, 0, b, 0);
}

/* A receive completion whose post was overwritten. */
static void recv_cqe(int ep, uint64_t ctx, uint64_t ts, uint64_t tag,
		     uint64_t src, int err)
{
	struct mt_match_cqe c = fx_cqe_tmpl(ep, ctx, ts, tag, 4, src, err);

	c.flags = RECV_FLAGS;
	fx_cqe_op(&c);
}

static void expect_all_matched(size_t n, size_t before)
{
	const struct mt_match_summary *s;

	cr_assert_eq(fx_finish(out, 64), n);
	for (size_t i = 0; i < n; i++)
		cr_expect_eq(out[i].status, MT_MATCH_ST_MATCHED, "message %zu: %s", i,
			     mt_match_status_str(out[i].status));
	s = mt_match_summary(m);
	cr_expect_eq(s->before_window, before);
	cr_expect_eq(s->n_pending, 0);
	cr_expect_eq(s->warn[MT_MATCH_W_ORPHAN_CQE].count, 0);
	cr_expect_eq(s->warn[MT_MATCH_W_SEND_NO_RECV].count, 0);
	cr_expect_eq(s->warn[MT_MATCH_W_RECV_NO_SEND].count, 0);
	cr_expect_eq(s->warn[MT_MATCH_W_RECV_BEFORE_SEND].count, 0);
}

/* A ping-pong whose receiver's window starts after it posted the receive
 * for the first message in the sender's window: the completion takes that
 * message, and the next pair with their own. (The ring run of the issue:
 * before, every later pong paired with the one after it and the last was
 * left as a send never received.) */
Test(window, receive_posted_before_the_receivers_window)
{
	uint64_t t = fx_tag(0, 6);

	windows(0, 1);
	fx_send(1, 0, t, 4, 0, 10);		/* in 1's window */
	recv_cqe(0, 0xb, 12, t, 1, 0);		/* 0's post: before its window */
	for (uint64_t k = 1; k <= 3; k++) {
		fx_recv(0, 1, t, SYNC_BIT, 4, 0xb, 10 * k + 5);
		fx_send(1, 0, t, 4, 0, 10 * k + 10);
		recv_cqe(0, 0xb, 10 * k + 12, t, 1, 0);
	}
	expect_all_matched(4, 1);
	cr_expect_eq(out[0].t_send_post, 10);
	cr_expect_eq(out[0].t_recv_done, 12);
	cr_expect_eq(out[3].t_send_post, 40);
}

/* The receiver's window starts after the sender's: the sends of the
 * sender's first records were received before it, by receives overwritten
 * with their completions, but one still in flight (its receive completed
 * in the window). That one pairs with the completion, and the ping-pong
 * after it with its own sends. (A ring run on a loaded machine: every later
 * message paired with a send 15 before its own, and the last 15 sends were
 * left as never received.) */
static void inject(int ep, int dst, uint64_t tag, uint64_t ts)
{
	struct mt_match_op op = fx_send_tmpl(ep, dst, tag, 4, 0, ts);

	op.inject = 1;			/* completes at post (fi_tinjectdata) */
	op.flags = 0;
	fx_send_op(&op);
}

Test(window, sends_received_before_the_receivers_window)
{
	uint64_t t = fx_tag(0, 5);

	windows_at(0, 10, 1, 100);
	for (uint64_t k = 1; k <= 9; k++)
		inject(0, 1, t, 10 * k);		/* received before 100 */
	inject(0, 1, t, 95);
	recv_cqe(1, 0xb, 101, t, 0, 0);		/* its post: before 1's window */
	for (uint64_t k = 1; k <= 3; k++) {
		fx_recv(1, 0, t, SYNC_BIT, 4, 0xb, 100 + 10 * k);
		inject(0, 1, t, 102 + 10 * k);
		recv_cqe(1, 0xb, 104 + 10 * k, t, 0, 0);
	}
	expect_all_matched(4, 10);	/* 9 sends, the completion's post */
	cr_expect_eq(out[0].t_send_post, 95);
	cr_expect_eq(out[0].t_recv_done, 101);
	for (int i = 1; i < 4; i++)
		cr_expect_eq(out[i].t_recv_done, out[i].t_send_post + 2);
}

/* Decodes a completion as the fixture's layout does (cfg.fields). */
static void lazy_fields(const void *arg, const struct mt_match_cqe *c,
			struct mt_match_fields *f)
{
	(void)arg;
	*f = fx_cqe_tmpl(c->ep, 0, 0, c->tag, c->len, c->data, 0).f;
}

/* With completion fields decoded when needed (cfg.fields, as the pipeline
 * runs it), a completion whose post lies before the window is posted as
 * its own fields say, not from its unset f (msgtrace-mpi's OTF2 export of
 * a ring trace showed those bytes: another kind, cid and tag). */
Test(window, post_made_from_a_completion_decodes_it)
{
	struct mt_match_cfg cfg = {
		.loose_mask = SYNC_BIT, .ack_mask = ACK_BIT,
		.field_mask = { [MT_MATCH_F_CID] = 0xfffffffc00000000ull,
				[MT_MATCH_F_PROTO] = 0x300000000ull,
				[MT_MATCH_F_TAG] = 0xffffffffull },
		.check = 1, .fields = lazy_fields,
	};
	uint64_t t = fx_tag(0, 6);
	struct mt_match_cqe c = fx_cqe_tmpl(0, 0xb, 12, t, 4, 1, 0);

	mt_match_free(m);
	cr_assert_eq(mt_match_new(&cfg, &m), MT_OK);
	for (int i = 0; i < N_EP; i++)
		cr_assert_eq(mt_match_add_ep(m, i, i, i), MT_OK);
	windows(0, 1);
	fx_send(1, 0, t, 4, 0, 10);
	c.flags = RECV_FLAGS;
	c.data = 1;
	memset(&c.f, 0xab, sizeof(c.f));	/* unset: cfg.fields decodes */
	fx_cqe_op(&c);
	expect_all_matched(1, 1);
	cr_expect_eq(out[0].recv_f.kind, MT_MATCH_USER);
	cr_expect_eq(out[0].recv_f.cid, 0);
	cr_expect_eq(out[0].recv_f.comm_src, 1);
	cr_expect_eq(out[0].recv_f.tag, 6);
}

/* The sender's window starts after the send of a message the receiver took
 * in its window: that receive is before the window, and the next receive
 * pairs with the first send the sender kept. */
Test(window, send_before_the_senders_window)
{
	uint64_t t = fx_tag(0, 5);

	windows(0, 1);
	fx_recv(1, 0, t, SYNC_BIT, 4, 0xb, 5);
	recv_cqe(1, 0xb, 6, t, 0, 0);		/* its send: before 0's window */
	for (uint64_t k = 1; k <= 3; k++) {
		fx_recv(1, 0, t, SYNC_BIT, 4, 0xb, 10 * k);
		fx_send(0, 1, t, 4, 0, 10 * k + 2);
		recv_cqe(1, 0xb, 10 * k + 4, t, 0, 0);
	}
	expect_all_matched(3, 1);
	for (int i = 0; i < 3; i++)
		cr_expect_eq(out[i].t_recv_done, out[i].t_send_post + 2);
}

/* MPI_ANY_SOURCE: a wildcard receive that took rank 2's message sent before
 * rank 2's window; the next wildcard receive takes rank 1's kept send. */
Test(window, wildcard_receive_partner_before_the_window)
{
	uint64_t t = fx_tag(0, 7);

	windows(1, 2);
	fx_recv(0, -1, t, SYNC_BIT, 4, 0xb, 5);
	recv_cqe(0, 0xb, 6, t, 2, 0);
	fx_recv(0, -1, t, SYNC_BIT, 4, 0xb, 7);
	fx_send(1, 0, t, 4, 0, 8);
	recv_cqe(0, 0xb, 9, t, 1, 0);
	expect_all_matched(1, 1);
	cr_expect_eq(out[0].send_rank, 1);
}

/* An MPI_Ssend whose ACK receive was posted before the sender's window:
 * the ACK's completion takes the ACK its receiver sent. */
Test(window, ssend_ack_posted_before_the_window)
{
	uint64_t t = fx_tag(4, 8);
	struct mt_match_op ack = fx_send_tmpl(1, 0, t | ACK_BIT, 0, 0, 40);
	struct mt_match_cqe c = fx_cqe_tmpl(0, 0xac, 50, t | ACK_BIT, 0, 0, 0);

	windows(0, -1);
	ack.flags = 0;
	ack.src_id = MT_MATCH_NOSRC;
	fx_send_op(&ack);
	c.src_id = MT_MATCH_NOSRC;
	c.src_ep = 1;			/* fi_cq_readfrom: an ACK has no source */
	c.flags = RECV_FLAGS;
	fx_cqe_op(&c);
	expect_all_matched(1, 1);
	cr_expect_eq(out[0].f.kind, MT_MATCH_SSEND_ACK);
}

/* A receive cancelled in the window, posted before it: neither an orphan
 * nor a message. */
Test(window, cancel_of_a_receive_posted_before_the_window)
{
	windows(0, -1);
	recv_cqe(0, 0xb, 12, fx_tag(0, 3), 1, FI_ECANCELED);
	expect_all_matched(0, 1);
}

/* Without a window, the same completion is an orphan, as before. */
Test(window, no_window_keeps_the_orphan_warning)
{
	recv_cqe(0, 0xb, 12, fx_tag(0, 3), 1, 0);
	cr_assert_eq(fx_finish(out, 64), 0);
	cr_expect_eq(mt_match_summary(m)->warn[MT_MATCH_W_ORPHAN_CQE].count, 1);
	cr_expect_eq(mt_match_summary(m)->before_window, 0);
}
