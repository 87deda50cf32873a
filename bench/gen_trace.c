/*
 * gen_trace.c - writes a synthetic msgtrace trace (format: trace/mt_trace.h)
 * for the matcher benchmark: NPROC processes exchanging NMSG tagged messages
 * the way Open MPI's OFI MTL does in ofi_tag_full (fi_trecv with a directed
 * source, fi_tsenddata or fi_tinjectdata with the rank in CQ data, one CQ
 * bound with FI_SELECTIVE_COMPLETION), with completions arriving later and
 * op contexts reused.
 *
 *   gen_trace [--pending] [--pattern NAME] DIR NMSG [NPROC]
 *                                               (DIR must not exist)
 *
 * Prints the records it wrote (the trace's events, as `msgtrace report`
 * counts them).
 *   gen_trace --hang DIR NPROC [NCOMM]
 *
 * --pending: each process ends with a receive posted and never completed
 * (tag 999 from the next process, at its own time), as a hang leaves it.
 * --pattern: the traffic (about NMSG messages in each):
 *   benign      the above (default); up to 25,000 processes, each sending
 *               to the next min(NPROC - 1, 63) in turn (so a process's
 *               peers stay 126 however many there are, as in a stencil)
 *   preposted   process 0 keeps 10^4 MPI_ANY_SOURCE receives (tag 999)
 *               posted during the traffic; they are satisfied at the end
 *   anysrc      process 0 serves: 1024 MPI_ANY_SOURCE receives always
 *               posted, completions out of posting order, one reposted per
 *               message
 *   anytag      the same with MPI_ANY_SOURCE + MPI_ANY_TAG receives
 *   unexpected  10^5 sends ahead of their receives, in rounds
 *   cancel      every process keeps 1000 receives (tag 998) posted and
 *               cancels the oldest, reposting one, at every message
 *   probe       every receive found first by a probe (MPI_Iprobe), every
 *               other one by a claiming probe and its claim (MPI_Mprobe +
 *               MPI_Mrecv)
 *   layouts     processes 0-1 use ofi_tag_full, 2-3 ofi_tag_2 (4 processes),
 *               synchronous sends whose receive completions omit the SYNC bit
 * --hang: NPROC processes (up to 25,000) killed in the hang of
 * tests/e2e/hang_recv_barrier.c: rank 0 waits for user tag 99 from rank 1,
 * every other rank r in a binomial barrier (internal tag -16, cid 0) for
 * its parent r - 2^floor(log2 r), to which it sent its own message, which
 * the parent has not received. Files are written one process at a time and
 * left unclosed, as a kill leaves them. NCOMM > 1 splits the ranks into
 * NCOMM communicators (rank r in cid r % NCOMM, whose root waits in the
 * world's barrier), and every rank r = 999 mod 1000 waits on rank
 * NPROC + r, which left no trace: many groups of waits, many roots, for
 * the report's bounds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rdma/fabric.h>

#include "mt_format.h"

#define MAX_PROC 64		/* message mode, patterns other than benign */
#define MAX_BENIGN_PROC 25000	/* name_of: ports 10000 + NPROC fit */
#define PEERS 63		/* benign: destinations of a process */
#define OPEN_FILES 1024		/* files written at once: the traffic is
				 * generated once per block of them */
#define FILE_BUFFER (1 << 18)
#define MAX_HANG_PROC 25000	/* name_of: ports 10000 + 2 * NPROC fit */
#define CTX_RING 64		/* contexts reused round robin */
#define TAG_FULL(cid, tag) ((uint64_t)(cid) << 34 | (uint32_t)(int32_t)(tag))
#define PREPOSTED 10000
#define SERVED 1024		/* receives a server keeps posted */
#define UNEXPECTED 100000
#define CANCELLED 1000
#define RECV_FLAGS (FI_TAGGED | FI_RECV | FI_REMOTE_CQ_DATA)
#define SYNC_FULL (1ull << 32)	/* ofi_tag_full's SYNC_SEND bit */

struct proc {
	FILE *f;
	uint64_t bytes;		/* record bytes written */
	uint64_t ctx;		/* next context slot */
};

