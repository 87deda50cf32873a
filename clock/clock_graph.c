/*
 * clock_graph.c - turns matched messages (four times each, on the sender
 * and the receiver) into the per-process sorted event arrays and message
 * edges mt_clock_correct takes, and copies corrected times back.
 */
#include <stdlib.h>
#include <string.h>

#include "clock_int.h"

enum mt_status mt_clock_count_events(uint32_t nprocs,
				     const struct mt_clock_times *m, uint64_t n,
				     uint64_t *nevents, struct mt_err *err)
{
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			if (!clk_times_has(&m[i], w))
				continue;
			if (clk_times_owner(&m[i], w) >= nprocs)
				return mt_err_set(err, MT_ERR_ARG,
						  "message %llu: process %u, only %u processes",
						  (unsigned long long)i,
						  clk_times_owner(&m[i], w), nprocs);
			nevents[clk_times_owner(&m[i], w)]++;
		}
	for (uint32_t p = 0; p < nprocs; p++)
		if (nevents[p] >= UINT32_MAX)
			return mt_err_set(err, MT_ERR_ARG, "process %u: %llu events: "
					  "at most %u supported", p,
					  (unsigned long long)nevents[p], UINT32_MAX - 1);
	return MT_OK;
}

/* Work space for sorting one process's events (the largest's size). */
struct sorting {
	uint32_t *order, *spare, *runs;
	int64_t *t;
};

static void sorting_free(struct sorting *s)
{
	free(s->order);
	free(s->spare);
	free(s->runs);
	free(s->t);
	memset(s, 0, sizeof(*s));
}

/* 0 .. n-1 sorted by t, stably (placed order breaking ties): the
 * ascending runs t already holds, merged pairwise until one is left. A
 * message's times are placed when it ends, so a process's events come
 * nearly in time order, in few runs. Returns s->order or s->spare. */
static uint32_t *sort_placed(struct sorting *s, const int64_t *t, uint32_t n)
{
	uint32_t *from = s->order, *to = s->spare, *runs = s->runs, nr = 0;

	for (uint32_t k = 0; k < n; k++) {
		from[k] = k;
		if (!k || t[k] < t[k - 1])
			runs[nr++] = k;
	}
	runs[nr] = n;
	while (nr > 1) {
		uint32_t out = 0, *swap;

		for (uint32_t r = 0; r < nr; r += 2) {
			uint32_t i = runs[r], mid = runs[r + 1], k = i, j = mid;
			uint32_t hi = r + 1 < nr ? runs[r + 2] : mid;

			runs[out++] = i;
			while (i < mid && j < hi)
				to[k++] = t[from[j]] < t[from[i]] ? from[j++] : from[i++];
			while (i < mid)
				to[k++] = from[i++];
			while (j < hi)
				to[k++] = from[j++];
		}
		runs[out] = n;
		nr = out;
		swap = from;
		from = to;
		to = swap;
	}
	return from;
}

/* Sorts process p's events (placed in g->t[p]) by time, placed order
 * breaking ties; rank[k] gets where the k-th placed one went. */
static void sort_proc(struct mt_clock_graph *g, uint32_t p, struct sorting *s,
		      uint32_t *rank)
{
	int64_t *t = g->t[p];
	uint32_t ne = (uint32_t)g->nevents[p];
	const uint32_t *order = sort_placed(s, t, ne);

	for (uint32_t j = 0; j < ne; j++) {
		s->t[j] = t[order[j]];
		rank[order[j]] = j;
	}
	memcpy(t, s->t, ne * sizeof(*t));
}

/*
 * Events are placed into each process's array in message order, then
 * each process's are sorted through an index (sort_placed), the largest
 * process's at a time, and where each placed event went is kept (4 bytes
 * an event) until the indices are rewritten. Sorting (time, origin) pairs
 * instead, 16 bytes an event for the whole run at once, made this the
 * clock stage's peak. The graph keeps 72 bytes a message (times 32, indices 16, edges
 * 24); on the way it holds at most that.
 */
enum mt_status mt_clock_graph_build(uint32_t nprocs,
				    const struct mt_clock_times *m, uint64_t n,
				    struct mt_clock_graph *g, struct mt_err *err)
{
	uint64_t *fill = calloc(nprocs + 1, sizeof(*fill)), most = 0;
	uint32_t **rank = calloc(nprocs + 1, sizeof(*rank));
	struct sorting so = { 0 };
	enum mt_status st;

	memset(g, 0, sizeof(*g));
	g->nprocs = nprocs;
	g->nevents = calloc(nprocs + 1, sizeof(*g->nevents));
	g->t = calloc(nprocs + 1, sizeof(*g->t));
	g->ev = mt_clock_alloc_big((n + 1) * sizeof(*g->ev));
	if (!fill || !rank || !g->nevents || !g->t || !g->ev)
		goto nomem;
	if ((st = mt_clock_count_events(nprocs, m, n, g->nevents, err)))
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
			uint32_t p = clk_times_owner(&m[i], w);

			g->ev[i][w] = UINT32_MAX;
			if (clk_times_has(&m[i], w)) {
				g->ev[i][w] = (uint32_t)fill[p];
				g->t[p][fill[p]++] = m[i].t[w];
			}
		}
	so.order = malloc((most + 1) * sizeof(*so.order));
	so.spare = malloc((most + 1) * sizeof(*so.spare));
	so.runs = malloc((most + 1) * sizeof(*so.runs));
	so.t = malloc((most + 1) * sizeof(*so.t));
	if (!so.order || !so.spare || !so.runs || !so.t)
		goto nomem;
	for (uint32_t p = 0; p < nprocs; p++)
		sort_proc(g, p, &so, rank[p]);
	sorting_free(&so);
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++)
			if (g->ev[i][w] != UINT32_MAX)
				g->ev[i][w] = rank[clk_times_owner(&m[i], w)][g->ev[i][w]];
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
	sorting_free(&so);
	return st;
}

void mt_clock_graph_apply(const struct mt_clock_graph *g, int64_t *const *out,
			  struct mt_clock_times *m, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++)
			if (g->ev[i][w] != UINT32_MAX)
				m[i].t[w] = out[clk_times_owner(&m[i], w)][g->ev[i][w]];
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
