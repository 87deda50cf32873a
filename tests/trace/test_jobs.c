/*
 * test_jobs.c - processes grouped into jobs (job id, or host:pid with no
 * launcher), jobs in order of appearance, keys numbering (job, rank), the
 * launch a spawned job shares; and a file read while its writer appends
 * and then truncates it at close.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tw.h"

/* A process forked from pid parent (0: none), first record at tick ts:
 * PROC with rank, job id and start time, saved as host.pid.0.mt. */
static void forked(const char *dir, uint32_t pid, uint32_t parent, int32_t rank,
		   const char *job, uint64_t start, uint64_t ts)
{
	struct mt_rec_proc *p;
	char name[64];
	struct tw w;

	tw_init(&w, pid, 0);
	tw_proc(&w, ts, rank, 1000000000, "h");
	p = (struct mt_rec_proc *)(w.buf + tw_hdr(&w)->data_off);
	snprintf(p->job_id, sizeof(p->job_id), "%s", job);
	p->start_realtime_ns = start;
	p->h.aux = parent;
	snprintf(name, sizeof(name), "h.%u.0.mt", pid);
	free(tw_save(&w, dir, name));
	tw_free(&w);
}

static void proc(const char *dir, uint32_t pid, int32_t rank, const char *job,
		 uint64_t start)
{
	forked(dir, pid, 0, rank, job, start, 100);
}

static struct mt_trace *open_dir(const char *dir)
{
	struct mt_trace *t;
	struct mt_err err;

	cr_assert_eq(mt_trace_open(&dir, 1, &t, &err), MT_OK, "%s", err.msg);
	return t;
}

static const struct mt_trace_proc *by_pid(const struct mt_trace *t, uint32_t pid)
{
	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	cr_assert_fail("no process %u", pid);
	return NULL;
}

/* A parent job of 2 ranks, its spawned children (same Open MPI job family,
 * started later), and an unrelated launch that started in between. */
Test(jobs, spawn_and_unrelated)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;
	uint32_t job;
	int32_t rank;

	proc(dir, 10, 1, "543293441", 1000);	/* 0x20620001: family 0x2062 */
	proc(dir, 11, 0, "543293441", 1001);
	proc(dir, 20, 0, "543293442", 3000);	/* spawned: same family */
	proc(dir, 21, 1, "543293442", 3001);
	proc(dir, 30, 0, "810418177", 2000);	/* another mpirun */
	t = open_dir(dir);
	cr_assert_eq(t->njobs, 3);
	cr_assert_eq(t->nlaunches, 2);
	cr_assert_str_eq(t->jobs[0].id, "543293441");
	cr_assert_str_eq(t->jobs[1].id, "810418177");
	cr_assert_str_eq(t->jobs[2].id, "543293442");
	cr_assert_eq(t->jobs[1].launch, 1);
	cr_assert_eq(t->jobs[2].launch, 0, "the spawned job shares its parent's launch");
	cr_assert_eq(by_pid(t, 11)->key, 0);
	cr_assert_eq(by_pid(t, 10)->key, 1);
	cr_assert_eq(by_pid(t, 30)->key, 2);
	cr_assert_eq(by_pid(t, 20)->key, 3);
	cr_assert_eq(by_pid(t, 21)->key, 4);
	cr_assert_eq(by_pid(t, 21)->job, 2);
	for (size_t i = 0; i + 1 < t->nprocs; i++)
		cr_assert_lt(t->procs[i].key, t->procs[i + 1].key, "sorted by key");
	cr_assert_eq(mt_trace_key_rank(t, 4, &job, &rank), 0);
	cr_assert_eq(job, 2);
	cr_assert_eq(rank, 1);
	cr_assert_eq(mt_trace_key_rank(t, 2, &job, &rank), 0);
	cr_assert_eq(job, 1);
	cr_assert_eq(rank, 0);
	cr_assert_neq(mt_trace_key_rank(t, 5, &job, &rank), 0);
	cr_assert_neq(mt_trace_key_rank(t, -1, &job, &rank), 0);
	mt_trace_close(t);
	tw_rmdir(dir);
}

/* One job (ranks, one id): keys are the world ranks, as before jobs. */
/* Open MPI 5's PRRTE namespaces "prterun-HOST-PID@N" as recorders before
 * this one wrote them ('@' as '_'): a spawned job still shares its parent's
 * launch, another mpirun's (another PID) does not, and an id that only
 * ends in "_N" is a launch of its own. */
