/*
 * test_clone.c - the per-object ops-table clones, driven with provider
 * objects and tables defined here: the provider's static tables are never
 * written, entries newer than our headers survive, entries a provider lacks
 * stay NULL, calls and return values pass through, a table swapped in
 * control is re-cloned, and a failed close leaves everything in place.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hook.h"

/* A provider built against newer headers: two entries past ours. */
struct new_tagged {
	struct fi_ops_tagged t;
	void *extra[2];
};

static int sends, sends2, close_ret;
static void *swap_to;

static ssize_t p_tsend(struct fid_ep *ep, const void *buf, size_t len,
		       void *desc, fi_addr_t dest, uint64_t tag, void *ctx)
{
	(void)ep, (void)buf, (void)len, (void)desc, (void)dest, (void)tag, (void)ctx;
	sends++;
	return 0;
}

static ssize_t p_tsend2(struct fid_ep *ep, const void *buf, size_t len,
			void *desc, fi_addr_t dest, uint64_t tag, void *ctx)
{
	(void)ep, (void)buf, (void)len, (void)desc, (void)dest, (void)tag, (void)ctx;
	sends2++;
	return 0;
}

static ssize_t p_tinject(struct fid_ep *ep, const void *buf, size_t len,
			 fi_addr_t dest, uint64_t tag)
{
	(void)ep, (void)buf, (void)len, (void)dest, (void)tag;
	return -FI_EAGAIN;
}

static int p_close(struct fid *fid)
{
	(void)fid;
	return close_ret;
}

/* Like psm2: enabling the endpoint installs another tagged table. */
static int p_control(struct fid *fid, int command, void *arg)
{
	struct fid_ep *ep = HOOK_EP_OF(fid);

	(void)arg;
	if (command == FI_ENABLE && swap_to)
		ep->tagged = swap_to;
	return 0;
}

static int p_getname(fid_t fid, void *addr, size_t *len)
{
	(void)fid;
	memset(addr, 0xab, 16);
	*len = 16;
	return 0;
}

static struct fi_ops p_fid_ops = {
	.size = sizeof(struct fi_ops), .close = p_close, .control = p_control,
};
static struct fi_ops_domain p_dom_ops = { .size = sizeof(struct fi_ops_domain) };
static struct fi_ops_ep p_ep_ops = { .size = sizeof(struct fi_ops_ep) };
static struct fi_ops_cm p_cm_ops = { .size = sizeof(struct fi_ops_cm), .getname = p_getname };
static struct new_tagged p_tagged = {
	.t = { .size = sizeof(struct new_tagged), .send = p_tsend, .inject = p_tinject },
	.extra = { (void *)0x1234, (void *)0x5678 },
};
static struct fi_ops_tagged p_tagged2 = { .size = sizeof(struct fi_ops_tagged), .send = p_tsend2 };

static struct fid_domain dom;
static struct fid_ep ep;
static struct fi_info *info;
static char tmp[PATH_MAX];

