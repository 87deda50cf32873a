/*
 * jobs.c - which job each process belongs to, the jobs in order of
 * appearance, and the key that numbers (job, rank) for the later stages
 * (see struct mt_trace_job); forked processes keyed apart from their rank
 * (struct mt_trace_fork).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

struct member {
	char id[sizeof(((struct mt_trace_job *)0)->id)];
	int32_t rank;
	int orphan;		/* no PROC record: its job is unknown */
	uint32_t fork_of;	/* pid of the process it is a fork of, or 0 */
	int64_t start_ns;
	size_t proc;
};

/* The process of pid on host, or NULL: procs are in (host, pid) order
 * while jobs are built (mt_trace_open groups files so). */
static const struct mt_trace_proc *proc_of_pid(const struct mt_trace *t,
					       const char *host, uint32_t pid)
{
	size_t lo = 0, hi = t->nprocs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mt_trace_proc *p = &t->procs[mid];
		int c = strcmp(p->host, host);

		if (!c && p->pid == pid)
			return p;
		if (c < 0 || (!c && p->pid < pid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The process a fork descends from: up its fork_of chain as far as the
 * trace holds it (bounded: a pid reused in a loop must not hang). */
static const struct mt_trace_proc *fork_root(const struct mt_trace *t,
					     const struct mt_trace_proc *p)
{
	for (size_t n = 0; n < t->nprocs && p->rec && p->rec->h.aux; n++) {
		const struct mt_trace_proc *up = proc_of_pid(t, p->host, p->rec->h.aux);

		if (!up)
			break;
		p = up;
	}
	return p;
}

/* The job id and rank of p: the launcher's, or host:pid as rank 0 (a
 * fork's the process it descends from: a fork keeps its parent's rank). */
static void member_of(const struct mt_trace *t, size_t i, struct member *m)
{
	const struct mt_trace_proc *p = &t->procs[i];
	const struct mt_rec_proc *r = p->rec;

	m->proc = i;
	m->orphan = !r;
	m->fork_of = r ? r->h.aux : 0;
	m->rank = p->world_rank;
	m->start_ns = r && r->start_realtime_ns <= INT64_MAX ?
		      (int64_t)r->start_realtime_ns : INT64_MAX;
	if (r && r->job_id[0])
		snprintf(m->id, sizeof(m->id), "%.*s", (int)sizeof(r->job_id),
			 r->job_id);
	else if (!r || r->world_rank >= 0)
		m->id[0] = '\0';
	else {
		snprintf(m->id, sizeof(m->id), "%.63s:%" PRIu32, p->host,
			 fork_root(t, p)->pid);
		m->rank = 0;
	}
}

/* By job id, processes without a PROC record last. */
static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->orphan != y->orphan)
		return x->orphan - y->orphan;
	return strcmp(x->id, y->id);
}

static int cmp_job(const void *a, const void *b)
{
	const struct mt_trace_job *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* Where the job number starts in a PRRTE namespace recorded with '_' for
 * its '@' (recorders before the '@' was kept wrote "prterun-HOST-PID_N"),
 * or NULL: only ids PRRTE names ("prte..."), ending in '_' and digits. */
static const char *prrte_underscore(const char *id)
{
	const char *u = strrchr(id, '_');

	if (strncmp(id, "prte", 4) || !u || !u[1] ||
	    strspn(u + 1, "0123456789") != strlen(u + 1))
		return NULL;
	return u;
}

/* The launch a job id belongs to: Open MPI's job family (a numeric job id's
 * high 16 bits), a PMIx namespace before its '@' (Open MPI 5's PRRTE names
 * a launch's jobs NAME@1, NAME@2 ...), else the id itself. */
static void launch_of(const char *id, char *buf, size_t len)
{
	const char *at = strrchr(id, '@');
	unsigned long long v;
	char *end;

	errno = 0;
	v = id[0] >= '0' && id[0] <= '9' ? strtoull(id, &end, 10) : 0;
	if (id[0] >= '0' && id[0] <= '9' && !*end && !errno) {
		snprintf(buf, len, "#%llu", v >> 16);
		return;
	}
	if (!at)
		at = prrte_underscore(id);
	snprintf(buf, len, "%.*s", at ? (int)(at - id) : (int)strlen(id), id);
}

struct launch {
	char key[sizeof(((struct mt_trace_job *)0)->id) + 1];
	uint32_t job;
};

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->job > y->job) - (x->job < y->job);
}

/* Each job's launch (the first job of the same launch key: sorted by key,
 * then job), base and span, each process's job and key. */
