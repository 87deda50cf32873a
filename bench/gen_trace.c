/*
 * gen_trace.c - writes a synthetic msgtrace trace (format: trace/mt_trace.h)
 * for the matcher benchmark: NPROC processes exchanging NMSG tagged messages
 * the way Open MPI's OFI MTL does in ofi_tag_full (fi_trecv with a directed
 * source, fi_tsenddata or fi_tinjectdata with the rank in CQ data, one CQ
 * bound with FI_SELECTIVE_COMPLETION), with completions arriving later and
 * op contexts reused.
 *
 *   gen_trace [--pending] DIR NMSG [NPROC]     (DIR must not exist)
 *
 * --pending: each process ends with a receive posted and never completed
 * (tag 999 from the next process, at its own time), as a hang leaves it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rdma/fabric.h>

#include "mt_format.h"

#define MAX_PROC 64
#define CTX_RING 64		/* contexts reused round robin */

struct proc {
	FILE *f;
	uint64_t bytes;		/* record bytes written */
	uint64_t ctx;		/* next context slot */
};

static struct proc P[MAX_PROC];

static void put(int p, void *rec, uint16_t size, uint8_t type, uint32_t aux,
		uint64_t ts)
{
	struct mt_rec_hdr *h = rec;

	h->type = type;
	h->layer = 0;
	h->size = size;
	h->aux = aux;
	h->ts = ts;
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
	strcpy(e.prov_name, "tcp;ofi_rxm");
	strcpy(e.fabric_name, "bench");
	name_of(p, e.name);
	put(p, &e, sizeof(e), MT_REC_EP, 0, 3);
	for (int q = 0; q < nproc; q++) {
		struct mt_rec_av a = { .av = av_id(p), .fi_addr = (uint64_t)q,
				       .addr_len = 16 };

		name_of(q, a.addr);
		put(p, &a, sizeof(a), MT_REC_AV, MT_AV_INSERT, 4);
	}
}

static void op(int p, unsigned kind, uint64_t ts, uint64_t addr, uint64_t tag,
	       uint64_t ignore, uint64_t len, uint64_t data, uint64_t ctx)
{
	struct mt_rec_op o = { .ep = ep_id(p), .addr = addr, .tag = tag,
		.ignore = ignore, .len = len, .data = data, .context = ctx };

	put(p, &o, sizeof(o), MT_REC_OP, kind, ts);
}

static void cqe(int p, uint64_t ts, uint64_t ctx, uint64_t flags, uint64_t len,
		uint64_t tag, uint64_t data)
{
	struct mt_rec_cqe c = { .cq = cq_id(p), .context = ctx, .flags = flags,
		.len = len, .tag = tag, .data = data, .src = FI_ADDR_NOTAVAIL };

	put(p, &c, sizeof(c), MT_REC_CQE, MT_CQ_READ, ts);
}

static uint64_t next_ctx(int p)
{
	return 0x7f0000000000ull + (uint64_t)p * 0x10000 +
	       (P[p].ctx++ % CTX_RING) * 64;
}

/* Message i: receive posted, send posted, receive done, send done. Each
 * process's records stay in time order, as a real writer's do. */
static void message(uint64_t i, int nproc, uint64_t t)
{
	int s = (int)(i % (uint64_t)nproc);
	int d = (int)((s + 1 + (int)((i / (uint64_t)nproc) % (uint64_t)(nproc - 1))) % nproc);
	uint64_t tag = (uint64_t)(i % 100), len = (i / (uint64_t)nproc) & 1 ? 4096 : 8;
	uint64_t rctx = next_ctx(d), sctx = next_ctx(s);

	op(d, MT_OP_TRECV, t, (uint64_t)s, tag, 0x100000000ull, 65536, 0, rctx);
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

/* The END pair maps ticks to ns one to one (clock_source MONOTONIC). */
static void finish(int p, uint64_t t_end)
{
	struct mt_rec_clock c = { .realtime_ns = t_end, .monotonic_ns = t_end };
	struct mt_file_hdr h = { .version = MT_TRACE_VERSION,
		.hdr_size = MT_FILE_HDR_SIZE, .data_off = MT_FILE_HDR_SIZE,
		.pid = 1000u + (unsigned)p, .tid = 1000u + (unsigned)p,
		.flags = MT_FILE_CLOSED };

	put(p, &c, sizeof(c), MT_REC_CLOCK, MT_CLOCK_END, t_end);
	memcpy(h.magic, MT_TRACE_MAGIC, 8);
	h.committed = h.capacity = P[p].bytes;
	if (fseek(P[p].f, 0, SEEK_SET) || fwrite(&h, sizeof(h), 1, P[p].f) != 1 ||
	    fclose(P[p].f)) {
		perror("gen_trace: header");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char path[4096];
	int pending = argc > 1 && !strcmp(argv[1], "--pending");
	int nproc, p;
	uint64_t nmsg, t_end;

	argc -= pending;
	argv += pending;
	nproc = argc > 3 ? atoi(argv[3]) : 4;
	nmsg = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
	if (argc < 3 || argc > 4 || !nmsg || nproc < 2 || nproc > MAX_PROC) {
		fprintf(stderr, "usage: gen_trace [--pending] DIR NMSG [NPROC 2..%d]\n",
			MAX_PROC);
		return 2;
	}
	if (mkdir(argv[1], 0700)) {
		fprintf(stderr, "gen_trace: mkdir %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (p = 0; p < nproc; p++) {
		static char zero[MT_FILE_HDR_SIZE];

		snprintf(path, sizeof(path), "%s/bench.%d.0%s", argv[1], 1000 + p,
			 MT_TRACE_SUFFIX);
		if (!(P[p].f = fopen(path, "w+")) ||
		    fwrite(zero, sizeof(zero), 1, P[p].f) != 1) {
			fprintf(stderr, "gen_trace: %s: %s\n", path, strerror(errno));
			return 1;
		}
		setvbuf(P[p].f, NULL, _IOFBF, 1 << 20);
		setup(p, nproc);
	}
	for (uint64_t i = 0; i < nmsg; i++)
		message(i, nproc, 1000 + i * 100);
	t_end = 1000 + nmsg * 100 + 1000;
	for (p = 0; pending && p < nproc; p++)
		op(p, MT_OP_TRECV, t_end - 500 + (uint64_t)p * 10,
		   (uint64_t)((p + 1) % nproc), 999, 0x100000000ull, 8, 0,
		   next_ctx(p));
	for (p = 0; p < nproc; p++)
		finish(p, t_end);
	return 0;
}
