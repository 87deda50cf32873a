/*
 * test_codec.c - the compact record stream (codec/mt_codec.h): every record
 * type and edge value decodes back byte for byte; bad streams are refused
 * with a reason, never read out of bounds.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "mt_codec.h"

#define MAXREC 64

struct seq {
	uint64_t *rec[MAXREC];	/* 8-aligned records */
	size_t n;
};

static struct mt_rec_hdr *add(struct seq *q, uint8_t type, uint8_t layer,
			      uint16_t size, uint32_t aux, uint64_t ts)
{
	struct mt_rec_hdr *h;

	cr_assert_lt(q->n, MAXREC);
	q->rec[q->n] = calloc(1, size);
	h = (struct mt_rec_hdr *)q->rec[q->n++];
	h->type = type;
	h->layer = layer;
	h->size = size;
	h->aux = aux;
	h->ts = ts;
	return h;
}

static void seq_free(struct seq *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->rec[i]);
}

/* Encodes q at file offset start of a buffer, decodes it back and compares
 * each record; returns the stream's length. */
static size_t round_trip(const struct seq *q, size_t start)
{
	size_t cap = start + 16, len = start;
	struct mt_codec_state *enc = malloc(sizeof(*enc)), *dec = malloc(sizeof(*dec));
	uint8_t *buf;
	uint64_t off = start;

	for (size_t i = 0; i < q->n; i++)
		cap += MT_CODEC_BOUND(((struct mt_rec_hdr *)q->rec[i])->size);
	buf = aligned_alloc(8, (cap + 7) / 8 * 8);
	memset(buf, 0xee, start);
	mt_codec_reset(enc);
	mt_codec_reset(dec);
	for (size_t i = 0; i < q->n; i++) {
		const struct mt_rec_hdr *r = (const void *)q->rec[i];
		size_t n = mt_codec_encode(enc, r, buf + len, len);

		cr_assert_leq(n, MT_CODEC_BOUND(r->size));
		len += n;
	}
	for (size_t i = 0; i < q->n; i++) {
		const struct mt_rec_hdr *want = (const void *)q->rec[i], *got;
		const char *why = NULL;

		got = mt_codec_decode(dec, buf, &off, len, &why);
		cr_assert_not_null(got, "record %zu: %s", i, why);
		cr_assert_eq(got->size, want->size, "record %zu size", i);
		cr_assert_eq(memcmp(got, want, want->size), 0,
			     "record %zu (type %u) differs", i, want->type);
		cr_assert_eq((uintptr_t)got % 8, 0, "record %zu aligned", i);
	}
	cr_assert_eq(off, len, "the stream is consumed exactly");
	free(buf);
	free(enc);
	free(dec);
	return len - start;
}

/* Every record type the format has, the ones the codec stores raw, unknown
 * ones, size changes, slot collisions and edge values. */
