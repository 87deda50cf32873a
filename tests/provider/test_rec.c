/*
 * test_rec.c - the provider's recording path (mt_rec) on real files in a
 * temporary directory, checked by reading the structs of trace/mt_trace.h.
 * Criterion runs every test in its own process, so each starts with fresh
 * recording state and may change its own rlimits.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt_codec.h"
#include "mt_rec.h"
#include "rec_dir.h"

static char warnings[8][512];
static int nwarn;

static void collect(const char *msg)
{
	if (nwarn < 8)
		snprintf(warnings[nwarn], sizeof(warnings[0]), "%s", msg);
	nwarn++;
}

TestSuite(rec, .init = rec_dir_setup, .fini = rec_dir_teardown);

static struct mt_rec_conf conf(uint64_t buffer_size, uint64_t chunk)
{
	struct mt_rec_conf c = {
		.dir = rec_dir, .buffer_size = buffer_size, .chunk_size = chunk,
		.file_mode = 0600, .fi_version = 0x10011, .warn = collect,
		.compact = 1,	/* the provider's default */
	};
	return c;
}

static void path_of(char *buf, size_t len, pid_t pid, unsigned seq)
{
	char host[64] = "";

	gethostname(host, sizeof(host) - 1);
	snprintf(buf, len, "%s/%s.%d.%u.mt", rec_dir, host, (int)pid, seq);
}

/* Files compacted at close (conf.compact, format version 2) seen so far. */
static int ncompact;

/*
 * A compacted file (version 2) as the version 1 file it was: the header
 * with version 1 and the decoded records at MT_FILE_HDR_SIZE, so that
 * every check below reads both alike.
 */
static char *expand(char *data, size_t *size)
{
	struct mt_file_hdr *h = (void *)data;
	struct mt_codec_state cs;
	uint64_t pos = h->data_off, end = h->data_off + h->committed, out = 0;
	char *v1;

	cr_assert_leq(end, *size, "compacted file shorter than its header says");
	v1 = malloc(MT_FILE_HDR_SIZE + h->raw_bytes + 1);
	mt_codec_reset(&cs);
	while (pos < end) {
		const char *why = "";
		const struct mt_rec_hdr *r = mt_codec_decode(&cs, (const uint8_t *)data,
							     &pos, end, &why);

		cr_assert_not_null(r, "compacted stream at %llu: %s",
				   (unsigned long long)pos, why);
		cr_assert_leq(out + r->size, h->raw_bytes, "stream longer than raw_bytes");
		memcpy(v1 + MT_FILE_HDR_SIZE + out, r, r->size);
		out += r->size;
	}
	cr_assert_eq(out, h->raw_bytes);
	memset(v1, 0, MT_FILE_HDR_SIZE);
	memcpy(v1, h, sizeof(*h));
	h = (void *)v1;
	h->version = MT_TRACE_VERSION;
	h->hdr_size = h->data_off = MT_FILE_HDR_SIZE;
	h->committed = out;
	free(data);
	*size = MT_FILE_HDR_SIZE + out;
	ncompact++;
	return v1;
}

/* Reads a whole trace file (compacted ones expanded); *size gets its length. */
static char *slurp(const char *path, size_t *size)
{
	struct stat st;
	char *data;
	int fd = open(path, O_RDONLY);

	cr_assert_geq(fd, 0, "cannot open %s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fd, &st), 0);
	data = malloc((size_t)st.st_size + 1);
	cr_assert_eq(read(fd, data, (size_t)st.st_size), st.st_size);
	close(fd);
	*size = (size_t)st.st_size;
	if (*size >= sizeof(struct mt_file_hdr) &&
	    ((struct mt_file_hdr *)data)->version == MT_TRACE_VERSION_COMPACT)
		data = expand(data, size);
	return data;
}

/* Checks a file's header and walks its committed records; counts per type
 * go to counts[type]. Returns NULL, or what is wrong (static text). */
static const char *scan(const char *data, size_t size, int counts[16], int *n)
{
	const struct mt_file_hdr *h = (const void *)data;
	uint64_t off = 0;

	*n = 0;
	memset(counts, 0, 16 * sizeof(int));
	if (size < MT_FILE_HDR_SIZE || memcmp(h->magic, MT_TRACE_MAGIC, 8) ||
	    h->version != MT_TRACE_VERSION || h->data_off != MT_FILE_HDR_SIZE)
		return "bad header";
	if (h->data_off + h->committed > size)
		return "committed past the end of the file";
	while (off < h->committed) {
		const struct mt_rec_hdr *r = (const void *)(data + h->data_off + off);

		if (r->size < sizeof(*r) || r->size % 8 || off + r->size > h->committed ||
		    r->type >= 16)
			return "torn record";
		counts[r->type]++;
		off += r->size;
		(*n)++;
	}
	return NULL;
}

/* scan(), asserting the file is whole. Returns the number of records. */
static int walk(const char *data, size_t size, int counts[16])
{
	int n;
	const char *err = scan(data, size, counts, &n);

	cr_assert_null(err, "%s (after %d records)", err, n);
	return n;
}

static void write_ops(int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct mt_rec_opargs a = { 1, 2, (uint64_t)i, 0, 64, 0, 7, 0 };

		mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSEND, &a), 0, 0);
	}
}

