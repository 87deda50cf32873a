/*
 * cmd_dump.c - `msgtrace dump`: every record of a trace, one line each, in
 * time order across all files (the reader's merge), or a per-rank summary.
 */
#include <getopt.h>
#include <limits.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <rdma/fabric.h>

#include "cmd.h"
#include "mt_trace.h"
#include "mt_sink.h"

#define MAX_TYPE 64		/* record types a --kind mask can name */
#define MAX_OP 64		/* ops an --op mask can name */

struct dump_opts {
	int summary;
	uint64_t kinds;		/* bit per record type; 0: all */
	uint64_t ops;		/* bit per op; 0: all */
	struct { uint32_t job; int32_t rank; } *ranks;	/* --rank values;
					 * none: all ranks */
	size_t nranks;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace dump [OPTIONS] DIR|FILE...\n"
		"Print every record of a msgtrace trace, one line each, in time order\n"
		"across all files: time in seconds since the first record, rank, thread,\n"
		"layer (app or int), record type and its fields.\n\n"
		"Options:\n"
		"  --rank R[,R...]     only these ranks: N of the first job, JOB:N of\n"
		"                      another, as printed (repeatable)\n"
		"  --kind TYPE[,TYPE]  only these record types: proc, clock, obj, ep,\n"
		"                      bind, av, op, cqe, close (repeatable)\n"
		"  --op OP[,OP]        only these ops (tsend, trecvmsg, cancel ...);\n"
		"                      implies --kind op unless --kind is given\n"
		"  --summary           per rank: files, clean closes, duration, record\n"
		"                      counts per type and op, losses, EAGAIN, empty polls\n"
		"  -h, --help          this text\n\n"
		"Times come from each process's CLOCK_MONOTONIC (ticks converted with\n"
		"its START/END calibration pairs); a trace from several hosts is\n"
		"aligned on CLOCK_REALTIME instead. An address argument resolved to the\n"
		"rank whose endpoint it names is shown as addr=FI_ADDR->rRANK.\n\n"
		"Exit status: 0 success, 1 malformed trace (records before the bad one\n"
		"are printed), 2 usage error.\n");
}

/* " proc clock ..." and a newline: every name the table knows. */
static void print_names(FILE *out, unsigned max, const char *(*name_of)(unsigned))
{
	char buf[32];

	for (unsigned v = 1; v < max; v++)
		if (name_of(v))
			fprintf(out, " %s", mt_sink_name_lower(buf, sizeof(buf), name_of(v)));
	fputc('\n', out);
}

/* Set bits of *mask for each name in option opt's comma list; -1 after
 * naming the unknown one (a `what`) and the known ones. */
static int parse_names(const char *opt, const char *what, char *list,
		       uint64_t *mask, unsigned max, const char *(*name_of)(unsigned))
{
	for (char *save, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned v;

		for (v = 1; v < max; v++)
			if (name_of(v) && !strcasecmp(tok, name_of(v)))
				break;
		if (v == max) {
			fprintf(stderr, "msgtrace dump: %s: unknown %s '%s'; known:",
				opt, what, tok);
			print_names(stderr, max, name_of);
			return -1;
		}
		*mask |= 1ull << v;
	}
	return 0;
}

