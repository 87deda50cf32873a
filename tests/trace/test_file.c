/*
 * test_file.c - one file: header validation, record validation, truncation
 * at every offset and random bit flips (the reader must never crash).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tw.h"

#define NAME "node1.100.0.mt"

/* A small valid file: PROC, START, 3 ops, a CQ entry, END. */
static size_t build_small(struct tw *w)
{
	struct mt_rec_cqe *c;

	tw_init(w, 100, 0);
	tw_proc(w, 10, 0, 1000000000, "node1");
	tw_clock(w, MT_CLOCK_START, 10, 1000, 5000);
	for (int i = 0; i < 3; i++)
		tw_op(w, MT_OP_TSEND, 20 + (uint64_t)i, 0x100 + (uint64_t)i)->len = 8;
	c = tw_add(w, MT_REC_CQE, MT_CQ_READ, sizeof(*c), 40);
	c->tag = 0x100;
	tw_clock(w, MT_CLOCK_END, 50, 1040, 5040);
	return 7;
}

/* Open path and iterate it; returns the final status, counts records. */
static enum mt_status read_all(const char *path, size_t *nrec, struct mt_err *err)
{
	struct mt_trace_file *f;
	struct mt_trace_cursor c;
	const struct mt_rec_hdr *r;
	enum mt_status st = mt_trace_file_open(path, &f, err);

	*nrec = 0;
	if (st != MT_OK)
		return st;
	mt_trace_cursor_init(&c, f);
	while ((st = mt_trace_cursor_next(&c, &r, err)) == MT_OK)
		(*nrec)++;
	mt_trace_file_close(f);
	return st;
}

/* Write w as NAME in a new directory, expect st and a message with needle. */
static void expect(struct tw *w, enum mt_status want, size_t want_recs,
		   const char *needle)
{
	char *dir = tw_tmpdir(), *path;
	struct mt_err err = { "" };
	struct mt_file_hdr saved = *tw_hdr(w);
	enum mt_status st;
	size_t n;

	/* tw_save recomputes committed/capacity; keep a test's own values. */
	path = tw_save(w, dir, NAME);
	if (saved.committed != 0 || saved.capacity != 0) {
		memcpy(w->buf, &saved, sizeof(saved));
		tw_write(path, w->buf, w->len);
	}
	st = read_all(path, &n, &err);
	cr_expect_eq(st, want, "status %d (%s), want %d: %s", st,
		     mt_status_str(st), want, err.msg);
	cr_expect_eq(n, want_recs, "%zu records before the end, want %zu", n,
		     want_recs);
	if (needle) {
		cr_expect(strstr(err.msg, path) != NULL, "no path in '%s'", err.msg);
		cr_expect(strstr(err.msg, needle) != NULL, "'%s' not in '%s'",
			  needle, err.msg);
	}
	free(path);
	tw_rmdir(dir);
	tw_free(w);
}

Test(trace_file, valid_file_reads_every_record)
{
	struct tw w;
	size_t n = build_small(&w);

	expect(&w, MT_END, n, NULL);
}

Test(trace_file, bad_magic)
{
	struct tw w;

	build_small(&w);
	tw_hdr(&w)->magic[0] = 'X';
	expect(&w, MT_ERR_CORRUPT, 0, "offset 0: bad magic");
}

Test(trace_file, wrong_version)
{
	struct tw w;

	build_small(&w);
	tw_hdr(&w)->version = 5;
	expect(&w, MT_ERR_VERSION, 0, "offset 8: format version 5");
}

Test(trace_file, header_size_too_small)
{
	struct tw w;

	build_small(&w);
	tw_hdr(&w)->hdr_size = 8;
	expect(&w, MT_ERR_CORRUPT, 0, "offset 12: header size 8");
}