Test(jobs, prrte_namespace_recorded_with_underscore)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;

	proc(dir, 10, 0, "prterun-vm-3701_1", 1000);
	proc(dir, 20, 0, "prterun-vm-3701_2", 3000);	/* spawned */
	proc(dir, 30, 0, "prterun-vm-3899_1", 2000);	/* another mpirun */
	proc(dir, 40, 0, "batch_7", 4000);
	proc(dir, 50, 0, "batch_8", 5000);
	t = open_dir(dir);
	cr_assert_eq(t->njobs, 5);
	cr_assert_str_eq(t->jobs[2].id, "prterun-vm-3701_2");
	cr_assert_eq(t->jobs[2].launch, 0, "the spawned job shares its parent's launch");
	cr_assert_eq(t->jobs[1].launch, 1);
	cr_assert_eq(t->jobs[3].launch, 3);
	cr_assert_eq(t->jobs[4].launch, 4);
	cr_assert_eq(t->nlaunches, 4);
	mt_trace_close(t);
	tw_rmdir(dir);
}

Test(jobs, one_job_keys_are_ranks)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;

	proc(dir, 12, 2, "", 5);
	proc(dir, 13, 0, "", 9);
	t = open_dir(dir);
	cr_assert_eq(t->njobs, 1);
	cr_assert_eq(by_pid(t, 12)->key, 2);
	cr_assert_eq(by_pid(t, 13)->key, 0);
	cr_assert_eq(t->jobs[0].span, 3);
	mt_trace_close(t);
	tw_rmdir(dir);
}

/* No launcher: each process a job of its own, rank 0, named host:pid. */
Test(jobs, no_launcher)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;

	proc(dir, 40, -1, "", 7);
	proc(dir, 41, -1, "", 8);
	t = open_dir(dir);
	cr_assert_eq(t->njobs, 2);
	cr_assert_eq(t->nlaunches, 2);
	cr_assert_str_eq(t->jobs[0].id, "h:40");
	cr_assert_eq(by_pid(t, 40)->key, 0);
	cr_assert_eq(by_pid(t, 41)->key, 1);
	cr_assert_eq(by_pid(t, 41)->job, 1);
	mt_trace_close(t);
	tw_rmdir(dir);
}

/*
 * Forked processes keep their parent's job and rank (and start time) but
 * are keyed apart, after every job's ranks: each rank's forks depth first
 * (a fork, then its own), siblings in order of appearance. Rank 0 of job
 * "5" forks 40 (which forks 41) and, appearing earlier, 42; a process with
 * no launcher (a job of its own, h:50) forks 51, which stays in its job.
 */
Test(jobs, forks_keyed_apart)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;
	uint32_t job;
	int32_t rank;

	proc(dir, 10, 0, "5", 1000);
	proc(dir, 11, 1, "5", 1000);
	forked(dir, 40, 10, 0, "5", 1000, 100);
	forked(dir, 41, 40, 0, "5", 1000, 200);
	forked(dir, 42, 10, 0, "5", 1000, 50);
	proc(dir, 50, -1, "", 2000);
	forked(dir, 51, 50, -1, "", 2000, 300);
	t = open_dir(dir);
	cr_assert_eq(t->njobs, 2, "forks make no job of their own");
	cr_assert_eq(t->jobs[0].nprocs, 5);
	cr_assert_eq(t->jobs[1].nprocs, 2);
	cr_assert_str_eq(t->jobs[1].id, "h:50", "the fork counts in its root's job");
	cr_assert_eq(by_pid(t, 10)->key, 0);
	cr_assert_eq(by_pid(t, 11)->key, 1);
	cr_assert_eq(by_pid(t, 50)->key, 2);
	cr_assert_eq(t->fork_base, 3);
	cr_assert_eq(t->nforks, 4);
	cr_assert_eq(by_pid(t, 42)->key, 3, "the first fork to appear is f1");
	cr_assert_eq(by_pid(t, 40)->key, 4);
	cr_assert_eq(by_pid(t, 41)->key, 5, "a fork's own forks follow it");
	cr_assert_eq(by_pid(t, 51)->key, 6);
	cr_assert_eq(by_pid(t, 51)->job, 1);
	cr_assert_eq(mt_trace_key_fork(t, 0), 0);
	cr_assert_eq(mt_trace_key_fork(t, 3), 1);
	cr_assert_eq(mt_trace_key_fork(t, 4), 2);
	cr_assert_eq(mt_trace_key_fork(t, 5), 3);
	cr_assert_eq(mt_trace_key_fork(t, 6), 1);
	cr_assert_eq(mt_trace_key_fork(t, 7), 0);
	cr_assert_eq(mt_trace_key_rank(t, 5, &job, &rank), 0);
	cr_assert(job == 0 && rank == 0, "41 is a fork of job 0's rank 0");
	cr_assert_eq(mt_trace_key_rank(t, 6, &job, &rank), 0);
	cr_assert(job == 1 && rank == 0);
	for (size_t i = 0; i + 1 < t->nprocs; i++)
		cr_assert_lt(t->procs[i].key, t->procs[i + 1].key, "sorted by key");
	mt_trace_close(t);
	tw_rmdir(dir);
}

