/*
 * Posted receives: the four wildcard kinds per layout, the masks Open MPI
 * was seen to post, probes and the ssend ACK receive, and the ofi_tag_2
 * aliasing of internal tags below -2^19.
 */
#include <criterion/criterion.h>

#include "mt_decode.h"
#include "params.h"

static struct mt_tag_layout get(enum mt_tag_layout_id id)
{
	struct mt_tag_layout l;
	cr_assert_eq(mt_tag_layout_get(id, 0, &l), MT_OK);
	return l;
}

static struct mt_tag_wire post(const struct mt_tag_layout *l, bool any_src,
			       bool any_tag)
{
	struct mt_tag_filter flt = {
		.f = { .cid = 5, .source = 3, .tag = 42,
		       .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG },
		.any_source = any_src, .any_tag = any_tag, .kind = MT_RECV_PLAIN };
	struct mt_tag_wire w;
	cr_assert_eq(mt_tag_encode_recv(l, &flt, &w), MT_OK);
	return w;
}

/* Does a message tag match a posted receive (libfabric's rule)? */
static bool matches(uint64_t msg, const struct mt_tag_wire *recv)
{
	return !((msg ^ recv->tag) & ~recv->ignore);
}

ParameterizedTestParameters(decode, wildcards)
{
	return all_mpi_layouts();
}

ParameterizedTest(enum mt_tag_layout_id *id, decode, wildcards)
{
	struct mt_tag_layout l = get(*id);
	struct mt_tag_fields sf = { .cid = 5, .source = 3, .tag = 42,
				    .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG };
	struct mt_tag_wire send, other_src, other_tag, sync;

	mt_tag_encode(&l, &sf, &send);
	sf.source = 4;
	mt_tag_encode(&l, &sf, &other_src);
	sf.source = 3;
	sf.tag = 43;
	mt_tag_encode(&l, &sf, &other_tag);
	sf.tag = 42;
	sf.proto = MT_PROTO_SSEND;
	mt_tag_encode(&l, &sf, &sync);

	for (int k = 0; k < 4; k++) {
		bool any_src = k & 1, any_tag = k & 2;
		struct mt_tag_wire w = post(&l, any_src, any_tag);
		struct mt_tag_filter d;
		unsigned in = w.directed ? MT_TAG_RECV_DIRECTED : 0;

		mt_tag_decode_recv(&l, w.tag, w.ignore, in, &d);
		cr_expect_eq(d.any_source, any_src, "%s kind %d", l.name, k);
		cr_expect_eq(d.any_tag, any_tag, "%s kind %d", l.name, k);
		cr_expect_not(d.odd_ignore, "%s kind %d", l.name, k);
		cr_expect_eq(d.kind, MT_RECV_PLAIN);
		cr_expect_eq(d.f.cid, 5);
		cr_expect_eq(d.f.tag, any_tag ? -1 : 42, "%s", l.name);
		if (any_src)
			cr_expect_eq(d.f.source, MT_RANK_ANY);
		else if (l.src_in == MT_SRC_TAG)
			cr_expect_eq(d.f.source, 3);
		/* Receives match Send and Ssend alike. */
		cr_expect(matches(send.tag, &w), "%s kind %d", l.name, k);
		cr_expect(matches(sync.tag, &w), "%s kind %d", l.name, k);
		cr_expect_eq(matches(other_tag.tag, &w), any_tag, "%s kind %d", l.name, k);
		if (l.src_in == MT_SRC_TAG)
			cr_expect_eq(matches(other_src.tag, &w), any_src, "%s", l.name);
		else
			cr_expect_eq(w.directed, !any_src && l.directed_recv == 1);
	}
}

