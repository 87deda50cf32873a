/*
 * clock.c - the per-process map from trace clock ticks to CLOCK_MONOTONIC
 * nanoseconds.
 *
 * With START and END calibration pairs the map is the line through them
 * (exact for an invariant TSC, whatever clock_hz estimated). With START
 * only it starts there with slope 1e9/clock_hz; with no START it is
 * ticks * 1e9/clock_hz. Without a PROC record ticks are taken as ns.
 */
#include "trace_int.h"

#define NS_PER_S 1000000000ull

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

void mt_trace_clock_setup(struct mt_trace_proc *p)
{
	const struct mt_rec_clock *s = p->clock_start, *e = p->clock_end;
	struct mt_trace_clock *c = &p->clock;

	*c = (struct mt_trace_clock){ MT_TRACE_CLOCK_RAW, 0, 1, 0, 0 };
	if (!p->rec)
		return;
	if (s && e && e->h.ts > s->h.ts && e->monotonic_ns >= s->monotonic_ns &&
	    slope(c, e->monotonic_ns - s->monotonic_ns, e->h.ts - s->h.ts)) {
		c->kind = MT_TRACE_CLOCK_PAIRS;
		c->base_ticks = s->h.ts;
		c->base_ns = (int64_t)s->monotonic_ns;
		return;
	}
	c->kind = MT_TRACE_CLOCK_HZ;
	slope(c, NS_PER_S, p->rec->clock_hz);
	if (s) {
		c->base_ticks = s->h.ts;
		c->base_ns = (int64_t)s->monotonic_ns;
	}
}
