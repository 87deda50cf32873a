/*
 * cmd_decode.c - `msgtrace decode`: the tag layout each endpoint used, with
 * the evidence, as every other command sees it (mt_pipe_detect), or forced with
 * --layout; with --ops, every tagged send, posted receive and
 * receive completion decoded into communicator id, source rank and MPI tag.
 * This file is where libfabric's flags become decode/'s plain bits.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>
#include <rdma/fi_tagged.h>

#include "cmd.h"
#include "mt_pipe.h"
#include "mt_sink.h"

/* What decoding needs of each endpoint: arrays of t->neps. */
struct eps {
	struct mt_tag_detect_result *det;
	struct mt_tag_layout *lay;
	bool *wrapped;		/* an internal tag reached the field's minimum */
};

/*
 * The receive each completion answers: (process, op_context) -> how the
 * last receive with that context was posted. A probe's completion (FI_PEEK)
 * is not a delivered message; the mrecv after an improbe reuses the
 * probe's context, which is why the last posting wins.
 */
struct ctx_slot {
	uint64_t context;
	uint32_t proc;
	bool used;
	unsigned recv_in;
};
struct ctx_map {
	struct ctx_slot *slot;
	size_t cap, n;		/* cap: a power of two */
};

struct decode_opts {
	enum mt_tag_layout_id layout;
	bool ops;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: msgtrace decode [--layout NAME] [--ops] DIR|FILE...\n"
		"For every endpoint of a trace: the tag layout in force (ofi_tag_full,\n"
		"ofi_tag_1, ofi_tag_2, MPICH ch4:ofi, or raw), how sure, and the evidence\n"
		"(endpoint attributes; CQ data and receive ignore masks of the first\n"
		"4096 tagged operations of each trace file), as messages, report, export\n"
		"and tags decode them; an endpoint whose own operations leave it\n"
		"undecided takes the layout the job's decided endpoints agree on. With\n"
		"--ops, then every tagged send, posted receive and receive completion in\n"
		"time order:\n"
		"  rank=R ep=E op=OP cid=C src=S tag=T proto=P user|internal ... len=N\n"
		"  tag64=0x... [probe] [err=FI_E...]\n"
		"(op=cqe-recv for a receive completion; 'probe' marks a probe's answer).\n\n"
		"  --layout NAME  use this layout on every endpoint (detection still\n"
		"                 reports what it found); names: msgtrace tag --help\n"
		"  --ops          list the decoded operations\n"
		"  -h, --help     this text\n\n"
		"Exit status: 0 success, 1 unreadable or malformed trace, 2 usage error.\n");
}

static int parse(int argc, char **argv, struct decode_opts *o)
{
	static const struct option longopts[] = {
		{ "layout", required_argument, NULL, 'l' },
		{ "ops", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	o->layout = MT_TAG_LAYOUT_NONE;
	o->ops = false;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (mt_cmd_parse_layout("msgtrace decode", optarg, &o->layout))
				return MT_EXIT_USAGE;
			break;
		case 'o':
			o->ops = true;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			fprintf(stderr, "msgtrace decode: unknown or incomplete option '%s' "
				"(see msgtrace decode --help)\n", argv[optind - 1]);
			return MT_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "msgtrace decode: no trace given (see msgtrace decode "
			"--help)\n");
		return MT_EXIT_USAGE;
	}
	return MT_EXIT_OK;
}

static bool is_send(unsigned op)
{
	return op == MT_OP_TSEND || op == MT_OP_TSENDV || op == MT_OP_TSENDMSG ||
	       op == MT_OP_TINJECT || op == MT_OP_TSENDDATA || op == MT_OP_TINJECTDATA;
}

static bool is_recv(unsigned op)
{
	return op == MT_OP_TRECV || op == MT_OP_TRECVV || op == MT_OP_TRECVMSG;
}

/* The index of endpoint (proc, ep id), or -1 for one never enabled. */
static ptrdiff_t ep_of(const struct mt_trace *t, uint32_t proc, uint64_t ep)
{
	const struct mt_trace_ep *e = mt_trace_find_ep(t, proc, ep);
	return e ? e - t->eps : -1;
}

/* The endpoint a receive completion of CQ cq belongs to, or -1. */
static ptrdiff_t ep_of_cq(const struct mt_trace *t, uint32_t proc, uint64_t cq)
{
	const struct mt_trace_cq_bind *b;
	size_t n = mt_trace_cq_binds(t, proc, cq, &b);

	for (size_t i = 0; i < n; i++)
		if (b[i].ep && (b[i].flags & FI_RECV))
			return b[i].ep - t->eps;
	return n && b[0].ep ? b[0].ep - t->eps : -1;
}

static size_t ctx_index(const struct ctx_map *m, uint32_t proc, uint64_t context)
{
	size_t i = (size_t)((context ^ proc) * 0x9e3779b97f4a7c15ull >> 20) & (m->cap - 1);

	while (m->slot[i].used &&
	       (m->slot[i].context != context || m->slot[i].proc != proc))
		i = (i + 1) & (m->cap - 1);
	return i;
}

