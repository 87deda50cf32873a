/*
 * The tag-mode analysis (tagmode.c) against cases computed by hand from
 * shared/TAG-LAYOUTS.md: field limits after mem_tag_format, what each
 * misfit value becomes on the wire, aliasing, and the reservations left
 * before ofi_tag_2 wraps Open MPI's nonblocking-collective tags.
 */
#include <criterion/criterion.h>

#include "mt_decode.h"

static struct mt_tag_usage *u;

static void setup(void)
{
	cr_assert_eq(mt_tag_usage_new(&u), MT_OK);
}

static void teardown(void)
{
	mt_tag_usage_free(u);
}

TestSuite(tagmode, .init = setup, .fini = teardown);

static void add(mt_comm_t cid, mt_rank_t src, int32_t tag, bool any_tag)
{
	struct mt_tag_fields f = {
		.cid = cid, .source = src, .tag = tag,
		.valid = MT_V_CID | MT_V_TAG | (src >= 0 ? MT_V_SOURCE : 0),
		.flags = tag < 0 ? MT_F_INTERNAL : 0,
	};
	cr_assert_eq(mt_tag_usage_add(u, &f, any_tag), MT_OK);
}

static struct mt_tag_layout layout(enum mt_tag_layout_id id, uint64_t mtf,
				   int want_status)
{
	struct mt_tag_layout l;

	cr_assert_eq(mt_tag_layout_get(id, mtf, &l), want_status);
	return l;
}

Test(tagmode, stats_count_distinct_values)
{
	add(0, 0, 5, false);
	add(0, 1, 5, false);
	add(3, 1, -16, false);
	add(4094, 2, 70000, true);
	struct mt_tag_ustat st;

	mt_tag_usage_stat(u, MT_TAG_U_CID, &st);
	cr_expect_eq(st.msgs, 4);
	cr_expect_eq(st.distinct, 3);
	cr_expect_eq(st.min, 0);
	cr_expect_eq(st.max, 4094);
	mt_tag_usage_stat(u, MT_TAG_U_UTAG, &st);
	cr_expect_eq(st.msgs, 3);
	cr_expect_eq(st.distinct, 2);
	cr_expect_eq(st.max, 70000);
	mt_tag_usage_stat(u, MT_TAG_U_ITAG, &st);
	cr_expect_eq(st.distinct, 1);
	cr_expect_eq(st.min, -16);

	int64_t v[3];
	cr_expect_eq(mt_tag_usage_values(u, MT_TAG_U_SRC, v, 3), 3);
	cr_expect(v[0] == 0 && v[1] == 1 && v[2] == 2);
}

/* 4094 of ofi_tag_1's 4095: every bit used, 1 id left (the exhaustion run). */
Test(tagmode, room_cid_tag1_full)
{
	struct mt_tag_layout l = layout(MT_TAG_LAYOUT_OMPI_TAG1, 0, MT_OK);
	struct mt_tag_room r;

	add(0, 0, 1, false);
	add(4094, 0, 1, false);
	mt_tag_usage_room(u, &l, MT_TAG_U_CID, &r);
	cr_expect(r.in_tag);
	cr_expect_eq(r.bits, 12);
	cr_expect_eq(r.bits_used, 12);
	cr_expect_eq(r.limit, 4095);
	cr_expect_eq(r.left, 1);
	cr_expect_float_eq(r.pct_used, 100.0 * 4094 / 4095, 1e-9);
}

/* ofi_tag_2: MPI_TAG_UB 524287 takes all 20 bits with the sign; -27 takes
 * 6 bits and leaves 524288 - 27 values below it. */
Test(tagmode, room_tags_tag2)
{
	struct mt_tag_layout l = layout(MT_TAG_LAYOUT_OMPI_TAG2, 0, MT_OK);
	struct mt_tag_room r;

	add(0, 0, 524287, false);
	add(0, 0, -27, false);
	mt_tag_usage_room(u, &l, MT_TAG_U_UTAG, &r);
	cr_expect_eq(r.bits, 20);
	cr_expect_eq(r.bits_used, 20);
	cr_expect_eq(r.left, 0);
	cr_expect_float_eq(r.pct_used, 100.0, 1e-9);
	mt_tag_usage_room(u, &l, MT_TAG_U_ITAG, &r);
	cr_expect_eq(r.limit, -524288);
	cr_expect_eq(r.bits_used, 6);
	cr_expect_eq(r.left, 524288 - 27);
}

/* ofi_tag_full carries the source in 32 bits of CQ data, ofi_tag_1 in an
 * 18-bit field: rank 262144 wraps to 0 there. */
