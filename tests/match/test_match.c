/*
 * test_match.c - the matcher's pairing and matching rules on hand-built
 * operation streams (ofi_tag_full layout, see match_fixture.h).
 */
#include <criterion/criterion.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include "match_fixture.h"

TestSuite(match, .init = fx_setup, .fini = fx_teardown);

static struct mt_match_msg out[64];

Test(match, send_then_receive)
{
	uint64_t t = fx_tag(0, 7);

	fx_recv(1, 0, t, SYNC_BIT, 100, 0xb0, 10);
	fx_send(0, 1, t, 64, 0xa0, 20);
	fx_cqe(0, 0xa0, 25, 0, 0, 0, 0);
	cr_assert_eq(fx_drain(out, 64), 0, "no message before the receive completes");
	fx_cqe(1, 0xb0, 30, t, 64, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 1);
	cr_assert_eq(out[0].status, MT_MATCH_ST_MATCHED);
	cr_assert_eq(out[0].send_rank, 0);
	cr_assert_eq(out[0].recv_rank, 1);
	cr_assert_eq(out[0].f.tag, 7);
	cr_assert_eq(out[0].bytes, 64);
	cr_assert_eq(out[0].recv_buf, 100);
	cr_assert_eq(out[0].t_send_post, 20);
	cr_assert_eq(out[0].t_send_done, 25);
	cr_assert_eq(out[0].t_recv_post, 10);
	cr_assert_eq(out[0].t_recv_done, 30);
}

Test(match, context_reuse)
{
	uint64_t t = fx_tag(0, 1);

	/* One context for every op: completions pair in posting order. */
	for (uint64_t i = 0; i < 3; i++) {
		fx_send(0, 1, t, 10 + i, 0xc, 100 * i);
		fx_recv(1, 0, t, SYNC_BIT, 64, 0xc, 100 * i + 1);
	}
	for (uint64_t i = 0; i < 3; i++) {
		fx_cqe(0, 0xc, 100 * i + 50, 0, 0, 0, 0);
		fx_cqe(1, 0xc, 100 * i + 60, t, 10 + i, 0, 0);
	}
	cr_assert_eq(fx_finish(out, 64), 3);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(out[i].status, MT_MATCH_ST_MATCHED);
		cr_assert_eq(out[i].bytes, 10 + (uint64_t)i);
		cr_assert_eq(out[i].t_send_done, 100 * (uint64_t)i + 50);
		cr_assert_eq(out[i].t_recv_post, 100 * (uint64_t)i + 1);
	}
}

Test(match, inject_completes_at_post)
{
	uint64_t t = fx_tag(3, 2);
	struct mt_match_op s = fx_send_tmpl(0, 1, t, 8, 0, 5);

	s.inject = 1;
	fx_send_op(&s);
	fx_recv(1, 0, t, SYNC_BIT, 8, 0xb, 6);
	fx_cqe(1, 0xb, 9, t, 8, 0, 0);
	cr_assert_eq(fx_drain(out, 64), 1, "nothing left to wait for");
	cr_assert_eq(out[0].t_send_done, 5);
	cr_assert_eq(fx_finish(out, 64), 0);
	cr_assert_eq(mt_match_summary(m)->n_pending, 0);
}

Test(match, selective_completion)
{
	uint64_t t = fx_tag(0, 4);
	struct mt_match_op quiet = fx_send_tmpl(0, 1, t, 8, 0xa, 5);
	struct mt_match_op loud = fx_send_tmpl(0, 1, t, 9, 0xa, 6);

	quiet.flags = 0;	/* no FI_COMPLETION under selective completion */
	fx_send_op(&quiet);
	fx_send_op(&loud);
	fx_recv(1, 0, t, SYNC_BIT, 64, 0xb, 7);
	fx_recv(1, 0, t, SYNC_BIT, 64, 0xb, 8);
	fx_cqe(1, 0xb, 10, t, 8, 0, 0);
	fx_cqe(1, 0xb, 11, t, 9, 0, 0);
	cr_assert_eq(fx_drain(out, 64), 1, "the loud send still waits for its CQE");
	cr_assert_eq(out[0].bytes, 8);
	cr_assert_eq(out[0].t_send_done, 5);
	fx_cqe(0, 0xa, 12, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 1);
	cr_assert_eq(out[0].t_send_done, 12);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_ORPHAN_CQE].count, 0);
}

