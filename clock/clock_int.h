/*
 * clock_int.h - what the clock-correction stages (clock/clock_*.c) share.
 * Private to clock/. Each stage reads the input through struct clk and
 * works on the caller's output arrays, which always hold the current
 * timestamps: a copy of the input, then the linear map, then the CLC.
 */
#ifndef MT_CLOCK_INT_H
#define MT_CLOCK_INT_H

#include "mt_clock.h"

struct clk {
	const struct mt_clock_opts *o;
	uint32_t np;
	const struct mt_clock_proc *procs;
	uint64_t nm;
	const struct mt_clock_msg *msgs;
	int64_t *const *out;
	struct mt_clock_result *res;
	struct mt_err *err;
	uint32_t *msg_link;	/* per message: index into res->links */
	/* The message form (mt_clock_correct_at_rest), instead of msgs,
	 * procs[].t and out: nm entries of times, none moved. */
	const struct mt_clock_times *tm;
};

/* A message as the per-message stages see it: its processes, and its send
 * and receive times (recorded, or as corrected so far). */
struct clk_trip {
	uint32_t from, to;
	int64_t sent, recvd;
};

/* Message i; now: its times in c->out. 0: the entry is no message (the
 * message form's entries without a send post or a receive completion of
 * a known process). */
static inline int clk_trip(const struct clk *c, uint64_t i, int now,
			   struct clk_trip *e)
{
	const struct mt_clock_msg *m;

	if (c->tm) {
		const struct mt_clock_times *t = &c->tm[i];

		*e = (struct clk_trip){ t->send_proc, t->recv_proc,
					t->t[MT_CLOCK_SEND_POST],
					t->t[MT_CLOCK_RECV_DONE] };
		return e->from != MT_CLOCK_NOPROC && e->to != MT_CLOCK_NOPROC &&
		       e->sent != MT_CLOCK_NOTIME && e->recvd != MT_CLOCK_NOTIME;
	}
	m = &c->msgs[i];
	*e = (struct clk_trip){
		m->send_proc, m->recv_proc,
		now ? c->out[m->send_proc][m->send_ev] :
		      c->procs[m->send_proc].t[m->send_ev],
		now ? c->out[m->recv_proc][m->recv_ev] :
		      c->procs[m->recv_proc].t[m->recv_ev],
	};
	return 1;
}

/* Nearest integer, halves away from zero, without a branch; inline where
 * llround is a libm call (it must set errno), for the per-event loops.
 * Clamped to +-9.2e18 by comparisons (fmin/fmax stay libm calls without
 * -ffinite-math-only; NaN fails x <= max and gives the top): a corrupt
 * trace's times must not make the conversion undefined (fuzz,
 * tests/fuzz/regress/clock-round-range). */
static inline int64_t clk_round(double x)
{
	x = !(x <= 9.2e18) ? 9.2e18 : x < -9.2e18 ? -9.2e18 : x;
	return (int64_t)(x + __builtin_copysign(0.5, x));
}

/* The linear map of a domain, applied to a recorded timestamp (wrapping,
 * not overflowing, on corrupt input). */
static inline int64_t clk_linear(const struct mt_clock_domain *d, int64_t t0,
				 int64_t t)
{
	return (int64_t)((uint64_t)t -
			 (uint64_t)clk_round(d->offset_ns + d->drift_ppm * 1e-6 *
					     ((double)t - (double)t0)));
}

/* The process whose event time w of m is, and whether it is known. */
static inline uint32_t clk_times_owner(const struct mt_clock_times *m, unsigned w)
{
	return w < MT_CLOCK_RECV_POST ? m->send_proc : m->recv_proc;
}

static inline int clk_times_has(const struct mt_clock_times *m, unsigned w)
{
	return m->t[w] != MT_CLOCK_NOTIME && clk_times_owner(m, w) != MT_CLOCK_NOPROC;
}

/* nevents[p] += the known event times of process p among n entries
 * (nevents zeroed by the caller); MT_ERR_ARG names an entry whose
 * process is >= nprocs, or a process of 2^32 - 1 events or more. */
enum mt_status mt_clock_count_events(uint32_t nprocs,
				     const struct mt_clock_times *m, uint64_t n,
				     uint64_t *nevents, struct mt_err *err);

/*
 * mt_clock_correct on n entries of message times in the message form,
 * while no time moves (mode none, or auto on one clock domain that holds
 * with every receive after its send). MT_END, res empty: times would
 * move, the caller builds the event graph and calls mt_clock_correct.
 */
enum mt_status mt_clock_correct_at_rest(enum mt_clock_mode mode,
					const struct mt_clock_opts *opts,
					uint32_t nprocs,
					const struct mt_clock_proc *procs,
					const struct mt_clock_times *t, uint64_t n,
					struct mt_clock_result *res,
					struct mt_err *err);

/* The time offsets refer to: the middle of the run's events, lo to hi
 * (0 when there are none). */