static void setup(void)
{
	struct mt_rec_conf c = {
		.buffer_size = 1 << 20, .chunk_size = 1 << 16, .file_mode = 0600,
	};

	snprintf(tmp, sizeof(tmp), "%s/mt_clone_test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(tmp));
	c.dir = tmp;
	cr_assert_eq(mt_rec_init(&c), 0);

	dom.fid.fclass = FI_CLASS_DOMAIN;
	dom.fid.ops = &p_fid_ops;
	dom.ops = &p_dom_ops;
	ep.fid.fclass = FI_CLASS_EP;
	ep.fid.ops = &p_fid_ops;
	ep.ops = &p_ep_ops;
	ep.cm = &p_cm_ops;
	ep.tagged = &p_tagged.t;
	info = fi_allocinfo();
	cr_assert_not_null(info);
	info->ep_attr->mem_tag_format = 0xaaaa;
	mt_hook_domain_opened(NULL, &dom, info);
	cr_assert_neq(dom.ops, &p_dom_ops, "domain hooked");
	mt_hook_ep_opened(HOOK_OBJ(dom.ops), &ep, info);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	fi_freeinfo(info);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(clone, .init = setup, .fini = teardown);

/* Records of each type committed so far in this thread's file. */
static int count(unsigned type)
{
	const struct mt_rec_buf *b = mt_rec_tls.buf;
	const char *p = (const char *)b->hdr + MT_FILE_HDR_SIZE;
	uint64_t off = 0;
	int n = 0;

	while (off < b->hdr->committed) {
		const struct mt_rec_hdr *h = (const void *)(p + off);

		n += h->type == type;
		off += h->size;
	}
	return n;
}

Test(clone, provider_tables_untouched_and_extended_entries_kept)
{
	const struct new_tagged *c = (const void *)ep.tagged;
	struct new_tagged before;

	memcpy(&before, &p_tagged, sizeof(before));
	cr_assert_neq(ep.tagged, &p_tagged.t);
	cr_assert_eq(memcmp(&before, &p_tagged, sizeof(before)), 0);
	cr_assert_eq(c->t.size, sizeof(struct new_tagged));
	cr_assert_eq(c->extra[0], (void *)0x1234);
	cr_assert_eq(c->extra[1], (void *)0x5678);
	cr_assert_null(c->t.recv, "an entry the provider lacks stays NULL");
	cr_assert_neq((void *)c->t.send, (void *)p_tsend);
	cr_assert_eq(ep.msg, NULL, "no table, no clone");
	cr_assert_eq(p_fid_ops.close, p_close);
}

Test(clone, calls_pass_through_and_are_recorded)
{
	cr_assert_eq(fi_tsend(&ep, "x", 1, NULL, 3, 0x42, NULL), 0);
	cr_assert_eq(sends, 1);
	cr_assert_eq(count(MT_REC_OP), 1);
	cr_assert_eq(fi_tinject(&ep, "x", 1, 3, 0x42), -FI_EAGAIN);
	cr_assert_eq(count(MT_REC_OP), 1, "EAGAIN leaves no record");
	cr_assert_eq(mt_rec_tls.buf->hdr->eagain, 1);
}

Test(clone, table_swapped_in_control_is_recloned)
{
	swap_to = &p_tagged2;
	cr_assert_eq(fi_enable(&ep), 0);
	cr_assert_neq(ep.tagged, &p_tagged2, "the new table is cloned too");
	cr_assert_eq(fi_tsend(&ep, "x", 1, NULL, 3, 0x42, NULL), 0);
	cr_assert_eq(sends2, 1);
	cr_assert_eq(sends, 0);
	cr_assert_eq(count(MT_REC_OP), 1);
	cr_assert_eq(count(MT_REC_EP), 1, "FI_ENABLE writes the endpoint record");
}

Test(clone, failed_close_keeps_the_hooks)
{
	close_ret = -FI_EBUSY;
	cr_assert_eq(fi_close(&ep.fid), -FI_EBUSY);
	cr_assert_eq(fi_tsend(&ep, "x", 1, NULL, 3, 0x42, NULL), 0);
	cr_assert_eq(count(MT_REC_OP), 1, "still recorded after a failed close");
	close_ret = 0;
	cr_assert_eq(fi_close(&ep.fid), 0);
	cr_assert_eq(count(MT_REC_CLOSE), 2);
}

/* A util-like CQ: read calls fi_cq_readfrom on itself, which must not be
 * recorded a second time. Entries are DATA format. */
static int reads_from;

static ssize_t p_cq_readfrom(struct fid_cq *cq, void *buf, size_t count,
			     fi_addr_t *src)
{
	struct fi_cq_data_entry *e = buf;

	(void)cq;
	reads_from++;
	if (count < 2)
		return -FI_EAGAIN;
	e[0] = (struct fi_cq_data_entry){ (void *)0x10, FI_RECV | FI_TAGGED, 8, NULL, 77 };
	e[1] = (struct fi_cq_data_entry){ (void *)0x20, FI_SEND, 0, NULL, 0 };
	if (src)
		src[0] = 5, src[1] = 6;
	return 2;
}

static ssize_t p_cq_read(struct fid_cq *cq, void *buf, size_t count)
{
	return fi_cq_readfrom(cq, buf, count, NULL);
}

static ssize_t p_cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf,
			    uint64_t flags)
{
	(void)cq, (void)flags;
	buf->op_context = (void *)0x30;
	buf->err = FI_ETRUNC;
	buf->olen = 100;
	return 1;
}

static struct fi_ops_cq p_cq_ops = {
	.size = sizeof(struct fi_ops_cq), .read = p_cq_read,
	.readfrom = p_cq_readfrom, .readerr = p_cq_readerr,
};

/* The n-th committed record of a type, NULL if there are fewer. */
static const void *nth(unsigned type, int n)
{
	const struct mt_rec_buf *b = mt_rec_tls.buf;
	const char *p = (const char *)b->hdr + MT_FILE_HDR_SIZE;
	uint64_t off = 0;

	while (off < b->hdr->committed) {
		const struct mt_rec_hdr *h = (const void *)(p + off);

		if (h->type == type && n-- == 0)
			return h;
		off += h->size;
	}
	return NULL;
}

/* cq: a DATA-format CQ of the provider's with these ops, hooked. */
static void hook_data_cq(struct fid_cq *cq, struct fi_ops_cq *ops)
{
	struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_DATA };

	*cq = (struct fid_cq){ .fid = { .fclass = FI_CLASS_CQ, .ops = &p_fid_ops },
			       .ops = ops };
	mt_hook_cq_opened(HOOK_OBJ(dom.ops), cq, &attr);
}

