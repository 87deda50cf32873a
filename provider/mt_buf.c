/*
 * mt_buf.c - per-thread trace files: creation, growth, losses, closing.
 *
 * Each thread maps a virtual range of the file's maximum size once, but the
 * file itself only grows in chunks (fallocate, so a later store can never
 * SIGBUS on ENOSPC), each chunk prefaulted so that the hot path takes no page
 * faults. Records that do not fit are counted per cause in the file header
 * (or, for threads without a file, process-wide) and reported once at the end.
 *
 * Process exit (mt_rec_fini) finishes the files of threads that are still
 * recording through a handshake (quiesce): it marks them closing, waits
 * until each owner is outside any record (mt_rec_tls.busy), closes the
 * inline path (limit 0), waits once more, and only then appends CLOCK END
 * and truncates. A membarrier() before each wait makes the owners' plain
 * stores and loads ordered for it, so writers pay no fence. An owner that
 * stays inside a record past a bound, or a kernel without membarrier,
 * leaves the file as it is for the kernel: whole records up to committed,
 * not marked closed, never truncated under the writer.
 *
 * Ring mode (conf.ring, format version 4): the ring of buffer_size bytes
 * is grown like a file on its first lap and split into RING_BLOCKS
 * blocks; the inline paths' limit is the end of the block being written,
 * so the same single compare sends the record that does not fit to the
 * slow path, which closes the block and starts the next, the oldest, as
 * it is: the inline paths leave zero fields unwritten (mt_rec.h), and
 * their records say so (MT_AUX_UNWRITTEN), so no byte of the block is
 * written but by the records that follow.
 * Records analysis needs whatever their age go to a pinned area after the
 * ring (mt_rec_reserve_pinned), which grows by PIN_CHUNK up to PIN_MAX.
 *
 * fork(): the child forgets its parent's files (shared mappings) and records
 * into files of its own, named with its pid, whose PROC record is the
 * parent's with the child's pid and h.aux = the parent's pid.
 */
#define _GNU_SOURCE /* fallocate */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/membarrier.h>

#include "mt_codec.h"
#include "mt_proc.h"
#include "mt_rec.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Chunks allocated at once when a file is created. */
#define FIRST_CHUNKS 4

/* A ring is split into this many blocks (fewer when blocks would be
 * smaller than a page): a wrap forgets one block, 1/RING_BLOCKS of it. */
#define RING_BLOCKS 64

/* The pinned area of a ring file: the range reserved, and the part of it
 * backed by the file at a time. */
#define PIN_MAX (64ull << 20)
#define PIN_CHUNK (64ull << 10)

/* The boundary files are mapped at: one huge page (map_file). */
#define MAP_ALIGN (2ull << 20)

/* Room kept free at the end of every file for the closing CLOCK END. */
#define END_RESERVE sizeof(struct mt_rec_clock)

/* How long mt_rec_fini() waits for a thread to leave its record (a record
 * takes nanoseconds; growing a file, milliseconds at worst). */
#define FINI_WAIT_NS 1000000000ull


enum warn_cause { W_INIT, W_CREATE, W_GROW, W_FULL, W_COMPACT, W_COUNT };

static struct {
	pthread_mutex_t lock;
	struct mt_rec_conf conf;
	char dir[PATH_MAX];
	char host[64];
	int dirfd;			/* -1: recording off */
	int finished;
	int barrier_ok;			/* membarrier PRIVATE_EXPEDITED registered */
	uint32_t parent_pid;		/* fork(): the pid forking, for the child */
	uint64_t block;			/* ring: bytes of one block */
	uint32_t next_seq;
	struct mt_rec_buf *bufs;
	struct mt_rec_proc proc;	/* filled once at init, copied into seq 0 */
	pthread_key_t key;
	int key_ok;
	uint64_t nofile;		/* MT_LOSS_NOFILE, process-wide */
	uint64_t lost[MT_LOSS_COUNT];	/* totals of closed files */
	uint64_t lost_nested;		/* ... and of their lost_nested */
	int warned[W_COUNT];
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .dirfd = -1 };

/* Where threads without a file point: no room, so every record goes to
 * mt_rec_slow(), which counts it lost; header counters land in a dummy. */
static struct mt_file_hdr dead_hdr;
static struct mt_rec_buf dead_buf = { .hdr = &dead_hdr, .fd = -1 };

/* Where threads point before their first record (and after closing their
 * file): no room either, and mt_rec_slow() creates the file. The inline
 * paths never test for a missing buffer. */
static struct mt_rec_buf unborn_buf = { .hdr = &dead_hdr, .fd = -1 };

__thread struct mt_rec_tls mt_rec_tls __attribute__((tls_model("initial-exec"))) = {
	.buf = &unborn_buf,
};