static struct proc *P;
static int lo, hi;		/* the block of processes being written */
static uint64_t records;	/* written so far */

static void put(int p, void *rec, uint16_t size, uint8_t type, uint32_t aux,
		uint64_t ts)
{
	struct mt_rec_hdr *h = rec;

	h->type = type;
	h->layer = 0;
	h->size = size;
	h->aux = aux;
	h->ts = ts;
	if (p < lo || p >= hi)
		return;
	records++;
	if (fwrite(rec, size, 1, P[p].f) != 1) {
		perror("gen_trace: write");
		exit(1);
	}
	P[p].bytes += size;
}

static uint64_t ep_id(int p) { return 0x10000 + (uint64_t)p * 0x100; }
static uint64_t cq_id(int p) { return ep_id(p) + 0x10; }
static uint64_t av_id(int p) { return ep_id(p) + 0x20; }

static void name_of(int p, uint8_t *name)
{
	memset(name, 0, 16);
	name[0] = 2;			/* AF_INET, port 10000 + p, 10.0.0.1 */
	name[2] = (uint8_t)((10000 + p) >> 8);
	name[3] = (uint8_t)(10000 + p);
	name[4] = 10;
	name[7] = 1;
}

static void obj(int p, uint64_t id, uint32_t fclass)
{
	struct mt_rec_obj o = { .id = id, .parent = 0 };

	strcpy(o.prov_name, "ofi_rxm");
	put(p, &o, sizeof(o), MT_REC_OBJ, fclass, 1);
}

static void bind(int p, uint64_t target, uint64_t flags)
{
	struct mt_rec_bind b = { .obj = ep_id(p), .target = target, .flags = flags };

	put(p, &b, sizeof(b), MT_REC_BIND, 0, 2);
}

static void av_insert(int p, int q)
{
	struct mt_rec_av a = { .av = av_id(p), .fi_addr = (uint64_t)q,
			       .addr_len = 16 };

	name_of(q, a.addr);
	put(p, &a, sizeof(a), MT_REC_AV, MT_AV_INSERT, 4);
}

static uint64_t tag2_mtf;	/* layouts: mem_tag_format of processes 2-3 */

static void setup(int p, int nproc)
{
	struct mt_rec_proc pr = { .pid = 1000u + (unsigned)p, .world_rank = p,
		.world_size = nproc, .local_rank = p, .fi_version = FI_VERSION(1, 17),
		.clock_source = MT_CLOCK_MONOTONIC, .clock_hz = 1000000000 };
	struct mt_rec_clock c = { .realtime_ns = 1, .monotonic_ns = 1 };
	struct mt_rec_ep e = { .ep = ep_id(p), .caps = FI_TAGGED | FI_SEND |
		FI_RECV | FI_DIRECTED_RECV, .mem_tag_format = 0xaaaaaaaaaaaaaaaaull,
		.tx_op_flags = FI_COMPLETION, .rx_op_flags = FI_COMPLETION,
		.inject_size = 64, .cq_data_size = 8, .ep_type = FI_EP_RDM,
		.addr_format = FI_SOCKADDR_IN, .name_len = 16 };

	strcpy(pr.hostname, "bench");
	put(p, &pr, sizeof(pr), MT_REC_PROC, 0, 1);
	put(p, &c, sizeof(c), MT_REC_CLOCK, MT_CLOCK_START, 1);
	obj(p, ep_id(p), FI_CLASS_EP);
	obj(p, cq_id(p), FI_CLASS_CQ);
	obj(p, av_id(p), FI_CLASS_AV);
	bind(p, av_id(p), 0);
	bind(p, cq_id(p), FI_SEND | FI_RECV | FI_SELECTIVE_COMPLETION);
	if (tag2_mtf && p >= 2) {	/* ofi_tag_2: no CQ data */
		e.cq_data_size = 0;
		e.mem_tag_format = tag2_mtf;
	}
	strcpy(e.prov_name, "tcp;ofi_rxm");
	strcpy(e.fabric_name, "bench");
	name_of(p, e.name);
	put(p, &e, sizeof(e), MT_REC_EP, 0, 3);
}