Test(codec, every_type_and_edge_values)
{
	struct seq q = { 0 };
	struct mt_rec_proc *p;
	struct mt_rec_op *op;
	struct mt_rec_cqe *c;
	struct mt_rec_av *av;
	struct mt_rec_ep *ep;
	struct mt_rec_hdr *u;

	p = (void *)add(&q, MT_REC_PROC, 0, sizeof(*p), 5, 1000);	/* > REF_MAX: raw */
	p->world_rank = -1;
	strcpy(p->hostname, "node");
	add(&q, MT_REC_CLOCK, 0, sizeof(struct mt_rec_clock), MT_CLOCK_START, 1001);
	add(&q, MT_REC_OBJ, 0, sizeof(struct mt_rec_obj), 14, 1002);
	ep = (void *)add(&q, MT_REC_EP, 0, sizeof(*ep), 0, 1003);
	ep->mem_tag_format = UINT64_MAX;
	memset(ep->name, 0xab, sizeof(ep->name));
	add(&q, MT_REC_BIND, 0, sizeof(struct mt_rec_bind), 0, 1004);
	av = (void *)add(&q, MT_REC_AV, 0, sizeof(*av), MT_AV_INSERT, 1005);
	av->fi_addr = UINT64_MAX;
	for (int i = 0; i < 4; i++) {
		op = (void *)add(&q, MT_REC_OP, i & 1, sizeof(*op),
				 i & 1 ? MT_OP_TRECV : MT_OP_TSEND,
				 2000 + (uint64_t)i * 1000);
		op->ep = 0x7f0000001000;
		op->tag = 0x0001000200000000ull + (uint64_t)i;
		op->len = i == 3 ? UINT64_MAX : 1ull << (i * 8);
		op->context = 0x55550000 + (uint64_t)i * 64;
		op->ret = i == 2 ? INT32_MIN : -(int32_t)i;
		op->retries = i == 1 ? UINT32_MAX : 0;
	}
	/* OP with the optional trailing call-site word (96 bytes), then 88 again. */
	op = (void *)add(&q, MT_REC_OP, 0, sizeof(*op) + 8, MT_OP_TSEND, 9000);
	((uint32_t *)(op + 1))[0] = 42;
	add(&q, MT_REC_OP, 0, sizeof(*op) + 8, MT_OP_TSEND, 9001);
	add(&q, MT_REC_OP, 0, sizeof(*op), MT_OP_TSEND, 9002);
	c = (void *)add(&q, MT_REC_CQE, 0, sizeof(*c), MT_CQ_READERR, 9003);
	c->err = -5;
	c->prov_errno = INT32_MIN;
	c->olen = UINT64_MAX;
	c->src = UINT64_MAX;
	add(&q, MT_REC_CLOSE, 0, sizeof(struct mt_rec_close), 3, 9004);
	/* Timestamps: backwards, to 0, to the top, wrapping. */
	add(&q, MT_REC_CQE, 0, sizeof(*c), MT_CQ_READ, 5);
	add(&q, MT_REC_CQE, 0, sizeof(*c), MT_CQ_READ, 0);
	add(&q, MT_REC_CQE, 0, sizeof(*c), UINT32_MAX, UINT64_MAX);
	add(&q, MT_REC_CQE, 0, sizeof(*c), 0, 1);
	/* Unknown types: one coded sharing OP's slot (7 + 16), one raw
	 * (larger than a reference), one at the top of the type range; a
	 * record of layer 2 (raw). */
	u = add(&q, MT_REC_OP + MT_CODEC_REF_SLOTS, 0, 24, 1, 10);
	((uint64_t *)u)[2] = 0x1234;
	add(&q, MT_REC_OP, 0, sizeof(*op), MT_OP_TSEND, 11);
	u = add(&q, 200, 0, MT_CODEC_REF_MAX + 8, 7, 12);
	memset(u + 1, 0x5a, MT_CODEC_REF_MAX + 8 - sizeof(*u));
	add(&q, 255, 1, 16, UINT32_MAX, 13);
	add(&q, MT_REC_OP, 2, sizeof(*op), MT_OP_TSEND, 14);
	add(&q, 12, 0, MT_CODEC_REF_MAX, 0, 15);	/* largest coded */
	for (size_t start = 0; start < 8; start++)
		round_trip(&q, start);
	seq_free(&q);
}

/* The common case is small: repeated sends differing in context and tag. */
Test(codec, hot_records_are_small)
{
	struct seq q = { 0 };
	size_t len;

	for (int i = 0; i < 32; i++) {
		struct mt_rec_op *op = (void *)add(&q, MT_REC_OP, 0, sizeof(*op),
						   MT_OP_TSEND, 100000 + (uint64_t)i * 3000);

		op->ep = 0x7f0000001000;
		op->addr = 1;
		op->tag = 0x0001000200000000ull | (uint64_t)(i & 3);
		op->len = 64;
		op->context = 0x55550000 + (uint64_t)(i % 4) * 64;
	}
	len = round_trip(&q, 0);
	/* First record ~ its fields; the rest: type, mask, ts, context, tag. */
	cr_assert_lt(len, 32 * 10, "32 sends took %zu bytes", len);
	seq_free(&q);
}

