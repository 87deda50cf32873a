/*
 * open.c - open a whole trace: expand directories into their *.mt files,
 * group the files into processes by (host from the file name, pid from the
 * header), attach each process's PROC and CLOCK records, group processes
 * into jobs, sort them by key and build the address tables.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trace_int.h"

struct file_list {
	struct mt_trace_file **v;
	size_t n, cap;
	size_t empty;		/* files skipped: no header written yet */
	int lean;		/* leave or give back each file's pages */
	struct mt_trace_copy copy;	/* lean: what each is scanned from */
	struct mt_trace_plan *plan;	/* lean: the files this part scans */
};

static enum mt_status add_file(struct file_list *l, const char *path,
			       struct mt_err *err)
{
	struct mt_trace_file **slot = mt_trace_push((void **)&l->v, &l->n, &l->cap,
						 sizeof(*slot));
	enum mt_status st;

	if (!slot)
		return mt_err_set(err, MT_ERR_NOMEM, "%s: out of memory", path);
	st = mt_trace_file_open_copy(path, l->lean ? &l->copy : NULL, l->plan, slot, err);
	if (st != MT_OK)
		l->n--;
	if (st == MT_END) {
		l->empty++;
		return MT_OK;
	}
	return st;
}

static int is_trace_name(const struct dirent *d)
{
	size_t len = strlen(d->d_name), sfx = strlen(MT_TRACE_SUFFIX);

	return len > sfx && !strcmp(d->d_name + len - sfx, MT_TRACE_SUFFIX);
}

static enum mt_status add_dir(struct file_list *l, const char *dir,
			      struct mt_err *err)
{
	enum mt_status st = MT_OK;
	struct dirent **ents;
	int n = scandir(dir, &ents, is_trace_name, alphasort);

	if (n < 0)
		return mt_err_set(err, MT_ERR_IO, "%s: cannot read directory: %s",
				  dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		size_t len = strlen(dir) + strlen(ents[i]->d_name) + 2;
		char *path = malloc(len);

		if (st == MT_OK && !path)
			st = mt_err_set(err, MT_ERR_NOMEM, "%s: out of memory", dir);
		if (st == MT_OK) {
			snprintf(path, len, "%s/%s", dir, ents[i]->d_name);
			st = add_file(l, path, err);
		}
		free(path);
		free(ents[i]);
	}
	free(ents);
	if (st == MT_OK && n == 0)
		st = mt_err_set(err, MT_ERR_ARG, "%s: no *%s trace files in directory",
				dir, MT_TRACE_SUFFIX);
	return st;
}