Test(match, truncation_error_names_the_send)
{
	uint64_t t = fx_tag(0, 9);
	struct mt_match_cqe c = fx_cqe_tmpl(1, 0xb, 30, t, 16, 0, FI_ETRUNC);

	c.olen = 48;
	fx_recv(1, 0, t, SYNC_BIT, 16, 0xb, 10);
	fx_send(0, 1, t, 64, 0xa, 20);
	fx_cqe(0, 0xa, 25, 0, 0, 0, 0);
	fx_cqe_op(&c);
	cr_assert_eq(fx_finish(out, 64), 1);
	cr_assert_eq(out[0].status, MT_MATCH_ST_TRUNCATED);
	cr_assert_eq(out[0].bytes, 64);
	cr_assert_eq(out[0].recv_buf, 16);
	const struct mt_match_warn *w = &mt_match_summary(m)->warn[MT_MATCH_W_TRUNCATED];

	cr_assert_eq(w->count, 1);
	cr_assert_eq(w->example[0].send_rank, 0);
	cr_assert_eq(w->example[0].t_send_post, 20);
}

Test(match, truncation_by_length)
{
	uint64_t t = fx_tag(0, 9);

	fx_recv(1, 0, t, SYNC_BIT, 16, 0xb, 10);
	fx_send(0, 1, t, 17, 0xa, 20);
	fx_cqe(0, 0xa, 25, 0, 0, 0, 0);
	fx_cqe(1, 0xb, 30, t, 17, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 1);
	cr_assert_eq(out[0].status, MT_MATCH_ST_TRUNCATED);
}

Test(match, cancelled_receive_never_matches)
{
	uint64_t t = fx_tag(0, 3);

	fx_recv(1, 0, t, SYNC_BIT, 16, 0xb, 10);
	fx_cqe(1, 0xb, 12, 0, 0, 0, FI_ECANCELED);
	fx_send(0, 1, t, 8, 0xa, 20);
	fx_cqe(0, 0xa, 25, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 2);
	cr_assert_eq(out[0].status, MT_MATCH_ST_CANCELLED);
	cr_assert_eq(out[0].recv_rank, 1);
	cr_assert_eq(out[1].status, MT_MATCH_ST_UNMATCHED_SEND);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_SEND_NO_RECV].count, 1);
}

Test(match, probe_miss_is_a_probe)
{
	uint64_t t = fx_tag(0, 3);
	struct mt_match_op p = fx_recv_tmpl(1, 0, t, SYNC_BIT, 0, 0xd, 10);

	p.flags |= FI_PEEK;
	cr_assert_eq(mt_match_post(m, &p), MT_OK);
	fx_cqe(1, 0xd, 11, 0, 0, 0, FI_ENOMSG);
	cr_assert_eq(fx_finish(out, 64), 0);
	cr_assert_eq(mt_match_summary(m)->probes, 1);
	cr_assert_eq(mt_match_summary(m)->probe_misses, 1);
	cr_assert_eq(mt_match_summary(m)->n_pending, 0);
}

Test(match, peek_hit_takes_nothing)
{
	uint64_t t = fx_tag(0, 3);
	struct mt_match_op p = fx_recv_tmpl(1, 0, t, SYNC_BIT, 0, 0xd, 21);

	fx_send(0, 1, t, 8, 0xa, 20);
	p.flags |= FI_PEEK;
	cr_assert_eq(mt_match_post(m, &p), MT_OK);
	fx_cqe(1, 0xd, 22, t, 8, 0, 0);
	fx_recv(1, 0, t, SYNC_BIT, 8, 0xb, 23);
	fx_cqe(1, 0xb, 24, t, 8, 0, 0);
	fx_cqe(0, 0xa, 25, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 1);
	cr_assert_eq(out[0].status, MT_MATCH_ST_MATCHED);
	cr_assert_eq(out[0].t_recv_post, 23);
	cr_assert_eq(mt_match_summary(m)->probe_hits, 1);
}

