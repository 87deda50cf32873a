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
	struct fid_ep *ep = container_of(fid, struct fid_ep, fid);

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
	hook_domain_opened(NULL, &dom, info);
	cr_assert_neq(dom.ops, &p_dom_ops, "domain hooked");
	hook_ep_opened(HOOK_OBJ(dom.ops), &ep, info);
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
