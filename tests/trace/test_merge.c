/*
 * test_merge.c - grouping into processes, tick -> ns conversion and the
 * time-ordered merge across files.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tw.h"

static struct mt_trace *open_dir(const char *dir)
{
	struct mt_trace *t;
	struct mt_err err;

	cr_assert_eq(mt_trace_open(&dir, 1, &t, &err), MT_OK, "%s", err.msg);
	return t;
}

static void save(struct tw *w, const char *dir, const char *host)
{
	char name[128];

	snprintf(name, sizeof(name), "%s.%u.%u.mt", host, tw_hdr(w)->pid,
		 tw_hdr(w)->thread_seq);
	free(tw_save(w, dir, name));
	tw_free(w);
}

/* One process with clock_hz and START (and END if end_ts) pairs. */
static struct mt_trace *clocked(char *dir, uint64_t hz, uint64_t start_ts,
				uint64_t start_ns, uint64_t end_ts, uint64_t end_ns)
{
	struct tw w;

	tw_init(&w, 7, 0);
	tw_proc(&w, start_ts, 0, hz, "h");
	tw_clock(&w, MT_CLOCK_START, start_ts, start_ns, 0);
	if (end_ts)
		tw_clock(&w, MT_CLOCK_END, end_ts, end_ns, 0);
	save(&w, dir, "h");
	return open_dir(dir);
}

Test(trace_clock, start_end_pairs_give_exact_linear_map)
{
	char *dir = tw_tmpdir();
	/* 3 GHz TSC, but clock_hz claims 2.9 GHz: the pairs must win. */
	struct mt_trace *t = clocked(dir, 2900000000ull, 1000, 5000000000ull,
				     1000 + 30000000000ull, 15000000000ull);
	const struct mt_trace_clock *c = &t->procs[0].clock;

	cr_assert_eq(c->kind, MT_TRACE_CLOCK_PAIRS);
	cr_expect_eq(mt_trace_ticks_ns(c, 1000), 5000000000ll);
	cr_expect_eq(mt_trace_ticks_ns(c, 1000 + 30000000000ull), 15000000000ll);
	cr_expect_eq(mt_trace_ticks_ns(c, 1000 + 3000000000ull), 6000000000ll);
	/* Ticks before START (another thread's TSC read) map backwards. */
	cr_expect_eq(mt_trace_ticks_ns(c, 1000 - 300), 4999999900ll);
	mt_trace_close(t);
	tw_rmdir(dir);
}

Test(trace_clock, start_only_uses_clock_hz)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t = clocked(dir, 2000000000ull, 500, 100, 0, 0);
	const struct mt_trace_clock *c = &t->procs[0].clock;

	cr_assert_eq(c->kind, MT_TRACE_CLOCK_HZ);
	cr_expect_eq(mt_trace_ticks_ns(c, 500 + 2000000000ull), 1000000100ll);
	mt_trace_close(t);
	tw_rmdir(dir);
}

Test(trace_clock, no_proc_record_is_raw)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;
	struct tw w;

	tw_init(&w, 7, 1);
	tw_op(&w, MT_OP_TSEND, 12345, 0);
	save(&w, dir, "h");
	t = open_dir(dir);
	cr_assert_eq(t->procs[0].clock.kind, MT_TRACE_CLOCK_RAW);
	cr_expect_eq(t->procs[0].world_rank, -1);
	cr_expect_eq(mt_trace_ticks_ns(&t->procs[0].clock, 12345), 12345);
	mt_trace_close(t);
	tw_rmdir(dir);
}

/* Process pid on host, killed (START pair only), with its own clock_hz;
 * one op at tick op_ts. The TSC runs at 3 GHz: mono = ticks / 3. */
static void killed_proc(const char *dir, const char *host, uint32_t pid,
			uint64_t hz, uint64_t start_ts, uint64_t op_ts)
{
	struct tw w;

	tw_init(&w, pid, 0);
	tw_proc(&w, start_ts, (int32_t)pid, hz, host);
	tw_clock(&w, MT_CLOCK_START, start_ts, start_ts / 3, 0);
	tw_op(&w, MT_OP_TSEND, op_ts, 0);
	save(&w, dir, host);
}

/* Two processes of one host read one TSC: a tick is one time in both,
 * whatever each measured as its rate at start (+300 and -200 ppm here). */