static int parse_ranks(char *list, struct dump_opts *o, const char **bad)
{
	for (char *save, *tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *end, *rank = strchr(tok, ':');
		long j = 0, v;
		void *n;

		/* JOB:N, or N of job 0. */
		if (rank && ((j = strtol(tok, &end, 10)) < 0 || end != rank ||
			     end == tok || j > INT32_MAX)) {
			*bad = tok;
			return -1;
		}
		rank = rank ? rank + 1 : tok;
		v = strtol(rank, &end, 10);
		if (*end || end == rank || v < 0 || v > INT32_MAX) {
			*bad = tok;
			return -1;
		}
		n = realloc(o->ranks, (o->nranks + 1) * sizeof(*o->ranks));
		if (!n) {
			*bad = tok;
			return -1;
		}
		o->ranks = n;
		o->ranks[o->nranks].job = (uint32_t)j;
		o->ranks[o->nranks++].rank = (int32_t)v;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct dump_opts *o)
{
	static const struct option longopts[] = {
		{ "rank", required_argument, NULL, 'r' },
		{ "kind", required_argument, NULL, 'k' },
		{ "op", required_argument, NULL, 'o' },
		{ "summary", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bad = NULL;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (parse_ranks(optarg, o, &bad)) {
				fprintf(stderr, "msgtrace dump: --rank: bad rank '%s'\n",
					bad);
				return MT_EXIT_USAGE;
			}
			break;
		case 'k':
			if (parse_names("--kind", "record type", optarg, &o->kinds,
					MAX_TYPE, mt_trace_rec_name))
				return MT_EXIT_USAGE;
			break;
		case 'o':
			if (parse_names("--op", "op", optarg, &o->ops, MAX_OP,
					mt_trace_op_name))
				return MT_EXIT_USAGE;
			break;
		case 's':
			o->summary = 1;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			usage(stderr);
			return MT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "msgtrace dump: no trace directory or file given\n");
		usage(stderr);
		return MT_EXIT_USAGE;
	}
	if (o->ops && !o->kinds)
		o->kinds = 1ull << MT_REC_OP;
	return MT_EXIT_OK;
}

static int rank_selected(const struct dump_opts *o, const struct mt_trace *t,
			 const struct mt_trace_proc *p)
{
	uint32_t job;
	int32_t rank;

	if (!o->nranks)
		return 1;
	if (mt_trace_key_rank(t, p->key, &job, &rank))
		return 0;
	for (size_t i = 0; i < o->nranks; i++)
		if (o->ranks[i].job == job && o->ranks[i].rank == rank)
			return 1;
	return 0;
}

static int rec_selected(const struct dump_opts *o, const struct mt_rec_hdr *r)
{
	if (o->kinds && (r->type >= MAX_TYPE || !(o->kinds & (1ull << r->type))))
		return 0;
	if (r->type == MT_REC_OP && o->ops &&
	    (r->aux >= MAX_OP || !(o->ops & (1ull << r->aux))))
		return 0;
	return 1;
}

#define FLAGS_LEN 512
/* A char array of a record as printable text (names.h: mt_sink_name_text). */
#define FIELD(rec, field) \
	mt_sink_name_text((char[MT_NAME_TEXT_LEN((rec)->field)]){ 0 }, \
		     MT_NAME_TEXT_LEN((rec)->field), (rec)->field, sizeof((rec)->field))
/* An error message: it quotes paths, which are file names from a directory. */
#define ERRTEXT(e) mt_sink_name_text((char[MT_NAME_TEXT_LEN((e).msg)]){ 0 }, \
				MT_NAME_TEXT_LEN((e).msg), (e).msg, sizeof((e).msg))

/* "-FI_EAGAIN" for a negative return, the number otherwise. */
static const char *ret_str(char *buf, size_t len, int ret)
{
	/* INT_MIN has no negation: a trace can hold any value (fuzz crash
	 * regress/dump-ret-int-min). */
	const char *n = ret < 0 && ret != INT_MIN ? mt_sink_name_errno(-ret) : NULL;

	if (n)
		snprintf(buf, len, "-%s", n);
	else
		snprintf(buf, len, "%d", ret);
	return buf;
}

static const char *addr_str(char *buf, size_t len, uint64_t a)
{
	if (a == FI_ADDR_UNSPEC)
		return "unspec";
	snprintf(buf, len, "%" PRIu64, a);
	return buf;
}

/* "3->r1": the fi_addr and the rank whose endpoint it designates. */
static const char *peer_str(char *buf, size_t len, const struct mt_trace *t,
			    uint32_t proc, uint64_t ep, uint64_t a)
{
	const struct mt_trace_ep *e = a == FI_ADDR_UNSPEC ? NULL :
				      mt_trace_resolve_ep(t, proc, ep, a);
	const struct mt_trace_proc *p = e ? &t->procs[e->proc] : NULL;
	char rk[MT_SINK_RANK_LEN];

	if (!p)
		return addr_str(buf, len, a);
	if (p->key >= 0)
		snprintf(buf, len, "%" PRIu64 "->r%s", a,
			 mt_sink_rank(t, p->key, rk, sizeof(rk)));
	else
		snprintf(buf, len, "%" PRIu64 "->p%" PRIu32, a, p->pid);
	return buf;
}