Test(match, claim_takes_the_claimed_message)
{
	uint64_t t = fx_tag(0, 5);
	struct mt_match_op p = fx_recv_tmpl(1, -1, t, SYNC_BIT, 0, 0xd, 30);
	struct mt_match_op c = fx_recv_tmpl(1, -1, t, SYNC_BIT, 100, 0xd, 40);

	fx_send(0, 1, t, 11, 0xa, 10);
	fx_send(0, 1, t, 22, 0xa, 20);
	p.flags |= FI_PEEK | FI_CLAIM;
	cr_assert_eq(mt_match_post(m, &p), MT_OK);
	fx_cqe(1, 0xd, 31, t, 11, 0, 0);	/* improbe claims the first */
	fx_recv(1, 0, t, SYNC_BIT, 100, 0xb, 32);	/* a later recv: the second */
	fx_cqe(1, 0xb, 33, t, 22, 0, 0);
	c.flags = FI_CLAIM | FI_COMPLETION;
	cr_assert_eq(mt_match_post(m, &c), MT_OK);
	fx_cqe(1, 0xd, 41, t, 11, 0, 0);
	fx_cqe(0, 0xa, 50, 0, 0, 0, 0);
	fx_cqe(0, 0xa, 51, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(out[i].status, MT_MATCH_ST_MATCHED);
		if (out[i].bytes == 11) {
			cr_assert_eq(out[i].t_recv_post, 30, "claimed at the probe");
			cr_assert_eq(out[i].t_recv_done, 41);
			cr_assert_eq(out[i].recv_buf, 100);
		} else {
			cr_assert_eq(out[i].t_recv_post, 32);
		}
	}
	cr_assert_eq(mt_match_summary(m)->claims, 1);
}

Test(match, out_of_order_completion_keeps_posting_order)
{
	uint64_t t = fx_tag(0, 1);

	fx_recv(1, 0, t, SYNC_BIT, 1 << 20, 0xb1, 10);	/* large, first */
	fx_recv(1, 0, t, SYNC_BIT, 16, 0xb2, 11);
	fx_send(0, 1, t, 1 << 20, 0xa1, 20);
	fx_send(0, 1, t, 16, 0xa2, 21);
	fx_cqe(1, 0xb2, 30, t, 16, 0, 0);	/* the small one completes first */
	fx_cqe(0, 0xa2, 31, 0, 0, 0, 0);
	cr_assert_eq(fx_drain(out, 64), 0, "must wait for the earlier receive");
	fx_cqe(1, 0xb1, 40, t, 1 << 20, 0, 0);
	fx_cqe(0, 0xa1, 41, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(out[i].status, MT_MATCH_ST_MATCHED);
		cr_assert_eq(out[i].t_recv_post, out[i].bytes == 16 ? 11 : 10);
	}
}

Test(match, unrelated_pending_receive_blocks_nothing)
{
	uint64_t t = fx_tag(0, 1);

	fx_recv(1, 2, fx_tag(0, 99), SYNC_BIT, 8, 0xb0, 5);	/* never completes */
	fx_recv(1, 0, t, SYNC_BIT, 16, 0xb1, 10);
	fx_send(0, 1, t, 16, 0xa, 20);
	fx_cqe(0, 0xa, 21, 0, 0, 0, 0);
	fx_cqe(1, 0xb1, 22, t, 16, 0, 0);
	cr_assert_eq(fx_drain(out, 64), 1);
	cr_assert_eq(fx_finish(out, 64), 0);
	cr_assert_eq(mt_match_summary(m)->n_pending, 1);
}

Test(match, wildcard_source)
{
	uint64_t t = fx_tag(0, 2);

	fx_recv(3, -1, t, SYNC_BIT | ANY_TAG_IGNORE, 64, 0xb1, 1);
	fx_recv(3, -1, t, SYNC_BIT | ANY_TAG_IGNORE, 64, 0xb2, 2);
	fx_send(1, 3, fx_tag(0, 5), 10, 0xa, 3);
	fx_send(2, 3, t, 20, 0xa, 4);
	fx_cqe(3, 0xb1, 5, fx_tag(0, 5), 10, 1, 0);
	fx_cqe(3, 0xb2, 6, t, 20, 2, 0);
	fx_cqe(1, 0xa, 7, 0, 0, 0, 0);
	fx_cqe(2, 0xa, 8, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 2);
	for (int i = 0; i < 2; i++) {
		cr_assert_eq(out[i].status, MT_MATCH_ST_MATCHED);
		cr_assert_eq(out[i].send_rank, out[i].bytes == 10 ? 1 : 2);
		cr_assert_eq(out[i].t_recv_post, out[i].bytes == 10 ? 1 : 2);
	}
}