Test(tagmode, room_and_whatif_source)
{
	struct mt_tag_layout full = layout(MT_TAG_LAYOUT_OMPI_FULL, 0, MT_OK);
	struct mt_tag_layout t1 = layout(MT_TAG_LAYOUT_OMPI_TAG1, 0, MT_OK);
	struct mt_tag_room r;
	struct mt_tag_whatif w;

	add(0, 0, 1, false);
	add(0, 262144, 1, false);
	mt_tag_usage_room(u, &full, MT_TAG_U_SRC, &r);
	cr_expect(r.in_tag);
	cr_expect_eq(r.limit, 0x7fffffff);
	mt_tag_usage_whatif(u, &t1, MT_OK, &w);
	cr_expect_not(w.fits);
	cr_expect_eq(w.f[MT_TAG_U_SRC].misfit, 1);
	cr_expect_eq(w.f[MT_TAG_U_SRC].ex[0].value, 262144);
	cr_expect_eq(w.f[MT_TAG_U_SRC].ex[0].becomes, 0);
	cr_expect(w.f[MT_TAG_U_SRC].ex[0].alias);
	mt_tag_usage_whatif(u, &full, MT_OK, &w);
	cr_expect(w.fits);
}

/* cids beyond 4095 in ofi_tag_1: 4096 -> 0 (MPI_COMM_WORLD: alias),
 * 4099 -> 3 (unused: truncated only), 5000 -> 904. */
Test(tagmode, whatif_cid_tag1)
{
	struct mt_tag_layout l = layout(MT_TAG_LAYOUT_OMPI_TAG1, 0, MT_OK);
	static const mt_comm_t cids[] = { 0, 1, 4095, 4096, 4099, 5000 };
	struct mt_tag_misfit all[8];
	struct mt_tag_whatif w;

	for (size_t i = 0; i < sizeof(cids) / sizeof(cids[0]); i++)
		add(cids[i], 0, 1, false);
	mt_tag_usage_whatif(u, &l, MT_OK, &w);
	cr_expect_not(w.fits);
	cr_expect_eq(w.f[MT_TAG_U_CID].values, 6);
	cr_expect_eq(w.f[MT_TAG_U_CID].misfit, 3);
	cr_expect_eq(w.f[MT_TAG_U_CID].alias, 1);
	cr_assert_eq(mt_tag_usage_misfits(u, &l, MT_TAG_U_CID, all, 8), 3);
	cr_expect(all[0].value == 4096 && all[0].becomes == 0 && all[0].alias);
	cr_expect(all[1].value == 4099 && all[1].becomes == 3 && !all[1].alias);
	cr_expect(all[2].value == 5000 && all[2].becomes == 904 && !all[2].alias);
}

/* Two misfits that collide with each other alias too, though neither
 * lands on a cid the run used: 5000 and 9096 both become 904. */
Test(tagmode, whatif_misfits_alias_each_other)
{
	struct mt_tag_layout l = layout(MT_TAG_LAYOUT_OMPI_TAG1, 0, MT_OK);
	static const mt_comm_t cids[] = { 0, 4099, 5000, 9096 };
	struct mt_tag_misfit all[8];
	struct mt_tag_whatif w;

	for (size_t i = 0; i < sizeof(cids) / sizeof(cids[0]); i++)
		add(cids[i], 0, 1, false);
	mt_tag_usage_whatif(u, &l, MT_OK, &w);
	cr_expect_eq(w.f[MT_TAG_U_CID].misfit, 3);
	cr_expect_eq(w.f[MT_TAG_U_CID].alias, 2);
	cr_assert_eq(mt_tag_usage_misfits(u, &l, MT_TAG_U_CID, all, 8), 3);
	cr_expect(all[0].value == 4099 && all[0].becomes == 3 && !all[0].alias);
	cr_expect(all[1].value == 5000 && all[1].becomes == 904 && all[1].alias);
	cr_expect(all[2].value == 9096 && all[2].becomes == 904 && all[2].alias);
}

/* mem_tag_format 0x5555...: one leading zero, ofi_tag_1 keeps 11 bits
 * (2047): 2048 -> 0, 4095 -> 2047 (used: alias). */
Test(tagmode, whatif_cid_mem_tag_format_net)
{
	struct mt_tag_layout l = layout(MT_TAG_LAYOUT_OMPI_TAG1,
					0x5555555555555555ull, MT_OK);
	struct mt_tag_room r;
	struct mt_tag_whatif w;

	add(2047, 0, 1, false);
	add(2048, 0, 1, false);
	add(4095, 0, 1, false);
	mt_tag_usage_room(u, &l, MT_TAG_U_CID, &r);
	cr_expect_eq(r.bits, 11);
	cr_expect_eq(r.limit, 2047);
	cr_expect_eq(r.left, 0);
	mt_tag_usage_whatif(u, &l, MT_OK, &w);
	cr_expect_eq(w.f[MT_TAG_U_CID].misfit, 2);
	cr_expect_eq(w.f[MT_TAG_U_CID].alias, 1);
	cr_expect_eq(w.f[MT_TAG_U_CID].ex[0].becomes, 0);
	cr_expect_eq(w.f[MT_TAG_U_CID].ex[1].becomes, 2047);
}

/* Four leading zeros leave ofi_tag_1 8 cid bits (255), the least Open MPI
 * accepts; five leave 7 and the MTL would refuse to start. */