/* The ignore masks seen on this machine (shared/TAG-LAYOUTS.md). */
Test(decode, ompi_seen_ignore_masks)
{
	struct mt_tag_layout f = get(MT_TAG_LAYOUT_OMPI_FULL);
	struct mt_tag_layout t1 = get(MT_TAG_LAYOUT_OMPI_TAG1);
	struct mt_tag_layout t2 = get(MT_TAG_LAYOUT_OMPI_TAG2);

	cr_expect_eq(post(&f, false, false).ignore, 0x100000000ull);
	cr_expect_eq(post(&f, true, false).ignore, 0x100000000ull);
	cr_expect_eq(post(&f, false, true).ignore, 0x17fffffffull);
	cr_expect(post(&f, false, false).directed);
	cr_expect_not(post(&f, true, false).directed);
	cr_expect_eq(post(&t1, true, true).ignore, 0x000ffffd7fffffffull);
	cr_expect_eq(post(&t2, true, true).ignore, 0x000000ffffd7ffffull);
	cr_expect_eq(post(&t1, false, false).ignore, 0x100000000ull);
	cr_expect_eq(post(&t2, false, false).ignore, 0x100000ull);
	cr_expect_not(post(&t1, false, false).directed, "tag_1 never names src_addr");

	/* The top tag bit is never ignored: wildcards skip internal tags. */
	struct mt_tag_fields in = { .cid = 5, .source = 3, .tag = -16,
				    .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG };
	struct mt_tag_wire w, any = post(&t1, true, true);
	mt_tag_encode(&t1, &in, &w);
	cr_expect_not(matches(w.tag, &any));
}

Test(decode, probes_and_ack_receive)
{
	struct mt_tag_layout l = get(MT_TAG_LAYOUT_OMPI_TAG1);
	struct mt_tag_wire w = post(&l, true, false);
	struct mt_tag_filter d;

	mt_tag_decode_recv(&l, w.tag, w.ignore, MT_TAG_RECV_PEEK, &d);
	cr_expect_eq(d.kind, MT_RECV_PROBE);
	cr_expect(d.any_source);
	mt_tag_decode_recv(&l, w.tag, w.ignore, MT_TAG_RECV_PEEK | MT_TAG_RECV_CLAIM, &d);
	cr_expect_eq(d.kind, MT_RECV_MPROBE);
	mt_tag_decode_recv(&l, w.tag, w.ignore, MT_TAG_RECV_CLAIM, &d);
	cr_expect_eq(d.kind, MT_RECV_MRECV);

	/* Ssend ACK receive: the sender's own send tag | ACK, ignore 0. */
	struct mt_tag_filter ack = {
		.f = { .cid = 7, .source = 2, .tag = 9,
		       .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG },
		.kind = MT_RECV_SSEND_ACK };
	cr_assert_eq(mt_tag_encode_recv(&l, &ack, &w), MT_OK);
	cr_expect_eq(w.ignore, 0);
	cr_expect_eq(w.tag, (7ull << 52) | (2ull << 34) | l.ack | 9);
	mt_tag_decode_recv(&l, w.tag, 0, 0, &d);
	cr_expect_eq(d.kind, MT_RECV_SSEND_ACK);
	cr_expect_eq(d.f.source, 2);
	cr_expect_eq(d.f.tag, 9);
	cr_expect_not(d.any_source || d.any_tag);

	/* A mask no Open MPI receive uses. */
	mt_tag_decode_recv(&l, w.tag & ~l.ack, 0x100000001ull, 0, &d);
	cr_expect(d.odd_ignore);
	mt_tag_decode_recv(&l, 0, 0, 0, &d);
	cr_expect(d.odd_ignore, "ignore 0 without the ACK bit");
}

/*
 * ofi_tag_2 keeps 20 tag bits: an internal tag below -2^19 wraps to a value
 * with bit 19 clear, i.e. a user-looking tag that MPI_ANY_TAG matches. The
 * bits cannot tell; the decoder flags it when the caller says this cid's
 * internal tags reached the field's limit.
 */