static int ctx_put(struct ctx_map *m, uint32_t proc, uint64_t context,
		   unsigned recv_in)
{
	if (2 * (m->n + 1) > m->cap) {
		struct ctx_map big = { calloc(m->cap ? 2 * m->cap : 64, sizeof(*big.slot)),
				       m->cap ? 2 * m->cap : 64, 0 };
		if (!big.slot)
			return -1;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slot[i].used) {
				big.slot[ctx_index(&big, m->slot[i].proc,
						   m->slot[i].context)] = m->slot[i];
				big.n++;
			}
		free(m->slot);
		*m = big;
	}
	struct ctx_slot *sl = &m->slot[ctx_index(m, proc, context)];
	m->n += !sl->used;
	*sl = (struct ctx_slot){ context, proc, true, recv_in };
	return 0;
}

static unsigned ctx_get(const struct ctx_map *m, uint32_t proc, uint64_t context)
{
	if (!m->cap)
		return 0;
	const struct ctx_slot *sl = &m->slot[ctx_index(m, proc, context)];
	return sl->used ? sl->recv_in : 0;
}

static void report(const struct mt_trace *t, const struct eps *s)
{
	for (size_t i = 0; i < t->neps; i++) {
		const struct mt_trace_proc *p = &t->procs[t->eps[i].proc];
		char host[MT_NAME_TEXT_LEN(p->host)];
		char prov[MT_NAME_TEXT_LEN(t->eps[i].rec->prov_name)], rk[MT_SINK_RANK_LEN];

		printf("rank %s (%s pid %u) ep %zu 0x%" PRIx64 " [%s]: %s, confidence %s\n",
		       mt_sink_rank(t, p->key, rk, sizeof(rk)), mt_sink_name_text(host, sizeof(host), p->host, sizeof(p->host)),
		       p->pid, i, t->eps[i].rec->ep,
		       mt_sink_name_text(prov, sizeof(prov), t->eps[i].rec->prov_name,
				    sizeof(t->eps[i].rec->prov_name)), s->lay[i].name,
		       mt_tag_confidence_name(s->det[i].confidence));
		for (unsigned k = 0; k < s->det[i].n_items; k++) {
			char text[MT_SINK_EVIDENCE_LEN];

			printf("  %s\n", mt_sink_evidence_text(&s->det[i].item[k],
							      text, sizeof(text)));
		}
	}
}

static void print_fields(const struct mt_tag_fields *f, bool any_src, bool any_tag)
{
	if (any_src)
		printf(" cid=%u src=ANY", f->cid);
	else if (f->valid & MT_V_SOURCE)
		printf(" cid=%u src=%d", f->cid, f->source);
	else
		printf(" cid=%u src=-", f->cid);
	if (any_tag)
		printf(" tag=ANY");
	else
		printf(" tag=%d", f->tag);
	printf(" proto=%s %s", mt_tag_proto_name(f->proto),
	       (f->flags & MT_F_INTERNAL) ? "internal" : "user");
	if (f->flags & MT_F_MAYBE_ALIASED)
		printf(" maybe-aliased");
	if (f->flags & MT_F_STRAY_BITS)
		printf(" stray-bits");
}

static unsigned in_flags(bool wrapped, bool data)
{
	return (data ? MT_TAG_IN_DATA : 0) | (wrapped ? MT_TAG_IN_TAG_WRAPPED : 0);
}

/* Remember when internal tags reach the field's minimum: from then on the
 * endpoint's user-looking tags may be wrapped internal ones (ofi_tag_2). */
static void note_wrap(const struct mt_tag_layout *l, bool *wrapped,
		      const struct mt_tag_fields *f)
{
	if ((f->flags & MT_F_INTERNAL) && l->tag_signed &&
	    f->tag == -(int64_t)l->tag_ub - 1)
		*wrapped = true;
}

static int print_op(const struct mt_trace *t, const struct mt_trace_event *ev,
		    struct eps *s, struct ctx_map *ctx)
{
	const struct mt_rec_op *op = (const void *)ev->rec;
	ptrdiff_t e = ep_of(t, ev->proc, op->ep);
	char name[32], rk[MT_SINK_RANK_LEN];
	struct mt_tag_fields f;
	struct mt_tag_filter flt;

	if (e < 0 || op->ret || (!is_send(op->h.aux) && !is_recv(op->h.aux)))
		return 0;
	printf("rank=%s ep=%td op=%s", mt_sink_rank(t, t->procs[ev->proc].key, rk, sizeof(rk)), e,
	       mt_sink_name_lower(name, sizeof(name), mt_trace_op_name(op->h.aux)));
	if (is_send(op->h.aux)) {
		mt_tag_decode(&s->lay[e], op->tag, op->data,
			      in_flags(s->wrapped[e], mt_pipe_has_data(op)), &f);
		note_wrap(&s->lay[e], &s->wrapped[e], &f);
		print_fields(&f, false, false);
	} else {
		if (ctx_put(ctx, ev->proc, op->context, mt_pipe_recv_in(op)))
			return -1;
		mt_tag_decode_recv(&s->lay[e], op->tag, op->ignore, mt_pipe_recv_in(op),
				   &flt);
		print_fields(&flt.f, flt.any_source, flt.any_tag);
		printf(" recv=%s%s", mt_tag_recv_kind_name(flt.kind),
		       flt.odd_ignore ? " odd-ignore" : "");
	}
	printf(" len=%" PRIu64 " tag64=0x%016" PRIx64 "\n", op->len, op->tag);
	return 0;
}