/* One warning per cause per process, through the configured sink. */
static void warn_once(enum warn_cause cause, const char *fmt, ...)
{
	char msg[PATH_MAX + 256];
	va_list ap;

	if (__atomic_exchange_n(&g.warned[cause], 1, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (g.conf.warn)
		g.conf.warn(msg);
}

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/* Opens dir without following a symlink in its last component, creating
 * it 0700 when missing. Returns a directory fd or -1 with errno set. */
static int open_dir(const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	if (lstat(dir, &st))
		return -1;
	if (S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

static void thread_exit(void *arg);
static void before_fork(void);
static void after_fork_parent(void);
static void after_fork_child(void);

/* The asymmetric barrier of the exit handshake: registered once per
 * process (again in a forked child). */
static int register_barrier(void)
{
	return !syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
}

int mt_rec_init(const struct mt_rec_conf *conf)
{
	int fd;

	pthread_mutex_lock(&g.lock);
	g.conf = *conf;
	snprintf(g.dir, sizeof(g.dir), "%s", conf->dir);
	g.conf.dir = g.dir;
	if (g.conf.chunk_size < page_size())
		g.conf.chunk_size = page_size();
	g.conf.chunk_size = round_up(g.conf.chunk_size, page_size());
	g.conf.buffer_size = round_up(g.conf.buffer_size, page_size());
	if (g.conf.buffer_size < MT_FILE_HDR_SIZE + page_size())
		g.conf.buffer_size = MT_FILE_HDR_SIZE + page_size();
	if (g.conf.ring) {
		/* At least two blocks of a page; the ring a whole number. */
		g.block = g.conf.buffer_size / RING_BLOCKS / page_size() * page_size();
		if (g.block < page_size())
			g.block = page_size();
		g.conf.buffer_size = g.conf.buffer_size / g.block * g.block;
		if (g.conf.buffer_size < 2 * g.block)
			g.conf.buffer_size = 2 * g.block;
	}
	g.finished = 0;
	if (gethostname(g.host, sizeof(g.host)))
		snprintf(g.host, sizeof(g.host), "unknown");
	g.host[sizeof(g.host) - 1] = '\0';
	if (!g.key_ok) {
		g.key_ok = !pthread_key_create(&g.key, thread_exit);
		pthread_atfork(before_fork, after_fork_parent, after_fork_child);
		g.barrier_ok = register_barrier();
	}
	fd = open_dir(g.dir);
	if (fd < 0) {
		pthread_mutex_unlock(&g.lock);
		warn_once(W_INIT, "msgtrace: tracing disabled: cannot use trace directory '%s': %s%s",
			  conf->dir, strerror(errno),
			  errno == ELOOP ? " (a symlink is never followed)" : "");
		return -1;
	}
	/* Found now, one warning and no hooks installed, rather than one
	 * failed create per thread and every record counted lost. */
	if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS)) {
		int err = errno;

		close(fd);
		pthread_mutex_unlock(&g.lock);
		warn_once(W_INIT, "msgtrace: tracing disabled: cannot write to trace directory '%s': %s",
			  conf->dir, strerror(err));
		return -1;
	}
	if (g.dirfd >= 0)
		close(g.dirfd);
	g.dirfd = fd;
	mt_rec_proc_clock_init();
	mt_rec_proc_fill(&g.proc, conf->fi_version);
	pthread_mutex_unlock(&g.lock);
	return 0;
}

/* The committed offset records may reach; the inline paths' limit when
 * the clock is the TSC (mt_rec.h). A ring's: the end of its block, within
 * what is grown (its CLOCK END goes to the pinned area). */
static uint64_t room(const struct mt_rec_buf *b)
{
	uint64_t grown = (uint64_t)(b->grown_end - mt_rec_at(b, 0));

	if (g.conf.ring)
		return grown < b->block_end ? grown : b->block_end;
	return grown - END_RESERVE;
}

/* mt_rec_fini() marks a file closing from another thread. */
static int closing(const struct mt_rec_buf *b)
{
	return __atomic_load_n(&b->closing, __ATOMIC_RELAXED);
}

/* The inline paths take records while the clock is the TSC and no retry
 * count waits for the general path (mt_rec_op_begin) to record it. */
static void set_limit(struct mt_rec_buf *b)
{
	b->limit = mt_rec_clock_tsc && !mt_rec_tls.retries && !closing(b) ?
		   room(b) : 0;
}

/* Room for size more bytes after what is committed. */
static int fits(const struct mt_rec_buf *b, size_t size)
{
	return b->hdr->committed + size <= room(b);
}

/*
 * Reads one byte of every page of [p, p + len), just populated: under a
 * hypervisor with shadow page tables (PVM) a page's first access through
 * a new mapping costs microseconds, populated or not (measured ~9 us a
 * page, ~200 ns per record written), and is paid here, out of line, not
 * by the hot path's first store to the page.
 */
static void touch(const char *p, uint64_t len)
{
	for (uint64_t o = 0; o < len; o += page_size())
		(void)*(const volatile char *)(p + o);
}

/*
 * Maps len bytes of fd at a MAP_ALIGN boundary, advised MADV_HUGEPAGE:
 * where the page cache holds the file in 2 MiB folios (ext4 from Linux
 * 6.16, tmpfs mounted huge=) one mapping entry then covers 512 pages, and
 * the first access touch() pays is paid per 2 MiB, not per 4 KiB (under
 * shadow page tables, populating and first touching a page measured
 * 17-32 us per 4 KiB without, 1.5-2 us with, in one run). Elsewhere the
 * advice changes nothing. Returns MAP_FAILED with errno set on failure.
 */
static void *map_file(int fd, size_t len)
{
	size_t span = len + MAP_ALIGN;
	char *r = mmap(NULL, span, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *p, *end;
	int err;

	if (r == MAP_FAILED)
		return MAP_FAILED;
	p = (char *)round_up((uintptr_t)r, MAP_ALIGN);
	end = (char *)round_up((uintptr_t)(p + len), page_size());
	if (mmap(p, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 0) == MAP_FAILED) {
		err = errno;
		munmap(r, span);
		errno = err;
		return MAP_FAILED;
	}
	if (p > r)
		munmap(r, (size_t)(p - r));
	if (r + span > end)
		munmap(end, (size_t)(r + span - end));
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

/* Extends the file's region whose backed part ends at *grown by len bytes
 * (capped by the region's end lim and RLIMIT_FSIZE). Returns 0, or 1 +
 * the enum mt_loss cause; a failure warns unless quiet. */
static int extend(struct mt_rec_buf *b, char **grown, char *lim, uint64_t len,
		  int quiet)
{
	uint64_t off = (uint64_t)(*grown - (char *)b->hdr);
	uint64_t max = (uint64_t)(lim - (char *)b->hdr);
	uint64_t end = off + len;
	struct rlimit rl;
	int err;

	if (end > max)
		end = max;
	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    end > rl.rlim_cur)
		end = rl.rlim_cur / page_size() * page_size();
	if (end <= off && off >= max)
		return 1 + MT_LOSS_FULL;
	if (end <= off) {
		warn_once(W_GROW, "msgtrace: trace file cannot grow (file size limit RLIMIT_FSIZE %llu bytes): later records of this thread are dropped",
			  (unsigned long long)rl.rlim_cur);
		return 1 + MT_LOSS_NOSPACE;
	}
	err = fallocate(b->fd, 0, (off_t)off, (off_t)(end - off)) ? errno : 0;
	if (err == EOPNOTSUPP || err == ENOSYS)
		err = posix_fallocate(b->fd, (off_t)off, (off_t)(end - off));
	if (err) {
		if (!quiet)
			warn_once(W_GROW, "msgtrace: trace file cannot grow (%s): later records of this thread are dropped",
				  strerror(err));
		return 1 + MT_LOSS_NOSPACE;
	}
	madvise((char *)b->hdr + off, end - off, MADV_POPULATE_WRITE);
	touch((char *)b->hdr + off, end - off);
	*grown = (char *)b->hdr + end;
	set_limit(b);
	return 0;
}

/* Extends the records' window (a ring's: the ring) by len bytes. */
static int grow_by(struct mt_rec_buf *b, uint64_t len, int quiet)
{
	return extend(b, &b->grown_end, b->map_end, len, quiet);
}

static int grow(struct mt_rec_buf *b)
{
	return grow_by(b, g.conf.chunk_size, 0);
}

/* A ring file's pinned area: where it starts, where its next record goes,
 * and whether size more bytes fit, keeping room for the CLOCK END. */
static char *pin_start(const struct mt_rec_buf *b)
{
	return b->map_end;
}

static char *pin_next(const struct mt_rec_buf *b)
{
	return pin_start(b) + b->hdr->pinned;
}

static int pin_fits(const struct mt_rec_buf *b, size_t size)
{
	return pin_next(b) + size + END_RESERVE <= b->pin_grown;
}

/* Where the file's own records (PROC, CLOCK) go: the pinned area of a
 * ring, else after what is committed. */
static char *append_at(const struct mt_rec_buf *b)
{
	return g.conf.ring ? pin_next(b) : mt_rec_next(b);
}

/* Publish the size bytes written at append_at(b) by this file, not by
 * a record of the thread (which stays entered, if it is). */
static void append_done(struct mt_rec_buf *b, size_t size)
{
	if (g.conf.ring)
		__atomic_store_n(&b->hdr->pinned, b->hdr->pinned + size,
				 __ATOMIC_RELEASE);
	else
		mt_rec_set_committed(b->hdr, b->hdr->committed + size);
}

static void write_clock(struct mt_rec_buf *b, enum mt_clock_phase phase)
{
	struct mt_rec_clock *r = (void *)append_at(b);

	mt_rec_proc_clock_pair(r, phase);
	append_done(b, sizeof(*r));
}

static void write_proc(struct mt_rec_buf *b)
{
	memcpy(append_at(b), &g.proc, sizeof(g.proc));
	append_done(b, sizeof(g.proc));
}

/* The whole reserved range: a ring's pinned area lies after its ring. */
static size_t map_size(const struct mt_rec_buf *b)
{
	return (size_t)((b->pin_end ? b->pin_end : b->map_end) - (char *)b->hdr);
}

/* A ring's first block, number 1, at its start. */
static void ring_start(struct mt_rec_buf *b)
{
	struct mt_ring_block *first = (void *)mt_rec_at(b, 0);

	first->seq = 1;
	b->hdr->ring_seq = 1;
	b->hdr->committed = sizeof(*first);
	b->block_end = b->hdr->ring_block;
}

/* Records in a block the ring is about to write over: without call
 * sites every ring record (OP, CQE) has one size, and the count is a
 * division; with them, OPs are larger and the block is walked. */
_Static_assert(sizeof(struct mt_rec_op) == sizeof(struct mt_rec_cqe),
	       "ring records of one size without call sites");
static uint64_t block_records(const struct mt_ring_block *blk)
{
	const char *p = (const char *)(blk + 1), *end = p + blk->used;
	uint64_t n = 0;

	if (!g.conf.ring_sites)
		return blk->used / sizeof(struct mt_rec_op);
	for (; p < end; n++)
		p += ((const struct mt_rec_hdr *)p)->size;
	return n;
}

/*
 * The record does not fit in the ring's block: the block is closed (its
 * used bytes), and the next one, the oldest, is started: its records are
 * counted overwritten, ring_seq names it before any of its bytes change
 * (a reader then leaves it out), committed moves to its first record.
 * Returns 0, or
 * 1 + the enum mt_loss cause when the ring could not grow to hold it.
 */
static int next_block(struct mt_rec_buf *b)
{
	struct mt_file_hdr *h = b->hdr;
	uint64_t bytes = h->ring_block, seq = h->ring_seq + 1;
	uint64_t start = (seq - 1) % (h->ring_size / bytes) * bytes;
	struct mt_ring_block *cur = (void *)mt_rec_at(b, b->block_end - bytes);
	struct mt_ring_block *next = (void *)mt_rec_at(b, start);
	int stuck;

	while (mt_rec_at(b, start + bytes) > b->grown_end)
		if ((stuck = grow(b)))
			return stuck;
	cur->used = h->committed - (b->block_end - bytes) - sizeof(*cur);
	if (next->seq)
		h->overwritten += block_records(next);
	__atomic_store_n(&h->ring_seq, seq, __ATOMIC_RELEASE);
	/* ... and the block's stores come after it. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	next->seq = seq;
	mt_rec_set_committed(h, start + sizeof(*next));
	b->block_end = start + bytes;
	return 0;
}

static void unmap_buf(struct mt_rec_buf *b)
{
	munmap(b->hdr, map_size(b));
	close(b->fd);
	free(b);
}

/* Whether a new file has room for its PROC, CLOCK START and END (a
 * ring's pinned area; its ring for its first block). */
static int started(const struct mt_rec_buf *b)
{
	if (g.conf.ring)
		return pin_fits(b, sizeof(struct mt_rec_proc) + END_RESERVE) &&
		       b->grown_end >= mt_rec_at(b, g.block);
	return b->grown_end >= mt_rec_at(b, sizeof(struct mt_rec_proc) + 2 * END_RESERVE);
}

uint32_t mt_rec_inline_aux(void)
{
	return g.conf.ring ? MT_AUX_UNWRITTEN : 0;
}

/* Creates the calling thread's file; called with g.lock held. */
static struct mt_rec_buf *create_buf(void)
{
	char name[sizeof(((struct mt_rec_buf *)0)->name)];
	struct mt_rec_buf *b;
	struct mt_file_hdr *h;
	uint32_t seq = g.next_seq;
	/* A ring: header, ring, then the pinned area's range. */
	size_t records_end = g.conf.ring ? MT_FILE_HDR_SIZE + g.conf.buffer_size :
				g.conf.buffer_size;
	size_t map_len = records_end + (g.conf.ring ? PIN_MAX : 0);
	void *map;
	int fd;

	snprintf(name, sizeof(name), "%s.%d.%u%s", g.host, (int)getpid(), seq,
		 MT_TRACE_SUFFIX);
	fd = openat(g.dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    g.conf.file_mode);
	if (fd < 0) {
		warn_once(W_CREATE, "msgtrace: cannot create trace file '%s/%s': %s",
			  g.dir, name, strerror(errno));
		return NULL;
	}
	/* The umask must not decide who can read a trace. */
	fchmod(fd, g.conf.file_mode);
	map = map_file(fd, map_len);
	b = calloc(1, sizeof(*b));
	if (map == MAP_FAILED || !b) {
		warn_once(W_CREATE, "msgtrace: cannot map trace file '%s/%s': %s",
			  g.dir, name, strerror(errno));
		if (map != MAP_FAILED)
			munmap(map, map_len);
		free(b);
		close(fd);
		unlinkat(g.dirfd, name, 0);
		return NULL;
	}
	b->fd = fd;
	memcpy(b->name, name, sizeof(name));
	b->hdr = map;
	b->map_end = (char *)map + records_end;
	b->grown_end = (char *)map;
	if (g.conf.ring) {
		b->pin_end = b->map_end + PIN_MAX;
		b->pin_grown = b->map_end;
		extend(b, &b->pin_grown, b->pin_end, PIN_CHUNK, 1);
	}
	/*
	 * Growing costs the writer 0.4-3 us per 4 KiB page on ext4, 10-60 ns
	 * per record: the first FIRST_CHUNKS chunks are paid here, at the
	 * thread's first record (for MPI, inside MPI_Init), not while it
	 * communicates. A failure (no space) is quiet and leaves growth chunk
	 * by chunk, which must at least hold the header, PROC, CLOCK START
	 * and END.
	 */
	grow_by(b, FIRST_CHUNKS * g.conf.chunk_size, 1);
	while (!started(b)) {
		if (g.conf.ring || grow(b)) {
			warn_once(W_CREATE, "msgtrace: cannot size trace file '%s/%s'",
				  g.dir, name);
			unlinkat(g.dirfd, name, 0);
			unmap_buf(b);
			return NULL;
		}
	}
	h = b->hdr;
	memcpy(h->magic, MT_TRACE_MAGIC, sizeof(h->magic));
	h->version = g.conf.ring ? MT_TRACE_VERSION_RING : MT_TRACE_VERSION;
	h->hdr_size = MT_FILE_HDR_SIZE;
	h->data_off = MT_FILE_HDR_SIZE;
	h->capacity = map_len - MT_FILE_HDR_SIZE;
	h->pid = (uint32_t)getpid();
	h->tid = (uint32_t)syscall(SYS_gettid);
	h->thread_seq = seq;
	h->flags = g.conf.file_flags;
	if (g.conf.ring) {
		h->flags |= MT_FILE_RING;
		h->ring_size = g.conf.buffer_size;
		h->ring_block = g.block;
		ring_start(b);
	}
	h->eagain = mt_rec_tls.eagain;
	mt_rec_tls.eagain = 0;
	b->busy = g.key_ok ? &mt_rec_tls.busy : NULL;
	b->empty_polls = g.key_ok ? &mt_rec_tls.empty_polls : NULL;
	g.next_seq++;
	if (seq == 0)
		write_proc(b);
	write_clock(b, MT_CLOCK_START);
	b->link = g.bufs;
	g.bufs = b;
	return b;
}

/* The thread's file created at its first record (or dead_buf). */
static __attribute__((noinline)) struct mt_rec_buf *first_buf(void)
{
	struct mt_rec_buf *b;

	pthread_mutex_lock(&g.lock);
	b = g.dirfd >= 0 && !g.finished ? create_buf() : NULL;
	if (b && g.key_ok)
		pthread_setspecific(g.key, b);
	pthread_mutex_unlock(&g.lock);
	if (!b)
		b = &dead_buf;
	mt_rec_tls.buf = b;
	return b;
}

/* The calling thread's file, created on its first record; NULL (the
 * record counted lost) when it has none, or it is closing: the process is
 * exiting (mt_rec_fini), the trace ends with the file's CLOCK END, and
 * records of threads still running are past its end, not lost. Inlined
 * into both slow paths: a dropped record (a full file) stays cheap. */
static inline __attribute__((always_inline)) struct mt_rec_buf *thread_buf(void)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;

	if (MT_UNLIKELY(b == &unborn_buf))
		b = first_buf();
	if (b == &dead_buf) {
		__atomic_fetch_add(&g.nofile, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	return closing(b) ? NULL : b;
}

/* Makes room for size bytes in the thread's file: grows it, starts a
 * ring's next block, or counts the record lost: without a file (NOFILE),
 * at the size limit, when the file could not grow (recorded in the header;
 * growth is not retried) or, in a ring, larger than a block. */
static void *slow(size_t size)
{
	struct mt_rec_buf *b = thread_buf();
	int stuck;

	if (!b)
		return NULL;
	if (g.conf.ring && size > g.block - sizeof(struct mt_ring_block)) {
		b->hdr->lost[MT_LOSS_FULL]++;
		return NULL;
	}
	while (!fits(b, size)) {
		if (b->stuck) {
			b->hdr->lost[b->stuck - 1]++;
			return NULL;
		}
		stuck = g.conf.ring && b->hdr->committed + size > b->block_end ?
			next_block(b) : grow(b);
		if (stuck) {
			if (stuck == 1 + MT_LOSS_FULL)
				warn_once(W_FULL, "msgtrace: a trace file reached its size limit (%llu bytes): later records of that thread are dropped",
					  (unsigned long long)g.conf.buffer_size);
			b->stuck = stuck;
			b->hdr->lost[stuck - 1]++;
			return NULL;
		}
	}
	set_limit(b);
	return mt_rec_next(b);
}

/* Room for size bytes in a ring's pinned area (grown as needed), or the
 * record counted lost. */
static void *pin_slow(size_t size)
{
	struct mt_rec_buf *b = thread_buf();
	int stuck;

	if (!b)
		return NULL;
	while (!pin_fits(b, size)) {
		stuck = extend(b, &b->pin_grown, b->pin_end, PIN_CHUNK, 0);
		if (stuck) {
			b->hdr->lost[stuck - 1]++;
			return NULL;
		}
	}
	return pin_next(b);
}

/* A record made while the thread is inside another (in a signal handler):
 * counted, never written over the outer one. */
static void count_nested(void)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;

	if (b->fd >= 0 && !b->closed)
		b->hdr->lost_nested++;
	else
		__atomic_fetch_add(&g.nofile, 1, __ATOMIC_RELAXED);
}

/* Enters a record placed by find (slow, pin_slow). The application's
 * errno must survive whatever the slow path calls. */
static inline __attribute__((always_inline)) void *
enter_slow(void *(*find)(size_t), size_t size)
{
	int saved = errno;
	void *r;

	if (mt_rec_tls.busy) {
		count_nested();
		return NULL;
	}
	mt_rec_enter();
	r = find(size);
	if (!r)
		mt_rec_leave();
	errno = saved;
	return r;
}

void *mt_rec_slow(size_t size)
{
	return enter_slow(slow, size);
}

void *mt_rec_reserve_pinned(size_t size)
{
	return g.conf.ring ? enter_slow(pin_slow, size) : mt_rec_reserve(size);
}

void mt_rec_commit_pinned(size_t size)
{
	struct mt_file_hdr *h = mt_rec_tls.buf->hdr;

	if (!g.conf.ring) {
		mt_rec_commit(size);
		return;
	}
	__atomic_store_n(&h->pinned, h->pinned + size, __ATOMIC_RELEASE);
	mt_rec_leave();
}

static void again(struct mt_rec_op *r, int32_t ret)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;
	struct mt_file_hdr *h = b->hdr;

	mt_rec_tls.retries++;
	if (b->fd < 0) {
		mt_rec_tls.eagain++;
		return;
	}
	h->eagain++;
	/* Readers take a moved count as "a call may have been taken back
	 * and written over" (trace/file.c): it must be seen no later than
	 * any byte written where the call was. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	b->limit = 0;
	if (!r)
		return;
	mt_rec_tls.retries += r->retries;
	/* Taking the record back moves committed: not while mt_rec_fini()
	 * finishes the file, nor inside a record a signal interrupted. */
	if (mt_rec_tls.busy) {
		r->ret = ret;
		return;
	}
	mt_rec_enter();
	if (!closing(b) && mt_rec_next(b) == (char *)r + r->h.size)
		mt_rec_set_committed(h, h->committed - r->h.size);
	else
		r->ret = ret;
	mt_rec_leave();
}

ssize_t mt_rec_op_again(struct mt_rec_op *r, ssize_t ret)
{
	again(r, (int32_t)ret);
	return ret;
}

void mt_rec_reopen(void)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;

	if (b->fd < 0 || mt_rec_tls.busy)
		return;
	mt_rec_enter();
	set_limit(b);
	mt_rec_leave();
}

/*
 * Replaces a closed file by its compact form of the version 1 file whose
 * header is hdr and records recs (a new file renamed over it: a process
 * killed meanwhile leaves the file whole). Only files whose writer is done
 * with them get here (finish_buf); the application's errno survives.
 */
static void compact(struct mt_rec_buf *b, const struct mt_file_hdr *hdr,
		    const uint8_t *recs)
{
	int saved = errno;

	if (g.conf.compact && g.dirfd >= 0 &&
	    mt_codec_compact(g.dirfd, b->name, g.conf.file_mode, hdr, recs))
		warn_once(W_COMPACT, "msgtrace: cannot compact trace file '%s/%s' (%s): it stays uncompacted",
			  g.dir, b->name, strerror(errno));
	errno = saved;
}

/* A closed ring file compacted from its records in time order
 * (mt_codec_ring_linear), under a header that keeps MT_FILE_RING and
 * the count of records overwritten. */
static void compact_ring(struct mt_rec_buf *b)
{
	struct mt_file_hdr h = *b->hdr;
	size_t grown = (size_t)(b->grown_end - mt_rec_at(b, 0));
	struct mt_codec_ring st;
	const char *why;
	uint8_t *recs;

	if (!g.conf.compact)
		return;
	recs = malloc(grown + h.pinned);
	if (!recs) {
		warn_once(W_COMPACT, "msgtrace: cannot compact trace file '%s/%s' (out of memory): it stays uncompacted",
			  g.dir, b->name);
		return;
	}
	h.committed = mt_codec_ring_linear(b->hdr, (const uint8_t *)mt_rec_at(b, 0),
					   h.ring_size + h.pinned, 0, 0, recs,
					   &st, &why);
	h.version = MT_TRACE_VERSION;
	h.capacity = h.committed;
	h.ring_size = h.ring_block = h.ring_seq = h.pinned = 0;
	compact(b, &h, recs);
	free(recs);
}

/* The empty polls its owner counted since its last file was finished go
 * into b's header. The owner's counter restarts only when the caller is
 * the owner (closing its file, or exiting); another thread's keeps running,
 * read once: the process is ending. Without a thread key the owner may be
 * gone: its count is not read. */
static void take_polls(struct mt_rec_buf *b)
{
	if (b->empty_polls == &mt_rec_tls.empty_polls) {
		b->hdr->empty_polls += mt_rec_tls.empty_polls;
		mt_rec_tls.empty_polls = 0;
	} else if (b->empty_polls) {
		b->hdr->empty_polls += __atomic_load_n(b->empty_polls,
						       __ATOMIC_RELAXED);
	}
}

/* Writes CLOCK END, marks the file closed, gives back the unused,
 * preallocated tail and compacts it. The mapping stays: other threads may
 * still hold it. */
static void finish_buf(struct mt_rec_buf *b)
{
	char *end;
	int i;

	if (b->closed)
		return;
	take_polls(b);
	write_clock(b, MT_CLOCK_END);
	b->closing = 1;
	b->closed = 1;
	b->limit = 0;
	b->hdr->flags |= MT_FILE_CLOSED;
	for (i = 0; i < MT_LOSS_COUNT; i++)
		g.lost[i] += b->hdr->lost[i];
	g.lost_nested += b->hdr->lost_nested;
	end = append_at(b);
	if (ftruncate(b->fd, end - (char *)b->hdr) == 0)
		*(g.conf.ring ? &b->pin_grown : &b->grown_end) = end;
	if (g.conf.ring)
		compact_ring(b);
	else
		compact(b, b->hdr, (const uint8_t *)mt_rec_at(b, 0));
}

static void unlink_buf(struct mt_rec_buf *b)
{
	struct mt_rec_buf **p;

	for (p = &g.bufs; *p; p = &(*p)->link) {
		if (*p == b) {
			*p = b->link;
			return;
		}
	}
}

/* Only the owning thread may unmap its file: nobody else writes to it. */
static void close_own(struct mt_rec_buf *b)
{
	pthread_mutex_lock(&g.lock);
	finish_buf(b);
	unlink_buf(b);
	pthread_mutex_unlock(&g.lock);
	unmap_buf(b);
}

static void thread_exit(void *arg)
{
	struct mt_rec_buf *b = arg;

	if (mt_rec_tls.buf == b)
		mt_rec_tls.buf = &unborn_buf;
	close_own(b);
}

void mt_rec_thread_close(void)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;

	if (b == &unborn_buf || b == &dead_buf)
		return;
	if (g.key_ok)
		pthread_setspecific(g.key, NULL);
	mt_rec_tls.buf = &unborn_buf;
	close_own(b);
}

static void report_losses(void)
{
	uint64_t total = g.nofile;
	int i;

	for (i = 0; i < MT_LOSS_COUNT; i++)
		total += g.lost[i];
	total += g.lost_nested;
	if (!total || !g.conf.warn)
		return;
	char msg[256], nested[64] = "";
	/* The nested count only when there is one: the line stays as it was. */
	if (g.lost_nested)
		snprintf(nested, sizeof(nested), ", in a signal handler %llu",
			 (unsigned long long)g.lost_nested);
	snprintf(msg, sizeof(msg),
		 "msgtrace: %llu records lost (size limit %llu, no space %llu, no file %llu%s)",
		 (unsigned long long)total,
		 (unsigned long long)g.lost[MT_LOSS_FULL],
		 (unsigned long long)g.lost[MT_LOSS_NOSPACE],
		 (unsigned long long)(g.lost[MT_LOSS_NOFILE] + g.nofile), nested);
	g.conf.warn(msg);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A file of another thread than the caller. */
static int foreign(const struct mt_rec_buf *b)
{
	return b != mt_rec_tls.buf;
}

/* Waits (until deadline) for every other owner to be outside a record;
 * the file of one that is not then is abandoned, left for the kernel. An
 * owner whose busy flag is unknown (no thread key: it may be gone) is
 * never known to be idle. */
static void wait_idle(uint64_t deadline)
{
	struct mt_rec_buf *b;

	for (b = g.bufs; b; b = b->link) {
		if (!foreign(b) || b->abandoned)
			continue;
		if (!b->busy) {
			b->abandoned = 1;
			continue;
		}
		while (__atomic_load_n(b->busy, __ATOMIC_ACQUIRE)) {
			if (monotonic_ns() > deadline) {
				b->abandoned = 1;
				break;
			}
			sched_yield();
		}
	}
}

/*
 * Every CPU running a thread of the process passes a full barrier: an
 * owner's record entered (busy stored) before it is seen busy after it,
 * and one entered after it reads what was stored before it. Without it,
 * every other thread's file is abandoned.
 */
static void barrier_or_abandon(void)
{
	struct mt_rec_buf *b;

	if (g.barrier_ok &&
	    !syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0))
		return;
	for (b = g.bufs; b; b = b->link)
		b->abandoned = foreign(b);
}

/* The exit handshake (top of file): afterwards, no other thread writes to
 * a file that is not abandoned. */
static void quiesce(void)
{
	uint64_t deadline = monotonic_ns() + FINI_WAIT_NS;
	struct mt_rec_buf *b;

	for (b = g.bufs; b; b = b->link)
		__atomic_store_n(&b->closing, 1, __ATOMIC_RELAXED);
	barrier_or_abandon();
	/* Owners that read 'closing' before it was set finish their slow
	 * path (which may reopen limit); later ones see it, never reopen. */
	wait_idle(deadline);
	for (b = g.bufs; b; b = b->link)
		__atomic_store_n(&b->limit, 0, __ATOMIC_RELAXED);
	barrier_or_abandon();
	/* Inline records entered before limit 0 was visible are over. */
	wait_idle(deadline);
}

/*
 * Process end: finish every file (other threads' only after the exit
 * handshake). Mappings and buffers are deliberately kept (other threads
 * may still hold pointers to them; their further records go to the slow
 * path and are counted lost), only the directory fd is closed.
 */
void mt_rec_fini(void)
{
	struct mt_rec_buf *b;

	pthread_mutex_lock(&g.lock);
	if (g.finished) {
		pthread_mutex_unlock(&g.lock);
		return;
	}
	g.finished = 1;
	quiesce();
	for (b = g.bufs; b; b = b->link)
		if (!b->abandoned)
			finish_buf(b);
	report_losses();
	if (g.dirfd >= 0)
		close(g.dirfd);
	g.dirfd = -1;
	pthread_mutex_unlock(&g.lock);
}

/* fork() while no thread is between two steps under the lock: the child
 * gets a consistent list of files and a lock it can take. */
static void before_fork(void)
{
	pthread_mutex_lock(&g.lock);
	g.parent_pid = (uint32_t)getpid();
}

static void after_fork_parent(void)
{
	pthread_mutex_unlock(&g.lock);
}

/*
 * A forked child must not write into its parent's files (they are shared
 * mappings): it forgets them, its only thread's thread-exit slot included
 * (it would close a freed buffer), and records into files of its own,
 * numbered from 0 under its pid, with a PROC record marking the fork.
 * Its counts start at zero.
 */
static void after_fork_child(void)
{
	struct mt_rec_buf *b, *next;

	for (b = g.bufs; b; b = next) {
		next = b->link;
		unmap_buf(b);
	}
	g.bufs = NULL;
	g.next_seq = 0;
	g.nofile = g.lost_nested = 0;
	memset(g.lost, 0, sizeof(g.lost));
	g.proc.pid = (uint32_t)getpid();
	g.proc.h.aux = g.parent_pid;
	g.proc.h.ts = mt_rec_now();
	if (g.barrier_ok)
		g.barrier_ok = register_barrier();
	if (g.key_ok)
		pthread_setspecific(g.key, NULL);
	mt_rec_tls.buf = &unborn_buf;
	mt_rec_tls.retries = 0;
	mt_rec_tls.empty_polls = mt_rec_tls.eagain = 0;
	pthread_mutex_init(&g.lock, NULL);
}