Test(trace_file, data_off_past_end)
{
	struct tw w;

	build_small(&w);
	tw_hdr(&w)->data_off = 1 << 20;
	tw_hdr(&w)->committed = 8;
	tw_hdr(&w)->capacity = 8;
	expect(&w, MT_ERR_CORRUPT, 0, "offset 16: data offset 1048576");
}

Test(trace_file, committed_beyond_capacity)
{
	struct tw w;

	build_small(&w);
	tw_hdr(&w)->committed = 4096;
	tw_hdr(&w)->capacity = 1024;
	expect(&w, MT_ERR_CORRUPT, 0, "offset 24: committed bytes 4096 exceed");
}

Test(trace_file, absurd_committed_and_capacity)
{
	struct tw w;

	build_small(&w);
	tw_hdr(&w)->committed = UINT64_MAX - 8;
	tw_hdr(&w)->capacity = UINT64_MAX;
	expect(&w, MT_ERR_CORRUPT, 0, "offset 24");
}

Test(trace_file, absurd_capacity_is_fine)
{
	struct tw w;
	size_t n = build_small(&w);

	tw_hdr(&w)->committed = w.len - MT_FILE_HDR_SIZE;
	tw_hdr(&w)->capacity = UINT64_MAX;
	expect(&w, MT_END, n, NULL);
}

Test(trace_file, committed_beyond_file_end)
{
	struct tw w;
	size_t n = build_small(&w);

	tw_hdr(&w)->committed = w.len - MT_FILE_HDR_SIZE + 64;
	tw_hdr(&w)->capacity = 1 << 20;
	expect(&w, MT_ERR_CORRUPT, n, "truncated copy?");
}

/* A good file plus one record of `size` bytes claiming `type`. */
static void bad_record(unsigned type, uint16_t size, const char *why)
{
	struct tw w;
	size_t n = build_small(&w), off = w.len;
	struct mt_rec_hdr *r = tw_add(&w, type, 0, sizeof(struct mt_rec_op), 60);
	char needle[128];

	r->size = size;
	snprintf(needle, sizeof(needle), "offset %zu: %s", off, why);
	expect(&w, MT_ERR_CORRUPT, n, needle);
}

Test(trace_file, record_size_zero)
{
	bad_record(MT_REC_OP, 0, "record size 0 is smaller than a record header");
}

Test(trace_file, record_size_not_multiple_of_8)
{
	bad_record(MT_REC_OP, 12, "record size 12 is not a multiple of 8");
}

Test(trace_file, record_past_committed_end)
{
	bad_record(MT_REC_OP, 4096, "record size 4096 runs past the committed end");
}

Test(trace_file, known_type_shorter_than_its_struct)
{
	bad_record(MT_REC_OP, 24, "OP record size 24 is smaller than its struct");
}

Test(trace_file, unknown_type_skipped_and_counted)
{
	struct tw w;
	size_t n = build_small(&w);
	char *dir = tw_tmpdir(), *path;
	struct mt_trace_file *f;
	struct mt_trace_cursor c;
	const struct mt_rec_hdr *r;
	struct mt_err err;
	size_t seen = 0;

	tw_add(&w, 200, 0, 40, 60);
	tw_op(&w, MT_OP_TRECV, 70, 1);
	tw_add(&w, 0, 0, 16, 80);	/* type 0 is not a type either */
	path = tw_save(&w, dir, NAME);
	cr_assert_eq(mt_trace_file_open(path, &f, &err), MT_OK, "%s", err.msg);
	cr_expect_eq(f->unknown, 2);
	cr_expect_eq(f->nrecs, n + 3);
	mt_trace_cursor_init(&c, f);
	while (mt_trace_cursor_next(&c, &r, &err) == MT_OK) {
		cr_expect(r->type != 200 && r->type != 0);
		seen++;
	}
	cr_expect_eq(seen, n + 1);
	mt_trace_file_close(f);
	free(path);
	tw_rmdir(dir);
	tw_free(&w);
}

