/*
 * reliab_mix - continuous mixed MPI traffic for the reliability tests:
 * each iteration every rank sends one message around a ring (size cycling
 * through 8 B, 1 KiB, 64 KiB; nonblocking), one message to its left
 * neighbour that the neighbour finds with MPI_Probe on MPI_ANY_SOURCE, and
 * joins an MPI_Allreduce that also decides whether to go on; every 16th
 * iteration adds an MPI_Bcast, every 64th an MPI_Barrier.
 *
 * Usage: mpirun ... reliab_mix [--iters N] [--seconds S] [--nap-us U]
 *                   [--abort-at K] [--progress DIR] [--no-probe]
 *   --iters N      stop after N iterations (default 1000)
 *   --seconds S    instead, run until rank 0 has been looping S seconds
 *   --nap-us U     sleep U microseconds after each iteration
 *   --abort-at K   rank 1 calls MPI_Abort(MPI_COMM_WORLD, 3) at iteration K
 *   --no-probe     receive the left-neighbour message with a plain
 *                  MPI_Recv: without probes (whose fabric peeks repeat as
 *                  often as timing dictates) the number of fabric calls
 *                  of a run is the same every time
 *   --progress DIR each rank writes its pid to DIR/rank<r>.pid at start and
 *                  "<iterations> <user sends> <user receives>" to
 *                  DIR/rank<r>.progress after every iteration (write(2), so
 *                  the last line survives a SIGKILL of the process)
 *
 * User messages carry MPI tags RING_TAG and PROBE_TAG only, so a test can
 * count them in the trace apart from the collectives (negative tags).
 * Output: one line per rank, in rank order, with its counts and a checksum
 * of every byte received; identical with and without the msgtrace hook.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RING_TAG 101
#define PROBE_TAG 102
#define MAX_BYTES 65536

static const int ring_sizes[] = { 8, 1024, MAX_BYTES };

struct opts {
	long iters, nap_us, abort_at;
	int no_probe;
	double seconds;
	const char *progress;
};

static void usage_fail(const char *arg)
{
	fprintf(stderr, "reliab_mix: bad argument '%s' (see the comment at the top of reliab_mix.c)\n",
		arg);
	MPI_Abort(MPI_COMM_WORLD, 2);
}

static void parse(int argc, char **argv, struct opts *o)
{
	o->iters = 1000;
	o->abort_at = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-probe")) {
			o->no_probe = 1;
			continue;
		}
		if (i + 1 >= argc)
			usage_fail(argv[i]);
		if (!strcmp(argv[i], "--iters"))
			o->iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds"))
			o->seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--nap-us"))
			o->nap_us = atol(argv[++i]);
		else if (!strcmp(argv[i], "--abort-at"))
			o->abort_at = atol(argv[++i]);
		else if (!strcmp(argv[i], "--progress"))
			o->progress = argv[++i];
		else
			usage_fail(argv[i]);
	}
}

static int open_progress(const char *dir, int rank)
{
	char path[4096];
	FILE *f;
	int fd;

	if (!dir)
		return -1;
	snprintf(path, sizeof(path), "%s/rank%d.pid", dir, rank);
	f = fopen(path, "w");
	if (!f)
		usage_fail(path);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	snprintf(path, sizeof(path), "%s/rank%d.progress", dir, rank);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (fd < 0)
		usage_fail(path);
	return fd;
}

static void fill(unsigned char *buf, int n, int src, long iter)
{
	for (int k = 0; k < n; k++)
		buf[k] = (unsigned char)(src * 37 + iter * 11 + k);
}

static unsigned long sum(const unsigned char *buf, int n)
{
	unsigned long s = 0;

	for (int k = 0; k < n; k++)
		s += buf[k];
	return s;
}

int main(int argc, char **argv)
{
	unsigned char *sbuf = malloc(MAX_BYTES), *rbuf = malloc(MAX_BYTES);
	unsigned char pbuf[64], pin[64];
	unsigned long check = 0;
	long it, sends = 0, recvs = 0;
	int rank, size, fd, go = 1;
	double t0;
	struct opts o = { 0 };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	parse(argc, argv, &o);
	if (!sbuf || !rbuf || size < 2)
		usage_fail("(needs 2 or more ranks)");
	fd = open_progress(o.progress, rank);
	t0 = MPI_Wtime();
	for (it = 0; go; it++) {
		int right = (rank + 1) % size, left = (rank + size - 1) % size;
		int n = ring_sizes[it % 3], count, mine;
		MPI_Request req[2];
		MPI_Status st;
		long contrib[2], total[2];

		if (rank == 1 && it == o.abort_at) {
			printf("rank 1: MPI_Abort at iteration %ld\n", it);
			fflush(stdout);
			MPI_Abort(MPI_COMM_WORLD, 3);
		}
		fill(sbuf, n, rank, it);
		MPI_Irecv(rbuf, n, MPI_BYTE, left, RING_TAG, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(sbuf, n, MPI_BYTE, right, RING_TAG, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		check += sum(rbuf, n);

		fill(pbuf, (int)(it % 64) + 1, rank, it);
		MPI_Isend(pbuf, (int)(it % 64) + 1, MPI_BYTE, left, PROBE_TAG,
			  MPI_COMM_WORLD, &req[0]);
		if (o.no_probe) {
			MPI_Recv(pin, sizeof(pin), MPI_BYTE, right, PROBE_TAG,
				 MPI_COMM_WORLD, &st);
		} else {
			MPI_Probe(MPI_ANY_SOURCE, PROBE_TAG, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			MPI_Recv(pin, count, MPI_BYTE, st.MPI_SOURCE, PROBE_TAG,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		MPI_Get_count(&st, MPI_BYTE, &count);
		MPI_Wait(&req[0], MPI_STATUS_IGNORE);
		check += sum(pin, count) + (unsigned long)st.MPI_SOURCE;
		sends += 2;
		recvs += 2;

		/* Rank 0 decides for everyone, so all ranks stop together. */
		mine = o.seconds > 0 ? MPI_Wtime() - t0 < o.seconds : it + 1 < o.iters;
		contrib[0] = rank == 0 ? mine : 1;
		contrib[1] = (long)(check & 0xffff);
		MPI_Allreduce(contrib, total, 2, MPI_LONG, MPI_MIN, MPI_COMM_WORLD);
		go = (int)total[0];
		check += (unsigned long)total[1];
		if (it % 16 == 0) {
			long root_it = it;

			MPI_Bcast(&root_it, 1, MPI_LONG, (int)(it / 16) % size,
				  MPI_COMM_WORLD);
			check += (unsigned long)root_it;
		}
		if (it % 64 == 0)
			MPI_Barrier(MPI_COMM_WORLD);
		if (fd >= 0) {
			char line[96];
			int len = snprintf(line, sizeof(line), "%ld %ld %ld\n",
					   it + 1, sends, recvs);

			if (write(fd, line, (size_t)len) != len)
				usage_fail("progress write");
		}
		if (o.nap_us) {
			struct timespec ts = { o.nap_us / 1000000,
					       (o.nap_us % 1000000) * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	/* One line per rank, in rank order. */
	for (int r = 0; r < size; r++) {
		if (r == rank) {
			printf("rank %d of %d: sends %ld receives %ld checksum %lu\n",
			       rank, size, sends, recvs, check);
			fflush(stdout);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	if (o.seconds > 0 && rank == 0)
		fprintf(stderr, "reliab_mix: %ld iterations\n", it);
	if (fd >= 0)
		close(fd);
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
