/*
 * match_fixture.h - hand-built operation streams for the matcher tests.
 * Layout used: Open MPI's ofi_tag_full (cid 30 | proto 2 | tag 32, source
 * rank in CQ data). Four endpoints, ep i is process i, world rank i.
 */
#ifndef MATCH_FIXTURE_H
#define MATCH_FIXTURE_H

#include <stdint.h>

#include "mt_match.h"

#define SYNC_BIT 0x100000000ull
#define ACK_BIT 0x200000000ull
#define ANY_TAG_IGNORE 0x7fffffffull
#define N_EP 4

extern struct mt_match *m;

void fx_setup(void);
void fx_teardown(void);		/* finishes, then asserts mt_match_check */
uint64_t fx_tag(uint32_t cid, int32_t tag);
/* Send from ep to dst, source identity = sender rank (CQ data). */
void fx_send(int ep, int dst, uint64_t tag, uint64_t len, uint64_t ctx,
	     uint64_t ts);
void fx_send_op(const struct mt_match_op *op);
struct mt_match_op fx_send_tmpl(int ep, int dst, uint64_t tag, uint64_t len,
				uint64_t ctx, uint64_t ts);
/* Receive on ep from src (-1 any) with filter tag/ignore. */
void fx_recv(int ep, int src, uint64_t tag, uint64_t ignore, uint64_t len,
	     uint64_t ctx, uint64_t ts);
struct mt_match_op fx_recv_tmpl(int ep, int src, uint64_t tag, uint64_t ignore,
				uint64_t len, uint64_t ctx, uint64_t ts);
/* Completion on ep's CQ; src_id = CQ data (sender's rank). */
void fx_cqe(int ep, uint64_t ctx, uint64_t ts, uint64_t tag, uint64_t len,
	    uint64_t src_id, int err);
void fx_cqe_op(const struct mt_match_cqe *c);
struct mt_match_cqe fx_cqe_tmpl(int ep, uint64_t ctx, uint64_t ts, uint64_t tag,
				uint64_t len, uint64_t src_id, int err);
/* Finishes and drains every message into out (at most max). */
size_t fx_finish(struct mt_match_msg *out, size_t max);
size_t fx_drain(struct mt_match_msg *out, size_t max);

#endif /* MATCH_FIXTURE_H */
