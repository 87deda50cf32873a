/*
 * match_fixture.c - helpers building operations for the matcher tests.
 */
#include <criterion/criterion.h>
#include <rdma/fabric.h>

#include "match_fixture.h"

struct mt_match *m;

void fx_setup(void)
{
	struct mt_match_cfg cfg = {
		.loose_mask = SYNC_BIT,
		.ack_mask = ACK_BIT,
		.field_mask = { [MT_MATCH_F_CID] = 0xfffffffc00000000ull,
				[MT_MATCH_F_PROTO] = 0x300000000ull,
				[MT_MATCH_F_TAG] = 0xffffffffull },
		.check = 1,
	};

	cr_assert_eq(mt_match_new(&cfg, &m), MT_OK);
	for (int i = 0; i < N_EP; i++)
		cr_assert_eq(mt_match_add_ep(m, i, i, i), MT_OK);
}

void fx_teardown(void)
{
	char why[256];

	cr_assert_eq(mt_match_check(m, why, sizeof(why)), MT_OK,
		     "invariant: %s", why);
	mt_match_free(m);
	m = NULL;
}

uint64_t fx_tag(uint32_t cid, int32_t tag)
{
	return (uint64_t)cid << 34 | (uint32_t)tag;
}

static struct mt_match_fields fields(uint64_t tag, int32_t src)
{
	int32_t t = (int32_t)(uint32_t)tag;
	uint8_t kind = tag & ACK_BIT ? MT_MATCH_SSEND_ACK :
		tag & SYNC_BIT ? MT_MATCH_SSEND : t < 0 ? MT_MATCH_COLL :
		MT_MATCH_USER;

	return (struct mt_match_fields){ .cid = (int64_t)(tag >> 34),
		.comm_src = src, .tag = t, .kind = kind, .internal = t < 0,
		.has_tag = 1 };
}

struct mt_match_op fx_send_tmpl(int ep, int dst, uint64_t tag, uint64_t len,
				uint64_t ctx, uint64_t ts)
{
	return (struct mt_match_op){ .ts = ts, .context = ctx, .tag = tag,
		.len = len, .flags = FI_COMPLETION, .src_id = (uint64_t)ep,
		.ep = ep, .peer = dst, .dir = MT_MATCH_DIR_SEND, .tagged = 1,
		.selective = 1, .f = fields(tag, ep) };
}

void fx_send_op(const struct mt_match_op *op)
{
	cr_assert_eq(mt_match_post(m, op), MT_OK);
}

void fx_send(int ep, int dst, uint64_t tag, uint64_t len, uint64_t ctx,
	     uint64_t ts)
{
	struct mt_match_op op = fx_send_tmpl(ep, dst, tag, len, ctx, ts);

	fx_send_op(&op);
}

struct mt_match_op fx_recv_tmpl(int ep, int src, uint64_t tag, uint64_t ignore,
				uint64_t len, uint64_t ctx, uint64_t ts)
{
	return (struct mt_match_op){ .ts = ts, .context = ctx, .tag = tag,
		.ignore = ignore, .len = len, .flags = FI_COMPLETION,
		.src_id = MT_MATCH_NOSRC, .ep = ep, .peer = src,
		.dir = MT_MATCH_DIR_RECV, .tagged = 1, .selective = 1,
		.f = fields(tag, src) };
}

void fx_recv(int ep, int src, uint64_t tag, uint64_t ignore, uint64_t len,
	     uint64_t ctx, uint64_t ts)
{
	struct mt_match_op op = fx_recv_tmpl(ep, src, tag, ignore, len, ctx, ts);

	cr_assert_eq(mt_match_post(m, &op), MT_OK);
}

struct mt_match_cqe fx_cqe_tmpl(int ep, uint64_t ctx, uint64_t ts, uint64_t tag,
				uint64_t len, uint64_t src_id, int err)
{
	return (struct mt_match_cqe){ .ts = ts, .context = ctx, .tag = tag,
		.len = len, .src_id = src_id, .ep = ep, .src_ep = -1,
		.err = err, .f = fields(tag, (int32_t)src_id) };
}

void fx_cqe_op(const struct mt_match_cqe *c)
{
	cr_assert_eq(mt_match_complete(m, c), MT_OK);
}

void fx_cqe(int ep, uint64_t ctx, uint64_t ts, uint64_t tag, uint64_t len,
	    uint64_t src_id, int err)
{
	struct mt_match_cqe c = fx_cqe_tmpl(ep, ctx, ts, tag, len, src_id, err);

	fx_cqe_op(&c);
}

size_t fx_drain(struct mt_match_msg *out, size_t max)
{
	return mt_match_take(m, out, max);
}

size_t fx_finish(struct mt_match_msg *out, size_t max)
{
	size_t n = fx_drain(out, max);

	cr_assert_eq(mt_match_finish(m), MT_OK);
	return n + fx_drain(out + n, max - n);
}