Test(trace_clock, one_host_one_map_from_its_pairs)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;

	killed_proc(dir, "h", 1, 3000900000ull, 300000000ull, 30000000000ull);
	killed_proc(dir, "h", 2, 2999400000ull, 600000000ull, 30000000000ull);
	t = open_dir(dir);
	cr_assert_eq(t->nprocs, 2);
	for (int p = 0; p < 2; p++) {
		cr_expect_eq(t->procs[p].clock.kind, MT_TRACE_CLOCK_PAIRS);
		/* 10 s after boot on the host's line through both STARTs. */
		cr_expect_eq(mt_trace_ticks_ns(&t->procs[p].clock, 30000000000ull),
			     10000000000ll, "process %d", p);
		cr_expect_eq(t->procs[p].last_ns, 10000000000ll, "process %d", p);
	}
	mt_trace_close(t);
	tw_rmdir(dir);
}

/* Starts 1 ms apart bound no rate: the host's median clock_hz, one map. */
Test(trace_clock, one_host_close_starts_share_median_rate)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;
	int64_t a, b;

	killed_proc(dir, "h", 1, 3000900000ull, 300000000ull, 30000000000ull);
	killed_proc(dir, "h", 2, 3000000000ull, 303000000ull, 30000000000ull);
	killed_proc(dir, "h", 3, 2999400000ull, 306000000ull, 30000000000ull);
	t = open_dir(dir);
	cr_assert_eq(t->nprocs, 3);
	a = mt_trace_ticks_ns(&t->procs[0].clock, 30000000000ull);
	for (int p = 0; p < 3; p++) {
		cr_expect_eq(t->procs[p].clock.kind, MT_TRACE_CLOCK_HZ);
		b = mt_trace_ticks_ns(&t->procs[p].clock, 30000000000ull);
		cr_expect_eq(b, a, "process %d: %lld ns against %lld", p,
			     (long long)b, (long long)a);
	}
	cr_expect_eq(a, 10000000000ll);
	mt_trace_close(t);
	tw_rmdir(dir);
}

/* Another host's TSC is another clock: each host keeps its own map. */
Test(trace_clock, hosts_keep_their_own_maps)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;

	killed_proc(dir, "a", 1, 3000000000ull, 300000000ull, 30000000000ull);
	killed_proc(dir, "a", 2, 3000000000ull, 600000000ull, 30000000000ull);
	killed_proc(dir, "b", 3, 2000000000ull, 300000000ull, 30000000000ull);
	t = open_dir(dir);
	cr_assert_eq(t->nprocs, 3);
	cr_expect_eq(mt_trace_ticks_ns(&t->procs[0].clock, 30000000000ull),
		     10000000000ll);
	/* Host b alone: its START, then its own 2 GHz. */
	cr_expect_eq(t->procs[2].clock.kind, MT_TRACE_CLOCK_HZ);
	cr_expect_eq(mt_trace_ticks_ns(&t->procs[2].clock, 30000000000ull),
		     100000000ll + 14850000000ll);
	mt_trace_close(t);
	tw_rmdir(dir);
}

/*
 * Process p (world rank) with its tick rate; thread files carry ops whose
 * tag is the expected ns, written in the process's ticks.
 */
static void make_proc(const char *dir, const char *host, uint32_t pid,
		      int32_t rank, uint64_t ticks_per_ns, const uint64_t *ns0,
		      const uint64_t *ns1, size_t n)
{
	struct tw w;

	tw_init(&w, pid, 0);
	tw_proc(&w, 0, rank, ticks_per_ns * 1000000000ull, host);
	tw_clock(&w, MT_CLOCK_START, 0, 0, 0);
	for (size_t i = 0; i < n; i++)
		tw_op(&w, MT_OP_TSEND, ns0[i] * ticks_per_ns, ns0[i]);
	tw_clock(&w, MT_CLOCK_END, 1000000 * ticks_per_ns, 1000000, 1000000);
	save(&w, dir, host);
	tw_init(&w, pid, 1);
	for (size_t i = 0; i < n; i++)
		tw_op(&w, MT_OP_TRECV, ns1[i] * ticks_per_ns, ns1[i]);
	save(&w, dir, host);
}

