/*
 * mt_rec.h - the recording path of the msgtrace provider: per-thread trace
 * files written through mmap, and the inline hot path that appends one
 * fixed-size record of trace/mt_format.h to the calling thread's file.
 *
 * The hot path (mt_rec_reserve / mt_rec_commit and the record helpers) takes
 * no locks, makes no syscalls, allocates nothing and formats nothing: it reads
 * the clock, checks the thread's buffer has room, fills the record and
 * publishes it with one store-release of the file header's 'committed' (on
 * x86-64 an add to memory, whose store is a release: mt_rec_publish).
 * Between reserving and publishing, the thread's 'busy' flag is set: a
 * record made meanwhile (in a signal handler) is counted as lost instead of
 * tearing the outer one, and mt_rec_fini() waits for it before finishing a
 * live thread's file (mt_buf.c: the exit handshake).
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

#include "mt_format.h"

#define MT_LIKELY(x) __builtin_expect(!!(x), 1)
#define MT_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Inlined into every hook variant: out of line, an OP's begin takes its
 * arguments through memory, and under call sites adds a frame to unwind. */
#define MT_INLINE __attribute__((always_inline))

/* Recording configuration, read once (mt_env.c) or set by tests. */
struct mt_rec_conf {
	const char *dir;		/* trace directory; created 0700 if missing */
	uint64_t buffer_size;		/* max bytes of one thread's file */
	uint64_t chunk_size;		/* the file grows by this much at a time */
	mode_t file_mode;		/* permissions of trace files */
	uint32_t file_flags;		/* enum mt_file_flags set in every header */
	uint32_t fi_version;		/* stored in MT_REC_PROC */
	void (*warn)(const char *msg);	/* one line naming the cause */
	int compact;			/* rewrite each file closed normally in
					 * the compact form (codec/mt_codec.h) */
	int ring;			/* flight recorder: buffer_size is a ring
					 * of the latest records (version 4) */
	int ring_sites;			/* OPs carry call sites (mt_rec_op_site) */
};

/*
 * A thread's trace file. The first two fields are the hot path's: records go
 * at data + hdr->committed, so reserving a record and publishing it touch
 * one counter, the one readers trust.
 */
struct mt_rec_buf {
	struct mt_file_hdr *hdr;	/* start of the mapping */
	uint64_t limit;			/* committed may grow up to this inline */
	char *map_end;			/* end of the reserved virtual range */
	char *grown_end;		/* end of the part backed by the file
					 * (ring: of the ring) */
	uint64_t block_end;		/* ring: committed offset where the block
					 * being written ends */
	char *pin_end;			/* ring: end of the pinned area's range */
	char *pin_grown;		/* ring: end of its part backed by the file */
	int fd;
	int stuck;			/* 0, or 1 + the enum mt_loss that stopped growth */
	int closing;			/* mt_rec_fini() is finishing it: no more
					 * records, limit is never reopened */
	int closed;
	int abandoned;			/* left unfinished at exit: its owner
					 * did not leave its record in time */
	const uint32_t *busy;		/* the owner's mt_rec_tls.busy */
	uint64_t *empty_polls;		/* the owner's mt_rec_tls.empty_polls */
	struct mt_rec_buf *link;	/* process-wide list, under a mutex */
	char name[112];			/* file name in the trace directory */
};

/* Per-thread state. initial-exec: one %fs-relative load, no __tls_get_addr. */
struct mt_rec_tls {
	struct mt_rec_buf *buf;		/* never NULL: a placeholder without room
					 * until the thread's first record */
	const void *inside;		/* object whose hooked call is running */
	uint32_t depth;			/* hooked object-creating calls running */
	uint32_t retries;		/* -FI_EAGAIN returns since the last OP;
					 * while not 0, the inline paths are
					 * closed (limit 0) */
	uint32_t busy;			/* inside a record: reserved, not yet
					 * published (mt_rec_enter) */
	uint64_t eagain;		/* header counter while the thread has
					 * no file; moved into its file when
					 * it is created */
	uint64_t empty_polls;		/* CQ reads that returned nothing, not
					 * yet in a file: added to the file's
					 * header when it is finished */
};

extern __thread struct mt_rec_tls mt_rec_tls
	__attribute__((tls_model("initial-exec")));
extern int mt_rec_clock_tsc;		/* 1: h.ts holds TSC ticks */