/* MPI_Ssend from 0 to 1: ACK receive first, data with SYNC_SEND, the ACK
 * back with fi_tsendmsg(flags 0): no CQ data, no completion. */
static void ssend(int sync_in_cqe)
{
	uint64_t t = fx_tag(4, 8);
	struct mt_match_op ack = fx_send_tmpl(1, 0, t | ACK_BIT, 0, 0, 40);

	fx_recv(0, 1, t | ACK_BIT, 0, 0, 0xac, 10);
	fx_send(0, 1, t | SYNC_BIT, 32, 0xa, 11);
	fx_recv(1, 0, t, SYNC_BIT, 32, 0xb, 20);
	fx_cqe(1, 0xb, 30, sync_in_cqe ? t | SYNC_BIT : t, 32, 0, 0);
	ack.flags = 0;
	ack.src_id = MT_MATCH_NOSRC;
	fx_send_op(&ack);
	struct mt_match_cqe c = fx_cqe_tmpl(0, 0xac, 50, t | ACK_BIT, 0, 0, 0);

	c.src_id = MT_MATCH_NOSRC;
	fx_cqe_op(&c);
	fx_cqe(0, 0xa, 51, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 2);
	for (int i = 0; i < 2; i++) {
		int is_ack = out[i].f.kind == MT_MATCH_SSEND_ACK;

		cr_assert_eq(out[i].status, MT_MATCH_ST_MATCHED, "%s",
			     mt_match_status_str(out[i].status));
		cr_assert_eq(out[i].send_rank, is_ack ? 1 : 0);
		cr_assert(is_ack || out[i].f.kind == MT_MATCH_SSEND);
	}
}

Test(match, ssend_data_and_ack) { ssend(0); }
Test(match, ssend_sync_bit_in_completion) { ssend(1); }

/* Ranks 1 and 2 send the same tag to rank 0 without any source identity
 * (no CQ data, no source field); rank 0's receive completes with 'len'. */
static void two_anonymous_senders(uint64_t len, int32_t readfrom_src)
{
	uint64_t t = fx_tag(0, 1);
	struct mt_match_op s1 = fx_send_tmpl(1, 0, t, 10, 0, 1);
	struct mt_match_op s2 = fx_send_tmpl(2, 0, t, 20, 0, 2);

	s1.src_id = s2.src_id = MT_MATCH_NOSRC;
	s1.inject = s2.inject = 1;
	fx_send_op(&s1);
	fx_send_op(&s2);
	fx_recv(0, -1, t, SYNC_BIT, 64, 0xb, 3);
	struct mt_match_cqe c = fx_cqe_tmpl(0, 0xb, 4, t, len, 0, 0);

	c.src_id = MT_MATCH_NOSRC;
	c.src_ep = readfrom_src;
	fx_cqe_op(&c);
	cr_assert_eq(fx_finish(out, 64), 2);
}

Test(match, ambiguous_without_source)
{
	two_anonymous_senders(10, -1);
	cr_assert_eq(out[0].status, MT_MATCH_ST_AMBIGUOUS);
	cr_assert_eq(out[0].send_rank, 1, "paired by time");
	cr_assert_eq(out[1].status, MT_MATCH_ST_UNMATCHED_SEND);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_AMBIGUOUS].count, 1);
}

Test(match, readfrom_source_resolves_missing_identity)
{
	two_anonymous_senders(20, 2);
	cr_assert_eq(out[0].status, MT_MATCH_ST_MATCHED);
	cr_assert_eq(out[0].send_rank, 2);
}

