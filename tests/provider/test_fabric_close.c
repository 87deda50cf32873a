/*
 * test_fabric_close.c - fabrics through the hook's entry point, as
 * libfabric 2.x's rxm makes them: its fabric opens another one inside
 * (off_coll, for offloaded collectives), which the hook sees first and
 * which never gets a domain, and closes it inside its own close. The
 * thread's records stay in time order, and nothing is recorded of the
 * inner fabric: it never reached the trace (no OBJ record: only a domain
 * settles which layer a fabric is).
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hook.h"
#include "rec_dir.h"

/* The hook's exported entry point (FI_EXT_INI in hook_fabric.c). */
struct fi_provider *fi_prov_ini(void);

static struct fid_fabric inner, outer;
static struct fid_domain dom;

static void pause_us(void)
{
	struct timespec ts = { 0, 10000 };

	nanosleep(&ts, NULL);
}

static int p_close(struct fid *fid)
{
	(void)fid;
	pause_us();		/* any clock ticks between two closes */
	return 0;
}

/* rxm's fabric close: the fabrics it opened first. */
static int p_outer_close(struct fid *fid)
{
	(void)fid;
	pause_us();
	return fi_close(&inner.fid);
}

static int p_domain(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_domain **d, void *context)
{
	(void)fabric, (void)info, (void)context;
	*d = &dom;
	return 0;
}

static struct fi_ops p_fid_ops = { .size = sizeof(struct fi_ops), .close = p_close };
static struct fi_ops p_outer_fid_ops = { .size = sizeof(struct fi_ops),
					 .close = p_outer_close };
static struct fi_ops_fabric p_fabric_ops = { .size = sizeof(struct fi_ops_fabric),
					     .domain = p_domain };
static struct fi_ops_domain p_dom_ops = { .size = sizeof(struct fi_ops_domain) };
static struct fi_provider p_rxm = { .name = "ofi_rxm" };
static struct fi_provider p_coll = { .name = "off_coll" };

/* The hook's entry point on f, as libfabric's fi_fabric() calls it. */
static void hook(struct fid_fabric *f, struct fi_provider *prov)
{
	struct fi_fabric_attr attr = { .fabric = f };
	struct fid_fabric *got = NULL;

	cr_assert_eq(mt_hook_prov.fabric(&attr, &got, prov), 0);
	cr_assert_eq(got, f, "the hook keeps the provider's fabric");
}

static void setup(void)
{
	rec_dir_setup();
	cr_assert_eq(setenv("FI_OFI_HOOK_MSGTRACE_DIR", rec_dir, 1), 0);
	cr_assert_eq(setenv("FI_OFI_HOOK_MSGTRACE_COMPACT", "0", 1), 0);
	fi_prov_ini();		/* defines the parameters the hook reads */
	for (int i = 0; i < 2; i++) {
		struct fid_fabric *f = i ? &outer : &inner;

		f->fid.fclass = FI_CLASS_FABRIC;
		f->fid.ops = i ? &p_outer_fid_ops : &p_fid_ops;
		f->ops = &p_fabric_ops;
	}
	dom.fid.fclass = FI_CLASS_DOMAIN;
	dom.fid.ops = &p_fid_ops;
	dom.ops = &p_dom_ops;
}

TestSuite(fabric_close, .init = setup, .fini = rec_dir_teardown);

Test(fabric_close, fabric_closed_inside_another_close)
{
	const struct mt_rec_buf *b;
	const char *p;
	struct fid_domain *d;
	uint64_t off = 0, last = 0;
	int objs = 0, closes = 0, of_inner = 0;

	hook(&inner, &p_coll);		/* opened inside rxm's fabric open */
	hook(&outer, &p_rxm);
	cr_assert_eq(fi_domain(&outer, NULL, &d, NULL), 0);
	cr_assert_eq(fi_close(&d->fid), 0);
	cr_assert_eq(fi_close(&outer.fid), 0);

	b = mt_rec_tls.buf;
	p = (const char *)b->hdr + b->hdr->data_off;
	while (off < b->hdr->committed) {
		const struct mt_rec_hdr *h = (const void *)(p + off);

		if (h->type == MT_REC_OBJ || h->type == MT_REC_CLOSE) {
			uint64_t id = h->type == MT_REC_OBJ ?
				((const struct mt_rec_obj *)h)->id :
				((const struct mt_rec_close *)h)->id;

			of_inner += id == (uint64_t)(uintptr_t)&inner.fid;
			objs += h->type == MT_REC_OBJ;
			closes += h->type == MT_REC_CLOSE;
		}
		cr_assert_geq(h->ts, last,
			      "record %u at offset %llu: tick %llu after %llu",
			      h->type, (unsigned long long)off,
			      (unsigned long long)h->ts, (unsigned long long)last);
		last = h->ts;
		off += h->size;
	}
	cr_assert_eq(of_inner, 0, "%d record(s) of the fabric that never reached the trace",
		     of_inner);
	cr_assert_eq(objs, 2, "rxm's fabric and its domain announced");
	cr_assert_eq(closes, 2, "rxm's fabric and its domain closed");
}