int64_t mt_clock_middle(int64_t lo, int64_t hi);

/* Key of an ordered or unordered pair of domains. */
static inline uint64_t clk_pair_key(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

/* The processes of message i, for looking ahead: 0 when one is unknown
 * (clk_trip: the message form's entries). */
static inline int clk_trip_procs(const struct clk *c, uint64_t i,
				 uint32_t *from, uint32_t *to)
{
	if (c->tm) {
		*from = c->tm[i].send_proc;
		*to = c->tm[i].recv_proc;
		return *from != MT_CLOCK_NOPROC && *to != MT_CLOCK_NOPROC;
	}
	*from = c->msgs[i].send_proc;
	*to = c->msgs[i].recv_proc;
	return 1;
}

/* Open-addressing map from a pair key to a dense index (0, 1, 2, ...).
 * A key and its index share a slot: a lookup in a table larger than the
 * cache costs one miss, not two. */
struct clk_pair_slot {
	uint64_t key;
	uint64_t idx;
};

struct clk_pairs {
	struct clk_pair_slot *slots;
	uint32_t *dense;	/* side > 0: a side x side table of indices */
	uint64_t mask;
	uint32_t n;
	uint32_t side;
	int huge;		/* slots in transparent huge pages */
};

static inline uint64_t clk_pairs_slot(uint64_t key, uint64_t mask)
{
	return (key * 0x9E3779B97F4A7C15ull) >> 20 & mask;
}

static inline uint32_t *clk_pairs_dense(const struct clk_pairs *m, uint64_t key)
{
	return &m->dense[(size_t)(key >> 32) * m->side + (uint32_t)key];
}

/* Where key's lookup starts: a loop over messages in no particular order
 * of pairs prefetches it CLK_AHEAD messages ahead (__builtin_prefetch at
 * the call: in a function of its own GCC takes it for one without effect
 * and drops the call), so that the lookup finds it in the cache. */
#define CLK_AHEAD 16
static inline const void *clk_pairs_start(const struct clk_pairs *m, uint64_t key)
{
	if (m->side)
		return clk_pairs_dense(m, key);
	return &m->slots[clk_pairs_slot(key, m->mask)];
}

/* A map for about 'expect' keys whose halves are below 'side' (0: any):
 * a dense table when side is small, else open addressing, its slots in
 * transparent huge pages if huge (mt_clock_alloc_big). Not for a table
 * filled while other work runs (mt_clock_rest, beside the matcher): on a
 * virtual machine here, the matcher's lookups and the trace's address
 * lookups took twice as long while the table grew in huge pages. */
enum mt_status mt_clock_pairs_init(struct clk_pairs *m, uint64_t expect,
				   uint32_t side, int huge);
/* Index of key, inserting it if new; UINT32_MAX when out of memory. */
uint32_t mt_clock_pairs_get(struct clk_pairs *m, uint64_t key);
/* Index of key, or UINT32_MAX when absent. */
uint32_t mt_clock_pairs_find(const struct clk_pairs *m, uint64_t key);
void mt_clock_pairs_free(struct clk_pairs *m);

/* malloc for the per-message arrays (tens to hundreds of MiB): asks for
 * transparent huge pages, which cuts the page faults of filling them by a
 * factor 512 where the kernel grants them. Free with free(). */
void *mt_clock_alloc_big(size_t bytes);

/* Log-linear histogram of non-negative values: exact max, median within
 * 1/64 relative. */
#define CLK_HIST_SUB 64
#define CLK_HIST_BUCKETS (CLK_HIST_SUB * 60)
struct clk_hist {
	uint64_t n;
	int64_t max;
	uint64_t count[CLK_HIST_BUCKETS];
};

void mt_clock_hist_add(struct clk_hist *h, int64_t v);
int64_t mt_clock_hist_median(const struct clk_hist *h);

/* Stage 1: res->domains and res->proc_domain from host and clock source,
 * split where messages inside a domain contradict a shared clock; counts
 * res->viol_before on the way. */
enum mt_status mt_clock_domains(struct clk *c);
/* Stage 2: offset and drift per domain, applied to c->out. */
enum mt_status mt_clock_linear_map(struct clk *c);
/* Minimum latency per ordered pair of domains (res->links, c->msg_link),
 * measured on c->out; counts res->viol_linear on the way. */
enum mt_status mt_clock_links(struct clk *c);
/* res->domains[].agree_*: how well a held domain's processes agree. */
enum mt_status mt_clock_agreement(struct clk *c);
/* Stage 3: the controlled logical clock on c->out. */
enum mt_status mt_clock_clc(struct clk *c);
/* Messages whose receive is not after the send, on c->out. */
uint64_t mt_clock_violations(const struct clk *c);
/* Correction and interval figures of res, from input and c->out. */
enum mt_status mt_clock_report(struct clk *c);

#endif /* MT_CLOCK_INT_H */
