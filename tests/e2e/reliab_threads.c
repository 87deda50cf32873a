/*
 * reliab_threads - MPI_THREAD_MULTIPLE traffic for the reliability tests:
 * every rank runs THREADS threads; thread t of rank r exchanges MSGS
 * messages with thread t of rank r^1 (Irecv + Isend + Waitall per message,
 * MPI tag THREAD_TAG + t, sizes cycling 8 B .. 4 KiB), each thread on its
 * own MPI_Comm_dup of MPI_COMM_WORLD, or all on MPI_COMM_WORLD with
 * --same-comm (the tags still keep the threads' messages apart).
 *
 * Usage: mpirun -np <even> reliab_threads [--threads T] [--msgs M] [--same-comm]
 * Output, one line per thread, in rank then thread order:
 *   rank <r> thread <t> tag <tag> sent <n> received <n> checksum <sum>
 * what each thread itself counted, for the test to compare with the trace.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREAD_TAG 200
#define MAX_THREADS 64
#define MAX_BYTES 4096

struct worker {
	pthread_t th;
	int t, rank, peer;
	long msgs, sent, received;
	unsigned long check;
	MPI_Comm comm;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned char sbuf[MAX_BYTES], rbuf[MAX_BYTES];
	int tag = THREAD_TAG + w->t;

	for (long i = 0; i < w->msgs; i++) {
		int n = 8 << (i % 10);
		MPI_Request req[2];
		MPI_Status st[2];
		int got;

		n = n > MAX_BYTES ? MAX_BYTES : n;
		memset(sbuf, (int)((w->rank * 7 + w->t * 3 + i) & 0xff), (size_t)n);
		MPI_Irecv(rbuf, n, MPI_BYTE, w->peer, tag, w->comm, &req[0]);
		MPI_Isend(sbuf, n, MPI_BYTE, w->peer, tag, w->comm, &req[1]);
		MPI_Waitall(2, req, st);
		MPI_Get_count(&st[0], MPI_BYTE, &got);
		if (got != n || st[0].MPI_TAG != tag) {
			fprintf(stderr, "rank %d thread %d: message %ld: got %d bytes tag %d, expected %d bytes tag %d\n",
				w->rank, w->t, i, got, st[0].MPI_TAG, n, tag);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		for (int k = 0; k < n; k++)
			w->check += rbuf[k];
		w->sent++;
		w->received++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[MAX_THREADS];
	int threads = 4, same = 0, provided, rank, size;
	long msgs = 2000;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--msgs") && i + 1 < argc)
			msgs = atol(argv[++i]);
		else if (!strcmp(argv[i], "--same-comm"))
			same = 1;
		else {
			fprintf(stderr, "reliab_threads: bad argument '%s'\n", argv[i]);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (provided < MPI_THREAD_MULTIPLE || size % 2 || threads < 1 ||
	    threads > MAX_THREADS) {
		fprintf(stderr, "reliab_threads: needs MPI_THREAD_MULTIPLE (got %d), an even number of ranks and 1..%d threads\n",
			provided, MAX_THREADS);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (int t = 0; t < threads; t++) {
		w[t] = (struct worker){ .t = t, .rank = rank, .peer = rank ^ 1,
					.msgs = msgs, .comm = MPI_COMM_WORLD };
		/* Collective: every rank dups in the same order, before threads. */
		if (!same)
			MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
	}
	for (int t = 0; t < threads; t++)
		if (pthread_create(&w[t].th, NULL, work, &w[t])) {
			fprintf(stderr, "reliab_threads: pthread_create failed\n");
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	for (int t = 0; t < threads; t++)
		pthread_join(w[t].th, NULL);
	for (int r = 0; r < size; r++) {
		if (r == rank)
			for (int t = 0; t < threads; t++)
				printf("rank %d thread %d tag %d sent %ld received %ld checksum %lu\n",
				       rank, t, THREAD_TAG + t, w[t].sent,
				       w[t].received, w[t].check);
		fflush(stdout);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	for (int t = 0; t < threads && !same; t++)
		MPI_Comm_free(&w[t].comm);
	MPI_Finalize();
	return 0;
}
