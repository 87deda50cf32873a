/*
 * ring.c - the quick-start demo: a small MPI program worth tracing.
 *
 * Every rank passes messages of a few sizes around a ring (below and above
 * the providers' inject and eager limits), rank 0 sends one synchronous
 * message to the last rank, which probes for it first, and everybody joins
 * a barrier and an allreduce. Rank 0 prints a short summary that does not
 * depend on timing, so traced and untraced runs print the same thing.
 *
 *   mpirun -np 4 ./ring
 *
 * Under Open MPI 4.1.4 with --mca mtl_ofi_tag_mode ofi_tag_1 or ofi_tag_2
 * the synchronous send hangs (a known defect: the ACK is never matched);
 * the default mode is fine.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_RING = 7, TAG_SYNC = 99 };

static const int sizes[] = { 8, 4096, 65536 };

/* Fails the whole job: a demo that silently prints nonsense helps nobody. */
static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "ring: %s\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* Sends a buffer of n bytes filled with the sender's rank to the right
 * neighbour and returns the sum of the bytes received from the left. */
static long ring_step(int rank, int size, int n)
{
	unsigned char *out = malloc((size_t)n), *in = malloc((size_t)n);
	MPI_Request req[2];
	long sum = 0;

	check(out && in, "out of memory");
	memset(out, rank + 1, (size_t)n);
	MPI_Irecv(in, n, MPI_BYTE, (rank + size - 1) % size, TAG_RING,
		  MPI_COMM_WORLD, &req[0]);
	MPI_Isend(out, n, MPI_BYTE, (rank + 1) % size, TAG_RING,
		  MPI_COMM_WORLD, &req[1]);
	MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
	for (int i = 0; i < n; i++)
		sum += in[i];
	free(out);
	free(in);
	return sum;
}

/* Rank 0 sends the last rank one synchronous message, which the last rank
 * waits for with MPI_Probe and finds again with MPI_Iprobe (one call, not a
 * polling loop, so the trace is the same every run) before receiving it.
 * Returns what was received. */
static int sync_pair(int rank, int size)
{
	int value = 0, flag = 0;
	MPI_Status st;

	if (rank == 0) {
		value = 42;
		MPI_Ssend(&value, 1, MPI_INT, size - 1, TAG_SYNC,
			  MPI_COMM_WORLD);
	} else if (rank == size - 1) {
		MPI_Probe(0, TAG_SYNC, MPI_COMM_WORLD, &st);
		MPI_Iprobe(0, TAG_SYNC, MPI_COMM_WORLD, &flag, &st);
		check(flag, "MPI_Iprobe missed the message MPI_Probe found");
		MPI_Recv(&value, 1, MPI_INT, 0, TAG_SYNC, MPI_COMM_WORLD, &st);
	}
	return value;
}

int main(int argc, char **argv)
{
	int rank, size, synced;
	long sums[3], total[3];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	check(size >= 2, "needs at least 2 ranks");

	for (int i = 0; i < 3; i++)
		sums[i] = ring_step(rank, size, sizes[i]);
	synced = sync_pair(rank, size);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Allreduce(sums, total, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	MPI_Bcast(&synced, 1, MPI_INT, size - 1, MPI_COMM_WORLD);

	if (rank == 0) {
		printf("ring: %d ranks\n", size);
		for (int i = 0; i < 3; i++)
			printf("ring: %6d-byte messages, checksum %ld (expected %ld)\n",
			       sizes[i], total[i],
			       (long)sizes[i] * size * (size + 1) / 2);
		printf("ring: synchronous send from rank 0 to rank %d carried %d\n",
		       size - 1, synced);
	}
	MPI_Finalize();
	return 0;
}
