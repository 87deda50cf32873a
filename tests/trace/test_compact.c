/*
 * test_compact.c - compacted (version 2) files: read back equal to their
 * version 1 originals through the cursor and the merge; cut at every byte,
 * they give a clear error naming the file and the record, after every
 * whole record before the cut.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tw.h"

#define NAME "node1.100.0.mt"
#define NAME1 "node1.100.1.mt"

/* A thread's file of every hot and setup kind; seq 0 starts with PROC. */
static void build(struct tw *w, uint32_t seq, uint64_t t0)
{
	struct mt_rec_obj *o;

	tw_init(w, 100, seq);
	if (!seq)
		tw_proc(w, t0, 0, 1000000000, "node1");
	tw_clock(w, MT_CLOCK_START, t0, 1000, 5000);
	o = tw_add(w, MT_REC_OBJ, MT_FID_CLASS_CQ, sizeof(*o), t0 + 1);
	o->id = 0x7000 + seq;
	strcpy(o->prov_name, "tcp");
	for (int i = 0; i < 40; i++) {
		struct mt_rec_op *op = tw_op(w, i % 3 ? MT_OP_TSEND : MT_OP_TRECV,
					     t0 + 10 + (uint64_t)i * 7,
					     0x10000 + (uint64_t)(i % 5));
		struct mt_rec_cqe *c;
		uint64_t tag = op->tag;

		op->len = (uint64_t)i * 100;
		op->context = 0x5550 + (uint64_t)i * 64;
		op->ret = i == 17 ? -5 : 0;
		/* tw_add may move the buffer: op is not used after it. */
		c = tw_add(w, MT_REC_CQE, MT_CQ_READFROM, sizeof(*c),
			   t0 + 12 + (uint64_t)i * 7);
		c->cq = 0x7000 + seq;
		c->context = 0x5550 + (uint64_t)i * 64;
		c->tag = tag;
		c->len = (uint64_t)i * 100;
	}
	tw_add(w, 12, 3, 40, t0 + 400);	/* a type this reader does not know */
	tw_clock(w, MT_CLOCK_END, t0 + 500, 1500, 5500);
}

/* Writes w as name in dir, version 1, and returns its compacted copy's
 * path in dir2 (the same name). */
static char *save_both(struct tw *w, const char *dir, const char *dir2,
		       const char *name)
{
	char *p1 = tw_save(w, dir, name), *p2;
	int fd = open(dir2, O_RDONLY | O_DIRECTORY);

	tw_save(w, dir2, name);
	cr_assert_geq(fd, 0);
	cr_assert_eq(mt_codec_compact(fd, name, 0600, tw_hdr(w),
				      w->buf + tw_hdr(w)->data_off), 0, "%m");
	close(fd);
	free(p1);
	cr_assert(asprintf(&p2, "%s/%s", dir2, name) > 0);
	return p2;
}

static struct mt_trace *open_dir(const char *dir)
{
	struct mt_trace *t;
	struct mt_err err = { "" };

	cr_assert_eq(mt_trace_open(&dir, 1, &t, &err), MT_OK, "%s", err.msg);
	return t;
}