Test(match, hang_names_the_missing_ack)
{
	uint64_t t = fx_tag(0, 8);
	struct mt_match_op ack = fx_send_tmpl(2, 0, t | ACK_BIT, 0, 0, 40);

	/* Rank 0 Ssends to rank 2 but posts its ACK receive for ep 1. */
	fx_recv(0, 1, t | ACK_BIT, 0, 0, 0xac, 10);
	fx_send(0, 2, t | SYNC_BIT, 4, 0xa, 11);
	fx_recv(2, 0, t, SYNC_BIT, 4, 0xb, 12);
	fx_cqe(2, 0xb, 13, t, 4, 0, 0);
	ack.flags = 0;
	ack.src_id = MT_MATCH_NOSRC;
	fx_send_op(&ack);
	fx_cqe(0, 0xa, 14, 0, 0, 0, 0);
	fx_finish(out, 64);
	const struct mt_match_summary *s = mt_match_summary(m);

	cr_assert_eq(s->n_pending, 1);
	cr_assert_eq(s->pending[0].rank, 0);
	cr_assert_eq(s->pending[0].peer_rank, 1);
	cr_assert_eq(s->pending[0].n_near, 1);
	cr_assert_eq(s->pending[0].near[0].field, MT_MATCH_F_SRC);
	cr_assert(s->pending[0].near[0].addr_only);
	cr_assert_eq(s->pending[0].near[0].send.send_rank, 2);
}

Test(match, hang_names_the_receiver_that_never_acked)
{
	uint64_t t = fx_tag(0, 2);
	struct mt_match_op p = fx_recv_tmpl(1, -1, t, SYNC_BIT, 0, 0xd, 12);
	struct mt_match_op c = fx_recv_tmpl(1, -1, t, SYNC_BIT, 64, 0xd, 14);

	/* Rank 1 takes rank 0's Ssend with MPI_Improbe + MPI_Mrecv and, like
	 * Open MPI 4.1.4, never sends the ACK. */
	fx_recv(0, 1, t | ACK_BIT, 0, 0, 0xac, 10);
	fx_send(0, 1, t | SYNC_BIT, 64, 0xa, 11);
	p.flags |= FI_PEEK | FI_CLAIM;
	cr_assert_eq(mt_match_post(m, &p), MT_OK);
	fx_cqe(1, 0xd, 13, t | SYNC_BIT, 64, 0, 0);
	c.flags = FI_CLAIM | FI_COMPLETION;
	cr_assert_eq(mt_match_post(m, &c), MT_OK);
	fx_cqe(1, 0xd, 15, t | SYNC_BIT, 64, 0, 0);
	fx_cqe(0, 0xa, 16, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 1);
	const struct mt_match_summary *s = mt_match_summary(m);

	cr_assert_eq(s->n_pending, 1);
	cr_assert_eq(s->pending[0].rank, 0);
	cr_assert(s->pending[0].unacked);
	cr_assert(s->pending[0].unacked_claimed);
	cr_assert_eq(s->pending[0].unacked_msg.recv_rank, 1);
	cr_assert_eq(s->pending[0].unacked_msg.f.kind, MT_MATCH_SSEND);
}

Test(match, acked_ssend_owes_nothing)
{
	uint64_t t = fx_tag(0, 2);
	struct mt_match_op ack = fx_send_tmpl(1, 0, t | ACK_BIT, 0, 0, 20);

	fx_recv(0, 1, t | ACK_BIT, 0, 0, 0xac, 10);
	fx_send(0, 1, t | SYNC_BIT, 64, 0xa, 11);
	fx_recv(1, 0, t, SYNC_BIT, 64, 0xb, 12);
	fx_cqe(1, 0xb, 13, t, 64, 0, 0);
	ack.flags = 0;
	ack.src_id = MT_MATCH_NOSRC;
	fx_send_op(&ack);
	fx_finish(out, 64);
	cr_assert_eq(mt_match_summary(m)->n_pending, 1, "the ACK receive still waits");
	cr_assert(!mt_match_summary(m)->pending[0].unacked);
	cr_assert_eq(mt_match_summary(m)->pending[0].n_near, 1);
}

/* Matchers that divide the processes (msgtrace-mpi): the receiver's
 * keeps what rank 0's Ssend is owed; moved to the sender's before its end,
 * the sender's pending ACK receive names the receiver. */
