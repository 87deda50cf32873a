/*
 * test_evidence.c - decode/'s layout evidence put in words (sink/evidence.c):
 * the sentences `msgtrace decode` and `msgtrace tags` print.
 */
#include <criterion/criterion.h>

#include "mt_sink.h"

static const char *say(const struct mt_tag_evidence_item *it)
{
	static char buf[MT_SINK_EVIDENCE_LEN];

	return mt_sink_evidence_text(it, buf, sizeof(buf));
}

Test(evidence, each_kind_names_its_values)
{
	struct mt_tag_evidence_item it = { .kind = MT_TAG_EV_ONLY,
					   .layout = MT_TAG_LAYOUT_OMPI_TAG1,
					   .v = { 12, 7, 0 } };

	cr_expect_str_eq(say(&it), "ofi_tag_1 is the only layout that explains "
			 "all 12 sends and 7 receives");
	it = (struct mt_tag_evidence_item){
		.kind = MT_TAG_EV_RULED_OP, .layout = MT_TAG_LAYOUT_OMPI_FULL,
		.v = { 1, 0x0000000c00000005ull, 0, MT_TAG_MISMATCH_NO_DATA, 3, 9 } };
	cr_expect_str_eq(say(&it), "ofi_tag_full ruled out: send "
			 "tag=0x0000000c00000005 data=0x0 carries no CQ data, but "
			 "the layout sends the source there (3 of the 9 sends)");
	it = (struct mt_tag_evidence_item){
		.kind = MT_TAG_EV_UNDECIDED,
		.cand = (UINT64_C(1) << MT_TAG_LAYOUT_OMPI_TAG1) |
			(UINT64_C(1) << MT_TAG_LAYOUT_OMPI_TAG2) };
	cr_expect_str_eq(say(&it), "too little evidence: consistent with "
			 "ofi_tag_1, ofi_tag_2 (use --layout)");
	it = (struct mt_tag_evidence_item){
		.kind = MT_TAG_EV_OVERRIDE, .layout = MT_TAG_LAYOUT_OMPI_TAG1,
		.layout2 = MT_TAG_LAYOUT_OMPI_TAG2, .v = { MT_CONF_HIGH } };
	cr_expect_str_eq(say(&it), "--layout ofi_tag_1 overrides the detected "
			 "ofi_tag_2 (confidence high)");
	cr_expect(mt_sink_evidence_ruled_out(&(struct mt_tag_evidence_item){
		.kind = MT_TAG_EV_RULED_MTF }));
	cr_expect(!mt_sink_evidence_ruled_out(&it));
}
