/*
 * detect.c - which layout was in force on an endpoint, from what it did.
 *
 * Every observed operation is checked against every layout: a layout is
 * ruled out by an operation its MPI library never produces (stray tag bits,
 * an impossible protocol bit combination, CQ data where the source travels in
 * the tag or none where it travels in the data, a receive ignore mask or
 * src_addr it never builds). What tells the Open MPI modes apart in practice:
 * the *data send calls and directed receives (ofi_tag_full only), the
 * SYNC_SEND bit every user receive ignores (bit 32 in full and tag_1, bit 20
 * in tag_2), the source field ignored by MPI_ANY_SOURCE (tag_1/tag_2 only).
 * MPICH ignores its protocol bits at 51.. or 58.., never bit 32 or 20.
 * One layout left: the answer. Several: say so, guess only from the
 * endpoint's attributes (Open MPI's auto mode) and flag the guess.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mt_decode.h"

enum why { WHY_OK, WHY_STRAY, WHY_PROTO, WHY_NO_DATA, WHY_DATA, WHY_DATA_RANGE,
	   WHY_IGNORE, WHY_DIRECTED };

static const char *const why_text[] = {
	[WHY_OK] = "",
	[WHY_STRAY] = "sets tag bits outside its fields",
	[WHY_PROTO] = "has a protocol bit combination it never uses",
	[WHY_NO_DATA] = "carries no CQ data, but the layout sends the source there",
	[WHY_DATA] = "carries CQ data, but the layout sends the source in the tag",
	[WHY_DATA_RANGE] = "carries CQ data that is not a rank",
	[WHY_IGNORE] = "has an ignore mask the layout never builds",
	[WHY_DIRECTED] = "names a source address, which the layout never does",
};

void mt_tag_evidence_init(struct mt_tag_evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
}

void mt_tag_evidence_set_ep(struct mt_tag_evidence *ev, uint64_t cq_data_size,
			    bool directed_recv, uint64_t mem_tag_format)
{
	ev->ep_known = true;
	ev->cq_data_size = cq_data_size;
	ev->directed_recv_cap = directed_recv;
	ev->mem_tag_format = mem_tag_format;
}

static void count(struct mt_tag_evidence_layout *e, enum why why, bool send,
		  uint64_t tag, uint64_t aux)
{
	if (why == WHY_OK) {
		if (send)
			e->ok_send++;
		else
			e->ok_recv++;
		return;
	}
	if (!e->bad_send && !e->bad_recv) {
		e->bad_tag = tag;
		e->bad_aux = aux;
		e->bad_why = (uint8_t)why | (send ? 0x80 : 0);
	}
	if (send)
		e->bad_send++;
	else
		e->bad_recv++;
}

static enum why check_send(const struct mt_tag_layout *l, bool has_data,
			   uint64_t tag, uint64_t data)
{
	struct mt_tag_fields f;
	enum mt_tag_proto proto;

	if (tag & ~l->known_mask)
		return WHY_STRAY;
	mt_tag_decode(l, tag, data, has_data ? MT_TAG_IN_DATA : 0, &f);
	proto = (enum mt_tag_proto)f.proto;
	if (proto == MT_PROTO_BAD)
		return WHY_PROTO;
	if (l->src_in == MT_SRC_TAG && has_data)
		return WHY_DATA;
	if (l->src_in == MT_SRC_DATA && !has_data && proto != MT_PROTO_SSEND_ACK)
		return WHY_NO_DATA;
	/* Open MPI sends its int rank; MPICH adds two error bits above 30. */
	if (l->src_in == MT_SRC_DATA && has_data &&
	    data > (l->data_src_bits >= 32 ? 0x7fffffffull : 0xffffffffull))
		return WHY_DATA_RANGE;
	return WHY_OK;
}

void mt_tag_evidence_add_send(struct mt_tag_evidence *ev, bool has_data,
			      uint64_t tag, uint64_t data)
{
	struct mt_tag_layout l;

	ev->sends++;
	ev->sends_data += has_data;
	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++) {
		mt_tag_layout_get((enum mt_tag_layout_id)i, 0, &l);
		count(&ev->per[i], check_send(&l, has_data, tag, data), true, tag, data);
	}
}