Test(rec, records_round_trip)
{
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	const struct mt_rec_op *op;
	int counts[16];
	size_t size;
	char *data;
	struct stat st;

	struct mt_rec_conf c = conf(1 << 20, 1 << 16);

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(100);
	mt_rec_thread_close();

	cr_assert_eq(stat(rec_dir, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0700, "directory mode %o", st.st_mode & 07777);
	path_of(path, sizeof(path), getpid(), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0600);
	data = slurp(path, &size);
	h = (const void *)data;
	cr_assert_eq(walk(data, size, counts), 100 + 3);
	cr_assert_eq(counts[MT_REC_PROC], 1);
	cr_assert_eq(counts[MT_REC_CLOCK], 2);
	cr_assert_eq(counts[MT_REC_OP], 100);
	cr_assert_eq(((const struct mt_rec_hdr *)(data + h->data_off))->type, MT_REC_PROC);
	cr_assert_eq(h->thread_seq, 0);
	cr_assert_eq(h->pid, (uint32_t)getpid());
	cr_assert(h->flags & MT_FILE_CLOSED);
	cr_assert_eq(size, h->data_off + h->committed, "closed file is truncated to its records");
	op = (const void *)(data + h->data_off + sizeof(struct mt_rec_proc) +
			    sizeof(struct mt_rec_clock) + 5 * sizeof(*op));
	cr_assert_eq(op->h.type, MT_REC_OP);
	cr_assert_eq(op->h.aux, MT_OP_TSEND);
	cr_assert_eq(op->tag, 5);
	cr_assert_eq(op->len, 64);
	cr_assert_eq(op->context, 7);
	cr_assert_eq(((const struct mt_rec_proc *)(data + h->data_off))->fi_version, 0x10011);
	cr_assert_eq(nwarn, 0, "unexpected warning: %s", warnings[0]);
	cr_assert_eq(ncompact, 1, "the closed file was compacted");
	free(data);
}

/* Whether rec_dir holds a file whose name ends with suffix. */
static int dir_has(const char *suffix)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "ls '%s' | grep -q '%s$'", rec_dir, suffix);
	return system(cmd) == 0;
}

/* FI_OFI_HOOK_MSGTRACE_COMPACT=0 keeps version 1; on, the file is replaced
 * by its compact form (renamed over: no .tmp left), much smaller, same
 * mode, decoding to the same records. */
Test(rec, compaction_at_close_and_off)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	struct stat st;
	int counts[16];
	size_t size;
	char *data;

	c.compact = 0;
	c.file_mode = 0640;
	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1000);
	mt_rec_thread_close();
	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	cr_assert_eq(ncompact, 0, "compaction off: version 1");
	cr_assert_eq(walk(data, size, counts), 1000 + 3);
	free(data);

	c.compact = 1;
	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1000);
	mt_rec_thread_close();
	path_of(path, sizeof(path), getpid(), 1);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640);
	cr_assert_lt((size_t)st.st_size, size / 4, "compacted to %lld of %zu bytes",
		     (long long)st.st_size, size);
	data = slurp(path, &size);
	cr_assert_eq(ncompact, 1);
	cr_assert_eq(walk(data, size, counts), 1000 + 2, "no PROC in seq 1");
	cr_assert_eq(counts[MT_REC_OP], 1000);
	cr_assert(((struct mt_file_hdr *)data)->flags & MT_FILE_CLOSED);
	cr_assert(!dir_has(".tmp"), "no temporary file left");
	cr_assert_eq(nwarn, 0, "unexpected warning: %s", warnings[0]);
	free(data);
}

