/*
 * Layout detection on synthetic evidence: the operations each MPI library
 * issues under each layout, built with mt_tag_encode / mt_tag_encode_recv.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "mt_decode.h"
#include "params.h"

/* The endpoint Open MPI gets from tcp;ofi_rxm on this machine. */
static void rxm_ep(struct mt_tag_evidence *ev)
{
	mt_tag_evidence_set_ep(ev, 8, true, 0xaaaaaaaaaaaaaaaaull);
}

/* What a rank does: sends (some Ssend), receives of all four wildcard
 * kinds, a probe, the ACK receives of its Ssends. */
static void traffic_am(struct mt_tag_evidence *ev, enum mt_tag_layout_id id,
		       bool sends, bool recvs, bool am)
{
	struct mt_tag_layout l;
	cr_assert_eq(mt_tag_layout_get(id, 0, &l), MT_OK);
	for (int i = 0; i < 40; i++) {
		struct mt_tag_fields f = {
			.cid = (mt_comm_t)(i % 4), .source = i % 3,
			.tag = i % 7 == 0 ? -16 : i,
			/* One rendezvous data message in MPICH's AM space. */
			.proto = i % 5 == 0 ? MT_PROTO_SSEND :
				 i == 11 && am && l.am ? MT_PROTO_AM : MT_PROTO_NORMAL,
			.valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG | MT_V_PROTO };
		struct mt_tag_filter flt = { .f = f, .any_source = i & 1,
					     .any_tag = i & 2, .kind = MT_RECV_PLAIN };
		struct mt_tag_wire w;

		if (l.internal == MT_INT_ODD_CID && f.tag < 0)
			flt.f.tag = f.tag = 1;		/* MPICH tags are >= 0 */
		if (sends) {
			cr_assert_eq(mt_tag_encode(&l, &f, &w), MT_OK);
			mt_tag_evidence_add_send(ev, w.has_data, w.tag, w.data);
		}
		if (!recvs)
			continue;
		cr_assert_eq(mt_tag_encode_recv(&l, &flt, &w), MT_OK);
		mt_tag_evidence_add_recv(ev, w.tag, w.ignore,
					 (w.directed ? MT_TAG_RECV_DIRECTED : 0) |
					 (i % 6 == 0 ? MT_TAG_RECV_PEEK : 0));
		if (f.proto == MT_PROTO_SSEND) {
			flt.kind = MT_RECV_SSEND_ACK;
			flt.any_source = flt.any_tag = false;
			cr_assert_eq(mt_tag_encode_recv(&l, &flt, &w), MT_OK);
			mt_tag_evidence_add_recv(ev, w.tag, w.ignore,
						 w.directed ? MT_TAG_RECV_DIRECTED : 0);
		}
	}
}

/* With an AM send where the layout has that tag space: MPICH 4.3 and 5.0
 * differ only there. */
static void traffic(struct mt_tag_evidence *ev, enum mt_tag_layout_id id,
		    bool sends, bool recvs)
{
	traffic_am(ev, id, sends, recvs, true);
}

/* The evidence of kind k about layout l (RAW: any), or NULL. */
static const struct mt_tag_evidence_item *
has_item(const struct mt_tag_detect_result *r, enum mt_tag_evidence_kind k,
	 enum mt_tag_layout_id l)
{
	for (unsigned i = 0; i < r->n_items; i++)
		if (r->item[i].kind == k &&
		    (l == MT_TAG_LAYOUT_RAW || r->item[i].layout == l))
			return &r->item[i];
	return NULL;
}

ParameterizedTestParameters(decode, detect_each_layout)
{
	return all_mpi_layouts();
}

ParameterizedTest(enum mt_tag_layout_id *id, decode, detect_each_layout)
{
	struct mt_tag_evidence ev;
	struct mt_tag_detect_result r;

	mt_tag_evidence_init(&ev);
	rxm_ep(&ev);
	traffic(&ev, *id, true, true);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_eq(r.layout, *id, "expected %s, got %s", mt_tag_layout_name(*id),
		     mt_tag_layout_name(r.layout));
	cr_expect_eq(r.confidence, MT_CONF_HIGH);
	cr_expect(has_item(&r, MT_TAG_EV_ONLY, *id));
}

/* MPICH 4.3 and 5.0 put fields, SYNC, ACK, DYNPROC and the receive mask in
 * the same bits: without AM traffic both explain a run and decode it
 * identically, so the newest is named with high confidence, both listed. */
Test(decode, detect_mpich_43_50_same_decoding)
{
	static const enum mt_tag_layout_id ids[][2] = {
		{ MT_TAG_LAYOUT_MPICH43_DATA, MT_TAG_LAYOUT_MPICH50_DATA },
		{ MT_TAG_LAYOUT_MPICH43_NODATA, MT_TAG_LAYOUT_MPICH50_NODATA },
	};
	for (size_t k = 0; k < 2; k++)
		for (size_t j = 0; j < 2; j++) {
			struct mt_tag_evidence ev;
			struct mt_tag_detect_result r;
			const struct mt_tag_evidence_item *it;

			mt_tag_evidence_init(&ev);
			rxm_ep(&ev);
			traffic_am(&ev, ids[k][j], true, true, false);
			mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
			cr_expect_eq(r.layout, ids[k][1], "got %s",
				     mt_tag_layout_name(r.layout));
			cr_expect_eq(r.confidence, MT_CONF_HIGH);
			it = has_item(&r, MT_TAG_EV_SAME, ids[k][1]);
			cr_assert(it, "decode them identically");
			cr_expect(it->cand & (UINT64_C(1) << ids[k][0]));
		}
}