static enum why check_recv(const struct mt_tag_layout *l, uint64_t tag,
			   uint64_t ignore, unsigned recv_in)
{
	struct mt_tag_filter flt;

	if (tag & ~l->known_mask)
		return WHY_STRAY;
	mt_tag_decode_recv(l, tag, ignore, recv_in, &flt);
	if (flt.kind == MT_RECV_SSEND_ACK)
		return WHY_OK;
	if (flt.odd_ignore)
		return WHY_IGNORE;
	/* A receive may name a tag space (MPICH's AM and DYNPROC), never a
	 * per-message protocol bit. */
	if (tag & l->proto_mask & ~ignore & ~(l->am | l->dynproc))
		return WHY_PROTO;
	if (l->directed_recv == 0 && (recv_in & MT_TAG_RECV_DIRECTED))
		return WHY_DIRECTED;
	return WHY_OK;
}

/* An mrecv (FI_CLAIM without FI_PEEK) reuses a probe's match: its tag and
 * mask say nothing and are not counted. */
void mt_tag_evidence_add_recv(struct mt_tag_evidence *ev, uint64_t tag,
			      uint64_t ignore, unsigned recv_in)
{
	struct mt_tag_layout l;

	if ((recv_in & MT_TAG_RECV_CLAIM) && !(recv_in & MT_TAG_RECV_PEEK))
		return;
	ev->recvs++;
	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++) {
		mt_tag_layout_get((enum mt_tag_layout_id)i, 0, &l);
		count(&ev->per[i], check_recv(&l, tag, ignore, recv_in), false,
		      tag, ignore);
	}
}