static void op(int p, unsigned kind, uint64_t ts, uint64_t addr, uint64_t tag,
	       uint64_t ignore, uint64_t len, uint64_t data, uint64_t ctx)
{
	struct mt_rec_op o = { .ep = ep_id(p), .addr = addr, .tag = tag,
		.ignore = ignore, .len = len, .data = data, .context = ctx };

	put(p, &o, sizeof(o), MT_REC_OP, kind, ts);
}

static void opmsg(int p, unsigned kind, uint64_t ts, uint64_t addr, uint64_t tag,
		  uint64_t ignore, uint64_t ctx, uint64_t flags)
{
	struct mt_rec_op o = { .ep = ep_id(p), .addr = addr, .tag = tag,
		.ignore = ignore, .len = 65536, .context = ctx, .flags = flags };

	put(p, &o, sizeof(o), MT_REC_OP, kind, ts);
}

static void cqe_err(int p, uint64_t ts, uint64_t ctx, uint64_t flags,
		    uint64_t len, uint64_t tag, uint64_t data, int err)
{
	struct mt_rec_cqe c = { .cq = cq_id(p), .context = ctx, .flags = flags,
		.len = len, .tag = tag, .data = data, .src = FI_ADDR_NOTAVAIL,
		.err = err };

	put(p, &c, sizeof(c), MT_REC_CQE, err ? MT_CQ_READERR : MT_CQ_READ, ts);
}

static void cqe(int p, uint64_t ts, uint64_t ctx, uint64_t flags, uint64_t len,
		uint64_t tag, uint64_t data)
{
	cqe_err(p, ts, ctx, flags, len, tag, data, 0);
}

static uint64_t next_ctx(int p)
{
	return 0x7f0000000000ull + (uint64_t)p * 0x10000 +
	       (P[p].ctx++ % CTX_RING) * 64;
}

/* How many processes after it a process of the benign traffic sends to. */
static uint64_t peers(int nproc)
{
	return nproc - 1 < PEERS ? (uint64_t)nproc - 1 : PEERS;
}

/* Whether process p ever addresses q in the traffic (every process does
 * every other when there are at most PEERS + 1). */
static int addresses(int p, int q, int nproc)
{
	int ahead = (q - p + nproc) % nproc;

	return (uint64_t)ahead <= peers(nproc) ||
	       (uint64_t)(nproc - ahead) <= peers(nproc);
}

/* Message i: receive posted, send posted, receive done, send done. Each
 * process's records stay in time order, as a real writer's do. */
static void message(uint64_t i, int nproc, uint64_t t)
{
	int s = (int)(i % (uint64_t)nproc);
	int d = (int)((s + 1 + (int)((i / (uint64_t)nproc) % peers(nproc))) % nproc);
	uint64_t tag = (uint64_t)(i % 100), len = (i / (uint64_t)nproc) & 1 ? 4096 : 8;
	uint64_t rctx = next_ctx(d), sctx = next_ctx(s);

	op(d, MT_OP_TRECV, t, (uint64_t)s, tag, SYNC_FULL, 65536, 0, rctx);
	if (len > 64) {
		op(s, MT_OP_TSENDDATA, t + 10, (uint64_t)d, tag, 0, len, (uint64_t)s,
		   sctx);
	} else {
		op(s, MT_OP_TINJECTDATA, t + 10, (uint64_t)d, tag, 0, len,
		   (uint64_t)s, 0);
	}
	cqe(d, t + 50, rctx, FI_TAGGED | FI_RECV | FI_REMOTE_CQ_DATA, len, tag,
	    (uint64_t)s);
	if (len > 64)
		cqe(s, t + 60, sctx, FI_TAGGED | FI_SEND, 0, 0, 0);
}

/* A context used once (long-lived receives). */
static uint64_t once_ctx(int p, uint64_t k)
{
	return 0x7e0000000000ull + (uint64_t)p * 0x1000000000ull + k * 64;
}

