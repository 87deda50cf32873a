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
#include <pthread.h>
#include <string.h>

#include "mt_decode.h"

/* Every layout resolved once (without a mem_tag_format): detection checks
 * each operation against all of them, and resolving one per check cost
 * more than the check. */
static struct mt_tag_layout resolved[MT_TAG_LAYOUT_COUNT];
static pthread_once_t resolved_once = PTHREAD_ONCE_INIT;

static void resolve_all(void)
{
	for (int i = 0; i < MT_TAG_LAYOUT_COUNT; i++)
		mt_tag_layout_get((enum mt_tag_layout_id)i, 0, &resolved[i]);
}

static const struct mt_tag_layout *layout_of(int i)
{
	pthread_once(&resolved_once, resolve_all);
	return &resolved[i];
}

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

static void count(struct mt_tag_evidence_layout *e, enum mt_tag_mismatch why, bool send,
		  uint64_t tag, uint64_t aux)
{
	if (why == MT_TAG_MISMATCH_NONE) {
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

static enum mt_tag_mismatch check_send(const struct mt_tag_layout *l, bool has_data,
			   uint64_t tag, uint64_t data)
{
	struct mt_tag_fields f;
	enum mt_tag_proto proto;

	if (tag & ~l->known_mask)
		return MT_TAG_MISMATCH_STRAY;
	mt_tag_decode(l, tag, data, has_data ? MT_TAG_IN_DATA : 0, &f);
	proto = (enum mt_tag_proto)f.proto;
	if (proto == MT_PROTO_BAD)
		return MT_TAG_MISMATCH_PROTO;
	if (l->src_in == MT_SRC_TAG && has_data)
		return MT_TAG_MISMATCH_DATA;
	if (l->src_in == MT_SRC_DATA && !has_data && proto != MT_PROTO_SSEND_ACK)
		return MT_TAG_MISMATCH_NO_DATA;
	/* Open MPI sends its int rank; MPICH adds two error bits above 30. */
	if (l->src_in == MT_SRC_DATA && has_data &&
	    data > (l->data_src_bits >= 32 ? 0x7fffffffull : 0xffffffffull))
		return MT_TAG_MISMATCH_DATA_RANGE;
	return MT_TAG_MISMATCH_NONE;
}

static enum mt_tag_mismatch check_recv(const struct mt_tag_layout *l, uint64_t tag,
			   uint64_t ignore, unsigned recv_in)
{
	struct mt_tag_filter flt;

	if (tag & ~l->known_mask)
		return MT_TAG_MISMATCH_STRAY;
	mt_tag_decode_recv(l, tag, ignore, recv_in, &flt);
	if (flt.kind == MT_RECV_SSEND_ACK)
		return MT_TAG_MISMATCH_NONE;
	if (flt.odd_ignore)
		return MT_TAG_MISMATCH_IGNORE;
	/* A receive may name a tag space (MPICH's AM and DYNPROC), never a
	 * per-message protocol bit. */
	if (tag & l->proto_mask & ~ignore & ~(l->am | l->dynproc))
		return MT_TAG_MISMATCH_PROTO;
	if (l->directed_recv == 0 && (recv_in & MT_TAG_RECV_DIRECTED))
		return MT_TAG_MISMATCH_DIRECTED;
	return MT_TAG_MISMATCH_NONE;
}

/*
 * What every layout says of one operation, remembered: programs repeat the
 * same few tags, and checking one operation against every layout costs
 * about 1,500 instructions (detection looks at 4096 operations per file,
 * every command pays it). Direct-mapped by the operation's values, per
 * thread; the checks are pure, so a hit says what they would.
 */
#define MEMO_SLOTS 256

struct memo {
	uint64_t tag, aux;
	unsigned kind;		/* 0: empty; send: 1 | has_data << 1;
				 * receive: 4 | recv_in << 3 */
	uint8_t why[MT_TAG_LAYOUT_COUNT];	/* enum mt_tag_mismatch */
};

static _Thread_local struct memo memo[MEMO_SLOTS];

static const struct memo *checked(bool send, uint64_t tag, uint64_t aux,
				  unsigned in)
{
	unsigned kind = send ? 1u | in << 1 : 4u | in << 3;
	uint64_t h = (tag ^ aux * 0x9E3779B97F4A7C15ull ^ kind) * 0xC2B2AE3D27D4EB4Full;
	struct memo *e = &memo[h >> 56];

	if (e->kind == kind && e->tag == tag && e->aux == aux)
		return e;
	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++)
		e->why[i] = (uint8_t)(send ? check_send(layout_of(i), in, tag, aux) :
				      check_recv(layout_of(i), tag, aux, in));
	e->tag = tag;
	e->aux = aux;
	e->kind = kind;
	return e;
}

void mt_tag_evidence_add_send(struct mt_tag_evidence *ev, bool has_data,
			      uint64_t tag, uint64_t data)
{
	const struct memo *c = checked(true, tag, data, has_data);

	ev->sends++;
	ev->sends_data += has_data;
	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++)
		count(&ev->per[i], (enum mt_tag_mismatch)c->why[i], true, tag, data);
}

