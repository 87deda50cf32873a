/*
 * test_addr.c - fi_addr -> process/endpoint resolution across 3 processes,
 * endpoint -> AV and CQ -> endpoint links from binds.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tw.h"

#define NPROC 3
#define EP_ID(p) (0x1000u + (p))
#define AV_ID(p) (0x2000u + (p))
#define CQ_ID(p) (0x3000u + (p))
#define BIND_SEND_RECV ((1ull << 11) | (1ull << 10))	/* FI_SEND|FI_RECV */

static void name_of(uint32_t p, uint8_t name[16])
{
	memset(name, 0, 16);
	name[0] = 2;			/* AF_INET, little-endian sa_family */
	name[2] = 0x30;
	name[3] = (uint8_t)(0x39 + p);	/* port 12345 + p */
	name[4] = 127;
	name[7] = 1;
}

static void obj(struct tw *w, uint32_t fclass, uint64_t id)
{
	struct mt_rec_obj *o = tw_add(w, MT_REC_OBJ, fclass, sizeof(*o), 1);

	o->id = id;
}

static void bind(struct tw *w, uint64_t ep, uint64_t target, uint64_t flags)
{
	struct mt_rec_bind *b = tw_add(w, MT_REC_BIND, 0, sizeof(*b), 2);

	b->obj = ep;
	b->target = target;
	b->flags = flags;
}

/* Process p: ep/av/cq; inserts every process's name, in a rotated order. */
static void make_proc(const char *dir, uint32_t p)
{
	struct mt_rec_ep *e;
	struct tw w;
	char file[64];

	tw_init(&w, 100 + p, 0);
	tw_proc(&w, 0, (int32_t)p, 1000000000ull, "h");
	obj(&w, MT_FID_CLASS_AV, AV_ID(p));
	obj(&w, MT_FID_CLASS_CQ, CQ_ID(p));
	obj(&w, MT_FID_CLASS_EP, EP_ID(p));
	bind(&w, EP_ID(p), AV_ID(p), 0);
	bind(&w, EP_ID(p), CQ_ID(p), BIND_SEND_RECV);
	/* An internal layer's endpoint with the same name comes first in the
	 * file; resolution must still prefer the application's. */
	e = tw_add(&w, MT_REC_EP, 0, sizeof(*e), 3);
	e->h.layer = 1;
	e->ep = EP_ID(p) - 0x100;
	e->name_len = 16;
	name_of(p, e->name);
	e = tw_add(&w, MT_REC_EP, 0, sizeof(*e), 3);
	e->ep = EP_ID(p);
	e->name_len = 16;
	name_of(p, e->name);
	for (uint32_t i = 0; i < NPROC; i++) {
		struct mt_rec_av *a = tw_add(&w, MT_REC_AV, MT_AV_INSERT, sizeof(*a), 4);

		a->av = AV_ID(p);
		a->fi_addr = i;
		a->addr_len = 16;
		name_of((i + p) % NPROC, a->addr);
	}
	snprintf(file, sizeof(file), "h.%u.0.mt", 100 + p);
	free(tw_save(&w, dir, file));
	tw_free(&w);
}

