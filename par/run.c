/*
 * run.c - one analysis command in an MPI job (see mt_par.h): the command's
 * own option parsing and printing (tools/), its analysis divided among the
 * ranks (engine.c), its exit status shared by every rank.
 */
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>

#include "cmd.h"
#include "mt_par.h"
#include "par_int.h"

/* The commands msgtrace-mpi offers: the ones whose output it reproduces. */
const struct mt_cmd *const mt_par_cmds[] = {
	&mt_cmd_report,
	&mt_cmd_messages,
	&mt_cmd_export,
	NULL
};

#define WAIT_POLL_NS 2000000	/* 2 ms between two looks at rank 0 */

static MPI_Comm run_comm;	/* the job of the command being run */
static int run_analysed;	/* whether this rank reached the engine */

/* Whether every rank reaches the analysis (this one if here): a rank whose
 * command stopped before it (its line, or a file only it could not create,
 * as on another node) says so once its command is over, and the others
 * stop too, instead of waiting for it in the engine's first exchange. */
static int all_analyse(int here)
{
	int all = here;

	MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, run_comm);
	return all;
}

static enum mt_status engine(const struct mt_pipe_opts *o,
			     const struct mt_sink_ops *sink, FILE *out,
			     struct mt_err *err)
{
	run_analysed = 1;
	if (!all_analyse(1))
		return mt_err_set(err, MT_ERR_ARG, "another analysis rank stopped "
				  "before the analysis (its command line, or a "
				  "file it could not reach)");
	/* The MPI library's threads make stdio lock the stream at every
	 * character the sink writes (4% more instructions than msgtrace's
	 * messages); only this thread writes to out. */
	__fsetlocking(out, FSETLOCKING_BYCALLER);
	return mt_par_engine(run_comm, o, sink, out, err);
}

int mt_par_run(MPI_Comm comm, const struct mt_cmd *cmd, int argc, char **argv)
{
	MPI_Request req;
	int rank, rc;

	MPI_Comm_rank(comm, &rank);
	run_comm = comm;
	run_analysed = 0;
	mt_cmd_pipe_engine = engine;
	/* Rank 0 alone writes the output: only it creates -o's files. */
	mt_cmd_writes_files = rank == 0;
	rc = cmd->run(argc, argv);
	if (!run_analysed)
		all_analyse(0);
	fflush(stdout);
	fflush(stderr);
	/* Rank 0's status is the command's: ranks that stopped early (rank
	 * 0's sink failed, an OTF2 archive rank 0 read alone) wait for it
	 * without spinning. */
	MPI_Ibcast(&rc, 1, MPI_INT, 0, comm, &req);
	mt_par_wait(&req, WAIT_POLL_NS);
	return rc;
}