Test(match, owed_ack_moves_to_the_senders_matcher)
{
	uint64_t t = fx_tag(0, 2);
	struct mt_match_owed o[2];

	fx_send(0, 1, t | SYNC_BIT, 64, 0xa, 11);
	fx_recv(1, 0, t, SYNC_BIT, 64, 0xb, 12);
	fx_cqe(1, 0xb, 13, t, 64, 0, 0);
	cr_assert_eq(mt_match_finish_posted(m), MT_OK);
	cr_assert_eq(mt_match_owed_list(m, o, 2), 1);
	cr_assert_eq(o[0].msg.send_ep, 0);
	cr_assert_eq(o[0].msg.recv_ep, 1);
	fx_teardown();
	fx_setup();
	fx_recv(0, 1, t | ACK_BIT, 0, 0, 0xac, 10);
	cr_assert_eq(mt_match_finish_posted(m), MT_OK);
	cr_assert_eq(mt_match_owed_add(m, &o[0]), MT_OK);
	fx_finish(out, 64);
	const struct mt_match_summary *s = mt_match_summary(m);

	cr_assert_eq(s->n_pending, 1);
	cr_assert(s->pending[0].unacked);
	cr_assert(!s->pending[0].unacked_claimed);
	cr_assert_eq(s->pending[0].unacked_msg.recv_rank, 1);
}

/* The ACK's send, matched by the sender's matcher, pays its Ssend in the
 * receiver's, which read it. */
Test(match, ack_read_elsewhere_pays_its_ssend)
{
	uint64_t t = fx_tag(0, 2);
	struct mt_match_op ack = fx_send_tmpl(1, 0, t | ACK_BIT, 0, 0, 20);

	fx_send(0, 1, t | SYNC_BIT, 64, 0xa, 11);
	fx_recv(1, 0, t, SYNC_BIT, 64, 0xb, 12);
	fx_cqe(1, 0xb, 13, t, 64, 0, 0);
	cr_assert_eq(mt_match_owed_list(m, NULL, 0), 1);
	mt_match_ack_elsewhere(m, &ack);
	cr_assert_eq(mt_match_owed_list(m, NULL, 0), 0);
}

/* MPICH without CQ data ("b") posts the ACK receive with source field 0,
 * whatever the ssender's rank: a receiver that never answers must still be
 * named. A source field (here the top 4 bits) is declared; rank 2's Ssend
 * carries 2 there, its ACK receive 0. */
Test(match, unacked_ssend_found_without_ack_source)
{
	struct mt_match_cfg cfg = {
		.loose_mask = SYNC_BIT, .ack_mask = ACK_BIT,
		.field_mask = { [MT_MATCH_F_CID] = 0x0ffffffc00000000ull,
				[MT_MATCH_F_SRC] = 0xf000000000000000ull,
				[MT_MATCH_F_PROTO] = 0x300000000ull,
				[MT_MATCH_F_TAG] = 0xffffffffull },
		.check = 1,
	};
	uint64_t t = fx_tag(0, 5), src2 = 2ull << 60;

	mt_match_free(m);
	cr_assert_eq(mt_match_new(&cfg, &m), MT_OK);
	for (int i = 0; i < N_EP; i++)
		cr_assert_eq(mt_match_add_ep(m, i, i, i), MT_OK);
	fx_recv(2, 1, t | ACK_BIT, 0, 0, 0xac, 10);
	fx_send(2, 1, src2 | t | SYNC_BIT, 64, 0xa, 11);
	fx_recv(1, 2, src2 | t, SYNC_BIT, 64, 0xb, 12);
	fx_cqe(1, 0xb, 13, src2 | t | SYNC_BIT, 64, 2, 0);
	fx_cqe(2, 0xa, 14, 0, 0, 0, 0);
	fx_finish(out, 64);
	const struct mt_match_summary *s = mt_match_summary(m);

	cr_assert_eq(s->n_pending, 1, "the ACK receive waits");
	cr_assert(s->pending[0].unacked, "rank 1 took the Ssend and never answered");
	cr_assert_eq(s->pending[0].unacked_msg.recv_rank, 1);
}

Test(match, near_miss_by_tag_and_cid)
{
	fx_recv(1, 0, fx_tag(3, 5), SYNC_BIT, 8, 0xb, 1);
	fx_recv(1, 0, fx_tag(3, 7), SYNC_BIT, 8, 0xb, 2);
	fx_send(0, 1, fx_tag(3, 6), 8, 0xa, 3);
	fx_send(0, 1, fx_tag(4, 7), 8, 0xa, 4);
	mt_match_close(m, 1, 9);
	fx_finish(out, 64);
	const struct mt_match_summary *s = mt_match_summary(m);

	cr_assert_eq(s->n_pending, 4, "2 receives and the 2 sends never completed");
	for (size_t i = 0; i < s->n_pending; i++) {
		const struct mt_match_pending *p = &s->pending[i];

		if (p->op.dir != MT_MATCH_DIR_RECV)
			continue;
		/* (3,5) is one tag away from (3,6) only; (3,7) is one tag away
		 * from (3,6) and one cid away from (4,7). */
		cr_assert_eq(p->n_near, p->op.ts == 1 ? 1 : 2);
		cr_assert_eq(p->near[0].field, MT_MATCH_F_TAG);
		if (p->n_near == 2)
			cr_assert_eq(p->near[1].field, MT_MATCH_F_CID);
	}
}