Test(trace_addr, three_processes_resolve_each_other)
{
	char *dir = tw_tmpdir();
	const char *path = dir;
	const struct mt_trace_cq_bind *cb;
	const struct mt_trace_ep *e;
	struct mt_trace *t;
	struct mt_err err;

	for (uint32_t p = 0; p < NPROC; p++)
		make_proc(dir, p);
	cr_assert_eq(mt_trace_open(&path, 1, &t, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(t->neps, 2 * NPROC);
	for (uint32_t p = 0; p < NPROC; p++) {
		e = mt_trace_find_ep(t, p, EP_ID(p));
		cr_assert_not_null(e);
		cr_expect_eq(e->av, AV_ID(p));
		for (uint32_t i = 0; i < NPROC; i++) {
			uint32_t want = (i + p) % NPROC;

			e = mt_trace_resolve(t, p, AV_ID(p), i);
			cr_assert_not_null(e, "proc %u fi_addr %u", p, i);
			cr_expect_eq(e->proc, want, "proc %u fi_addr %u -> %u", p, i,
				     e->proc);
			cr_expect_eq(e->rec->ep, EP_ID(want));
			cr_expect_eq(mt_trace_resolve_ep(t, p, EP_ID(p), i), e);
		}
		cr_expect_null(mt_trace_resolve(t, p, AV_ID(p), NPROC));
		cr_expect_null(mt_trace_resolve(t, p, AV_ID(p) + 1, 0));
		cr_expect_null(mt_trace_resolve_ep(t, p, EP_ID(p) + 1, 0));
		cr_assert_eq(mt_trace_cq_binds(t, p, CQ_ID(p), &cb), 1);
		cr_expect_eq(cb->ep, mt_trace_find_ep(t, p, EP_ID(p)));
		cr_expect_eq(cb->flags, BIND_SEND_RECV);
		cr_expect_eq(mt_trace_cq_binds(t, p, AV_ID(p), &cb), 0);
	}
	mt_trace_close(t);
	tw_rmdir(dir);
}

/* Process pid, rank r of job "job": one endpoint named like process r of
 * the other tests, an AV holding ranks 0 and 1 of its job at fi_addr 0, 1. */
static void job_proc(const char *dir, uint32_t pid, uint32_t r, const char *job,
		     uint64_t start)
{
	struct mt_rec_proc *pr;
	struct mt_rec_ep *e;
	struct tw w;
	char file[64];

	tw_init(&w, pid, 0);
	tw_proc(&w, 0, (int32_t)r, 1000000000ull, "h");
	pr = (struct mt_rec_proc *)(w.buf + tw_hdr(&w)->data_off);
	snprintf(pr->job_id, sizeof(pr->job_id), "%s", job);
	pr->start_realtime_ns = start;
	obj(&w, MT_FID_CLASS_AV, AV_ID(0));
	obj(&w, MT_FID_CLASS_EP, EP_ID(0));
	bind(&w, EP_ID(0), AV_ID(0), 0);
	e = tw_add(&w, MT_REC_EP, 0, sizeof(*e), 3);
	e->ep = EP_ID(0);
	e->name_len = 16;
	name_of(r, e->name);
	for (uint32_t i = 0; i < 2; i++) {
		struct mt_rec_av *a = tw_add(&w, MT_REC_AV, MT_AV_INSERT, sizeof(*a), 4);

		a->av = AV_ID(0);
		a->fi_addr = i;
		a->addr_len = 16;
		name_of(i, a->addr);
	}
	snprintf(file, sizeof(file), "h.%u.0.mt", pid);
	free(tw_save(&w, dir, file));
	tw_free(&w);
}

/* Two launches one after the other reuse the same ports: each job's
 * addresses resolve to its own processes, never to the other launch's. */
Test(trace_addr, launches_with_the_same_names_kept_apart)
{
	const struct mt_trace_ep *e;
	char *dir = tw_tmpdir();
	const char *d = dir;
	struct mt_trace *t;
	struct mt_err err;

	job_proc(dir, 200, 0, "65537", 1000);	/* first mpirun (family 1) */
	job_proc(dir, 201, 1, "65537", 1001);
	job_proc(dir, 300, 0, "131073", 5000);	/* second mpirun (family 2) */
	job_proc(dir, 301, 1, "131073", 5001);
	cr_assert_eq(mt_trace_open(&d, 1, &t, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(t->nlaunches, 2);
	for (uint32_t p = 0; p < t->nprocs; p++)
		for (uint64_t a = 0; a < 2; a++) {
			e = mt_trace_resolve_ep(t, p, EP_ID(0), a);
			cr_assert_not_null(e);
			cr_assert_eq(t->procs[e->proc].job, t->procs[p].job,
				     "pid %u's fi_addr %lu resolved into another launch",
				     t->procs[p].pid, (unsigned long)a);
			cr_assert_eq(t->procs[e->proc].world_rank, (int32_t)a);
		}
	mt_trace_close(t);
	tw_rmdir(dir);
}