Test(decode, tag2_internal_tag_aliases_user_tag)
{
	struct mt_tag_layout l = get(MT_TAG_LAYOUT_OMPI_TAG2);
	struct mt_tag_fields in = { .cid = 5, .source = 1, .tag = -524289,
				    .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG };
	struct mt_tag_wire w;
	struct mt_tag_fields d;

	cr_expect_eq(mt_tag_encode(&l, &in, &w), MT_ERR_RANGE);
	cr_expect_eq(w.truncated, MT_V_TAG);
	mt_tag_decode(&l, w.tag, 0, 0, &d);
	cr_expect_eq(d.tag, 524287, "wrapped to MPI_TAG_UB");
	cr_expect_not(d.flags & MT_F_INTERNAL, "looks like a user tag");
	cr_expect_not(d.flags & MT_F_MAYBE_ALIASED, "nothing said it could be");
	mt_tag_decode(&l, w.tag, 0, MT_TAG_IN_TAG_WRAPPED, &d);
	cr_expect(d.flags & MT_F_MAYBE_ALIASED);

	/* MPI_ANY_TAG on that communicator matches it: the hazard. */
	struct mt_tag_filter any = { .f = { .cid = 5, .valid = MT_V_CID },
				     .any_source = true, .any_tag = true };
	struct mt_tag_wire r;
	mt_tag_encode_recv(&l, &any, &r);
	cr_expect(matches(w.tag, &r));
	in.tag = -524288;			/* the last one that does not wrap */
	cr_expect_eq(mt_tag_encode(&l, &in, &w), MT_OK);
	cr_expect_not(matches(w.tag, &r));
	mt_tag_decode(&l, w.tag, 0, MT_TAG_IN_TAG_WRAPPED, &d);
	cr_expect_eq(d.tag, -524288);
	cr_expect(d.flags & MT_F_INTERNAL);
	cr_expect_not(d.flags & MT_F_MAYBE_ALIASED);

	/* 32-bit tag fields do not wrap: never flagged. */
	struct mt_tag_layout l1 = get(MT_TAG_LAYOUT_OMPI_TAG1);
	mt_tag_decode(&l1, 0x7ffff, 0, MT_TAG_IN_TAG_WRAPPED, &d);
	cr_expect_not(d.flags & MT_F_MAYBE_ALIASED);
}

Test(decode, cq_data_source)
{
	struct mt_tag_layout f = get(MT_TAG_LAYOUT_OMPI_FULL);
	struct mt_tag_layout m = get(MT_TAG_LAYOUT_MPICH41_DATA);
	struct mt_tag_fields d;

	mt_tag_decode(&f, 5ull << 34, 17, 0, &d);
	cr_expect_not(d.valid & MT_V_SOURCE, "no data given: no source");
	mt_tag_decode(&f, 5ull << 34, 17, MT_TAG_IN_DATA, &d);
	cr_expect_eq(d.source, 17);
	cr_expect_eq(d.cid, 5);
	/* MPICH: error bits above the 30 source bits. */
	mt_tag_decode(&m, 0, (1ull << 30) | 17, MT_TAG_IN_DATA, &d);
	cr_expect_eq(d.source, 17);
	cr_expect(d.flags & MT_F_DATA_EXTRA);
	/* MPICH collectives use context_id + 1. */
	mt_tag_decode(&m, 3ull << 31, 0, MT_TAG_IN_DATA, &d);
	cr_expect_eq(d.cid, 3);
	cr_expect(d.flags & MT_F_INTERNAL);
	/* Bits outside every field, and a cid over mem_tag_format's limit. */
	struct mt_tag_layout n;
	mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_TAG1, 0x5555555555555555ull, &n);
	mt_tag_decode(&n, 1ull << 63, 0, 0, &d);
	cr_expect(d.flags & MT_F_CID_BEYOND_MTF);
	mt_tag_decode(&m, 1ull << 60, 0, 0, &d);
	cr_expect(d.flags & MT_F_STRAY_BITS);
}