Test(match, abandoned_at_close_is_noise)
{
	fx_recv(1, 0, fx_tag(0, 5), SYNC_BIT, 8, 0xb, 1);
	mt_match_close(m, 1, 2);
	fx_recv(2, 0, fx_tag(0, 5), SYNC_BIT, 8, 0xb, 3);	/* never closed */
	fx_finish(out, 64);
	cr_assert_eq(mt_match_summary(m)->n_pending, 1);
	cr_assert_eq(mt_match_summary(m)->pending[0].rank, 2);
	cr_assert_eq(mt_match_summary(m)->abandoned_at_close, 1);
}

Test(match, receive_before_send_warns)
{
	uint64_t t = fx_tag(0, 1);

	fx_recv(1, 0, t, SYNC_BIT, 8, 0xb, 1);
	fx_cqe(1, 0xb, 2, t, 8, 0, 0);
	fx_send(0, 1, t, 8, 0xa, 5);	/* clocks disagree */
	fx_cqe(0, 0xa, 6, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 1);
	cr_assert_eq(out[0].status, MT_MATCH_ST_MATCHED);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_RECV_BEFORE_SEND].count, 1);
}

Test(match, completion_before_post_warns)
{
	uint64_t t = fx_tag(0, 1);

	fx_recv(1, 0, t, SYNC_BIT, 8, 0xb, 5);
	fx_send(0, 1, t, 8, 0xa, 1);
	fx_cqe(0, 0xa, 2, 0, 0, 0, 0);
	fx_cqe(1, 0xb, 4, t, 8, 0, 0);	/* a damaged trace: before its post */
	cr_assert_eq(fx_finish(out, 64), 1);
	cr_assert_eq(out[0].status, MT_MATCH_ST_MATCHED);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_DONE_BEFORE_POST].count, 1);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_RECV_BEFORE_SEND].count, 0);
}

/* Open MPI 5 keeps a 32-byte fi_recv posted for exCID handshakes as long
 * as a communicator without a global index lives: in a killed job it is a
 * standing buffer, not a rank waiting; the user receive is the suspect. */
Test(match, standing_handshake_receive_is_no_hang_suspect)
{
	struct mt_match_op hs = fx_recv_tmpl(1, -1, 0, 0, 32, 0xb1, 3);

	hs.tagged = 0;
	hs.f.kind = MT_MATCH_HANDSHAKE;
	cr_assert_eq(mt_match_post(m, &hs), MT_OK);
	fx_recv(1, 0, fx_tag(0, 7), SYNC_BIT, 8, 0xb2, 4);
	fx_finish(out, 64);
	const struct mt_match_summary *s = mt_match_summary(m);

	cr_assert_eq(s->n_pending, 1);
	cr_expect_eq(s->pending[0].op.context, 0xb2);
	cr_expect_eq(s->abandoned_at_close, 1);
}

/* Untagged fi_send/fi_recv traffic (Open MPI 5's communicator-index
 * handshake) pairs by source apart from the tagged traffic: a tagged send
 * with tag bits 0 does not take an untagged receive. */
