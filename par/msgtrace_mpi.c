/*
 * msgtrace_mpi.c - the `msgtrace-mpi` command: `mpirun -np N msgtrace-mpi
 * COMMAND [OPTIONS] DIR|FILE...` prints what `msgtrace COMMAND ...`
 * prints (and writes), for report, messages and export.
 */
#include <stdio.h>

#include "cmd.h"
#include "mt_par.h"

/* stdout's stdio buffer (given: glibc ignores the size of one it
 * allocates). */
static char stdout_buf[1 << 16];

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: mpirun -np N msgtrace-mpi COMMAND [OPTIONS] DIR|FILE...\n"
		"Run a msgtrace analysis command inside an MPI job. COMMAND is\n"
		"report, messages or export, with the options of `msgtrace\n"
		"COMMAND` (`msgtrace COMMAND --help`); the output is the same,\n"
		"whatever N. Each rank reads and decodes the files of its share of\n"
		"the traced processes (balanced by size) and pairs the messages\n"
		"their receivers take; rank 0 corrects clocks and writes the\n"
		"output, every rank lines of `messages --csv`.\n\n"
		"Exit status: 0 success, 1 bad input, 2 usage error, on every rank.\n");
}

/* One subcommand: every rank parses the same line (they agree on a usage
 * error without talking), only rank 0's output is seen. */
static int run(const struct mt_cmd *cmd, int argc, char **argv)
{
	return mt_par_run(MPI_COMM_WORLD, cmd, argc, argv);
}

int main(int argc, char **argv)
{
	static const struct mt_cmd_prog prog = {
		"msgtrace-mpi", MSGTRACE_VERSION, usage, mt_par_cmds, run
	};
	int rank, rc;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	/* Rank 0 speaks for the job: the others say nothing it does not. */
	if (rank != 0 && (!freopen("/dev/null", "w", stdout) ||
			  !freopen("/dev/null", "w", stderr)))
		MPI_Abort(MPI_COMM_WORLD, MT_EXIT_BAD_INPUT);
	/* mpirun hands rank 0 a terminal of its own for stdout, line
	 * buffered: a CSV line per write and per forwarding. Blocks, as
	 * msgtrace writes into a pipe or file. */
	setvbuf(stdout, stdout_buf, _IOFBF, sizeof(stdout_buf));
	/* Each stderr line in one write(2), as msgtrace's. */
	setvbuf(stderr, NULL, _IOLBF, BUFSIZ);
	rc = mt_cmd_dispatch(&prog, argc, argv);
	MPI_Finalize();
	return rc;
}
