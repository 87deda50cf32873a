/*
 * test_sites.c - call sites in the reader (MT_REC_MAP, MT_REC_SITE and the
 * 96-byte OP): two processes whose threads called from the same place of
 * the same executable, loaded at other addresses, get one site number;
 * another place gets another; OPs name them through their own file's
 * indexes; 88-byte OPs and a lost table name none. Bad MAP and SITE
 * records end the merge and the file's own cursor alike, after the records
 * before them, with one error naming the file and the offset.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tw.h"

#define EXE "/opt/app/bin/solver"

static void map(struct tw *w, uint64_t base, const char *path, unsigned cls)
{
	size_t len = strlen(path) + 1;
	size_t size = (offsetof(struct mt_rec_map, path) + len + 7) & ~(size_t)7;
	struct mt_rec_map *m = tw_add(w, MT_REC_MAP, cls,
				      size < sizeof(*m) ? sizeof(*m) : size, 2);

	m->base = base;
	m->start = base;
	m->end = base + 0x10000;
	memcpy((char *)m + offsetof(struct mt_rec_map, path), path, len);
}

static void site(struct tw *w, unsigned index, uint64_t app, uint64_t entry)
{
	struct mt_rec_site *s = tw_add(w, MT_REC_SITE, index, sizeof(*s), 3);

	s->app = app;
	s->entry = entry;
}

static void op_site(struct tw *w, uint64_t ts, uint32_t index)
{
	struct mt_rec_op_site *o = tw_add(w, MT_REC_OP, MT_OP_TSEND, sizeof(*o), ts);

	o->site = index;
}

/* Process p (pid 100 + p): the executable at base, libmpi above it; its
 * site 1 calls from exe+0x1234, site 2 (process 0 only) from exe+0x2000. */
static void make_proc(const char *dir, uint32_t p, uint64_t base)
{
	struct tw w;
	char name[64];

	tw_init(&w, 100 + p, 0);
	tw_proc(&w, 1, (int32_t)p, 1000000000, "h");
	map(&w, base, EXE, MT_MAP_APP);
	map(&w, 0x7f0000000000 + p * 0x100000, "/usr/lib/libmpi.so.40", MT_MAP_SKIPPED);
	site(&w, 1, base + 0x1234, 0x7f0000000000 + p * 0x100000 + 0x500);
	op_site(&w, 10, 1);
	if (p == 0) {
		site(&w, 2, base + 0x2000, 0x7f0000000000 + 0x600);
		op_site(&w, 11, 2);
	}
	tw_op(&w, MT_OP_TSEND, 12, 0);			/* 88 bytes: no site */
	op_site(&w, 13, MT_SITE_LOST);
	snprintf(name, sizeof(name), "h.%u.0.mt", 100 + p);
	free(tw_save(&w, dir, name));
	tw_free(&w);
}

/* The site number of each OP of process p, in file order. */
static size_t op_sites(const struct mt_trace *t, uint32_t p, uint32_t *out)
{
	struct mt_trace_cursor c;
	const struct mt_rec_hdr *r;
	struct mt_err err;
	size_t n = 0;

	mt_trace_cursor_init(&c, t->procs[p].files[0]);
	while (mt_trace_cursor_next(&c, &r, &err) == MT_OK)
		if (r->type == MT_REC_OP) {
			struct mt_trace_event ev = { p, 0, r, 0 };

			out[n++] = mt_trace_op_site(t, &ev);
		}
	return n;
}