static void number(struct mt_trace *t, struct launch *l, const struct member *m,
		   const uint32_t *job_of)
{
	int64_t base = 0;

	for (size_t j = 0; j < t->njobs; j++) {
		launch_of(t->jobs[j].id, l[j].key, sizeof(l[j].key));
		l[j].job = (uint32_t)j;
	}
	mt_trace_sort(l, t->njobs, sizeof(*l), cmp_launch);
	t->nlaunches = 0;
	for (size_t k = 0; k < t->njobs; k++) {
		int first = !k || strcmp(l[k].key, l[k - 1].key);

		t->jobs[l[k].job].launch = first ? l[k].job : t->jobs[l[k - 1].job].launch;
		t->nlaunches += first;
	}
	for (size_t j = 0; j < t->njobs; j++) {
		t->jobs[j].base = base;
		base += t->jobs[j].span;
	}
	t->fork_base = base;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct mt_trace_proc *p = &t->procs[m[i].proc];
		int64_t key = t->jobs[job_of[i]].base + m[i].rank;

		p->job = job_of[i];
		p->key = m[i].rank >= 0 && key <= INT32_MAX && !m[i].fork_of ?
			 (int32_t)key : -1;
	}
}

/* A forked process being numbered: its place in its parent's list. */
struct forked {
	uint32_t job;
	int32_t rank;
	uint32_t parent;	/* pid of the process it is a fork of */
	int64_t first_ns;
	uint32_t pid;
	size_t proc;
};

/* By (job, rank), then siblings together in order of appearance. */
static int cmp_forked(const void *a, const void *b)
{
	const struct forked *x = a, *y = b;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The first of f[lo, hi) forked from pid (they are contiguous), or hi. */
static size_t children_of(const struct forked *f, size_t lo, size_t hi,
			  uint32_t pid)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f[mid].parent < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether f's parent is a process forked itself (then f is numbered
 * under it) rather than its rank's own or one the trace lacks. */
static int under_a_fork(const struct mt_trace *t, const struct forked *f)
{
	const struct mt_trace_proc *p = proc_of_pid(t, t->procs[f->proc].host,
						    f->parent);

	return p && p->rec && p->rec->h.aux;
}

/*
 * Numbers the forks of f[lo, hi) (one rank's) depth first: a fork, then
 * its own forks, siblings in order of appearance, starting from the forks
 * of the rank's own process (then any left, a cycle of reused pids).
 * stack holds hi - lo indices; done marks the numbered ones.
 */
static void number_rank_forks(struct mt_trace *t, const struct forked *f,
			      size_t lo, size_t hi, size_t *stack, char *done)
{
	uint32_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t r = lo; r < hi; r++) {
			size_t sp = 0;

			if (done[r] || (!pass && under_a_fork(t, &f[r])))
				continue;
			stack[sp++] = r;
			done[r] = 1;
			while (sp) {
				size_t i = stack[--sp], c, e;
				struct mt_trace_fork *fk = &t->forks[t->nforks];

				fk->job = f[i].job;
				fk->rank = f[i].rank;
				fk->n = ++n;
				t->procs[f[i].proc].key =
					(int32_t)(t->fork_base + (int64_t)t->nforks++);
				c = e = children_of(f, lo, hi, f[i].pid);
				while (e < hi && f[e].parent == f[i].pid)
					e++;
				/* Pushed last to first: popped in order. */
				while (e-- > c)
					if (!done[e]) {
						done[e] = 1;
						stack[sp++] = e;
					}
			}
		}
}

/* Keys for the forked processes after every job's ranks (t->fork_base):
 * grouped by (job, rank), each rank's numbered by number_rank_forks. */
static enum mt_status number_forks(struct mt_trace *t, const struct member *m,
				   const uint32_t *job_of)
{
	size_t nf = 0, k = 0;
	struct forked *f;
	size_t *stack;
	char *done;

	for (size_t i = 0; i < t->nprocs; i++)
		nf += m[i].fork_of && m[i].rank >= 0;
	t->nforks = 0;
	if (!nf)
		return MT_OK;
	f = calloc(nf, sizeof(*f));
	stack = calloc(nf, sizeof(*stack));
	done = calloc(nf, 1);
	t->forks = calloc(nf, sizeof(*t->forks));
	if (!f || !stack || !done || !t->forks) {
		free(f);
		free(stack);
		free(done);
		return MT_ERR_NOMEM;
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct mt_trace_proc *p = &t->procs[m[i].proc];

		if (m[i].fork_of && m[i].rank >= 0)
			f[k++] = (struct forked){ job_of[i], m[i].rank, m[i].fork_of,
						  p->first_ns, p->pid, m[i].proc };
	}
	mt_trace_sort(f, nf, sizeof(*f), cmp_forked);
	for (size_t lo = 0, hi; lo < nf; lo = hi) {
		for (hi = lo + 1; hi < nf && f[hi].job == f[lo].job &&
		     f[hi].rank == f[lo].rank; hi++)
			;
		number_rank_forks(t, f, lo, hi, stack, done);
	}
	free(f);
	free(stack);
	free(done);
	return MT_OK;
}

