/*
 * match_pair.c - message matching: per key, the i-th send in the sender's
 * posting order with the i-th receive in the receiver's order; and the
 * message records that come out once both sides are complete.
 */
#include <string.h>
#include <stdlib.h>

#include "match_fast.h"

static struct map_key send_key(const struct mt_match *m, const struct op *s)
{
	int32_t at = s->p.peer >= 0 ? s->p.peer : s->p.ep;	/* the receiver's */

	return (struct map_key){ .a = s->p.tagged ? s->p.tag & ~ep_loose(m, at) : 0,
				 .b = s->p.src_id, .c = (uint32_t)s->p.peer };
}

static struct map_key recv_key(const struct mt_match *m, const struct op *r)
{
	return (struct map_key){ .a = r->rtag & ~ep_loose(m, r->p.ep),
				 .b = r->rsrc, .c = (uint32_t)r->p.ep };
}

/* The slot of key k, made if absent (NULL when out of memory); valid
 * until the next change to the key map. Forced inline with pair: with
 * two callers gcc kept it out of line, a call per message side. */
static inline __attribute__((always_inline)) struct key_slot *
key_get(struct mt_match *m, const struct map_key *k)
{
	int added = 0;
	struct key_slot *ks = (struct key_slot *)mt_match_map_find_or_add(&m->keys, k,
									   &added);

	if (ks && added) {
		ks->s.v = 1;
		ks->sh = ks->st = ks->rh = ks->rt = NIL;
	}
	return ks;
}

/* Drops key slot ks once neither side waits on it: memory follows what is
 * in flight, not the number of distinct tags ever seen. */
static void key_release(struct mt_match *m, struct key_slot *ks)
{
	if (!(ks->sh | ks->rh))
		mt_match_map_del(&m->keys, &ks->s);
}

static void q_push(struct mt_match *m, uint32_t *h, uint32_t *t, uint32_t i)
{
	m->op[i].q_next = NIL;
	m->op[i].q_prev = *t;
	if (*t)
		m->op[*t].q_next = i;
	else
		*h = i;
	*t = i;
	m->op[i].state |= OP_QUEUED;
}

/* Doubly linked: a cancelled send leaves a deep queue in one step.
 * Forced inline: every message takes one op out of its queue, and gcc
 * kept the call (559.6 against 561.6 instructions per event). */
static inline __attribute__((always_inline)) void
q_remove(struct mt_match *m, uint32_t *h, uint32_t *t, uint32_t i)
{
	uint32_t next = m->op[i].q_next, prev = m->op[i].q_prev;

	if (prev)
		m->op[prev].q_next = next;
	else
		*h = next;
	if (next)
		m->op[next].q_prev = prev;
	else
		*t = prev;
	m->op[i].q_next = m->op[i].q_prev = NIL;
	m->op[i].state &= ~(uint32_t)OP_QUEUED;
}

/*
 * The partner for op i in queue h: the oldest. When the message carries no
 * source identity, the oldest from the source endpoint the receive knows
 * (fi_cq_readfrom or a directed receive); failing that, the oldest at all,
 * and the pairing is ambiguous.
 */
static uint32_t pick(struct mt_match *m, uint32_t h, int32_t want_ep, int nosrc,
		     int from_sends, int *ambig)
{
	*ambig = 0;
	if (!nosrc)
		return h;
	for (uint32_t i = h; i; i = m->op[i].q_next) {
		int32_t ep = from_sends ? m->op[i].p.ep : m->op[i].rsrc_ep;

		if (want_ep < 0 || ep < 0 || ep == want_ep) {
			*ambig = want_ep < 0 || ep < 0;
			return i;
		}
	}
	return NIL;
}

static void mark_paired(struct mt_match *m, uint32_t seq)
{
	size_t byte = seq / 8;

	if (byte >= m->paired_cap) {
		size_t cap = m->paired_cap ? m->paired_cap * 2 : 4096;
		uint8_t *b;

		while (cap <= byte)
			cap *= 2;
		b = realloc(m->paired_bits, cap);
		if (!b) {
			mt_match_violate(m, "out of memory for the check bitmap");
			return;
		}
		memset(b + m->paired_cap, 0, cap - m->paired_cap);
		m->paired_bits = b;
		m->paired_cap = cap;
	}
	if (m->paired_bits[byte] & (1u << (seq % 8)))
		mt_match_violate(m, "an operation was matched twice");
	m->paired_bits[byte] |= (uint8_t)(1u << (seq % 8));
}

static void warn(struct mt_match *m, unsigned w, const struct mt_match_msg *msg)
{
	struct mt_match_warn *wn = &m->sum.warn[w];

	if (wn->n_examples < MT_MATCH_EXAMPLES) {
		wn->example[wn->n_examples++] = *msg;
		m->sum.n_examples++;
	}
	wn->count++;
}

