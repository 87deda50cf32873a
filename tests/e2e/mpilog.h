/*
 * mpilog.h - what an MPI test program knows it did, one line per event.
 *
 * The end-to-end tests compare a msgtrace trace against the truth as the
 * MPI program itself sees it. Test programs post their point-to-point
 * operations through the mpilog_* wrappers below, which make the MPI call
 * and log it; each rank writes "<logdir>/rank<world rank>.log", where logdir
 * is given by the program's option "--log DIR" or the environment variable
 * MSGTRACE_TEST_LOG (no log is written when neither is set). The option
 * "--no-ssend" makes every MPILOG_SSEND/ISSEND a standard MPI_Send/Isend
 * (logged as such): Open MPI 4.1.4 hangs on synchronous sends in
 * ofi_tag_1/ofi_tag_2. This helper knows MPI only: nothing of libfabric or
 * of msgtrace's trace format.
 *
 * Lines, in posting order; seq=<k> counts the rank's SEND, RECV and PROBE
 * lines from 0 in the order they were posted. A receive's line is written
 * once it completes, but never before the lines of operations posted
 * earlier, so the file is always sorted by seq. Every line is flushed.
 *
 *   COMM label=<l> size=<n> my_rank=<r>
 *       a communicator was created (world is logged by mpilog_init).
 *   SEND world_src=<w> world_dst=<w> comm=<l> comm_src=<r> tag=<t>
 *        bytes=<n> call=<send|isend|ssend|issend|bsend|rsend> seq=<k>
 *       written when the send is posted (before a blocking send blocks).
 *       comm_src is the sender's rank in comm.
 *   RECV world_src=<w> world_dst=<w> comm=<l> comm_src=<r> tag=<t>
 *        bytes=<n> call=<recv|irecv|mrecv|sendrecv> posted_src=<r|ANY>
 *        posted_tag=<t|ANY> buf=<posted bytes> status=<ok|truncated|cancelled>
 *        seq=<k>
 *       one completed receive. world_src, comm_src and tag come from the
 *       MPI_Status (world_src translated with MPI_Group_translate_ranks);
 *       bytes is MPI_Get_count in bytes. A truncated receive (error class
 *       MPI_ERR_TRUNCATE under MPI_ERRORS_RETURN) logs bytes=<buf>, the
 *       bytes that were delivered, because MPI does not say how long the
 *       message was. A cancelled receive logs world_src=-1 comm_src=-1
 *       tag=-1 bytes=0 status=cancelled. posted_src is a rank in comm.
 *   PROBE world_dst=<w> comm=<l> call=<iprobe|probe|improbe|mprobe>
 *         found=<0|1> posted_src=<r|ANY> posted_tag=<t|ANY>
 *         [world_src=<w> comm_src=<r> tag=<t> bytes=<n>] seq=<k>
 *       one probe call; the message fields are present when found=1.
 *   COLL comm=<l> op=<barrier|allreduce|bcast|...>
 *       a collective the rank entered (logged before the call).
 *
 * Every wrapper returns the MPI return code of the call it made; a program
 * exits through mpilog_fail() on anything unexpected.
 */
#ifndef MPILOG_H
#define MPILOG_H

#include <mpi.h>

enum mpilog_send_call {
	MPILOG_SEND, MPILOG_ISEND, MPILOG_SSEND, MPILOG_ISSEND, MPILOG_BSEND,
	MPILOG_RSEND
};

/* Opens the log. Call right after MPI_Init; removes "--log DIR" and
 * "--no-ssend" from argv. */
void mpilog_init(int *argc, char ***argv);
/* Flushes receives still pending (there must be none) and closes the log. */
void mpilog_finalize(void);
/* Names comm in later lines and logs a COMM line. label: no spaces. */
void mpilog_comm(MPI_Comm comm, const char *label);
/* Logs a COLL line; the caller then runs the collective. */
void mpilog_coll(MPI_Comm comm, const char *op);
/* Prints "rank <r>: <what>" to stderr and aborts the job. */
void mpilog_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* mpilog_fail unless rc is MPI_SUCCESS. */
void mpilog_check(int rc, const char *what);
/* Whether --no-ssend was given. */
int mpilog_no_ssend(void);
/* Rank in MPI_COMM_WORLD, valid after mpilog_init. */
int mpilog_world_rank(void);
/* Creates DIR/ready.RANK: a hang test's program calls it just before the
 * blocking call the job hangs in, so the test knows when every rank got
 * there. Needs no mpilog_init; aborts the job if the file cannot be made. */
void mpilog_ready(const char *dir, int rank);
/* mpilog_ready in the --log directory, if any: the caller is about to
 * make the blocking call a hang test expects it to hang in. */
void mpilog_blocks(void);

/* Sends are of MPI_BYTE. ISEND and ISSEND need req, the others ignore it. */
int mpilog_send(enum mpilog_send_call call, const void *buf, int bytes,
		int dst, int tag, MPI_Comm comm, MPI_Request *req);
int mpilog_recv(void *buf, int bytes, int src, int tag, MPI_Comm comm,
		MPI_Status *st);
int mpilog_irecv(void *buf, int bytes, int src, int tag, MPI_Comm comm,
		 MPI_Request *req);
/* Sendrecv of MPI_BYTE: logs a SEND and then a RECV (call=sendrecv). */
int mpilog_sendrecv(const void *sbuf, int sbytes, int dst, int stag,
		    void *rbuf, int rbytes, int src, int rtag, MPI_Comm comm,
		    MPI_Status *st);
/* Completes requests from mpilog_send/irecv and logs finished receives. */
int mpilog_wait(MPI_Request *req, MPI_Status *st);
int mpilog_waitall(int n, MPI_Request *reqs);
/* Cancels a receive from mpilog_irecv, waits for it and logs the outcome
 * (status=cancelled if MPI_Test_cancelled says so). *cancelled gets it. */
int mpilog_cancel_recv(MPI_Request *req, int *cancelled);

int mpilog_iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st);
int mpilog_probe(int src, int tag, MPI_Comm comm, MPI_Status *st);
int mpilog_improbe(int src, int tag, MPI_Comm comm, int *flag,
		   MPI_Message *msg, MPI_Status *st);
int mpilog_mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg,
		  MPI_Status *st);
/* Receives a message from mpilog_improbe/mprobe; posted_src/tag in the RECV
 * line are those of that probe. */
int mpilog_mrecv(void *buf, int bytes, MPI_Message *msg, MPI_Status *st);

#endif /* MPILOG_H */