/* A send from s to d of tag at t (inject when small), done at t + 50. */
static void send_at(int s, int d, uint64_t tag, uint64_t len, uint64_t t)
{
	if (len > 64) {
		uint64_t ctx = next_ctx(s);

		op(s, MT_OP_TSENDDATA, t, (uint64_t)d, tag, 0, len, (uint64_t)s, ctx);
		cqe(s, t + 50, ctx, FI_TAGGED | FI_SEND, 0, 0, 0);
	} else {
		op(s, MT_OP_TINJECTDATA, t, (uint64_t)d, tag, 0, len, (uint64_t)s, 0);
	}
}

static uint64_t benign(uint64_t nmsg, int nproc, uint64_t t)
{
	for (uint64_t i = 0; i < nmsg; i++, t += 100)
		message(i, nproc, t);
	return t;
}

/* Process 0 keeps PREPOSTED wildcard receives posted through the traffic,
 * satisfied at the end by the others, in posting order. */
static uint64_t preposted(uint64_t nmsg, int nproc, uint64_t t)
{
	for (uint64_t k = 0; k < PREPOSTED; k++, t += 10)
		op(0, MT_OP_TRECV, t, FI_ADDR_UNSPEC, 999, SYNC_FULL, 8, 0,
		   once_ctx(0, k));
	t = benign(nmsg > PREPOSTED ? nmsg - PREPOSTED : 1, nproc, t);
	for (uint64_t k = 0; k < PREPOSTED; k++, t += 100) {
		int s = 1 + (int)(k % (uint64_t)(nproc - 1));

		send_at(s, 0, 999, 8, t);
		cqe(0, t + 40, once_ctx(0, k), RECV_FLAGS, 8, 999, (uint64_t)s);
	}
	return t;
}

/* Process 0 serves the others through SERVED wildcard receives: the
 * provider gives each message to the oldest, completions come back out of
 * order within windows of 8, and a receive is reposted for each. */
static uint64_t server(uint64_t nmsg, int nproc, uint64_t t, int any_tag)
{
	uint64_t ign = SYNC_FULL | (any_tag ? 0x7fffffffull : 0), posted = 0;

	for (; posted < SERVED; posted++, t += 10)
		op(0, MT_OP_TRECV, t, FI_ADDR_UNSPEC, 7, ign, 65536, 0,
		   once_ctx(0, posted));
	for (uint64_t i = 0; i < nmsg; i += 8, t += 8 * 100) {
		uint64_t n = nmsg - i < 8 ? nmsg - i : 8;

		for (uint64_t j = 0; j < n; j++) {
			int s = 1 + (int)((i + j) % (uint64_t)(nproc - 1));

			send_at(s, 0, any_tag ? (i + j) % 100 : 7, 8, t + j * 10);
		}
		for (uint64_t j = 0; j < n; j++) {	/* 7, 6, ... 0 */
			uint64_t k = i + n - 1 - j;
			int s = 1 + (int)(k % (uint64_t)(nproc - 1));

			cqe(0, t + 100 + j * 10, once_ctx(0, k), RECV_FLAGS, 8,
			    any_tag ? k % 100 : 7, (uint64_t)s);
		}
		for (uint64_t j = 0; j < n; j++, posted++)
			op(0, MT_OP_TRECV, t + 200 + j * 10, FI_ADDR_UNSPEC, 7,
			   ign, 65536, 0, once_ctx(0, posted));
	}
	return t;
}

/* Rounds of UNEXPECTED sends to process 0, then their receives. */
static uint64_t unexpected(uint64_t nmsg, int nproc, uint64_t t)
{
	for (uint64_t i = 0; i < nmsg; i += UNEXPECTED) {
		uint64_t n = nmsg - i < UNEXPECTED ? nmsg - i : UNEXPECTED;

		for (uint64_t j = 0; j < n; j++, t += 10)
			send_at(1 + (int)(j % (uint64_t)(nproc - 1)), 0, j % 100, 8, t);
		for (uint64_t j = 0; j < n; j++, t += 100) {
			int s = 1 + (int)(j % (uint64_t)(nproc - 1));
			uint64_t ctx = next_ctx(0);

			op(0, MT_OP_TRECV, t, (uint64_t)s, j % 100, SYNC_FULL, 65536,
			   0, ctx);
			cqe(0, t + 20, ctx, RECV_FLAGS, 8, j % 100, (uint64_t)s);
		}
	}
	return t;
}

