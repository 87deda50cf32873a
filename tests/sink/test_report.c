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

	cr_assert_eq(mt_sink_report_init(&r, &run), 0);
	mt_sink_report_add(&r, b, sizeof(b) / sizeof(b[0]));
	cr_expect_eq(r.pair[1].msgs[REPORT_USER], 2);
	cr_expect_eq(r.pair[1].msgs[REPORT_INTERNAL], 4);
	cr_expect_eq(r.kind[MT_MATCH_SSEND], 2);
	mt_sink_report_fini(&r);
}