Test(clone, cq_entries_decoded_once_per_read)
{
	struct fid_cq cq;
	struct fi_cq_data_entry e[2];
	struct fi_cq_err_entry err = { 0 };
	const struct mt_rec_cqe *r;
	fi_addr_t src[2];

	hook_data_cq(&cq, &p_cq_ops);
	cr_assert_eq(fi_cq_read(&cq, e, 1), -FI_EAGAIN);
	cr_assert_eq(mt_rec_tls.empty_polls, 1, "counted by the thread until its file is finished");
	cr_assert_eq(fi_cq_read(&cq, e, 2), 2);
	cr_assert_eq(reads_from, 2, "the provider's own readfrom ran");
	cr_assert_eq(count(MT_REC_CQE), 2, "recorded once, by the outer read");
	r = nth(MT_REC_CQE, 0);
	cr_assert_eq(r->h.aux, MT_CQ_READ);
	cr_assert_eq(r->context, 0x10);
	cr_assert_eq(r->flags, FI_RECV | FI_TAGGED);
	cr_assert_eq(r->len, 8);
	cr_assert_eq(r->data, 77);
	cr_assert_eq(r->tag, 0, "DATA format has no tag");
	cr_assert_eq(r->src, FI_ADDR_NOTAVAIL);
	cr_assert_eq(fi_cq_readfrom(&cq, e, 2, src), 2);
	r = nth(MT_REC_CQE, 3);
	cr_assert_eq(r->h.aux, MT_CQ_READFROM);
	cr_assert_eq(r->context, 0x20);
	cr_assert_eq(r->src, 6);
	cr_assert_eq(fi_cq_readerr(&cq, &err, 0), 1);
	r = nth(MT_REC_CQE, 4);
	cr_assert_eq(r->h.aux, MT_CQ_READERR);
	cr_assert_eq(r->err, FI_ETRUNC);
	cr_assert_eq(r->olen, 100);
	cr_assert_eq(((const struct mt_rec_obj *)nth(MT_REC_OBJ, 2))->attr,
		     FI_CQ_FORMAT_DATA);
}

