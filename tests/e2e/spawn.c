/*
 * spawn - MPI_Comm_spawn across jobs: the 2-rank parent job spawns 2
 * children (this program again, argument "child"); parent rank 0 sends one
 * message of BYTES bytes with tag TAG to child rank 1 over the
 * intercommunicator, then every process leaves through a barrier and a
 * disconnect. Each process prints its host and what it did, so the test
 * can hold the trace's report against it.
 *
 * Usage: spawn [HOST]  - HOST: where the children go (MPI_Info "host"),
 *                        e.g. another test host; default: the launcher's
 *                        choice.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define TAG 7
#define BYTES 64

int main(int argc, char **argv)
{
	int child = argc > 1 && !strcmp(argv[1], "child");
	char buf[BYTES];
	MPI_Comm inter;
	int rank, size, len;
	char host[MPI_MAX_PROCESSOR_NAME];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(host, &len);
	printf("%s %d of %d runs on %s\n", child ? "child" : "parent", rank, size, host);
	if (!child) {
		char *args[] = { "child", NULL };
		MPI_Info info = MPI_INFO_NULL;

		if (argc > 1) {
			MPI_Info_create(&info);
			MPI_Info_set(info, "host", argv[1]);
		}
		MPI_Comm_spawn(argv[0], args, 2, info, 0, MPI_COMM_WORLD,
			       &inter, MPI_ERRCODES_IGNORE);
		if (info != MPI_INFO_NULL)
			MPI_Info_free(&info);
		if (rank == 0) {
			memset(buf, 0x5a, sizeof(buf));
			MPI_Send(buf, BYTES, MPI_BYTE, 1, TAG, inter);
			printf("parent %d of %d: sent %d bytes tag %d to child 1\n",
			       rank, size, BYTES, TAG);
		} else {
			printf("parent %d of %d: sent nothing\n", rank, size);
		}
	} else {
		MPI_Comm_get_parent(&inter);
		if (rank == 1) {
			MPI_Recv(buf, BYTES, MPI_BYTE, 0, TAG, inter, MPI_STATUS_IGNORE);
			printf("child %d of %d: received %d bytes tag %d from parent 0\n",
			       rank, size, BYTES, TAG);
		} else {
			printf("child %d of %d: received nothing\n", rank, size);
		}
	}
	fflush(stdout);
	MPI_Barrier(inter);
	MPI_Comm_disconnect(&inter);
	MPI_Finalize();
	return 0;
}