/*
 * mt_rec_init() checks and creates conf->dir, calibrates the clock and makes
 * recording possible; it returns 0, or -1 after one conf->warn naming the
 * cause (recording then stays off and every record is dropped silently).
 * mt_rec_fini() finishes every file of the process (CLOCK END, MT_FILE_CLOSED,
 * truncated to its used size, then compacted if conf->compact), other
 * threads' once they are outside any record (mt_buf.c), and warns once if
 * records were lost; records made
 * after it are past the trace's end.
 * mt_rec_thread_close() does the same for the calling thread's file only.
 */
int mt_rec_init(const struct mt_rec_conf *conf);
void mt_rec_fini(void);
void mt_rec_thread_close(void);

/* Slow path: make room for size bytes and enter the record, or count the
 * loss and return NULL. */
void *mt_rec_slow(size_t size);
/*
 * A record analysis needs whatever its age (mt_rec_pinned_type): in ring
 * mode it goes to the file's pinned area, never overwritten; otherwise
 * these are mt_rec_reserve() and mt_rec_commit(). Out of line: such
 * records are rare.
 */
void *mt_rec_reserve_pinned(size_t size);
void mt_rec_commit_pinned(size_t size);
uint64_t mt_rec_clock_slow(void);
/*
 * A posting call returned -FI_EAGAIN: it is counted (header and the next
 * OP's retries), and its record (NULL: lost) is taken back while it is
 * still the last one; one that nested records already follow keeps ret.
 */
ssize_t mt_rec_op_again(struct mt_rec_op *r, ssize_t ret);
/* The retry count is recorded: the inline paths may take records again. */
void mt_rec_reopen(void);

static inline uint64_t mt_rec_now(void)
{
	if (MT_LIKELY(mt_rec_clock_tsc))
		return __builtin_ia32_rdtsc();
	return mt_rec_clock_slow();
}

/* The TSC into a reserved record's h.ts: rdtsc's two halves stored as it
 * gives them (the format is little-endian), with no shift and or. */
static inline void mt_rec_stamp(struct mt_rec_hdr *h)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	memcpy(&h->ts, &lo, sizeof(lo));
	memcpy((char *)&h->ts + sizeof(lo), &hi, sizeof(hi));
}

/*
 * mt_rec_stamp() for a posting hook, whose third argument is in rdx until
 * it forwards the call: rdx comes back as it was (through r10, which holds
 * no argument), so the compiler moves no argument out of the way of rdtsc.
 * Left to it, gcc moved three arguments out and back (six moves).
 */
static inline void mt_rec_stamp_args(struct mt_rec_hdr *h)
{
#if defined(__x86_64__)
	register uint64_t keep __asm__("r10");

	__asm__ volatile("mov %%rdx, %[keep]\n\t"
			 "rdtsc\n\t"
			 "xchg %%rdx, %[keep]\n\t"
			 "mov %%eax, %[lo]\n\t"
			 "mov %k[keep], %[hi]"
			 : [lo] "=m"(*(char (*)[4])&h->ts),
			   [hi] "=m"(*(char (*)[4])((char *)&h->ts + 4)),
			   [keep] "=&r"(keep)
			 :
			 : "rax");
#else
	mt_rec_stamp(h);
#endif
}

/* Where a record at committed offset off goes. */
static inline char *mt_rec_at(const struct mt_rec_buf *b, uint64_t off)
{
	return (char *)b->hdr + MT_FILE_HDR_SIZE + off;
}

/* Where b's next record goes. */
static inline char *mt_rec_next(const struct mt_rec_buf *b)
{
	return mt_rec_at(b, b->hdr->committed);
}

/* Store a committed offset: the record bytes are stored before
 * 'committed' moves (release), so a reader never sees a torn record. */
static inline void mt_rec_set_committed(struct mt_file_hdr *h, uint64_t end)
{
	__atomic_store_n(&h->committed, end, __ATOMIC_RELEASE);
}

/*
 * Bits the records the hooks write inline carry in h.aux besides the call
 * (hook_obj.c puts them in each clone's header words): in ring mode
 * MT_AUX_UNWRITTEN, since a block is written over unzeroed and MT_REC_PUT
 * leaves out fields (mt_format.h); else 0.
 */
uint32_t mt_rec_inline_aux(void);

