/*
 * clock_util.c - the two small containers the clock stages share: a map from
 * domain pairs to dense indices and a log-linear histogram for medians over
 * millions of values without sorting them.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "clock_int.h"

#define HUGE_PAGE (2u << 20)

void *mt_clock_alloc_big(size_t bytes)
{
	void *p;

	if (bytes < HUGE_PAGE)
		return malloc(bytes ? bytes : 1);
	bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
	p = aligned_alloc(HUGE_PAGE, bytes);
	/* Advice only: without it the memory works the same, in 4 KiB pages. */
	if (p)
		madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

#define EMPTY UINT64_MAX

/* Up to this many domains a pair's index is one load from a dense table
 * (4 MiB at most): the per-message lookups dominate otherwise. */
#define DENSE_SIDE 1024

enum mt_status mt_clock_pairs_init(struct clk_pairs *m, uint64_t expect,
				   uint32_t side, int huge)
{
	uint64_t cap = 16;

	m->n = 0;
	m->huge = huge;
	m->slots = NULL;
	m->dense = NULL;
	m->side = side && side <= DENSE_SIDE ? side : 0;
	if (m->side) {
		m->dense = malloc((size_t)side * side * sizeof(*m->dense));
		if (!m->dense)
			return MT_ERR_NOMEM;
		for (size_t i = 0; i < (size_t)side * side; i++)
			m->dense[i] = UINT32_MAX;
		return MT_OK;
	}

	while (cap < 2 * expect)
		cap <<= 1;
	/* Huge pages where granted: a table of millions of pairs spans
	 * thousands of 4 KiB pages, a TLB miss on most lookups. */
	m->slots = huge ? mt_clock_alloc_big(cap * sizeof(*m->slots)) :
		   malloc(cap * sizeof(*m->slots));
	if (!m->slots)
		return MT_ERR_NOMEM;
	for (uint64_t i = 0; i < cap; i++)
		m->slots[i].key = EMPTY;
	m->mask = cap - 1;
	return MT_OK;
}

uint32_t mt_clock_pairs_find(const struct clk_pairs *m, uint64_t key)
{
	if (m->side)
		return *clk_pairs_dense(m, key);
	for (uint64_t s = clk_pairs_slot(key, m->mask);; s = (s + 1) & m->mask) {
		if (m->slots[s].key == key)
			return (uint32_t)m->slots[s].idx;
		if (m->slots[s].key == EMPTY)
			return UINT32_MAX;
	}
}

static int grow(struct clk_pairs *m)
{
	struct clk_pairs bigger;

	if (mt_clock_pairs_init(&bigger, m->mask + 1, 0, m->huge) != MT_OK)
		return -1;
	for (uint64_t s = 0; s <= m->mask; s++) {
		if (m->slots[s].key == EMPTY)
			continue;
		uint64_t t = clk_pairs_slot(m->slots[s].key, bigger.mask);

		while (bigger.slots[t].key != EMPTY)
			t = (t + 1) & bigger.mask;
		bigger.slots[t] = m->slots[s];
	}
	bigger.n = m->n;
	mt_clock_pairs_free(m);
	*m = bigger;
	return 0;
}

uint32_t mt_clock_pairs_get(struct clk_pairs *m, uint64_t key)
{
	uint64_t s;

	if (m->side) {
		uint32_t *d = clk_pairs_dense(m, key);

		if (*d == UINT32_MAX)
			*d = m->n++;
		return *d;
	}
	for (s = clk_pairs_slot(key, m->mask); m->slots[s].key != EMPTY;
	     s = (s + 1) & m->mask)
		if (m->slots[s].key == key)
			return (uint32_t)m->slots[s].idx;
	if (2 * (uint64_t)(m->n + 1) > m->mask + 1) {
		if (grow(m))
			return UINT32_MAX;
		for (s = clk_pairs_slot(key, m->mask); m->slots[s].key != EMPTY;
		     s = (s + 1) & m->mask)
			;
	}
	m->slots[s] = (struct clk_pair_slot){ key, m->n };
	return m->n++;
}

void mt_clock_pairs_free(struct clk_pairs *m)
{
	free(m->slots);
	free(m->dense);
	m->slots = NULL;
	m->dense = NULL;
}

/* Values below CLK_HIST_SUB have a bucket each; above, each power of two is
 * cut into CLK_HIST_SUB buckets by the bits after the leading one. */
static unsigned bucket_of(uint64_t v)
{
	if (v < CLK_HIST_SUB)
		return (unsigned)v;
	unsigned e = 63u - (unsigned)__builtin_clzll(v);	/* >= 6 */
	unsigned sub = (unsigned)(v >> (e - 6)) & (CLK_HIST_SUB - 1);

	return (e - 5) * CLK_HIST_SUB + sub;
}

static int64_t bucket_low(unsigned b)
{
	if (b < CLK_HIST_SUB)
		return b;
	unsigned e = b / CLK_HIST_SUB + 5, sub = b % CLK_HIST_SUB;

	return (int64_t)((uint64_t)(CLK_HIST_SUB + sub) << (e - 6));
}

void mt_clock_hist_add(struct clk_hist *h, int64_t v)
{
	h->count[bucket_of((uint64_t)v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

int64_t mt_clock_hist_median(const struct clk_hist *h)
{
	uint64_t seen = 0;

	if (!h->n)
		return 0;
	for (unsigned b = 0; b < CLK_HIST_BUCKETS; b++) {
		seen += h->count[b];
		if (2 * seen >= h->n)
			return bucket_low(b);
	}
	return h->max;
}
