/*
 * test_ring.c - the recording path in ring mode (conf.ring, format
 * version 4) on real files, read back through the trace reader: the ring
 * wraps and keeps the latest records in order, pinned records survive any
 * number of laps, blocks written over read as written, and a writer
 * killed at any step leaves a readable file.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt_rec.h"
#include "mt_trace.h"
#include "rec_dir.h"

TestSuite(ring, .init = rec_dir_setup, .fini = rec_dir_teardown);

/* A ring of 64 KiB: 16 blocks of a page. */
#define RING (64u << 10)

static struct mt_rec_conf ring_conf(int compact)
{
	struct mt_rec_conf c = {
		.dir = rec_dir, .buffer_size = RING, .chunk_size = 4096,
		.file_mode = 0600, .fi_version = 0x10011, .compact = compact,
		.ring = 1,
	};
	return c;
}

static void path_of(char *buf, size_t len, pid_t pid, unsigned seq)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	snprintf(buf, len, "%s/%s.%d.%u.mt", rec_dir, host, (int)pid, seq);
}

/* An OBJ record (pinned: analysis needs it whatever its age). */
static void write_obj(uint64_t id)
{
	struct mt_rec_obj *r = mt_rec_reserve_pinned(sizeof(*r));

	cr_assert_not_null(r);
	memset(r, 0, sizeof(*r));
	mt_rec_hdr_set(&r->h, MT_REC_OBJ, 0, sizeof(*r), MT_FID_CLASS_EP,
		       mt_rec_now());
	r->id = id;
	mt_rec_commit_pinned(sizeof(*r));
}

/* OPs tagged from..to-1, through the hooks' inline path when it has room
 * (mt_rec_try_op: where a wrap is decided), else the general one. */
static void write_ops(uint64_t from, uint64_t to)
{
	for (uint64_t i = from; i < to; i++) {
		struct mt_rec_opargs a = { 1, 2, i, 0, 64, 0, 7, 0 };
		struct mt_file_hdr *h;
		struct mt_rec_op *r = mt_rec_try_op(&h);

		if (r) {
			mt_rec_op_put(r, h, mt_rec_hdr_word(MT_REC_OP, 0, sizeof(*r),
							    MT_OP_TSEND | mt_rec_inline_aux()),
				      &a);
			mt_rec_op_end(r, 0, 0);
		} else {
			mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSEND, &a), 0, 0);
		}
	}
}

struct seen {
	uint64_t ops, first_tag, last_tag, objs, procs, clocks;
	uint64_t first_op_ts;
	int in_order;
};

/* Every record of the file at path, through the reader. */
static struct mt_trace_file *read_file(const char *path, struct seen *s)
{
	struct mt_trace_file *f;
	struct mt_trace_cursor c;
	const struct mt_rec_hdr *r;
	struct mt_err err;
	uint64_t last_ts = 0;

	memset(s, 0, sizeof(*s));
	s->in_order = 1;
	cr_assert_eq(mt_trace_file_open(path, &f, &err), MT_OK, "%s", err.msg);
	mt_trace_cursor_init(&c, f);
	while (mt_trace_cursor_next(&c, &r, &err) == MT_OK) {
		s->in_order &= r->ts >= last_ts;
		last_ts = r->ts;
		if (r->type == MT_REC_OP) {
			const struct mt_rec_op *op = (const void *)r;

			if (!s->ops++) {
				s->first_tag = op->tag;
				s->first_op_ts = r->ts;
			} else if (op->tag != s->last_tag + 1) {
				s->in_order = 0;
			}
			s->last_tag = op->tag;
		}
		s->objs += r->type == MT_REC_OBJ;
		s->procs += r->type == MT_REC_PROC;
		s->clocks += r->type == MT_REC_CLOCK;
	}
	cr_assert_eq(f->scan_status, MT_OK, "%s", f->scan_err.msg);
	return f;
}

/* The ring laps many times: the latest OPs are kept, consecutive and in
 * time order, the overwritten ones counted; the pinned records written
 * before the first lap are all there; the file stays within the ring's
 * size plus its pinned area. Closed with compaction or without. */