enum mt_status mt_trace_jobs_build(struct mt_trace *t, struct mt_err *err)
{
	size_t n = t->nprocs ? t->nprocs : 1;
	struct member *m = calloc(n, sizeof(*m));
	uint32_t *job_of = calloc(n, sizeof(*job_of)), *order = NULL;
	struct mt_trace_job *jobs = calloc(n, sizeof(*jobs));
	struct launch *l = calloc(n, sizeof(*l));
	int orphans_alone;

	if (!m || !job_of || !jobs || !l)
		goto nomem;
	for (size_t i = 0; i < t->nprocs; i++)
		member_of(t, i, &m[i]);
	mt_trace_sort(m, t->nprocs, sizeof(*m), cmp_member);
	orphans_alone = t->nprocs && m[0].orphan;
	t->njobs = 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		struct mt_trace_job *jb;

		/* A process whose PROC record was lost (its first file
		 * missing) counts in the first job, rank unknown (they sort
		 * last); only a trace of such processes alone makes them a job. */
		if (m[i].orphan && !orphans_alone) {
			job_of[i] = UINT32_MAX;
			continue;
		}
		if (!i || strcmp(m[i].id, m[i - 1].id)) {
			jb = &jobs[t->njobs++];
			memcpy(jb->id, m[i].id, sizeof(jb->id));
			jb->start_ns = INT64_MAX;
			jb->base = (int64_t)(t->njobs - 1);	/* its group, for order[] */
		}
		jb = &jobs[t->njobs - 1];
		jb->nprocs++;
		jb->start_ns = m[i].start_ns < jb->start_ns ? m[i].start_ns : jb->start_ns;
		if (m[i].rank >= 0 && (uint32_t)m[i].rank + 1 > jb->span)
			jb->span = (uint32_t)m[i].rank + 1;
		job_of[i] = (uint32_t)(t->njobs - 1);
	}
	/* In order of appearance; order[] maps a group to its place. */
	mt_trace_sort(jobs, t->njobs, sizeof(*jobs), cmp_job);
	if (!(order = calloc(t->njobs ? t->njobs : 1, sizeof(*order))))
		goto nomem;
	for (size_t j = 0; j < t->njobs; j++)
		order[jobs[j].base] = (uint32_t)j;
	for (size_t i = 0; i < t->nprocs; i++) {
		if (job_of[i] == UINT32_MAX)
			jobs[0].nprocs++;
		job_of[i] = job_of[i] == UINT32_MAX ? 0 : order[job_of[i]];
	}
	t->jobs = jobs;
	number(t, l, m, job_of);
	if (number_forks(t, m, job_of) != MT_OK) {
		t->jobs = NULL;
		free(order);
		goto nomem;
	}
	free(l);
	free(order);
	free(job_of);
	free(m);
	return MT_OK;
nomem:
	free(l);
	free(m);
	free(job_of);
	free(jobs);
	return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
}

int mt_trace_key_rank(const struct mt_trace *t, int32_t key, uint32_t *job,
		      int32_t *rank)
{
	size_t lo = 0, hi = t->njobs;

	if (mt_trace_key_fork(t, key)) {
		*job = t->forks[key - t->fork_base].job;
		*rank = t->forks[key - t->fork_base].rank;
		return 0;
	}

	/* Bases grow with the job index: the last job whose base is at most
	 * key is the one whose ranks can hold it. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->jobs[mid].base <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (key < 0 || !lo || key >= t->jobs[lo - 1].base + (int64_t)t->jobs[lo - 1].span)
		return -1;
	*job = (uint32_t)(lo - 1);
	*rank = (int32_t)(key - t->jobs[lo - 1].base);
	return 0;
}

uint32_t mt_trace_key_fork(const struct mt_trace *t, int32_t key)
{
	return key >= t->fork_base && key - t->fork_base < (int64_t)t->nforks ?
	       t->forks[key - t->fork_base].n : 0;
}
