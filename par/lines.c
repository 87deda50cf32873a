/*
 * lines.c - a sink's lines written by every rank (par_int.h). Once the
 * reading is over, rank 0's pass hands each of its batches, times
 * corrected, to another rank with room (fewer than WINDOW batches out, so
 * that it has its next batch at hand when it ends one), in turn; a rank
 * writes a batch with the sink's formatter into text and sends the text
 * back; rank 0 writes the texts out in the batches' order. When no rank
 * has room, rank 0 writes lines itself, PIECE messages at a time, and
 * looks for room again between pieces: rank 0 also reads the batches and
 * puts every text out, so its share is whatever time that leaves it,
 * whatever N. What a batch holds and where its text goes stay rank 0's
 * pass: only the formatting, most of a CSV's cost, is divided.
 */
#define _GNU_SOURCE		/* fopencookie */
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "par_int.h"

#define WINDOW 2		/* batches out per rank */
#define PIECE 128		/* messages rank 0 writes between looks for room */
#define TAG_BATCH 1		/* rank 0 to a rank: a batch; empty: the end */
#define TAG_TEXT 2		/* back: its text */
#define POLL_NS 50000		/* between two looks for a batch or a text */

/* A stream whose bytes go into a buffer, for the formatter. */
struct text_file {
	FILE *f;
	struct par_buf *into;		/* bytes */
	int nomem;
};

static ssize_t text_put(void *arg, const char *p, size_t k)
{
	struct text_file *tf = arg;

	if (mt_par_buf_append(tf->into, p, k)) {
		tf->nomem = 1;
		return 0;
	}
	return (ssize_t)k;
}

static int text_open(struct text_file *tf)
{
	tf->f = fopencookie(tf, "w", (cookie_io_functions_t){ .write = text_put });
	if (!tf->f || setvbuf(tf->f, NULL, _IOFBF, 1 << 16))
		return -1;
	__fsetlocking(tf->f, FSETLOCKING_BYCALLER);	/* this thread alone */
	return 0;
}

/* into holds the lines of b[0..n); -1: out of memory. */
static int text_of(struct text_file *tf, const struct mt_sink_lines *sink, void *l,
		   struct par_buf *into, const struct mt_match_msg *b, size_t n)
{
	into->head = into->n = 0;
	tf->into = into;
	sink->write(l, b, n, tf->f);
	return fflush(tf->f) || tf->nomem ? -1 : 0;
}

/* A batch out, or one rank 0 wrote while earlier ones were out. */
struct slot {
	int rank;
	int done;			/* text holds its lines */
	MPI_Request req;		/* the batch's send */
	struct par_buf msgs;		/* the batch, while it is sent */
	struct par_buf text;
};

struct par_lines {
	MPI_Comm comm;
	int n;
	const struct mt_sink_lines *sink;
	void *l;			/* the sink's formatter */
	struct text_file tf;
	FILE *out;
	int shared;			/* the other ranks write too */
	int next;			/* the rank to look at first for room */
	struct slot *q;			/* a ring of RING(n) slots, in order */
	size_t head, len;
	int *held;			/* per rank: batches out */
	uint8_t *tried;			/* per rank: looked at in this pass */
	struct mt_pipe_writer w;
};

/* Room for every rank's window and rank 0's own pieces between them. */
#define RING(n) ((size_t)(n) * WINDOW + 16)

static struct slot *slot_at(const struct par_lines *pl, size_t i)
{
	return &pl->q[(pl->head + i) % RING(pl->n)];
}

/* Slot s's text, from its rank, whose oldest batch out it is; block:
 * waits for it. */