Test(trace_merge, interleaved_files_come_out_in_time_order)
{
	static const uint64_t a0[] = { 10, 40, 70, 100 }, a1[] = { 5, 45, 46, 200 };
	static const uint64_t b0[] = { 1, 41, 99, 150 }, b1[] = { 40, 60, 61, 62 };
	static const uint64_t c0[] = { 40, 41, 42, 43 }, c1[] = { 3, 300, 301, 302 };
	char *dir = tw_tmpdir();
	struct mt_trace_merge *m;
	struct mt_trace_event ev, prev = { 0 };
	struct mt_trace *t;
	struct mt_err err;
	enum mt_status st;
	size_t n = 0, ops = 0;

	/* Ranks listed out of order, and different tick rates per process
	 * (so per host: the processes of one host read one TSC). */
	make_proc(dir, "hostb", 20, 2, 3, c0, c1, 4);
	make_proc(dir, "hosta", 30, 0, 1, a0, a1, 4);
	make_proc(dir, "hostc", 10, 1, 2, b0, b1, 4);
	t = open_dir(dir);
	cr_assert_eq(t->nprocs, 3);
	for (uint32_t i = 0; i < 3; i++) {
		cr_expect_eq(t->procs[i].world_rank, (int32_t)i);
		cr_expect_eq(t->procs[i].nfiles, 2);
		cr_expect_eq(t->procs[i].files[1]->hdr->thread_seq, 1);
	}
	cr_expect_str_eq(t->procs[2].host, "hostb");
	cr_expect_eq(t->nhosts, 3);
	/* Rank 1's records run from PROC/START at 0 to END at 1 ms. */
	cr_expect_eq(t->procs[1].first_ns, 0);
	cr_expect_eq(t->procs[1].last_ns, 1000000);
	cr_assert_eq(mt_trace_merge_open(t, &m), MT_OK);
	while ((st = mt_trace_merge_next(m, &ev, &err)) == MT_OK) {
		if (ev.rec->type == MT_REC_OP) {
			cr_expect_eq((uint64_t)ev.ns,
				     ((const struct mt_rec_op *)ev.rec)->tag);
			ops++;
		}
		if (n++) {
			cr_expect(ev.ns >= prev.ns, "%ld after %ld", (long)ev.ns,
				  (long)prev.ns);
			/* Equal times: process order, then file order. */
			if (ev.ns == prev.ns)
				cr_expect(ev.proc > prev.proc ||
					  (ev.proc == prev.proc && ev.file >= prev.file),
					  "tie at %ld not ordered", (long)ev.ns);
		}
		prev = ev;
	}
	cr_expect_eq(st, MT_END, "%s", err.msg);
	cr_expect_eq(ops, 24);
	cr_expect_eq(n, 24 + 3 * 3);	/* + PROC, START, END per process */
	mt_trace_merge_close(m);
	mt_trace_close(t);
	tw_rmdir(dir);
}

Test(trace_merge, corrupt_file_stops_merge_after_its_good_records)
{
	char *dir = tw_tmpdir(), path[256];
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	struct mt_trace *t;
	struct mt_err err;
	enum mt_status st;
	struct tw w;
	size_t n = 0;

	tw_init(&w, 1, 0);
	tw_proc(&w, 0, 0, 1000000000ull, "h");
	tw_op(&w, MT_OP_TSEND, 10, 0);
	((struct mt_rec_hdr *)tw_add(&w, MT_REC_OP, 0, sizeof(struct mt_rec_op), 20))->size = 20;
	save(&w, dir, "h");
	tw_init(&w, 2, 0);
	tw_proc(&w, 0, 1, 1000000000ull, "h");
	tw_op(&w, MT_OP_TRECV, 5, 0);
	tw_op(&w, MT_OP_TRECV, 100, 0);
	save(&w, dir, "h");
	t = open_dir(dir);
	cr_assert_eq(mt_trace_merge_open(t, &m), MT_OK);
	while ((st = mt_trace_merge_next(m, &ev, &err)) == MT_OK)
		n++;
	/* PROC x2, recv@5, send@10: then the bad record of h.1.0.mt. */
	cr_expect_eq(n, 4);
	cr_expect_eq(st, MT_ERR_CORRUPT);
	snprintf(path, sizeof(path), "%s/h.1.0.mt: offset %zu: record size 20",
		 dir, (size_t)MT_FILE_HDR_SIZE + sizeof(struct mt_rec_proc) +
		 sizeof(struct mt_rec_op));
	cr_expect(strstr(err.msg, path), "'%s' lacks '%s'", err.msg, path);
	mt_trace_merge_close(m);
	mt_trace_close(t);
	tw_rmdir(dir);
}