Test(trace_compact, reads_back_equal_through_cursor_and_merge)
{
	char *d1 = tw_tmpdir(), *d2 = tw_tmpdir(), *p;
	struct mt_trace *t1, *t2;
	struct mt_trace_merge *m1, *m2;
	struct mt_trace_event e1, e2;
	struct mt_err err = { "" };
	enum mt_status s1, s2;
	struct tw w;
	size_t n = 0;

	build(&w, 0, 100);
	p = save_both(&w, d1, d2, NAME);
	tw_free(&w);
	free(p);
	build(&w, 1, 103);
	p = save_both(&w, d1, d2, NAME1);
	tw_free(&w);
	free(p);
	t1 = open_dir(d1);
	t2 = open_dir(d2);
	cr_assert_eq(t2->nfiles, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct mt_trace_file *f1 = t1->files[i], *f2 = t2->files[i];

		cr_assert(f2->compact && !f1->compact);
		cr_assert_lt(f2->hdr->committed, f1->hdr->committed / 4,
			     "compacted %lu of %lu bytes",
			     (unsigned long)f2->hdr->committed,
			     (unsigned long)f1->hdr->committed);
		cr_assert_eq(f2->nrecs, f1->nrecs);
		cr_assert_eq(f2->unknown, 1);
		cr_assert_eq(memcmp(f2->type_count, f1->type_count,
				    sizeof(f1->type_count)), 0);
		cr_assert_eq(f2->nsetup, f1->nsetup);
		for (size_t j = 0; j < f1->nsetup; j++) {
			const struct mt_rec_hdr *a = mt_trace_file_setup(f1, j),
						*b = mt_trace_file_setup(f2, j);

			cr_assert_eq(memcmp(a, b, a->size), 0, "setup record %zu", j);
			cr_assert(mt_trace_file_owns(f2, b));
		}
	}
	cr_assert_not_null(t2->procs[0].rec, "PROC found in the compacted file");
	cr_assert_eq(mt_trace_merge_open(t1, &m1), MT_OK);
	cr_assert_eq(mt_trace_merge_open(t2, &m2), MT_OK);
	do {
		s1 = mt_trace_merge_next(m1, &e1, &err);
		s2 = mt_trace_merge_next(m2, &e2, &err);
		cr_assert_eq(s1, s2);
		if (s1 != MT_OK)
			break;
		cr_assert_eq(e1.ns, e2.ns, "event %zu", n);
		cr_assert_eq(e1.proc, e2.proc);
		cr_assert_eq(e1.file, e2.file);
		cr_assert_eq(memcmp(e1.rec, e2.rec, e1.rec->size), 0, "event %zu", n);
		n++;
	} while (1);
	cr_assert_eq(s1, MT_END, "%s", err.msg);
	cr_assert_eq(n, t1->files[0]->nrecs + t1->files[1]->nrecs - 2, "unknown skipped");
	mt_trace_merge_close(m1);
	mt_trace_merge_close(m2);
	mt_trace_close(t1);
	mt_trace_close(t2);
	tw_rmdir(d1);
	tw_rmdir(d2);
}

/* Cut at every byte: the open fails on a cut header; otherwise every whole
 * record before the cut reads back, then an error names file and record. */
Test(trace_compact, truncated_at_every_byte)
{
	char *d1 = tw_tmpdir(), *d2 = tw_tmpdir(), *p, *cut;
	struct mt_codec_state s;
	uint64_t ends[200], off;
	size_t len, nrec = 0;
	uint8_t *full;
	struct tw w;

	build(&w, 0, 100);
	p = save_both(&w, d1, d2, NAME);
	full = tw_read(p, &len);
	/* Where each record ends in the stream. */
	mt_codec_reset(&s);
	off = MT_CODEC_DATA_OFF;
	while (off < len) {
		const char *why;

		cr_assert_not_null(mt_codec_decode(&s, full, &off, len, &why), "%s", why);
		cr_assert_lt(nrec, 200);
		ends[nrec++] = off;
	}
	cr_assert(asprintf(&cut, "%s/cut/%s", d2, NAME) > 0);
	{
		char *cd;

		cr_assert(asprintf(&cd, "%s/cut", d2) > 0);
		cr_assert_eq(mkdir(cd, 0700), 0);
		free(cd);
	}
	for (size_t l = 1; l < len; l++) {
		struct mt_trace_file *f;
		struct mt_trace_cursor c;
		const struct mt_rec_hdr *r;
		struct mt_err err = { "" };
		enum mt_status st;
		size_t got = 0, whole = 0, want_known = 0;
		char needle[64];

		tw_write(cut, full, l);
		st = mt_trace_file_open(cut, &f, &err);
		if (l < MT_CODEC_DATA_OFF) {
			cr_assert_neq(st, MT_OK, "cut at %zu opened", l);
			cr_assert(strstr(err.msg, cut), "%zu: %s", l, err.msg);
			continue;
		}
		cr_assert_eq(st, MT_OK, "cut at %zu: %s", l, err.msg);
		while (whole < nrec && ends[whole] <= l)
			whole++;
		mt_trace_cursor_init(&c, f);
		while ((st = mt_trace_cursor_next(&c, &r, &err)) == MT_OK) {
			got++;
			cr_assert_neq(r->type, 12);
		}
		/* Known records among the whole ones (the unknown one is the
		 * second to last). */
		want_known = whole - (whole >= nrec - 1);
		cr_assert_eq(got, want_known, "cut at %zu: %zu records, want %zu", l,
			     got, want_known);
		cr_assert_eq(st, MT_ERR_CORRUPT, "cut at %zu", l);
		snprintf(needle, sizeof(needle), "record %zu:", whole);
		cr_assert(strstr(err.msg, cut) && strstr(err.msg, needle) &&
			  strstr(err.msg, "truncated copy"), "cut at %zu: %s", l, err.msg);
		mt_trace_file_close(f);
	}
	unlink(cut);
	*strrchr(cut, '/') = '\0';
	rmdir(cut);
	free(cut);
	free(full);
	free(p);
	tw_free(&w);
	tw_rmdir(d1);
	tw_rmdir(d2);
}
