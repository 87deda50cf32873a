/*
 * ring.c - a ring file's records (format versions 3 and 4) in time order:
 * the pinned area merged with the ring's kept blocks, oldest first, each
 * as a version 1 file holds it (the fields a writer left unwritten 0). The
 * provider compacts a closed ring file from it, the reader reads every
 * ring file through it; both get the same records.
 */
#include <string.h>

#include "mt_codec.h"

/* Where the next record of one part (the pinned area, or the ring's kept
 * blocks one after another) lies. */
struct part {
	const uint8_t *p;		/* next record, NULL when done */
	const uint8_t *end;		/* end of its block or area */
	uint64_t seq, last_seq;		/* ring: block being read, last one */
	uint64_t keep;			/* ring: records from here on stay out */
};

struct ring_in {
	const struct mt_file_hdr *h;
	const uint8_t *ring;
	uint64_t nblocks, min_seq, cut;
	const char *why;
};

static const struct mt_ring_block *block_at(const struct ring_in *in,
					    uint64_t seq)
{
	return (const void *)(in->ring + (seq - 1) % in->nblocks * in->h->ring_block);
}

/* Points r at the records of block seq, or returns 0 when that block is
 * not the ring's (a stale number: never used, or begun anew). */
static int enter_block(struct ring_in *in, struct part *r, uint64_t seq)
{
	const struct mt_ring_block *b = block_at(in, seq);
	uint64_t room = in->h->ring_block - sizeof(*b), used;

	if (b->seq != seq)
		return 0;
	if (seq == in->h->ring_seq) {
		uint64_t start = (uint64_t)((const uint8_t *)(b + 1) - in->ring);
		uint64_t c = in->h->committed;

		used = c >= start && c - start <= room ? c - start : 0;
		r->keep = used > in->cut ? used - in->cut : 0;
	} else {
		used = b->used;
		r->keep = used;
		if (used > room) {
			in->why = "a ring block says it holds more than its size";
			return 0;
		}
	}
	r->seq = seq;
	r->p = (const uint8_t *)(b + 1);
	r->end = r->p + used;
	r->keep = (uint64_t)(uintptr_t)(r->p + r->keep);
	return 1;
}

/* The next block with records after r's, or r->p = NULL. */
static void next_block(struct ring_in *in, struct part *r, uint64_t from)
{
	/* Stops at last_seq itself: a header's UINT64_MAX must not wrap q. */
	for (uint64_t q = from; from && from <= r->last_seq && !in->why; q++) {
		if (enter_block(in, r, q) && r->p < r->end &&
		    (uintptr_t)r->p < r->keep)
			return;
		if (q == r->last_seq)
			break;
	}
	r->p = NULL;
}

/* The record at part r, checked to lie within its block or area; NULL
 * when r is done or the record is malformed (in->why). */
static const struct mt_rec_hdr *peek(struct ring_in *in, const struct part *r)
{
	const struct mt_rec_hdr *rec = (const void *)r->p;

	if (!r->p)
		return NULL;
	if ((size_t)(r->end - r->p) < sizeof(*rec) || rec->size < sizeof(*rec) ||
	    rec->size % 8 || rec->size > (size_t)(r->end - r->p)) {
		in->why = "a ring record runs past its block or is malformed";
		return NULL;
	}
	return rec;
}

static void advance(struct ring_in *in, struct part *r, int ring)
{
	r->p += ((const struct mt_rec_hdr *)r->p)->size;
	if (r->p >= r->end || (ring && (uintptr_t)r->p >= r->keep)) {
		if (ring)
			next_block(in, r, r->seq + 1);
		else
			r->p = NULL;
	}
}

/*
 * A ring record copied out (rec, its h.size checked) as a version 1 file
 * holds it: the fields its writer left unwritten (MT_AUX_UNWRITTEN,
 * mt_format.h) 0, its aux without the flag's bits.
 */
static void clear_unwritten(uint8_t *rec)
{
	struct mt_rec_hdr *h = (void *)rec;
	uint32_t aux = h->aux;

	if (!(aux & MT_AUX_UNWRITTEN))
		return;
	if (h->type == MT_REC_OP && h->size >= sizeof(struct mt_rec_op)) {
		struct mt_rec_op *r = (void *)rec;
		unsigned lacks;

		h->aux = aux & ~MT_AUX_UNWRITTEN;
		lacks = mt_op_lacks(h->aux);
		if (lacks & MT_OPF_TAG)
			r->tag = 0;
		if (lacks & MT_OPF_IGNORE)
			r->ignore = 0;
		if (lacks & MT_OPF_LEN)
			r->len = 0;
		if (lacks & MT_OPF_DATA)
			r->data = 0;
		if (lacks & MT_OPF_CONTEXT)
			r->context = 0;
		if (lacks & MT_OPF_FLAGS)
			r->flags = 0;
		r->retries = 0;
	} else if (h->type == MT_REC_CQE && h->size >= sizeof(struct mt_rec_cqe)) {
		struct mt_rec_cqe *r = (void *)rec;
		unsigned format = (aux & ~MT_AUX_UNWRITTEN) >> MT_AUX_CQ_FORMAT_SHIFT;

		h->aux = aux & ((1u << MT_AUX_CQ_FORMAT_SHIFT) - 1);
		if (format < MT_CQ_FORMAT_MSG)
			r->flags = r->len = 0;
		if (format < MT_CQ_FORMAT_DATA)
			r->data = 0;
		if (format < MT_CQ_FORMAT_TAGGED)
			r->tag = 0;
		r->olen = 0;
		r->err = r->prov_errno = 0;
	}
}

size_t mt_codec_ring_linear(const struct mt_file_hdr *h, const uint8_t *data,
			    size_t len, uint64_t min_seq, uint64_t cut,
			    uint8_t *out, struct mt_codec_ring *st,
			    const char **why)
{
	struct ring_in in = { .h = h, .ring = data, .min_seq = min_seq, .cut = cut };
	struct part ring = { 0 }, pin = { 0 };
	size_t n = 0;

	memset(st, 0, sizeof(*st));
	*why = NULL;
	if (h->ring_block < sizeof(struct mt_ring_block) + sizeof(struct mt_rec_hdr) ||
	    h->ring_block % 8 || h->ring_size % h->ring_block ||
	    h->ring_size > len) {
		*why = "the ring's size and block size do not fit the file";
		return 0;
	}
	in.nblocks = h->ring_size / h->ring_block;
	if (h->pinned <= len - h->ring_size) {
		pin.p = data + h->ring_size;
		pin.end = pin.p + h->pinned;
		if (!h->pinned)
			pin.p = NULL;
	} else
		in.why = "the pinned records run past the end of the file";
	ring.last_seq = h->ring_seq;
	if (h->ring_seq) {
		uint64_t first = h->ring_seq > in.nblocks ? h->ring_seq - in.nblocks + 1 : 1;

		next_block(&in, &ring, first > min_seq ? first : min_seq);
		st->first_seq = ring.p ? ring.seq : 0;
	}
	while (!in.why) {
		const struct mt_rec_hdr *a = peek(&in, &pin), *b = peek(&in, &ring);

		if (in.why || (!a && !b))
			break;
		if (a && (!b || a->ts <= b->ts)) {
			memcpy(out + n, a, a->size);
			n += a->size;
			advance(&in, &pin, 0);
		} else {
			if (!st->ring_recs++)
				st->oldest_ts = b->ts;
			memcpy(out + n, b, b->size);
			clear_unwritten(out + n);
			n += b->size;
			advance(&in, &ring, 1);
		}
	}
	*why = in.why;
	return n;
}