/* A provider reading a second hooked CQ from inside a read of the first:
 * the inner read is nested (the outer CQ is marked), each read's entries
 * are recorded under its own CQ, and each read leaves the mark as it
 * found it (the outermost read takes the CQ it records from the mark). */
static struct fid_cq *inner_cq;
static const void *mark_seen, *mark_after_inner;

static ssize_t p_cq_read_outer(struct fid_cq *cq, void *buf, size_t count)
{
	struct fi_cq_data_entry e[2];

	mark_seen = mt_rec_tls.inside;
	if (fi_cq_read(inner_cq, e, 2) != 2)
		return -FI_EOTHER;
	mark_after_inner = mt_rec_tls.inside;
	return fi_cq_readfrom(cq, buf, count, NULL);
}

Test(clone, cq_read_nested_in_another_read)
{
	static struct fi_ops_cq outer_ops = { .size = sizeof(struct fi_ops_cq),
		.read = p_cq_read_outer, .readfrom = p_cq_readfrom };
	struct fid_cq outer, inner;
	struct fi_cq_data_entry e[2];
	int i;

	hook_data_cq(&outer, &outer_ops);
	hook_data_cq(&inner, &p_cq_ops);
	inner_cq = &inner;
	cr_assert_eq(fi_cq_read(&outer, e, 1), -FI_EAGAIN, "one entry is not enough");
	cr_assert_null(mt_rec_tls.inside, "an empty read takes its mark back");
	cr_assert_eq(fi_cq_read(&outer, e, 2), 2);
	cr_assert_eq(mark_seen, &outer, "the provider's call runs marked");
	cr_assert_eq(mark_after_inner, &outer, "the nested read restored the mark");
	cr_assert_null(mt_rec_tls.inside, "the outermost read takes its mark back");
	cr_assert_eq(count(MT_REC_CQE), 6, "2 inner entries per read, 2 outer");
	for (i = 0; i < 6; i++) {
		const struct mt_rec_cqe *r = nth(MT_REC_CQE, i);

		cr_assert_eq(r->cq, (uint64_t)(uintptr_t)(i < 4 ? &inner : &outer),
			     "entry %d recorded under its own CQ", i);
		cr_assert_eq(r->h.aux, MT_CQ_READ);
	}
}

/* A util CQ's sread loops on fi_cq_readfrom on itself: recorded once, as
 * the application's sread. */
static ssize_t p_cq_sread(struct fid_cq *cq, void *buf, size_t count,
			  const void *cond, int timeout)
{
	ssize_t ret;

	(void)cond, (void)timeout;
	while ((ret = fi_cq_readfrom(cq, buf, count, NULL)) == -FI_EAGAIN)
		count = 2;
	return ret;
}

Test(clone, cq_sread_recorded_once)
{
	static struct fi_ops_cq ops = { .size = sizeof(struct fi_ops_cq),
		.readfrom = p_cq_readfrom, .sread = p_cq_sread };
	struct fid_cq cq;
	struct fi_cq_data_entry e[2];
	const struct mt_rec_cqe *r;

	hook_data_cq(&cq, &ops);
	cr_assert_eq(fi_cq_sread(&cq, e, 1, NULL, -1), 2);
	cr_assert_eq(reads_from, 2, "the provider looped on its own readfrom");
	cr_assert_eq(count(MT_REC_CQE), 2);
	cr_assert_eq(mt_rec_tls.empty_polls, 0,
		     "the provider's own empty polls are not ours");
	r = nth(MT_REC_CQE, 1);
	cr_assert_eq(r->h.aux, MT_CQ_SREAD);
	cr_assert_eq(r->context, 0x20);
}

/* fi_cancel: an MT_REC_OP of op CANCEL naming the endpoint and the context,
 * with the provider's return value. */
static ssize_t p_cancel(fid_t fid, void *ctx)
{
	(void)fid;
	return ctx == (void *)0x77 ? 0 : -FI_ENOENT;
}

