/*
 * test_job_id.c - the launcher's job id as the recording path (mt_rec)
 * writes it and as the reader (trace/) groups it into launches: processes
 * recorded under a PMIx namespace and its spawned job's ("NAME@1",
 * "NAME@2", as Open MPI 5's PRRTE names them) are two jobs of one launch,
 * and a namespace of another mpirun is a launch apart.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt_rec.h"
#include "rec_dir.h"
#include "mt_trace.h"

static void quiet(const char *msg)
{
	(void)msg;
}

/* A process of job 'ns' with rank 'rank' records one call and exits. */
static void record_as(const char *ns, const char *rank)
{
	struct mt_rec_conf c = {
		.dir = rec_dir, .buffer_size = 1 << 20, .chunk_size = 1 << 16,
		.file_mode = 0600, .fi_version = 0x10011, .warn = quiet,
	};
	const struct mt_rec_opargs a = { 1, 2, 3, 4, 5, 6, 7, 8 };
	pid_t pid = fork();
	int status;

	cr_assert_neq(pid, -1);
	if (!pid) {
		unsetenv("OMPI_MCA_ess_base_jobid");
		unsetenv("OMPI_COMM_WORLD_RANK");
		setenv("PMIX_NAMESPACE", ns, 1);
		setenv("PMIX_RANK", rank, 1);
		if (mt_rec_init(&c))
			_exit(2);
		mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSEND, &a), 0, 1);
		mt_rec_fini();
		_exit(0);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && !WEXITSTATUS(status),
		  "the recording process failed (status %#x)", status);
}

TestSuite(job_id, .init = rec_dir_setup, .fini = rec_dir_teardown);

Test(job_id, spawned_namespace_shares_its_launch)
{
	const char *paths[] = { rec_dir };
	struct mt_err err = { "" };
	struct mt_trace *t;

	record_as("prterun-node1-4242@1", "0");
	record_as("prterun-node1-4242@1", "1");
	record_as("prterun-node1-4242@2", "0");
	record_as("prterun-node1-5151@1", "0");
	cr_assert_eq(mt_trace_open(paths, 1, &t, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(t->njobs, 3);
	cr_assert_str_eq(t->jobs[0].id, "prterun-node1-4242@1",
			 "the job id is recorded as the launcher gave it");
	cr_assert_str_eq(t->jobs[1].id, "prterun-node1-4242@2");
	cr_assert_eq(t->jobs[1].launch, 0, "the spawned job shares its parent's launch");
	cr_assert_eq(t->jobs[2].launch, 2, "another mpirun's job is a launch of its own");
	cr_assert_eq(t->nlaunches, 2);
	mt_trace_close(t);
}
