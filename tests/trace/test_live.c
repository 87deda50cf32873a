/*
 * test_live.c - a trace read while its writer still writes
 * (mt_trace_refresh): records committed since the last read are read on,
 * without opening the trace again; new setup records or new files ask for
 * a new open.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tw.h"

#define NAME "node1.100.0.mt"

static char *dir, *path;
static struct tw w;
static size_t at_ops, at_more;	/* committed bytes after the ops, more ops */

/* The writer's side: publish committed bytes into the file's header. */
static void commit(size_t committed)
{
	int fd = open(path, O_WRONLY);
	uint64_t c = committed;

	cr_assert(fd >= 0);
	cr_assert_eq(pwrite(fd, &c, sizeof(c), offsetof(struct mt_file_hdr,
							 committed)), (ssize_t)sizeof(c));
	close(fd);
}

/* PROC, START and 3 ops committed; 2 more ops and an END written after
 * them, not committed yet, the file still open. */
static void setup(void)
{
	dir = tw_tmpdir();
	tw_init(&w, 100, 0);
	tw_proc(&w, 10, 0, 1000000000, "node1");
	tw_clock(&w, MT_CLOCK_START, 10, 1000, 5000);
	for (int i = 0; i < 3; i++)
		tw_op(&w, MT_OP_TSEND, 20 + (uint64_t)i, 0x100);
	at_ops = w.len - tw_hdr(&w)->data_off;
	for (int i = 0; i < 2; i++)
		tw_op(&w, MT_OP_TSEND, 30 + (uint64_t)i, 0x100);
	at_more = w.len - tw_hdr(&w)->data_off;
	tw_clock(&w, MT_CLOCK_END, 50, 1040, 5040);
	path = tw_save(&w, dir, NAME);
	tw_hdr(&w)->flags &= ~(uint32_t)MT_FILE_CLOSED;
	tw_hdr(&w)->committed = at_ops;
	tw_write(path, w.buf, w.len);
}

static void teardown(void)
{
	tw_free(&w);
	free(path);
	tw_rmdir(dir);
}

TestSuite(trace_live, .init = setup, .fini = teardown);

static size_t merged(const struct mt_trace *t)
{
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	struct mt_err err = { "" };
	size_t n = 0;

	cr_assert_eq(mt_trace_merge_open(t, &m), MT_OK);
	while (mt_trace_merge_next(m, &ev, &err) == MT_OK)
		n++;
	mt_trace_merge_close(m);
	return n;
}

Test(trace_live, reads_on_from_the_last_committed_end)
{
	const char *paths[] = { dir };
	struct mt_trace *t;
	struct mt_err err = { "" };
	int reopen = -1;

	cr_assert_eq(mt_trace_open(paths, 1, &t, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(t->files[0]->nrecs, 5);
	cr_assert_eq(merged(t), 5);
	cr_assert_eq(mt_trace_refresh(t, paths, 1, &reopen, &err), MT_OK);
	cr_assert_eq(reopen, 0, "nothing new");
	cr_assert_eq(t->files[0]->nrecs, 5);

	const struct mt_trace_file *f = t->files[0];
	uint64_t setup_before = f->nsetup;

	commit(at_more);
	cr_assert_eq(mt_trace_refresh(t, paths, 1, &reopen, &err), MT_OK);
	cr_assert_eq(reopen, 0, "only ops came");
	cr_assert_eq(f->nrecs, 7);
	cr_assert_eq(f->last_ts, 31);
	cr_assert_eq(f->nsetup, setup_before);
	cr_assert_eq(t->procs[0].last_ns, 1000 + 21, "span updated");
	cr_assert_eq(merged(t), 7);
	commit(w.len - tw_hdr(&w)->data_off);
	cr_assert_eq(mt_trace_refresh(t, paths, 1, &reopen, &err), MT_OK);
	cr_assert_eq(reopen, 1, "a clock pair came: the clock map changes");
	mt_trace_close(t);
}

Test(trace_live, a_new_file_asks_for_a_new_open)
{
	const char *paths[] = { dir };
	struct mt_trace *t;
	struct mt_err err = { "" };
	struct tw w2;
	int reopen = -1;

	cr_assert_eq(mt_trace_open(paths, 1, &t, &err), MT_OK, "%s", err.msg);
	tw_init(&w2, 100, 1);
	free(tw_save(&w2, dir, "node1.100.1.mt"));
	tw_free(&w2);
	cr_assert_eq(mt_trace_refresh(t, paths, 1, &reopen, &err), MT_OK);
	cr_assert_eq(reopen, 1);
	mt_trace_close(t);
}