/*
 * A file opened while its writer still appends (committed grows, the file
 * is grown past it) and then closes it (flag set, file truncated to its
 * records): what was opened keeps its header and records as they were, and
 * reading them after the truncation does not fault.
 */
Test(jobs, file_read_while_written)
{
	char *dir = tw_tmpdir(), *path;
	struct mt_trace_file *f;
	const struct mt_rec_hdr *r, *first;
	struct mt_trace_cursor c;
	struct mt_err err;
	uint64_t committed, end;
	size_t n = 0, len;
	struct tw w;
	uint8_t *buf;

	tw_init(&w, 50, 0);
	tw_proc(&w, 1, 0, 1000000000, "h");
	for (int i = 0; i < 100; i++)
		tw_op(&w, MT_OP_TSEND, 10 + (uint64_t)i, (uint64_t)i);
	path = tw_save(&w, dir, "h.50.0.mt");
	/* As written: not closed yet, preallocated well past the records. */
	tw_hdr(&w)->flags &= ~(uint32_t)MT_FILE_CLOSED;
	committed = tw_hdr(&w)->committed;
	end = tw_hdr(&w)->data_off + committed;
	/* Committed at open: the PROC record and 50 of the 100 OPs. */
	first = (const struct mt_rec_hdr *)(w.buf + tw_hdr(&w)->data_off);
	tw_hdr(&w)->committed = first->size + 50 * ((committed - first->size) / 100);
	tw_write(path, w.buf, w.len);
	cr_assert_eq(truncate(path, (off_t)(end + (1 << 20))), 0);
	cr_assert_eq(mt_trace_file_open(path, &f, &err), MT_OK, "%s", err.msg);
	cr_assert_leq(f->map_len, end, "only the committed bytes are mapped");
	/* The writer commits the rest, then closes: flag, truncate. */
	buf = tw_read(path, &len);
	((struct mt_file_hdr *)buf)->committed = committed;
	((struct mt_file_hdr *)buf)->flags |= MT_FILE_CLOSED;
	tw_write(path, buf, (size_t)end);
	free(buf);
	cr_assert(!mt_trace_file_clean(f), "the header as read at open");
	cr_assert_eq(f->hdr->committed, tw_hdr(&w)->committed);
	mt_trace_cursor_init(&c, f);
	while (mt_trace_cursor_next(&c, &r, &err) == MT_OK)
		n++;
	cr_assert_eq(n, 51, "the PROC record and the 50 OPs committed at open");
	mt_trace_file_close(f);
	free(path);
	tw_free(&w);
	tw_rmdir(dir);
}

/* A process whose first file (its PROC record) is missing joins the first
 * job with its rank unknown, instead of passing for another launch. */
Test(jobs, lost_proc_record)
{
	char *dir = tw_tmpdir();
	struct mt_trace *t;
	struct tw w;

	proc(dir, 60, 0, "65537", 5);
	proc(dir, 61, 1, "65537", 6);
	tw_init(&w, 62, 1);		/* thread 1 only */
	tw_op(&w, MT_OP_TSEND, 10, 1);
	free(tw_save(&w, dir, "h.62.1.mt"));
	tw_free(&w);
	t = open_dir(dir);
	cr_assert_eq(t->njobs, 1);
	cr_assert_eq(t->nlaunches, 1);
	cr_assert_eq(t->jobs[0].nprocs, 3);
	cr_assert_eq(by_pid(t, 62)->job, 0);
	cr_assert_eq(by_pid(t, 62)->key, -1);
	mt_trace_close(t);
	tw_rmdir(dir);
}
