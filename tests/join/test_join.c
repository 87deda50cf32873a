/*
 * test_join.c - mt_join on MPI calls and fabric messages built here, where
 * the truth is known: each rank's archive clock runs a known offset behind
 * the fabric's.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "joined.h"
#include "mt_join.h"

#define MAXC 16
#define MAXM 16

static struct mt_otf2in_call call[MAXC];
static struct mt_otf2in_p2p snd[MAXC], rcv[MAXC];
static struct mt_otf2in_calls calls;
static struct mt_match_msg msg[MAXM];
static size_t nmsg;

static void setup(void)
{
	memset(call, 0, sizeof(call));
	memset(&calls, 0, sizeof(calls));
	memset(msg, 0, sizeof(msg));
	calls.call = call;
	calls.send = snd;
	calls.recv = rcv;
	nmsg = 0;
}

TestSuite(join, .init = setup);

/* A call of proc on the archive's clock; bytes 0: none recorded. */
static size_t add_call(int32_t proc, const char *name, uint64_t enter, uint64_t leave,
		       uint64_t bytes, int64_t parent)
{
	call[calls.n] = (struct mt_otf2in_call){ .enter_ns = enter, .leave_ns = leave,
		.bytes = bytes, .has_bytes = bytes != 0, .name = name,
		.parent = parent, .proc = proc };
	return calls.n++;
}

/* A send recorded inside call c. */
static void add_send(size_t c, int32_t dest, int32_t tag, uint64_t len)
{
	call[c].sends++;
	snd[calls.nsend++] = (struct mt_otf2in_p2p){ .call = c, .len = len,
						       .peer = dest, .tag = tag };
}

/* A blocking receive (MpiRecv) recorded inside call c. */
static void add_recv(size_t c, int32_t src, int32_t tag, uint64_t len)
{
	rcv[calls.nrecv++] = (struct mt_otf2in_p2p){ .call = c, .len = len,
						       .peer = src, .tag = tag };
}

/* A fabric message on the fabric's clock. */
static void add_msg(int32_t from, int32_t to, int32_t tag, unsigned kind,
		    uint64_t bytes, uint64_t send_post, uint64_t recv_post,
		    uint64_t recv_done, unsigned status)
{
	struct mt_match_msg *m = &msg[nmsg++];

	m->send_rank = from;
	m->recv_rank = to;
	m->f = (struct mt_match_fields){ .cid = 0, .comm_src = from, .tag = tag,
					 .kind = (uint8_t)kind, .has_tag = 1 };
	m->bytes = bytes;
	m->t_send_post = send_post;
	m->t_send_done = send_post;
	m->t_recv_post = recv_post;
	m->t_recv_done = recv_done;
	m->status = (uint8_t)status;
}

static const struct mt_join_kind *find_kind(const struct mt_join *j, const char *name,
					    uint64_t bytes)
{
	for (size_t i = 0; i < mt_join_nkinds(j); i++) {
		const struct mt_join_kind *k = mt_join_kind(j, i);

		if ((k->name == name || (k->name && name && !strcmp(k->name, name))) &&
		    k->bytes == bytes)
			return k;
	}
	return NULL;
}

static struct mt_join *join_ok(size_t nranks)
{
	struct mt_join *j;
	struct mt_err err = { { 0 } };

