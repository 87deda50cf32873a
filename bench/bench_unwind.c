/*
 * bench_unwind.c - the choice of unwinder for call sites
 * (FI_OFI_HOOK_MSGTRACE_CALLSITE): libgcc's _Unwind_Backtrace against
 * libunwind's unw_backtrace, each walking the whole stack from a chain of
 * DEPTH calls, the two interleaved in the same run. Prints ns per unwind
 * (median of RUNS) and the ratio.
 *
 *   bench_unwind [DEPTH [COUNT]]
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unwind.h>

#define RUNS 5

enum { LIBGCC, LIBUNWIND, UNWINDERS };

static int which;
static volatile unsigned long sink;

static _Unwind_Reason_Code frame(struct _Unwind_Context *c, void *arg)
{
	(*(int *)arg)++;
	sink += _Unwind_GetIP(c);
	return _URC_NO_REASON;
}

static __attribute__((noinline)) int unwind(void)
{
	void *ip[64];
	int n = 0;

	if (which == LIBGCC)
		_Unwind_Backtrace(frame, &n);
	else
		n = unw_backtrace(ip, 64);
	return n;
}

static __attribute__((noinline)) int chain(int depth)
{
	int n = depth ? chain(depth - 1) : unwind();

	__asm__ volatile("");
	return n;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	static const char *const name[] = { "libgcc _Unwind_Backtrace",
					    "libunwind unw_backtrace" };
	int depth = argc > 1 ? atoi(argv[1]) : 8;
	long count = argc > 2 ? atol(argv[2]) : 20000;
	double ns[UNWINDERS][RUNS];
	int frames[UNWINDERS];

	for (int r = 0; r < RUNS; r++)
		for (which = 0; which < UNWINDERS; which++) {
			double t0;

			frames[which] = chain(depth);	/* warm the caches */
			t0 = now_ns();
			for (long i = 0; i < count; i++)
				chain(depth);
			ns[which][r] = (now_ns() - t0) / (double)count;
		}
	for (which = 0; which < UNWINDERS; which++) {
		qsort(ns[which], RUNS, sizeof(double), cmp);
		printf("%-26s %3d frames %10.0f ns per unwind (median of %d)\n",
		       name[which], frames[which], ns[which][RUNS / 2], RUNS);
	}
	printf("libgcc / libunwind: x%.1f\n", ns[LIBGCC][RUNS / 2] / ns[LIBUNWIND][RUNS / 2]);
	return 0;
}
