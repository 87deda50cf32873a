/*
 * mt_site.h - call sites (FI_OFI_HOOK_MSGTRACE_CALLSITE=1): where the
 * application called MPI for each posting call.
 *
 * The hook installs call-site variants of the posting entries only when the
 * option is on (hook_ep.c), so with it off the hot path is unchanged. A
 * variant unwinds the stack (libunwind's unw_backtrace, measured far
 * quicker than libgcc's _Unwind_Backtrace: bench/bench_unwind.c), classifies each return address by the loaded
 * object it lies in (skipped: libfabric, the MPI library, the hook; else the
 * application's) and takes the first application address plus the last
 * skipped one before it (inside the MPI entry point). Distinct pairs go into
 * a per-thread table, each new one written once as MT_REC_SITE (after the
 * MT_REC_MAP records of the objects it lies in that the thread has not
 * written yet); the OP record carries the index (struct mt_rec_op_site).
 *
 * Which objects are skipped is a classification of loaded objects, not of
 * MPI semantics: an object defining PMPI_Init or MPI_Init, the hook's and
 * libfabric's own objects, and objects whose file name matches one of the
 * patterns of FI_OFI_HOOK_MSGTRACE_CALLSITE_SKIP (fnmatch, ':'-separated;
 * default MT_SITE_SKIP_DEFAULT). An object is classified the first time one
 * of a thread's frames lies in it (out of line, through dl_iterate_phdr);
 * later frames in it cost a lookup in the thread's small object cache.
 */
#ifndef MT_SITE_H
#define MT_SITE_H

#include <stdint.h>

#include "mt_rec.h"

#define MT_SITE_SKIP_DEFAULT \
	"libmpi*:libopen-*:mca_*:libpmix*:libmpich*:libfabric*:libmsgtrace-fi*:" \
	"libucp*:libucs*:libuct*:libpsm*:libhcoll*:libnccl*"

/* The thread's site table: open addressing over (app, entry), indexes
 * 1..n in insertion order. Preallocated; full: MT_SITE_LOST. */
struct mt_site_tab {
	uint32_t n;
	uint32_t lost;			/* lookups that found the table full */
	struct mt_site_key {
		uint64_t app, entry;
	} key[MT_SITE_MAX];		/* key[i - 1] is site i */
	uint16_t slot[MT_SITE_MAX * 2];	/* site index, 0: empty */
};

/*
 * The site index of (app, entry) in t; *fresh set when it was added by
 * this call (its record is then due). MT_SITE_LOST when t is full.
 */
uint32_t mt_hook_site_tab_get(struct mt_site_tab *t, uint64_t app, uint64_t entry,
			 int *fresh);

/* Turns call sites on: the skip patterns (NULL: the default). 0, or -1
 * (no thread key or fork handler: call sites stay off). */
int mt_hook_site_init(const char *skip);
extern int mt_hook_site_on;

/* The calling thread's current call site, its records written if new. */
uint32_t mt_hook_site_here(void);

/* mt_rec_op_begin() for an OP carrying the current call site. */
static inline MT_INLINE struct mt_rec_op *
mt_hook_site_op_begin(uint8_t layer, enum mt_op op,
		      const struct mt_rec_opargs *a)
{
	uint32_t site = mt_hook_site_here();

	return mt_rec_op_begin_n(layer, op, a,
				 sizeof(struct mt_rec_op_site), site);
}

#endif /* MT_SITE_H */