static void *stay_inside(void *arg)
{
	int *entered = arg;

	write_ops(3);
	mt_rec_enter();		/* as if a record never ended */
	__atomic_store_n(entered, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/* At exit, a file whose owner stays inside a record is abandoned: left
 * version 1 and open (never compacted under its writer); the others are
 * compacted. */
Test(rec, abandoned_file_is_not_compacted)
{
	pid_t pid = fork();
	char path[PATH_MAX + 128];
	int status, counts[16];
	size_t size;
	char *data;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct mt_rec_conf c = conf(1 << 20, 4096);
		static int entered;
		pthread_t t;

		if (mt_rec_init(&c))
			_exit(3);
		write_ops(5);
		if (pthread_create(&t, NULL, stay_inside, &entered))
			_exit(4);
		while (!__atomic_load_n(&entered, __ATOMIC_ACQUIRE))
			sched_yield();
		mt_rec_fini();
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status 0x%x", status);
	path_of(path, sizeof(path), pid, 0);
	data = slurp(path, &size);
	cr_assert_eq(ncompact, 1, "the exiting thread's file is compacted");
	cr_assert_eq(walk(data, size, counts), 5 + 3);
	free(data);
	path_of(path, sizeof(path), pid, 1);
	data = slurp(path, &size);
	cr_assert_eq(ncompact, 1, "the abandoned file stays version 1");
	cr_assert(!(((struct mt_file_hdr *)data)->flags & MT_FILE_CLOSED));
	cr_assert_eq(walk(data, size, counts), 3 + 1, "its records up to the end");
	free(data);
}

Test(rec, full_buffer_counts_losses)
{
	struct mt_rec_conf c = conf(MT_FILE_HDR_SIZE + 4096, 4096);
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	int counts[16], written;
	size_t size;
	char *data;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(200);
	mt_rec_fini();

	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	h = (const void *)data;
	walk(data, size, counts);
	written = counts[MT_REC_OP];
	cr_assert_gt(written, 0);
	cr_assert_lt(written, 200);
	cr_assert_eq(h->lost[MT_LOSS_FULL], (uint64_t)(200 - written));
	cr_assert_eq(h->lost[MT_LOSS_NOSPACE], 0);
	cr_assert_eq(counts[MT_REC_CLOCK], 2, "END still fits in a full file");
	cr_assert_leq(h->committed, h->capacity);
	/* One warning for the limit, one loss report at the end. */
	cr_assert_eq(nwarn, 2);
	cr_assert(strstr(warnings[0], "size limit"), "%s", warnings[0]);
	cr_assert(strstr(warnings[1], "records lost"), "%s", warnings[1]);
	free(data);
}

Test(rec, killed_writer_leaves_valid_prefix)
{
	char path[PATH_MAX + 128];
	int counts[16], status;
	size_t size;
	char *data;
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct mt_rec_conf c = conf(1 << 20, 4096);

		if (mt_rec_init(&c))
			_exit(1);
		write_ops(500);
		raise(SIGKILL);
		_exit(2);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	path_of(path, sizeof(path), pid, 0);
	data = slurp(path, &size);
	walk(data, size, counts);
	cr_assert_eq(counts[MT_REC_OP], 500);
	cr_assert_eq(counts[MT_REC_CLOCK], 1, "only START: no clean close");
	cr_assert_eq(((const struct mt_file_hdr *)data)->flags & MT_FILE_CLOSED, 0);
	free(data);
}

Test(rec, existing_file_is_never_reused)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	struct stat st;
	int fd;

	cr_assert_eq(mkdir(rec_dir, 0700), 0);
	path_of(path, sizeof(path), getpid(), 0);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, "mine", 4), 4);
	close(fd);

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(10);
	mt_rec_fini();

	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_size, 4, "the existing file was not touched");
	cr_assert_geq(nwarn, 1);
	cr_assert(strstr(warnings[0], "cannot create") && strstr(warnings[0], "File exists"),
		  "%s", warnings[0]);
	cr_assert(strstr(warnings[nwarn - 1], "10 records lost"), "%s", warnings[nwarn - 1]);
}

Test(rec, symlinked_directory_is_refused)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char target[PATH_MAX + 16];

	snprintf(target, sizeof(target), "%s/real", rec_tmp);
	cr_assert_eq(mkdir(target, 0700), 0);
	cr_assert_eq(symlink(target, rec_dir), 0);

	cr_assert_eq(mt_rec_init(&c), -1);
	write_ops(5);
	mt_rec_fini();
	cr_assert_eq(nwarn, 2);
	cr_assert(strstr(warnings[0], "symlink"), "%s", warnings[0]);
	cr_assert(strstr(warnings[1], "5 records lost"), "%s", warnings[1]);
	cr_assert_eq(rmdir(target), 0, "nothing was written through the symlink");
}

Test(rec, file_size_limit_without_sigxfsz)
{
	struct mt_rec_conf c = conf(1 << 20, 1 << 16);
	struct rlimit rl = { 3 * 16384, 3 * 16384 };
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	int counts[16];
	size_t size;
	char *data;

	cr_assert_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(2000);	/* 176 KB of records */
	mt_rec_fini();

	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	h = (const void *)data;
	cr_assert_leq(size, rl.rlim_cur);
	walk(data, size, counts);
	cr_assert_gt(counts[MT_REC_OP], 0);
	cr_assert_eq(h->lost[MT_LOSS_NOSPACE], (uint64_t)(2000 - counts[MT_REC_OP]));
	cr_assert_eq(counts[MT_REC_CLOCK], 2);
	free(data);
}

Test(rec, mode_is_exact_despite_umask)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	struct stat st;

	c.file_mode = 0640;
	umask(0077);
	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	mt_rec_fini();
	path_of(path, sizeof(path), getpid(), 0);
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0640);
}

Test(rec, errno_survives_slow_path)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);

	cr_assert_eq(mt_rec_init(&c), 0);
	errno = EBADMSG;
	write_ops(1);		/* creates the file */
	cr_assert_eq(errno, EBADMSG);
}

static void *thread_body(void *arg)
{
	write_ops(*(int *)arg);
	return NULL;
}

/* A record is published before its call with MT_OP_RET_PENDING; nested
 * records follow it, and its ret lands when the outer call returns. */
