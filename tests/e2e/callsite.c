/*
 * callsite.c - MPI calls whose source lines the program states, for the
 * call-site tests (callsite.sh, FI_OFI_HOOK_MSGTRACE_CALLSITE=1).
 *
 *   mpirun -np 2 callsite trunc DIR
 *     rank 0 sends 512 bytes with tag 7 to rank 1; rank 1 waits until it
 *     has arrived, then receives it into 100 bytes: MPI_ERR_TRUNCATE.
 *   mpirun -np N callsite hang DIR
 *     rank 0 waits in MPI_Recv for tag 99 from rank 1, which never sends
 *     it; every other rank waits in MPI_Barrier. Each rank creates
 *     DIR/ready.RANK just before its blocking call.
 *
 * Each rank writes DIR/lines.RANK: "<what> <line>" for every MPI call a
 * test looks for, the line being this file's (__LINE__ on the call).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *lines;

static void say(const char *what, int line)
{
	fprintf(lines, "%s %d\n", what, line);
	fflush(lines);
}

static void fail(const char *what)
{
	fprintf(stderr, "callsite: %s\n", what);
	MPI_Abort(MPI_COMM_WORLD, 1);
}

static void trunc_job(int rank)
{
	char big[512], small[100];
	MPI_Status st;
	int flag = 0, rc, cls;

	memset(big, 1, sizeof(big));
	if (rank == 0) {
		say("send", __LINE__ + 1);
		if (MPI_Send(big, sizeof(big), MPI_BYTE, 1, 7, MPI_COMM_WORLD))
			fail("MPI_Send failed");
	} else if (rank == 1) {
		/* Posted after arrival: an rxm eager message truncated into an
		 * already posted receive stalls the endpoint (README.md). */
		while (!flag)
			MPI_Iprobe(0, 7, MPI_COMM_WORLD, &flag, &st);
		say("recv", __LINE__ + 1);
		rc = MPI_Recv(small, sizeof(small), MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st);
		MPI_Error_class(rc, &cls);
		if (cls != MPI_ERR_TRUNCATE)
			fail("expected MPI_ERR_TRUNCATE");
	}
	MPI_Barrier(MPI_COMM_WORLD);
}

static void hang_job(int rank, const char *dir)
{
	char path[4096];
	FILE *f;
	int x = 0;

	snprintf(path, sizeof(path), "%s/ready.%d", dir, rank);
	if (!(f = fopen(path, "w")) || fclose(f))
		fail("cannot create the ready file");
	if (rank == 0) {
		say("recv", __LINE__ + 1);
		MPI_Recv(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	say("barrier", __LINE__ + 1);
	MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	char path[4096];
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	if (argc != 3 || (strcmp(argv[1], "trunc") && strcmp(argv[1], "hang")))
		fail("usage: callsite trunc|hang DIR");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	snprintf(path, sizeof(path), "%s/lines.%d", argv[2], rank);
	if (!(lines = fopen(path, "w")))
		fail("cannot create the lines file");
	if (!strcmp(argv[1], "trunc"))
		trunc_job(rank);
	else
		hang_job(rank, argv[2]);
	fclose(lines);
	MPI_Finalize();
	return 0;
}
