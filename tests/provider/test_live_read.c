/*
 * test_live_read.c - the reader (trace/) on a file the provider's recording
 * path (mt_rec) writes at the same time, in another thread of this process:
 * calls refused with -FI_EAGAIN, each taken back, and completions written
 * where they were, as fast as the writer goes. Whatever the interleaving, a
 * read sees only what the writer keeps: every completion whole, no call
 * taken back, no bad record. Each read is a race; thousands are run.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mt_rec.h"
#include "rec_dir.h"
#include "mt_trace.h"

#define CTX 0x7e57c0de0000ull		/* every completion's context ... */
#define TAG 0x5a5a5a5aull		/* ... and tag */
#define WHOLE_READS 30
#define READS_ON 5000

static int stop, started, ended;

static void quiet(const char *msg)
{
	(void)msg;
}

/* Refused calls taken back, a completion written over one in 64 (tens of
 * MB a second: a whole read of the file races many); the completion's
 * fields all differ from the call's. */
static void *writer(void *arg)
{
	const struct mt_rec_opargs a = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t n = 0;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSEND, &a), -11, 1);
		if (n++ % 64)
			continue;
		struct mt_rec_cqe *c = mt_rec_reserve(sizeof(*c));

		if (!c)
			break;		/* the buffer is full */
		memset(c, 0, sizeof(*c));
		mt_rec_hdr_set(&c->h, MT_REC_CQE, 0, sizeof(*c), MT_CQ_READ, mt_rec_now());
		c->cq = c->context = CTX;
		c->flags = c->len = c->tag = c->data = c->src = c->olen = TAG;
		mt_rec_commit(sizeof(*c));
		__atomic_store_n(&started, 1, __ATOMIC_RELEASE);
	}
	mt_rec_thread_close();
	__atomic_store_n(&ended, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* rec belongs to what the writer keeps: its setup, whole completions. */
static void check(const struct mt_rec_hdr *r, size_t *cqes)
{
	const struct mt_rec_cqe *c = (const void *)r;

	cr_assert_neq(r->type, MT_REC_OP, "a call taken back was read (ret %d)",
		      ((const struct mt_rec_op *)r)->ret);
	if (r->type != MT_REC_CQE)
		return;
	cr_assert(r->size == sizeof(*c) && c->cq == CTX && c->context == CTX &&
		  c->flags == TAG && c->tag == TAG && c->olen == TAG,
		  "a torn completion: size %u cq %#llx tag %#llx olen %#llx", r->size,
		  (unsigned long long)c->cq, (unsigned long long)c->tag,
		  (unsigned long long)c->olen);
	(*cqes)++;
}

/* One whole read of the trace: every record checked. */
static size_t read_whole(void)
{
	const char *paths[] = { rec_dir };
	struct mt_trace_cursor cur;
	const struct mt_rec_hdr *r;
	struct mt_err err = { "" };
	struct mt_trace *t;
	enum mt_status s;
	size_t cqes = 0;

	cr_assert_eq(mt_trace_open(paths, 1, &t, &err), MT_OK, "%s", err.msg);
	for (size_t i = 0; i < t->nfiles; i++) {
		mt_trace_cursor_init(&cur, t->files[i]);
		while ((s = mt_trace_cursor_next(&cur, &r, &err)) == MT_OK)
			check(r, &cqes);
		cr_assert_eq(s, MT_END, "%s", err.msg);
	}
	mt_trace_close(t);
	return cqes;
}

TestSuite(live_read, .init = rec_dir_setup, .fini = rec_dir_teardown);

Test(live_read, reads_race_a_writer_taking_calls_back)
{
	struct mt_rec_conf c = {
		.dir = rec_dir, .buffer_size = 1ull << 30, .chunk_size = 1 << 20,
		.file_mode = 0600, .fi_version = 0x10011, .warn = quiet,
	};
	const char *paths[] = { rec_dir };
	struct mt_trace_tail tail = { 0 };
	struct mt_err err = { "" };
	struct mt_trace *t;
	struct mt_trace_file *f;
	size_t cqes = 0, whole = 0;
	pthread_t th;

	cr_assert_eq(mt_rec_init(&c), 0);
	cr_assert_eq(pthread_create(&th, NULL, writer, NULL), 0);
	while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE))
		usleep(1000);			/* the writer's first completion */
	for (int i = 0; i < WHOLE_READS; i++)
		whole += read_whole();
	/* Reading on, as `msgtrace watch` does, from one open. */
	cr_assert_eq(mt_trace_open(paths, 1, &t, &err), MT_OK, "%s", err.msg);
	f = t->files[0];
	cr_assert(f->live, "the writer runs");
	tail.from = f->valid_end;
	/* However the threads are scheduled: enough completions read on. */
	for (int i = 0; (i < READS_ON || cqes < 1000) &&
			!__atomic_load_n(&ended, __ATOMIC_ACQUIRE); i++) {
		cr_assert_eq(mt_trace_file_resume(f, tail.from + tail.len, &tail, &err),
			     MT_OK, "%s", err.msg);
		cr_assert_eq(f->scan_status, MT_OK, "%s", f->scan_err.msg);
		for (size_t off = 0; off < tail.len;) {
			const struct mt_rec_hdr *r = (const void *)(tail.buf + off);

			check(r, &cqes);
			off += r->size;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	cr_expect_gt(cqes, 0, "reading on took no completion");
	cr_log_info("%zu completions read whole, %zu read on", whole, cqes);
	free(tail.buf);
	mt_trace_close(t);
	mt_rec_fini();
}
