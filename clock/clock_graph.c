/*
 * clock_graph.c - turns matched messages (four times each, on the sender
 * and the receiver) into the per-process sorted event arrays and message
 * edges mt_clock_correct takes, and copies corrected times back.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "clock_int.h"

static uint32_t owner(const struct mt_clock_times *m, unsigned w)
{
	return w < MT_CLOCK_RECV_POST ? m->send_proc : m->recv_proc;
}

static int has(const struct mt_clock_times *m, unsigned w)
{
	return m->t[w] != MT_CLOCK_NOTIME && owner(m, w) != MT_CLOCK_NOPROC;
}

/* Events of one process in the order they were placed (message, then
 * time of the message): by time, then that order. */
static int cmp_placed(const void *x, const void *y, void *arg)
{
	const int64_t *t = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (t[a] != t[b])
		return t[a] < t[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* How many events each process has, checked. */
static enum mt_status count(struct mt_clock_graph *g, const struct mt_clock_times *m,
			    uint64_t n, struct mt_err *err)
{
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			if (!has(&m[i], w))
				continue;
			if (owner(&m[i], w) >= g->nprocs)
				return mt_err_set(err, MT_ERR_ARG,
						  "message %llu: process %u, only %u processes",
						  (unsigned long long)i, owner(&m[i], w),
						  g->nprocs);
			g->nevents[owner(&m[i], w)]++;
		}
	for (uint32_t p = 0; p < g->nprocs; p++)
		if (g->nevents[p] >= UINT32_MAX)
			return mt_err_set(err, MT_ERR_ARG, "process %u: %llu events: "
					  "at most %u supported", p,
					  (unsigned long long)g->nevents[p], UINT32_MAX - 1);
	return MT_OK;
}

/* Sorts process p's events (placed in g->t[p]) by time, placed order
 * breaking ties; rank[k] gets where the k-th placed one went. order and
 * tmp hold its events. */
static void sort_proc(struct mt_clock_graph *g, uint32_t p, uint32_t *order,
		      int64_t *tmp, uint32_t *rank)
{
	int64_t *t = g->t[p];
	uint32_t ne = (uint32_t)g->nevents[p];

	for (uint32_t k = 0; k < ne; k++)
		order[k] = k;
	qsort_r(order, ne, sizeof(*order), cmp_placed, t);
	for (uint32_t j = 0; j < ne; j++) {
		tmp[j] = t[order[j]];
		rank[order[j]] = j;
	}
	memcpy(t, tmp, ne * sizeof(*t));
}

/*
 * Events are placed into each process's array in message order, then
 * each process's are sorted through an index, the largest process's at a
 * time, and where each placed event went is kept (4 bytes an event) until
 * the indices are rewritten. Sorting (time, origin) pairs instead, 16
 * bytes an event for the whole run at once, made this the clock stage's
 * peak. The graph keeps 72 bytes a message (times 32, indices 16, edges
 * 24); on the way it holds at most that.
 */
enum mt_status mt_clock_graph_build(uint32_t nprocs,
				    const struct mt_clock_times *m, uint64_t n,
				    struct mt_clock_graph *g, struct mt_err *err)
{
	uint64_t *fill = calloc(nprocs + 1, sizeof(*fill)), most = 0;
	uint32_t **rank = calloc(nprocs + 1, sizeof(*rank)), *order = NULL;
	int64_t *tmp = NULL;
	enum mt_status st;

	memset(g, 0, sizeof(*g));
	g->nprocs = nprocs;
	g->nevents = calloc(nprocs + 1, sizeof(*g->nevents));
	g->t = calloc(nprocs + 1, sizeof(*g->t));
	g->ev = mt_clock_alloc_big((n + 1) * sizeof(*g->ev));
	if (!fill || !rank || !g->nevents || !g->t || !g->ev)
		goto nomem;
	if ((st = count(g, m, n, err)))
		goto fail;
	for (uint32_t p = 0; p < nprocs; p++) {
		g->t[p] = malloc((g->nevents[p] + 1) * sizeof(**g->t));
		rank[p] = malloc((g->nevents[p] + 1) * sizeof(**rank));
		if (!g->t[p] || !rank[p])
			goto nomem;
		most = g->nevents[p] > most ? g->nevents[p] : most;
	}
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			uint32_t p = owner(&m[i], w);

			g->ev[i][w] = UINT32_MAX;
			if (has(&m[i], w)) {
				g->ev[i][w] = (uint32_t)fill[p];
				g->t[p][fill[p]++] = m[i].t[w];
			}
		}
	order = malloc((most + 1) * sizeof(*order));
	tmp = malloc((most + 1) * sizeof(*tmp));
	if (!order || !tmp)
		goto nomem;
	for (uint32_t p = 0; p < nprocs; p++)
		sort_proc(g, p, order, tmp, rank[p]);
	free(order);
	free(tmp);
	order = NULL;
	tmp = NULL;
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++)
			if (g->ev[i][w] != UINT32_MAX)
				g->ev[i][w] = rank[owner(&m[i], w)][g->ev[i][w]];
	for (uint32_t p = 0; p < nprocs; p++) {
		free(rank[p]);
		rank[p] = NULL;
	}
	if (!(g->msgs = malloc((n + 1) * sizeof(*g->msgs))))
		goto nomem;
	for (uint64_t i = 0; i < n; i++)
		if (g->ev[i][MT_CLOCK_SEND_POST] != UINT32_MAX &&
		    g->ev[i][MT_CLOCK_RECV_DONE] != UINT32_MAX)
			g->msgs[g->nmsgs++] = (struct mt_clock_msg){
				.send_proc = m[i].send_proc,
				.recv_proc = m[i].recv_proc,
				.send_ev = g->ev[i][MT_CLOCK_SEND_POST],
				.recv_ev = g->ev[i][MT_CLOCK_RECV_DONE],
			};
	st = MT_OK;
	goto out;
nomem:
	st = mt_err_set(err, MT_ERR_NOMEM, "clock graph: out of memory");
fail:
	mt_clock_graph_free(g);
out:
	for (uint32_t p = 0; rank && p < nprocs; p++)
		free(rank[p]);
	free(rank);
	free(fill);
	free(order);
	free(tmp);
	return st;
}

void mt_clock_graph_apply(const struct mt_clock_graph *g, int64_t *const *out,
			  struct mt_clock_times *m, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++)
			if (g->ev[i][w] != UINT32_MAX)
				m[i].t[w] = out[owner(&m[i], w)][g->ev[i][w]];
}

void mt_clock_graph_free(struct mt_clock_graph *g)
{
	for (uint32_t p = 0; g->t && p < g->nprocs; p++)
		free(g->t[p]);
	free(g->t);
	free(g->nevents);
	free(g->msgs);
	free(g->ev);
	memset(g, 0, sizeof(*g));
}