Test(rec, nested_record_inside_a_call)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	struct mt_rec_opargs outer = { .tag = 1 }, inner = { .tag = 2 };
	char path[PATH_MAX + 128];
	const struct mt_rec_op *op;
	const struct mt_file_hdr *h;
	struct mt_rec_op *r, *q;
	size_t size;
	char *data;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	r = mt_rec_op_begin(0, MT_OP_TSEND, &outer);
	q = mt_rec_op_begin(1, MT_OP_TSEND, &inner);
	mt_rec_op_end(q, 0, 0);
	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	h = (const void *)data;
	op = (const void *)(data + h->data_off + sizeof(struct mt_rec_proc) +
			    sizeof(struct mt_rec_clock));
	cr_assert_eq(h->committed, (uint64_t)((char *)(op + 3) - (data + h->data_off)));
	cr_assert_eq(op[1].tag, 1);
	cr_assert_eq(op[1].ret, MT_OP_RET_PENDING);
	cr_assert_eq(op[2].tag, 2);
	free(data);
	mt_rec_op_end(r, -11, 1);	/* EAGAIN, but no longer last: kept */
	mt_rec_fini();
	data = slurp(path, &size);
	op = (const void *)(data + MT_FILE_HDR_SIZE + sizeof(struct mt_rec_proc) +
			    sizeof(struct mt_rec_clock));
	cr_assert_eq(op[1].ret, -11);
	free(data);
}

Test(rec, thread_exit_closes_its_file)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	int counts[16], n = 7;
	pthread_t t;
	size_t size;
	char *data;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	cr_assert_eq(pthread_create(&t, NULL, thread_body, &n), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);

	path_of(path, sizeof(path), getpid(), 1);
	data = slurp(path, &size);
	h = (const void *)data;
	walk(data, size, counts);
	cr_assert_eq(h->thread_seq, 1);
	cr_assert(h->flags & MT_FILE_CLOSED);
	cr_assert_eq(counts[MT_REC_PROC], 0, "PROC only in thread_seq 0");
	cr_assert_eq(counts[MT_REC_OP], 7);
	cr_assert_eq(counts[MT_REC_CLOCK], 2);
	free(data);
}

/* A call that returned -FI_EAGAIN: its reserved record is taken back. */
static void again(void)
{
	struct mt_rec_opargs a = { 0 };

	mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TINJECT, &a), -11, 1);
}

Test(rec, counters_in_header)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	const struct mt_rec_op *op;
	const struct mt_file_hdr *h;
	size_t size;
	char *data;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	again();
	again();
	mt_rec_empty_poll();
	write_ops(1);
	mt_rec_fini();

	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	h = (const void *)data;
	cr_assert_eq(h->eagain, 2);
	cr_assert_eq(h->empty_polls, 1);
	op = (const void *)(data + h->data_off + sizeof(struct mt_rec_proc) +
			    sizeof(struct mt_rec_clock));
	cr_assert_eq(op->retries, 0);
	cr_assert_eq(op[1].h.aux, MT_OP_TSEND, "EAGAIN calls leave no record");
	cr_assert_eq(op[1].retries, 2, "retries go to the next op of the thread");
	cr_assert_eq(op[1].ret, 0);
	free(data);
}

/* The hooks' inline path (hook_ep.c): NULL means "take the general one". */
static struct mt_rec_op *op_try(uint64_t hdr, const struct mt_rec_opargs *a)
{
	struct mt_file_hdr *h;
	struct mt_rec_op *r = mt_rec_try_op(&h);

	if (r)
		mt_rec_op_put(r, h, hdr, a);
	return r;
}

/* The posting hooks' reservation (mt_rec_try_op, asm on x86-64) leaves
 * the thread's flag as mt_rec_try does on each of its ways out: set by a
 * record, still set when the thread was inside one already (it is not
 * the reservation's to clear), clear again when there was no room. */
Test(rec, inline_reservation_leaves_the_flag_as_found)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	struct mt_rec_opargs a = { .tag = 7 };
	const uint64_t hdr = mt_rec_hdr_word(MT_REC_OP, 0, sizeof(struct mt_rec_op), MT_OP_TSEND);
	struct mt_file_hdr *wh;
	struct mt_rec_op *r;
	uint64_t before, limit;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	wh = mt_rec_tls.buf->hdr;
	before = wh->committed;
	r = mt_rec_try_op(&wh);
	cr_assert_not_null(r);
	cr_assert_eq((char *)r, (char *)wh + MT_FILE_HDR_SIZE + before);
	cr_assert_eq(mt_rec_tls.busy, 1, "a reservation enters the record");
	cr_assert_null(mt_rec_try_op(&wh), "inside a record");
	cr_assert_eq(mt_rec_tls.busy, 1, "the outer record keeps the flag");
	mt_rec_hdr_set(&r->h, MT_REC_OP, 0, sizeof(*r), MT_OP_TSEND, 1);
	mt_rec_op_fill(r, 0, &a, 0);
	mt_rec_publish(wh, sizeof(*r));
	cr_assert_eq(mt_rec_tls.busy, 0);
	cr_assert_eq(wh->committed, before + sizeof(*r));
	limit = mt_rec_tls.buf->limit;
	mt_rec_tls.buf->limit = wh->committed + sizeof(*r) - 8;
	cr_assert_null(op_try(hdr, &a), "no room for the record");
	cr_assert_eq(mt_rec_tls.busy, 0, "no room: the flag is cleared");
	mt_rec_tls.buf->limit = wh->committed + sizeof(*r);
	r = op_try(hdr, &a);
	cr_assert_not_null(r, "room for exactly one record");
	cr_assert_eq(mt_rec_tls.busy, 0);
	cr_assert_eq(r->tag, 7);
	cr_assert_eq(r->h.size, sizeof(*r));
	cr_assert_neq(r->h.ts, 0, "stamped");
	mt_rec_tls.buf->limit = limit;
	mt_rec_fini();
}