Test(clone, cancel_is_recorded)
{
	static struct fi_ops_ep ops = { .size = sizeof(struct fi_ops_ep),
					.cancel = p_cancel };
	struct fid_ep ep2 = { .fid = { .fclass = FI_CLASS_EP, .ops = &p_fid_ops },
			      .ops = &ops, .cm = &p_cm_ops, .tagged = &p_tagged.t };
	const struct mt_rec_op *r;

	mt_hook_ep_opened(HOOK_OBJ(dom.ops), &ep2, info);
	cr_assert_eq(fi_cancel(&ep2.fid, (void *)0x77), 0);
	cr_assert_eq(fi_cancel(&ep2.fid, (void *)0x78), -FI_ENOENT);
	cr_assert_eq(count(MT_REC_OP), 2);
	r = nth(MT_REC_OP, 0);
	cr_assert_eq(r->h.aux, MT_OP_CANCEL);
	cr_assert_eq(r->ep, (uint64_t)(uintptr_t)&ep2.fid);
	cr_assert_eq(r->context, 0x77);
	cr_assert_eq(r->ret, 0);
	r = nth(MT_REC_OP, 1);
	cr_assert_eq(r->ret, -FI_ENOENT);
}

/* Scalable endpoints: contexts opened from a hooked sep are hooked and
 * name the sep as their parent. */
static struct fid_ep tx;

static int p_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		    struct fid_ep **tx_ep, void *context)
{
	(void)sep, (void)index, (void)attr, (void)context;
	tx.fid.fclass = FI_CLASS_TX_CTX;
	tx.fid.ops = &p_fid_ops;
	tx.ops = &p_ep_ops;
	tx.tagged = &p_tagged.t;
	*tx_ep = &tx;
	return 0;
}

Test(clone, scalable_endpoint_contexts)
{
	static struct fi_ops_ep sep_ops = { .size = sizeof(struct fi_ops_ep),
					    .tx_ctx = p_tx_ctx };
	struct fid_ep sep = { .fid = { .fclass = FI_CLASS_SEP, .ops = &p_fid_ops },
			      .ops = &sep_ops, .cm = &p_cm_ops };
	const struct mt_rec_obj *o;
	const struct mt_rec_op *op;
	struct fid_ep *t;

	mt_hook_ep_opened(HOOK_OBJ(dom.ops), &sep, info);
	cr_assert_eq(fi_tx_context(&sep, 0, NULL, &t, NULL), 0);
	cr_assert_eq(t, &tx);
	cr_assert_neq(tx.tagged, &p_tagged.t, "tx context hooked");
	cr_assert_eq(fi_tsend(t, "x", 1, NULL, 3, 0x99, NULL), 0);
	o = nth(MT_REC_OBJ, 3);
	cr_assert_eq(o->h.aux, FI_CLASS_TX_CTX);
	cr_assert_eq(o->parent, (uint64_t)(uintptr_t)&sep);
	op = nth(MT_REC_OP, 0);
	cr_assert_eq(op->ep, (uint64_t)(uintptr_t)&tx);
	cr_assert_eq(op->tag, 0x99);
}

/* AV inserts: one record per address that got an fi_addr, with the bytes
 * of a sockaddr_in (the domain's address format). */
static int p_av_insert(struct fid_av *av, const void *addr, size_t count,
		       fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	(void)av, (void)addr, (void)flags, (void)context;
	fi_addr[0] = 7;
	fi_addr[1] = FI_ADDR_NOTAVAIL;
	fi_addr[2] = 9;
	return (int)count - 1;
}