/* Counts what msg, queued for the caller, says. */
static void account(struct mt_match *m, const struct mt_match_msg *msg)
{
	static const int8_t warn_of[MT_MATCH_ST_COUNT] = {
		[MT_MATCH_ST_MATCHED] = -1,
		[MT_MATCH_ST_UNMATCHED_SEND] = MT_MATCH_W_SEND_NO_RECV,
		[MT_MATCH_ST_UNMATCHED_RECV] = MT_MATCH_W_RECV_NO_SEND,
		[MT_MATCH_ST_TRUNCATED] = MT_MATCH_W_TRUNCATED,
		[MT_MATCH_ST_CANCELLED] = -1,
		[MT_MATCH_ST_AMBIGUOUS] = MT_MATCH_W_AMBIGUOUS,
	};

	m->sum.messages++;
	m->sum.by_status[msg->status]++;
	if (warn_of[msg->status] >= 0)
		warn(m, (unsigned)warn_of[msg->status], msg);
	/* A time not known (MT_MATCH_NOTIME, the largest value) is below no
	 * other: a test x < y needs no check of x, only of y where it had
	 * one. */
	if (msg->t_recv_done < msg->t_send_post &&
	    msg->t_send_post != MT_MATCH_NOTIME)
		warn(m, MT_MATCH_W_RECV_BEFORE_SEND, msg);
	/* One process's own clock cannot run backwards between posting an
	 * operation and completing it: only a damaged trace says so, which is
	 * the input's fault, not the matcher's. */
	if (msg->t_send_done < msg->t_send_post ||
	    msg->t_recv_done < msg->t_recv_post)
		warn(m, MT_MATCH_W_DONE_BEFORE_POST, msg);
}

static void retire(struct mt_match *m, uint32_t i, int send)
{
	if (send)
		m->ended_sends++;
	else
		m->ended_recvs++;
	mt_match_op_free(m, i);
}

/* Emits the paired s and r now, whatever is still missing. Messages are
 * built in the output queue itself: no copy on the way out. Inline
 * (forced) where a pair is found complete, link and try_emit: a call and
 * its saves per message less. */
static inline __attribute__((always_inline)) enum mt_status
flush(struct mt_match *m, uint32_t s, uint32_t r)
{
	struct mt_match_msg *msg = mt_match_out_slot(m);

	if (!msg)
		return MT_ERR_NOMEM;
	mt_match_msg_pair(m, &m->op[s], &m->op[r], msg);
	retire(m, s, 1);
	retire(m, r, 0);
	account(m, msg);
	return MT_OK;
}

/* Check mode: send s and receive r share a key, and neither was paired
 * before. Out of line (cold): inlined, it made link save six registers
 * for every message. */
static __attribute__((cold, noinline)) void check_link(struct mt_match *m,
						       uint32_t s, uint32_t r)
{
	struct map_key ks = send_key(m, &m->op[s]);
	struct map_key kr = recv_key(m, &m->op[r]);

	if (ks.a != kr.a || ks.b != kr.b || ks.c != kr.c)
		mt_match_violate(m, "a send was paired with a receive of another key");
	mark_paired(m, m->op[s].seq);
	mark_paired(m, m->op[r].seq);
}

/* Send s and receive r are paired. Inline in the pairing steps (forced:
 * gcc kept a tail call, and link's own prologue, for each message). */
static inline __attribute__((always_inline)) int
link(struct mt_match *m, uint32_t s, uint32_t r, int ambig)
{
	if (m->cfg.check)
		check_link(m, s, r);
	if (ambig)
		m->op[r].state |= OP_AMBIG;
	if (mt_match_owe_ack(m, s, r))
		return MT_ERR_NOMEM;
	/* Both complete, as most are by now: the message leaves at once, and
	 * the two ops with it, never linked. */
	if (m->op[s].state & m->op[r].state & OP_DONE)
		return flush(m, s, r);
	m->op[s].peer_op = r;
	m->op[r].peer_op = s;
	m->op[s].state |= OP_PAIRED;
	m->op[r].state |= OP_PAIRED;
	return MT_OK;
}

/* Receive r completed before send s was posted, s on an endpoint whose
 * trace is a window: r took a message sent before that window. */
static int before_window(const struct mt_match *m, uint32_t s, uint32_t r)
{
	return m->ep[m->op[s].p.ep].window && m->op[r].done_ts < m->op[s].p.ts;
}

/* Receive r has no partner in the trace (before_window): it leaves. */
static __attribute__((cold, noinline)) void drop_before(struct mt_match *m,
							 uint32_t r)
{
	m->sum.before_window++;
	retire(m, r, 0);
}

/* Receive r, on an endpoint whose trace is a window, meets send s. A
 * key's messages are received in order, so the sends its lost receives
 * took (before the window) are its oldest: while s was posted before the
 * window, is done, and a later send of the key was posted before r
 * completed, s is passed over as taken before the window. Returns the
 * send r takes (*ambig for it). */
