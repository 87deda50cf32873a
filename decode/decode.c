/*
 * decode.c - receive filters and encoding, for one layout. Decoding a
 * message, the hot path, is static inline in mt_decode.h.
 */
#include "mt_decode.h"

static uint64_t anytag_bits(const struct mt_tag_layout *l)
{
	/* Open MPI keeps the top tag bit so that wildcards never match its
	 * negative internal tags. */
	return l->anytag_keeps_top_bit ? l->tag_mask >> 1 : l->tag_mask;
}

/*
 * Decode a posted receive (tag, ignore mask, and what the caller knows of
 * the call: FI_PEEK, FI_CLAIM, a named src_addr) into the filter it sets.
 * Wildcard fields get MT_RANK_ANY / -1 (MPI_ANY_TAG) and leave out->f.valid.
 * odd_ignore says the mask is not one the layout's MPI library produces.
 */
void mt_tag_decode_recv(const struct mt_tag_layout *l, uint64_t tag,
			uint64_t ignore, unsigned recv_in, struct mt_tag_filter *out)
{
	uint64_t anytag = anytag_bits(l), rest;

	mt_tag_decode(l, tag, 0, 0, &out->f);
	out->any_source = out->any_tag = out->odd_ignore = false;
	if ((recv_in & MT_TAG_RECV_PEEK) && (recv_in & MT_TAG_RECV_CLAIM))
		out->kind = MT_RECV_MPROBE;
	else if (recv_in & MT_TAG_RECV_PEEK)
		out->kind = MT_RECV_PROBE;
	else if (recv_in & MT_TAG_RECV_CLAIM)
		out->kind = MT_RECV_MRECV;
	else if (!ignore && l->ack && (tag & l->proto_mask) == l->ack)
		out->kind = MT_RECV_SSEND_ACK;
	else
		out->kind = MT_RECV_PLAIN;
	if (l->id == MT_TAG_LAYOUT_RAW || out->kind == MT_RECV_SSEND_ACK)
		return;
	/* MPICH's dynamic-process and finalize-flush receives match their
	 * DYNPROC tag exactly. */
	if (!ignore && l->dynproc && (tag & l->proto_mask) == l->dynproc)
		return;

	if ((ignore & l->recv_always_ignored) != l->recv_always_ignored)
		out->odd_ignore = true;
	rest = ignore & ~l->recv_always_ignored;
	if (l->src_in == MT_SRC_TAG)
		out->any_source = (rest & l->src_mask) == l->src_mask;
	else if (l->src_in == MT_SRC_DATA)
		out->any_source = !(recv_in & MT_TAG_RECV_DIRECTED);
	out->any_tag = (rest & anytag) == anytag;
	if (out->any_source)
		rest &= ~l->src_mask;
	if (out->any_tag)
		rest &= ~anytag;
	if (rest)
		out->odd_ignore = true;

	/* The ignored bits are not part of what the receive asks for. */
	out->f.proto = MT_PROTO_NORMAL;
	if (out->any_source) {
		out->f.source = MT_RANK_ANY;
		out->f.valid &= (uint8_t)~MT_V_SOURCE;
	}
	if (out->any_tag) {
		out->f.tag = -1;
		out->f.valid &= (uint8_t)~MT_V_TAG;
		out->f.flags &= (uint8_t)~(MT_F_INTERNAL | MT_F_MAYBE_ALIASED);
	}
}

static uint64_t proto_bits(const struct mt_tag_layout *l, enum mt_tag_proto p)
{
	switch (p) {
	case MT_PROTO_NORMAL: return 0;
	case MT_PROTO_SSEND: return l->sync;
	case MT_PROTO_SSEND_ACK: return l->ack;
	case MT_PROTO_HUGE: return l->huge;
	case MT_PROTO_DYNPROC: return l->dynproc;
	case MT_PROTO_RNDV: return l->rndv ? l->rndv :
				   l->sync_rndv ? l->sync | l->huge : 0;
	case MT_PROTO_AM: return l->am;
	case MT_PROTO_BAD: break;
	}
	return 0;
}

