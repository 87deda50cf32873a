/*
 * mpi_bench - the MPI side of bench/mpi_overhead.sh: an osu-style
 * ping-pong and a message-rate test between ranks 0 and 1.
 *
 *   mpi_bench pingpong ITERS   sizes 1, 8, 64, 256, 1024 B: ITERS/10 warm-up
 *                              round trips, then ITERS timed ones per size;
 *                              prints "lat SIZE US": half the median round
 *                              trip, in us
 *   mpi_bench rate ITERS       windows of 64 MPI_Isend (rank 0) / MPI_Irecv
 *                              (rank 1) of 8 B, each window closed by a
 *                              zero-byte ack; prints "rate MSGS_PER_S" from
 *                              the median window
 *
 * Medians within a run, not means: on a shared machine a rank descheduled
 * for a few ms would otherwise decide a run's figure.
 *
 * Both print "msgs N": the point-to-point messages this run exchanged
 * (timed and warm-up, both directions), which the script divides trace
 * sizes by.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static const int sizes[] = { 1, 8, 64, 256, 1024 };
#define NSIZES (int)(sizeof(sizes) / sizeof(sizes[0]))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static __attribute__((noinline)) long pingpong(int rank, int iters, char *buf,
					       double *t)
{
	long msgs = 0;

	for (int s = 0; s < NSIZES; s++) {
		int n = sizes[s], warm = iters / 10, peer = 1 - rank;

		for (int i = 0; i < warm + iters; i++) {
			double t0 = MPI_Wtime();

			if (rank == 0) {
				MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
				MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else {
				MPI_Recv(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				MPI_Send(buf, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
			}
			if (i >= warm)
				t[i - warm] = MPI_Wtime() - t0;
		}
		if (rank == 0)
			printf("lat %d %.3f\n", n, median(t, iters) * 1e6 / 2);
		msgs += 2L * (warm + iters);
	}
	return msgs;
}

static long rate(int rank, int iters, char *buf, double *t)
{
	MPI_Request req[WINDOW];
	int warm = iters / 10, peer = 1 - rank;
	long msgs = 0;

	for (int i = 0; i < warm + iters; i++) {
		double t0 = MPI_Wtime();

		for (int w = 0; w < WINDOW; w++) {
			if (rank == 0)
				MPI_Isend(buf + 8 * w, 8, MPI_BYTE, peer, 2,
					  MPI_COMM_WORLD, &req[w]);
			else
				MPI_Irecv(buf + 8 * w, 8, MPI_BYTE, peer, 2,
					  MPI_COMM_WORLD, &req[w]);
		}
		MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
		if (rank == 0)
			MPI_Recv(buf, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		else
			MPI_Send(buf, 0, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
		if (i >= warm)
			t[i - warm] = MPI_Wtime() - t0;
		msgs += WINDOW + 1;
	}
	if (rank == 0)
		printf("rate %.0f\n", WINDOW / median(t, iters));
	return msgs;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "pingpong";
	int iters = argc > 2 ? atoi(argv[2]) : 10000;
	int rank, size;
	long msgs = 0;
	double *t;
	char *buf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || iters < 1 ||
	    (strcmp(mode, "pingpong") && strcmp(mode, "rate"))) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -np 2 mpi_bench pingpong|rate ITERS\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	buf = calloc(1, 8 * WINDOW > sizes[NSIZES - 1] ? 8 * WINDOW : sizes[NSIZES - 1]);
	t = calloc((size_t)iters, sizeof(*t));
	MPI_Barrier(MPI_COMM_WORLD);
	msgs = !strcmp(mode, "rate") ? rate(rank, iters, buf, t) :
				       pingpong(rank, iters, buf, t);
	if (rank == 0)
		printf("msgs %ld\n", msgs);
	free(t);
	free(buf);
	MPI_Finalize();
	return 0;
}
