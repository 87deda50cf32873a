/*
 * test_report.c - the report's user / internal split: a message is internal
 * by its tag (the layout's internal tags) or by its kind (Ssend ACKs,
 * untagged protocol), so a collective's synchronous send counts as internal
 * and a user's MPI_Ssend as user.
 */
#include <criterion/criterion.h>

#include "report.h"

static struct mt_match_msg msg(uint8_t kind, int32_t tag, int internal)
{
	return (struct mt_match_msg){
		.send_rank = 0, .recv_rank = 1, .status = MT_MATCH_ST_MATCHED,
		.f = { .cid = 0, .comm_src = 0, .tag = tag, .kind = kind,
		       .internal = (uint8_t)internal, .has_tag = 1 },
		.bytes = 8, .t_send_post = 10, .t_send_done = 20,
		.t_recv_post = 5, .t_recv_done = 30 };
}

Test(report, user_and_internal_by_tag_and_kind)
{
	struct mt_run run = { .nranks = 2, .t0_ns = 0, .t1_ns = 100 };
	struct mt_match_msg b[] = {
		msg(MT_MATCH_USER, 7, 0),
		msg(MT_MATCH_SSEND, 7, 0),	/* MPI_Ssend */
		msg(MT_MATCH_SSEND, -16, 1),	/* a barrier's synchronous send */
		msg(MT_MATCH_SSEND_ACK, 7, 0),
		msg(MT_MATCH_COLL, -27, 1),
		msg(MT_MATCH_UNTAGGED, 0, 0),
	};
	struct report r;

	cr_assert_eq(report_init(&r, &run), 0);
	report_add(&r, b, sizeof(b) / sizeof(b[0]));
	cr_expect_eq(r.pair[1].msgs[REPORT_USER], 2);
	cr_expect_eq(r.pair[1].msgs[REPORT_INTERNAL], 4);
	cr_expect_eq(r.kind[MT_MATCH_SSEND], 2);
	report_fini(&r);
}

/* MPICH between ranks of one host: its shared memory carries the messages,
 * libfabric sees only MPI_ANY_SOURCE receives, cancelled once shared memory
 * delivered, or still pending. One send anywhere: nothing bypassed. */
Test(report, receives_without_any_send_bypassed_the_fabric)
{
	struct mt_run run = { .nranks = 2, .t0_ns = 0, .t1_ns = 100 };
	struct mt_match_msg b[2] = { msg(MT_MATCH_USER, 7, 0), msg(MT_MATCH_USER, 8, 0) };
	struct mt_match_pending p = { .op = { .dir = MT_MATCH_DIR_RECV } };
	struct mt_match_summary s = { .n_pending = 1, .pending = &p };
	struct report r;

	for (int i = 0; i < 2; i++) {
		b[i].t_send_post = b[i].t_send_done = MT_MATCH_NOTIME;
		b[i].status = MT_MATCH_ST_CANCELLED;
	}
	cr_assert_eq(report_init(&r, &run), 0);
	report_add(&r, b, 2);
	cr_expect_eq(report_bypassed(&r, &s), 3);
	p.op.dir = MT_MATCH_DIR_SEND;
	cr_expect_eq(report_bypassed(&r, &s), 0, "a pending send reached the fabric");
	p.op.dir = MT_MATCH_DIR_RECV;
	struct mt_match_msg sent = msg(MT_MATCH_USER, 9, 0);
	report_add(&r, &sent, 1);
	cr_expect_eq(report_bypassed(&r, &s), 0, "a send reached the fabric");
	report_fini(&r);
}
