/*
 * test_ring_linear.c - a ring file's records as the reader and compaction
 * get them (mt_codec_ring_linear): records written over an older lap's
 * bytes (MT_AUX_UNWRITTEN) come out as a version 1 file holds them, the
 * fields their writer left out 0 and the flag's bits gone; records written
 * whole keep every byte.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "mt_codec.h"

#define BLOCK 512u
#define NBLOCKS 2u
#define GARBAGE 0xab

/* A ring of two blocks whose block 3 (index 0, over block 1's bytes,
 * left as GARBAGE) is being written; block 2 is empty. */
struct ring {
	struct mt_file_hdr h;
	uint8_t data[BLOCK * NBLOCKS];
	size_t at;			/* next record's offset in data */
};

static void ring_init(struct ring *r)
{
	struct mt_ring_block b3 = { .seq = 3 }, b2 = { .seq = 2 };

	memset(r, 0, sizeof(*r));
	memset(r->data, GARBAGE, sizeof(r->data));
	r->h.version = MT_TRACE_VERSION_RING;
	r->h.ring_size = sizeof(r->data);
	r->h.ring_block = BLOCK;
	r->h.ring_seq = 3;
	memcpy(r->data, &b3, sizeof(b3));
	memcpy(r->data + BLOCK, &b2, sizeof(b2));
	r->at = sizeof(b3);
	r->h.committed = r->at;
}

/* Room for a record of size bytes at the write position: its header is
 * written, its other bytes stay what the older lap left. */
static void *ring_put(struct ring *r, uint8_t type, uint16_t size, uint32_t aux,
		      uint64_t ts)
{
	struct mt_rec_hdr *h = (void *)(r->data + r->at);

	h->type = type;
	h->layer = 0;
	h->size = size;
	h->aux = aux;
	h->ts = ts;
	r->at += size;
	r->h.committed = r->at;
	return h;
}

/* The ring's records in time order into out (8-aligned, room enough);
 * returns how many bytes. */
static size_t linear(const struct ring *r, uint64_t *out)
{
	struct mt_codec_ring st;
	const char *why;
	size_t n = mt_codec_ring_linear(&r->h, r->data, sizeof(r->data), 0, 0,
					(uint8_t *)out, &st, &why);

	cr_assert_null(why, "%s", why);
	return n;
}

Test(ring_linear, unwritten_fields_of_an_inline_op_read_as_0)
{
	static struct ring r;
	uint64_t out[BLOCK];
	struct mt_rec_op *op, *o;

	ring_init(&r);
	/* fi_tinject: ep, addr, tag, len and ret written, nothing else. */
	op = ring_put(&r, MT_REC_OP, sizeof(*op), MT_OP_TINJECT | MT_AUX_UNWRITTEN, 10);
	op->ep = 1, op->addr = 2, op->tag = 3, op->len = 4, op->ret = 0;
	cr_assert_eq(linear(&r, out), sizeof(*op));
	o = (void *)out;
	cr_assert_eq(o->h.aux, MT_OP_TINJECT);
	cr_assert_eq(o->ep, 1);
	cr_assert_eq(o->addr, 2);
	cr_assert_eq(o->tag, 3);
	cr_assert_eq(o->len, 4);
	cr_assert_eq(o->ret, 0);
	cr_assert_eq(o->ignore, 0);
	cr_assert_eq(o->data, 0);
	cr_assert_eq(o->context, 0);
	cr_assert_eq(o->flags, 0);
	cr_assert_eq(o->retries, 0);
}

Test(ring_linear, unwritten_fields_of_an_inline_cqe_read_as_0)
{
	static struct ring r;
	uint64_t out[BLOCK];
	struct mt_rec_cqe *ctx, *msg, *o;

	ring_init(&r);
	/* A CONTEXT format CQ: cq, context and src written. */
	ctx = ring_put(&r, MT_REC_CQE, sizeof(*ctx),
		       MT_CQ_READFROM | MT_AUX_UNWRITTEN |
		       MT_CQ_FORMAT_CONTEXT << MT_AUX_CQ_FORMAT_SHIFT, 10);
	ctx->cq = 1, ctx->context = 2, ctx->src = 3;
	/* A MSG format CQ: flags and len too. */
	msg = ring_put(&r, MT_REC_CQE, sizeof(*msg),
		       MT_CQ_READ | MT_AUX_UNWRITTEN |
		       MT_CQ_FORMAT_MSG << MT_AUX_CQ_FORMAT_SHIFT, 11);
	msg->cq = 1, msg->context = 4, msg->flags = 5, msg->len = 6, msg->src = 7;
	cr_assert_eq(linear(&r, out), 2 * sizeof(*ctx));
	o = (void *)out;
	cr_assert_eq(o->h.aux, MT_CQ_READFROM);
	cr_assert_eq(o->cq, 1);
	cr_assert_eq(o->context, 2);
	cr_assert_eq(o->src, 3);
	cr_assert_eq(o->flags | o->len | o->data | o->tag | o->olen, 0);
	cr_assert_eq(o->err | o->prov_errno, 0);
	o++;
	cr_assert_eq(o->h.aux, MT_CQ_READ);
	cr_assert_eq(o->context, 4);
	cr_assert_eq(o->flags, 5);
	cr_assert_eq(o->len, 6);
	cr_assert_eq(o->src, 7);
	cr_assert_eq(o->data | o->tag | o->olen, 0);
	cr_assert_eq(o->err | o->prov_errno, 0);
}

/* Records the general paths write whole (and version 3's, written into
 * zeroed blocks) carry no flag: every byte is theirs. */
Test(ring_linear, records_written_whole_keep_every_field)
{
	static struct ring r;
	uint64_t out[BLOCK];
	struct mt_rec_op *op, *o;
	struct mt_rec_cqe *err, *e;

	ring_init(&r);
	op = ring_put(&r, MT_REC_OP, sizeof(*op), MT_OP_TSEND, 10);
	memset(&op->ep, 0x11, sizeof(*op) - sizeof(op->h));
	err = ring_put(&r, MT_REC_CQE, sizeof(*err), MT_CQ_READERR, 11);
	memset(&err->cq, 0x22, sizeof(*err) - sizeof(err->h));
	cr_assert_eq(linear(&r, out), sizeof(*op) + sizeof(*err));
	o = (void *)out;
	e = (void *)(o + 1);
	cr_assert_eq(memcmp(o, op, sizeof(*op)), 0);
	cr_assert_eq(memcmp(e, err, sizeof(*err)), 0);
}
