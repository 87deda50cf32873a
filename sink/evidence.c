/*
 * evidence.c - the words for decode/'s layout evidence (struct
 * mt_tag_evidence_item): decode finds and counts, this says it.
 */
#include <stdio.h>

#include "mt_sink.h"

static const char *const mismatch_text[MT_TAG_MISMATCH_COUNT] = {
	[MT_TAG_MISMATCH_NONE] = "",
	[MT_TAG_MISMATCH_STRAY] = "sets tag bits outside its fields",
	[MT_TAG_MISMATCH_PROTO] = "has a protocol bit combination it never uses",
	[MT_TAG_MISMATCH_NO_DATA] = "carries no CQ data, but the layout sends the source there",
	[MT_TAG_MISMATCH_DATA] = "carries CQ data, but the layout sends the source in the tag",
	[MT_TAG_MISMATCH_DATA_RANGE] = "carries CQ data that is not a rank",
	[MT_TAG_MISMATCH_IGNORE] = "has an ignore mask the layout never builds",
	[MT_TAG_MISMATCH_DIRECTED] = "names a source address, which the layout never does",
};

/* "ofi_tag_1, mpich-3.3-nodata": the layouts of a candidate mask. */
static const char *names(uint64_t cand, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int i = 0; i < MT_TAG_LAYOUT_COUNT && i < 64 && n < len; i++)
		if (cand & (UINT64_C(1) << i))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      mt_tag_layout_name(i));
	return buf;
}

static void ruled_out(const struct mt_tag_evidence_item *it, char *buf,
		      size_t len)
{
	const char *layout = mt_tag_layout_name(it->layout);
	const unsigned long long *v = (const unsigned long long *)it->v;

	switch (it->kind) {
	case MT_TAG_EV_RULED_MTF:
		snprintf(buf, len, "%s ruled out: mem_tag_format 0x%016llx leaves "
			 "%llu cid bits, too few for the MPI library to start",
			 layout, v[0], v[1]);
		break;
	case MT_TAG_EV_RULED_CQ_DATA:
		snprintf(buf, len, "%s ruled out: endpoint has cq_data_size %llu%s; "
			 "this layout needs >= 4 and FI_DIRECTED_RECV", layout,
			 v[0], v[1] ? "" : " and no FI_DIRECTED_RECV");
		break;
	default:
		snprintf(buf, len, "%s ruled out: %s tag=0x%016llx %s=0x%llx %s "
			 "(%llu of the %llu %ss)", layout,
			 v[0] ? "send" : "receive", v[1], v[0] ? "data" : "ignore",
			 v[2], v[3] < MT_TAG_MISMATCH_COUNT ? mismatch_text[v[3]] : "?",
			 v[4], v[5], v[0] ? "send" : "receive");
	}
}

const char *mt_sink_evidence_text(const struct mt_tag_evidence_item *it,
				  char *buf, size_t len)
{
	const char *layout = mt_tag_layout_name(it->layout);
	const unsigned long long *v = (const unsigned long long *)it->v;
	char cand[256];

	switch (it->kind) {
	case MT_TAG_EV_ENDPOINT:
		snprintf(buf, len, "endpoint: cq_data_size %llu, %s, mem_tag_format "
			 "0x%016llx%s", v[0],
			 v[1] ? "FI_DIRECTED_RECV" : "no FI_DIRECTED_RECV", v[2],
			 v[3] ? " (Open MPI's auto mode picks ofi_tag_full)" : "");
		break;
	case MT_TAG_EV_OBSERVED:
		snprintf(buf, len, "observed %llu tagged sends (%llu with CQ data) "
			 "and %llu receives", v[0], v[1], v[2]);
		break;
	case MT_TAG_EV_RULED_MTF:
	case MT_TAG_EV_RULED_CQ_DATA:
	case MT_TAG_EV_RULED_OP:
		ruled_out(it, buf, len);
		break;
	case MT_TAG_EV_NO_OPS:
		snprintf(buf, len, "too little evidence: no tagged operation on "
			 "this endpoint");
		break;
	case MT_TAG_EV_ONLY:
		snprintf(buf, len, "%s is the only layout that explains all %llu "
			 "sends and %llu receives%s", layout, v[0], v[1],
			 v[2] ? " (only one kind of operation seen)" : "");
		break;
	case MT_TAG_EV_SAME:
		snprintf(buf, len, "%s explain all %llu sends and %llu receives and "
			 "decode them identically (they differ only in protocol "
			 "bits not seen here); naming the newest, %s",
			 names(it->cand, cand, sizeof(cand)), v[0], v[1], layout);
		break;
	case MT_TAG_EV_SUMMARY: {
		struct mt_tag_layout l;

		mt_tag_layout_get(it->layout, 0, &l);
		snprintf(buf, len, "%s is %s", l.name, l.summary);
		break;
	}
	case MT_TAG_EV_GUESS_FULL:
		snprintf(buf, len, "ambiguous: consistent with %s; guessing "
			 "ofi_tag_full from the endpoint attributes (use --layout "
			 "to be sure)", names(it->cand, cand, sizeof(cand)));
		break;
	case MT_TAG_EV_UNDECIDED:
		snprintf(buf, len, "too little evidence: consistent with %s (use "
			 "--layout)", names(it->cand, cand, sizeof(cand)));
		break;
	case MT_TAG_EV_BEST:
		snprintf(buf, len, "no layout explains every operation; %s explains "
			 "all but %llu", layout, v[0]);
		break;
	case MT_TAG_EV_NO_LAYOUT:
		snprintf(buf, len, "no MPI layout explains these operations: "
			 "showing raw tags");
		break;
	case MT_TAG_EV_OVERRIDE:
		snprintf(buf, len, "--layout %s overrides the detected %s "
			 "(confidence %s)", layout, mt_tag_layout_name(it->layout2),
			 mt_tag_confidence_name((enum mt_tag_confidence)v[0]));
		break;
	case MT_TAG_EV_JOB:
		snprintf(buf, len, "the job's %llu %s %s, which this endpoint's "
			 "operations allow: taking it", v[0],
			 v[1] ? "endpoints with operations all allow only" :
			 "well-decided endpoints use", layout);
		break;
	default:
		snprintf(buf, len, "evidence of unknown kind %u", it->kind);
	}
	return buf;
}

int mt_sink_evidence_ruled_out(const struct mt_tag_evidence_item *it)
{
	return it->kind == MT_TAG_EV_RULED_MTF ||
	       it->kind == MT_TAG_EV_RULED_CQ_DATA ||
	       it->kind == MT_TAG_EV_RULED_OP;
}
