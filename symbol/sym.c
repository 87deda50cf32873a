/*
 * sym.c - call sites resolved with libdwfl: one Dwfl per object file (by
 * path), reported at load base 0, so a run-time address minus the
 * recorded load base (MT_REC_MAP base) is the address looked up, whatever
 * process or ASLR placement it came from.
 */
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mt_sym.h"

struct obj {
	const char *path;		/* in the trace's MAP record */
	Dwfl *dwfl;
	Dwfl_Module *mod;		/* NULL: gone, unreadable or rebuilt */
};

struct mt_sym {
	const struct mt_trace *t;
	struct obj *objs;
	size_t nobjs;
	struct mt_sym_loc *locs;	/* per site number - 1, resolved when
					 * text is set */
	char **bufs;			/* each loc's strings */
};

static const Dwfl_Callbacks callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

enum mt_status mt_sym_new(const struct mt_trace *t, struct mt_sym **out,
			  struct mt_err *err)
{
	struct mt_sym *s = calloc(1, sizeof(*s));

	if (s) {
		s->t = t;
		s->objs = calloc(t->nmaps ? t->nmaps : 1, sizeof(*s->objs));
		s->locs = calloc(t->nsites ? t->nsites : 1, sizeof(*s->locs));
		s->bufs = calloc(t->nsites ? t->nsites : 1, sizeof(*s->bufs));
	}
	if (!s || !s->objs || !s->locs || !s->bufs) {
		mt_sym_free(s);
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	*out = s;
	return MT_OK;
}

void mt_sym_free(struct mt_sym *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->objs && i < s->nobjs; i++)
		if (s->objs[i].dwfl)
			dwfl_end(s->objs[i].dwfl);
	for (size_t i = 0; s->bufs && i < s->t->nsites; i++)
		free(s->bufs[i]);
	free(s->objs);
	free(s->locs);
	free(s->bufs);
	free(s);
}

/* The recorded build id matches the file's (or none was recorded). */
static int same_build(Dwfl_Module *mod, const struct mt_rec_map *r)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);

	if (!r->build_id_len)
		return 1;
	return n > 0 && (uint32_t)n >= r->build_id_len &&
	       !memcmp(bits, r->build_id, r->build_id_len);
}

/* The object of map m, opened on first use. */
static Dwfl_Module *module(struct mt_sym *s, const struct mt_trace_map *m)
{
	const char *path = mt_trace_map_path(m->rec);
	struct obj *o;

	for (size_t i = 0; i < s->nobjs; i++)
		if (!strcmp(s->objs[i].path, path))
			return s->objs[i].mod;
	o = &s->objs[s->nobjs++];	/* at most one per MAP record */
	o->path = path;
	if (!(o->dwfl = dwfl_begin(&callbacks)))
		return NULL;
	o->mod = dwfl_report_elf(o->dwfl, path, path, -1, 0, false);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (o->mod && !same_build(o->mod, m->rec))
		o->mod = NULL;
	return o->mod;
}

static const char *base_name(const char *p)
{
	const char *b = p ? strrchr(p, '/') : NULL;

	return b ? b + 1 : p ? p : "";
}

/* Function and source line of return address a in map m, as far as the
 * object says. */
static void lookup(struct mt_sym *s, const struct mt_trace_map *m, uint64_t a,
		   const char **fn, const char **src, int *line)
{
	Dwfl_Module *mod = m ? module(s, m) : NULL;
	GElf_Addr fa;
	Dwfl_Line *l;

	*fn = *src = NULL;
	*line = 0;
	if (!mod)
		return;
	fa = a - 1 - m->rec->base;	/* inside the call instruction */
	*fn = dwfl_module_addrname(mod, fa);
	if ((l = dwfl_module_getsrc(mod, fa)))
		*src = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	if (!*src)
		*line = 0;
}

static void resolve(struct mt_sym *s, uint32_t site)
{
	const struct mt_trace_site *ts = &s->t->sites[site - 1];
	struct mt_sym_loc *loc = &s->locs[site - 1];
	const char *fn, *src, *efn, *esrc, *obj;
	int line, eline;
	size_t len;
	char *b;

	lookup(s, ts->app_map, ts->app, &fn, &src, &line);
	lookup(s, ts->entry_map, ts->entry, &efn, &esrc, &eline);
	if (efn && !strncmp(efn, "PMPI_", 5))
		efn++;
	obj = ts->app_map ? base_name(mt_trace_map_path(ts->app_map->rec)) : "";
	/* Five strings and the text, which holds them at most twice. */
	len = 2 * (strlen(base_name(src)) + strlen(fn ? fn : "") + strlen(obj) +
		   strlen(efn ? efn : "")) + 128;
	if (!(b = s->bufs[site - 1] = malloc(len)))
		return;
	loc->offset = ts->app_map ? ts->app - ts->app_map->rec->base : ts->app;
	loc->line = (uint32_t)line;
	loc->file = b;
	b += sprintf(b, "%s", src ? base_name(src) : "") + 1;
	loc->function = b;
	b += sprintf(b, "%s", fn ? fn : "") + 1;
	loc->object = b;
	b += sprintf(b, "%s", obj) + 1;
	loc->entry = b;
	b += sprintf(b, "%s", efn ? efn : "") + 1;
	loc->text = b;
	if (src)
		b += sprintf(b, "%s:%d", loc->file, line);
	else if (*obj)
		b += sprintf(b, "%s+0x%" PRIx64, obj, loc->offset);
	else
		b += sprintf(b, "0x%" PRIx64, loc->offset);
	if (fn)
		b += sprintf(b, " (%s)", fn);
	if (efn)
		sprintf(b, " via %s", efn);
}

const struct mt_sym_loc *mt_sym_site(struct mt_sym *s, uint32_t site)
{
	if (!s || !site || site > s->t->nsites)
		return NULL;
	if (!s->locs[site - 1].text)
		resolve(s, site);
	return s->locs[site - 1].text ? &s->locs[site - 1] : NULL;
}