static void print_proc(const struct mt_rec_proc *r)
{
	static const char *const clocks[] = { [MT_CLOCK_TSC] = "tsc",
					      [MT_CLOCK_MONOTONIC] = "monotonic" };
	const char *clk = r->clock_source < 3 && clocks[r->clock_source] ?
			  clocks[r->clock_source] : "?";

	printf("pid=%" PRIu32 " world_rank=%" PRId32 " world_size=%" PRId32
	       " local_rank=%" PRId32 " fi_version=%u.%u clock=%s clock_hz=%" PRIu64
	       " start_realtime_ns=%" PRIu64 " host=%s job=%s cpuset=%s"
	       " numa=%s package=%s", r->pid, r->world_rank, r->world_size,
	       r->local_rank, r->fi_version >> 16, r->fi_version & 0xffff, clk,
	       r->clock_hz, r->start_realtime_ns, FIELD(r, hostname),
	       FIELD(r, job_id), FIELD(r, cpuset), FIELD(r, numa),
	       FIELD(r, package));
	if (r->h.aux)
		printf(" fork_of_pid=%" PRIu32, r->h.aux);
}

static void print_clock(const struct mt_rec_clock *r)
{
	static const char *const phases[] = { [MT_CLOCK_START] = "start",
					      [MT_CLOCK_EXTEND] = "extend",
					      [MT_CLOCK_END] = "end" };

	printf("%s ticks=%" PRIu64 " realtime_ns=%" PRIu64 " monotonic_ns=%" PRIu64,
	       r->h.aux < 3 ? phases[r->h.aux] : "?", r->h.ts, r->realtime_ns,
	       r->monotonic_ns);
}

static const char *class_str(uint32_t c)
{
	const char *n = mt_sink_name_fid_class(c);

	return n ? n : "?";
}

static void print_obj(const struct mt_rec_obj *r)
{
	printf("%s id=0x%" PRIx64 " parent=0x%" PRIx64 " attr=0x%" PRIx64
	       " prov=%s", class_str(r->h.aux), r->id, r->parent, r->attr,
	       FIELD(r, prov_name));
}

static void print_ep(const struct mt_rec_ep *r)
{
	char caps[FLAGS_LEN], tx[FLAGS_LEN], rx[FLAGS_LEN], name[256];
	size_t n = r->name_len < sizeof(r->name) ? r->name_len : sizeof(r->name);

	printf("ep=0x%" PRIx64 " domain=0x%" PRIx64 " caps=%s mode=0x%" PRIx64
	       " mem_tag_format=0x%016" PRIx64 " msg_order=0x%" PRIx64
	       " tx_op_flags=%s rx_op_flags=%s inject_size=%" PRIu64
	       " cq_data_size=%" PRIu64 " threading=%" PRIu32 " ep_type=%" PRIu32
	       " addr_format=%" PRIu32 " prov=%s fabric=%s name_len=%" PRIu32
	       " name=%s", r->ep, r->domain,
	       mt_sink_name_flags(caps, sizeof(caps), r->caps, MT_NAME_CAPS), r->mode,
	       r->mem_tag_format, r->msg_order,
	       mt_sink_name_flags(tx, sizeof(tx), r->tx_op_flags, MT_NAME_OP_FLAGS),
	       mt_sink_name_flags(rx, sizeof(rx), r->rx_op_flags, MT_NAME_OP_FLAGS),
	       r->inject_size, r->cq_data_size, r->threading, r->ep_type,
	       r->addr_format, FIELD(r, prov_name), FIELD(r, fabric_name),
	       r->name_len, mt_sink_name_addr(name, sizeof(name), r->name, n));
}

static void print_bind(const struct mt_rec_bind *r)
{
	char flags[FLAGS_LEN];

	printf("obj=0x%" PRIx64 " target=0x%" PRIx64 " flags=%s", r->obj,
	       r->target, mt_sink_name_flags(flags, sizeof(flags), r->flags,
					MT_NAME_BIND_FLAGS));
}

static void print_av(const struct mt_rec_av *r)
{
	static const char *const calls[] = { [MT_AV_INSERT] = "insert",
					     [MT_AV_INSERTSVC] = "insertsvc",
					     [MT_AV_INSERTSYM] = "insertsym" };
	char flags[FLAGS_LEN], addr[256];
	size_t n = r->addr_len < sizeof(r->addr) ? r->addr_len : sizeof(r->addr);

	printf("%s av=0x%" PRIx64 " fi_addr=%" PRIu64 " flags=%s addr_len=%" PRIu32
	       " addr=%s", r->h.aux < 3 ? calls[r->h.aux] : "?", r->av, r->fi_addr,
	       mt_sink_name_flags(flags, sizeof(flags), r->flags, MT_NAME_OP_FLAGS),
	       r->addr_len, mt_sink_name_addr(addr, sizeof(addr), r->addr, n));
}