Test(tagmode, whatif_mem_tag_format_limits)
{
	struct mt_tag_layout l8 = layout(MT_TAG_LAYOUT_OMPI_TAG1,
					 0x0fffffffffffffffull, MT_OK);
	struct mt_tag_layout l7 = layout(MT_TAG_LAYOUT_OMPI_TAG1,
					 0x07ffffffffffffffull, MT_ERR_RANGE);
	struct mt_tag_whatif w;

	add(255, 0, 1, false);
	add(300, 0, 1, false);
	cr_expect_eq(l8.cid_max, 255);
	mt_tag_usage_whatif(u, &l8, MT_OK, &w);
	cr_expect_eq(w.f[MT_TAG_U_CID].misfit, 1);
	cr_expect_eq(w.f[MT_TAG_U_CID].ex[0].becomes, 300 - 256);
	mt_tag_usage_whatif(u, &l7, MT_ERR_RANGE, &w);
	cr_expect_not(w.fits);
	cr_expect_eq(w.layout_status, MT_ERR_RANGE);
	cr_expect_eq(w.f[MT_TAG_U_CID].misfit, 2);	/* 127 is the limit */
}

/* ofi_tag_2's 20-bit signed tag: 7 + 2^20 -> 7 (alias), 524288 -> -524288
 * (flips into the internal range, used: alias), INT_MAX -> -1 (flips),
 * internal -524289 -> 524287 (flips into the user range: alias). */
Test(tagmode, whatif_tags_tag2)
{
	struct mt_tag_layout l = layout(MT_TAG_LAYOUT_OMPI_TAG2, 0, MT_OK);
	struct mt_tag_misfit m[8];
	struct mt_tag_whatif w;

	add(0, 0, 7, false);
	add(0, 0, 7 + (1 << 20), false);
	add(0, 0, 524287, false);
	add(0, 0, 524288, false);
	add(0, 0, 2147483647, false);
	add(0, 0, -27, false);
	add(0, 0, -524288, false);
	add(0, 0, -524289, false);
	mt_tag_usage_whatif(u, &l, MT_OK, &w);
	cr_expect_eq(w.f[MT_TAG_U_UTAG].values, 5);
	cr_expect_eq(w.f[MT_TAG_U_UTAG].misfit, 3);
	cr_expect_eq(w.f[MT_TAG_U_UTAG].alias, 2);
	cr_expect_eq(w.f[MT_TAG_U_UTAG].flips, 2);
	cr_expect_eq(w.f[MT_TAG_U_ITAG].misfit, 1);
	cr_assert_eq(mt_tag_usage_misfits(u, &l, MT_TAG_U_UTAG, m, 8), 3);
	cr_expect(m[0].value == 524288 && m[0].becomes == -524288 && m[0].alias &&
		  m[0].flips);
	cr_expect(m[1].value == 7 + (1 << 20) && m[1].becomes == 7 && m[1].alias &&
		  !m[1].flips);
	cr_expect(m[2].value == 2147483647 && m[2].becomes == -1 && !m[2].alias &&
		  m[2].flips);
	cr_assert_eq(mt_tag_usage_misfits(u, &l, MT_TAG_U_ITAG, m, 8), 1);
	cr_expect(m[0].value == -524289 && m[0].becomes == 524287 && m[0].alias);
	/* The same values all fit the 32-bit tag of ofi_tag_1. */
	struct mt_tag_layout t1 = layout(MT_TAG_LAYOUT_OMPI_TAG1, 0, MT_OK);
	mt_tag_usage_whatif(u, &t1, MT_OK, &w);
	cr_expect(w.fits);
}

/* Reservations left: the next tag is one below the most negative seen
 * (-27 when only blocking collectives ran); ofi_tag_2 wraps below -2^19,
 * the 32-bit layouts recycle at -(INT_MAX/2) + 1 instead. */
Test(tagmode, nbc_reservations_left)
{
	struct mt_tag_layout t2 = layout(MT_TAG_LAYOUT_OMPI_TAG2, 0, MT_OK);
	struct mt_tag_layout full = layout(MT_TAG_LAYOUT_OMPI_FULL, 0, MT_OK);
	struct mt_tag_nbc n[4];

	add(0, 0, -16, false);
	add(0, 0, -30, false);
	add(0, 0, 5, true);
	add(5, 0, -16, false);
	add(9, 0, -524288, false);
	add(9, 0, 11, true);
	add(9, 0, 12, false);
	add(12, 0, 3, false);		/* no internal traffic: not listed */
	cr_assert_eq(mt_tag_usage_nbc(u, &t2, n, 4), 3);
	cr_expect(n[0].cid == 9 && n[0].wrapped && n[0].left == 0);
	cr_expect_eq(n[0].user_msgs, 2);
	cr_expect_eq(n[0].wild_user_msgs, 1);
	cr_expect(n[1].cid == 0 && n[1].min_tag == -30 && n[1].narrow);
	cr_expect_eq(n[1].left, 524288 - 31 + 1);
	cr_expect(n[2].cid == 5 && n[2].left == 524288 - 27 + 1);
	cr_assert_eq(mt_tag_usage_nbc(u, &full, n, 4), 3);
	cr_expect_not(n[0].narrow);
	cr_expect_not(n[0].wrapped);
	cr_expect_eq(n[0].left, 1073741822ull - 524288);
}
