/*
 * mt_rec.h - the recording path of the msgtrace provider: per-thread trace
 * files written through mmap, and the inline hot path that appends one
 * fixed-size record of trace/mt_trace.h to the calling thread's file.
 *
 * The hot path (mt_rec_reserve / mt_rec_commit and the record helpers) takes
 * no locks, makes no syscalls, allocates nothing and formats nothing: it reads
 * the clock, checks the thread's buffer has room, fills the record and
 * publishes it with one store-release of the file header's 'committed'.
 * Everything rare (creating the file, growing it, losses, closing) is out of
 * line in mt_buf.c. This layer knows the trace format but no libfabric
 * object and nothing about MPI: callers hand it plain integers.
 */
#ifndef MT_REC_H
#define MT_REC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "mt_trace.h"

#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Recording configuration, read once (mt_env.c) or set by tests. */
struct mt_rec_conf {
	const char *dir;		/* trace directory; created 0700 if missing */
	uint64_t buffer_size;		/* max bytes of one thread's file */
	uint64_t chunk_size;		/* the file grows by this much at a time */
	mode_t file_mode;		/* permissions of trace files */
	uint32_t file_flags;		/* enum mt_file_flags set in every header */
	uint32_t fi_version;		/* stored in MT_REC_PROC */
	void (*warn)(const char *msg);	/* one line naming the cause */
};

/* A thread's trace file. The first three fields are the hot path's. */
struct mt_rec_buf {
	char *next;			/* where the next record goes */
	char *limit;			/* end of what the inline paths may use */
	struct mt_file_hdr *hdr;	/* start of the mapping */
	char *map_end;			/* end of the reserved virtual range */
	char *grown_end;		/* end of the part backed by the file */
	int fd;
	int stuck;			/* 0, or 1 + the enum mt_loss that stopped growth */
	int closed;
	struct mt_rec_buf *link;	/* process-wide list, under a mutex */
};

/* Per-thread state. initial-exec: one %fs-relative load, no __tls_get_addr. */
struct mt_rec_tls {
	struct mt_rec_buf *buf;		/* never NULL: a placeholder without room
					 * until the thread's first record */
	const void *inside;		/* object whose hooked call is running */
	uint32_t depth;			/* hooked object-creating calls running */
	uint32_t retries;		/* -FI_EAGAIN returns since the last OP */
};

extern __thread struct mt_rec_tls mt_rec_tls
	__attribute__((tls_model("initial-exec")));
extern int mt_rec_clock_tsc;		/* 1: h.ts holds TSC ticks */

/*
 * mt_rec_init() checks and creates conf->dir, calibrates the clock and makes
 * recording possible; it returns 0, or -1 after one conf->warn naming the
 * cause (recording then stays off and every record is dropped silently).
 * mt_rec_fini() finishes every file of the process (CLOCK END, MT_FILE_CLOSED,
 * truncated to its used size) and warns once if records were lost.
 * mt_rec_thread_close() does the same for the calling thread's file only.
 */
int mt_rec_init(const struct mt_rec_conf *conf);
void mt_rec_fini(void);
void mt_rec_thread_close(void);

/* Slow path: make room for size bytes, or count the loss and return NULL. */
void *mt_rec_slow(size_t size);
uint64_t mt_rec_clock_slow(void);

static inline uint64_t mt_rec_now(void)
{
	if (MT_LIKELY(mt_rec_clock_tsc))
		return __builtin_ia32_rdtsc();
	return mt_rec_clock_slow();
}

static inline void *mt_rec_reserve(size_t size)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;

	if (MT_UNLIKELY(b->limit - b->next < (ptrdiff_t)size))
		return mt_rec_slow(size);
	return b->next;
}

/*
 * Room is compared signed: a limit behind next means none. Without a TSC
 * clock the slow path keeps limit at the start of the mapping, so every
 * record goes through it (and mt_rec_now) and the inline paths need not
 * test the clock.
 *
 * mt_rec_try() is mt_rec_reserve() for the common case only: room in the
 * buffer, which implies the TSC clock. It calls nothing, so a hook using it keeps its values in
 * registers; NULL means "take the general path" (which may call out).
 * It returns the buffer, the record goes at its 'next': a caller holding
 * the buffer in a register neither tests the record pointer nor reloads
 * the thread's state after filling it.
 */
static inline struct mt_rec_buf *mt_rec_try(size_t size)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;

	if (MT_UNLIKELY(b->limit - b->next < (ptrdiff_t)size))
		return NULL;
	return b;
}