Test(decode, detect_too_little_evidence)
{
	struct mt_tag_evidence ev;
	struct mt_tag_detect_result r;

	mt_tag_evidence_init(&ev);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_eq(r.layout, MT_TAG_LAYOUT_RAW);
	cr_expect_eq(r.confidence, MT_CONF_NONE);
	cr_expect(has_item(&r, MT_TAG_EV_NO_OPS, MT_TAG_LAYOUT_RAW));

	/* tag_1 sends alone fit tag_2 and MPICH without CQ data as well. */
	mt_tag_evidence_init(&ev);
	rxm_ep(&ev);
	traffic(&ev, MT_TAG_LAYOUT_OMPI_TAG1, true, false);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_eq(r.confidence, MT_CONF_NONE);
	cr_expect_eq(r.layout, MT_TAG_LAYOUT_RAW);
	const struct mt_tag_evidence_item *it =
		has_item(&r, MT_TAG_EV_UNDECIDED, MT_TAG_LAYOUT_RAW);

	cr_assert(it);
	cr_expect(it->cand & (UINT64_C(1) << MT_TAG_LAYOUT_OMPI_TAG1));
	cr_expect(!(it->cand & (UINT64_C(1) << MT_TAG_LAYOUT_OMPI_FULL)));
	it = has_item(&r, MT_TAG_EV_RULED_OP, MT_TAG_LAYOUT_OMPI_FULL);
	cr_assert(it);
	cr_expect_eq(it->v[0], 1, "ruled out by a send");
}

/* Sends with CQ data alone: ofi_tag_full or MPICH with data. The endpoint
 * attributes make Open MPI's auto choice the guess, flagged as such. */
Test(decode, detect_guess_is_flagged)
{
	struct mt_tag_evidence ev;
	struct mt_tag_detect_result r;

	mt_tag_evidence_init(&ev);
	rxm_ep(&ev);
	traffic(&ev, MT_TAG_LAYOUT_OMPI_FULL, true, false);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_eq(r.layout, MT_TAG_LAYOUT_OMPI_FULL);
	cr_expect_eq(r.confidence, MT_CONF_LOW);
	cr_expect(has_item(&r, MT_TAG_EV_GUESS_FULL, MT_TAG_LAYOUT_OMPI_FULL));

	/* Receives only: one layout left, but only one kind of evidence. */
	mt_tag_evidence_init(&ev);
	traffic(&ev, MT_TAG_LAYOUT_OMPI_TAG2, false, true);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_eq(r.layout, MT_TAG_LAYOUT_OMPI_TAG2);
	cr_expect_eq(r.confidence, MT_CONF_MEDIUM);
}

Test(decode, detect_override_wins)
{
	struct mt_tag_evidence ev;
	struct mt_tag_detect_result r;

	mt_tag_evidence_init(&ev);
	rxm_ep(&ev);
	traffic(&ev, MT_TAG_LAYOUT_OMPI_TAG2, true, true);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_OMPI_TAG1, &r);
	cr_expect_eq(r.layout, MT_TAG_LAYOUT_OMPI_TAG1);
	cr_expect_eq(r.confidence, MT_CONF_OVERRIDE);
	const struct mt_tag_evidence_item *it =
		has_item(&r, MT_TAG_EV_OVERRIDE, MT_TAG_LAYOUT_OMPI_TAG1);

	cr_assert(it);
	cr_expect_eq(it->layout2, MT_TAG_LAYOUT_OMPI_TAG2);
	cr_expect_eq(it->v[0], MT_CONF_HIGH);
}

Test(decode, detect_endpoint_rules_out)
{
	struct mt_tag_evidence ev;
	struct mt_tag_detect_result r;

	/* No CQ data on the endpoint: ofi_tag_full impossible. */
	mt_tag_evidence_init(&ev);
	mt_tag_evidence_set_ep(&ev, 0, true, 0);
	traffic(&ev, MT_TAG_LAYOUT_OMPI_FULL, true, true);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_neq(r.layout, MT_TAG_LAYOUT_OMPI_FULL);
	const struct mt_tag_evidence_item *it =
		has_item(&r, MT_TAG_EV_RULED_CQ_DATA, MT_TAG_LAYOUT_OMPI_FULL);

	cr_assert(it);
	cr_expect_eq(it->v[0], 0, "cq_data_size 0");

	/* mem_tag_format leaving ofi_tag_1 four cid bits: Open MPI would not
	 * have started in that mode. */
	mt_tag_evidence_init(&ev);
	mt_tag_evidence_set_ep(&ev, 8, true, 0x00ffffffffffffffull);
	traffic(&ev, MT_TAG_LAYOUT_OMPI_TAG1, true, true);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_neq(r.layout, MT_TAG_LAYOUT_OMPI_TAG1);
	cr_expect(has_item(&r, MT_TAG_EV_RULED_MTF, MT_TAG_LAYOUT_OMPI_TAG1));
}

/* One foreign operation rules every layout out: the best one is reported
 * with low confidence and the count of what it does not explain. */
Test(decode, detect_noise)
{
	struct mt_tag_evidence ev;
	struct mt_tag_detect_result r;

	mt_tag_evidence_init(&ev);
	rxm_ep(&ev);
	traffic(&ev, MT_TAG_LAYOUT_OMPI_TAG1, true, true);
	mt_tag_evidence_add_recv(&ev, 0, 0x1, 0);
	mt_tag_detect(&ev, MT_TAG_LAYOUT_NONE, &r);
	cr_expect_eq(r.layout, MT_TAG_LAYOUT_OMPI_TAG1);
	cr_expect_eq(r.confidence, MT_CONF_LOW);
	const struct mt_tag_evidence_item *it =
		has_item(&r, MT_TAG_EV_BEST, MT_TAG_LAYOUT_OMPI_TAG1);

	cr_assert(it);
	cr_expect_eq(it->v[0], 1);
}
