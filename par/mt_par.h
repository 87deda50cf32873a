/*
 * mt_par.h - msgtrace on MPI (library mt_par): a msgtrace analysis command
 * run by an MPI job of any size N, printing what `msgtrace COMMAND` prints,
 * byte for byte, and ending with its status on every rank, never hanging.
 *
 * The division of work (engine.c):
 *  - Ownership: every analysis rank opens the whole trace (processes,
 *    endpoints, addresses: the serial numbering everywhere; each rank
 *    scans its share of the closed files, balanced by bytes, from a copy
 *    or giving their pages back once scanned, and the ranks exchange what
 *    the scans found: engine.c's scans) and owns
 *    whole traced processes, balanced by their files' bytes (largest
 *    first to the least loaded rank; rank 0, which keeps every message
 *    for the clock stage and the sink, starts with 1/10 of the trace's:
 *    own.c). The tag layouts are decided alike everywhere from the
 *    evidence each rank reads in its own files (evidence.c). A rank reads
 *    and decodes only its processes' records (pipeline's split: the merge
 *    of its files, the feed's decoding).
 *  - Pairing happens on the receiver's owner: a record's operation goes to
 *    the owner of the endpoint it is keyed by at the matcher: a send to
 *    its destination's owner, a receive, probe or close to its own, a
 *    completion wherever the operation it completes went (per process and
 *    context, first in first out, as the matcher pairs them: route.c).
 *    Each rank runs the serial matcher (match/) on what it was sent. An
 *    Ssend's owed ACK stays on the receiver's owner, which pays it when it
 *    reads the ACK's send (routed to it too) and, at the end, moves what
 *    is still owed to the sender's owner (owed.c).
 *  - Order: each operation travels with its place in the merge of every
 *    file (struct mt_pipe_at); a rank feeds its matcher in that order, so
 *    each key sees the serial sequence. The job advances in rounds: each
 *    rank reads a batch, the ranks agree on the lowest place any of them
 *    has reached (the horizon), and everything up to it is exchanged
 *    (MPI_Alltoallv) and matched; what lies past it waits for the next
 *    round. Memory is a round's batch plus the matcher's operations in
 *    flight, per rank.
 *  - Output: each message leaves tagged with the place of the record that
 *    finished it (or, at the end, its receiving endpoint, then its post
 *    time and endpoint: the matcher's own order there); rank 0 merges the
 *    ranks' messages of a round by that tag into the serial pass's clock
 *    stage and sink. At the end the summaries are combined (sums; the
 *    warnings' first examples by the same tags; pending operations in the
 *    matcher's order) so that nothing depends on N.
 *  - A bad record stops the reading where the serial merge stops (the
 *    lowest place of a failure any rank met): what lies before it is
 *    analysed everywhere, and its error is the serial one.
 *  - Writing: a sink whose lines depend on each message alone (CSV:
 *    mt_sink_lines) has its batches, once their times are corrected,
 *    written by the other ranks as they have room and by rank 0 in the
 *    time its own part leaves it, rank 0 putting the texts out in order
 *    (lines.c): when every rank can open rank 0's -o (a regular file,
 *    the same one), each writes its texts into it at the places rank 0
 *    gives; otherwise they send them to rank 0 (outfile.c).
 * Not divided yet: the clock correction and the other sinks (the report,
 * the exports) run on rank 0 (the serial stage, on the gathered messages);
 * an MPI-level OTF2 archive is analysed by rank 0 alone.
 *
 * Only this library and the msgtrace-mpi executable link MPI; they know
 * the stages through their public headers only.
 */
#ifndef MT_PAR_H
#define MT_PAR_H

#include <mpi.h>

struct mt_cmd;

/* The analysis commands msgtrace-mpi runs (report, messages, export),
 * NULL ended. */
extern const struct mt_cmd *const mt_par_cmds[];

/*
 * Runs cmd (argv[0] is the subcommand, as msgtrace's own) divided among
 * the ranks of comm; returns its exit status (MT_EXIT_*) on every rank.
 * Rank 0 prints what the serial command prints; the others must print
 * nothing (their stdout and stderr are the caller's to silence).
 * Collective over comm.
 */
int mt_par_run(MPI_Comm comm, const struct mt_cmd *cmd, int argc, char **argv);

#endif /* MT_PAR_H */
