/*
 * The constants of shared/TAG-LAYOUTS.md, one by one, against the table.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "mt_decode.h"

static struct mt_tag_layout get(enum mt_tag_layout_id id, uint64_t mtf)
{
	struct mt_tag_layout l;
	cr_assert_eq(mt_tag_layout_get(id, mtf, &l), MT_OK);
	return l;
}

/* The Open MPI table of TAG-LAYOUTS.md, column by column. */
Test(decode, ompi_constants)
{
	static const struct {
		enum mt_tag_layout_id id;
		const char *name;
		uint64_t sync, ack, proto, src, tag, cid_mask, tag_ub, cid_max;
		enum mt_tag_src_in src_in;
	} c[] = {
		{ MT_TAG_LAYOUT_OMPI_FULL, "ofi_tag_full", 0x0000000100000000ull,
		  0x0000000200000000ull, 0x0000000300000000ull, 0,
		  0x00000000FFFFFFFFull, 0xFFFFFFFC00000000ull /* [63..34] */,
		  2147483647, (1ull << 30) - 1, MT_SRC_DATA },
		{ MT_TAG_LAYOUT_OMPI_TAG1, "ofi_tag_1", 0x0000000100000000ull,
		  0x0000000200000000ull, 0x0000000300000000ull, 0x000FFFFC00000000ull,
		  0x00000000FFFFFFFFull, 0xFFF0000000000000ull /* [63..52] */,
		  2147483647, 4095, MT_SRC_TAG },
		{ MT_TAG_LAYOUT_OMPI_TAG2, "ofi_tag_2", 0x0000000000100000ull,
		  0x0000000000200000ull, 0x0000000000300000ull, 0x000000FFFFC00000ull,
		  0x00000000000FFFFFull, 0xFFFFFF0000000000ull /* [63..40] */,
		  524287, 16777215, MT_SRC_TAG },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct mt_tag_layout l = get(c[i].id, 0);
		cr_expect_str_eq(l.name, c[i].name);
		cr_expect_eq(l.sync, c[i].sync, "%s SYNC_SEND", l.name);
		cr_expect_eq(l.ack, c[i].ack, "%s SYNC_SEND_ACK", l.name);
		cr_expect_eq(l.proto_mask, c[i].proto, "%s proto mask", l.name);
		cr_expect_eq(l.src_mask, c[i].src, "%s source mask", l.name);
		cr_expect_eq(l.tag_mask, c[i].tag, "%s tag mask", l.name);
		cr_expect_eq(l.cid_mask, c[i].cid_mask, "%s cid field", l.name);
		cr_expect_eq(l.tag_ub, c[i].tag_ub, "%s MPI_TAG_UB", l.name);
		cr_expect_eq(l.cid_max, c[i].cid_max, "%s max cid", l.name);
		cr_expect_eq(l.src_in, c[i].src_in, "%s source travels", l.name);
		cr_expect_eq(l.internal, MT_INT_NEG_TAG, "%s", l.name);
		cr_expect(l.tag_signed, "%s", l.name);
		if (c[i].src_in == MT_SRC_TAG)
			cr_expect_eq(l.src_max, 262143, "%s", l.name);
	}
}