/*
 * Encode a message the way the layout's MPI library does: tag bits, and the
 * CQ data for layouts that carry the source there (not for the Open MPI
 * ssend ACK, sent without data). A field that does not fit is truncated to
 * its usable width, as the wire would alias it, and named in out->truncated;
 * the result is then MT_ERR_RANGE. Source and tag count only when their
 * valid bits are set (0 otherwise).
 */
enum mt_status mt_tag_encode(const struct mt_tag_layout *l, const struct mt_tag_fields *in,
		  struct mt_tag_wire *out)
{
	uint8_t trunc = 0;
	int64_t tag = (in->valid & MT_V_TAG) ? in->tag : 0;
	int64_t src = (in->valid & MT_V_SOURCE) ? in->source : 0;
	uint64_t p;

	out->tag = out->data = out->ignore = 0;
	out->has_data = out->directed = false;
	out->truncated = 0;
	if (l->id == MT_TAG_LAYOUT_RAW)
		return MT_ERR_ARG;

	if (in->cid > l->cid_max)
		trunc |= MT_V_CID;
	out->tag |= ((uint64_t)in->cid & l->cid_max) << l->cid_shift;

	if (l->tag_signed ? tag < -(int64_t)l->tag_ub - 1 || tag > (int64_t)l->tag_ub
			  : tag < 0 || tag > (int64_t)l->tag_ub)
		trunc |= MT_V_TAG;
	out->tag |= (uint64_t)tag & l->tag_mask;

	p = proto_bits(l, (enum mt_tag_proto)in->proto);
	if (in->proto != MT_PROTO_NORMAL && !p)
		trunc |= MT_V_PROTO;
	out->tag |= p;

	if (src < 0 || (uint64_t)src > l->src_max)
		trunc |= MT_V_SOURCE;
	if (l->src_in == MT_SRC_TAG) {
		out->tag |= ((uint64_t)src & l->src_max) << l->src_shift;
	} else if (l->src_in == MT_SRC_DATA && in->proto != MT_PROTO_SSEND_ACK) {
		out->data = (uint64_t)src & l->src_max;
		out->has_data = true;
	}
	out->truncated = trunc;
	return trunc ? MT_ERR_RANGE : MT_OK;
}

/*
 * Encode a posted receive: tag and ignore mask as the layout's MPI library
 * builds them (wildcard fields zero in the tag, ignored by the mask; the ssend
 * ACK receive matches exactly), and whether src_addr names the peer.
 */
enum mt_status mt_tag_encode_recv(const struct mt_tag_layout *l,
		       const struct mt_tag_filter *in, struct mt_tag_wire *out)
{
	struct mt_tag_fields f = in->f;
	bool ack = in->kind == MT_RECV_SSEND_ACK;
	enum mt_status ret;

	f.proto = ack ? MT_PROTO_SSEND_ACK : MT_PROTO_NORMAL;
	if (in->any_source)
		f.valid &= (uint8_t)~MT_V_SOURCE;
	if (in->any_tag)
		f.valid &= (uint8_t)~MT_V_TAG;
	ret = mt_tag_encode(l, &f, out);
	out->data = 0;
	out->has_data = false;
	if (ret == MT_ERR_ARG || ack)
		return ret;
	out->ignore = l->recv_always_ignored;
	if (in->any_source)
		out->ignore |= l->src_mask;
	if (in->any_tag)
		out->ignore |= anytag_bits(l);
	out->directed = !in->any_source && l->directed_recv == 1;
	return ret;
}

bool mt_tag_untagged_handshake(const struct mt_tag_layout *l, uint64_t len)
{
	/* Open MPI's OFI MTL sends nothing else untagged; MPICH has no
	 * handshake of this kind. */
	return (l->id == MT_TAG_LAYOUT_OMPI_FULL || l->id == MT_TAG_LAYOUT_OMPI_TAG1 ||
		l->id == MT_TAG_LAYOUT_OMPI_TAG2) && len == MT_TAG_OMPI_CID_HDR_LEN;
}