static void print_op(const struct mt_trace *t, uint32_t proc,
		     const struct mt_rec_op *r)
{
	char op[32], flags[FLAGS_LEN], ret[32], addr[64];

	printf("%s ep=0x%" PRIx64 " addr=%s tag=0x%016" PRIx64
	       " ignore=0x%016" PRIx64 " len=%" PRIu64 " data=0x%" PRIx64
	       " context=0x%" PRIx64 " flags=%s ret=%s retries=%" PRIu32,
	       mt_sink_name_lower(op, sizeof(op), mt_trace_op_name(r->h.aux)), r->ep,
	       peer_str(addr, sizeof(addr), t, proc, r->ep, r->addr), r->tag,
	       r->ignore, r->len,
	       r->data, r->context,
	       mt_sink_name_flags(flags, sizeof(flags), r->flags, MT_NAME_OP_FLAGS),
	       r->ret == MT_OP_RET_PENDING ? "pending" : ret_str(ret, sizeof(ret), r->ret),
	       r->retries);
	if (r->h.size >= sizeof(struct mt_rec_op_site))
		printf(" site=%" PRIu32, ((const struct mt_rec_op_site *)r)->site);
}

static void print_cqe(const struct mt_rec_cqe *r)
{
	static const char *const calls[] = { [MT_CQ_READ] = "read",
					     [MT_CQ_READFROM] = "readfrom",
					     [MT_CQ_READERR] = "readerr",
					     [MT_CQ_SREAD] = "sread",
					     [MT_CQ_SREADFROM] = "sreadfrom" };
	char flags[FLAGS_LEN], src[32];
	const char *err = mt_sink_name_errno(r->err);

	printf("%s cq=0x%" PRIx64 " context=0x%" PRIx64 " flags=%s len=%" PRIu64
	       " tag=0x%016" PRIx64 " data=0x%" PRIx64 " src=%s",
	       r->h.aux < 5 ? calls[r->h.aux] : "?", r->cq, r->context,
	       mt_sink_name_flags(flags, sizeof(flags), r->flags, MT_NAME_OP_FLAGS),
	       r->len, r->tag, r->data,
	       r->src == FI_ADDR_NOTAVAIL ? "notavail" :
	       addr_str(src, sizeof(src), r->src));
	if (r->h.aux == MT_CQ_READERR || r->err)
		printf(" err=%s(%" PRId32 ") prov_errno=%" PRId32 " olen=%" PRIu64,
		       err ? err : "?", r->err, r->prov_errno, r->olen);
}

static void print_close(const struct mt_rec_close *r)
{
	char ret[32];

	printf("%s id=0x%" PRIx64 " ret=%s", class_str(r->h.aux), r->id,
	       ret_str(ret, sizeof(ret), r->ret));
}

static void print_map(const struct mt_rec_map *r)
{
	printf("%s base=0x%" PRIx64 " start=0x%" PRIx64 " end=0x%" PRIx64
	       " build_id=", r->h.aux == MT_MAP_APP ? "app" : "skipped", r->base,
	       r->start, r->end);
	for (uint32_t i = 0; i < r->build_id_len && i < sizeof(r->build_id); i++)
		printf("%02x", r->build_id[i]);
	/* The reader checked the path ends within the record. */
	printf(" path=%s", mt_trace_map_path(r));
}

static void print_site(const struct mt_rec_site *r)
{
	printf("index=%" PRIu32 " app=0x%" PRIx64 " entry=0x%" PRIx64, r->h.aux,
	       r->app, r->entry);
}