/* The inline path (what the hooks use) and -FI_EAGAIN: the record is
 * published before the call with ret PENDING, taken back on EAGAIN, and
 * the retry count reaches the next OP through the general path, after
 * which the inline path takes records again. */
Test(rec, inline_path_and_eagain)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	struct mt_rec_opargs a = { .tag = 7 };
	const struct mt_rec_opargs full = { 1, 2, 7, 4, 5, 6, 7, 8 };
	const uint64_t hdr = mt_rec_hdr_word(MT_REC_OP, 0, sizeof(struct mt_rec_op), MT_OP_TRECV);
	const struct mt_file_hdr *wh;
	const struct mt_rec_op *op;
	struct mt_rec_op *r;
	uint64_t before;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	wh = mt_rec_tls.buf->hdr;
	before = wh->committed;
	r = op_try(hdr, &full);
	cr_assert_not_null(r);
	cr_assert_eq(wh->committed, before + sizeof(*r), "published before the call");
	cr_assert_eq(r->ret, MT_OP_RET_PENDING);
	mt_rec_op_end(r, -11, 1);
	cr_assert_eq(wh->committed, before, "EAGAIN takes the record back");
	cr_assert_null(op_try(hdr, &a),
		       "a retry count to record closes the inline path");
	mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TRECV, &a), 0, 0);
	op = (const void *)((const char *)wh + MT_FILE_HDR_SIZE + before);
	cr_assert_eq(op->retries, 1);
	cr_assert_eq(op->ret, 0);
	cr_assert(op->ep == 0 && op->addr == 0 && op->ignore == 0 && op->len == 0 &&
		  op->data == 0 && op->context == 0 && op->flags == 0,
		  "the general path stores every field over what was taken back");
	r = op_try(hdr, &a);
	cr_assert_not_null(r, "the general path reopened the inline path");
	mt_rec_op_end(r, -5, 0);
	cr_assert_eq(r->ret, -5);
	cr_assert_eq(r->retries, 0);
	cr_assert_eq(wh->eagain, 1);
	mt_rec_fini();
}

/* Hostile directories (reliab): a symlink planted at this process's first
 * trace file name, pointing where an attacker wants a file created or
 * written, is never followed; O_CREAT alone would follow it. */
static void plant(const char *target)
{
	char path[PATH_MAX + 128];

	cr_assert_eq(mkdir(rec_dir, 0700), 0);
	path_of(path, sizeof(path), getpid(), 0);
	cr_assert_eq(symlink(target, path), 0);
}

Test(rec, planted_dangling_symlink_is_not_followed)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char victim[PATH_MAX + 16];
	struct stat st;

	snprintf(victim, sizeof(victim), "%s/victim", rec_tmp);
	plant(victim);
	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	mt_rec_fini();
	cr_assert_eq(lstat(victim, &st), -1, "the symlink was followed: victim created");
	cr_assert(strstr(warnings[0], "cannot create") && strstr(warnings[0], "File exists"),
		  "%s", warnings[0]);
}

Test(rec, planted_symlink_to_a_file_is_not_written)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char victim[PATH_MAX + 16];
	struct stat before, after;
	FILE *f;

	snprintf(victim, sizeof(victim), "%s/victim", rec_tmp);
	f = fopen(victim, "w");
	cr_assert_not_null(f);
	fputs("precious", f);
	fclose(f);
	cr_assert_eq(stat(victim, &before), 0);
	plant(victim);
	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	mt_rec_fini();
	cr_assert_eq(stat(victim, &after), 0);
	cr_assert_eq(after.st_size, 8, "the victim was written through the symlink");
	cr_assert_eq(after.st_mode, before.st_mode, "the victim's mode changed");
}

/* Root writes anywhere but on a read-only mount, so a child drops to
 * nobody, for whom the 0555 directory is unwritable: init must refuse it
 * with one warning (reliab_dir checks the same through libfabric). */