Test(trace_file, killed_writer_is_readable_and_flagged)
{
	struct tw w;
	char *dir = tw_tmpdir(), *path;
	struct mt_trace_file *f;
	struct mt_err err;
	size_t n = build_small(&w);

	path = tw_save(&w, dir, NAME);
	/* Records written but not yet published, and no CLOSED flag. */
	tw_hdr(&w)->committed -= sizeof(struct mt_rec_clock);
	tw_hdr(&w)->flags = 0;
	tw_write(path, w.buf, w.len);
	cr_assert_eq(mt_trace_file_open(path, &f, &err), MT_OK, "%s", err.msg);
	cr_expect_eq(f->nrecs, n - 1);
	cr_expect_eq(f->scan_status, MT_OK);
	cr_expect_not(mt_trace_file_clean(f));
	mt_trace_file_close(f);
	free(path);
	tw_rmdir(dir);
	tw_free(&w);
}

Test(trace_file, never_written_file_is_empty_not_corrupt)
{
	struct tw w;

	build_small(&w);
	memset(tw_hdr(&w), 0, MT_FILE_HDR_SIZE);
	expect(&w, MT_END, 0, "header never written");
}

Test(trace_file, file_name_disagrees_with_header)
{
	struct tw w;
	char *dir = tw_tmpdir(), *path;
	struct mt_trace_file *f;
	struct mt_err err;

	build_small(&w);
	path = tw_save(&w, dir, "node1.101.0.mt");
	cr_expect_eq(mt_trace_file_open(path, &f, &err), MT_ERR_CORRUPT);
	cr_expect(strstr(err.msg, "header says pid 100 thread 0, the file name says "
			 "pid 101 thread 0"), "%s", err.msg);
	free(path);
	tw_rmdir(dir);
	tw_free(&w);
}

typedef enum mt_status open_fn(const char *const *paths, size_t n,
				struct mt_trace **out, struct mt_err *err);

/* The whole-trace path over one file: open, merge to the end. */
static enum mt_status merge_all(open_fn *open, const char *path, struct mt_err *err)
{
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	struct mt_trace *t;
	enum mt_status st = open(&path, 1, &t, err);

	if (st != MT_OK)
		return st;
	cr_assert_eq(mt_trace_merge_open(t, &m), MT_OK);
	while ((st = mt_trace_merge_next(m, &ev, err)) == MT_OK)
		mt_trace_resolve(t, ev.proc, 0, 0);
	mt_trace_merge_close(m);
	mt_trace_close(t);
	return st;
}

/* A lean open: mt_trace_open_part, one part scanning every file. */
static enum mt_status open_lean(const char *const *paths, size_t n,
				struct mt_trace **out, struct mt_err *err)
{
	enum mt_status st = mt_trace_open_part(paths, n, 0, 1, out, err);

	if (st == MT_OK && (st = mt_trace_part_done(*out, err)))
		mt_trace_close(*out);
	return st;
}

/* Part 1 of an opening divided in 2, every closed file's scan taken from
 * part 0 (the division gives part 0 the first closed file, and the next
 * to whichever part has the fewest bytes). */
static enum mt_status open_taken(const char *const *paths, size_t n,
				 struct mt_trace **out, struct mt_err *err)
{
	struct mt_trace *other;
	enum mt_status st = mt_trace_open_part(paths, n, 1, 2, out, err);
	void *buf;
	size_t len;

	if (st != MT_OK)
		return st;
	cr_assert_eq(mt_trace_open_part(paths, n, 0, 2, &other, err), MT_OK, "%s", err->msg);
	cr_assert_eq(mt_trace_part_scans(other, 0, &buf, &len), MT_OK);
	st = mt_trace_part_take(*out, 0, buf, len, err);
	if (st == MT_OK)
		st = mt_trace_part_done(*out, err);
	if (st != MT_OK)
		mt_trace_close(*out);
	free(buf);
	mt_trace_close(other);
	return st;
}

