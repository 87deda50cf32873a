/*
 * bench_fabric - cost of the msgtrace hook on the tagged fast path.
 *
 * One process, one RDM endpoint (default provider tcp;ofi_rxm) sending to
 * itself: each iteration posts fi_trecv, fi_tinject of 8 bytes with the
 * same tag, and polls fi_cq_read until the receive completes. Run it with
 * FI_HOOK unset, =noop and =msgtrace to compare (bench/overhead.sh).
 * A traced iteration writes three records: TRECV, TINJECT, one CQE.
 *
 *   bench_fabric [-n ITERS] [-p PROVIDER]   time the loop, print ns/iter
 *   bench_fabric --floor [-n ITERS]         time rdtsc + one 88-byte record
 *                                           store + release: the floor
 * Output: one line "ns_per_iter <x> iters <n> empty_polls <m> cpu_ns_per_iter <c>":
 * wall time, and the CPU time of the timing thread (CLOCK_THREAD_CPUTIME_ID,
 * user + system: the page faults and growth the recording thread pays are
 * in it, while time another process holds the core is not), which stays
 * comparable between modes when the machine is loaded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "fabep.h"
#include "mt_format.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A time span in both clocks, printed as the output line. */
struct span {
	uint64_t wall, cpu;
};

static struct span span_start(void)
{
	return (struct span){ clock_ns(CLOCK_MONOTONIC),
			      clock_ns(CLOCK_THREAD_CPUTIME_ID) };
}

static void span_print(struct span s, long iters, long empty)
{
	printf("ns_per_iter %.2f iters %ld empty_polls %ld cpu_ns_per_iter %.2f\n",
	       (double)(clock_ns(CLOCK_MONOTONIC) - s.wall) / (double)iters,
	       iters, empty,
	       (double)(clock_ns(CLOCK_THREAD_CPUTIME_ID) - s.cpu) / (double)iters);
}

static void die(const char *what, int ret)
{
	fprintf(stderr, "bench_fabric: %s: %s\n", what, fi_strerror(-ret));
	exit(1);
}

/* A loop callgrind --toggle-collect counts by name: never inlined, nor
 * cloned under another name by gcc (clang has no noclone, and no such
 * clones). */
#ifdef __clang__
#define COUNTED_LOOP __attribute__((noinline))
#else
#define COUNTED_LOOP __attribute__((noinline, noclone))
#endif

/* The floor: what one recorded op costs at least (clock read, an
 * mt_rec_op-sized store, the release of 'committed'). noinline so that
 * callgrind --toggle-collect can count exactly this loop. */
static COUNTED_LOOP void floor_loop(long iters, struct mt_rec_op *ring,
						 size_t nring, uint64_t *committed)
{
	long i;

	for (i = 0; i < iters; i++) {
		struct mt_rec_op *r = &ring[(size_t)i % nring];

		r->h.type = MT_REC_OP;
		r->h.layer = 0;
		r->h.size = sizeof(*r);
		r->h.aux = MT_OP_TINJECT;
		r->h.ts = __builtin_ia32_rdtsc();
		r->ep = (uint64_t)i;
		r->addr = 0;
		r->tag = (uint64_t)i;
		r->ignore = 0;
		r->len = 8;
		r->data = 0;
		r->context = 0;
		r->flags = 0;
		r->ret = 0;
		r->retries = 0;
		__atomic_store_n(committed, (uint64_t)i * sizeof(*r), __ATOMIC_RELEASE);
	}
}

static int run_floor(long iters)
{
	size_t nring = 1 << 14;
	struct mt_rec_op *ring = calloc(nring, sizeof(*ring));
	uint64_t committed = 0;
	struct span s;

	if (!ring)
		return 1;
	floor_loop(nring, ring, nring, &committed);	/* fault the pages in */
	s = span_start();
	floor_loop(iters, ring, nring, &committed);
	span_print(s, iters, 0);
	free(ring);
	return 0;
}

/* The endpoint and its own address in its address vector. */
struct fab {
	struct fabep ep;
	fi_addr_t self;
};

/* As the OFI MTL does: sends complete only when asked (inject never does),
 * every receive completes. */
static void open_fabric(struct fab *f, const char *prov)
{
	const char *what;
	int ret = fabep_open(&f->ep, prov, NULL, FI_SELECTIVE_COMPLETION, &what);

	if (ret)
		die(what, ret);
	if (fi_av_insert(f->ep.av, f->ep.name, 1, &f->self, 0, NULL) != 1)
		die("fi_av_insert", -FI_EOTHER);
}

/* One iteration: post the receive, inject the message, poll until the
 * receive completes. Returns the number of empty polls. */
static COUNTED_LOOP long pingself_loop(struct fab *f, long iters)
{
	struct fi_context ctx[2];
	struct fi_cq_tagged_entry e;
	uint64_t out = 0, in = 0;
	long i, empty = 0;
	ssize_t ret;

	for (i = 0; i < iters; i++) {
		uint64_t tag = (uint64_t)i & 0xffff;

		while ((ret = fi_trecv(f->ep.ep, &in, sizeof(in), NULL, f->self, tag,
				       0, &ctx[0])) == -FI_EAGAIN)
			fi_cq_read(f->ep.cq, &e, 1);
		if (ret)
			die("fi_trecv", (int)ret);
		out = (uint64_t)i;
		while ((ret = fi_tinject(f->ep.ep, &out, sizeof(out), f->self, tag)) ==
		       -FI_EAGAIN)
			fi_cq_read(f->ep.cq, &e, 1);
		if (ret)
			die("fi_tinject", (int)ret);
		while ((ret = fi_cq_read(f->ep.cq, &e, 1)) == -FI_EAGAIN)
			if (++empty > 100000000L)
				die("no completion", (int)ret);
		if (ret != 1 || e.op_context != &ctx[0] || in != (uint64_t)i)
			die("completion", ret < 0 ? (int)ret : -FI_EOTHER);
	}
	return empty;
}

int main(int argc, char **argv)
{
	const char *prov = "tcp;ofi_rxm";
	long iters = 200000, empty;
	int floor = 0, i;
	struct span s;
	struct fab f;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			prov = argv[++i];
		else if (!strcmp(argv[i], "--floor"))
			floor = 1;
		else {
			fprintf(strcmp(argv[i], "--help") ? stderr : stdout,
				"usage: bench_fabric [-n ITERS] [-p PROVIDER] [--floor]\n");
			return strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	if (iters <= 0) {
		fprintf(stderr, "bench_fabric: -n must be positive\n");
		return 2;
	}
	if (floor)
		return run_floor(iters);
	open_fabric(&f, prov);
	pingself_loop(&f, iters / 10 + 1);	/* connect, warm caches */
	s = span_start();
	empty = pingself_loop(&f, iters);
	span_print(s, iters, empty);
	fabep_close(&f.ep);
	return 0;
}