Test(rec, unwritable_directory_refused_at_init)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	int status;
	pid_t pid;

	cr_assert_eq(mkdir(rec_dir, 0555), 0);
	cr_assert_eq(chmod(rec_dir, 0555), 0);
	cr_assert_eq(chmod(rec_tmp, 0711), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && setuid(65534))
			_exit(3);
		_exit(mt_rec_init(&c) == -1 && nwarn == 1 &&
		      strstr(warnings[0], "cannot write to trace directory") ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "init must refuse an unwritable directory with one warning (status %d)",
		  status);
}

/* Without a TSC clock the inline fast path must never take a record (its
 * rdtsc would mix ticks into nanosecond timestamps); the general path still
 * records every one, across chunk growth. */
Test(rec, without_tsc_records_take_the_general_path)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	struct mt_rec_opargs a = { 0 };
	const uint64_t hdr = mt_rec_hdr_word(MT_REC_OP, 0, sizeof(struct mt_rec_op), MT_OP_TSEND);
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	struct mt_file_hdr *wh;
	int counts[16];
	size_t size;
	char *data;

	cr_assert_eq(mt_rec_init(&c), 0);
	mt_rec_clock_tsc = 0;
	write_ops(1);
	cr_assert_null(mt_rec_try(sizeof(struct mt_rec_op), &wh));
	cr_assert_null(op_try(hdr, &a));
	write_ops(199);
	cr_assert_null(mt_rec_try(sizeof(struct mt_rec_op), &wh),
		       "limit stays closed after growth");
	mt_rec_thread_close();

	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	h = (const void *)data;
	walk(data, size, counts);
	cr_assert_eq(counts[MT_REC_OP], 200);
	cr_assert_eq(counts[MT_REC_CLOCK], 2);
	cr_assert_eq(h->lost[MT_LOSS_FULL] + h->lost[MT_LOSS_NOSPACE], 0);
	cr_assert_gt(size, 4096, "the file grew past its first chunk");
	free(data);
}

/* ---- fork, exit with live threads, signals, counters ---- */

/* Thread seq 1 records, forks, and the child's only thread records
 * child_ops more and ends with pthread_exit: the child exits 0 (as it
 * does untraced) with files of its own. */
static void *fork_body(void *arg)
{
	int child_ops = *(int *)arg;
	pid_t pid;

	write_ops(3);
	pid = fork();
	if (pid == 0) {
		write_ops(child_ops);
		pthread_exit(NULL);
	}
	write_ops(2);
	return (void *)(intptr_t)pid;
}

static pid_t fork_in_thread(int child_ops)
{
	pthread_t t;
	void *ret;
	pid_t pid;
	int status;

	cr_assert_eq(pthread_create(&t, NULL, fork_body, &child_ops), 0);
	cr_assert_eq(pthread_join(t, &ret), 0);
	pid = (pid_t)(intptr_t)ret;
	cr_assert_gt(pid, 0);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the forked child must exit 0 as untraced (status 0x%x%s)", status,
		  WIFSIGNALED(status) ? ", killed by a signal" : "");
	return pid;
}

Test(rec, fork_child_records_into_files_of_its_own)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	const struct mt_rec_proc *p;
	int counts[16];
	size_t size;
	char *data;
	pid_t child;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	child = fork_in_thread(4);

	path_of(path, sizeof(path), child, 0);
	data = slurp(path, &size);
	h = (const void *)data;
	walk(data, size, counts);
	cr_assert_eq(h->pid, (uint32_t)child);
	cr_assert(h->flags & MT_FILE_CLOSED, "closed by the child's thread exit");
	cr_assert_eq(counts[MT_REC_OP], 4);
	cr_assert_eq(counts[MT_REC_PROC], 1, "the child's first file holds its PROC");
	p = (const void *)(data + h->data_off);
	cr_assert_eq(p->h.type, MT_REC_PROC);
	cr_assert_eq(p->pid, (uint32_t)child);
	cr_assert_eq(p->h.aux, (uint32_t)getpid(), "PROC marks a fork of its parent");
	cr_assert_eq(p->fi_version, 0x10011);
	free(data);

	mt_rec_fini();
	path_of(path, sizeof(path), getpid(), 1);
	data = slurp(path, &size);
	walk(data, size, counts);
	cr_assert_eq(counts[MT_REC_OP], 5, "the parent's thread file holds only its own");
	free(data);
	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	cr_assert_eq(((const struct mt_rec_proc *)(data + MT_FILE_HDR_SIZE))->h.aux, 0,
		     "a process that is no fork has aux 0");
	free(data);
}

Test(rec, fork_child_without_records_leaves_no_file)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	struct stat st;
	pid_t child;

	cr_assert_eq(mt_rec_init(&c), 0);
	child = fork_in_thread(0);
	path_of(path, sizeof(path), child, 0);
	cr_assert_neq(stat(path, &st), 0, "the child recorded nothing");
}

/*
 * exit() while other threads record: 4 writers (small chunks, so that
 * they are often growing their files in the slow path), mt_rec_fini()
 * from the main thread while they write, and they keep writing after it.
 * Run RACE_RUNS times, each in a child: no run may die (SIGBUS on a
 * truncated file) and every file must be whole, closed and truncated to
 * its records, ending with CLOCK END.
 */