static void wraps(int compact)
{
	const uint64_t n = 20000;	/* 1.7 MiB of OPs: 27 laps */
	char path[PATH_MAX + 128];
	struct mt_rec_conf c = ring_conf(compact);
	struct mt_trace_file *f;
	struct seen s;
	struct stat st;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(0, 10);
	write_obj(0xe1);
	write_obj(0xe2);
	write_ops(10, n);
	mt_rec_thread_close();
	path_of(path, sizeof(path), getpid(), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_leq((uint64_t)st.st_size, MT_FILE_HDR_SIZE + RING + (64u << 10),
		      "file of %lld bytes", (long long)st.st_size);
	f = read_file(path, &s);
	cr_assert_eq(f->hdr->version, compact ? MT_TRACE_VERSION_COMPACT :
		     MT_TRACE_VERSION_RING);
	cr_assert(f->ring && f->wrapped);
	cr_assert(mt_trace_file_clean(f));
	cr_assert_eq(s.last_tag, n - 1, "the latest record is kept");
	cr_assert(s.in_order, "kept records consecutive and in time order");
	cr_assert_eq(s.first_tag + s.ops, n);
	cr_assert_eq(f->overwritten, s.first_tag, "overwritten %llu, first kept tag %llu",
		     (unsigned long long)f->overwritten, (unsigned long long)s.first_tag);
	/* At most a block and a record's room short of the whole ring. */
	cr_assert_geq(s.ops * sizeof(struct mt_rec_op), RING - 2 * 4096,
		      "kept %llu OPs", (unsigned long long)s.ops);
	cr_assert_eq(s.objs, 2, "pinned records survive every lap");
	cr_assert_eq(s.procs, 1);
	cr_assert_eq(s.clocks, 2, "CLOCK START and END");
	cr_assert_eq(f->oldest_ts, s.first_op_ts, "the window starts at the oldest kept OP");
	cr_assert_gt(f->oldest_ts, f->first_ts, "pinned records older than the window");
	mt_trace_file_close(f);
}

Test(ring, wraps_keeping_latest_and_pinned)
{
	wraps(0);
}

Test(ring, wrapped_file_compacts_at_close)
{
	wraps(1);
}

/* Before its first lap a ring reads like a file: nothing overwritten. */
Test(ring, unwrapped_ring_loses_nothing)
{
	char path[PATH_MAX + 128];
	struct mt_rec_conf c = ring_conf(0);
	struct mt_trace_file *f;
	struct seen s;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(0, 300);
	mt_rec_thread_close();
	path_of(path, sizeof(path), getpid(), 0);
	f = read_file(path, &s);
	cr_assert(f->ring && !f->wrapped);
	cr_assert_eq(f->overwritten, 0);
	cr_assert_eq(s.ops, 300);
	cr_assert_eq(s.first_tag, 0);
	cr_assert(s.in_order);
	mt_trace_file_close(f);
}

/*
 * A block written over keeps the older lap's bytes where the inline path
 * stores nothing (fi_tsend has no ignore, data or flags; retries 0): a
 * first lap written whole with every field set, then laps inline. Each
 * kept OP reads as written, those fields 0, whatever lay under it.
 */
Test(ring, written_over_blocks_read_as_written)
{
	char path[PATH_MAX + 128];
	struct mt_rec_conf c = ring_conf(0);
	struct mt_trace_file *f;
	struct mt_trace_cursor cur;
	const struct mt_rec_hdr *r;
	struct mt_err err;
	uint64_t i, ops = 0;

	cr_assert_eq(mt_rec_init(&c), 0);
	for (i = 0; i < RING / sizeof(struct mt_rec_op); i++) {
		struct mt_rec_opargs a = { 9, 9, i, 9, 9, 9, 9, 9 };

		mt_rec_tls.retries = 9;
		mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSENDMSG, &a), 0, 0);
	}
	write_ops(0, 3 * RING / sizeof(struct mt_rec_op));
	mt_rec_thread_close();
	path_of(path, sizeof(path), getpid(), 0);
	cr_assert_eq(mt_trace_file_open(path, &f, &err), MT_OK, "%s", err.msg);
	cr_assert(f->wrapped);
	mt_trace_cursor_init(&cur, f);
	while (mt_trace_cursor_next(&cur, &r, &err) == MT_OK) {
		const struct mt_rec_op *op = (const void *)r;

		if (r->type != MT_REC_OP)
			continue;
		ops++;
		cr_assert_eq(r->aux, MT_OP_TSEND);
		cr_assert_eq(op->ep, 1);
		cr_assert_eq(op->addr, 2);
		cr_assert_eq(op->len, 64);
		cr_assert_eq(op->context, 7);
		cr_assert_eq(op->ignore | op->data | op->flags, 0,
			     "tag %llu: ignore %llx data %llx flags %llx",
			     (unsigned long long)op->tag, (unsigned long long)op->ignore,
			     (unsigned long long)op->data, (unsigned long long)op->flags);
		cr_assert_eq(op->retries, 0);
	}
	cr_assert_eq(f->scan_status, MT_OK, "%s", f->scan_err.msg);
	cr_assert_gt(ops, 0);
	mt_trace_file_close(f);
}

/*
 * A writer killed mid-write: in a record (a call in progress), and
 * between raising ring_seq and starting the block it names (the wrap's
 * window, recreated on the live header). Either way the file reads,
 * wrapped, up to the last record published, in order.
 */
static void killed(int mid_wrap)
{
	const uint64_t n = 5000;
	char path[PATH_MAX + 128];
	struct mt_trace_file *f;
	struct seen s;
	int status;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct mt_rec_conf c = ring_conf(1);
		struct mt_rec_opargs a = { 1, 2, n, 0, 64, 0, 7, 0 };

		if (mt_rec_init(&c))
			_exit(1);
		write_obj(0xe1);
		write_ops(0, n);
		if (mid_wrap) {
			/* next_block()'s first two steps, then killed. */
			struct mt_rec_buf *b = mt_rec_tls.buf;
			uint64_t start = b->block_end - b->hdr->ring_block;
			struct mt_ring_block *cur = (void *)mt_rec_at(b, start);

			cur->used = b->hdr->committed - start - sizeof(*cur);
			b->hdr->ring_seq++;
		} else
			mt_rec_op_begin(0, MT_OP_TSEND, &a);	/* never returns */
		raise(SIGKILL);
		_exit(2);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	path_of(path, sizeof(path), pid, 0);
	f = read_file(path, &s);
	cr_assert_eq(f->hdr->version, MT_TRACE_VERSION_RING);
	cr_assert(!mt_trace_file_clean(f));
	cr_assert(f->wrapped);
	cr_assert(s.in_order);
	cr_assert_eq(s.objs, 1);
	cr_assert_eq(s.clocks, 1, "only START: no clean close");
	/* The call in progress ends what a reader of the file alone takes
	 * (mt_trace_open reads on once it knows the writer is gone). */
	cr_assert_eq(s.last_tag, n - 1, "last record: tag %llu",
		     (unsigned long long)s.last_tag);
	cr_assert_eq(f->inflight != 0, !mid_wrap);
	cr_assert_geq(s.ops * sizeof(struct mt_rec_op), RING - 3 * 4096);
	mt_trace_file_close(f);
}

Test(ring, killed_in_a_call)
{
	killed(0);
}

Test(ring, killed_between_blocks)
{
	killed(1);
}