/* Random records (deterministic seed): every field value, sizes 16 to 264. */
Test(codec, random_round_trip)
{
	unsigned seed = 12345;

	for (int round = 0; round < 200; round++) {
		struct seq q = { 0 };

		for (int i = 0; i < MAXREC; i++) {
			uint16_t size = (uint16_t)(16 + 8 * (rand_r(&seed) % 32));
			struct mt_rec_hdr *h = add(&q, (uint8_t)(rand_r(&seed) % 24),
						   (uint8_t)(rand_r(&seed) % 3), size,
						   (uint32_t)rand_r(&seed),
						   (uint64_t)rand_r(&seed) << (rand_r(&seed) % 40));
			uint64_t *w = (uint64_t *)h;

			for (unsigned k = 2; k < size / 8u; k++)
				if (rand_r(&seed) % 2)
					w[k] = (uint64_t)rand_r(&seed) << (rand_r(&seed) % 60);
		}
		round_trip(&q, (size_t)round % 8);
		seq_free(&q);
	}
}

/* Varints of every length, 1 to 10 bytes, at every alignment: the decoder
 * reads most of them as one 8-byte word, and the last ones of a stream (no
 * 8 bytes left) and the 9- and 10-byte ones a byte at a time. */
Test(codec, every_varint_length)
{
	for (size_t start = 0; start < 8; start++) {
		struct seq q = { 0 };

		for (unsigned bits = 0; bits <= 64; bits += 7) {
			uint64_t top = bits >= 64 ? ~0ull : (1ull << bits) - 1;
			uint64_t *w = (uint64_t *)add(&q, MT_REC_OP, 0, 48, bits, top);

			w[2] = top;			/* all ones up to bits */
			w[3] = bits < 64 ? 1ull << bits : 1;	/* one byte more */
			w[4] = top ^ 0x5555555555555555ull;
			w[5] = bits;
		}
		round_trip(&q, start);
		seq_free(&q);
	}
}

/* Garbage and cut streams: NULL with a reason, never past end (ASan). */
Test(codec, bad_input_refused)
{
	struct mt_codec_state s;
	unsigned seed = 7;
	const char *why;

	for (int round = 0; round < 2000; round++) {
		size_t len = (size_t)(rand_r(&seed) % 64);
		uint8_t *buf = malloc(len ? len : 1);
		uint64_t off = 0;

		for (size_t i = 0; i < len; i++)
			buf[i] = (uint8_t)rand_r(&seed);
		mt_codec_reset(&s);
		while (off < len) {
			why = NULL;
			if (!mt_codec_decode(&s, buf, &off, len, &why)) {
				cr_assert_not_null(why);
				break;
			}
		}
		free(buf);
	}
	/* Specific refusals. */
	{
		static const uint8_t no_ref[] = { MT_REC_OP, 0x00, 0x00 };
		static const uint8_t long_varint[] = { MT_REC_OP, 0xff, 0xff, 0xff, 0xff, 0xff,
						       0xff, 0xff, 0xff, 0xff, 0x7f };
		static const uint8_t raw_small[] = { 1, 0x01, 0x01 };
		uint64_t off = 0;

		mt_codec_reset(&s);
		cr_assert_null(mt_codec_decode(&s, no_ref, &off, sizeof(no_ref), &why));
		cr_assert(strstr(why, "previous record"), "%s", why);
		off = 0;
		cr_assert_null(mt_codec_decode(&s, long_varint, &off, sizeof(long_varint), &why));
		/* the same with more bytes after it: a word read finds no end in
		 * its 8 bytes and leaves the 10th byte's check to the byte loop */
		{
			uint8_t slack[sizeof(long_varint) + 16];

			memset(slack, 0, sizeof(slack));
			memcpy(slack, long_varint, sizeof(long_varint));
			off = 0;
			cr_assert_null(mt_codec_decode(&s, slack, &off, sizeof(slack), &why));
			cr_assert(strstr(why, "field mask"), "%s", why);
		}
		off = 0;
		cr_assert_null(mt_codec_decode(&s, raw_small, &off, sizeof(raw_small), &why));
		cr_assert(strstr(why, "out of range"), "%s", why);
	}
}