static __attribute__((cold, noinline)) uint32_t
pass_early(struct mt_match *m, struct key_slot *ks, uint32_t r, uint32_t s,
	   int nosrc, int *ambig)
{
	struct ep *e = &m->ep[m->op[r].p.ep];
	uint64_t done = m->op[r].done_ts;
	uint32_t next;
	int a;

	while (done != MT_MATCH_NOTIME && m->op[s].p.ts < e->window_start &&
	       (m->op[s].state & OP_DONE) &&
	       (next = pick(m, m->op[s].q_next, m->op[r].rsrc_ep, nosrc, 1, &a)) &&
	       m->op[next].p.ts <= done) {
		q_remove(m, &ks->sh, &ks->st, s);
		m->sum.before_window++;
		e->taken_early++;
		retire(m, s, 1);
		s = next;
		*ambig = a;
	}
	return s;
}

/* Op i (a send, or a receive whose turn came) meets the oldest partner
 * waiting on its key, or waits there itself. Inline in each side's entry,
 * where send is a constant: one function for both tested it a dozen
 * times. */
static inline __attribute__((always_inline)) int pair(struct mt_match *m,
						      uint32_t i, int send)
{
	struct op *o = &m->op[i];
	struct map_key k = send ? send_key(m, o) : recv_key(m, o);
	struct key_slot *ks = key_get(m, &k);
	uint32_t j;
	int ambig;

	if (!ks)
		return MT_ERR_NOMEM;
	j = pick(m, send ? ks->rh : ks->sh, send ? o->p.ep : o->rsrc_ep,
		 k.b == MT_MATCH_NOSRC, !send, &ambig);
	while (j && m->windowed && (send ? before_window(m, i, j) :
				    before_window(m, j, i))) {
		if (!send) {
			key_release(m, ks);
			drop_before(m, i);
			return MT_OK;
		}
		q_remove(m, &ks->rh, &ks->rt, j);
		drop_before(m, j);
		j = pick(m, ks->rh, o->p.ep, k.b == MT_MATCH_NOSRC, 0, &ambig);
	}
	if (!send && j && m->windowed && m->ep[o->p.ep].window_start)
		j = pass_early(m, ks, i, j, k.b == MT_MATCH_NOSRC, &ambig);
	if (!j) {
		if (send)
			q_push(m, &ks->sh, &ks->st, i);
		else
			q_push(m, &ks->rh, &ks->rt, i);
		return MT_OK;
	}
	if (send)
		q_remove(m, &ks->rh, &ks->rt, j);
	else
		q_remove(m, &ks->sh, &ks->st, j);
	key_release(m, ks);
	return send ? link(m, i, j, ambig) : link(m, j, i, ambig);
}

enum mt_status mt_match_pair_send(struct mt_match *m, uint32_t s)
{
	mt_match_ack_sent(m, s);
	return pair(m, s, 1);
}

enum mt_status mt_match_pair_recv(struct mt_match *m, uint32_t r)
{
	return pair(m, r, 0);
}

/* Takes op i out of the key queue it waits in (cancel, end of input). Its
 * key is found again from the op: endpoints' masks do not change once
 * operations are posted (mt_match_ep_masks). */
void mt_match_unqueue(struct mt_match *m, uint32_t i)
{
	const struct op *o = &m->op[i];

	if (!(o->state & OP_QUEUED))
		return;
	int send = o->p.dir == MT_MATCH_DIR_SEND;
	struct map_key k = send ? send_key(m, o) : recv_key(m, o);
	struct key_slot *ks = (struct key_slot *)mt_match_map_get(&m->keys, &k);

	q_remove(m, send ? &ks->sh : &ks->rh, send ? &ks->st : &ks->rt, i);
	key_release(m, ks);
}

/* Emits the message of op i once both its send and receive completed. */
enum mt_status mt_match_try_emit(struct mt_match *m, uint32_t i)
{
	if (!(m->op[i].state & OP_PAIRED))
		return MT_OK;
	uint32_t j = m->op[i].peer_op;
	uint32_t s = m->op[i].p.dir == MT_MATCH_DIR_SEND ? i : j;
	uint32_t r = s == i ? j : i;

	if (!(m->op[s].state & OP_DONE) || !(m->op[r].state & OP_DONE))
		return MT_OK;
	return flush(m, s, r);
}

/* flush for the other files (match_finish.c). */
enum mt_status mt_match_flush_pair(struct mt_match *m, uint32_t s, uint32_t r)
{
	return flush(m, s, r);
}

enum mt_status mt_match_emit_alone(struct mt_match *m, uint32_t i, unsigned status)
{
	struct mt_match_msg *msg = mt_match_out_slot(m);
	int send = m->op[i].p.dir == MT_MATCH_DIR_SEND;

	if (!msg)
		return MT_ERR_NOMEM;
	mt_match_unqueue(m, i);
	mt_match_build_msg(m, send ? i : NIL, send ? NIL : i, msg);
	msg->status = (uint8_t)status;
	retire(m, i, send);
	account(m, msg);
	return MT_OK;
}