/* Every leading zero bit of mem_tag_format removes one cid bit. */
Test(decode, mem_tag_format_shrinks_cid)
{
	static const struct { enum mt_tag_layout_id id; unsigned full, net; } c[] = {
		{ MT_TAG_LAYOUT_OMPI_FULL, 30, 29 },
		{ MT_TAG_LAYOUT_OMPI_TAG1, 12, 11 },
		{ MT_TAG_LAYOUT_OMPI_TAG2, 24, 23 },
	};
	for (size_t i = 0; i < 3; i++) {
		struct mt_tag_layout a = get(c[i].id, 0xaaaaaaaaaaaaaaaaull);
		struct mt_tag_layout b = get(c[i].id, 0x5555555555555555ull);
		cr_expect_eq(a.cid_usable_bits, c[i].full);
		cr_expect_eq(a.cid_max, (1ull << c[i].full) - 1);
		cr_expect_eq(b.cid_usable_bits, c[i].net);
		cr_expect_eq(b.cid_max, (1ull << c[i].net) - 1);
		cr_expect_eq(b.cid_mask, a.cid_mask, "fields do not move");
	}
	/* Below 8 cid bits the MTL refuses to start. */
	struct mt_tag_layout l;
	cr_expect_eq(mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_TAG1, 0x000fffffffffffffull, &l),
		     MT_ERR_RANGE);
	cr_expect_eq(l.cid_usable_bits, 0);
	cr_expect_eq(mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_TAG1, 0x00ffffffffffffffull, &l),
		     MT_ERR_RANGE);
	cr_expect_eq(l.cid_usable_bits, 4);
	cr_expect_eq(mt_tag_layout_get(MT_TAG_LAYOUT_OMPI_TAG1, 0x0fffffffffffffffull, &l),
		     MT_OK);
	cr_expect_eq(l.cid_usable_bits, 8);
}

