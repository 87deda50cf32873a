/*
 * mpilog.c - the MPI test programs' own account of their messages.
 * Format and rules: mpilog.h.
 */
#include "mpilog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COMMS 64	/* tags_comms logs one per tenth duplicate */
#define MAX_MSGS 16
#define LINE_MAX_LEN 320

struct comm_info {
	MPI_Comm comm;
	char label[32];
	int my_rank;
	int size;
	int *world;		/* world rank of each rank in comm */
};

/* A logged operation whose line may not be written yet (a pending receive,
 * or anything posted after one). */
struct entry {
	int done;
	char line[LINE_MAX_LEN];
	/* pending receives only: */
	MPI_Request req;
	const struct comm_info *ci;
	const char *call;
	int posted_src, posted_tag, buf;
};

/* What an mprobe/improbe found, for the mrecv that receives it. */
struct probed {
	MPI_Message msg;
	const struct comm_info *ci;
	int posted_src, posted_tag;
};

static FILE *logf;
static const char *logdir;	/* --log or MSGTRACE_TEST_LOG: ready files */
static int world_rank = -1;
static int no_ssend;		/* --no-ssend */
static struct comm_info comms[MAX_COMMS];
static int ncomms;
static struct probed probed[MAX_MSGS];
static int seq;			/* next seq number */
static struct entry *entries;	/* entries[0..nentries) not yet written */
static int nentries, capentries;
static int first_seq;		/* seq of entries[0] */

void mpilog_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rank %d: ", world_rank);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

void mpilog_check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS)
		mpilog_fail("%s failed with MPI error %d", what, rc);
}

int mpilog_world_rank(void)
{
	return world_rank;
}