Test(clone, av_insert_records_each_valid_address)
{
	static struct fi_ops_av av_ops = { .size = sizeof(struct fi_ops_av),
					   .insert = p_av_insert };
	struct fid_av av = { .fid = { .fclass = FI_CLASS_AV, .ops = &p_fid_ops },
			     .ops = &av_ops };
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct fid_domain dom4 = { .fid = { .fclass = FI_CLASS_DOMAIN, .ops = &p_fid_ops },
				   .ops = &p_dom_ops };
	unsigned char addrs[3][16];
	const struct mt_rec_av *r;
	fi_addr_t out[3];
	int i;

	info->addr_format = FI_SOCKADDR_IN;
	mt_hook_domain_opened(NULL, &dom4, info);
	mt_hook_av_opened(HOOK_OBJ(dom4.ops), &av, &attr);
	for (i = 0; i < 3; i++)
		memset(addrs[i], 0x10 + i, sizeof(addrs[i]));
	cr_assert_eq(fi_av_insert(&av, addrs, 3, out, 0, NULL), 2);
	cr_assert_eq(count(MT_REC_AV), 2);
	r = nth(MT_REC_AV, 0);
	cr_assert_eq(r->fi_addr, 7);
	cr_assert_eq(r->addr_len, 16);
	cr_assert_eq(r->addr[0], 0x10);
	r = nth(MT_REC_AV, 1);
	cr_assert_eq(r->fi_addr, 9);
	cr_assert_eq(r->addr[15], 0x12, "third address: stride of 16 bytes");
}

/* A util AV's insertsvc is fi_av_insertsym on itself: recorded once, as the
 * application's insertsvc. */
static int p_av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
			  const char *service, size_t svccnt, fi_addr_t *fi_addr,
			  uint64_t flags, void *context)
{
	(void)av, (void)node, (void)nodecnt, (void)service, (void)svccnt;
	(void)flags, (void)context;
	fi_addr[0] = 5;
	return 1;
}

static int p_av_insertsvc(struct fid_av *av, const char *node,
			  const char *service, fi_addr_t *fi_addr,
			  uint64_t flags, void *context)
{
	return fi_av_insertsym(av, node, 1, service, 1, fi_addr, flags, context);
}

Test(clone, av_insert_made_by_the_provider_itself_recorded_once)
{
	static struct fi_ops_av av_ops = { .size = sizeof(struct fi_ops_av),
					   .insertsvc = p_av_insertsvc,
					   .insertsym = p_av_insertsym };
	struct fid_av av = { .fid = { .fclass = FI_CLASS_AV, .ops = &p_fid_ops },
			     .ops = &av_ops };
	struct fi_av_attr attr = { .type = FI_AV_MAP };
	struct fid_domain dom4 = { .fid = { .fclass = FI_CLASS_DOMAIN, .ops = &p_fid_ops },
				   .ops = &p_dom_ops };
	const struct mt_rec_av *r;
	fi_addr_t out;

	mt_hook_domain_opened(NULL, &dom4, info);
	mt_hook_av_opened(HOOK_OBJ(dom4.ops), &av, &attr);
	cr_assert_eq(fi_av_insertsvc(&av, "node1", "4000", &out, 0, NULL), 1);
	cr_assert_eq(out, 5);
	cr_assert_eq(count(MT_REC_AV), 1);
	r = nth(MT_REC_AV, 0);
	cr_assert_eq(r->h.aux, MT_AV_INSERTSVC);
	cr_assert_eq(r->fi_addr, 5);
	cr_assert_eq(memcmp(r->addr, "node1:4000", 10), 0);
	cr_assert_eq(fi_av_insertsym(&av, "node2", 1, "4001", 1, &out, 0, NULL), 1);
	cr_assert_eq(count(MT_REC_AV), 2, "a direct insertsym is recorded");
	r = nth(MT_REC_AV, 1);
	cr_assert_eq(r->h.aux, MT_AV_INSERTSYM);
}