/*
 * Past committed, a file is zero whenever the inline paths are open: it is
 * created and grown by fallocate, and a record taken back after -FI_EAGAIN
 * (mt_rec_op_again) closes them until an OP of the general path, which
 * stores every field, reopens them; the records from the one taken back up
 * to that OP, all general ones, cover its bytes. So a record mt_rec_try()
 * reserved is zero, and MT_REC_PUT(zero, ...) with zero set leaves out a
 * store the compiler knows to store 0 (a hook's constant-0 argument, a
 * field its CQ format lacks): the inline paths store only what carries
 * something. A live reader never sees the bytes taken back change but by
 * the next record written over them.
 * A ring's block written over again is not zero: the records the inline
 * paths write there say so (mt_rec_inline_aux), and a reader takes the
 * fields left out as 0.
 */
#define MT_REC_PUT(zero, field, v)					\
	do {								\
		if (!(zero) || !__builtin_constant_p(v) || (v) != 0)	\
			(field) = (v);					\
	} while (0)

/*
 * The thread enters a record. The store is ordered before the loads that
 * follow only for the compiler: a signal handler runs on this thread, and
 * mt_rec_fini() makes the CPU's order visible with membarrier() (so the
 * hot path pays no fence).
 */
static inline void mt_rec_enter(void)
{
	__atomic_store_n(&mt_rec_tls.busy, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * The thread enters a record unless it is inside one already (then 0). On
 * x86-64 one bts both tests and sets the flag: a single instruction, so no
 * signal handler can run between the test and the store, which is all the
 * flag guards against (it is the thread's own, no lock prefix needed), and
 * two instructions fewer than load, test, branch and store. The "memory"
 * clobber orders it like mt_rec_enter's fence.
 */
static inline int mt_rec_enter_free(void)
{
#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__)
	int was;

	__asm__ volatile("btsl $0, %0"
			 : "+m"(mt_rec_tls.busy), "=@ccc"(was)
			 :
			 : "memory");
	return !was;
#else
	if (mt_rec_tls.busy)
		return 0;
	mt_rec_enter();
	return 1;
#endif
}

/* ... and leaves it, after its last store to the file. */
static inline void mt_rec_leave(void)
{
	__atomic_store_n(&mt_rec_tls.busy, 0, __ATOMIC_RELEASE);
}

/*
 * Publish the size bytes of a reserved record (mt_rec_try's *h) and leave
 * it. On x86-64 'committed' grows by one add to memory: a single store, so
 * readers see the old or the new offset, and it is ordered after the
 * record's stores (x86 stores are releases; the "memory" clobber keeps the
 * compiler's order). Only the thread inside the record writes 'committed'
 * (mt_rec_fini waits for it). Adding in place keeps the new offset out of
 * a register while the record is filled.
 */
static inline void mt_rec_publish(struct mt_file_hdr *h, uint64_t size)
{
#if defined(__x86_64__)
	__asm__ volatile("addq %1, %0"
			 : "+m"(h->committed)
			 : "er"(size)
			 : "memory");
#else
	mt_rec_set_committed(h, h->committed + size);
#endif
	mt_rec_leave();
}

/* Publish the size bytes written where mt_rec_reserve() pointed. */
static inline void mt_rec_commit(size_t size)
{
	mt_rec_publish(mt_rec_tls.buf->hdr, size);
}

/*
 * mt_rec_try() reserves size bytes in the common case only: room in the
 * buffer, which implies the TSC clock. It calls nothing, so a hook using
 * it keeps its values in registers; NULL means "take the general path"
 * (which may call out). *h is what mt_rec_publish() needs once the size
 * bytes are written, so the caller reloads nothing.
 *
 * Room is checked against limit: placeholders and closed files keep it at
 * 0, and so does every file without a TSC clock, so those records all go
 * through the slow path (and mt_rec_now) and the inline paths need not
 * test the clock. So does a thread with retries to record (mt_rec_op_end).
 * A thread already inside a record (a signal handler interrupted it) takes
 * the slow path too, which counts the record lost.
 */
static inline void *mt_rec_try(size_t size, struct mt_file_hdr **h)
{
	const struct mt_rec_buf *b;
	uint64_t off;

	if (MT_UNLIKELY(!mt_rec_enter_free()))
		return NULL;
	b = mt_rec_tls.buf;
	off = b->hdr->committed;
	if (MT_UNLIKELY(off + size > b->limit)) {
		mt_rec_leave();
		return NULL;
	}
	*h = b->hdr;
	return mt_rec_at(b, off);
}

/*
 * mt_rec_try() of one OP, for a posting hook, which forwards its arguments
 * once the record is published. On x86-64 the same steps are one asm
 * block working in rax, r10 and r11, registers no argument is passed in,
 * and the record comes out in a register of the compiler's choice (one the
 * provider's call preserves). Written in C, gcc took argument registers
 * for the reservation and moved arguments out and back around it (six
 * moves), and trecv saved five callee-saved registers (three now).
 * The thread's flag is left as mt_rec_try() leaves it: set on success,
 * still set when the thread was inside a record already, clear again when
 * there was no room.
 */
static inline struct mt_rec_op *mt_rec_try_op(struct mt_file_hdr **h)
{
#if defined(__x86_64__)
	register struct mt_file_hdr *hd __asm__("r11");
	register const struct mt_rec_buf *b __asm__("r10");
	uint64_t scratch;
	char *r;

	__asm__ goto("mov mt_rec_tls@gottpoff(%%rip), %[tmp]\n\t"
		     "btsl $0, %%fs:%c[busy](%[tmp])\n\t"
		     "jc %l[inside]\n\t"
		     "mov %%fs:%c[buf](%[tmp]), %[b]\n\t"
		     "mov %c[hdr](%[b]), %[hd]\n\t"
		     "mov %c[committed](%[hd]), %[r]\n\t"
		     "lea %c[size](%[r]), %[tmp]\n\t"
		     "cmp %[tmp], %c[limit](%[b])\n\t"
		     "jb %l[full]\n\t"
		     "lea %c[data](%[hd],%[r]), %[r]"
		     : [tmp] "=&a"(scratch), [b] "=&r"(b), [hd] "=&r"(hd),
		       [r] "=&r"(r)
		     : [busy] "i"(offsetof(struct mt_rec_tls, busy)),
		       [buf] "i"(offsetof(struct mt_rec_tls, buf)),
		       [hdr] "i"(offsetof(struct mt_rec_buf, hdr)),
		       [limit] "i"(offsetof(struct mt_rec_buf, limit)),
		       [committed] "i"(offsetof(struct mt_file_hdr, committed)),
		       [data] "i"(MT_FILE_HDR_SIZE),
		       [size] "i"(sizeof(struct mt_rec_op))
		     : "cc", "memory"
		     : inside, full);
	(void)scratch;
	if (!r)		/* a mapping is never at 0: no test of r */
		__builtin_unreachable();
	*h = hd;
	return (struct mt_rec_op *)r;
full:
	mt_rec_leave();
inside:
	return NULL;
#else
	return mt_rec_try(sizeof(struct mt_rec_op), h);
#endif
}

/* Room for size bytes: the inline case, else the slow path. */
static inline void *mt_rec_reserve(size_t size)
{
	struct mt_file_hdr *h;
	void *r = mt_rec_try(size, &h);

	return MT_LIKELY(r != NULL) ? r : mt_rec_slow(size);
}

/* The first 8 bytes of a record header as one word (the format is
 * little-endian): hooks compute theirs when the object is opened. */
static inline uint64_t mt_rec_hdr_word(uint8_t type, uint8_t layer,
				       uint16_t size, uint32_t aux)
{
	return type | (uint64_t)layer << 8 | (uint64_t)size << 16 |
	       (uint64_t)aux << 32;
}

/* ... stored in one store. */
static inline void mt_rec_hdr_store(struct mt_rec_hdr *h, uint64_t w)
{
	memcpy(h, &w, sizeof(w));
}

static inline void mt_rec_hdr_set(struct mt_rec_hdr *h, uint8_t type,
				  uint8_t layer, uint16_t size, uint32_t aux,
				  uint64_t ts)
{
	mt_rec_hdr_store(h, mt_rec_hdr_word(type, layer, size, aux));
	h->ts = ts;
}

/* Arguments of one posting call, as the hooks collect them. */
struct mt_rec_opargs {
	uint64_t ep, addr, tag, ignore, len, data, context, flags;
};

/* Everything of an OP but its header; zero: r is zero (MT_REC_PUT). */
static inline void mt_rec_op_fill(struct mt_rec_op *r, int zero,
				  const struct mt_rec_opargs *a, uint32_t retries)
{
	MT_REC_PUT(zero, r->ep, a->ep);
	MT_REC_PUT(zero, r->addr, a->addr);
	MT_REC_PUT(zero, r->tag, a->tag);
	MT_REC_PUT(zero, r->ignore, a->ignore);
	MT_REC_PUT(zero, r->len, a->len);
	MT_REC_PUT(zero, r->data, a->data);
	MT_REC_PUT(zero, r->context, a->context);
	MT_REC_PUT(zero, r->flags, a->flags);
	r->ret = MT_OP_RET_PENDING;
	MT_REC_PUT(zero, r->retries, retries);
}

/*
 * A posting call is recorded whole and published before it is made, with
 * ret = MT_OP_RET_PENDING (timestamp first, so the arguments need not
 * survive the call); mt_rec_op_end() stores the return value into the
 * published record. A process that dies inside the call leaves PENDING.
 * -FI_EAGAIN (again != 0) goes to mt_rec_op_again(), out of line, which
 * also closes the inline paths until the next record went through here:
 * only this path moves the thread's retry count into a record.
 * Returns NULL when the record was lost (no room): the call still runs.
 * size: sizeof(struct mt_rec_op), or of struct mt_rec_op_site with the call
 * site index site (mt_site.h).
 */
static inline MT_INLINE struct mt_rec_op *
mt_rec_op_begin_n(uint8_t layer, enum mt_op op, const struct mt_rec_opargs *a,
		  uint16_t size, uint32_t site)
{
	uint64_t ts = mt_rec_now();
	struct mt_rec_op *r = mt_rec_reserve(size);

	if (MT_UNLIKELY(!r))
		return NULL;
	mt_rec_hdr_set(&r->h, MT_REC_OP, layer, size, op, ts);
	mt_rec_op_fill(r, 0, a, mt_rec_tls.retries);
	if (size > sizeof(*r)) {	/* struct mt_rec_op_site: call sites on */
		struct mt_rec_op_site *s = (struct mt_rec_op_site *)r;

		s->site = site;
		s->pad = 0;
	}
	mt_rec_commit(size);
	if (MT_UNLIKELY(mt_rec_tls.retries)) {
		mt_rec_tls.retries = 0;
		mt_rec_reopen();
	}
	return r;
}

static inline MT_INLINE struct mt_rec_op *
mt_rec_op_begin(uint8_t layer, enum mt_op op, const struct mt_rec_opargs *a)
{
	return mt_rec_op_begin_n(layer, op, a, sizeof(struct mt_rec_op), 0);
}

/*
 * mt_rec_op_begin() for a record mt_rec_try_op() reserved (r, h): the
 * hooks' inline path, which calls nothing. The clock is read once the
 * record is reserved, into the record: its halves need no register after.
 * It is read after the fill, whose constant-0 stores MT_REC_PUT would no
 * longer see as constant past the stamp's memory outputs. hdr is the record's first word (mt_rec_hdr_word), a constant of the
 * hooked object that the hook loads only once the record is reserved, so
 * that it holds no register before.
 */
static inline void mt_rec_op_put(struct mt_rec_op *r, struct mt_file_hdr *h,
				 uint64_t hdr, const struct mt_rec_opargs *a)
{
	mt_rec_hdr_store(&r->h, hdr);
	mt_rec_op_fill(r, 1, a, 0);
	mt_rec_stamp_args(&r->h);
	mt_rec_publish(h, sizeof(*r));
}

/* The call returned: its value goes into the published record, and is
 * returned (mt_rec_op_again returns it too, so that the hook tail-calls it
 * and keeps nothing but r across the provider's call). */
static inline ssize_t mt_rec_op_end(struct mt_rec_op *r, ssize_t ret,
				    int again)
{
	if (MT_UNLIKELY(again))
		return mt_rec_op_again(r, ret);
	if (MT_LIKELY(r != NULL))
		r->ret = (int32_t)ret;
	return ret;
}

/* A CQ read returned no entry: counted in the thread's own counter (one
 * add, no test), which reaches the header of the thread's file when the
 * file is finished (mt_buf.c). Relaxed atomics: mt_rec_fini() reads the
 * counters of threads still running. */
static inline void mt_rec_empty_poll(void)
{
	__atomic_store_n(&mt_rec_tls.empty_polls,
			 __atomic_load_n(&mt_rec_tls.empty_polls,
					 __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

#endif /* MT_REC_H */