const char *mt_tag_confidence_name(enum mt_tag_confidence c)
{
	static const char *const names[] = { "none", "low", "medium", "high",
					     "override" };
	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

static void line(struct mt_tag_detect_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void line(struct mt_tag_detect_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->n_lines >= MT_TAG_DETECT_LINES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->lines[r->n_lines++], MT_TAG_LINE_LEN, fmt, ap);
	va_end(ap);
}

/* Why layout i cannot be the one (NULL: it can). Writes into buf. */
static const char *ruled_out(const struct mt_tag_evidence *ev, int i, char *buf,
			     size_t len)
{
	const struct mt_tag_evidence_layout *e = &ev->per[i];
	struct mt_tag_layout l;

	if (mt_tag_layout_get((enum mt_tag_layout_id)i, ev->mem_tag_format, &l) ==
	    MT_TAG_ERR_MTF) {
		snprintf(buf, len, "mem_tag_format 0x%016llx leaves %u cid bits, "
			 "too few for the MPI library to start",
			 (unsigned long long)ev->mem_tag_format, l.cid_usable_bits);
		return buf;
	}
	if (l.src_in == MT_SRC_DATA && ev->ep_known &&
	    (ev->cq_data_size < 4 || !ev->directed_recv_cap)) {
		snprintf(buf, len, "endpoint has cq_data_size %llu%s; this layout "
			 "needs >= 4 and FI_DIRECTED_RECV",
			 (unsigned long long)ev->cq_data_size,
			 ev->directed_recv_cap ? "" : " and no FI_DIRECTED_RECV");
		return buf;
	}
	if (!e->bad_send && !e->bad_recv)
		return NULL;
	bool send = e->bad_why & 0x80;
	snprintf(buf, len, "%s tag=0x%016llx %s=0x%llx %s (%llu of the %llu %ss)",
		 send ? "send" : "receive", (unsigned long long)e->bad_tag,
		 send ? "data" : "ignore", (unsigned long long)e->bad_aux,
		 why_text[e->bad_why & 0x7f],
		 (unsigned long long)(send ? e->bad_send : e->bad_recv),
		 (unsigned long long)(send ? ev->sends : ev->recvs),
		 send ? "send" : "receive");
	return buf;
}

/* Do the candidate layouts put every field, the protocol bits user traffic
 * carries (SYNC, ACK, DYNPROC) and the receive mask in the same place? */
static bool same_decoding(const int *cand, int n)
{
	struct mt_tag_layout a, b;

	mt_tag_layout_get((enum mt_tag_layout_id)cand[0], 0, &a);
	for (int i = 1; i < n; i++) {
		mt_tag_layout_get((enum mt_tag_layout_id)cand[i], 0, &b);
		if (a.cid_mask != b.cid_mask || a.src_mask != b.src_mask ||
		    a.tag_mask != b.tag_mask || a.data_src_mask != b.data_src_mask ||
		    a.sync != b.sync || a.ack != b.ack || a.dynproc != b.dynproc ||
		    a.recv_always_ignored != b.recv_always_ignored ||
		    a.internal != b.internal || a.tag_signed != b.tag_signed)
			return false;
	}
	return true;
}

static bool auto_picks_full(const struct mt_tag_evidence *ev)
{
	return ev->ep_known && ev->cq_data_size >= 4 && ev->directed_recv_cap;
}

/*
 * Decide the layout from the evidence. An override (not MT_TAG_LAYOUT_NONE)
 * always wins; the evidence is still reported, with any conflict. Too little
 * or ambiguous evidence gives MT_CONF_NONE and the raw layout, or, when the
 * endpoint attributes make Open MPI's auto choice (ofi_tag_full) one of the
 * candidates, that choice with MT_CONF_LOW.
 */
void mt_tag_detect(const struct mt_tag_evidence *ev, enum mt_tag_layout_id override,
		   struct mt_tag_detect_result *out)
{
	char why[MT_TAG_LINE_LEN], names[MT_TAG_LINE_LEN] = "";
	int cand[MT_TAG_LAYOUT_COUNT], ncand = 0, best = -1;
	uint64_t best_bad = UINT64_MAX;

	memset(out, 0, sizeof(*out));
	if (ev->ep_known)
		line(out, "endpoint: cq_data_size %llu, %s, mem_tag_format 0x%016llx%s",
		     (unsigned long long)ev->cq_data_size,
		     ev->directed_recv_cap ? "FI_DIRECTED_RECV" : "no FI_DIRECTED_RECV",
		     (unsigned long long)ev->mem_tag_format,
		     auto_picks_full(ev) ? " (Open MPI's auto mode picks ofi_tag_full)" : "");
	line(out, "observed %llu tagged sends (%llu with CQ data) and %llu receives",
	     (unsigned long long)ev->sends, (unsigned long long)ev->sends_data,
	     (unsigned long long)ev->recvs);

	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++) {
		const struct mt_tag_evidence_layout *e = &ev->per[i];
		if (ruled_out(ev, i, why, sizeof(why))) {
			line(out, "%s ruled out: %s", mt_tag_layout_name(i), why);
			uint64_t bad = e->bad_send + e->bad_recv;
			if (e->bad_send + e->bad_recv && bad < best_bad &&
			    bad * 2 < ev->sends + ev->recvs) {
				best_bad = bad;
				best = i;
			}
			continue;
		}
		cand[ncand++] = i;
		size_t n = strlen(names);
		snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
			 mt_tag_layout_name(i));
	}

	out->layout = MT_TAG_LAYOUT_RAW;
	out->confidence = MT_CONF_NONE;
	if (!ev->sends && !ev->recvs) {
		line(out, "too little evidence: no tagged operation on this endpoint");
	} else if (ncand == 1) {
		out->layout = (enum mt_tag_layout_id)cand[0];
		out->confidence = ev->sends && ev->recvs ? MT_CONF_HIGH : MT_CONF_MEDIUM;
		line(out, "%s is the only layout that explains all %llu sends and "
		     "%llu receives%s", names, (unsigned long long)ev->sends,
		     (unsigned long long)ev->recvs,
		     out->confidence == MT_CONF_HIGH ? "" :
		     " (only one kind of operation seen)");
	} else if (ncand > 1 && same_decoding(cand, ncand)) {
		/* Releases that differ only in protocol bits this endpoint never
		 * used: every operation decodes the same under each. */
		out->layout = (enum mt_tag_layout_id)cand[ncand - 1];
		out->confidence = ev->sends && ev->recvs ? MT_CONF_HIGH : MT_CONF_MEDIUM;
		line(out, "%s explain all %llu sends and %llu receives and decode "
		     "them identically (they differ only in protocol bits not seen "
		     "here); naming the newest, %s", names,
		     (unsigned long long)ev->sends, (unsigned long long)ev->recvs,
		     mt_tag_layout_name(out->layout));
	} else if (ncand > 1) {
		bool full = false;
		for (int i = 0; i < ncand; i++)
			full |= cand[i] == MT_TAG_LAYOUT_OMPI_FULL;
		if (full && auto_picks_full(ev)) {
			out->layout = MT_TAG_LAYOUT_OMPI_FULL;
			out->confidence = MT_CONF_LOW;
			line(out, "ambiguous: consistent with %s; guessing ofi_tag_full "
			     "from the endpoint attributes (use --layout to be sure)",
			     names);
		} else {
			line(out, "too little evidence: consistent with %s (use --layout)",
			     names);
		}
	} else if (best >= 0) {
		out->layout = (enum mt_tag_layout_id)best;
		out->confidence = MT_CONF_LOW;
		line(out, "no layout explains every operation; %s explains all but "
		     "%llu", mt_tag_layout_name(best), (unsigned long long)best_bad);
	} else {
		line(out, "no MPI layout explains these operations: showing raw tags");
	}

	if (out->layout != MT_TAG_LAYOUT_RAW) {
		struct mt_tag_layout l;

		mt_tag_layout_get(out->layout, 0, &l);
		line(out, "%s is %s", l.name, l.summary);
	}
	if (override != MT_TAG_LAYOUT_NONE) {
		line(out, "--layout %s overrides the detected %s (confidence %s)",
		     mt_tag_layout_name(override), mt_tag_layout_name(out->layout),
		     mt_tag_confidence_name(out->confidence));
		out->layout = override;
		out->confidence = MT_CONF_OVERRIDE;
	}
}