/* The benign traffic, each message also cancelling the oldest of
 * CANCELLED receives its receiver keeps posted, and reposting one. */
static uint64_t cancel(uint64_t nmsg, int nproc, uint64_t t)
{
	uint64_t k[MAX_PROC] = { 0 };

	for (int p = 0; p < nproc; p++)
		for (; k[p] < CANCELLED; k[p]++, t += 10)
			op(p, MT_OP_TRECV, t, FI_ADDR_UNSPEC, 998, SYNC_FULL, 8, 0,
			   once_ctx(p, k[p]));
	for (uint64_t i = 0; i < nmsg; i++, t += 100) {
		int d = (int)((i % (uint64_t)nproc + 1 + (i / (uint64_t)nproc) %
			       (uint64_t)(nproc - 1)) % (uint64_t)nproc);
		uint64_t old = once_ctx(d, k[d] - CANCELLED);

		message(i, nproc, t);
		op(d, MT_OP_CANCEL, t + 70, 0, 0, 0, 0, 0, old);
		cqe_err(d, t + 75, old, FI_TAGGED | FI_RECV, 0, 998, 0, FI_ECANCELED);
		op(d, MT_OP_TRECV, t + 80, FI_ADDR_UNSPEC, 998, SYNC_FULL, 8, 0,
		   once_ctx(d, k[d]++));
	}
	return t;
}

/* Every message found by a probe first; every other one claimed by it. */
static uint64_t probe(uint64_t nmsg, int nproc, uint64_t t)
{
	for (uint64_t i = 0; i < nmsg; i++, t += 100) {
		int s = (int)(i % (uint64_t)nproc);
		int d = (s + 1) % nproc;
		uint64_t tag = i % 100, pctx = next_ctx(d);

		send_at(s, d, tag, 8, t);
		if (i & 1) {
			opmsg(d, MT_OP_TRECVMSG, t + 10, (uint64_t)s, tag, SYNC_FULL,
			      pctx, FI_PEEK | FI_CLAIM);
			cqe(d, t + 20, pctx, RECV_FLAGS, 8, tag, (uint64_t)s);
			opmsg(d, MT_OP_TRECVMSG, t + 30, (uint64_t)s, tag, SYNC_FULL,
			      pctx, FI_CLAIM);
			cqe(d, t + 40, pctx, RECV_FLAGS, 8, tag, (uint64_t)s);
			continue;
		}
		uint64_t rctx = next_ctx(d);

		opmsg(d, MT_OP_TRECVMSG, t + 10, (uint64_t)s, tag, SYNC_FULL, pctx,
		      FI_PEEK);
		cqe(d, t + 20, pctx, RECV_FLAGS, 8, tag, (uint64_t)s);
		op(d, MT_OP_TRECV, t + 30, (uint64_t)s, tag, SYNC_FULL, 65536, 0, rctx);
		cqe(d, t + 40, rctx, RECV_FLAGS, 8, tag, (uint64_t)s);
	}
	return t;
}

/*
 * Two pairs under two layouts: 0 <-> 1 in ofi_tag_full (source in CQ data,
 * SYNC bit 32), 2 <-> 3 in ofi_tag_2 (cid 24 | source 18 | proto 2 | tag 20,
 * SYNC bit 20). Synchronous sends, received with the SYNC bit ignored and
 * completed without it: only the receiver's own layout says that bit is
 * not part of the message's key.
 */