Test(trace_sites, one_number_per_place_in_the_code)
{
	char *dir = tw_tmpdir();
	const char *paths[] = { dir };
	struct mt_trace *t;
	struct mt_err err;
	uint32_t s0[8], s1[8];

	make_proc(dir, 0, 0x555500000000);
	make_proc(dir, 1, 0x5566aa000000);
	cr_assert_eq(mt_trace_open(paths, 1, &t, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(t->nmaps, 4);
	cr_assert_eq(t->nsites, 2, "exe+0x1234 in both processes is one site");
	cr_assert_eq(op_sites(t, 0, s0), 4);
	cr_assert_eq(op_sites(t, 1, s1), 3);
	cr_assert_eq(s0[0], s1[0]);
	cr_assert_neq(s0[0], 0);
	cr_assert_neq(s0[1], 0);
	cr_assert_neq(s0[1], s0[0]);
	cr_assert_eq(s0[2], 0, "an 88-byte OP names no site");
	cr_assert_eq(s0[3], 0, "a full table's OP names no site");
	const struct mt_trace_site *s = &t->sites[s0[0] - 1];
	cr_assert_not_null(s->app_map);
	cr_assert_str_eq(mt_trace_map_path(s->app_map->rec), EXE);
	cr_assert_eq(s->app - s->app_map->rec->base, 0x1234);
	cr_assert_not_null(s->entry_map);
	cr_assert_str_eq(mt_trace_map_path(s->entry_map->rec), "/usr/lib/libmpi.so.40");
	mt_trace_close(t);
	tw_rmdir(dir);
}

/* A reader gave the PROC record, then the error naming the file, the
 * offset and why. */
static void expect_stopped(const char *reader, enum mt_status st, size_t n,
			   const struct mt_err *err, const char *why)
{
	cr_assert_eq(st, MT_ERR_CORRUPT, "%s: status %d after %zu records",
		     reader, st, n);
	cr_assert_eq(n, 1, "%s: records before the bad one: %zu", reader, n);
	cr_assert(strstr(err->msg, "h.7.0.mt: offset "), "%s: %s", reader, err->msg);
	cr_assert(strstr(err->msg, why), "%s: '%s' does not say '%s'", reader,
		  err->msg, why);
}

/* The file alone, record by record. */
static void expect_cursor_stops(const char *path, const char *why)
{
	struct mt_trace_file *f;
	struct mt_trace_cursor c;
	const struct mt_rec_hdr *r;
	struct mt_err err = { "" };
	enum mt_status st;
	size_t n = 0;

	cr_assert_eq(mt_trace_file_open(path, &f, &err), MT_OK, "%s", err.msg);
	mt_trace_cursor_init(&c, f);
	while ((st = mt_trace_cursor_next(&c, &r, &err)) == MT_OK)
		n++;
	mt_trace_file_close(f);
	expect_stopped("cursor", st, n, &err, why);
}

/* The whole trace, in time order. */
static void expect_merge_stops(const char *dir, const char *why)
{
	const char *paths[] = { dir };
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	struct mt_err err = { "" };
	struct mt_trace *t;
	enum mt_status st;
	size_t n = 0;

	cr_assert_eq(mt_trace_open(paths, 1, &t, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(mt_trace_merge_open(t, &m), MT_OK);
	while ((st = mt_trace_merge_next(m, &ev, &err)) == MT_OK)
		n++;
	mt_trace_merge_close(m);
	mt_trace_close(t);
	expect_stopped("merge", st, n, &err, why);
}

/* A bad call-site record: both readers give the records before it, then
 * the same error. */
static void expect_corrupt(void (*make)(struct tw *w), const char *why)
{
	char *dir = tw_tmpdir(), *path;
	struct tw w;

	tw_init(&w, 7, 0);
	tw_proc(&w, 1, 0, 1000000000, "h");
	make(&w);
	path = tw_save(&w, dir, "h.7.0.mt");
	tw_free(&w);
	expect_merge_stops(dir, why);
	expect_cursor_stops(path, why);
	free(path);
	tw_rmdir(dir);
}

static void unterminated_path(struct tw *w)
{
	struct mt_rec_map *m = tw_add(w, MT_REC_MAP, 0, sizeof(*m), 2);

	memset(m->path, 'x', sizeof(m->path));
}

static void site_index_zero(struct tw *w)
{
	site(w, 0, 0x1000, 0);
}

/* The bit flips of trace_file.random_bit_flips_never_crash, seed
 * 1795577830, made a record a MAP with such a length. */
static void build_id_too_long(struct tw *w)
{
	struct mt_rec_map *m = tw_add(w, MT_REC_MAP, 0, sizeof(*m), 2);

	m->build_id_len = sizeof(m->build_id) + 1;
}

static void map_ends_before_start(struct tw *w)
{
	struct mt_rec_map *m = tw_add(w, MT_REC_MAP, 0, sizeof(*m), 2);

	m->start = 0x2000;
	m->end = 0x1000;
}

/* A file numbers its sites 1..MT_SITE_MAX. */
static void site_index_past_max(struct tw *w)
{
	site(w, MT_SITE_MAX + 1, 0x1000, 0);
}

Test(trace_sites, map_path_without_nul)
{
	expect_corrupt(unterminated_path, "path without its terminating NUL");
}

Test(trace_sites, site_index_zero)
{
	expect_corrupt(site_index_zero, "SITE record index 0 out of range");
}

Test(trace_sites, map_build_id_too_long)
{
	expect_corrupt(build_id_too_long, "MAP record has a build id longer than 32 bytes");
}

Test(trace_sites, map_ends_before_start)
{
	expect_corrupt(map_ends_before_start, "MAP record ends before it starts");
}

Test(trace_sites, site_index_past_max)
{
	expect_corrupt(site_index_past_max, "SITE record index 4097 out of range");
}