/* MPICH ch4:ofi: from the top protocol, context, source, tag. */
Test(decode, mpich_field_widths)
{
	static const struct {
		enum mt_tag_layout_id id;
		unsigned ctx, src, tag, ack, sync, dynproc, huge;
	} c[] = {
		/* release     ctx src tag  ack sync dynproc huge (bit numbers) */
		{ MT_TAG_LAYOUT_MPICH33_DATA, 20, 0, 31, 51, 52, 53, 0 },
		{ MT_TAG_LAYOUT_MPICH33_NODATA, 16, 23, 19, 58, 59, 60, 0 },
		{ MT_TAG_LAYOUT_MPICH40_DATA, 20, 0, 31, 51, 52, 53, 54 },
		{ MT_TAG_LAYOUT_MPICH40_NODATA, 16, 23, 19, 58, 59, 60, 61 },
		{ MT_TAG_LAYOUT_MPICH41_DATA, 20, 0, 31, 51, 53, 52, 54 },
		{ MT_TAG_LAYOUT_MPICH41_NODATA, 16, 23, 19, 58, 60, 59, 61 },
		{ MT_TAG_LAYOUT_MPICH42_NODATA, 16, 23, 20, 59, 61, 60, 62 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct mt_tag_layout l = get(c[i].id, 0);
		cr_expect_eq(l.cid_bits, c[i].ctx, "%s", l.name);
		cr_expect_eq(l.src_bits, c[i].src, "%s", l.name);
		cr_expect_eq(l.tag_bits, c[i].tag, "%s", l.name);
		cr_expect_eq(l.tag_mask, (1ull << c[i].tag) - 1, "%s", l.name);
		cr_expect_eq(l.src_shift, c[i].src ? c[i].tag : 0, "%s", l.name);
		cr_expect_eq(l.cid_shift, c[i].tag + c[i].src, "%s", l.name);
		/* The protocol bits sit right above the context id. */
		cr_expect_eq(l.ack, 1ull << (c[i].ctx + c[i].src + c[i].tag), "%s", l.name);
		cr_expect_eq(l.ack, 1ull << c[i].ack, "%s", l.name);
		cr_expect_eq(l.sync, 1ull << c[i].sync, "%s", l.name);
		cr_expect_eq(l.dynproc, 1ull << c[i].dynproc, "%s", l.name);
		cr_expect_eq(l.huge, c[i].huge ? 1ull << c[i].huge : 0, "%s", l.name);
		cr_expect_eq(l.src_in, c[i].src ? MT_SRC_TAG : MT_SRC_DATA, "%s", l.name);
		cr_expect_eq(l.internal, MT_INT_ODD_CID, "%s", l.name);
		cr_expect_not(l.tag_signed, "%s", l.name);
	}
	/* Source rank in CQ data: the low 30 bits; error bits above. */
	struct mt_tag_layout l = get(MT_TAG_LAYOUT_MPICH41_DATA, 0);
	cr_expect_eq(l.data_src_bits, 30);
	/* The receive mask: 4.1+ ignores only SYNC and HUGE (ACK and DYNPROC
	 * must match), 3.4-4.0 SYNC, DYNPROC and HUGE, 3.3 SYNC and DYNPROC. */
	cr_expect_eq(l.recv_always_ignored, (1ull << 53) | (1ull << 54));
	l = get(MT_TAG_LAYOUT_MPICH40_DATA, 0);
	cr_expect_eq(l.recv_always_ignored, 7ull << 52);
	l = get(MT_TAG_LAYOUT_MPICH33_NODATA, 0);
	cr_expect_eq(l.recv_always_ignored, 3ull << 59);
}

/* MPICH 4.3 and 5.0 (ofi_types.h of v4.3.2 and v5.0.1): 4.3 ACK 1,
 * DYNPROC 2, GPU_PIPELINE 4, SYNC 8, HUGE 16, RNDV 24 = SYNC|HUGE, AM 32;
 * 5.0 ACK 1, DYNPROC 2, AM 4, SYNC 8, RNDV 16, RNDV_PACK 24 = SYNC|RNDV.
 * Both: receives ignore SYNC and the bit above it (MPIDI_OFI_PROTOCOL_MASK). */
Test(decode, mpich_43_50_protocol_bits)
{
	static const struct {
		enum mt_tag_layout_id id;
		unsigned shift;			/* context + source + tag bits */
		uint64_t ack, dynproc, am, sync, huge, rndv, rndv2; /* _0 values */
	} c[] = {
		{ MT_TAG_LAYOUT_MPICH43_DATA, 51, 1, 2, 32, 8, 16, 24, 24 },
		{ MT_TAG_LAYOUT_MPICH43_NODATA, 58, 1, 2, 32, 8, 16, 24, 24 },
		{ MT_TAG_LAYOUT_MPICH50_DATA, 51, 1, 2, 4, 8, 0, 16, 24 },
		{ MT_TAG_LAYOUT_MPICH50_NODATA, 58, 1, 2, 4, 8, 0, 16, 24 },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct mt_tag_layout l = get(c[i].id, 0);
		unsigned s = c[i].shift;
		struct mt_tag_fields f;

		cr_expect_eq(l.cid_shift + l.cid_bits, s, "%s", l.name);
		cr_expect_eq(l.ack, c[i].ack << s, "%s", l.name);
		cr_expect_eq(l.dynproc, c[i].dynproc << s, "%s", l.name);
		cr_expect_eq(l.am, c[i].am << s, "%s", l.name);
		cr_expect_eq(l.sync, c[i].sync << s, "%s", l.name);
		cr_expect_eq(l.huge, c[i].huge << s, "%s", l.name);
		cr_expect_eq(l.recv_always_ignored, 24ull << s, "%s", l.name);
		static const struct { uint64_t v; enum mt_tag_proto p; } k[] = {
			{ 0, MT_PROTO_NORMAL }, { 1, MT_PROTO_SSEND_ACK },
			{ 2, MT_PROTO_DYNPROC }, { 8, MT_PROTO_SSEND },
		};
		for (size_t j = 0; j < sizeof(k) / sizeof(k[0]); j++) {
			mt_tag_decode(&l, (k[j].v << s) | (3ull << 31) | 7, 1,
				      MT_TAG_IN_DATA, &f);
			cr_expect_eq(f.proto, k[j].p, "%s %llu", l.name,
				     (unsigned long long)k[j].v);
		}
		mt_tag_decode(&l, c[i].rndv << s, 1, MT_TAG_IN_DATA, &f);
		cr_expect_eq(f.proto, MT_PROTO_RNDV, "%s rndv", l.name);
		cr_expect_not(f.flags & MT_F_INTERNAL, "%s: a user rendezvous", l.name);
		mt_tag_decode(&l, c[i].rndv2 << s, 1, MT_TAG_IN_DATA, &f);
		cr_expect_eq(f.proto, MT_PROTO_RNDV, "%s rndv (pack)", l.name);
		mt_tag_decode(&l, c[i].am << s, 1, MT_TAG_IN_DATA, &f);
		cr_expect_eq(f.proto, MT_PROTO_AM, "%s am", l.name);
		cr_expect(f.flags & MT_F_INTERNAL, "%s: AM is MPICH's own", l.name);
		/* Finalize flush: DYNPROC, context 0xF000, tag 1. */
		mt_tag_decode(&l, (2ull << s) | (0xF000ull << l.cid_shift) | 1, 0, 0, &f);
		cr_expect(f.flags & MT_F_INTERNAL, "%s: DYNPROC is MPICH's own", l.name);
		/* Collectives: context id + 1. */
		mt_tag_decode(&l, (5ull << l.cid_shift) | 3, 1, MT_TAG_IN_DATA, &f);
		cr_expect(f.flags & MT_F_INTERNAL, "%s: odd context", l.name);
	}
}

Test(decode, layout_names)
{
	enum mt_tag_layout_id id;
	for (int i = 0; i < MT_TAG_LAYOUT_COUNT; i++) {
		cr_assert_eq(mt_tag_layout_find(mt_tag_layout_name(i), &id), MT_OK);
		cr_expect_eq(id, i);
	}
	cr_expect_eq(mt_tag_layout_find("ofi_tag_3", &id), MT_ERR_ARG);
	cr_expect_str_eq(mt_tag_layout_name(MT_TAG_LAYOUT_RAW), "raw");
	struct mt_tag_layout l;
	cr_expect_eq(mt_tag_layout_get(MT_TAG_LAYOUT_COUNT, 0, &l), MT_ERR_ARG);
}

/* Send tag = cid << shift | source | tag & mask, plus SYNC_SEND for Ssend. */
Test(decode, ompi_send_tags)
{
	struct mt_tag_layout l1 = get(MT_TAG_LAYOUT_OMPI_TAG1, 0);
	struct mt_tag_layout l2 = get(MT_TAG_LAYOUT_OMPI_TAG2, 0);
	struct mt_tag_layout lf = get(MT_TAG_LAYOUT_OMPI_FULL, 0);
	struct mt_tag_fields f = { .cid = 3, .source = 5, .tag = 7,
				   .proto = MT_PROTO_SSEND,
				   .valid = MT_V_CID | MT_V_SOURCE | MT_V_TAG | MT_V_PROTO };
	struct mt_tag_wire w;

	cr_assert_eq(mt_tag_encode(&l1, &f, &w), MT_OK);
	cr_expect_eq(w.tag, (3ull << 52) | (5ull << 34) | 0x100000000ull | 7);
	cr_expect_not(w.has_data);
	cr_assert_eq(mt_tag_encode(&l2, &f, &w), MT_OK);
	cr_expect_eq(w.tag, (3ull << 40) | (5ull << 22) | 0x100000ull | 7);
	cr_assert_eq(mt_tag_encode(&lf, &f, &w), MT_OK);
	cr_expect_eq(w.tag, (3ull << 34) | 0x100000000ull | 7);
	cr_expect(w.has_data);
	cr_expect_eq(w.data, 5);

	/* Negative tags: two's complement truncated to the field. */
	f.proto = MT_PROTO_NORMAL;
	f.tag = -16;				/* barrier */
	mt_tag_encode(&lf, &f, &w);
	cr_expect_eq(w.tag & 0xFFFFFFFFull, 0xFFFFFFF0ull);
	mt_tag_encode(&l2, &f, &w);
	cr_expect_eq(w.tag & 0xFFFFFull, 0xFFFF0ull);
	struct mt_tag_fields d;
	mt_tag_decode(&l2, w.tag, 0, 0, &d);
	cr_expect_eq(d.tag, -16, "tag_2 sign-extends from bit 19");
	cr_expect(d.flags & MT_F_INTERNAL);
	mt_tag_decode(&l1, 0xFFFF8698ull, 0, 0, &d);	/* OMPI_COMM_ALLREDUCE_TAG */
	cr_expect_eq(d.tag, -31080);
	cr_expect(d.flags & MT_F_INTERNAL);

	/* The ACK: the received tag with SYNC_SEND cleared and SYNC_SEND_ACK set;
	 * the source field still names the synchronous sender. */
	uint64_t ssend = (3ull << 52) | (5ull << 34) | 0x100000000ull | 7;
	uint64_t ack = (ssend | l1.ack) & ~l1.sync;
	mt_tag_decode(&l1, ack, 0, 0, &d);
	cr_expect_eq(d.proto, MT_PROTO_SSEND_ACK);
	cr_expect_eq(d.source, 5);
	cr_expect(d.flags & MT_F_SOURCE_IS_DEST);
	/* In ofi_tag_full the ACK goes without CQ data: no source. */
	mt_tag_decode(&lf, (3ull << 34) | lf.ack | 7, 0, MT_TAG_IN_DATA, &d);
	cr_expect_not(d.valid & MT_V_SOURCE);
}

Test(decode, raw_layout_shows_nothing)
{
	struct mt_tag_layout l = get(MT_TAG_LAYOUT_RAW, 0);
	struct mt_tag_fields d;
	struct mt_tag_wire w;
	mt_tag_decode(&l, 0x123456789abcdef0ull, 7, MT_TAG_IN_DATA, &d);
	cr_expect_eq(d.valid, 0);
	cr_expect_eq(d.cid, MT_COMM_UNDEF);
	cr_expect_eq(d.source, MT_RANK_UNDEF);
	cr_expect_eq(mt_tag_encode(&l, &d, &w), MT_ERR_ARG);
}

/* Open MPI 5's exCID handshake: an untagged 32-byte mca_mtl_ofi_cid_hdr_t
 * under every Open MPI layout; nothing else, and never under MPICH. */
Test(decode, ompi5_handshake)
{
	static const enum mt_tag_layout_id ompi[] = {
		MT_TAG_LAYOUT_OMPI_FULL, MT_TAG_LAYOUT_OMPI_TAG1, MT_TAG_LAYOUT_OMPI_TAG2 };
	for (size_t i = 0; i < 3; i++) {
		struct mt_tag_layout l = get(ompi[i], 0);
		cr_expect(mt_tag_untagged_handshake(&l, 32), "%s", l.name);
		cr_expect_not(mt_tag_untagged_handshake(&l, 0), "%s", l.name);
		cr_expect_not(mt_tag_untagged_handshake(&l, 64), "%s", l.name);
	}
	struct mt_tag_layout l = get(MT_TAG_LAYOUT_MPICH50_DATA, 0);
	cr_expect_not(mt_tag_untagged_handshake(&l, 32));
	l = get(MT_TAG_LAYOUT_RAW, 0);
	cr_expect_not(mt_tag_untagged_handshake(&l, 32));
}

/* The what-if of `msgtrace tags` compares a run with its MPI's layouts. */
Test(decode, layout_family)
{
	enum mt_tag_layout_id f[MT_TAG_LAYOUT_COUNT];
	size_t n = mt_tag_layout_family(MT_TAG_LAYOUT_OMPI_TAG2, f, MT_TAG_LAYOUT_COUNT);

	cr_assert_eq(n, 3);
	cr_expect_eq(f[0], MT_TAG_LAYOUT_OMPI_FULL);
	cr_expect_eq(f[2], MT_TAG_LAYOUT_OMPI_TAG2);
	cr_expect_eq(mt_tag_layout_family(MT_TAG_LAYOUT_RAW, f, 0), 3);
	n = mt_tag_layout_family(MT_TAG_LAYOUT_MPICH50_DATA, f, MT_TAG_LAYOUT_COUNT);
	cr_assert_eq(n, 11);
	for (size_t i = 0; i < n; i++)
		cr_expect(!strncmp(mt_tag_layout_name(f[i]), "mpich-", 6), "%s",
			  mt_tag_layout_name(f[i]));
	cr_expect_eq(f[n - 1], MT_TAG_LAYOUT_MPICH50_NODATA);
}