static uint64_t layouts(uint64_t nmsg, uint64_t t)
{
	for (uint64_t i = 0; i < nmsg; i++, t += 100) {
		int pair = (int)(i & 1), s = 2 * pair + (int)(i >> 1 & 1);
		int d = 4 * pair + 1 - s;	/* each way: evidence at both ends */
		uint64_t tag = pair ? 1ull << 40 | (uint64_t)s << 22 | i % 100 :
			1ull << 34 | i % 100;
		uint64_t sync = pair ? 1ull << 20 : SYNC_FULL;
		uint64_t rctx = next_ctx(d), sctx = next_ctx(s);

		op(d, MT_OP_TRECV, t, pair ? FI_ADDR_UNSPEC : (uint64_t)s, tag, sync,
		   65536, 0, rctx);
		op(s, pair ? MT_OP_TSEND : MT_OP_TSENDDATA, t + 10, (uint64_t)d,
		   tag | sync, 0, 4096, (uint64_t)s, sctx);
		cqe(d, t + 50, rctx, pair ? FI_TAGGED | FI_RECV : RECV_FLAGS, 4096,
		    tag, (uint64_t)s);
		cqe(s, t + 60, sctx, FI_TAGGED | FI_SEND, 0, 0, 0);
	}
	return t;
}

