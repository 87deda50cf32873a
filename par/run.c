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

static enum mt_status engine(const struct mt_pipe_opts *o,
			     const struct mt_sink_ops *sink, FILE *out,
			     struct mt_err *err)
{
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
	mt_cmd_pipe_engine = engine;
	/* Every rank parses the same line: they agree on a usage error
	 * without talking, and run the engine together otherwise. */
	rc = cmd->run(argc, argv);
	fflush(stdout);
	fflush(stderr);
	/* Rank 0's status is the command's: ranks that stopped early (rank
	 * 0's sink failed, an OTF2 archive rank 0 read alone) wait for it
	 * without spinning. */
	MPI_Ibcast(&rc, 1, MPI_INT, 0, comm, &req);
	mt_par_wait(&req, WAIT_POLL_NS);
	return rc;
}
