/*
 * outfile.c - rank 0's output file written by every rank (par_int.h): when
 * it is a regular file the others can open, checked to be the same file
 * (device and inode: on another node the same path may be another file or
 * none), each rank writes the texts it formats at the places rank 0 gives,
 * instead of sending them to rank 0 to write. Writing a file's new pages
 * costs as much as formatting their lines on some machines; divided, it
 * is no longer rank 0's alone.
 */
#define _GNU_SOURCE		/* O_CLOEXEC */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "par_int.h"

struct identity {
	uint64_t dev, ino;
	int32_t ok;
	char path[PATH_MAX];
};

/* Rank 0: out's identity, ok 0 when others cannot write it in place (a
 * pipe, a terminal, a file opened for appending). */
static void identify(FILE *out, struct identity *id)
{
	char link[64];
	struct stat st;
	int fd = fileno(out), flags;
	ssize_t k;

	id->ok = 0;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (flags = fcntl(fd, F_GETFL)) < 0 || (flags & O_APPEND))
		return;
	/* The path it was opened by may be relative to a directory the
	 * other ranks do not share; the kernel's is absolute. */
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	k = readlink(link, id->path, sizeof(id->path) - 1);
	if (k <= 0)
		return;
	id->path[k] = '\0';
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->ok = 1;
}

/* Another rank: the file of id opened for writing, or -1. */
static int join(const struct identity *id)
{
	struct stat st;
	int fd;

	if (!id->ok || (fd = open(id->path, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(fd, &st) || st.st_dev != id->dev || st.st_ino != id->ino) {
		close(fd);
		return -1;
	}
	return fd;
}

int mt_par_outfile(MPI_Comm comm, FILE *out, int *fd)
{
	static struct identity id;	/* 4 KB: not on the stack */
	int rank, all;

	MPI_Comm_rank(comm, &rank);
	*fd = -1;
	if (rank == 0)
		identify(out, &id);
	MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm);
	if (rank != 0)
		*fd = join(&id);
	all = rank == 0 ? id.ok : *fd >= 0;
	MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
	if (!all && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return all;
}

int mt_par_write_at(int fd, const void *p, size_t k, int64_t at)
{
	const char *c = p;

	while (k) {
		ssize_t w = pwrite(fd, c, k, (off_t)at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		c += w;
		k -= (size_t)w;
		at += w;
	}
	return 0;
}