static void take(struct par_lines *pl, struct slot *s, int block)
{
	MPI_Message msg;
	MPI_Status st;
	int bytes, found = 1;

	if (block) {
		mt_par_wait_probe(pl->comm, s->rank, TAG_TEXT, POLL_NS, &msg, &bytes);
	} else {
		MPI_Improbe(s->rank, TAG_TEXT, pl->comm, &found, &msg, &st);
		if (!found)
			return;
		MPI_Get_count(&st, MPI_BYTE, &bytes);
	}
	if (mt_par_buf_reserve(&s->text, (size_t)bytes))
		MPI_Abort(pl->comm, MT_ERR_NOMEM);	/* none may wait */
	MPI_Mrecv(s->text.v, bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
	mt_par_wait(&s->req, POLL_NS);	/* done: its text came back */
	s->done = 1;
	pl->held[s->rank]--;
}

/* The texts at the head, in order, into out. */
static enum mt_status put(struct par_lines *pl, struct mt_err *err)
{
	while (pl->len && slot_at(pl, 0)->done) {
		struct slot *s = slot_at(pl, 0);
		size_t k = mt_par_buf_len(&s->text);

		if (k)
			fwrite(s->text.v, 1, k, pl->out);
		s->done = 0;
		pl->head = (pl->head + 1) % RING(pl->n);
		pl->len--;
	}
	return mt_sink_written(pl->out, 0, err);
}

/* The texts that came back taken (block: the head's waited for), those
 * at the head written out. */
static enum mt_status settle(struct par_lines *pl, int block, struct mt_err *err)
{
	memset(pl->tried, 0, (size_t)pl->n);
	for (size_t i = 0; i < pl->len; i++) {
		struct slot *s = slot_at(pl, i);

		if (s->done || pl->tried[s->rank])
			continue;
		pl->tried[s->rank] = 1;	/* its oldest: the next it sends */
		take(pl, s, block && i == 0);
	}
	return put(pl, err);
}

/* A rank other than 0 with room, in turn; 0: none has. */
static int room(struct par_lines *pl)
{
	for (int i = 0; pl->shared && i < pl->n - 1; i++) {
		int r = 1 + (pl->next + i) % (pl->n - 1);

		if (pl->held[r] < WINDOW) {
			pl->next = r % (pl->n - 1);
			return r;
		}
	}
	return 0;
}

/* b[0..n) into the next slot, out to rank r or written here (r 0). */
static enum mt_status queue(struct par_lines *pl, int r, const struct mt_match_msg *b,
			    size_t n, struct mt_err *err)
{
	enum mt_status st;
	struct slot *s;

	while (pl->len == RING(pl->n))
		if ((st = settle(pl, 1, err)))
			return st;
	s = slot_at(pl, pl->len++);
	s->rank = r;
	if (r == 0) {
		if (text_of(&pl->tf, pl->sink, pl->l, &s->text, b, n))
			return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
		s->done = 1;
		return MT_OK;
	}
	if (mt_par_buf_reserve(&s->msgs, n))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	memcpy(s->msgs.v, b, n * sizeof(*b));
	MPI_Isend(s->msgs.v, (int)(n * sizeof(*b)), MPI_BYTE, r, TAG_BATCH,
		  pl->comm, &s->req);
	pl->held[r]++;
	return MT_OK;
}

static enum mt_status lines_write(void *arg, const struct mt_match_msg *b,
				  size_t n, struct mt_err *err)
{
	struct par_lines *pl = arg;
	enum mt_status st;

	while (n) {
		int r = room(pl);
		size_t k = r || !pl->shared ? n : n < PIECE ? n : PIECE;

		if (r == 0 && !pl->len) {	/* nothing waits before it */
			pl->sink->write(pl->l, b, k, pl->out);
			st = mt_sink_written(pl->out, 0, err);
		} else if (!(st = queue(pl, r, b, k, err))) {
			st = settle(pl, 0, err);
		}
		if (st)
			return st;
		b += k;
		n -= k;
	}
	return MT_OK;
}

static enum mt_status lines_end(void *arg, struct mt_err *err)
{
	struct par_lines *pl = arg;
	enum mt_status st;

	while (pl->len)
		if ((st = settle(pl, 1, err)))
			return st;
	return MT_OK;
}

struct par_lines *mt_par_lines_new(MPI_Comm comm, const struct mt_sink_lines *sink,
				   const struct mt_trace *t, FILE *out)
{
	struct par_lines *pl = calloc(1, sizeof(*pl));

	if (!pl)
		return NULL;
	MPI_Comm_size(comm, &pl->n);
	pl->comm = comm;
	pl->sink = sink;
	pl->out = out;
	pl->w = (struct mt_pipe_writer){ lines_write, lines_end, pl };
	pl->q = calloc(RING(pl->n), sizeof(*pl->q));
	pl->held = calloc((size_t)pl->n, sizeof(*pl->held));
	pl->tried = calloc((size_t)pl->n, 1);
	if (!pl->q || !pl->held || !pl->tried || !(pl->l = sink->open(t)) ||
	    text_open(&pl->tf)) {
		mt_par_lines_free(pl);
		return NULL;
	}
	for (size_t i = 0; i < RING(pl->n); i++) {
		pl->q[i].msgs.size = sizeof(struct mt_match_msg);
		pl->q[i].text.size = 1;
	}
	return pl;
}

const struct mt_pipe_writer *mt_par_lines_writer(struct par_lines *pl)
{
	return &pl->w;
}

void mt_par_lines_share(struct par_lines *pl)
{
	pl->shared = 1;
}

void mt_par_lines_free(struct par_lines *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->len; i++)	/* each its rank's oldest */
		if (!slot_at(pl, i)->done)
			take(pl, slot_at(pl, i), 1);
	for (int r = 1; pl->shared && r < pl->n; r++)
		MPI_Send(NULL, 0, MPI_BYTE, r, TAG_BATCH, pl->comm);
	for (size_t i = 0; pl->q && i < RING(pl->n); i++) {
		mt_par_buf_free(&pl->q[i].msgs);
		mt_par_buf_free(&pl->q[i].text);
	}
	if (pl->tf.f)
		fclose(pl->tf.f);
	if (pl->l)
		pl->sink->close(pl->l);
	free(pl->q);
	free(pl->held);
	free(pl->tried);
	free(pl);
}

void mt_par_lines_serve(MPI_Comm comm, const struct mt_sink_lines *sink,
			const struct mt_trace *t)
{
	struct par_buf batch = { .size = sizeof(struct mt_match_msg) };
	struct par_buf text[2] = { { .size = 1 }, { .size = 1 } };
	MPI_Request req[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
	struct text_file tf = { 0 };
	void *l = sink->open(t);

	if (!l || text_open(&tf))
		MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	for (int k = 0;; k ^= 1) {
		MPI_Message msg;
		int bytes;
		size_t n;

		mt_par_wait_probe(comm, 0, TAG_BATCH, POLL_NS, &msg, &bytes);
		n = (size_t)bytes / sizeof(struct mt_match_msg);
		if (mt_par_buf_reserve(&batch, n))
			MPI_Abort(comm, MT_ERR_NOMEM);
		MPI_Mrecv(batch.v, bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
		if (!n)
			break;
		mt_par_wait(&req[k], POLL_NS);	/* text[k]'s last send */
		if (text_of(&tf, sink, l, &text[k], batch.v, n))
			MPI_Abort(comm, MT_ERR_NOMEM);
		MPI_Isend(text[k].v, (int)mt_par_buf_len(&text[k]), MPI_BYTE, 0,
			  TAG_TEXT, comm, &req[k]);
	}
	mt_par_wait(&req[0], POLL_NS);
	mt_par_wait(&req[1], POLL_NS);
	fclose(tf.f);
	sink->close(l);
	mt_par_buf_free(&batch);
	mt_par_buf_free(&text[0]);
	mt_par_buf_free(&text[1]);
}