static int cmp_file(const void *a, const void *b)
{
	const struct mt_trace_file *x = *(struct mt_trace_file *const *)a;
	const struct mt_trace_file *y = *(struct mt_trace_file *const *)b;
	int c = strcmp(x->host, y->host);

	if (c)
		return c;
	if (x->hdr->pid != y->hdr->pid)
		return x->hdr->pid < y->hdr->pid ? -1 : 1;
	if (x->hdr->thread_seq != y->hdr->thread_seq)
		return x->hdr->thread_seq < y->hdr->thread_seq ? -1 : 1;
	return 0;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct mt_trace_proc *x = a, *y = b;
	/* Unknown keys (-1) sort after every known one. */
	uint32_t rx = (uint32_t)x->key, ry = (uint32_t)y->key;
	int c;

	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	c = strcmp(x->host, y->host);
	if (c)
		return c;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Files not closed whose writer still runs are being written, not left
 * behind by a crash (/proc looked at only for such files). */
void mt_trace_proc_live(struct mt_trace_proc *p)
{
	size_t open = 0;

	for (size_t i = 0; i < p->nfiles; i++)
		open += !mt_trace_file_clean(p->files[i]);
	p->alive = open && mt_trace_writer_alive(p->host, p->rec);
	for (size_t i = 0; i < p->nfiles; i++)
		p->files[i]->live = p->alive && !mt_trace_file_clean(p->files[i]);
}

/* PROC from the thread_seq 0 file, whether its writer runs (a file whose
 * writer no longer runs is read past its call in progress), earliest START
 * and latest END pairs. */
static enum mt_status attach_identity(struct mt_trace_proc *p, struct mt_err *err)
{
	const struct mt_trace_file *f0 = p->files[0];

	if (f0->hdr->thread_seq == 0 && f0->nsetup &&
	    f0->setup_first && mt_trace_file_setup(f0, 0)->type == MT_REC_PROC)
		p->rec = (const struct mt_rec_proc *)mt_trace_file_setup(f0, 0);
	p->world_rank = p->rec ? p->rec->world_rank : -1;
	if (!p->host[0] && p->rec)
		memcpy(p->host, p->rec->hostname,
		       strnlen(p->rec->hostname, sizeof(p->host) - 1));
	mt_trace_proc_live(p);
	for (size_t i = 0; i < p->nfiles; i++)
		if (!p->files[i]->live && mt_trace_file_settle(p->files[i], err))
			return MT_ERR_NOMEM;
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct mt_trace_file *f = p->files[i];

		for (size_t j = 0; j < f->nsetup; j++) {
			const struct mt_rec_hdr *r = mt_trace_file_setup(f, j);
			const struct mt_rec_clock *c = (const void *)r;

			if (r->type != MT_REC_CLOCK)
				continue;
			/* Threads share one TSC: the widest START..END span
			 * gives the best slope. */
			if (r->aux == MT_CLOCK_START &&
			    (!p->clock_start || r->ts < p->clock_start->h.ts))
				p->clock_start = c;
			else if (r->aux == MT_CLOCK_END &&
				 (!p->clock_end || r->ts > p->clock_end->h.ts))
				p->clock_end = c;
		}
	}
	mt_trace_clock_setup(p);
	return MT_OK;
}

/* The span of p's records on its clock map. */
static void proc_span(struct mt_trace_proc *p)
{
	p->first_ns = INT64_MAX;
	p->last_ns = INT64_MIN;
	for (size_t i = 0; i < p->nfiles; i++) {
		const struct mt_trace_file *f = p->files[i];
		int64_t a, b;

		if (!f->nrecs)
			continue;
		a = mt_trace_ticks_ns(&p->clock, f->first_ts);
		b = mt_trace_ticks_ns(&p->clock, f->last_ts);
		p->first_ns = a < p->first_ns ? a : p->first_ns;
		p->last_ns = b > p->last_ns ? b : p->last_ns;
	}
}

static enum mt_status group(struct mt_trace *t, struct mt_trace_file **v,
			    size_t n, struct mt_err *err)
{
	size_t i, j, host;

	mt_trace_sort(v, n, sizeof(*v), cmp_file);
	t->procs = calloc(n ? n : 1, sizeof(*t->procs));
	if (!t->procs)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (i = 0, host = 0; i < n; i = j) {
		struct mt_trace_proc *p = &t->procs[t->nprocs++];

		for (j = i + 1; j < n && !strcmp(v[j]->host, v[i]->host) &&
		     v[j]->hdr->pid == v[i]->hdr->pid; j++)
			if (v[j]->hdr->thread_seq == v[j - 1]->hdr->thread_seq)
				return mt_err_set(err, MT_ERR_ARG,
						  "%s and %s are both thread %u of "
						  "process %u", v[j - 1]->path, v[j]->path,
						  v[j]->hdr->thread_seq, v[j]->hdr->pid);
		p->files = v + i;
		p->nfiles = j - i;
		p->pid = v[i]->hdr->pid;
		memcpy(p->host, v[i]->host, sizeof(p->host));
		if (i == 0 || strcmp(v[i]->host, v[i - 1]->host)) {
			t->nhosts++;
			host = t->nprocs - 1;
		}
		if (attach_identity(p, err))
			return MT_ERR_NOMEM;
		/* The host's processes are all attached: one clock for them. */
		if ((j == n || strcmp(v[j]->host, v[i]->host)) &&
		    mt_trace_clock_host(t->procs + host, t->nprocs - host))
			return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < t->nprocs; i++)
		proc_span(&t->procs[i]);
	if (mt_trace_jobs_build(t, err) != MT_OK)
		return MT_ERR_NOMEM;
	mt_trace_sort(t->procs, t->nprocs, sizeof(*t->procs), cmp_proc);
	for (i = 0; i < t->nprocs; i++) {
		struct mt_trace_proc *p = &t->procs[i];

		/* Monotonic clocks of different hosts share no origin. */
		if (t->nhosts > 1 && p->clock_start)
			p->merge_offset_ns = (int64_t)(p->clock_start->realtime_ns -
						       p->clock_start->monotonic_ns);
		for (j = 0; j < p->nfiles; j++) {
			p->files[j]->proc = (uint32_t)i;
			p->files[j]->index = (uint32_t)j;
		}
	}
	return MT_OK;
}