Test(match, untagged_messages_pair_apart_from_tagged)
{
	struct mt_match_op s0 = fx_send_tmpl(0, 1, 0, 16, 0xa, 1);
	struct mt_match_op s2 = fx_send_tmpl(2, 1, 0, 24, 0xc, 2);
	struct mt_match_op r1 = fx_recv_tmpl(1, -1, 0, 0, 64, 0xb1, 3);
	struct mt_match_op r2 = fx_recv_tmpl(1, -1, 0, 0, 64, 0xb2, 4);
	struct mt_match_cqe c;

	s0.tagged = s2.tagged = r1.tagged = r2.tagged = 0;
	s0.f.kind = s2.f.kind = r1.f.kind = r2.f.kind = MT_MATCH_UNTAGGED;
	fx_send_op(&s0);
	fx_send_op(&s2);
	fx_send(3, 1, 0, 8, 0xd, 5);	/* tagged, tag bits 0: not theirs */
	cr_assert_eq(mt_match_post(m, &r1), MT_OK);
	cr_assert_eq(mt_match_post(m, &r2), MT_OK);
	c = fx_cqe_tmpl(1, 0xb1, 6, 0, 24, 2, 0);	/* rank 2's arrived first */
	c.f.kind = MT_MATCH_UNTAGGED;
	fx_cqe_op(&c);
	c = fx_cqe_tmpl(1, 0xb2, 7, 0, 16, 0, 0);
	c.f.kind = MT_MATCH_UNTAGGED;
	fx_cqe_op(&c);
	fx_cqe(0, 0xa, 8, 0, 0, 0, 0);
	fx_cqe(2, 0xc, 9, 0, 0, 0, 0);
	fx_cqe(3, 0xd, 10, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 3);
	for (int i = 0; i < 3; i++) {
		if (out[i].send_rank == 3) {
			cr_expect_eq(out[i].status, MT_MATCH_ST_UNMATCHED_SEND);
			continue;
		}
		cr_expect_eq(out[i].status, MT_MATCH_ST_MATCHED);
		cr_expect_eq(out[i].f.kind, MT_MATCH_UNTAGGED);
		cr_expect_eq(out[i].bytes, out[i].send_rank == 0 ? 16u : 24u);
		cr_expect_eq(out[i].t_recv_post, out[i].send_rank == 0 ? 4u : 3u,
			     "rank %d's message went to the receive that got it",
			     out[i].send_rank);
	}
}

Test(match, unmatched_receive_learns_world_rank)
{
	uint64_t t = fx_tag(6, 1);

	/* Rank 2 sends as comm rank 2 of cid 6 (its CQ data says so). */
	fx_recv(1, -1, t, SYNC_BIT | ANY_TAG_IGNORE, 8, 0xb, 1);
	fx_send(2, 1, t, 8, 0xa, 2);
	fx_cqe(2, 0xa, 3, 0, 0, 0, 0);
	/* A receive completing with a tag no send had: its source is known
	 * only as comm rank 2 of cid 6. */
	fx_cqe(1, 0xb, 4, fx_tag(6, 2), 8, 2, 0);
	cr_assert_eq(fx_finish(out, 64), 2);
	for (int i = 0; i < 2; i++)
		if (out[i].status == MT_MATCH_ST_UNMATCHED_RECV)
			cr_assert_eq(out[i].send_rank, 2);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_RECV_NO_SEND].count, 1);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_SEND_NO_RECV].count, 1);
}

Test(match, orphan_completion_is_counted)
{
	fx_cqe(0, 0x99, 1, 0, 0, 0, 0);
	cr_assert_eq(fx_finish(out, 64), 0);
	cr_assert_eq(mt_match_summary(m)->warn[MT_MATCH_W_ORPHAN_CQE].count, 1);
}

/* What is left at the end leaves by post time, not by where its ops lie in
 * the matcher's pool (slots freed by an earlier message are reused last
 * freed first): matchers given some receivers' operations each
 * (msgtrace-mpi) can then put their ends together in one order. */
Test(match, end_leaves_in_post_order)
{
	uint64_t t = fx_tag(0, 5);

	fx_send(0, 1, t, 8, 0xa0, 1);
	fx_recv(1, 0, t, 0, 8, 0xb0, 2);
	fx_cqe(0, 0xa0, 3, 0, 0, 0, 0);
	fx_cqe(1, 0xb0, 4, t, 8, 0, 0);
	for (int i = 1; i <= 3; i++)	/* never received */
		fx_send(0, 1, fx_tag(0, i), 8, 0xc0 + (uint64_t)i, 4 + (uint64_t)i);
	cr_assert_eq(fx_finish(out, 64), 4);
	cr_assert_eq(out[0].status, MT_MATCH_ST_MATCHED);
	for (int i = 1; i <= 3; i++) {
		cr_assert_eq(out[i].status, MT_MATCH_ST_UNMATCHED_SEND);
		cr_assert_eq(out[i].f.tag, i, "message %d left with tag %d", i,
			     out[i].f.tag);
	}
}