static void print_cqe(const struct mt_trace *t, const struct mt_trace_event *ev,
		      struct eps *s, const struct ctx_map *ctx)
{
	const struct mt_rec_cqe *c = (const void *)ev->rec;
	char rk[MT_SINK_RANK_LEN];
	ptrdiff_t e;
	struct mt_tag_fields f;
	const char *err;

	/* Send completions carry no reliable tag: decode receives only. */
	if (!(c->flags & FI_RECV) || !(c->flags & FI_TAGGED) ||
	    (e = ep_of_cq(t, ev->proc, c->cq)) < 0)
		return;
	/* Open MPI trusts the CQ data as the source even without
	 * FI_REMOTE_CQ_DATA in the flags (rxm omits it on peeks). */
	mt_tag_decode(&s->lay[e], c->tag, c->data, in_flags(s->wrapped[e], true), &f);
	note_wrap(&s->lay[e], &s->wrapped[e], &f);
	printf("rank=%s ep=%td op=cqe-recv", mt_sink_rank(t, t->procs[ev->proc].key, rk,
							  sizeof(rk)), e);
	print_fields(&f, false, false);
	printf(" len=%" PRIu64 " tag64=0x%016" PRIx64, c->len, c->tag);
	if ((c->flags & FI_PEEK) ||
	    (ctx_get(ctx, ev->proc, c->context) & MT_TAG_RECV_PEEK))
		printf(" probe");
	if (c->err) {
		err = mt_sink_name_errno(c->err);
		if (err)
			printf(" err=%s", err);
		else
			printf(" err=%d", c->err);
	}
	printf("\n");
}

/* The operations in time order. */
static int list_ops(const struct mt_trace *t, struct eps *s)
{
	struct ctx_map ctx = { 0 };
	struct mt_trace_merge *m;
	struct mt_trace_event ev;
	struct mt_err err;
	enum mt_status st;

	if (mt_trace_merge_open(t, &m) != MT_OK) {
		fprintf(stderr, "msgtrace decode: out of memory\n");
		return MT_EXIT_BAD_INPUT;
	}
	while ((st = mt_trace_merge_next(m, &ev, &err)) == MT_OK) {
		if (ev.rec->layer)
			continue;
		if (ev.rec->type == MT_REC_OP && print_op(t, &ev, s, &ctx)) {
			snprintf(err.msg, sizeof(err.msg), "out of memory");
			st = MT_ERR_NOMEM;
			break;
		}
		if (ev.rec->type == MT_REC_CQE)
			print_cqe(t, &ev, s, &ctx);
	}
	mt_trace_merge_close(m);
	free(ctx.slot);
	if (st != MT_END) {
		fprintf(stderr, "msgtrace decode: %s\n", err.msg);
		return MT_EXIT_BAD_INPUT;
	}
	return MT_EXIT_OK;
}

static int run(int argc, char **argv)
{
	struct decode_opts o;
	struct mt_trace *t;
	struct eps s;
	struct mt_err err = { { 0 } };
	int ret = parse(argc, argv, &o);

	if (ret)
		return ret < 0 ? MT_EXIT_OK : ret;
	if (mt_trace_open((const char *const *)argv + optind, (size_t)(argc - optind),
			  &t, &err) != MT_OK) {
		fprintf(stderr, "msgtrace decode: %s\n", err.msg);
		mt_cmd_untraced("msgtrace decode", (const char *const *)argv +
				optind, (size_t)(argc - optind), 1);
		return MT_EXIT_BAD_INPUT;
	}
	size_t n = t->neps ? t->neps : 1;

	s.det = calloc(n, sizeof(*s.det));
	s.lay = calloc(n, sizeof(*s.lay));
	s.wrapped = calloc(n, sizeof(*s.wrapped));
	if (!s.det || !s.lay || !s.wrapped) {
		fprintf(stderr, "msgtrace decode: out of memory\n");
		ret = MT_EXIT_BAD_INPUT;
	} else if (mt_pipe_detect(t, o.layout, s.det, s.lay, &err) != MT_OK) {
		fprintf(stderr, "msgtrace decode: %s\n", err.msg);
		ret = MT_EXIT_BAD_INPUT;
	} else {
		if (!t->neps)
			printf("no enabled endpoint in this trace\n");
		report(t, &s);
		if (o.ops)
			ret = list_ops(t, &s);
	}
	free(s.det);
	free(s.lay);
	free(s.wrapped);
	mt_trace_close(t);
	return ret;
}

const struct mt_cmd mt_cmd_decode = {
	.name = "decode",
	.summary = "tag layout of each endpoint (with evidence) and decoded operations",
	.run = run,
};
