/*
 * fork_fabric - forked processes that use libfabric themselves, inside a
 * real MPI job. Each of the 2 ranks exchanges MPI_MSGS messages with its
 * peer over MPI, then forks a child; the child forks a grandchild. Child
 * and grandchild open RDM endpoints of their own (MPI is not usable after
 * fork, libfabric is): the grandchild hands its address to the child
 * through a pipe, the child hands its own to its rank, the ranks swap them
 * over MPI; the child hands its own to the grandchild. Then each child
 * sends CHILD_MSGS tagged messages (tag 10 + rank) to the other rank's
 * child and receives as many, and sends GRAND_MSGS (tag 20) to its own
 * grandchild, which sends as many back (tag 21). Every process prints what
 * it did, so the test can hold the trace against it.
 *
 * Usage: mpirun -np 2 fork_fabric PROVIDER [hostname]
 *   PROVIDER  the children's libfabric provider list ("tcp", "tcp;ofi_rxm")
 *   hostname  children bind to the address of their host's name, for ranks
 *             on different hosts (default: 127.0.0.1, both on this one)
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "fabep.h"

#define MPI_MSGS 4
#define CHILD_MSGS 3
#define GRAND_MSGS 2

static const char *who = "?";
static const char *provider;
static char node[256];		/* "": 127.0.0.1 */

static void die(const char *what, long ret)
{
	fprintf(stderr, "fork_fabric %s: %s: %s\n", who, what,
		ret < 0 ? fi_strerror((int)-ret) : "failed");
	_exit(1);
}

static void open_fabric(struct fabep *f)
{
	const char *what;
	int ret = fabep_open(f, provider, node[0] ? node : NULL, 0, &what);

	if (ret)
		die(what, ret);
}

static fi_addr_t insert(struct fabep *f, const char *name)
{
	fi_addr_t a;

	if (fi_av_insert(f->av, name, 1, &a, 0, NULL) != 1)
		die("fi_av_insert", -FI_EOTHER);
	return a;
}

static void put(int fd, const void *b, size_t n)
{
	if (write(fd, b, n) != (ssize_t)n)
		die("pipe write", 0);
}

static void get(int fd, void *b, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)b + got, n - got);

		if (r <= 0)
			die("pipe read", 0);
		got += (size_t)r;
	}
}

/* Posts nrecv receives of tag rtag from anyone and nsend sends of tag stag
 * to dest, then waits for every completion. */
static void exchange(struct fabep *f, int nsend, fi_addr_t dest, uint64_t stag,
		     int nrecv, uint64_t rtag)
{
	struct fi_context ctx[16];
	uint64_t out[8], in[8];
	struct fi_cq_tagged_entry e;
	int left = nsend + nrecv;
	ssize_t ret;

	for (int i = 0; i < nrecv; i++)
		while ((ret = fi_trecv(f->ep, &in[i], sizeof(in[i]), NULL,
				       FI_ADDR_UNSPEC, rtag, 0, &ctx[i])) == -FI_EAGAIN)
			fi_cq_read(f->cq, &e, 1);
	for (int i = 0; i < nsend; i++) {
		out[i] = stag * 100 + (uint64_t)i;
		while ((ret = fi_tsend(f->ep, &out[i], sizeof(out[i]), NULL, dest,
				       stag, &ctx[8 + i])) == -FI_EAGAIN)
			fi_cq_read(f->cq, &e, 1);
		if (ret)
			die("fi_tsend", ret);
	}
	while (left) {
		ret = fi_cq_read(f->cq, &e, 1);
		if (ret == 1)
			left--;
		else if (ret != -FI_EAGAIN)
			die("fi_cq_read", ret);
	}
}

/* The grandchild: its address to the child and the child's from it,
 * GRAND_MSGS received and sent back. */
