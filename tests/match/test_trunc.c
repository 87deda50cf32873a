/*
 * mt_match_trunc_cause: the three causes of a truncated receive, told
 * apart by the receive's filter against the send's fields.
 */
#include <criterion/criterion.h>

#include "mt_match.h"

/* A truncated user message on cid 3 from rank 1 with tag 2, received by
 * a receive for (cid 3, source 1, tag 2). */
static struct mt_match_msg msg(void)
{
	struct mt_match_msg m = {
		.f = { .cid = 3, .comm_src = 1, .tag = 2, .kind = MT_MATCH_USER,
		       .has_tag = 1 },
		.recv_f = { .cid = 3, .comm_src = 1, .tag = 2, .kind = MT_MATCH_USER,
			    .has_tag = 1 },
		.status = MT_MATCH_ST_TRUNCATED, .bytes = 512, .recv_buf = 100,
		.t_send_post = 10, .t_recv_post = 5,
	};
	return m;
}

Test(match, trunc_buffer_too_small)
{
	struct mt_match_msg m = msg();
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_BUFFER);
}

Test(match, trunc_wildcard)
{
	struct mt_match_msg m = msg();

	m.recv_f.has_tag = 0;
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_WILDCARD);
	m = msg();
	m.recv_f.any_src = 1;
	m.recv_f.comm_src = -1;
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_WILDCARD);
	cr_expect_str_eq(mt_match_trunc_cause_str(MT_MATCH_TRUNC_WILDCARD),
			 "wildcard receive matched another stream");
}

/* The wire matched but the values differ: a field was cut on the way. */
Test(match, trunc_collision)
{
	struct mt_match_msg m = msg();

	m.f.tag = 2 + (1 << 20);
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_COLLISION);
	m = msg();
	m.f.cid = 3 + 4096;
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_COLLISION);
	/* An internal message under MPI_ANY_TAG: only a wrapped tag does that. */
	m = msg();
	m.f.kind = MT_MATCH_COLL;
	m.f.internal = 1;
	m.f.tag = -27;
	m.recv_f.has_tag = 0;
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_COLLISION);
	/* So does an internal synchronous send (Open MPI's barrier on odd
	 * rank counts): internal by its tag, not its kind. */
	m.f.kind = MT_MATCH_SSEND;
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_COLLISION);
	/* Without the send there is nothing to compare. */
	m.t_send_post = MT_MATCH_NOTIME;
	cr_expect_eq(mt_match_trunc_cause(&m), MT_MATCH_TRUNC_WILDCARD);
}