	cr_assert_eq(mt_join_new(&calls, nranks, nranks, &j, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(mt_join_add(j, msg, nmsg), MT_OK);
	cr_assert_eq(mt_join_finish(j, &err), MT_OK, "%s", err.msg);
	return j;
}

/* Rank 0's archive clock is 5000 ns behind the fabric's, rank 1's 9000.
 * Rank 0: MPI_Send [100, 200] to 1 tag 7 (64 B), then MPI_Allreduce
 * [300, 400] holding an inner MPI_Send [320, 340] it made (nested), then
 * MPI_Send [500, 520]. Rank 1: MPI_Recv [50, 250], MPI_Send [600, 610]. */
static void two_ranks(void)
{
	size_t s0 = add_call(0, "MPI_Send", 100, 200, 64, -1);
	size_t a0 = add_call(0, "MPI_Allreduce", 300, 400, 8, -1);

	add_call(0, "MPI_Send", 320, 340, 8, (int64_t)a0);
	size_t s1 = add_call(0, "MPI_Send", 500, 520, 64, -1);

	add_call(1, "MPI_Recv", 50, 250, 64, -1);
	size_t s2 = add_call(1, "MPI_Send", 600, 610, 64, -1);

	add_send(s0, 1, 7, 64);
	add_send(s1, 1, 7, 64);
	add_send(s2, 0, 3, 64);
	/* The data sends: rank 0's at 5150 and 5510 (archive 150, 510). */
	add_msg(0, 1, 7, MT_MATCH_USER, 64, 5150, 9100, 9300, MT_MATCH_ST_MATCHED);
	add_msg(0, 1, 7, MT_MATCH_USER, 64, 5510, 9700, 9800, MT_MATCH_ST_TRUNCATED);
	add_msg(1, 0, 3, MT_MATCH_USER, 64, 9605, 5800, 5900, MT_MATCH_ST_MATCHED);
	/* The Allreduce's: one from the nested call's time (archive 330),
	 * one from the outer call's only (archive 380). */
	add_msg(0, 1, -12, MT_MATCH_COLL, 8, 5330, 9000, 9900, MT_MATCH_ST_MATCHED);
	add_msg(0, 1, -12, MT_MATCH_COLL, 8, 5380, 9000, 9950, MT_MATCH_ST_MATCHED);
	/* A tracer's own message outside every call (archive 900). */
	add_msg(0, 1, 17, MT_MATCH_USER, 4, 5900, 9950, 9990, MT_MATCH_ST_MATCHED);
}

Test(join, offsets_within_their_uncertainty)
{
	two_ranks();
	struct mt_join *j = join_ok(2);
	const struct mt_join_align *a0 = mt_join_align(j, 0), *a1 = mt_join_align(j, 1);

	cr_assert(a0->ok && a1->ok);
	cr_expect_eq(a0->anchors, 2);
	cr_expect_eq(a1->anchors, 1);
	/* Rank 0: 5150 in [100, 200] and 5510 in [500, 520]: offset in
	 * [4990, 5010]. Rank 1: 9605 in [600, 610]: [8995, 9005]. */
	cr_expect_eq(a0->offset_ns, 5000);
	cr_expect_eq(a0->uncertainty_ns, 10);
	cr_expect_eq(a1->offset_ns, 9000);
	cr_expect_eq(a1->uncertainty_ns, 5);
	mt_join_free(j);
}

Test(join, messages_in_their_innermost_calls)
{
	two_ranks();
	struct mt_join *j = join_ok(2);
	const struct mt_join_kind *send64 = find_kind(j, "MPI_Send", 64);
	const struct mt_join_kind *send8 = find_kind(j, "MPI_Send", 8);
	const struct mt_join_kind *allred = find_kind(j, "MPI_Allreduce", 8);
	const struct mt_join_kind *recv = find_kind(j, "MPI_Recv", 64);
	const struct mt_join_kind *none = find_kind(j, NULL, 0);

	cr_assert(send64 && send8 && allred && recv && none);
	cr_expect_eq(send64->calls, 3);
	cr_expect_eq(send64->call_ns, 100 + 20 + 10);
	cr_expect_eq(send64->sent, 3);
	cr_expect_eq(send64->status[MT_MATCH_ST_MATCHED], 2);
	cr_expect_eq(send64->status[MT_MATCH_ST_TRUNCATED], 1);
	cr_expect_eq(send64->sent_bytes, 192);
	/* Matched, receive done after send post: the first only (rank 1's
	 * reply was received before it was sent, on these made-up clocks). */
	cr_expect_eq(send64->wire_ns, 9300 - 5150);
	cr_expect_eq(send8->sent, 1, "the nested call's message");
	cr_expect_eq(allred->sent, 1, "the outer call's own message");
	/* Rank 1's receive of the first message, posted at archive 100. */
	cr_expect_eq(recv->recvs, 1);
	cr_expect_eq(none->sent, 1, "the tracer's message is in no call");
	uint64_t total;

	cr_assert_eq(mt_join_nproblems(j, &total), 1);
	const struct mt_join_problem *p = mt_join_problem(j, 0);

	cr_expect_eq(p->msg.status, MT_MATCH_ST_TRUNCATED);
	cr_assert(p->send_call);
	cr_expect_eq(p->send_call->enter_ns, 500);
	mt_join_free(j);
}

Test(join, another_runs_ranks_refused)
{
	struct mt_join *j;
	struct mt_err err = { { 0 } };

	two_ranks();
	cr_expect_eq(mt_join_new(&calls, 2, 3, &j, &err), MT_ERR_ARG);
	cr_expect(strstr(err.msg, "not the same run"), "%s", err.msg);
}

Test(join, a_recorded_send_missing_from_the_fabric_refused)
{
	struct mt_join *j;
	struct mt_err err = { { 0 } };

	two_ranks();
	msg[0].f.tag = 8;	/* the fabric's first send: another tag */
	cr_assert_eq(mt_join_new(&calls, 2, 2, &j, &err), MT_OK);
	cr_assert_eq(mt_join_add(j, msg, nmsg), MT_OK);
	cr_expect_eq(mt_join_finish(j, &err), MT_ERR_ARG);
	cr_expect(strstr(err.msg, "rank 0 sent rank 1 tag 7 (64 B) in MPI_Send"), "%s",
		  err.msg);
	mt_join_free(j);
}

Test(join, no_offset_fits_refused)
{
	struct mt_join *j;
	struct mt_err err = { { 0 } };

	two_ranks();
	msg[1].t_send_post = 5600;	/* archive 600 under offset 5000: out */
	cr_assert_eq(mt_join_new(&calls, 2, 2, &j, &err), MT_OK);
	cr_assert_eq(mt_join_add(j, msg, nmsg), MT_OK);
	cr_expect_eq(mt_join_finish(j, &err), MT_ERR_ARG);
	cr_expect(strstr(err.msg, "rank 0: no clock offset"), "%s", err.msg);
	mt_join_free(j);
}

Test(join, receive_posts_settle_the_offset_in_its_range)
{
	size_t s0 = add_call(0, "MPI_Send", 100, 200, 64, -1);

	add_call(0, "MPI_Irecv", 300, 310, 0, -1);
	add_call(1, "MPI_Recv", 0, 1000, 64, -1);
	add_send(s0, 1, 7, 64);
	/* Offsets 4950..5050 put the send at 5150 inside [100, 200]; only
	 * 5035..5045 put the receive posted at 5345 inside the MPI_Irecv. */
	add_msg(0, 1, 7, MT_MATCH_USER, 64, 5150, 500, 600, MT_MATCH_ST_MATCHED);
	add_msg(1, 0, 9, MT_MATCH_USER, 8, 900, 5345, 5400, MT_MATCH_ST_UNMATCHED_RECV);
	msg[1].t_send_post = MT_MATCH_NOTIME;
	struct mt_join *j = join_ok(2);
	const struct mt_join_align *a0 = mt_join_align(j, 0);
	const struct mt_join_kind *irecv = find_kind(j, "MPI_Irecv", 0);

	cr_assert(a0->ok);
	cr_expect_eq(a0->offset_ns, 5040);
	cr_expect_eq(a0->uncertainty_ns, 50);
	cr_assert(irecv);
	cr_expect_eq(irecv->recvs, 1);
	mt_join_free(j);
}

/* Rank 1 polls a receive with MPI_Test after posting it with MPI_Irecv
 * (archive [1200, 1202]); its only anchor, an MPI_Recv [0, 1000] whose
 * fabric receive was posted at 9010, leaves its offset anywhere in [8010,
 * 9010]. The Irecv's fabric post at 10201 is inside MPI_Irecv for offsets
 * 8999..9001 only, inside one of the MPI_Test calls for most others: a
 * receive is posted by a call that receives, so the offset is 9000. */
static void polled_irecv(void)
{
	size_t s0 = add_call(0, "MPI_Send", 100, 200, 64, -1);
	size_t r1 = add_call(1, "MPI_Recv", 0, 1000, 64, -1);

	add_call(1, "MPI_Irecv", 1200, 1202, 0, -1);
	for (uint64_t t = 1203; t < 2300; t += 100)
		add_call(1, "MPI_Test", t, t + 99, 0, -1);
	add_send(s0, 1, 7, 64);
	add_recv(r1, 0, 7, 64);
	add_msg(0, 1, 7, MT_MATCH_USER, 64, 5150, 9010, 9020, MT_MATCH_ST_MATCHED);
}

static void expect_settled_in_irecv(struct mt_join *j)
{
	const struct mt_otf2in_call *c = mt_join_call_at(j, 1, 10201);

	cr_expect_eq(mt_join_align(j, 1)->offset_ns, 9000);
	cr_assert(c);
	cr_expect_str_eq(c->name, "MPI_Irecv");
	mt_join_free(j);
}

Test(join, receive_posts_settle_in_receive_calls_not_polls)
{
	polled_irecv();
	/* never sent: a receive alone, unmatched at the end */
	add_msg(0, 1, 3, MT_MATCH_USER, 64, 0, 10201, 10300, MT_MATCH_ST_UNMATCHED_RECV);
	msg[1].t_send_post = MT_MATCH_NOTIME;
	expect_settled_in_irecv(join_ok(2));
}

/* The same receive pending at the end (a hang's): only the matcher's
 * summary holds it. */
Test(join, pending_receive_posts_settle_too)
{
	struct mt_match_pending p = { .rank = 1, .peer_rank = 0,
		.op = { .ts = 10201, .dir = MT_MATCH_DIR_RECV, .len = 64,
			.f = { .kind = MT_MATCH_USER, .tag = 3, .has_tag = 1 } } };
	struct mt_join *j;
	struct mt_err err = { { 0 } };

	polled_irecv();
	cr_assert_eq(mt_join_new(&calls, 2, 2, &j, &err), MT_OK);
	cr_assert_eq(mt_join_add(j, msg, nmsg), MT_OK);
	cr_assert_eq(mt_join_pending(j, &p, 1), MT_OK);
	cr_assert_eq(mt_join_finish(j, &err), MT_OK, "%s", err.msg);
	expect_settled_in_irecv(j);
}

/* A hang seen both ways: after two_ranks, rank 0 enters MPI_Ssend (64 B,
 * to rank 1 tag 2) at archive 700 and rank 1 MPI_Recv at 650, neither
 * left. On the fabric the Ssend's ACK receive (posted at 5710, rank 0's
 * clock + 5000) and rank 1's receive for tag 3 (posted at 9660) are
 * pending. The joined view names the calls they were posted in. */
static void hang(struct mt_match_pending *pend)
{
	two_ranks();
	size_t ss = add_call(0, "MPI_Ssend", 700, UINT64_MAX, 64, -1);

	add_call(1, "MPI_Recv", 650, UINT64_MAX, 64, -1);
	add_send(ss, 1, 2, 64);
	add_msg(0, 1, 2, MT_MATCH_SSEND, 64, 5705, 9655, 9700, MT_MATCH_ST_MATCHED);
	pend[0] = (struct mt_match_pending){ .rank = 0, .peer_rank = 1,
		.op = { .ts = 5710, .dir = MT_MATCH_DIR_RECV, .len = 0,
			.f = { .kind = MT_MATCH_SSEND_ACK, .tag = 2, .has_tag = 1 } } };
	pend[1] = (struct mt_match_pending){ .rank = 1, .peer_rank = 0,
		.op = { .ts = 9660, .dir = MT_MATCH_DIR_RECV, .len = 64,
			.f = { .kind = MT_MATCH_USER, .tag = 3, .has_tag = 1 } } };
}

/* What writer wrote for the hang, as a string to free. */
static char *joined_output(void (*writer)(FILE *, const struct mt_run *,
					  const struct mt_match_summary *))
{
	struct mt_match_pending pend[2];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	setup();	/* once per writer */
	hang(pend);
	struct mt_join *j = join_ok(2);
	struct mt_run run = { .join = j, .join_archive = "app_trace" };
	struct mt_match_summary sum = { .n_pending = 2, .pending = pend };

	cr_assert(f);
	writer(f, &run, &sum);
	fclose(f);
	mt_join_free(j);
	return text;
}

Test(join, a_hangs_pending_operations_name_their_calls)
{
	char *t = joined_output(mt_sink_joined_text);

	cr_expect(strstr(t, "Fabric operations pending at the end, with their MPI "
			 "calls: 2\n"
			 "  rank 0 receive ssend_ack 0 B from rank 1 tag 2, posted in "
			 "MPI_Ssend (64 B)\n"
			 "  rank 1 receive user 64 B from rank 0 tag 3, posted in "
			 "MPI_Recv (64 B)\n"), "%s", t);
	free(t);
	t = joined_output(mt_sink_joined_json);
	cr_expect(strstr(t, "\"pending_total\":2,\"pending\":[{\"rank\":0,\"dir\":\"recv\","
			 "\"kind\":\"ssend_ack\",\"bytes\":0,\"peer\":1,\"tag\":2,\"call\":"
			 "{\"name\":\"MPI_Ssend\",\"bytes\":64,\"rank\":0,\"enter_ns\":5700}"),
		  "%s", strstr(t, "\"pending_total\"") ? strstr(t, "\"pending_total\"") : t);
	free(t);
	t = joined_output(mt_sink_joined_html);
	cr_expect(strstr(t, "<td>rank 1 receive user 64 B from rank 0 tag 3</td>"
			 "<td>MPI_Recv (64 B)</td>"), "%s", t);
	free(t);
}
