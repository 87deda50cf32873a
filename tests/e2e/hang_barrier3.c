/*
 * hang_barrier3.c - a hang with no point-to-point call in the program:
 * MPI_Barrier on 3 ranks never returns under Open MPI 4.1.4 in ofi_tag_1 or
 * ofi_tag_2. On a non-power-of-two number of ranks the barrier algorithm
 * sends synchronously (MPI tag -16 with the SYNC_SEND bit), and a
 * synchronous send to a destination whose fi_addr is not 0 is never
 * acknowledged in those modes (see hang_ssend_tag1.c). 4 or 5 ranks, or
 * ofi_tag_full, finish.
 *
 *   mpirun -np 3 --mca mtl_ofi_tag_mode ofi_tag_1 hang_barrier3 [--log DIR]
 */
#include <stdio.h>

#include "mpilog.h"

int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	mpilog_init(&argc, &argv);
	if (argc > 1)
		mpilog_fail("usage: hang_barrier3 [--log DIR]");
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	mpilog_blocks();		/* where it hangs */
	mpilog_coll(MPI_COMM_WORLD, "barrier");
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("hang_barrier3: the barrier completed\n");
	mpilog_finalize();
	MPI_Finalize();
	return 0;
}
