/*
 * provider_pingpong - a small MPI program whose traffic the provider e2e
 * tests know exactly: ranks 0 and 1 exchange ITERS round trips for each
 * size in SIZES (tag = size index), then every rank joins a barrier.
 * It prints what it sent and received and a checksum of the data, so runs
 * with and without the hook can be compared byte for byte.
 *
 * Usage: provider_pingpong [iters] [sleep_ms_between_rounds]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const int sizes[] = { 1, 64, 1024, 16384, 65536 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 10;
	int nap_ms = argc > 2 ? atoi(argv[2]) : 0;
	int rank, size, s, i, sent = 0, received = 0;
	unsigned long sum = 0;
	unsigned char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	buf = malloc((size_t)sizes[NSIZES - 1]);
	for (s = 0; rank < 2 && size >= 2 && s < NSIZES; s++) {
		for (i = 0; i < iters; i++) {
			int peer = 1 - rank, n = sizes[s], k;

			if (rank == 0) {
				memset(buf, (s * 31 + i) & 0xff, (size_t)n);
				MPI_Send(buf, n, MPI_BYTE, peer, s, MPI_COMM_WORLD);
				MPI_Recv(buf, n, MPI_BYTE, peer, s, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(buf, n, MPI_BYTE, peer, s, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				MPI_Send(buf, n, MPI_BYTE, peer, s, MPI_COMM_WORLD);
			}
			for (k = 0; k < n; k++)
				sum += buf[k];
			sent++;
			received++;
			if (nap_ms) {
				struct timespec ts = { nap_ms / 1000,
						       (nap_ms % 1000) * 1000000L };
				nanosleep(&ts, NULL);
			}
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d of %d: sent %d received %d checksum %lu\n", rank, size,
	       sent, received, sum);
	free(buf);
	MPI_Finalize();
	return 0;
}