#define RACE_RUNS 30
#define RACE_WRITERS 4
#define RACE_OPS 2000

static long race_written[RACE_WRITERS];
static int race_stop;

static void *racer(void *arg)
{
	long *n = arg;

	while (!__atomic_load_n(&race_stop, __ATOMIC_ACQUIRE)) {
		write_ops(1);
		__atomic_add_fetch(n, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void race_until(long ops)
{
	int i;

	for (i = 0; i < RACE_WRITERS; i++)
		while (__atomic_load_n(&race_written[i], __ATOMIC_ACQUIRE) < ops)
			sched_yield();
}

static void race_child(void)
{
	struct mt_rec_conf c = conf(64 << 20, 4096);
	pthread_t t[RACE_WRITERS];
	int i;

	if (mt_rec_init(&c))
		_exit(3);
	for (i = 0; i < RACE_WRITERS; i++)
		if (pthread_create(&t[i], NULL, racer, &race_written[i]))
			_exit(4);
	race_until(RACE_OPS);
	mt_rec_fini();
	race_until(2 * RACE_OPS);
	__atomic_store_n(&race_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < RACE_WRITERS; i++)
		pthread_join(t[i], NULL);
	_exit(0);
}

/* NULL when the file of child pid, seq is finished cleanly. */
static const char *race_file(pid_t pid, unsigned seq)
{
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	const struct mt_rec_hdr *last = NULL;
	const char *err;
	int counts[16], n;
	size_t size;
	char *data;

	path_of(path, sizeof(path), pid, seq);
	data = slurp(path, &size);
	h = (const void *)data;
	err = scan(data, size, counts, &n);
	if (!err && !(h->flags & MT_FILE_CLOSED))
		err = "not closed";
	if (!err && size != h->data_off + h->committed)
		err = "not truncated to its records";
	if (!err)
		last = (const void *)(data + h->data_off + h->committed -
				      sizeof(struct mt_rec_clock));
	if (!err && (last->type != MT_REC_CLOCK || last->aux != MT_CLOCK_END))
		err = "last record is not CLOCK END";
	if (!err && counts[MT_REC_OP] < RACE_OPS)
		err = "records written before the end are missing";
	free(data);
	return err;
}

Test(rec, exit_while_threads_record)
{
	int run, died = 0, corrupt = 0, status;
	const char *why = NULL;
	unsigned seq;

	for (run = 0; run < RACE_RUNS; run++) {
		pid_t pid = fork();
		int bad = 0;

		cr_assert_geq(pid, 0);
		if (pid == 0)
			race_child();
		cr_assert_eq(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			died++;
			cr_log_warn("run %d: status 0x%x", run, status);
		}
		for (seq = 0; seq < RACE_WRITERS; seq++) {
			const char *err = race_file(pid, seq);

			if (err) {
				why = err;
				bad = 1;
			}
		}
		corrupt += bad;
	}
	fprintf(stderr, "exit_while_threads_record: %d of %d runs died, %d left a bad file\n",
		died, RACE_RUNS, corrupt);
	cr_assert_eq(died + corrupt, 0, "%d of %d runs died, %d left a bad file (%s)",
		     died, RACE_RUNS, corrupt, why ? why : "-");
}

/*
 * A record made in a signal handler while the thread is between another
 * record's reservation and its publication (general and inline paths):
 * the outer record stays whole, the inner one is written whole or counted
 * in lost_nested, never torn.
 */
static void handler_records(int sig)
{
	struct mt_rec_opargs a = { .tag = 99 };

	(void)sig;
	mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSEND, &a), 0, 0);
}

static void fill_outer(struct mt_rec_op *r, uint64_t tag)
{
	struct mt_rec_opargs a = { 1, 2, tag, 3, 4, 5, 6, 7 };

	mt_rec_hdr_set(&r->h, MT_REC_OP, 0, sizeof(*r), MT_OP_TRECV, 1);
	mt_rec_op_fill(r, 0, &a, 0);
}

Test(rec, signal_inside_a_record_never_tears_it)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	struct sigaction sa = { .sa_handler = handler_records };
	char path[PATH_MAX + 128];
	const struct mt_file_hdr *h;
	const char *p, *end;
	struct mt_file_hdr *wh;
	struct mt_rec_op *r;
	int counts[16], inner = 0, outer = 0;
	size_t size;
	char *data;

	cr_assert_eq(sigaction(SIGUSR1, &sa, NULL), 0);
	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	r = mt_rec_reserve(sizeof(*r));		/* the general path */
	cr_assert_not_null(r);
	raise(SIGUSR1);
	fill_outer(r, 5);
	mt_rec_commit(sizeof(*r));
	r = mt_rec_try_op(&wh);	/* the inline path */
	cr_assert_not_null(r);
	raise(SIGUSR1);
	fill_outer(r, 6);
	mt_rec_publish(wh, sizeof(*r));
	raise(SIGUSR1);				/* outside any record */
	mt_rec_fini();

	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	h = (const void *)data;
	walk(data, size, counts);
	p = data + h->data_off;
	for (end = p + h->committed; p < end; p += ((const struct mt_rec_hdr *)p)->size) {
		const struct mt_rec_op *op = (const void *)p;

		if (op->h.type != MT_REC_OP || op->tag < 5)
			continue;
		if (op->tag == 99) {
			inner++;
			continue;
		}
		cr_assert(op->tag == 5 || op->tag == 6, "torn record: tag %llu",
			  (unsigned long long)op->tag);
		cr_assert_eq(op->h.aux, MT_OP_TRECV);
		cr_assert(op->ep == 1 && op->addr == 2 && op->ignore == 3 &&
			  op->len == 4 && op->data == 5 && op->context == 6 &&
			  op->flags == 7, "outer record %llu torn",
			  (unsigned long long)op->tag);
		outer++;
	}
	cr_assert_eq(outer, 2, "both outer records are in the file");
	cr_assert_eq(inner + (int)h->lost_nested, 3,
		     "every handler record is written or counted (%d written, %llu counted)",
		     inner, (unsigned long long)h->lost_nested);
	cr_assert_geq(inner, 1, "a handler record outside any record is written");
	cr_assert(nwarn == 1 && strstr(warnings[0], "in a signal handler"),
		  "the exit warning counts them: %s", nwarn ? warnings[0] : "none");
	free(data);
}

