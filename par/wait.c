/*
 * wait.c - waiting for MPI without spinning (par_int.h): MPI's own waits
 * poll the transport at full speed, and ranks waiting so on an
 * oversubscribed node take the cores from the ranks that work.
 */
#include <time.h>

#include "par_int.h"

static void pause_ns(long ns)
{
	const struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

void mt_par_wait(MPI_Request *req, long ns)
{
	int done = 0;

	for (;;) {
		MPI_Test(req, &done, MPI_STATUS_IGNORE);
		if (done)
			return;
		pause_ns(ns);
	}
}

void mt_par_wait_probe(MPI_Comm comm, int src, int *tag, long ns,
		       MPI_Message *msg, int *bytes)
{
	MPI_Status st;
	int found = 0;

	for (;;) {
		MPI_Improbe(src, *tag, comm, &found, msg, &st);
		if (found)
			break;
		pause_ns(ns);
	}
	*tag = st.MPI_TAG;
	MPI_Get_count(&st, MPI_BYTE, bytes);
}
