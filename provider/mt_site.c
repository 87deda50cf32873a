/*
 * mt_site.c - call sites: the unwinding, the classification of loaded
 * objects and the per-thread site table (see mt_site.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <rdma/fabric.h>

#include "mt_site.h"

#define OBJ_CACHE 32		/* objects a thread's stacks run through */
#define MAX_DEPTH 64		/* frames looked at before giving up */

int mt_hook_site_on;
static char skip[1024];		/* ':'-separated fnmatch patterns */
static char exe[PATH_MAX];	/* the executable, resolved */
static pthread_key_t key;

/* An object some frame of this thread lay in. */
struct site_obj {
	uint64_t start, end;
	uint8_t skipped;
	uint8_t written;	/* its MT_REC_MAP is in this thread's file */
};

struct site_thread {
	struct mt_site_tab tab;
	unsigned nobj, next_evict;
	struct site_obj obj[OBJ_CACHE];
	int busy;		/* a signal handler's call nests: no site */
};

static __thread struct site_thread *site_tls
	__attribute__((tls_model("initial-exec")));

uint32_t mt_hook_site_tab_get(struct mt_site_tab *t, uint64_t app, uint64_t entry,
			 int *fresh)
{
	const uint32_t mask = MT_SITE_MAX * 2 - 1;
	uint32_t h = (uint32_t)((app * 0x9e3779b97f4a7c15ull ^ entry) >> 40) & mask;

	*fresh = 0;
	for (;; h = (h + 1) & mask) {
		uint16_t i = t->slot[h];

		if (!i)
			break;
		if (t->key[i - 1].app == app && t->key[i - 1].entry == entry)
			return i;
	}
	if (t->n == MT_SITE_MAX) {
		t->lost++;
		return MT_SITE_LOST;
	}
	t->key[t->n].app = app;
	t->key[t->n].entry = entry;
	t->slot[h] = (uint16_t)++t->n;
	*fresh = 1;
	return t->n;
}

/* What dl_iterate_phdr says of the object holding pc. */
struct desc {
	uintptr_t pc;
	int found;
	uint64_t base, start, end;
	uint32_t build_id_len;
	uint8_t build_id[32];
	char path[PATH_MAX];		/* last: describe() clears what precedes */
};

static void build_id(struct desc *d, const struct dl_phdr_info *info,
		     const ElfW(Phdr) *ph)
{
	const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
	const char *e = p + ph->p_memsz;

	while (p + sizeof(ElfW(Nhdr)) <= e) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
		const char *name = p + sizeof(*n);
		const char *desc = name + ((n->n_namesz + 3) & ~3u);

		if (desc + n->n_descsz > e)
			return;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    !memcmp(name, "GNU", 4)) {
			d->build_id_len = n->n_descsz < sizeof(d->build_id) ?
					  n->n_descsz : sizeof(d->build_id);
			memcpy(d->build_id, desc, d->build_id_len);
			return;
		}
		p = desc + ((n->n_descsz + 3) & ~3u);
	}
}

static int describe_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct desc *d = arg;
	uint64_t lo = UINT64_MAX, hi = 0;
	int i, hit = 0;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t s = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD)
			continue;
		lo = s < lo ? s : lo;
		hi = s + ph->p_memsz > hi ? s + ph->p_memsz : hi;
		hit |= d->pc >= s && d->pc < s + ph->p_memsz;
	}
	if (!hit)
		return 0;
	d->found = 1;
	d->base = info->dlpi_addr;
	d->start = lo;
	d->end = hi;
	snprintf(d->path, sizeof(d->path), "%s",
		 info->dlpi_name && *info->dlpi_name ? info->dlpi_name : exe);
	for (i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_NOTE && !d->build_id_len)
			build_id(d, info, &info->dlpi_phdr[i]);
	return 1;
}

static int describe(uintptr_t pc, struct desc *d)
{
	memset(d, 0, offsetof(struct desc, path));
	d->pc = pc;
	d->path[0] = 0;
	dl_iterate_phdr(describe_cb, d);
	return d->found;
}

static int in(const struct desc *d, const void *p)
{
	return (uintptr_t)p >= d->start && (uintptr_t)p < d->end;
}

/* Whether the object defines sym itself (dlsym also searches its
 * dependencies: the definition found must lie in it). */
static int defines(const struct desc *d, void *h, const char *sym)
{
	void *p = dlsym(h, sym);

	return p && in(d, p);
}

static int skipped(const struct desc *d)
{
	const char *base = strrchr(d->path, '/');
	char pats[sizeof(skip)], *save = NULL, *pat;
	void *h;
	int found = 0;

	if (in(d, (const void *)&mt_hook_site_here) || in(d, (const void *)&fi_version))
		return 1;
	h = d->path == exe || !strcmp(d->path, exe) ? dlopen(NULL, RTLD_LAZY) :
		dlopen(d->path, RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		found = defines(d, h, "PMPI_Init") || defines(d, h, "MPI_Init");
		dlclose(h);
		if (found)
			return 1;
	}
	base = base ? base + 1 : d->path;
	snprintf(pats, sizeof(pats), "%s", skip);
	for (pat = strtok_r(pats, ":", &save); pat; pat = strtok_r(NULL, ":", &save))
		if (!fnmatch(pat, base, 0))
			return 1;
	return 0;
}

