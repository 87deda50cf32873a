/*
 * test_dump.c - `msgtrace dump` as a user runs it: output lines, exit
 * status 0/1/2 and the error message for a corrupt file.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tw.h"

/* Run `msgtrace ARGS` with stdout/stderr into dir/out, dir/err. */
static int run(const char *dir, const char *args)
{
	char cmd[2048];
	int rc;

	snprintf(cmd, sizeof(cmd), "'%s' %s >'%s/out' 2>'%s/err'", MSGTRACE_BIN,
		 args, dir, dir);
	rc = system(cmd);
	cr_assert(WIFEXITED(rc), "%s did not exit", cmd);
	return WEXITSTATUS(rc);
}

static char *slurp(const char *dir, const char *name)
{
	char path[512];
	size_t len;
	char *s;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	s = (char *)tw_read(path, &len);
	s[len] = '\0';
	return s;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

/* One process with 3 tsends, the last still inside its call when the
 * process died; a bad record after them if corrupt. */
static char *make_trace(int corrupt)
{
	char *dir = tw_tmpdir(), *tdir;
	struct tw w;

	cr_assert(asprintf(&tdir, "%s/trace", dir) > 0);
	cr_assert_eq(mkdir(tdir, 0700), 0);
	tw_init(&w, 42, 0);
	tw_proc(&w, 0, 0, 1000000000ull, "node");
	for (int i = 0; i < 3; i++)
		tw_op(&w, MT_OP_TSENDDATA, 1000 * (uint64_t)(i + 1), 0xabc0 + (uint64_t)i);
	tw_op(&w, MT_OP_TSENDDATA, 4000, 0xabc3)->ret = MT_OP_RET_PENDING;
	if (corrupt)
		((struct mt_rec_hdr *)tw_add(&w, MT_REC_OP, 0, sizeof(struct mt_rec_op), 5000))->size = 12;
	free(tw_save(&w, tdir, "node.42.0.mt"));
	tw_free(&w);
	free(tdir);
	return dir;
}

Test(dump, good_trace_prints_every_record)
{
	char *dir = make_trace(0), args[512], *out;

	snprintf(args, sizeof(args), "dump '%s/trace'", dir);
	cr_expect_eq(run(dir, args), 0);
	out = slurp(dir, "out");
	cr_expect_eq(count(out, "\n"), 5, "%s", out);
	cr_expect_eq(count(out, " tsenddata "), 4);
	cr_expect_eq(count(out, " ret=0 "), 3, "%s", out);
	cr_expect(strstr(out, "tag=0x000000000000abc3") &&
		  strstr(strstr(out, "tag=0x000000000000abc3"), " ret=pending "),
		  "%s", out);
	cr_expect(strstr(out, "0.000002000 r0   t0  app op    tsenddata") != NULL,
		  "%s", out);
	cr_expect(strstr(out, "tag=0x000000000000abc1") != NULL, "%s", out);
	free(out);
	snprintf(args, sizeof(args), "dump --kind proc '%s/trace'", dir);
	cr_expect_eq(run(dir, args), 0);
	out = slurp(dir, "out");
	cr_expect_eq(count(out, "\n"), 1, "%s", out);
	free(out);
	tw_rmdir(dir);
}

Test(dump, corrupt_trace_exits_1_after_good_records)
{
	char *dir = make_trace(1), args[512], want[512], *out, *err;

	snprintf(args, sizeof(args), "dump '%s/trace/node.42.0.mt'", dir);
	cr_expect_eq(run(dir, args), 1);
	out = slurp(dir, "out");
	err = slurp(dir, "err");
	cr_expect_eq(count(out, " tsenddata "), 4, "%s", out);
	snprintf(want, sizeof(want), "msgtrace dump: %s/trace/node.42.0.mt: offset %zu: "
		 "record size 12 is not a multiple of 8\n", dir,
		 (size_t)MT_FILE_HDR_SIZE + sizeof(struct mt_rec_proc) +
		 4 * sizeof(struct mt_rec_op));
	cr_expect_str_eq(err, want);
	free(out);
	free(err);
	snprintf(args, sizeof(args), "dump --summary '%s/trace'", dir);
	cr_expect_eq(run(dir, args), 1);
	out = slurp(dir, "out");
	cr_expect(strstr(out, "ops: tsenddata 4") != NULL, "%s", out);
	free(out);
	tw_rmdir(dir);
}

Test(dump, usage_errors_exit_2)
{
	char *dir = make_trace(0), args[512];

	snprintf(args, sizeof(args), "dump --kind nosuch '%s/trace'", dir);
	cr_expect_eq(run(dir, args), 2);
	cr_expect_eq(run(dir, "dump"), 2);
	snprintf(args, sizeof(args), "dump --rank x '%s/trace'", dir);
	cr_expect_eq(run(dir, args), 2);
	cr_expect_eq(run(dir, "dump --help"), 0);
	snprintf(args, sizeof(args), "dump '%s/missing'", dir);
	cr_expect_eq(run(dir, args), 1);
	tw_rmdir(dir);
}

/* `dump --summary --rank RANK` of tdir says want, and nothing of other. */
static void summary_of(const char *dir, const char *tdir, const char *rank,
		       const char *want, const char *other)
{
	char args[512], *out;

	snprintf(args, sizeof(args), "dump --summary --rank %s '%s'", rank, tdir);
	cr_assert_eq(run(dir, args), 0);
	out = slurp(dir, "out");
	cr_expect(strstr(out, want), "%s", out);
	cr_expect_eq(count(out, other), 0, "%s", out);
	free(out);
}

/* Two jobs in one directory: ranks print as N and JOB:N, and --rank takes
 * them as printed (rank 0 of the first job is not rank 0 of the second). */
Test(dump, ranks_of_two_jobs)
{
	char *dir = tw_tmpdir(), *tdir, args[512];
	struct tw w;

	cr_assert(asprintf(&tdir, "%s/trace", dir) > 0);
	cr_assert_eq(mkdir(tdir, 0700), 0);
	for (uint32_t pid = 50; pid < 52; pid++) {
		struct mt_rec_proc *p;
		char name[64];

		tw_init(&w, pid, 0);
		tw_proc(&w, 0, 0, 1000000000ull, "node");
		p = (struct mt_rec_proc *)(w.buf + tw_hdr(&w)->data_off);
		snprintf(p->job_id, sizeof(p->job_id), "%u", pid == 50 ? 65537 : 131073);
		p->start_realtime_ns = pid;
		snprintf(name, sizeof(name), "node.%u.0.mt", pid);
		free(tw_save(&w, tdir, name));
		tw_free(&w);
	}
	summary_of(dir, tdir, "1:0", "rank 1:0  host node  pid 51 ", "pid 50");
	summary_of(dir, tdir, "0", "rank 0  host node  pid 50 ", "pid 51");
	snprintf(args, sizeof(args), "dump --rank :0 '%s'", tdir);
	cr_expect_eq(run(dir, args), 2);
	free(tdir);
	tw_rmdir(dir);
}

/* Call sites: MAP and SITE records printed, an OP naming its site, and
 * calls whose thread's site table was full counted in the summary. */
Test(dump, call_site_records)
{
	char *dir = tw_tmpdir(), *tdir, args[512], *out;
	const char *path = "/opt/app/solver";
	struct mt_rec_map *m;
	struct mt_rec_site *s;
	struct tw w;

	cr_assert(asprintf(&tdir, "%s/trace", dir) > 0);
	cr_assert_eq(mkdir(tdir, 0700), 0);
	tw_init(&w, 42, 0);
	tw_proc(&w, 0, 0, 1000000000ull, "node");
	m = tw_add(&w, MT_REC_MAP, MT_MAP_APP, sizeof(*m) + 16, 1);
	m->base = m->start = 0x555500000000;
	m->end = m->base + 0x4000;
	memcpy((char *)m + offsetof(struct mt_rec_map, path), path, strlen(path) + 1);
	s = tw_add(&w, MT_REC_SITE, 1, sizeof(*s), 2);
	s->app = 0x555500001234;
	((struct mt_rec_op_site *)tw_add(&w, MT_REC_OP, MT_OP_TSEND,
					 sizeof(struct mt_rec_op_site), 3))->site = 1;
	for (int i = 0; i < 2; i++)
		((struct mt_rec_op_site *)tw_add(&w, MT_REC_OP, MT_OP_TSEND,
						 sizeof(struct mt_rec_op_site), 4))->site =
			MT_SITE_LOST;
	free(tw_save(&w, tdir, "node.42.0.mt"));
	tw_free(&w);
	snprintf(args, sizeof(args), "dump '%s'", tdir);
	cr_assert_eq(run(dir, args), 0);
	out = slurp(dir, "out");
	cr_expect(strstr(out, " map   app base=0x555500000000 start=0x555500000000 "
			 "end=0x555500004000 build_id= path=/opt/app/solver\n"), "%s", out);
	cr_expect(strstr(out, " site  index=1 app=0x555500001234 entry=0x0\n"), "%s", out);
	cr_expect_eq(count(out, " site=1\n"), 1, "%s", out);
	free(out);
	snprintf(args, sizeof(args), "dump --summary '%s'", tdir);
	cr_assert_eq(run(dir, args), 0);
	out = slurp(dir, "out");
	cr_expect(strstr(out, " map 1 site 1 unknown 0\n"), "%s", out);
	cr_expect(strstr(out, "nofile 0 call_sites 2  eagain"), "%s", out);
	free(out);
	free(tdir);
	tw_rmdir(dir);
}