/* Every file of paths opened into a new *out, scanned unless plan gives
 * it to another part: the processes are not built yet (part_done). */
static enum mt_status open_files(const char *const *paths, size_t n, int lean,
				 struct mt_trace_plan *plan, struct mt_trace **out,
				 struct mt_err *err)
{
	struct file_list l = { .lean = lean, .plan = plan };
	enum mt_status st = MT_OK;
	struct mt_trace *t;
	struct stat sb;

	if (!paths || !n || !out)
		return mt_err_set(err, MT_ERR_ARG, "mt_trace_open: no paths");
	t = calloc(1, sizeof(*t));
	if (!t)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n && st == MT_OK; i++) {
		if (stat(paths[i], &sb))
			st = mt_err_set(err, MT_ERR_IO, "%s: %s", paths[i],
					strerror(errno));
		else if (S_ISDIR(sb.st_mode))
			st = add_dir(&l, paths[i], err);
		else
			st = add_file(&l, paths[i], err);
	}
	free(l.copy.p);
	/* The trace owns every opened file from here on. */
	t->files = l.v;
	t->nfiles = l.n;
	t->nempty = l.empty;
	if (st == MT_OK && !l.n)
		st = mt_err_set(err, MT_ERR_ARG, "%s: no trace file holds a header "
				"(%zu empty)", paths[0], l.empty);
	if (st != MT_OK) {
		mt_trace_close(t);
		return st;
	}
	*out = t;
	return MT_OK;
}

enum mt_status mt_trace_part_done(struct mt_trace *t, struct mt_err *err)
{
	enum mt_status st;

	for (size_t i = 0; i < t->nfiles; i++)
		if (t->files[i]->scan_owed)
			return mt_err_set(err, MT_ERR_ARG, "%s: its scan never came "
					  "from part %d of the opening",
					  t->files[i]->path, t->files[i]->scan_part);
	st = group(t, t->files, t->nfiles, err);
	if (st == MT_OK)
		st = mt_trace_addr_build(t, err);
	if (st == MT_OK)
		st = mt_trace_sites_build(t, err);
	return st;
}

enum mt_status mt_trace_open(const char *const *paths, size_t n,
			     struct mt_trace **out, struct mt_err *err)
{
	enum mt_status st = open_files(paths, n, 0, NULL, out, err);

	if (st == MT_OK && (st = mt_trace_part_done(*out, err))) {
		mt_trace_close(*out);
		*out = NULL;
	}
	return st;
}

enum mt_status mt_trace_open_part(const char *const *paths, size_t n,
				  unsigned part, unsigned nparts,
				  struct mt_trace **out, struct mt_err *err)
{
	struct mt_trace_plan plan = { part, nparts, calloc(nparts ? nparts : 1,
							   sizeof(*plan.load)) };
	enum mt_status st;

	if (!plan.load)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	if (part >= nparts)
		st = mt_err_set(err, MT_ERR_ARG, "mt_trace_open_part: part %u of %u",
				part, nparts);
	else
		st = open_files(paths, n, 1, &plan, out, err);
	free(plan.load);
	return st;
}

void mt_trace_close(struct mt_trace *t)
{
	if (!t)
		return;
	mt_trace_sites_free(t);
	for (size_t i = 0; i < t->nfiles; i++)
		mt_trace_file_close(t->files[i]);
	free(t->files);
	free(t->procs);
	free(t->jobs);
	free(t->forks);
	mt_trace_addr_free(t);
	free(t);
}