/* The thread's cached object holding pc, classified on a miss. */
static struct site_obj *obj_of(struct site_thread *st, uintptr_t pc)
{
	struct site_obj *o;
	struct desc d;
	unsigned i;

	for (i = 0; i < st->nobj; i++)
		if (pc >= st->obj[i].start && pc < st->obj[i].end)
			return &st->obj[i];
	if (!describe(pc, &d))
		return NULL;
	if (st->nobj < OBJ_CACHE)
		o = &st->obj[st->nobj++];
	else
		o = &st->obj[st->next_evict++ % OBJ_CACHE];
	o->start = d.start;
	o->end = d.end;
	o->skipped = (uint8_t)skipped(&d);
	o->written = 0;
	return o;
}

static void write_map(struct site_obj *o, uint64_t addr)
{
	struct desc d;
	struct mt_rec_map *r;
	size_t len, size;

	if (o->written || !describe(addr - 1, &d))
		return;
	len = strlen(d.path) + 1;
	size = (offsetof(struct mt_rec_map, path) + len + 7) & ~(size_t)7;
	if (size < sizeof(*r))
		size = sizeof(*r);
	r = mt_rec_reserve_pinned(size);
	if (!r)
		return;
	memset(r, 0, size);
	mt_rec_hdr_set(&r->h, MT_REC_MAP, 0, (uint16_t)size,
		       o->skipped ? MT_MAP_SKIPPED : MT_MAP_APP, mt_rec_now());
	r->base = d.base;
	r->start = d.start;
	r->end = d.end;
	r->build_id_len = d.build_id_len;
	memcpy(r->build_id, d.build_id, d.build_id_len);
	/* The path runs on past path[8], to the record's end. */
	memcpy((char *)r + offsetof(struct mt_rec_map, path), d.path, len);
	mt_rec_commit_pinned(size);
	o->written = 1;
}

static void write_site(struct site_thread *st, uint32_t index,
		       uint64_t app, uint64_t entry)
{
	struct site_obj *o;
	struct mt_rec_site *r;

	if ((o = obj_of(st, app - 1)))
		write_map(o, app);
	if (entry && (o = obj_of(st, entry - 1)))
		write_map(o, entry);
	r = mt_rec_reserve_pinned(sizeof(*r));
	if (!r)
		return;
	mt_rec_hdr_set(&r->h, MT_REC_SITE, 0, sizeof(*r), index, mt_rec_now());
	r->app = app;
	r->entry = entry;
	mt_rec_commit_pinned(sizeof(*r));
}

static struct site_thread *thread_state(void)
{
	struct site_thread *st = site_tls;

	if (MT_LIKELY(st != NULL))
		return st;
	st = calloc(1, sizeof(*st));
	if (st) {
		site_tls = st;
		pthread_setspecific(key, st);
	}
	return st;
}

/*
 * The first application frame and the last skipped one before it, from the
 * return addresses on the stack; frames before the first skipped one (the
 * unwinder's own) are no call site. 0 when there is no application frame.
 */
static uint64_t walk(struct site_thread *st, void *const *ip, int n,
		     uint64_t *entry)
{
	*entry = 0;
	for (int i = 0; i < n; i++) {
		uintptr_t pc = (uintptr_t)ip[i];
		/* pc - 1: inside the call instruction, not after it. */
		const struct site_obj *o = pc ? obj_of(st, pc - 1) : NULL;

		if (!o || o->skipped) {
			if (o)
				*entry = pc;
			continue;
		}
		if (*entry)
			return pc;
	}
	return 0;
}

__attribute__((noinline)) uint32_t mt_hook_site_here(void)
{
	struct site_thread *st = thread_state();
	void *ip[MAX_DEPTH];
	uint64_t app, entry;
	uint32_t index;
	int fresh;

	if (!st || st->busy)
		return MT_SITE_NONE;
	st->busy = 1;
	/* libunwind's cached x86-64 fast trace: measured 20 to 90 times
	 * quicker than libgcc's _Unwind_Backtrace (README, call sites). */
	app = walk(st, ip, unw_backtrace(ip, MAX_DEPTH), &entry);
	if (!app)
		index = MT_SITE_NONE;
	else if ((index = mt_hook_site_tab_get(&st->tab, app, entry, &fresh)),
		 fresh)
		write_site(st, index, app, entry);
	st->busy = 0;
	return index;
}

static void thread_gone(void *p)
{
	site_tls = NULL;
	free(p);
}

/* A forked child records into files of its own: the sites and maps its
 * parent's files hold are not in them, so it starts a table afresh. */
static void after_fork_child(void)
{
	thread_gone(site_tls);
	pthread_setspecific(key, NULL);
}

int mt_hook_site_init(const char *patterns)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	exe[n > 0 ? n : 0] = 0;
	snprintf(skip, sizeof(skip), "%s", patterns ? patterns : MT_SITE_SKIP_DEFAULT);
	if (pthread_key_create(&key, thread_gone) ||
	    pthread_atfork(NULL, NULL, after_fork_child))
		return -1;
	mt_hook_site_on = 1;
	return 0;
}
