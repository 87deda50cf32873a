/*
 * clock.c - the map from trace clock ticks to CLOCK_MONOTONIC nanoseconds.
 *
 * Per process first (mt_trace_clock_setup): with START and END calibration
 * pairs the map is the line through them (exact for an invariant TSC,
 * whatever clock_hz estimated). With START only it starts there with slope
 * 1e9/clock_hz; with no START it is ticks * 1e9/clock_hz. Without a PROC
 * record ticks are taken as ns.
 *
 * Then per host (mt_trace_clock_host): the processes of one host that count
 * the invariant TSC read one clock, so they get one map, the line through
 * the host's earliest and latest calibration pairs of any process and
 * thread. Each process's own clock_hz is measured over ~5 ms at its start
 * and is off by up to hundreds of ppm on a loaded machine, and a killed
 * process leaves no END pair: two processes of one host converting with
 * their own rates disagree by tens of us within seconds. With one map their
 * times agree as the TSC does. When the host's pairs span too little time
 * for a rate (killed right after start), the median of their clock_hz
 * serves, the same for all.
 */
#include <stdlib.h>

#include "trace_int.h"

#define NS_PER_S 1000000000ull

/* Pairs closer than this give a rate no better than clock_hz: a pair's
 * two reads are ~50 ns apart, up to a few us on a loaded machine. */
#define HOST_SPAN_NS 50000000ull

/* ns per tick as mult / 2^shift with the most bits that fit; 0 if none. */
static int slope(struct mt_trace_clock *c, uint64_t ns, uint64_t ticks)
{
	unsigned __int128 m;
	int shift = 64;

	if (!ticks || !ns)
		return 0;
	/* ns < 2^63 keeps ns << 64 inside 128 bits. */
	if (ns >> 63)
		return 0;
	for (; shift >= 0; shift--) {
		m = (((unsigned __int128)ns << shift) + ticks / 2) / ticks;
		if (!(m >> 64))
			break;
	}
	if (shift < 0 || !m)
		return 0;
	c->mult = (uint64_t)m;
	c->shift = (uint32_t)shift;
	return 1;
}

/* The line through pairs a and b, if they span ns and ticks forward. */
static int through(struct mt_trace_clock *c, const struct mt_rec_clock *a,
		   const struct mt_rec_clock *b, uint64_t min_ns)
{
	if (!a || !b || b->h.ts <= a->h.ts || b->monotonic_ns < a->monotonic_ns ||
	    b->monotonic_ns - a->monotonic_ns < min_ns ||
	    !slope(c, b->monotonic_ns - a->monotonic_ns, b->h.ts - a->h.ts))
		return 0;
	c->kind = MT_TRACE_CLOCK_PAIRS;
	c->base_ticks = a->h.ts;
	c->base_ns = (int64_t)a->monotonic_ns;
	return 1;
}

/* Starts at pair s (if any) with slope 1e9 / hz. */
static void from_hz(struct mt_trace_clock *c, const struct mt_rec_clock *s,
		    uint64_t hz)
{
	c->kind = MT_TRACE_CLOCK_HZ;
	slope(c, NS_PER_S, hz);
	if (s) {
		c->base_ticks = s->h.ts;
		c->base_ns = (int64_t)s->monotonic_ns;
	}
}

void mt_trace_clock_setup(struct mt_trace_proc *p)
{
	struct mt_trace_clock *c = &p->clock;

	*c = (struct mt_trace_clock){ MT_TRACE_CLOCK_RAW, 0, 1, 0, 0 };
	if (!p->rec)
		return;
	if (!through(c, p->clock_start, p->clock_end, 0))
		from_hz(c, p->clock_start, p->rec->clock_hz);
}

static int on_tsc(const struct mt_trace_proc *p)
{
	return p->rec && p->rec->clock_source == MT_CLOCK_TSC && p->clock_start &&
	       p->rec->clock_hz;
}

/* Widens [*lo, *hi] to every calibration pair of p, any thread and phase. */
static void widen(const struct mt_trace_proc *p, const struct mt_rec_clock **lo,
		  const struct mt_rec_clock **hi)
{
	for (size_t i = 0; i < p->nfiles; i++)
		for (size_t j = 0; j < p->files[i]->nsetup; j++) {
			const struct mt_rec_hdr *r = mt_trace_file_setup(p->files[i], j);

			if (r->type != MT_REC_CLOCK)
				continue;
			if (!*lo || r->ts < (*lo)->h.ts)
				*lo = (const struct mt_rec_clock *)r;
			if (!*hi || r->ts > (*hi)->h.ts)
				*hi = (const struct mt_rec_clock *)r;
		}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The median clock_hz of the n processes on the TSC; 0 out of memory. */
static uint64_t median_hz(const struct mt_trace_proc *procs, size_t n)
{
	uint64_t *hz = malloc((n + 1) * sizeof(*hz)), m;
	size_t k = 0;

	if (!hz)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (on_tsc(&procs[i]))
			hz[k++] = procs[i].rec->clock_hz;
	mt_trace_sort(hz, k, sizeof(*hz), cmp_u64);
	m = k ? hz[k / 2] : 0;
	free(hz);
	return m;
}

enum mt_status mt_trace_clock_host(struct mt_trace_proc *procs, size_t n)
{
	const struct mt_rec_clock *lo = NULL, *hi = NULL;
	struct mt_trace_clock host = { 0 };
	size_t on = 0;

	for (size_t i = 0; i < n; i++)
		if (on_tsc(&procs[i])) {
			widen(&procs[i], &lo, &hi);
			on++;
		}
	if (!through(&host, lo, hi, HOST_SPAN_NS)) {
		/* A process alone keeps its own pairs, however close. */
		if (on <= 1)
			return MT_OK;
		uint64_t hz = median_hz(procs, n);

		if (!hz)
			return MT_ERR_NOMEM;
		from_hz(&host, lo, hz);
	}
	for (size_t i = 0; i < n; i++)
		if (on_tsc(&procs[i]))
			procs[i].clock = host;
	return MT_OK;
}

int mt_trace_proc_window(const struct mt_trace_proc *p, int64_t *start_ns)
{
	int wrapped = 0;

	for (size_t i = 0; i < p->nfiles; i++) {
		const struct mt_trace_file *f = p->files[i];
		int64_t start;

		if (!f->wrapped || !f->oldest_ts)
			continue;
		start = mt_trace_ticks_ns(&p->clock, f->oldest_ts) + p->merge_offset_ns;
		if (!wrapped || start > *start_ns)
			*start_ns = start;
		wrapped = 1;
	}
	return wrapped;
}
