/*
 * reliab_life - process life events of a traced MPI rank, run
 * the same with and without the hook by reliab_life.sh:
 *
 *   fork          every rank exchanges ITERS messages with its peer
 *                 (rank ^ 1), forks; the child's only thread ends with
 *                 pthread_exit; the parent prints how the child ended and
 *                 exchanges ITERS more.
 *   fork-thread   the same, the exchanges and the fork made by a second
 *                 thread while the main thread waits in pthread_join.
 *   exit-waitall  WRITERS threads exchange messages with themselves
 *                 without end (Irecv + Isend + Waitall on MPI_COMM_SELF,
 *                 tag LIFE_TAG + thread); once they did ITERS together,
 *                 the main thread prints and calls exit(3) while they are
 *                 inside MPI.
 *
 * Usage: mpirun -np <even> reliab_life fork|fork-thread [--iters N]
 *        mpirun reliab_life exit-waitall [--iters N]
 * Output: "rank <r> child exited <status>" or "... killed by signal <s>",
 * "rank <r> exchanged <n>", "rank <r> exit after <n> iterations".
 */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIFE_TAG 300
#define EXIT_STATUS 3
#define WRITERS 4

static int rank, peer;
static long iters = 200;
static long done;		/* exit-waitall: iterations of the writers */

/* n round trips with peer on comm, tag LIFE_TAG + t: Irecv + Isend +
 * Waitall each. */
static long exchange(MPI_Comm comm, int to, int t, long n)
{
	int tag = LIFE_TAG + t;
	long i;

	for (i = 0; i < n; i++) {
		long sbuf = i, rbuf = -1;
		MPI_Request req[2];

		MPI_Irecv(&rbuf, 1, MPI_LONG, to, tag, comm, &req[0]);
		MPI_Isend(&sbuf, 1, MPI_LONG, to, tag, comm, &req[1]);
		MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
		if (rbuf != i) {
			fprintf(stderr, "rank %d: message %ld carried %ld\n", rank, i, rbuf);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	return n;
}

/* Exchanges, forks a child whose only thread ends with pthread_exit,
 * reports how it ended. */
static void *exchange_and_fork(void *arg)
{
	pid_t pid;
	int status;

	(void)arg;
	exchange(MPI_COMM_WORLD, peer, 0, iters);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (pid == 0)
		pthread_exit(NULL);
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (WIFEXITED(status))
		printf("rank %d child exited %d\n", rank, WEXITSTATUS(status));
	else
		printf("rank %d child killed by signal %d\n", rank,
		       WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	return NULL;
}

static void *exchange_forever(void *arg)
{
	int t = (int)(intptr_t)arg;

	for (;;)
		__atomic_add_fetch(&done, exchange(MPI_COMM_SELF, 0, t, 1),
				   __ATOMIC_RELEASE);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int provided, size, need;
	pthread_t t;
	int i;

	if (argc > 3 && !strcmp(argv[2], "--iters"))
		iters = atol(argv[3]);
	need = strcmp(mode, "exit-waitall") ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
	MPI_Init_thread(&argc, &argv, need, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = rank ^ 1;
	if (provided < need) {
		fprintf(stderr, "reliab_life: MPI thread level %d < %d\n", provided, need);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	if (!strcmp(mode, "fork") || !strcmp(mode, "fork-thread")) {
		if (size % 2) {
			fprintf(stderr, "reliab_life: %s needs an even number of ranks\n", mode);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		if (!strcmp(mode, "fork"))
			exchange_and_fork(NULL);
		else if (pthread_create(&t, NULL, exchange_and_fork, NULL) ||
			 pthread_join(t, NULL))
			MPI_Abort(MPI_COMM_WORLD, 2);
		printf("rank %d exchanged %ld\n", rank,
		       iters + exchange(MPI_COMM_WORLD, peer, 0, iters));
	} else if (!strcmp(mode, "exit-waitall")) {
		for (i = 0; i < WRITERS; i++)
			if (pthread_create(&t, NULL, exchange_forever, (void *)(intptr_t)i))
				MPI_Abort(MPI_COMM_WORLD, 2);
		while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < iters)
			sched_yield();
		printf("rank %d exit after %ld iterations\n", rank, iters);
		exit(EXIT_STATUS);
	} else {
		fprintf(stderr, "usage: reliab_life fork|fork-thread|exit-waitall [--iters N]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Finalize();
	return 0;
}
