/*
 * mt_tag_detect_job: a rank that only sent two ofi_tag_2 messages cannot
 * tell ofi_tag_1 from ofi_tag_2 on its own; the job's receivers can.
 */
#include <criterion/criterion.h>

#include "mt_decode.h"

static void ep(struct mt_tag_evidence *ev)
{
	mt_tag_evidence_init(ev);
	mt_tag_evidence_set_ep(ev, 8, true, 0xaaaaaaaaaaaaaaaaull);
}

/* Tag-2 sends of small user tags: their bits fit ofi_tag_1 as well. */
static void sends(struct mt_tag_evidence *ev, const struct mt_tag_layout *l)
{
	for (int t = 1; t <= 2; t++) {
		struct mt_tag_fields f = { .cid = 0, .source = 0, .tag = t,
					   .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG };
		struct mt_tag_wire w;

		cr_assert_eq(mt_tag_encode(l, &f, &w), MT_OK);
		mt_tag_evidence_add_send(ev, w.has_data, w.tag, w.data);
	}
}

/* MPI_ANY_SOURCE/MPI_ANY_TAG receives: the ignore mask names the layout. */
static void recvs(struct mt_tag_evidence *ev, const struct mt_tag_layout *l)
{
	struct mt_tag_filter flt = { .f = { .cid = 0, .valid = MT_V_CID },
				     .any_source = true, .any_tag = true };
	struct mt_tag_wire w;

	cr_assert_eq(mt_tag_encode_recv(l, &flt, &w), MT_OK);
	mt_tag_evidence_add_recv(ev, w.tag, w.ignore, 0);
}

Test(decode, detect_job_adopts_consensus)
{
	struct mt_tag_layout t2, t1;
	struct mt_tag_evidence ev[3];
	struct mt_tag_detect_result res[3];

	mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_TAG2, 0, &t2);
	mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_TAG1, 0, &t1);
	for (int i = 0; i < 3; i++)
		ep(&ev[i]);
	sends(&ev[0], &t2);
	recvs(&ev[1], &t2);
	recvs(&ev[2], &t1);	/* a rank of another layout: undecided stays */
	sends(&ev[2], &t1);
	for (int i = 0; i < 2; i++)
		mt_tag_detect(&ev[i], MT_TAG_LAYOUT_NONE, &res[i]);
	cr_assert_lt(res[0].confidence, MT_CONF_MEDIUM, "the sender alone is undecided");
	cr_assert_eq(res[1].layout, MT_TAG_LAYOUT_OMPI_TAG2);
	cr_assert_geq(res[1].confidence, MT_CONF_MEDIUM);
	mt_tag_detect_job(ev, res, 2);
	cr_expect_eq(res[0].layout, MT_TAG_LAYOUT_OMPI_TAG2);
	cr_expect_eq(res[0].confidence, MT_CONF_MEDIUM);

	/* Decided endpoints that disagree: nothing is adopted. */
	mt_tag_detect(&ev[0], MT_TAG_LAYOUT_NONE, &res[0]);
	mt_tag_detect(&ev[2], MT_TAG_LAYOUT_NONE, &res[2]);
	cr_assert_eq(res[2].layout, MT_TAG_LAYOUT_OMPI_TAG1);
	mt_tag_detect_job(ev, res, 3);
	cr_expect_lt(res[0].confidence, MT_CONF_MEDIUM);
}

/* No endpoint decided: a tag_1 sender (tag_1 or tag_2 or MPICH without CQ
 * data) and a tag_1 receiver of source 0 and one tag (tag_1, or
 * ofi_tag_full with MPI_ANY_SOURCE): only ofi_tag_1 fits both. */
Test(decode, detect_job_intersects_candidates)
{
	struct mt_tag_layout t1;
	struct mt_tag_evidence ev[3];
	struct mt_tag_detect_result res[3];
	struct mt_tag_filter flt = { .f = { .cid = 0, .source = 0, .tag = 1,
					    .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG } };
	struct mt_tag_wire w;

	mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_TAG1, 0, &t1);
	for (int i = 0; i < 3; i++)
		ep(&ev[i]);
	sends(&ev[0], &t1);
	cr_assert_eq(mt_tag_encode_recv(&t1, &flt, &w), MT_OK);
	mt_tag_evidence_add_recv(&ev[1], w.tag, w.ignore, 0);
	for (int i = 0; i < 3; i++)
		mt_tag_detect(&ev[i], MT_TAG_LAYOUT_NONE, &res[i]);
	cr_assert_lt(res[0].confidence, MT_CONF_MEDIUM);
	cr_assert_lt(res[1].confidence, MT_CONF_MEDIUM);
	mt_tag_detect_job(ev, res, 3);
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(res[i].layout, MT_TAG_LAYOUT_OMPI_TAG1, "endpoint %d", i);
		cr_expect_eq(res[i].confidence, MT_CONF_MEDIUM, "endpoint %d", i);
	}
	/* ev[2] saw nothing: no evidence either way, but the job's layout. */
	cr_expect_eq(res[2].layout, MT_TAG_LAYOUT_OMPI_TAG1);
}

/* A rank that only sent with CQ data guesses ofi_tag_full (low: MPICH with
 * data fits too); the job's receivers confirm it: medium, as for a rank
 * that guessed nothing (tags_trunc under Open MPI: rank 2 only sends). */
Test(decode, detect_job_confirms_low_guess)
{
	struct mt_tag_layout full;
	struct mt_tag_evidence ev[2];
	struct mt_tag_detect_result res[2];

	mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_FULL, 0, &full);
	for (int i = 0; i < 2; i++)
		ep(&ev[i]);
	sends(&ev[0], &full);
	sends(&ev[1], &full);
	recvs(&ev[1], &full);
	for (int i = 0; i < 2; i++)
		mt_tag_detect(&ev[i], MT_TAG_LAYOUT_NONE, &res[i]);
	cr_assert_eq(res[0].layout, MT_TAG_LAYOUT_OMPI_FULL);
	cr_assert_eq(res[0].confidence, MT_CONF_LOW);
	cr_assert_eq(res[1].confidence, MT_CONF_HIGH);
	mt_tag_detect_job(ev, res, 2);
	cr_expect_eq(res[0].layout, MT_TAG_LAYOUT_OMPI_FULL);
	cr_expect_eq(res[0].confidence, MT_CONF_MEDIUM);
}