void mpilog_ready(const char *dir, int rank)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ready.%d", dir, rank);
	if (!(f = fopen(path, "w")) || fclose(f)) {
		perror(path);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

void mpilog_blocks(void)
{
	if (logdir)
		mpilog_ready(logdir, world_rank);
}

int mpilog_no_ssend(void)
{
	return no_ssend;
}

static void emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit(const char *fmt, ...)
{
	va_list ap;

	if (!logf)
		return;
	va_start(ap, fmt);
	vfprintf(logf, fmt, ap);
	va_end(ap);
	fputc('\n', logf);
	/* A hang test is killed: what it logged must already be on disk. */
	fflush(logf);
}

void mpilog_init(int *argc, char ***argv)
{
	const char *dir = getenv("MSGTRACE_TEST_LOG");
	char path[4096];

	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	for (int i = 1; i < *argc;) {
		int used = 0;

		if (!strcmp((*argv)[i], "--no-ssend")) {
			no_ssend = 1;
			used = 1;
		} else if (!strcmp((*argv)[i], "--log")) {
			if (i + 1 >= *argc)
				mpilog_fail("option --log needs a directory");
			dir = (*argv)[i + 1];
			used = 2;
		}
		if (!used) {
			i++;
			continue;
		}
		memmove(&(*argv)[i], &(*argv)[i + used],
			(size_t)(*argc - i - used + 1) * sizeof(char *));
		*argc -= used;
	}
	if (dir && *dir) {
		logdir = dir;
		snprintf(path, sizeof(path), "%s/rank%d.log", dir, world_rank);
		logf = fopen(path, "w");
		if (!logf)
			mpilog_fail("cannot create log %s", path);
	}
	mpilog_comm(MPI_COMM_WORLD, "world");
}

void mpilog_comm(MPI_Comm comm, const char *label)
{
	struct comm_info *ci;
	MPI_Group group, wgroup;
	int *ranks;

	if (ncomms == MAX_COMMS)
		mpilog_fail("more than %d communicators logged", MAX_COMMS);
	ci = &comms[ncomms++];
	ci->comm = comm;
	snprintf(ci->label, sizeof(ci->label), "%s", label);
	MPI_Comm_rank(comm, &ci->my_rank);
	MPI_Comm_size(comm, &ci->size);
	ranks = malloc((size_t)ci->size * sizeof(int));
	ci->world = malloc((size_t)ci->size * sizeof(int));
	if (!ranks || !ci->world)
		mpilog_fail("out of memory");
	for (int i = 0; i < ci->size; i++)
		ranks[i] = i;
	MPI_Comm_group(comm, &group);
	MPI_Comm_group(MPI_COMM_WORLD, &wgroup);
	MPI_Group_translate_ranks(group, ci->size, ranks, wgroup, ci->world);
	MPI_Group_free(&group);
	MPI_Group_free(&wgroup);
	free(ranks);
	emit("COMM label=%s size=%d my_rank=%d", ci->label, ci->size,
	     ci->my_rank);
}

/* MPI_IDENT means the same handle; MPI_Comm_compare itself fails in Open
 * MPI 5 between a session's communicator and MPI_COMM_WORLD. */
static const struct comm_info *find_comm(MPI_Comm comm)
{
	for (int i = 0; i < ncomms; i++)
		if (comms[i].comm == comm)
			return &comms[i];
	mpilog_fail("communicator not registered with mpilog_comm");
	return NULL;
}

static int to_world(const struct comm_info *ci, int rank)
{
	if (rank < 0 || rank >= ci->size)
		mpilog_fail("rank %d out of range in comm %s", rank, ci->label);
	return ci->world[rank];
}

void mpilog_coll(MPI_Comm comm, const char *op)
{
	emit("COLL comm=%s op=%s", find_comm(comm)->label, op);
}

/* Writes the lines of the completed prefix of entries, in seq order. */
static void drain(void)
{
	int n = 0;

	while (n < nentries && entries[n].done)
		emit("%s", entries[n++].line);
	memmove(entries, entries + n, (size_t)(nentries - n) * sizeof(*entries));
	nentries -= n;
	first_seq += n;
}

static struct entry *new_entry(int *k)
{
	if (nentries == capentries) {
		capentries = capentries ? 2 * capentries : 64;
		entries = realloc(entries, (size_t)capentries * sizeof(*entries));
		if (!entries)
			mpilog_fail("out of memory");
	}
	*k = seq++;
	memset(&entries[nentries], 0, sizeof(*entries));
	entries[nentries].req = MPI_REQUEST_NULL;
	return &entries[nentries++];
}

static void log_done(struct entry *e, int k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void log_done(struct entry *e, int k, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	len = (size_t)vsnprintf(e->line, sizeof(e->line), fmt, ap);
	va_end(ap);
	snprintf(e->line + len, sizeof(e->line) - len, " seq=%d", k);
	e->done = 1;
	drain();
}

static const char *any(int v, int wildcard, char *buf, size_t n)
{
	if (v == wildcard)
		return "ANY";
	snprintf(buf, n, "%d", v);
	return buf;
}

static const char *const send_calls[] = {
	[MPILOG_SEND] = "send", [MPILOG_ISEND] = "isend",
	[MPILOG_SSEND] = "ssend", [MPILOG_ISSEND] = "issend",
	[MPILOG_BSEND] = "bsend", [MPILOG_RSEND] = "rsend",
};

static void log_send(const char *call, int bytes, int dst, int tag,
		     const struct comm_info *ci)
{
	int k;
	struct entry *e = new_entry(&k);

	log_done(e, k, "SEND world_src=%d world_dst=%d comm=%s comm_src=%d "
		 "tag=%d bytes=%d call=%s", world_rank, to_world(ci, dst),
		 ci->label, ci->my_rank, tag, bytes, call);
}

int mpilog_send(enum mpilog_send_call call, const void *buf, int bytes,
		int dst, int tag, MPI_Comm comm, MPI_Request *req)
{
	if (no_ssend && call == MPILOG_SSEND)
		call = MPILOG_SEND;
	if (no_ssend && call == MPILOG_ISSEND)
		call = MPILOG_ISEND;
	log_send(send_calls[call], bytes, dst, tag, find_comm(comm));
	switch (call) {
	case MPILOG_SEND:
		return MPI_Send(buf, bytes, MPI_BYTE, dst, tag, comm);
	case MPILOG_ISEND:
		return MPI_Isend(buf, bytes, MPI_BYTE, dst, tag, comm, req);
	case MPILOG_SSEND:
		return MPI_Ssend(buf, bytes, MPI_BYTE, dst, tag, comm);
	case MPILOG_ISSEND:
		return MPI_Issend(buf, bytes, MPI_BYTE, dst, tag, comm, req);
	case MPILOG_BSEND:
		return MPI_Bsend(buf, bytes, MPI_BYTE, dst, tag, comm);
	case MPILOG_RSEND:
		return MPI_Rsend(buf, bytes, MPI_BYTE, dst, tag, comm);
	}
	mpilog_fail("unknown send call %d", (int)call);
	return MPI_ERR_OTHER;
}

/*
 * Fills a receive's line from its outcome: rc is the error code of the call
 * that completed it (truncation is the only error a test expects).
 */
static void finish_recv(struct entry *e, int k, int rc, MPI_Status *st,
			int cancelled)
{
	char ps[16], pt[16];
	const char *status = "ok";
	int bytes, eclass;

	if (cancelled) {
		log_done(e, k, "RECV world_src=-1 world_dst=%d comm=%s "
			 "comm_src=-1 tag=-1 bytes=0 call=%s posted_src=%s "
			 "posted_tag=%s buf=%d status=cancelled", world_rank,
			 e->ci->label, e->call,
			 any(e->posted_src, MPI_ANY_SOURCE, ps, sizeof(ps)),
			 any(e->posted_tag, MPI_ANY_TAG, pt, sizeof(pt)),
			 e->buf);
		return;
	}
	if (rc != MPI_SUCCESS) {
		MPI_Error_class(rc, &eclass);
		if (eclass != MPI_ERR_TRUNCATE)
			mpilog_fail("%s in comm %s failed with error class %d",
				    e->call, e->ci->label, eclass);
		status = "truncated";
		bytes = e->buf;
	} else {
		MPI_Get_count(st, MPI_BYTE, &bytes);
	}
	log_done(e, k, "RECV world_src=%d world_dst=%d comm=%s comm_src=%d "
		 "tag=%d bytes=%d call=%s posted_src=%s posted_tag=%s buf=%d "
		 "status=%s", to_world(e->ci, st->MPI_SOURCE), world_rank,
		 e->ci->label, st->MPI_SOURCE, st->MPI_TAG, bytes, e->call,
		 any(e->posted_src, MPI_ANY_SOURCE, ps, sizeof(ps)),
		 any(e->posted_tag, MPI_ANY_TAG, pt, sizeof(pt)), e->buf,
		 status);
}

static struct entry *new_recv(const char *call, int bytes, int src, int tag,
			      const struct comm_info *ci, int *k)
{
	struct entry *e = new_entry(k);

	e->ci = ci;
	e->call = call;
	e->posted_src = src;
	e->posted_tag = tag;
	e->buf = bytes;
	return e;
}

int mpilog_recv(void *buf, int bytes, int src, int tag, MPI_Comm comm,
		MPI_Status *st)
{
	int k, rc;
	struct entry *e = new_recv("recv", bytes, src, tag, find_comm(comm),
				   &k);

	rc = MPI_Recv(buf, bytes, MPI_BYTE, src, tag, comm, st);
	finish_recv(e, k, rc, st, 0);
	return rc;
}

int mpilog_irecv(void *buf, int bytes, int src, int tag, MPI_Comm comm,
		 MPI_Request *req)
{
	int k, rc;
	struct entry *e = new_recv("irecv", bytes, src, tag, find_comm(comm),
				   &k);

	rc = MPI_Irecv(buf, bytes, MPI_BYTE, src, tag, comm, req);
	if (rc != MPI_SUCCESS)
		mpilog_fail("MPI_Irecv failed: %d", rc);
	e->req = *req;
	return rc;
}

int mpilog_sendrecv(const void *sbuf, int sbytes, int dst, int stag,
		    void *rbuf, int rbytes, int src, int rtag, MPI_Comm comm,
		    MPI_Status *st)
{
	const struct comm_info *ci = find_comm(comm);
	int k, rc;
	struct entry *e;

	log_send("sendrecv", sbytes, dst, stag, ci);
	e = new_recv("sendrecv", rbytes, src, rtag, ci, &k);
	rc = MPI_Sendrecv(sbuf, sbytes, MPI_BYTE, dst, stag, rbuf, rbytes,
			  MPI_BYTE, src, rtag, comm, st);
	finish_recv(e, k, rc, st, 0);
	return rc;
}

/* The pending receive posted with request req, and its seq; NULL if req is
 * not a logged receive (a send request). */
static struct entry *find_recv(MPI_Request req, int *k)
{
	for (int i = 0; i < nentries; i++) {
		if (!entries[i].done && entries[i].req == req) {
			*k = first_seq + i;
			return &entries[i];
		}
	}
	return NULL;
}

/* Entries move when drain() writes lines: look them up again by seq. */
static struct entry *entry_of(int k)
{
	return &entries[k - first_seq];
}

int mpilog_wait(MPI_Request *req, MPI_Status *st)
{
	int k = -1, rc;
	struct entry *e = find_recv(*req, &k);

	rc = MPI_Wait(req, st);
	if (e)
		finish_recv(e, k, rc, st, 0);
	else if (rc != MPI_SUCCESS)
		mpilog_fail("MPI_Wait on a send failed: %d", rc);
	return rc;
}

int mpilog_waitall(int n, MPI_Request *reqs)
{
	MPI_Status *sts = calloc((size_t)n, sizeof(*sts));
	int *ks = calloc((size_t)n, sizeof(*ks));
	int rc;

	if (!sts || !ks)
		mpilog_fail("out of memory");
	for (int i = 0; i < n; i++) {
		ks[i] = -1;
		if (reqs[i] != MPI_REQUEST_NULL)
			find_recv(reqs[i], &ks[i]);
	}
	rc = MPI_Waitall(n, reqs, sts);
	for (int i = 0; i < n; i++) {
		int err = rc == MPI_ERR_IN_STATUS ? sts[i].MPI_ERROR : rc;

		/* entry_of, not a saved pointer: finishing one drains others */
		if (ks[i] >= 0)
			finish_recv(entry_of(ks[i]), ks[i], err, &sts[i], 0);
		else if (err != MPI_SUCCESS)
			mpilog_fail("MPI_Waitall on a send failed: %d", err);
	}
	free(sts);
	free(ks);
	return rc;
}

int mpilog_cancel_recv(MPI_Request *req, int *cancelled)
{
	int k = -1, rc;
	struct entry *e = find_recv(*req, &k);
	MPI_Status st;

	if (!e)
		mpilog_fail("mpilog_cancel_recv: not a logged receive");
	MPI_Cancel(req);
	rc = MPI_Wait(req, &st);
	MPI_Test_cancelled(&st, cancelled);
	finish_recv(e, k, rc, &st, *cancelled);
	return rc;
}

static void log_probe(const char *call, int src, int tag,
		      const struct comm_info *ci, int found, MPI_Status *st)
{
	char ps[16], pt[16], msg[128] = "";
	int k, bytes;
	struct entry *e = new_entry(&k);

	if (found) {
		MPI_Get_count(st, MPI_BYTE, &bytes);
		snprintf(msg, sizeof(msg), " world_src=%d comm_src=%d tag=%d "
			 "bytes=%d", to_world(ci, st->MPI_SOURCE),
			 st->MPI_SOURCE, st->MPI_TAG, bytes);
	}
	log_done(e, k, "PROBE world_dst=%d comm=%s call=%s found=%d "
		 "posted_src=%s posted_tag=%s%s", world_rank, ci->label, call,
		 found, any(src, MPI_ANY_SOURCE, ps, sizeof(ps)),
		 any(tag, MPI_ANY_TAG, pt, sizeof(pt)), msg);
}

int mpilog_iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *st)
{
	int rc = MPI_Iprobe(src, tag, comm, flag, st);

	log_probe("iprobe", src, tag, find_comm(comm), *flag, st);
	return rc;
}

int mpilog_probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
	int rc = MPI_Probe(src, tag, comm, st);

	log_probe("probe", src, tag, find_comm(comm), 1, st);
	return rc;
}