/* One line: seconds since start, rank, thread, layer, type, fields. */
static void print_rec(const struct mt_trace *t, const struct mt_trace_event *ev,
		      int64_t rel_ns)
{
	const struct mt_trace_proc *p = &t->procs[ev->proc];
	const struct mt_trace_file *f = p->files[ev->file];
	const struct mt_rec_hdr *r = ev->rec;
	char type[16], rk[MT_SINK_RANK_LEN];

	printf("%" PRId64 ".%09" PRId64 " ", rel_ns / 1000000000, rel_ns % 1000000000);
	if (p->key >= 0)
		printf("r%-3s", mt_sink_rank(t, p->key, rk, sizeof(rk)));
	else
		printf("p%-3" PRIu32, p->pid);
	printf(" t%-2" PRIu32 " %s %-5s ", f->hdr->thread_seq,
	       r->layer ? "int" : "app",
	       mt_sink_name_lower(type, sizeof(type), mt_trace_rec_name(r->type)));
	switch (r->type) {
	case MT_REC_PROC: print_proc((const void *)r); break;
	case MT_REC_CLOCK: print_clock((const void *)r); break;
	case MT_REC_OBJ: print_obj((const void *)r); break;
	case MT_REC_EP: print_ep((const void *)r); break;
	case MT_REC_BIND: print_bind((const void *)r); break;
	case MT_REC_AV: print_av((const void *)r); break;
	case MT_REC_OP: print_op(t, ev->proc, (const void *)r); break;
	case MT_REC_CQE: print_cqe((const void *)r); break;
	case MT_REC_CLOSE: print_close((const void *)r); break;
	case MT_REC_MAP: print_map((const void *)r); break;
	case MT_REC_SITE: print_site((const void *)r); break;
	}
	putchar('\n');
}

/* Every selected record in time order; returns the exit status. */
static int dump_records(const struct mt_trace *t, const struct dump_opts *o)
{
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	enum mt_status st;
	struct mt_err err;
	int64_t start = 0;
	int first = 1;

	if (mt_trace_merge_open(t, &m) != MT_OK) {
		fprintf(stderr, "msgtrace dump: out of memory\n");
		return MT_EXIT_BAD_INPUT;
	}
	while ((st = mt_trace_merge_next(m, &ev, &err)) == MT_OK) {
		const struct mt_trace_proc *p = &t->procs[ev.proc];
		/* Unsigned: garbage timestamps must wrap, not overflow (fuzz
		 * crash regress/dump-time-overflow). */
		int64_t ns = (int64_t)((uint64_t)ev.ns + (uint64_t)p->merge_offset_ns);

		/* The first merged record defines time 0, selected or not. */
		if (first) {
			start = ns;
			first = 0;
		}
		if (rank_selected(o, t, p) && rec_selected(o, ev.rec))
			print_rec(t, &ev, (int64_t)((uint64_t)ns - (uint64_t)start));
	}
	mt_trace_merge_close(m);
	if (st != MT_END) {
		fflush(stdout);
		fprintf(stderr, "msgtrace dump: %s\n", ERRTEXT(err));
		return MT_EXIT_BAD_INPUT;
	}
	return MT_EXIT_OK;
}

/* Counts of OP records per op; a file's scan error is passed back. */
/* OPs per op, and those whose thread's call-site table was full. */
static enum mt_status count_ops(const struct mt_trace_file *f, uint64_t *ops,
				uint64_t *sites_lost, struct mt_err *err)
{
	struct mt_trace_cursor c;
	const struct mt_rec_hdr *r;
	enum mt_status st;

	mt_trace_cursor_init(&c, f);
	while ((st = mt_trace_cursor_next(&c, &r, err)) == MT_OK) {
		if (r->type != MT_REC_OP)
			continue;
		if (r->aux < MAX_OP)
			ops[r->aux]++;
		*sites_lost += r->size >= sizeof(struct mt_rec_op_site) &&
			((const struct mt_rec_op_site *)r)->site == MT_SITE_LOST;
	}
	return st == MT_END ? MT_OK : st;
}

static const char *clock_kind_str(enum mt_trace_clock_kind k)
{
	switch (k) {
	case MT_TRACE_CLOCK_PAIRS: return "start/end pairs";
	case MT_TRACE_CLOCK_HZ: return "clock_hz";
	case MT_TRACE_CLOCK_RAW: return "raw ticks (no PROC record)";
	}
	return "?";
}

