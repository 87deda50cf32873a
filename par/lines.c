/*
 * lines.c - a sink's lines written by every rank (par_int.h). Once the
 * reading is over, rank 0's pass hands each of its batches, times
 * corrected, to another rank with room (fewer than WINDOW batches out, so
 * that it has its next batch at hand when it ends one), in turn; a rank
 * writes a batch with the sink's formatter into text; rank 0 puts the
 * texts out in the batches' order. A rank writes its text into rank 0's
 * output file itself, at the place rank 0 gives, when every rank can
 * write that file (outfile.c), else sends it back for rank 0 to write.
 * When no rank has room, rank 0 writes lines itself, PIECE messages at a
 * time, and looks for room again between pieces: rank 0 also reads the
 * batches and puts the texts out, so its share is whatever time that
 * leaves it, whatever N. What a batch holds and where its text goes stay
 * rank 0's pass: the formatting, most of a CSV's cost, and the writing of
 * the file's bytes are divided.
 */
#define _GNU_SOURCE		/* fopencookie */
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "par_int.h"

#define WINDOW 4		/* batches out per rank: one being written and
				 * enough at hand that it never waits for
				 * rank 0's next look */
#define PIECE 128		/* messages rank 0 writes between looks for room */
#define TAG_BATCH 1		/* rank 0 to a rank: a batch; shorter than one
				 * message: the end, with the number of
				 * places given (uint64) */
#define TAG_TEXT 2		/* back: its text, or its length (uint64)
				 * when written in place */
#define TAG_AT 3		/* rank 0 to a rank: where its oldest text
				 * waiting goes (int64) */
#define TAG_DONE 4		/* a rank to rank 0, at the end: 0, or the
				 * errno of its first failed write (int) */
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
	if (!tf->f || setvbuf(tf->f, NULL, _IOFBF, BUFSIZ))
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
	int done;			/* text holds its lines (in place:
					 * its rank holds them, len long) */
	uint64_t len;
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
	int inplace;			/* into out, at the places given */
	int ended;			/* the other ranks' writing */
	uint64_t *given;		/* per rank: places given */
	int next;			/* the rank to look at first for room */
	struct slot *q;			/* a ring of RING(n) slots, in order */
	size_t head, len;
	int *held;			/* per rank: batches out */
	uint8_t *tried;			/* per rank: looked at in this pass */
	struct mt_pipe_writer w;
};

/* Room for every rank's window and rank 0's own pieces between them: 64
 * pieces, a few milliseconds of its writing, so that it seldom waits for
 * the oldest batch out before it can go on. */
#define RING(n) ((size_t)(n) * WINDOW + 64)

static struct slot *slot_at(const struct par_lines *pl, size_t i)
{
	return &pl->q[(pl->head + i) % RING(pl->n)];
}

/* Slot s's text, from its rank, whose oldest batch out it is; block:
 * waits for it. 0: it has not come. */