Test(trace_open, duplicate_thread_is_an_error)
{
	char *dir = tw_tmpdir();
	const char *paths[2];
	struct mt_trace *t;
	struct mt_err err;
	struct tw w;

	tw_init(&w, 1, 0);
	tw_proc(&w, 0, 0, 1000000000ull, "h");
	save(&w, dir, "h");
	paths[0] = dir;
	paths[1] = dir;
	cr_expect_eq(mt_trace_open(paths, 2, &t, &err), MT_ERR_ARG);
	cr_expect(strstr(err.msg, "are both thread 0 of process 1"), "%s", err.msg);
	tw_rmdir(dir);
}

Test(trace_open, never_written_files_are_skipped_and_counted)
{
	char *dir = tw_tmpdir(), *path;
	const char *p = dir;
	struct mt_trace *t;
	struct mt_err err;
	struct tw w;

	tw_init(&w, 1, 1);
	free(tw_save(&w, dir, "h.1.1.mt"));
	tw_free(&w);
	cr_assert(asprintf(&path, "%s/h.1.0.mt", dir) > 0);
	tw_write(path, "", 0);
	free(path);
	cr_assert_eq(mt_trace_open(&p, 1, &t, &err), MT_OK, "%s", err.msg);
	cr_expect_eq(t->nempty, 1);
	cr_expect_eq(t->nfiles, 1);
	mt_trace_close(t);
	cr_assert(asprintf(&path, "%s/h.1.1.mt", dir) > 0);
	unlink(path);
	free(path);
	cr_expect_eq(mt_trace_open(&p, 1, &t, &err), MT_ERR_ARG);
	cr_expect(strstr(err.msg, "no trace file holds a header (1 empty)"), "%s",
		  err.msg);
	tw_rmdir(dir);
}

Test(trace_open, empty_directory_is_an_error)
{
	char *dir = tw_tmpdir();
	const char *p = dir;
	struct mt_trace *t;
	struct mt_err err;

	cr_expect_eq(mt_trace_open(&p, 1, &t, &err), MT_ERR_ARG);
	cr_expect(strstr(err.msg, "no *.mt trace files"), "%s", err.msg);
	tw_rmdir(dir);
}

/* Monotonic clocks of two hosts share no origin: merge on realtime. */
Test(trace_merge, several_hosts_merge_on_realtime)
{
	char *dir = tw_tmpdir();
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	struct mt_trace *t;
	struct mt_err err;
	uint64_t order[2];
	size_t n = 0;
	struct tw w;

	/* Host a boots 1000 s before host b; b's op happens 1 us earlier. */
	tw_init(&w, 1, 0);
	tw_proc(&w, 0, 0, 1000000000ull, "a");
	tw_clock(&w, MT_CLOCK_START, 0, 1000000000000ull, 5000000000ull);
	tw_op(&w, MT_OP_TSEND, 2000, 0xa);
	save(&w, dir, "a");
	tw_init(&w, 2, 0);
	tw_proc(&w, 0, 1, 1000000000ull, "b");
	tw_clock(&w, MT_CLOCK_START, 0, 1000, 5000000000ull);
	tw_op(&w, MT_OP_TRECV, 1000, 0xb);
	save(&w, dir, "b");
	t = open_dir(dir);
	cr_expect_eq(t->procs[0].merge_offset_ns, 5000000000ll - 1000000000000ll);
	cr_expect_eq(t->procs[1].merge_offset_ns, 5000000000ll - 1000ll);
	cr_assert_eq(mt_trace_merge_open(t, &m), MT_OK);
	while (mt_trace_merge_next(m, &ev, &err) == MT_OK)
		if (ev.rec->type == MT_REC_OP)
			order[n++] = ((const struct mt_rec_op *)ev.rec)->tag;
	cr_assert_eq(n, 2);
	cr_expect_eq(order[0], 0xb);
	cr_expect_eq(order[1], 0xa);
	mt_trace_merge_close(m);
	mt_trace_close(t);
	tw_rmdir(dir);
}
