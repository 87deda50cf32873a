/*
 * test_live.c - files whose writer still runs: a call in progress (an OP
 * published before its call, ret not yet stored) is not read until it
 * returned, whether by the open or by reading on; a killed writer's is.
 * The writer of a "live" file here is this test process itself.
 */
#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tw.h"

static char host[64];
static char *dir, *path;
static struct tw w;
static uint64_t pending_off;		/* file offset of the call in progress */

/*
 * A file of this process: PROC (started now when live, long ago when not:
 * a reused pid), START, a receive that returned, one in progress and, when
 * nested, a send after it (made inside that call, by a signal handler
 * say); not closed.
 */
static void build(int live, int nested)
{
	struct timespec now;
	struct mt_rec_proc *p;
	char name[128];

	clock_gettime(CLOCK_REALTIME, &now);
	cr_assert_eq(gethostname(host, sizeof(host) - 1), 0);
	tw_init(&w, (uint32_t)getpid(), 0);
	tw_proc(&w, 10, 0, 1000000000, host);
	p = (void *)(w.buf + tw_hdr(&w)->data_off);
	p->start_realtime_ns = live ? (uint64_t)now.tv_sec * 1000000000u : 1;
	tw_clock(&w, MT_CLOCK_START, 10, 1000, 5000);
	tw_op(&w, MT_OP_TRECV, 20, 1);
	pending_off = w.len;
	tw_op(&w, MT_OP_TRECV, 21, 2)->ret = MT_OP_RET_PENDING;
	if (nested)
		tw_op(&w, MT_OP_TSEND, 22, 3);
	dir = tw_tmpdir();
	snprintf(name, sizeof(name), "%s.%u.0%s", host, (unsigned)getpid(),
		 MT_TRACE_SUFFIX);
	path = tw_save(&w, dir, name);
	tw_hdr(&w)->flags = 0;		/* not closed */
	tw_write(path, w.buf, w.len);
}

static void done(struct mt_trace *t)
{
	mt_trace_close(t);
	free(path);
	tw_rmdir(dir);
	tw_free(&w);
}

static struct mt_trace *open_it(void)
{
	struct mt_trace *t;
	struct mt_err err = { "" };

	cr_assert_eq(mt_trace_open((const char *const *)&dir, 1, &t, &err), MT_OK,
		     "%s", err.msg);
	cr_assert_eq(t->nfiles, 1);
	return t;
}

/* build(live, nested), then the trace opened. */
static struct mt_trace *built(int live, int nested)
{
	build(live, nested);
	return open_it();
}

Test(trace_live, call_in_progress_ends_a_live_files_records)
{
	struct mt_trace *t;
	struct mt_trace_file *f;

	t = built(1, 1);
	f = t->files[0];
	cr_expect(f->live, "this process writes the file: it is live");
	cr_expect_eq(f->inflight, pending_off);
	cr_expect_eq(f->valid_end, pending_off);
	cr_expect_eq(f->nrecs, 3, "PROC, START and the receive that returned");
	cr_expect_eq(f->type_count[MT_REC_OP], 1);
	cr_expect_eq(f->scan_status, MT_OK);
	done(t);
}

Test(trace_live, killed_writer_is_read_past_its_call_in_progress)
{
	struct mt_trace *t;
	struct mt_trace_file *f;

	t = built(0, 1);
	f = t->files[0];
	cr_expect_not(f->live, "a pid started after the record: not the writer");
	cr_expect_eq(f->valid_end, w.len, "every record, as before");
	cr_expect_eq(f->nrecs, 5);
	cr_expect_eq(f->type_count[MT_REC_OP], 3);
	cr_expect_eq(f->nsetup, 2);
	done(t);
}

Test(trace_live, closed_file_is_read_past_a_call_that_never_returned)
{
	struct mt_trace *t;

	build(1, 1);
	tw_hdr(&w)->flags = MT_FILE_CLOSED;
	tw_write(path, w.buf, w.len);
	t = open_it();
	cr_expect_eq(t->files[0]->valid_end, w.len);
	cr_expect_eq(t->files[0]->nrecs, 5);
	done(t);
}

/* Reading on from where the open stopped; tail->len is what was taken. */
static void read_on(struct mt_trace_file *f, struct mt_trace_tail *tail)
{
	struct mt_err err = { "" };

	cr_assert_eq(mt_trace_file_resume(f, tail->from + tail->len, tail, &err),
		     MT_OK, "%s", err.msg);
	cr_expect_eq(f->scan_status, MT_OK, "%s", f->scan_err.msg);
}

Test(trace_live, call_that_returned_is_read_on)
{
	struct mt_trace_tail tail = { 0 };
	struct mt_trace *t;
	struct mt_trace_file *f;
	struct mt_rec_op *op;

	t = built(1, 1);
	f = t->files[0];
	tail.from = f->valid_end;
	read_on(f, &tail);
	cr_expect_eq(tail.len, 0, "still in progress: nothing to take");
	op = (void *)(w.buf + pending_off);
	op->ret = 0;
	tw_write(path, w.buf, w.len);
	read_on(f, &tail);
	cr_expect_eq(tail.from, pending_off);
	cr_expect_eq(tail.len, 2 * sizeof(*op), "the call returned, and what followed");
	cr_expect_eq(f->nrecs, 5);
	free(tail.buf);
	done(t);
}

Test(trace_live, call_taken_back_is_never_read)
{
	struct mt_trace_tail tail = { 0 };
	struct mt_trace *t;
	struct mt_trace_file *f;
	struct mt_rec_cqe *c;
	size_t was;

	t = built(1, 0);
	f = t->files[0];
	tail.from = f->valid_end;
	/* -FI_EAGAIN: the writer takes the call back, the thread's next
	 * record (a completion) goes where it was. */
	was = w.len;
	w.len = pending_off;
	tw_hdr(&w)->eagain++;
	c = tw_add(&w, MT_REC_CQE, MT_CQ_READ, sizeof(*c), 23);
	c->tag = 1;
	tw_hdr(&w)->committed = w.len - tw_hdr(&w)->data_off;
	tw_write(path, w.buf, was);	/* the call's last bytes stay */
	read_on(f, &tail);
	cr_expect_eq(tail.len, sizeof(*c), "the completion, nothing of the call");
	cr_expect_eq(((struct mt_rec_hdr *)tail.buf)->type, MT_REC_CQE);
	cr_expect_eq(f->type_count[MT_REC_OP], 1);
	free(tail.buf);
	done(t);
}