static void open_file(const char *dir, int p)
{
	static char zero[MT_FILE_HDR_SIZE];
	char path[4096];

	snprintf(path, sizeof(path), "%s/bench.%d.0%s", dir, 1000 + p,
		 MT_TRACE_SUFFIX);
	if (!(P[p].f = fopen(path, "w+")) ||
	    fwrite(zero, sizeof(zero), 1, P[p].f) != 1) {
		fprintf(stderr, "gen_trace: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	setvbuf(P[p].f, NULL, _IOFBF, FILE_BUFFER);
}

/* The header, committed up to what was written; flags 0: a killed writer. */
static void close_file(int p, uint32_t flags)
{
	struct mt_file_hdr h = { .version = MT_TRACE_VERSION,
		.hdr_size = MT_FILE_HDR_SIZE, .data_off = MT_FILE_HDR_SIZE,
		.pid = 1000u + (unsigned)p, .tid = 1000u + (unsigned)p,
		.flags = flags };

	memcpy(h.magic, MT_TRACE_MAGIC, 8);
	h.committed = h.capacity = P[p].bytes;
	if (fseek(P[p].f, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, P[p].f) != 1 ||
	    fclose(P[p].f)) {
		perror("gen_trace: header");
		exit(1);
	}
}

/* The END pair maps ticks to ns one to one (clock_source MONOTONIC). */
static void finish(int p, uint64_t t_end)
{
	struct mt_rec_clock c = { .realtime_ns = t_end, .monotonic_ns = t_end };

	put(p, &c, sizeof(c), MT_REC_CLOCK, MT_CLOCK_END, t_end);
	close_file(p, MT_FILE_CLOSED);
}

/* Rank r's parent in the binomial barrier: r without its highest bit. */
static int parent(int r)
{
	return r & ~(1 << (31 - __builtin_clz((unsigned)r)));
}

/*
 * Rank p's blocking receive: rank 0 from rank 1 (user tag 99), the others
 * in the barrier of their communicator c = p % ncomm over the ranks
 * c, c + ncomm, ...: from their parent, after sending to it; a
 * communicator's root (c >= 2) in the world's barrier, from rank 0.
 */
static int hang(const char *dir, int nproc, int ncomm)
{
	for (int p = 0; p < nproc; p++) {
		int c = p % ncomm, local = p / ncomm;
		uint32_t cid = (uint32_t)(local ? c : 0);
		int up = p == 0 ? 1 : local ? parent(local) * ncomm + c : 0;
		uint64_t t = 1000 + (uint64_t)p * 10;

		if (ncomm > 1 && p % 1000 == 999)
			up = nproc + p;		/* left no trace */
		open_file(dir, p);
		setup(p, nproc);
		av_insert(p, up);
		if (p > 1)
			op(p, MT_OP_TINJECTDATA, t, (uint64_t)up,
			   TAG_FULL(cid, -16), 0, 0, (uint64_t)p, 0);
		op(p, MT_OP_TRECV, t + 1, (uint64_t)up,
		   p ? TAG_FULL(cid, -16) : TAG_FULL(0, 99), SYNC_FULL, p ? 0 : 4,
		   0, next_ctx(p));
		close_file(p, 0);
	}
	return 0;
}

static int make_dir(const char *dir)
{
	if (!mkdir(dir, 0700))
		return 0;
	fprintf(stderr, "gen_trace: mkdir %s: %s\n", dir, strerror(errno));
	return 1;
}

static const char *const patterns[] = { "benign", "preposted", "anysrc",
	"anytag", "unexpected", "cancel", "probe", "layouts" };
#define N_PATTERNS (sizeof(patterns) / sizeof(patterns[0]))

static uint64_t traffic(unsigned pat, uint64_t nmsg, int nproc, uint64_t t)
{
	switch (pat) {
	case 1: return preposted(nmsg, nproc, t);
	case 2: return server(nmsg, nproc, t, 0);
	case 3: return server(nmsg, nproc, t, 1);
	case 4: return unexpected(nmsg, nproc, t);
	case 5: return cancel(nmsg, nproc, t);
	case 6: return probe(nmsg, nproc, t);
	case 7: return layouts(nmsg, t);
	default: return benign(nmsg, nproc, t);
	}
}

int main(int argc, char **argv)
{
	int pending = 0, nproc, p;
	unsigned pat = 0;
	uint64_t nmsg, t_end;

	if (argc > 1 && !strcmp(argv[1], "--hang")) {
		int ncomm = argc == 5 ? atoi(argv[4]) : 1;

		nproc = argc == 4 || argc == 5 ? atoi(argv[3]) : 0;
		if (nproc < 2 || nproc > MAX_HANG_PROC || ncomm < 1) {
			fprintf(stderr, "usage: gen_trace --hang DIR NPROC (2..%d) "
				"[NCOMM >= 1]\n", MAX_HANG_PROC);
			return 2;
		}
		if (!(P = calloc((size_t)nproc, sizeof(*P))))
			return perror("gen_trace"), 1;
		hi = nproc;
		return make_dir(argv[2]) || hang(argv[2], nproc, ncomm);
	}

	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "--pending")) {
			pending = 1;
			continue;
		}
		if (strcmp(argv[1], "--pattern") || argc < 3)
			argc = 0;	/* usage */
		for (pat = 0; argc && pat < N_PATTERNS && strcmp(argv[2], patterns[pat]); pat++)
			;
		if (!argc || pat == N_PATTERNS) {
			argc = 0;
			break;
		}
		argc--;
		argv++;
	}
	nproc = argc > 3 ? atoi(argv[3]) : 4;
	nmsg = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
	if (argc < 3 || argc > 4 || !nmsg || nproc < 2 ||
	    nproc > (pat ? MAX_PROC : MAX_BENIGN_PROC) || (pat == 7 && nproc != 4)) {
		fprintf(stderr, "usage: gen_trace [--pending] [--pattern benign|preposted|"
			"anysrc|anytag|unexpected|cancel|probe|layouts] DIR NMSG "
			"[NPROC 2..%d, benign 2..%d; 4 for layouts]\n", MAX_PROC,
			MAX_BENIGN_PROC);
		return 2;
	}
	if (pat == 7)
		tag2_mtf = 0x0000ffffffc00000ull;
	if (!(P = calloc((size_t)nproc, sizeof(*P))))
		return perror("gen_trace"), 1;
	if (make_dir(argv[1]))
		return 1;
	for (lo = 0; lo < nproc; lo = hi) {
		hi = nproc - lo < OPEN_FILES ? nproc : lo + OPEN_FILES;
		for (p = 0; p < nproc; p++)	/* the same contexts each time */
			P[p].ctx = 0;
		for (p = lo; p < hi; p++) {
			open_file(argv[1], p);
			setup(p, nproc);
			for (int q = 0; q < nproc; q++)
				if (addresses(p, q, nproc))
					av_insert(p, q);
		}
		t_end = traffic(pat, nmsg, nproc, 1000) + 1000;
		for (p = 0; pending && p < nproc; p++)
			op(p, MT_OP_TRECV, t_end - 500 + (uint64_t)p * 10,
			   (uint64_t)((p + 1) % nproc), 999, SYNC_FULL, 8, 0,
			   next_ctx(p));
		for (p = lo; p < hi; p++)
			finish(p, t_end);
	}
	printf("%llu records\n", (unsigned long long)records);
	return 0;
}