/*
 * The processes of one job use one layout. An endpoint whose own operations
 * leave it undecided (confidence none or low: a rank that only sent, or
 * only probed) takes the job's layout, provided its own operations do not
 * rule it out. The job's layout is the one every well-decided endpoint
 * (medium or high) found; with none decided, the only layout that no
 * endpoint's operations rule out. Nothing changes when decided endpoints
 * disagree or several layouts remain.
 */
void mt_tag_detect_job(const struct mt_tag_evidence *ev,
		       struct mt_tag_detect_result *res, size_t n)
{
	enum mt_tag_layout_id job = MT_TAG_LAYOUT_NONE;
	size_t sure = 0;
	char why[MT_TAG_LINE_LEN];
	const char *reason = "well-decided endpoints use";

	for (size_t i = 0; i < n; i++) {
		if (res[i].confidence != MT_CONF_MEDIUM && res[i].confidence != MT_CONF_HIGH)
			continue;
		if (job != MT_TAG_LAYOUT_NONE && job != res[i].layout)
			return;
		job = res[i].layout;
		sure++;
	}
	for (int l = MT_TAG_LAYOUT_RAW + 1; l < MT_TAG_LAYOUT_COUNT && !sure; l++) {
		size_t fit = 0, seen = 0;

		for (size_t i = 0; i < n; i++) {
			if (!ev[i].sends && !ev[i].recvs)
				continue;
			seen++;
			fit += !ruled_out(&ev[i], l, why, sizeof(why));
		}
		if (!seen || fit < seen)
			continue;
		if (job != MT_TAG_LAYOUT_NONE)
			return;		/* two layouts fit everywhere */
		job = (enum mt_tag_layout_id)l;
		sure = seen;
		reason = "endpoints with operations all allow only";
	}
	if (job == MT_TAG_LAYOUT_NONE)
		return;
	for (size_t i = 0; i < n; i++) {
		/* A low guess that is the job's layout is confirmed by it. */
		if (res[i].confidence > MT_CONF_LOW ||
		    ruled_out(&ev[i], job, why, sizeof(why)))
			continue;
		res[i].layout = job;
		res[i].confidence = MT_CONF_MEDIUM;
		line(&res[i], "the job's %zu %s %s, which this endpoint's operations "
		     "allow: taking it", sure, reason, mt_tag_layout_name(job));
	}
}