static int summarize_proc(const struct mt_trace *t, const struct mt_trace_proc *p)
{
	uint64_t types[MAX_TYPE] = { 0 }, ops[MAX_OP] = { 0 }, lost[MT_LOSS_COUNT] = { 0 };
	uint64_t unknown = 0, eagain = 0, empty = 0, nested = 0, sites_lost = 0;
	size_t clean = 0;
	int bad = 0;
	char name[32], rk[MT_SINK_RANK_LEN];

	for (size_t i = 0; i < p->nfiles; i++) {
		const struct mt_trace_file *f = p->files[i];
		struct mt_err err;

		clean += mt_trace_file_clean(f);
		for (unsigned ty = 0; ty < MT_TRACE_TYPE_SLOTS; ty++)
			types[ty] += f->type_count[ty];
		unknown += f->unknown;
		for (int l = 0; l < MT_LOSS_COUNT; l++)
			lost[l] += f->hdr->lost[l];
		nested += f->hdr->lost_nested;
		eagain += f->hdr->eagain;
		empty += f->hdr->empty_polls;
		if (count_ops(f, ops, &sites_lost, &err) != MT_OK) {
			fprintf(stderr, "msgtrace dump: %s\n", ERRTEXT(err));
			bad = 1;
		}
	}
	if (p->key >= 0)
		printf("rank %s", mt_sink_rank(t, p->key, rk, sizeof(rk)));
	else
		printf("rank ?");
	printf("  host %s  pid %" PRIu32, FIELD(p, host), p->pid);
	if (p->rec && p->rec->h.aux)
		printf(" (fork of pid %" PRIu32 ")", p->rec->h.aux);
	printf("  files %zu (", p->nfiles);
	if (clean == p->nfiles)
		printf("all closed cleanly");
	else if (p->alive)
		printf("%zu still being written", p->nfiles - clean);
	else
		printf("%zu not closed: killed or still running", p->nfiles - clean);
	printf(")  duration %.9f s  clock %s\n",
	       p->last_ns >= p->first_ns ?
	       ((double)p->last_ns - (double)p->first_ns) / 1e9 : 0.0,
	       clock_kind_str(p->clock.kind));
	printf("  records:");
	/* Call-site records (FI_OFI_HOOK_MSGTRACE_CALLSITE) only when there. */
	for (unsigned ty = 1; ty < MAX_TYPE; ty++)
		if (mt_trace_rec_name(ty) && (ty < MT_REC_MAP || types[ty]))
			printf(" %s %" PRIu64, mt_sink_name_lower(name, sizeof(name),
						       mt_trace_rec_name(ty)), types[ty]);
	printf(" unknown %" PRIu64 "\n  ops:", unknown);
	for (unsigned op = 1; op < MAX_OP; op++)
		if (ops[op])
			printf(" %s %" PRIu64, mt_sink_name_lower(name, sizeof(name),
						       mt_trace_op_name(op)), ops[op]);
	printf("\n  lost: full %" PRIu64 " nospace %" PRIu64 " nofile %" PRIu64,
	       lost[MT_LOSS_FULL], lost[MT_LOSS_NOSPACE], lost[MT_LOSS_NOFILE]);
	/* Records dropped in a signal handler: only when there were any, so
	 * the line of every other trace stays as it was. */
	if (nested)
		printf(" nested %" PRIu64, nested);
	/* Calls whose site found its thread's table full, likewise. */
	if (sites_lost)
		printf(" call_sites %" PRIu64, sites_lost);
	printf("  eagain %" PRIu64 "  empty polls %" PRIu64 "\n", eagain, empty);
	return bad;
}

static int dump_summary(const struct mt_trace *t, const struct dump_opts *o)
{
	int bad = 0;

	for (size_t i = 0; i < t->nprocs; i++)
		if (rank_selected(o, t, &t->procs[i]))
			bad |= summarize_proc(t, &t->procs[i]);
	return bad ? MT_EXIT_BAD_INPUT : MT_EXIT_OK;
}

static int run(int argc, char **argv)
{
	struct dump_opts o = { 0 };
	struct mt_trace *t;
	struct mt_err err;
	int rc = parse_args(argc, argv, &o);

	if (rc) {
		free(o.ranks);
		return rc < 0 ? MT_EXIT_OK : rc;
	}
	if (mt_trace_open((const char *const *)argv + optind, (size_t)(argc - optind),
			  &t, &err) != MT_OK) {
		fprintf(stderr, "msgtrace dump: %s\n", ERRTEXT(err));
		mt_cmd_untraced("msgtrace dump", (const char *const *)argv +
				optind, (size_t)(argc - optind), 1);
		free(o.ranks);
		return MT_EXIT_BAD_INPUT;
	}
	if (t->nempty)
		fprintf(stderr, "msgtrace dump: %zu trace file(s) skipped: created "
			"but never written (process killed at start?)\n", t->nempty);
	rc = o.summary ? dump_summary(t, &o) : dump_records(t, &o);
	mt_trace_close(t);
	free(o.ranks);
	return rc;
}

const struct mt_cmd mt_cmd_dump = {
	.name = "dump",
	.summary = "print every trace record, or a per-rank summary",
	.run = run,
};
