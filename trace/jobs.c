/*
 * jobs.c - which job each process belongs to, the jobs in order of
 * appearance, and the key that numbers (job, rank) for the later stages
 * (see struct mt_trace_job).
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
	int64_t start_ns;
	size_t proc;
};

/* The job id and rank of p: the launcher's, or host:pid as rank 0. */
static void member_of(const struct mt_trace_proc *p, size_t i, struct member *m)
{
	const struct mt_rec_proc *r = p->rec;

	m->proc = i;
	m->orphan = !r;
	m->rank = p->world_rank;
	m->start_ns = r && r->start_realtime_ns <= INT64_MAX ?
		      (int64_t)r->start_realtime_ns : INT64_MAX;
	if (r && r->job_id[0])
		snprintf(m->id, sizeof(m->id), "%.*s", (int)sizeof(r->job_id),
			 r->job_id);
	else if (!r || r->world_rank >= 0)
		m->id[0] = '\0';
	else {
		snprintf(m->id, sizeof(m->id), "%.63s:%" PRIu32, p->host, p->pid);
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

/* The launch a job id belongs to: Open MPI's job family (a numeric job id's
 * high 16 bits), a PMIx namespace before its '@', else the id itself. */
static void launch_of(const char *id, char *buf, size_t len)
{
	const char *at = strrchr(id, '@');
	unsigned long long v;
	char *end;

	errno = 0;
	v = id[0] >= '0' && id[0] <= '9' ? strtoull(id, &end, 10) : 0;
	if (id[0] >= '0' && id[0] <= '9' && !*end && !errno)
		snprintf(buf, len, "#%llu", v >> 16);
	else
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
	for (size_t i = 0; i < t->nprocs; i++) {
		struct mt_trace_proc *p = &t->procs[m[i].proc];
		int64_t key = t->jobs[job_of[i]].base + m[i].rank;

		p->job = job_of[i];
		p->key = m[i].rank >= 0 && key <= INT32_MAX ? (int32_t)key : -1;
	}
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
		member_of(&t->procs[i], i, &m[i]);
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