/* An mrecv (FI_CLAIM without FI_PEEK) reuses a probe's match: its tag and
 * mask say nothing and are not counted. */
void mt_tag_evidence_add_recv(struct mt_tag_evidence *ev, uint64_t tag,
			      uint64_t ignore, unsigned recv_in)
{
	if ((recv_in & MT_TAG_RECV_CLAIM) && !(recv_in & MT_TAG_RECV_PEEK))
		return;
	const struct memo *c = checked(false, tag, ignore, recv_in);

	ev->recvs++;
	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++)
		count(&ev->per[i], (enum mt_tag_mismatch)c->why[i], false, tag, ignore);
}

const char *mt_tag_confidence_name(enum mt_tag_confidence c)
{
	static const char *const names[] = { "none", "low", "medium", "high",
					     "override" };
	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

/* Appends one piece of evidence (the first MT_TAG_DETECT_ITEMS are kept). */
static struct mt_tag_evidence_item *item(struct mt_tag_detect_result *r,
					 enum mt_tag_evidence_kind kind, int layout)
{
	static struct mt_tag_evidence_item spare;
	struct mt_tag_evidence_item *it;

	if (r->n_items >= MT_TAG_DETECT_ITEMS)
		it = &spare;
	else
		it = &r->item[r->n_items++];
	memset(it, 0, sizeof(*it));
	it->kind = (uint8_t)kind;
	it->layout = (uint8_t)layout;
	return it;
}

/* Why layout i cannot be the one, as evidence in r (r NULL: only asks).
 * false: it can. */
static bool ruled_out(const struct mt_tag_evidence *ev, int i,
		      struct mt_tag_detect_result *r)
{
	const struct mt_tag_evidence_layout *e = &ev->per[i];
	struct mt_tag_evidence_item *it;
	struct mt_tag_layout l;

	if (mt_tag_layout_get((enum mt_tag_layout_id)i, ev->mem_tag_format, &l) ==
	    MT_ERR_RANGE) {
		if (r) {
			it = item(r, MT_TAG_EV_RULED_MTF, i);
			it->v[0] = ev->mem_tag_format;
			it->v[1] = l.cid_usable_bits;
		}
		return true;
	}
	if (l.src_in == MT_SRC_DATA && ev->ep_known &&
	    (ev->cq_data_size < 4 || !ev->directed_recv_cap)) {
		if (r) {
			it = item(r, MT_TAG_EV_RULED_CQ_DATA, i);
			it->v[0] = ev->cq_data_size;
			it->v[1] = ev->directed_recv_cap;
		}
		return true;
	}
	if (!e->bad_send && !e->bad_recv)
		return false;
	if (r) {
		bool send = e->bad_why & 0x80;

		it = item(r, MT_TAG_EV_RULED_OP, i);
		it->v[0] = send;
		it->v[1] = e->bad_tag;
		it->v[2] = e->bad_aux;
		it->v[3] = e->bad_why & 0x7f;
		it->v[4] = send ? e->bad_send : e->bad_recv;
		it->v[5] = send ? ev->sends : ev->recvs;
	}
	return true;
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
	int cand[MT_TAG_LAYOUT_COUNT], ncand = 0, best = -1;
	uint64_t best_bad = UINT64_MAX, cmask = 0;
	struct mt_tag_evidence_item *it;

	memset(out, 0, sizeof(*out));
	if (ev->ep_known) {
		it = item(out, MT_TAG_EV_ENDPOINT, MT_TAG_LAYOUT_RAW);
		it->v[0] = ev->cq_data_size;
		it->v[1] = ev->directed_recv_cap;
		it->v[2] = ev->mem_tag_format;
		it->v[3] = auto_picks_full(ev);
	}
	it = item(out, MT_TAG_EV_OBSERVED, MT_TAG_LAYOUT_RAW);
	it->v[0] = ev->sends;
	it->v[1] = ev->sends_data;
	it->v[2] = ev->recvs;

	for (int i = MT_TAG_LAYOUT_RAW + 1; i < MT_TAG_LAYOUT_COUNT; i++) {
		const struct mt_tag_evidence_layout *e = &ev->per[i];
		if (ruled_out(ev, i, out)) {
			uint64_t bad = e->bad_send + e->bad_recv;
			if (e->bad_send + e->bad_recv && bad < best_bad &&
			    bad * 2 < ev->sends + ev->recvs) {
				best_bad = bad;
				best = i;
			}
			continue;
		}
		cand[ncand++] = i;
		cmask |= UINT64_C(1) << i;
	}

	out->layout = MT_TAG_LAYOUT_RAW;
	out->confidence = MT_CONF_NONE;
	if (!ev->sends && !ev->recvs) {
		item(out, MT_TAG_EV_NO_OPS, MT_TAG_LAYOUT_RAW);
	} else if (ncand == 1) {
		out->layout = (enum mt_tag_layout_id)cand[0];
		out->confidence = ev->sends && ev->recvs ? MT_CONF_HIGH : MT_CONF_MEDIUM;
		it = item(out, MT_TAG_EV_ONLY, cand[0]);
		it->v[0] = ev->sends;
		it->v[1] = ev->recvs;
		it->v[2] = out->confidence != MT_CONF_HIGH;
	} else if (ncand > 1 && same_decoding(cand, ncand)) {
		/* Releases that differ only in protocol bits this endpoint never
		 * used: every operation decodes the same under each. */
		out->layout = (enum mt_tag_layout_id)cand[ncand - 1];
		out->confidence = ev->sends && ev->recvs ? MT_CONF_HIGH : MT_CONF_MEDIUM;
		it = item(out, MT_TAG_EV_SAME, cand[ncand - 1]);
		it->cand = cmask;
		it->v[0] = ev->sends;
		it->v[1] = ev->recvs;
	} else if (ncand > 1) {
		bool full = false;
		for (int i = 0; i < ncand; i++)
			full |= cand[i] == MT_TAG_LAYOUT_OMPI_FULL;
		if (full && auto_picks_full(ev)) {
			out->layout = MT_TAG_LAYOUT_OMPI_FULL;
			out->confidence = MT_CONF_LOW;
			it = item(out, MT_TAG_EV_GUESS_FULL, MT_TAG_LAYOUT_OMPI_FULL);
		} else {
			it = item(out, MT_TAG_EV_UNDECIDED, MT_TAG_LAYOUT_RAW);
		}
		it->cand = cmask;
	} else if (best >= 0) {
		out->layout = (enum mt_tag_layout_id)best;
		out->confidence = MT_CONF_LOW;
		item(out, MT_TAG_EV_BEST, best)->v[0] = best_bad;
	} else {
		item(out, MT_TAG_EV_NO_LAYOUT, MT_TAG_LAYOUT_RAW);
	}

	if (out->layout != MT_TAG_LAYOUT_RAW)
		item(out, MT_TAG_EV_SUMMARY, out->layout);
	if (override != MT_TAG_LAYOUT_NONE) {
		it = item(out, MT_TAG_EV_OVERRIDE, override);
		it->layout2 = (uint8_t)out->layout;
		it->v[0] = out->confidence;
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
	unsigned reason = 0;		/* well-decided endpoints use it */

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
			fit += !ruled_out(&ev[i], l, NULL);
		}
		if (!seen || fit < seen)
			continue;
		if (job != MT_TAG_LAYOUT_NONE)
			return;		/* two layouts fit everywhere */
		job = (enum mt_tag_layout_id)l;
		sure = seen;
		reason = 1;	/* every endpoint with operations allows only it */
	}
	if (job == MT_TAG_LAYOUT_NONE)
		return;
	for (size_t i = 0; i < n; i++) {
		/* A low guess that is the job's layout is confirmed by it. */
		if (res[i].confidence > MT_CONF_LOW ||
		    ruled_out(&ev[i], job, NULL))
			continue;
		res[i].layout = job;
		res[i].confidence = MT_CONF_MEDIUM;
		struct mt_tag_evidence_item *it = item(&res[i], MT_TAG_EV_JOB, job);

		it->v[0] = sure;
		it->v[1] = reason;
	}
}