/* The merge of a lean open (each file scanned from a copy, or released
 * once scanned), and of an open that took each file's scan from another
 * part, ends as the merge of a plain open did: st, err. */
static void same_when_lean(const char *path, enum mt_status st,
			   const struct mt_err *err)
{
	struct mt_err lean = { "" }, taken = { "" };

	cr_assert_eq(merge_all(open_lean, path, &lean), st, "%s: status", path);
	cr_assert_str_eq(lean.msg, err->msg);
	cr_assert_eq(merge_all(open_taken, path, &taken), st, "%s: status", path);
	cr_assert_str_eq(taken.msg, err->msg);
}

/* A lean open reads no closed file's mapping at open: its setup records
 * are kept apart, the bytes a plain open reads in the mapping. */
Test(trace_file, lean_open_keeps_setup_records_apart_from_the_mapping)
{
	char *dir = tw_tmpdir(), *path;
	struct mt_trace *plain, *lean;
	struct mt_err err = { "" };
	struct tw w;

	build_small(&w);
	path = tw_save(&w, dir, NAME);
	cr_assert_eq(mt_trace_open((const char *const *)&path, 1, &plain, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(open_lean((const char *const *)&path, 1, &lean, &err), MT_OK, "%s", err.msg);
	const struct mt_trace_file *a = plain->files[0], *b = lean->files[0];

	cr_assert_eq(b->nsetup, a->nsetup);
	cr_assert_eq(a->nsetup, 3, "PROC, START, END");
	for (size_t j = 0; j < a->nsetup; j++) {
		const struct mt_rec_hdr *ra = mt_trace_file_setup(a, j);
		const uint8_t *rb = (const uint8_t *)mt_trace_file_setup(b, j);

		cr_assert(rb < b->map || rb >= b->map + b->map_len,
			  "setup record %zu read from the mapping", j);
		cr_assert(mt_trace_file_owns(b, rb));
		cr_assert_eq(memcmp(ra, rb, ra->size), 0, "setup record %zu", j);
	}
	cr_assert_eq(lean->procs[0].rec->world_rank, 0);
	mt_trace_close(plain);
	mt_trace_close(lean);
	free(path);
	tw_rmdir(dir);
	tw_free(&w);
}

/* Three processes' files, of 7, 8 and 9 records (the middle one cut by a
 * bad record), in dir: their paths into paths[]. */
static void three_files(const char *dir, char *paths[3])
{
	for (int p = 0; p < 3; p++) {
		char name[32];
		struct tw w;

		tw_init(&w, 100 + (uint32_t)p, 0);
		tw_proc(&w, 10, p, 1000000000, "node1");
		tw_clock(&w, MT_CLOCK_START, 10, 1000, 5000);
		for (int i = 0; i < 3 + p; i++)
			tw_op(&w, MT_OP_TSEND, 20 + (uint64_t)i, 0x100 + (uint64_t)i)->len = 8;
		if (p == 1)
			tw_add(&w, MT_REC_CQE, MT_CQ_READ, 8, 40);	/* too short */
		tw_clock(&w, MT_CLOCK_END, 50, 1040, 5040);
		snprintf(name, sizeof(name), "node1.%d.0.mt", 100 + p);
		paths[p] = tw_save(&w, dir, name);
		tw_free(&w);
	}
}

/* An opening divided in two, each part taking the other's scans, gives
 * each part the files a whole open gives: counts, valid range, error and
 * setup records alike. */
Test(trace_file, divided_opening_gives_every_part_the_whole_scan)
{
	char *dir = tw_tmpdir(), *paths[3];
	const char *d = dir;
	struct mt_trace *whole, *part[2];
	struct mt_err err = { "" };
	void *buf[2];
	size_t len[2];

	three_files(dir, paths);
	cr_assert_eq(mt_trace_open(&d, 1, &whole, &err), MT_OK, "%s", err.msg);
	for (unsigned p = 0; p < 2; p++) {
		cr_assert_eq(mt_trace_open_part(&d, 1, p, 2, &part[p], &err), MT_OK, "%s", err.msg);
		cr_assert_eq(mt_trace_part_scans(part[p], p, &buf[p], &len[p]), MT_OK);
	}
	for (unsigned p = 0; p < 2; p++) {
		cr_assert_eq(mt_trace_part_take(part[p], 1 - p, buf[1 - p], len[1 - p], &err),
			     MT_OK, "%s", err.msg);
		cr_assert_eq(mt_trace_part_done(part[p], &err), MT_OK, "%s", err.msg);
	}
	cr_assert_eq(part[0]->files[0]->scan_part, 0, "the first file to part 0");
	cr_assert_eq(part[0]->files[1]->scan_part, 1, "the next to the emptier part");
	for (unsigned p = 0; p < 2; p++)
		for (size_t i = 0; i < whole->nfiles; i++) {
			const struct mt_trace_file *a = whole->files[i], *b = part[p]->files[i];

			cr_assert_str_eq(a->path, b->path);
			cr_assert_eq(b->nrecs, a->nrecs, "%s", a->path);
			cr_assert_eq(b->valid_end, a->valid_end, "%s", a->path);
			cr_assert_eq(b->scan_status, a->scan_status, "%s", a->path);
			cr_assert_str_eq(b->scan_err.msg, a->scan_err.msg);
			cr_assert_eq(b->first_ts, a->first_ts);
			cr_assert_eq(b->last_ts, a->last_ts);
			cr_assert_eq(memcmp(b->type_count, a->type_count, sizeof(a->type_count)), 0);
			cr_assert_eq(b->nsetup, a->nsetup, "%s", a->path);
			for (size_t j = 0; j < a->nsetup; j++) {
				const struct mt_rec_hdr *ra = mt_trace_file_setup(a, j);

				cr_assert_eq(memcmp(ra, mt_trace_file_setup(b, j), ra->size), 0);
			}
			cr_assert_eq(part[p]->procs[i].world_rank, whole->procs[i].world_rank);
		}
	cr_assert_eq(whole->files[1]->scan_status, MT_ERR_CORRUPT, "the cut file");
	for (unsigned p = 0; p < 2; p++) {
		mt_trace_close(part[p]);
		free(buf[p]);
	}
	mt_trace_close(whole);
	for (int p = 0; p < 3; p++)
		free(paths[p]);
	tw_rmdir(dir);
}

/* A part whose files are not the ones another part scanned (the trace
 * changed between their openings) is told so, naming the file. */
Test(trace_file, divided_opening_refuses_scans_of_other_files)
{
	char *dir = tw_tmpdir(), *paths[3];
	const char *d = dir;
	struct mt_trace *scanner, *taker;
	struct mt_err err = { "" };
	void *buf;
	size_t len;

	three_files(dir, paths);
	cr_assert_eq(mt_trace_open_part(&d, 1, 0, 2, &scanner, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(mt_trace_part_scans(scanner, 0, &buf, &len), MT_OK);
	/* The taker opens the files in another order: the first it owes
	 * part 0 is not the one part 0 scanned first. */
	const char *rev[3] = { paths[2], paths[1], paths[0] };

	cr_assert_eq(mt_trace_open_part(rev, 3, 1, 2, &taker, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(mt_trace_part_take(taker, 0, buf, len, &err), MT_ERR_IO);
	cr_assert(strstr(err.msg, "not the file part 0 scanned"), "%s", err.msg);
	cr_assert(strstr(err.msg, paths[2]), "%s", err.msg);
	cr_assert_eq(mt_trace_part_done(taker, &err), MT_ERR_ARG, "a scan still owed");
	cr_assert(strstr(err.msg, "never came from part 0"), "%s", err.msg);
	mt_trace_close(taker);
	mt_trace_close(scanner);
	free(buf);
	for (int p = 0; p < 3; p++)
		free(paths[p]);
	tw_rmdir(dir);
}

/*
 * Cut a valid file at every length: the reader must return exactly the
 * whole records inside the cut and then a clean error naming the file.
 */
Test(trace_file, truncation_at_every_offset)
{
	struct tw w;
	char *dir = tw_tmpdir(), *path;
	size_t total = build_small(&w), ends[16], nends = 0;
	size_t off = MT_FILE_HDR_SIZE;

	path = tw_save(&w, dir, NAME);
	while (off < w.len) {
		off += ((struct mt_rec_hdr *)(w.buf + off))->size;
		ends[nends++] = off;
	}
	cr_assert_eq(nends, total);
	for (size_t len = 0; len <= w.len; len++) {
		struct mt_err err = { "" };
		size_t n, whole = 0;
		enum mt_status st;

		tw_write(path, w.buf, len);
		same_when_lean(path, merge_all(mt_trace_open, path, &err), &err);
		err.msg[0] = '\0';
		st = read_all(path, &n, &err);
		while (whole < nends && ends[whole] <= len)
			whole++;
		if (len == w.len) {
			cr_assert_eq(st, MT_END, "full file: %s", err.msg);
			cr_assert_eq(n, total);
			continue;
		}
		/* Nothing at all is a file created but never written. */
		cr_assert_eq(st, len ? MT_ERR_CORRUPT : MT_END,
			     "cut at %zu: status %d", len, st);
		cr_assert(strstr(err.msg, path), "cut at %zu: '%s'", len, err.msg);
		cr_assert_eq(n, len < MT_FILE_HDR_SIZE ? 0 : whole,
			     "cut at %zu: %zu records", len, n);
	}
	free(path);
	tw_rmdir(dir);
	tw_free(&w);
}

/* Random bit flips anywhere must give records or an error, never a crash,
 * and the merge must agree with the file's cursor. The seed is fixed
 * (MT_TEST_SEED overrides it), so a run cannot fail by chance. Seed
 * 1795577830 made a MAP record only the merge checked (test_sites.c). */
Test(trace_file, random_bit_flips_never_crash)
{
	const char *env = getenv("MT_TEST_SEED");
	unsigned seed = env ? (unsigned)strtoul(env, NULL, 0) : 1u;
	struct tw w;
	char *dir = tw_tmpdir(), *path;
	uint8_t *copy;

	fprintf(stderr, "trace_file.random_bit_flips_never_crash: seed %u\n", seed);
	srand(seed);
	build_small(&w);
	path = tw_save(&w, dir, NAME);
	copy = malloc(w.len);
	cr_assert_not_null(copy);
	for (int iter = 0; iter < 3000; iter++) {
		struct mt_err err = { "" };
		enum mt_status st;
		size_t n;
		int flips = 1 + rand() % 8;

		memcpy(copy, w.buf, w.len);
		for (int i = 0; i < flips; i++) {
			/* Half the flips hit the header's first 64 bytes. */
			size_t at = rand() % 2 ? (size_t)rand() % 64 :
				    MT_FILE_HDR_SIZE + (size_t)rand() %
				    (w.len - MT_FILE_HDR_SIZE);

			copy[at] ^= (uint8_t)(1u << (rand() % 8));
		}
		tw_write(path, copy, w.len);
		st = read_all(path, &n, &err);
		cr_assert(st == MT_END || st < 0, "seed %u iter %d: status %d",
			  seed, iter, st);
		if (st < 0)
			cr_assert(strstr(err.msg, path), "seed %u iter %d: '%s'",
				  seed, iter, err.msg);
		cr_assert_eq(merge_all(mt_trace_open, path, &err), st, "seed %u iter %d",
			     seed, iter);
		same_when_lean(path, st, &err);
	}
	free(copy);
	free(path);
	tw_rmdir(dir);
	tw_free(&w);
}
