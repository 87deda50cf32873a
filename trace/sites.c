/*
 * sites.c - call sites (MT_REC_MAP, MT_REC_SITE): one table for the whole
 * trace, so that an OP names its site by a number valid across files.
 */
#define _GNU_SOURCE	/* qsort_r */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

static enum mt_status add_map(struct mt_trace *t, const struct mt_trace_file *f,
			      size_t k, size_t *cap, struct mt_err *err)
{
	const struct mt_rec_map *r = (const void *)mt_trace_file_setup(f, k);
	struct mt_trace_map *m = mt_trace_push((void **)&t->maps, &t->nmaps,
						cap, sizeof(*m));

	if (!m)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	m->proc = f->proc;
	m->rec = r;
	return MT_OK;
}

static int cmp_map(const void *a, const void *b)
{
	const struct mt_trace_map *x = a, *y = b;

	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return (x->rec->start > y->rec->start) - (x->rec->start < y->rec->start);
}

/* The map of process proc covering return address addr, or NULL: the last
 * map of proc starting at or below addr - 1 (maps sorted by cmp_map). */
static const struct mt_trace_map *map_of(const struct mt_trace *t,
					 uint32_t proc, uint64_t addr)
{
	size_t lo = 0, hi = t->nmaps;

	if (!addr)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mt_trace_map *m = &t->maps[mid];

		if (m->proc < proc || (m->proc == proc && m->rec->start <= addr - 1))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || t->maps[lo - 1].proc != proc || addr - 1 >= t->maps[lo - 1].rec->end)
		return NULL;
	return &t->maps[lo - 1];
}

static enum mt_status add_site(struct mt_trace *t, struct mt_trace_file *f,
			       size_t k, size_t *cap, struct mt_err *err)
{
	const struct mt_rec_site *r = (const void *)mt_trace_file_setup(f, k);
	uint32_t i = r->h.aux;	/* 1..MT_SITE_MAX: the file's scan checked */
	struct mt_trace_site *s;

	if (i > f->nsite_ids) {
		uint32_t *v = realloc(f->site_ids, (size_t)i * 2 * sizeof(*v));

		if (!v)
			return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
		memset(v + f->nsite_ids, 0, ((size_t)i * 2 - f->nsite_ids) * sizeof(*v));
		f->site_ids = v;
		f->nsite_ids = i * 2;
	}
	s = mt_trace_push((void **)&t->sites, &t->nsites, cap, sizeof(*s));
	if (!s)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	s->proc = f->proc;
	s->app = r->app;
	s->entry = r->entry;
	f->site_ids[i - 1] = (uint32_t)t->nsites;
	return MT_OK;
}

/* Where an address is in code: its object's path and its offset from the
 * load base; the process and the address itself without a map. */
static int cmp_addr(const struct mt_trace_site *x, const struct mt_trace_map *xm,
		    uint64_t xa, const struct mt_trace_site *y,
		    const struct mt_trace_map *ym, uint64_t ya)
{
	int c;

	if (!xm || !ym) {
		if (xm || ym)
			return xm ? -1 : 1;
		if (x->proc != y->proc)
			return x->proc < y->proc ? -1 : 1;
		return (xa > ya) - (xa < ya);
	}
	if ((c = strcmp(mt_trace_map_path(xm->rec), mt_trace_map_path(ym->rec))))
		return c;
	xa -= xm->rec->base;
	ya -= ym->rec->base;
	return (xa > ya) - (xa < ya);
}

static int cmp_site(const void *a, const void *b, void *arg)
{
	const struct mt_trace_site *v = arg;
	const struct mt_trace_site *x = &v[*(const uint32_t *)a];
	const struct mt_trace_site *y = &v[*(const uint32_t *)b];
	int c = cmp_addr(x, x->app_map, x->app, y, y->app_map, y->app);

	return c ? c : cmp_addr(x, x->entry_map, x->entry, y, y->entry_map, y->entry);
}

/* One number per place in the code, whatever the process or thread that
 * called from it and wherever its objects were loaded: sites that compare
 * equal become the first of them, and the files' indexes follow. */
static enum mt_status dedupe(struct mt_trace *t, struct mt_err *err)
{
	uint32_t *order = malloc((t->nsites + 1) * sizeof(*order));
	uint32_t *renum = malloc((t->nsites + 1) * sizeof(*renum));
	struct mt_trace_site *u = NULL;
	size_t n = 0;

	if (!order || !renum)
		goto nomem;
	for (uint32_t i = 0; i < t->nsites; i++)
		order[i] = i;
	qsort_r(order, t->nsites, sizeof(*order), cmp_site, t->sites);
	for (size_t i = 0; i < t->nsites; i++) {
		if (!i || cmp_site(&order[i - 1], &order[i], t->sites))
			n++;
		renum[order[i]] = (uint32_t)n;
	}
	/* Sites numbered in sort order; each number keeps one of its sites
	 * (the process that called from it first in the sort). */
	if (!(u = malloc((n + 1) * sizeof(*u))))
		goto nomem;
	for (size_t i = t->nsites; i-- > 0;)
		u[renum[order[i]] - 1] = t->sites[order[i]];
	for (size_t i = 0; i < t->nfiles; i++)
		for (uint32_t k = 0; k < t->files[i]->nsite_ids; k++)
			if (t->files[i]->site_ids[k])
				t->files[i]->site_ids[k] =
					renum[t->files[i]->site_ids[k] - 1];
	free(t->sites);
	t->sites = u;
	t->nsites = n;
	free(order);
	free(renum);
	return MT_OK;
nomem:
	free(order);
	free(renum);
	return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
}

enum mt_status mt_trace_sites_build(struct mt_trace *t, struct mt_err *err)
{
	size_t mcap = 0, scap = 0;
	enum mt_status st = MT_OK;

	for (size_t i = 0; i < t->nfiles && st == MT_OK; i++)
		for (size_t k = 0; k < t->files[i]->nsetup && st == MT_OK; k++)
			if (mt_trace_file_setup(t->files[i], k)->type == MT_REC_MAP)
				st = add_map(t, t->files[i], k, &mcap, err);
	for (size_t i = 0; i < t->nfiles && st == MT_OK; i++)
		for (size_t k = 0; k < t->files[i]->nsetup && st == MT_OK; k++)
			if (mt_trace_file_setup(t->files[i], k)->type == MT_REC_SITE)
				st = add_site(t, t->files[i], k, &scap, err);
	/* The maps are all in place (sorted for map_of): pointers into them
	 * stay valid. */
	mt_trace_sort(t->maps, t->nmaps, sizeof(*t->maps), cmp_map);
	for (size_t i = 0; i < t->nsites; i++) {
		t->sites[i].app_map = map_of(t, t->sites[i].proc, t->sites[i].app);
		t->sites[i].entry_map = map_of(t, t->sites[i].proc, t->sites[i].entry);
	}
	return st == MT_OK ? dedupe(t, err) : st;
}

void mt_trace_sites_free(struct mt_trace *t)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i]->site_ids);
		t->files[i]->site_ids = NULL;
	}
	free(t->sites);
	free(t->maps);
}