/*
 * Every posting call, through a provider whose entries all return 0: the
 * fields the hooks leave unwritten on their inline path are exactly those
 * mt_op_lacks() names, which a reader of a ring takes as 0 (mt_format.h).
 * The file past what is committed is filled with ones first, as a ring's
 * block written over holds an older lap: a field the hook left out reads
 * as ones (or 0), one it wrote as the argument.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define P_OK(name, ...) static ssize_t name(__VA_ARGS__) { return 0; }
P_OK(a_trecv, struct fid_ep *e, void *b, size_t l, void *d, fi_addr_t s, uint64_t t, uint64_t i, void *c)
P_OK(a_trecvv, struct fid_ep *e, const struct iovec *v, void **d, size_t n, fi_addr_t s, uint64_t t, uint64_t i, void *c)
P_OK(a_trecvmsg, struct fid_ep *e, const struct fi_msg_tagged *m, uint64_t f)
P_OK(a_tsend, struct fid_ep *e, const void *b, size_t l, void *d, fi_addr_t s, uint64_t t, void *c)
P_OK(a_tsendv, struct fid_ep *e, const struct iovec *v, void **d, size_t n, fi_addr_t s, uint64_t t, void *c)
P_OK(a_tsendmsg, struct fid_ep *e, const struct fi_msg_tagged *m, uint64_t f)
P_OK(a_tinject, struct fid_ep *e, const void *b, size_t l, fi_addr_t s, uint64_t t)
P_OK(a_tsenddata, struct fid_ep *e, const void *b, size_t l, void *d, uint64_t x, fi_addr_t s, uint64_t t, void *c)
P_OK(a_tinjectdata, struct fid_ep *e, const void *b, size_t l, uint64_t x, fi_addr_t s, uint64_t t)
P_OK(a_recv, struct fid_ep *e, void *b, size_t l, void *d, fi_addr_t s, void *c)
P_OK(a_recvv, struct fid_ep *e, const struct iovec *v, void **d, size_t n, fi_addr_t s, void *c)
P_OK(a_recvmsg, struct fid_ep *e, const struct fi_msg *m, uint64_t f)
P_OK(a_send, struct fid_ep *e, const void *b, size_t l, void *d, fi_addr_t s, void *c)
P_OK(a_sendv, struct fid_ep *e, const struct iovec *v, void **d, size_t n, fi_addr_t s, void *c)
P_OK(a_sendmsg, struct fid_ep *e, const struct fi_msg *m, uint64_t f)
P_OK(a_inject, struct fid_ep *e, const void *b, size_t l, fi_addr_t s)
P_OK(a_senddata, struct fid_ep *e, const void *b, size_t l, void *d, uint64_t x, fi_addr_t s, void *c)
P_OK(a_injectdata, struct fid_ep *e, const void *b, size_t l, uint64_t x, fi_addr_t s)
#undef P_OK
#pragma GCC diagnostic pop

Test(clone, fields_left_unwritten_are_those_the_call_lacks)
{
	static struct fi_ops_tagged tagged = {
		.size = sizeof(tagged), .recv = a_trecv, .recvv = a_trecvv,
		.recvmsg = a_trecvmsg, .send = a_tsend, .sendv = a_tsendv,
		.sendmsg = a_tsendmsg, .inject = a_tinject,
		.senddata = a_tsenddata, .injectdata = a_tinjectdata,
	};
	static struct fi_ops_msg msg = {
		.size = sizeof(msg), .recv = a_recv, .recvv = a_recvv,
		.recvmsg = a_recvmsg, .send = a_send, .sendv = a_sendv,
		.sendmsg = a_sendmsg, .inject = a_inject,
		.senddata = a_senddata, .injectdata = a_injectdata,
	};
	struct fid_ep e = { .fid = { .fclass = FI_CLASS_EP, .ops = &p_fid_ops },
			    .ops = &p_ep_ops, .cm = &p_cm_ops, .tagged = &tagged,
			    .msg = &msg };
	void *ctx = (void *)0x66;
	struct iovec iov = { .iov_base = "x", .iov_len = 0x11 };
	struct fi_msg_tagged tm = { .msg_iov = &iov, .iov_count = 1, .addr = 0x22,
				    .tag = 0x33, .ignore = 0x44, .context = ctx,
				    .data = 0x55 };
	struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = 0x22,
			    .context = ctx, .data = 0x55 };
	const struct mt_rec_buf *b;
	int first, n = 0;

	mt_hook_ep_opened(HOOK_OBJ(dom.ops), &e, info);
	first = count(MT_REC_OP);
	b = mt_rec_tls.buf;
	memset((char *)b->hdr + MT_FILE_HDR_SIZE + b->hdr->committed, 0xff,
	       b->limit - b->hdr->committed);
	cr_assert_eq(fi_trecv(&e, "x", 0x11, NULL, 0x22, 0x33, 0x44, ctx), 0);
	cr_assert_eq(fi_trecvv(&e, &iov, NULL, 1, 0x22, 0x33, 0x44, ctx), 0);
	cr_assert_eq(fi_trecvmsg(&e, &tm, 0x77), 0);
	cr_assert_eq(fi_tsend(&e, "x", 0x11, NULL, 0x22, 0x33, ctx), 0);
	cr_assert_eq(fi_tsendv(&e, &iov, NULL, 1, 0x22, 0x33, ctx), 0);
	cr_assert_eq(fi_tsendmsg(&e, &tm, 0x77), 0);
	cr_assert_eq(fi_tinject(&e, "x", 0x11, 0x22, 0x33), 0);
	cr_assert_eq(fi_tsenddata(&e, "x", 0x11, NULL, 0x55, 0x22, 0x33, ctx), 0);
	cr_assert_eq(fi_tinjectdata(&e, "x", 0x11, 0x55, 0x22, 0x33), 0);
	cr_assert_eq(fi_recv(&e, "x", 0x11, NULL, 0x22, ctx), 0);
	cr_assert_eq(fi_recvv(&e, &iov, NULL, 1, 0x22, ctx), 0);
	cr_assert_eq(fi_recvmsg(&e, &m, 0x77), 0);
	cr_assert_eq(fi_send(&e, "x", 0x11, NULL, 0x22, ctx), 0);
	cr_assert_eq(fi_sendv(&e, &iov, NULL, 1, 0x22, ctx), 0);
	cr_assert_eq(fi_sendmsg(&e, &m, 0x77), 0);
	cr_assert_eq(fi_inject(&e, "x", 0x11, 0x22), 0);
	cr_assert_eq(fi_senddata(&e, "x", 0x11, NULL, 0x55, 0x22, ctx), 0);
	cr_assert_eq(fi_injectdata(&e, "x", 0x11, 0x55, 0x22), 0);
	for (const struct mt_rec_op *r; (r = nth(MT_REC_OP, first + n)); n++) {
		const struct { unsigned f; uint64_t v, want; } fields[] = {
			{ MT_OPF_TAG, r->tag, 0x33 }, { MT_OPF_IGNORE, r->ignore, 0x44 },
			{ MT_OPF_LEN, r->len, 0x11 }, { MT_OPF_DATA, r->data, 0x55 },
			{ MT_OPF_CONTEXT, r->context, 0x66 }, { MT_OPF_FLAGS, r->flags, 0x77 },
		};
		unsigned lacks = mt_op_lacks(r->h.aux);

		cr_assert_eq(r->addr, 0x22);
		for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
			if (lacks & fields[i].f)
				cr_assert(!fields[i].v || fields[i].v == UINT64_MAX,
					  "op %u: field %#x written (%#llx), said to lack", r->h.aux,
					  fields[i].f, (unsigned long long)fields[i].v);
			else
				cr_assert_eq(fields[i].v, fields[i].want,
					     "op %u: field %#x is %#llx, want %#llx", r->h.aux,
					     fields[i].f, (unsigned long long)fields[i].v,
					     (unsigned long long)fields[i].want);
		}
	}
	cr_assert_eq(n, 18, "every posting call recorded (%d)", n);
}
