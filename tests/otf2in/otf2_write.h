/*
 * otf2_write.h - small OTF2 archives for the tests, written with libotf2:
 * one process (location group) per location, each on a host of its own
 * name, MPI_COMM_WORLD and communicators given as lists of world ranks,
 * regions named by the test, 1 GHz clock.
 */
#ifndef OTF2_WRITE_H
#define OTF2_WRITE_H

#include <stdint.h>

#include <otf2/otf2.h>

#define TW_MAX_LOCS 8
#define TW_MAX_COMMS 4

struct tw_comm {
	uint32_t id;			/* the communicator reference */
	uint32_t n;
	uint64_t world[TW_MAX_LOCS];	/* its ranks' world ranks */
};

struct tw {
	OTF2_Archive *ar;
	OTF2_EvtWriter *w[TW_MAX_LOCS];
	unsigned nlocs;
	const char *host[TW_MAX_LOCS];	/* NULL: "node" */
	unsigned ncomms;		/* besides MPI_COMM_WORLD (id 0) */
	struct tw_comm comm[TW_MAX_COMMS];
	uint64_t t_max;
};

/* Opens dir/traces.otf2 with nlocs locations' event writers. */
int tw_open(struct tw *w, const char *dir, unsigned nlocs);
/* Writes the definitions (regions: MPI_Send 0, MPI_Recv 1, MPI_Irecv 2,
 * MPI_Wait 3, MPI_Isend 4) and closes the archive. */
int tw_close(struct tw *w);

enum { TW_SEND, TW_RECV, TW_IRECV, TW_WAIT, TW_ISEND };

#endif /* OTF2_WRITE_H */