/* Publish the record written at b->next: the bytes are stored before
 * 'committed' moves (release), so a reader never sees a torn record. */
static inline void mt_rec_publish(struct mt_rec_buf *b, size_t size)
{
	b->next += size;
	__atomic_store_n(&b->hdr->committed,
			 (uint64_t)(b->next - (char *)b->hdr) - MT_FILE_HDR_SIZE,
			 __ATOMIC_RELEASE);
}

/* Publish the record written where mt_rec_reserve() pointed. */
static inline void mt_rec_commit(size_t size)
{
	mt_rec_publish(mt_rec_tls.buf, size);
}

/* The first 8 bytes in one store (the format is little-endian). */
static inline void mt_rec_hdr_set(struct mt_rec_hdr *h, uint8_t type,
				  uint8_t layer, uint16_t size, uint32_t aux,
				  uint64_t ts)
{
	uint64_t w = type | (uint64_t)layer << 8 | (uint64_t)size << 16 |
		     (uint64_t)aux << 32;

	memcpy(h, &w, sizeof(w));
	h->ts = ts;
}

/* Arguments of one posting call, as the hooks collect them. */
struct mt_rec_opargs {
	uint64_t ep, addr, tag, ignore, len, data, context, flags;
};

static inline void mt_rec_op_fill(struct mt_rec_op *r, uint8_t layer,
				  enum mt_op op, uint64_t ts,
				  const struct mt_rec_opargs *a)
{
	mt_rec_hdr_set(&r->h, MT_REC_OP, layer, sizeof(*r), op, ts);
	r->ep = a->ep;
	r->addr = a->addr;
	r->tag = a->tag;
	r->ignore = a->ignore;
	r->len = a->len;
	r->data = a->data;
	r->context = a->context;
	r->flags = a->flags;
	r->ret = MT_OP_RET_PENDING;
	r->retries = mt_rec_tls.retries;
}

/*
 * A posting call is recorded in two halves so that its arguments need not
 * survive the call: mt_rec_op_begin() fills the record (timestamp first)
 * and reserves its place before the call, mt_rec_op_end() stores the return
 * value and publishes it. A record reserved but not yet published carries
 * ret = MT_OP_RET_PENDING; it becomes visible early only if a nested call
 * on the same thread published after it and the process then died.
 * -FI_EAGAIN (again != 0) takes the reservation back and is only counted;
 * if a nested record already follows it, it stays with that return value.
 * Returns NULL when the record was lost (no room): the call still runs.
 */
static inline struct mt_rec_op *mt_rec_op_begin(uint8_t layer, enum mt_op op,
						const struct mt_rec_opargs *a)
{
	uint64_t ts = mt_rec_now();
	struct mt_rec_op *r = mt_rec_reserve(sizeof(*r));

	if (MT_UNLIKELY(!r))
		return NULL;
	mt_rec_op_fill(r, layer, op, ts, a);
	mt_rec_tls.buf->next += sizeof(*r);
	return r;
}

/* mt_rec_op_begin() through mt_rec_try(): NULL means "use the former". */
static inline struct mt_rec_op *mt_rec_op_try(uint8_t layer, enum mt_op op,
					      const struct mt_rec_opargs *a)
{
	struct mt_rec_buf *b = mt_rec_try(sizeof(struct mt_rec_op));
	struct mt_rec_op *r;

	if (MT_UNLIKELY(!b))
		return NULL;
	r = (struct mt_rec_op *)b->next;
	b->next += sizeof(*r);	/* first: b is dead while filling */
	mt_rec_op_fill(r, layer, op, __builtin_ia32_rdtsc(), a);
	return r;
}

static inline void mt_rec_op_end(struct mt_rec_op *r, int32_t ret, int again)
{
	struct mt_rec_buf *b = mt_rec_tls.buf;

	if (MT_UNLIKELY(again)) {
		mt_rec_tls.retries++;
		b->hdr->eagain++;
		if (r && b->next - sizeof(*r) == (char *)r) {
			b->next = (char *)r;
			return;
		}
	}
	if (MT_UNLIKELY(!r))
		return;
	r->ret = ret;
	mt_rec_tls.retries = 0;
	mt_rec_publish(b, 0);
}

/* A CQ read returned no entry. */
static inline void mt_rec_empty_poll(void)
{
	mt_rec_tls.buf->hdr->empty_polls++;
}

#endif /* MT_REC_H */