/*
 * Header counters of a thread before its first record (no file yet) land
 * in its own file once it exists, exact with 8 threads counting at once
 * (they were added, unlocked, into one placeholder shared by all).
 */
#define COUNT_THREADS 8
#define COUNT_POLLS 20000

static void *poll_then_record(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < COUNT_POLLS; i++)
		mt_rec_empty_poll();
	write_ops(1);
	for (i = 0; i < 3; i++)
		mt_rec_empty_poll();
	return NULL;
}

Test(rec, counters_before_the_first_record_are_kept)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	pthread_t t[COUNT_THREADS];
	size_t size;
	char *data;
	int i;

	cr_assert_eq(mt_rec_init(&c), 0);
	for (i = 0; i < COUNT_THREADS; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, poll_then_record, NULL), 0);
	for (i = 0; i < COUNT_THREADS; i++)
		cr_assert_eq(pthread_join(t[i], NULL), 0);
	for (i = 0; i < COUNT_THREADS; i++) {
		path_of(path, sizeof(path), getpid(), (unsigned)i);
		data = slurp(path, &size);
		cr_assert_eq(((const struct mt_file_hdr *)data)->empty_polls,
			     COUNT_POLLS + 3, "thread_seq %d", i);
		free(data);
	}
}

/*
 * Empty polls are counted by the thread (one add on the hot path) and reach
 * its file's header when the file is finished: by the thread closing it,
 * and by mt_rec_fini() for a thread still running then. A thread's next
 * file counts only the polls made after its previous one was finished.
 */
static pthread_barrier_t polls_bar;

static void *poll_and_stay(void *arg)
{
	int i;

	(void)arg;
	write_ops(1);
	for (i = 0; i < 7; i++)
		mt_rec_empty_poll();
	pthread_barrier_wait(&polls_bar);	/* polled: main finishes */
	pthread_barrier_wait(&polls_bar);	/* finished: exit */
	return NULL;
}

Test(rec, empty_polls_reach_the_header_when_the_file_is_finished)
{
	struct mt_rec_conf c = conf(1 << 20, 4096);
	char path[PATH_MAX + 128];
	pthread_t t;
	size_t size;
	char *data;

	cr_assert_eq(mt_rec_init(&c), 0);
	write_ops(1);
	mt_rec_empty_poll();
	mt_rec_empty_poll();
	cr_assert_eq(mt_rec_tls.buf->hdr->empty_polls, 0, "not in the header yet");
	mt_rec_thread_close();
	cr_assert_eq(mt_rec_tls.empty_polls, 0, "moved into the closed file");
	mt_rec_empty_poll();
	write_ops(1);			/* the thread's second file */
	cr_assert_eq(pthread_barrier_init(&polls_bar, NULL, 2), 0);
	cr_assert_eq(pthread_create(&t, NULL, poll_and_stay, NULL), 0);
	pthread_barrier_wait(&polls_bar);
	mt_rec_fini();
	pthread_barrier_wait(&polls_bar);
	cr_assert_eq(pthread_join(t, NULL), 0);

	path_of(path, sizeof(path), getpid(), 0);
	data = slurp(path, &size);
	cr_assert_eq(((const struct mt_file_hdr *)data)->empty_polls, 2);
	free(data);
	path_of(path, sizeof(path), getpid(), 1);
	data = slurp(path, &size);
	cr_assert_eq(((const struct mt_file_hdr *)data)->empty_polls, 1,
		     "only the poll made after the first file was closed");
	free(data);
	path_of(path, sizeof(path), getpid(), 2);
	data = slurp(path, &size);
	cr_assert_eq(((const struct mt_file_hdr *)data)->empty_polls, 7,
		     "a thread still running at exit: read by mt_rec_fini");
	free(data);
}