static void grandchild(int rank, int up, int down)
{
	static char w[32];
	char parent[FABEP_NAME_MAX];
	struct fabep f;

	snprintf(w, sizeof(w), "rank %d grandchild", rank);
	who = w;
	open_fabric(&f);
	put(up, f.name, sizeof(f.name));
	get(down, parent, sizeof(parent));
	exchange(&f, GRAND_MSGS, insert(&f, parent), 21, GRAND_MSGS, 20);
	printf("%s: received %d messages tag 20 from its parent, sent %d tag 21 back\n",
	       who, GRAND_MSGS, GRAND_MSGS);
	fflush(stdout);
	fabep_close(&f);
	exit(0);
}

/* The child: forks the grandchild, trades addresses, exchanges with the
 * other rank's child and sends to its grandchild; leaves when its rank
 * says that both children are done. */
static void child(int rank, int up, int down)
{
	static char w[32];
	char gname[FABEP_NAME_MAX], peer[FABEP_NAME_MAX], done = 'd';
	int gp[2], gd[2], status;
	pid_t g;
	struct fabep f;

	snprintf(w, sizeof(w), "rank %d child", rank);
	who = w;
	if (pipe(gp) || pipe(gd))
		die("pipe", 0);
	if ((g = fork()) < 0)
		die("fork", 0);
	if (!g)
		grandchild(rank, gp[1], gd[0]);
	open_fabric(&f);
	get(gp[0], gname, sizeof(gname));
	put(gd[1], f.name, sizeof(f.name));
	put(up, f.name, sizeof(f.name));
	get(down, peer, sizeof(peer));
	exchange(&f, CHILD_MSGS, insert(&f, peer), 10 + (uint64_t)rank,
		 CHILD_MSGS, 10 + (uint64_t)(1 - rank));
	exchange(&f, GRAND_MSGS, insert(&f, gname), 20, GRAND_MSGS, 21);
	if (waitpid(g, &status, 0) != g || !WIFEXITED(status) || WEXITSTATUS(status))
		die("the grandchild failed", 0);
	printf("%s: sent %d messages tag %d to rank %d's child, received %d, "
	       "sent %d tag 20 to its grandchild, received %d back\n", who,
	       CHILD_MSGS, 10 + rank, 1 - rank, CHILD_MSGS, GRAND_MSGS, GRAND_MSGS);
	fflush(stdout);
	put(up, &done, 1);
	get(down, &done, 1);	/* the other child is done too */
	fabep_close(&f);
	exit(0);
}

int main(int argc, char **argv)
{
	char name[FABEP_NAME_MAX], peer_name[FABEP_NAME_MAX], c;
	int rank, size, up[2], down[2], status;
	long buf[MPI_MSGS];
	pid_t pid;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2 || argc < 2 || argc > 3 ||
	    (argc == 3 && (strcmp(argv[2], "hostname") ||
			   gethostname(node, sizeof(node) - 1)))) {
		fprintf(stderr, "usage: mpirun -np 2 fork_fabric PROVIDER [hostname]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	provider = argv[1];
	for (int i = 0; i < MPI_MSGS; i++) {
		long v = rank * 100 + i;

		MPI_Sendrecv(&v, 1, MPI_LONG, 1 - rank, 1, &buf[i], 1, MPI_LONG,
			     1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	printf("rank %d: sent %d messages tag 1 to rank %d, received %d\n", rank,
	       MPI_MSGS, 1 - rank, MPI_MSGS);
	fflush(stdout);
	if (pipe(up) || pipe(down)) {
		perror("pipe");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if ((pid = fork()) < 0) {
		perror("fork");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (!pid)
		child(rank, up[1], down[0]);
	who = rank ? "rank 1" : "rank 0";
	get(up[0], name, sizeof(name));
	MPI_Sendrecv(name, FABEP_NAME_MAX, MPI_BYTE, 1 - rank, 2, peer_name, FABEP_NAME_MAX,
		     MPI_BYTE, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	put(down[1], peer_name, sizeof(peer_name));
	get(up[0], &c, 1);
	MPI_Barrier(MPI_COMM_WORLD);
	put(down[1], &c, 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fork_fabric rank %d: the child failed\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Finalize();
	return 0;
}
