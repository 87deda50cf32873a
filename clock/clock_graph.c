/*
 * clock_graph.c - turns matched messages (four times each, on the sender
 * and the receiver) into the per-process sorted event arrays and message
 * edges mt_clock_correct takes, and copies corrected times back.
 */
#include <stdlib.h>
#include <string.h>

#include "clock_int.h"

/* An event being placed: its time and where it came from (message * 4 +
 * enum mt_clock_when). */
struct slot {
	int64_t t;
	uint64_t from;
};

static int cmp_slot(const void *x, const void *y)
{
	const struct slot *a = x, *b = y;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->from < b->from ? -1 : a->from > b->from;
}

static uint32_t owner(const struct mt_clock_times *m, unsigned w)
{
	return w < MT_CLOCK_RECV_POST ? m->send_proc : m->recv_proc;
}

static int has(const struct mt_clock_times *m, unsigned w)
{
	return m->t[w] != MT_CLOCK_NOTIME && owner(m, w) != MT_CLOCK_NOPROC;
}

enum mt_status mt_clock_graph_build(uint32_t nprocs,
				    const struct mt_clock_times *m, uint64_t n,
				    struct mt_clock_graph *g, struct mt_err *err)
{
	uint64_t *fill = calloc(nprocs + 1, sizeof(*fill));
	struct slot **slots = calloc(nprocs + 1, sizeof(*slots));

	memset(g, 0, sizeof(*g));
	g->nprocs = nprocs;
	g->nevents = calloc(nprocs + 1, sizeof(*g->nevents));
	g->t = calloc(nprocs + 1, sizeof(*g->t));
	g->ev = malloc((n + 1) * sizeof(*g->ev));
	g->msgs = malloc((n + 1) * sizeof(*g->msgs));
	if (!fill || !slots || !g->nevents || !g->t || !g->ev || !g->msgs)
		goto nomem;
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			if (!has(&m[i], w))
				continue;
			if (owner(&m[i], w) >= nprocs) {
				free(fill);
				free(slots);
				mt_clock_graph_free(g);
				return mt_err_set(err, MT_ERR_ARG,
						"message %llu: process %u, only %u processes",
						(unsigned long long)i, owner(&m[i], w), nprocs);
			}
			g->nevents[owner(&m[i], w)]++;
		}
	for (uint32_t p = 0; p < nprocs; p++) {
		slots[p] = malloc((g->nevents[p] + 1) * sizeof(**slots));
		g->t[p] = malloc((g->nevents[p] + 1) * sizeof(**g->t));
		if (!slots[p] || !g->t[p])
			goto nomem;
	}
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++) {
			g->ev[i][w] = UINT64_MAX;
			if (has(&m[i], w))
				slots[owner(&m[i], w)][fill[owner(&m[i], w)]++] =
					(struct slot){ m[i].t[w], i * MT_CLOCK_WHEN_COUNT + w };
		}
	for (uint32_t p = 0; p < nprocs; p++) {
		qsort(slots[p], g->nevents[p], sizeof(**slots), cmp_slot);
		for (uint64_t j = 0; j < g->nevents[p]; j++) {
			uint64_t from = slots[p][j].from;

			g->t[p][j] = slots[p][j].t;
			g->ev[from / MT_CLOCK_WHEN_COUNT][from % MT_CLOCK_WHEN_COUNT] = j;
		}
		free(slots[p]);
		slots[p] = NULL;
	}
	for (uint64_t i = 0; i < n; i++)
		if (g->ev[i][MT_CLOCK_SEND_POST] != UINT64_MAX &&
		    g->ev[i][MT_CLOCK_RECV_DONE] != UINT64_MAX)
			g->msgs[g->nmsgs++] = (struct mt_clock_msg){
				.send_proc = m[i].send_proc,
				.recv_proc = m[i].recv_proc,
				.send_ev = g->ev[i][MT_CLOCK_SEND_POST],
				.recv_ev = g->ev[i][MT_CLOCK_RECV_DONE],
			};
	free(fill);
	free(slots);
	return MT_OK;
nomem:
	for (uint32_t p = 0; slots && p < nprocs; p++)
		free(slots[p]);
	free(fill);
	free(slots);
	mt_clock_graph_free(g);
	return mt_err_set(err, MT_ERR_NOMEM, "clock graph: out of memory");
}

void mt_clock_graph_apply(const struct mt_clock_graph *g, int64_t *const *out,
			  struct mt_clock_times *m, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		for (unsigned w = 0; w < MT_CLOCK_WHEN_COUNT; w++)
			if (g->ev[i][w] != UINT64_MAX)
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