static int take(struct par_lines *pl, struct slot *s, int block)
{
	MPI_Message msg;
	MPI_Status st;
	int bytes, found = 1;

	if (block) {
		int tag = TAG_TEXT;

		mt_par_wait_probe(pl->comm, s->rank, &tag, POLL_NS, &msg, &bytes);
	} else {
		MPI_Improbe(s->rank, TAG_TEXT, pl->comm, &found, &msg, &st);
		if (!found)
			return 0;
		MPI_Get_count(&st, MPI_BYTE, &bytes);
	}
	if (pl->inplace) {
		MPI_Mrecv(&s->len, 1, MPI_UINT64_T, &msg, MPI_STATUS_IGNORE);
	} else {
		if (mt_par_buf_reserve(&s->text, (size_t)bytes))
			MPI_Abort(pl->comm, MT_ERR_NOMEM);	/* none may wait */
		MPI_Mrecv(s->text.v, bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
	}
	mt_par_wait(&s->req, POLL_NS);	/* done: its text came back */
	s->done = 1;
	pl->held[s->rank]--;
	return 1;
}

/* Slot s's text, written in place by its rank: where it goes to that
 * rank, and out past it. -1: out cannot seek. */
static int place(struct par_lines *pl, const struct slot *s)
{
	int64_t at = (int64_t)ftello(pl->out);

	MPI_Send(&at, 1, MPI_INT64_T, s->rank, TAG_AT, pl->comm);
	pl->given[s->rank]++;
	return at < 0 || fseeko(pl->out, (off_t)s->len, SEEK_CUR) ? -1 : 0;
}

/* The texts at the head, in order, into out. */
static enum mt_status put(struct par_lines *pl, struct mt_err *err)
{
	while (pl->len && slot_at(pl, 0)->done) {
		struct slot *s = slot_at(pl, 0);
		size_t k = mt_par_buf_len(&s->text);

		if (s->rank && pl->inplace) {
			if (place(pl, s))
				return mt_sink_unwritten(err);
		} else if (k) {
			fwrite(s->text.v, 1, k, pl->out);
		}
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

		/* A rank sends its texts in order: past one not come yet,
		 * none of its later ones has either. */
		if (!s->done && !pl->tried[s->rank] && !take(pl, s, block && i == 0))
			pl->tried[s->rank] = 1;
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

/* Ends the other ranks' writing: each writes the texts it was given
 * places for and says whether it could. -1: one could not. */
static int end_writing(struct par_lines *pl)
{
	int failed = 0;

	pl->ended = 1;
	for (int r = 1; r < pl->n; r++)
		MPI_Send(&pl->given[r], 1, MPI_UINT64_T, r, TAG_BATCH, pl->comm);
	for (int r = 1; r < pl->n; r++) {
		MPI_Request req;
		int e;

		MPI_Irecv(&e, 1, MPI_INT, r, TAG_DONE, pl->comm, &req);
		mt_par_wait(&req, POLL_NS);
		failed |= e != 0;
	}
	return failed ? -1 : 0;
}

static enum mt_status lines_end(void *arg, struct mt_err *err)
{
	struct par_lines *pl = arg;
	enum mt_status st;

	while (pl->len)
		if ((st = settle(pl, 1, err)))
			return st;
	if (pl->shared && end_writing(pl))
		return mt_sink_unwritten(err);
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
	pl->given = calloc((size_t)pl->n, sizeof(*pl->given));
	pl->tried = calloc((size_t)pl->n, 1);
	if (!pl->q || !pl->held || !pl->given || !pl->tried ||
	    !(pl->l = sink->open(t)) || text_open(&pl->tf)) {
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
	int fd;

	pl->shared = 1;
	pl->inplace = mt_par_outfile(pl->comm, pl->out, &fd);
}

void mt_par_lines_free(struct par_lines *pl)
{
	if (!pl)
		return;
	for (size_t i = 0; i < pl->len; i++)	/* each its rank's oldest */
		if (!slot_at(pl, i)->done)
			take(pl, slot_at(pl, i), 1);
	if (pl->shared && !pl->ended)
		end_writing(pl);	/* the run's failure is said already */
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
	free(pl->given);
	free(pl->tried);
	free(pl);
}

/* Another rank's texts, formatted and not yet out: sent back to rank 0
 * (sent: their sends) or, in place, waiting for rank 0 to give their
 * places, oldest first. Each has a slot in rank 0's ring until it is out,
 * so RING(n) of them are never all waiting: the rank never waits for a
 * place with a batch in hand, which rank 0, should its pass fail, waits
 * to see written before it ends the writing. */
struct texts {
	MPI_Comm comm;
	int fd;				/* in place: rank 0's output; else -1 */
	int failed;			/* the errno of the first failed write */
	struct par_buf *text;		/* a ring of cap */
	MPI_Request *sent;
	size_t head, len, cap;
	uint64_t placed;		/* places taken */
};

/* The oldest text out: its send over, or written at the place that
 * came (msg, TAG_AT) unless a write failed before. */
static void texts_out(struct texts *x, MPI_Message *msg)
{
	struct par_buf *text = &x->text[x->head];

	if (x->fd < 0) {
		mt_par_wait(&x->sent[x->head], POLL_NS);
	} else {
		int64_t at;

		MPI_Mrecv(&at, 1, MPI_INT64_T, msg, MPI_STATUS_IGNORE);
		x->placed++;
		if (!x->failed)
			x->failed = mt_par_write_at(x->fd, text->v,
						    mt_par_buf_len(text), at);
	}
	x->head = (x->head + 1) % x->cap;
	x->len--;
}

/* The oldest text out, once rank 0 has given its place. */
static void texts_wait(struct texts *x)
{
	MPI_Message msg;
	int bytes, tag = TAG_AT;

	if (x->fd >= 0)
		mt_par_wait_probe(x->comm, 0, &tag, POLL_NS, &msg, &bytes);
	texts_out(x, &msg);
}

/* The lines of b[0..n) into the next text, sent back or, in place, its
 * length (the oldest out first when all are). */
static void texts_add(struct texts *x, struct text_file *tf,
		      const struct mt_sink_lines *sink, void *l,
		      const struct mt_match_msg *b, size_t n)
{
	struct par_buf *text;
	size_t i;

	if (x->len == x->cap)	/* see struct texts: never */
		texts_wait(x);
	i = (x->head + x->len++) % x->cap;
	text = &x->text[i];
	if (text_of(tf, sink, l, text, b, n))
		MPI_Abort(x->comm, MT_ERR_NOMEM);	/* none may wait */
	if (x->fd >= 0) {
		uint64_t len = mt_par_buf_len(text);

		MPI_Send(&len, 1, MPI_UINT64_T, 0, TAG_TEXT, x->comm);
	} else {
		MPI_Isend(text->v, (int)mt_par_buf_len(text), MPI_BYTE, 0,
			  TAG_TEXT, x->comm, &x->sent[i]);
	}
}

void mt_par_lines_serve(MPI_Comm comm, const struct mt_sink_lines *sink,
			const struct mt_trace *t)
{
	struct par_buf batch = { .size = sizeof(struct mt_match_msg) };
	struct texts x = { .comm = comm };
	uint64_t given = 0;		/* in place: places given in all */
	struct text_file tf = { 0 };
	void *l = sink->open(t);
	int n;

	MPI_Comm_size(comm, &n);
	mt_par_outfile(comm, NULL, &x.fd);
	x.cap = RING(n);
	x.text = calloc(x.cap, sizeof(*x.text));
	x.sent = calloc(x.cap, sizeof(*x.sent));
	for (size_t i = 0; x.text && x.sent && i < x.cap; i++) {
		x.text[i].size = 1;
		x.sent[i] = MPI_REQUEST_NULL;
	}
	if (!l || !x.text || !x.sent || text_open(&tf))
		MPI_Abort(comm, MT_ERR_NOMEM);	/* none may wait */
	for (;;) {
		MPI_Message msg;
		int bytes, tag = MPI_ANY_TAG;

		mt_par_wait_probe(comm, 0, &tag, POLL_NS, &msg, &bytes);
		if (tag == TAG_AT) {
			texts_out(&x, &msg);
		} else if ((size_t)bytes < sizeof(struct mt_match_msg)) {
			MPI_Mrecv(&given, 1, MPI_UINT64_T, &msg, MPI_STATUS_IGNORE);
			break;
		} else {
			if (mt_par_buf_reserve(&batch, (size_t)bytes / batch.size))
				MPI_Abort(comm, MT_ERR_NOMEM);
			MPI_Mrecv(batch.v, bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
			texts_add(&x, &tf, sink, l, batch.v, (size_t)bytes / batch.size);
		}
	}
	/* What is still out: in place, those rank 0 gave places before the
	 * end (a run that failed meanwhile gave the others none). */
	while (x.len && (x.fd < 0 || x.placed < given))
		texts_wait(&x);
	MPI_Send(&x.failed, 1, MPI_INT, 0, TAG_DONE, comm);
	if (x.fd >= 0)
		close(x.fd);
	fclose(tf.f);
	sink->close(l);
	mt_par_buf_free(&batch);
	for (size_t i = 0; i < x.cap; i++)
		mt_par_buf_free(&x.text[i]);
	free(x.text);
	free(x.sent);
}
