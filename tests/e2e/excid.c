/*
 * excid.c - point-to-point traffic on a communicator without a global
 * index, for Open MPI 5's exCID handshake.
 *
 * Open MPI 5 puts a communicator's c_index in the tag. Communicators made
 * by MPI_Comm_create_from_group (MPI 4 sessions) get an extended CID
 * through PMIx and no global index (ompi/communicator/comm_cid.c: the
 * OMPI_COMM_GLOBAL_INDEX flag is set only on the old allreduce path), so
 * the OFI MTL learns each peer's c_index with an untagged 32-byte
 * mca_mtl_ofi_cid_hdr_t before the first message to that peer
 * (ompi/mca/mtl/ofi/mtl_ofi.h, ompi_mtl_ofi_send_excid). MPICH has no such
 * handshake; there the program is plain traffic on a fourth communicator.
 *
 * Every rank sends to its right neighbour on the new communicator (a
 * standard send, then a synchronous one), receives from its left one (once
 * by rank, once with MPI_ANY_SOURCE), and both again on MPI_COMM_WORLD.
 *
 *   mpirun -np 4 excid [--log DIR]
 *
 * Needs MPI 4.0 sessions (Open MPI 5.0 has them, though it says MPI 3.1);
 * with an older MPI it prints why and exits 77.
 */
#include <stdio.h>
#include <string.h>

#include "mpilog.h"

/* Open MPI 5.0 has sessions but still says MPI_VERSION 3. */
#if MPI_VERSION < 4 && !(defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
int main(void)
{
	fprintf(stderr, "excid: needs MPI 4.0 (MPI_Comm_create_from_group)\n");
	return 77;
}
#else

enum { BYTES = 64 };

/* One round on comm: send right (standard then synchronous), receive left
 * (by rank, then any source). */
static void ring(MPI_Comm comm, int tag)
{
	int rank, size;
	char out[BYTES], in[2][BYTES];
	MPI_Request req[2];
	MPI_Status st;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	memset(out, rank, sizeof(out));
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	mpilog_check(mpilog_irecv(in[0], BYTES, left, tag, comm, &req[0]), "irecv");
	mpilog_check(mpilog_irecv(in[1], BYTES, MPI_ANY_SOURCE, tag + 1, comm, &req[1]),
		     "irecv any");
	mpilog_check(mpilog_send(MPILOG_SEND, out, BYTES, right, tag, comm, NULL), "send");
	mpilog_check(mpilog_send(MPILOG_SSEND, out, BYTES, right, tag + 1, comm, NULL),
		     "ssend");
	mpilog_check(mpilog_wait(&req[0], &st), "wait");
	mpilog_check(mpilog_wait(&req[1], &st), "wait any");
}

int main(int argc, char **argv)
{
	MPI_Session session;
	MPI_Group group;
	MPI_Comm comm;
	int rank, size;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	mpilog_check(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session),
		     "MPI_Session_init");
	mpilog_check(MPI_Group_from_session_pset(session, "mpi://WORLD", &group),
		     "MPI_Group_from_session_pset");
	mpilog_check(MPI_Comm_create_from_group(group, "org.msgtrace.excid",
						MPI_INFO_NULL, MPI_ERRORS_RETURN,
						&comm), "MPI_Comm_create_from_group");
	mpilog_comm(comm, "fromgroup");
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	ring(comm, 10);
	ring(MPI_COMM_WORLD, 20);
	ring(comm, 30);
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("excid: %d ranks, 3 rings done\n", size);
	MPI_Comm_free(&comm);
	MPI_Group_free(&group);
	MPI_Session_finalize(&session);
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
#endif