static void remember(MPI_Message msg, int src, int tag,
		     const struct comm_info *ci)
{
	for (int i = 0; i < MAX_MSGS; i++) {
		if (!probed[i].ci) {
			probed[i] = (struct probed){ msg, ci, src, tag };
			return;
		}
	}
	mpilog_fail("more than %d probed messages outstanding", MAX_MSGS);
}

int mpilog_improbe(int src, int tag, MPI_Comm comm, int *flag,
		   MPI_Message *msg, MPI_Status *st)
{
	const struct comm_info *ci = find_comm(comm);
	int rc = MPI_Improbe(src, tag, comm, flag, msg, st);

	log_probe("improbe", src, tag, ci, *flag, st);
	if (*flag)
		remember(*msg, src, tag, ci);
	return rc;
}

int mpilog_mprobe(int src, int tag, MPI_Comm comm, MPI_Message *msg,
		  MPI_Status *st)
{
	const struct comm_info *ci = find_comm(comm);
	int rc = MPI_Mprobe(src, tag, comm, msg, st);

	log_probe("mprobe", src, tag, ci, 1, st);
	remember(*msg, src, tag, ci);
	return rc;
}

int mpilog_mrecv(void *buf, int bytes, MPI_Message *msg, MPI_Status *st)
{
	struct probed *p = NULL;
	struct entry *e;
	int k, rc;

	for (int i = 0; i < MAX_MSGS && !p; i++)
		if (probed[i].ci && probed[i].msg == *msg)
			p = &probed[i];
	if (!p)
		mpilog_fail("mpilog_mrecv: message not from mpilog_*mprobe");
	e = new_recv("mrecv", bytes, p->posted_src, p->posted_tag, p->ci, &k);
	p->ci = NULL;
	rc = MPI_Mrecv(buf, bytes, MPI_BYTE, msg, st);
	finish_recv(e, k, rc, st, 0);
	return rc;
}

void mpilog_finalize(void)
{
	if (nentries)
		mpilog_fail("%d logged operations never completed", nentries);
	if (logf && fclose(logf))
		mpilog_fail("cannot write the log");
	logf = NULL;
}
