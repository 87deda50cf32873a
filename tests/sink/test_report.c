/*
 * test_report.c - the report's user / internal split: a message is internal
 * by its tag (the layout's internal tags) or by its kind (Ssend ACKs,
 * untagged protocol), so a collective's synchronous send counts as internal
 * and a user's MPI_Ssend as user. And the pieces of the hang's view: rank
 * ranges, group lines, a view with nothing waiting. Which processes
 * recorded no call site while others did.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static struct mt_match_msg msg(uint8_t kind, int32_t tag, int internal)
{
	return (struct mt_match_msg){
		.send_rank = 0, .recv_rank = 1, .status = MT_MATCH_ST_MATCHED,
		.f = { .cid = 0, .comm_src = 0, .tag = tag, .kind = kind,
		       .internal = (uint8_t)internal, .has_tag = 1 },
		.bytes = 8, .t_send_post = 10, .t_send_done = 20,
		.t_recv_post = 5, .t_recv_done = 30 };
}

Test(report, user_and_internal_by_tag_and_kind)
{
	struct mt_run run = { .nranks = 2, .t0_ns = 0, .t1_ns = 100 };
	struct mt_match_msg b[] = {
		msg(MT_MATCH_USER, 7, 0),
		msg(MT_MATCH_SSEND, 7, 0),	/* MPI_Ssend */
		msg(MT_MATCH_SSEND, -16, 1),	/* a barrier's synchronous send */
		msg(MT_MATCH_SSEND_ACK, 7, 0),
		msg(MT_MATCH_COLL, -27, 1),
		msg(MT_MATCH_UNTAGGED, 0, 0),
	};
	struct report r;

	cr_assert_eq(mt_sink_report_init(&r, &run), 0);
	mt_sink_report_add(&r, b, sizeof(b) / sizeof(b[0]));
	cr_expect_eq(r.pair[1].msgs[REPORT_USER], 2);
	cr_expect_eq(r.pair[1].msgs[REPORT_INTERNAL], 4);
	cr_expect_eq(r.kind[MT_MATCH_SSEND], 2);
	mt_sink_report_fini(&r);
}

/* Rank lists as ranges, cut to the room they have with a count. */
Test(report, rank_ranges)
{
	int32_t r[] = { 0, 1, 2, 3, 7, 9, 10 }, many[1000];
	char buf[MT_SINK_RANKS_WIDTH];

	cr_expect_str_eq(mt_sink_report_ranks(NULL, r, 7, buf, sizeof(buf)), "0-3,7,9-10");
	cr_expect_str_eq(mt_sink_report_ranks(NULL, r, 1, buf, sizeof(buf)), "0");
	for (int i = 0; i < 1000; i++)
		many[i] = 3 * i;
	mt_sink_report_ranks(NULL, many, 1000, buf, sizeof(buf));
	cr_expect(strlen(buf) < sizeof(buf));
	cr_expect(strstr(buf, "0,3,6,9,") == buf, "%s", buf);
	cr_expect(strstr(buf, ",... (1000 in all)"), "%s", buf);
}

/* A group of waits in a line, and how long it has waited. */
Test(report, group_line)
{
	int32_t ranks[] = { 2, 3, 4, 5 }, on[] = { 0, 1 };
	struct mt_match_group g = { .why = MT_MATCH_WAIT_RECV, .kind = MT_MATCH_COLL,
		.has_tag = 1, .cid = 0, .tag = -16, .n_ops = 4, .n_ranks = 4,
		.n_on = 2, .ranks = ranks, .on = on, .first_ts = 1000000000 };
	char line[200];

	mt_sink_report_group_line(NULL, &g, MT_MATCH_NOTIME, line, sizeof(line));
	cr_expect_str_eq(line, "ranks 2-5 wait: recv coll cid 0 tag -16, on ranks 0-1");
	mt_sink_report_group_line(NULL, &g, 4500000000, line, sizeof(line));
	cr_expect_str_eq(line, "ranks 2-5 wait: recv coll cid 0 tag -16, on ranks "
			 "0-1, for 3.5 s");
}

/* Pending operations that wait on no one (a send delivered, its completion
 * unread) say so rather than leave the section empty. */
Test(report, hang_view_without_waits)
{
	struct mt_match_pending p = { .rank = 0, .peer_rank = 1, .delivered = 1,
		.op = { .dir = MT_MATCH_DIR_SEND } };
	struct mt_match_summary s = { .n_pending = 1, .pending = &p };
	struct report r = { 0 };
	struct mt_match_hang *h;
	char *text = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&text, &len);

	cr_assert_eq(mt_match_hang_new(&p, 1, NULL, 0, &h), MT_OK);
	mt_sink_text_hang_view(o, &r, &s, h, MT_MATCH_NOTIME);
	fclose(o);
	cr_expect(strstr(text, "no operation waits on a rank"), "%s", text);
	mt_match_hang_free(h);
	free(text);
}

/* MPICH between ranks of one host: its shared memory carries the messages,
 * libfabric sees only MPI_ANY_SOURCE receives, cancelled once shared memory
 * delivered, or still pending. One send anywhere: nothing bypassed. */
Test(report, receives_without_any_send_bypassed_the_fabric)
{
	struct mt_run run = { .nranks = 2, .t0_ns = 0, .t1_ns = 100 };
	struct mt_match_msg b[2] = { msg(MT_MATCH_USER, 7, 0), msg(MT_MATCH_USER, 8, 0) };
	struct mt_match_pending p = { .op = { .dir = MT_MATCH_DIR_RECV } };
	struct mt_match_summary s = { .n_pending = 1, .pending = &p };
	struct report r;

	for (int i = 0; i < 2; i++) {
		b[i].t_send_post = b[i].t_send_done = MT_MATCH_NOTIME;
		b[i].status = MT_MATCH_ST_CANCELLED;
	}
	cr_assert_eq(mt_sink_report_init(&r, &run), 0);
	mt_sink_report_add(&r, b, 2);
	cr_expect_eq(mt_sink_report_bypassed(&r, &s), 3);
	p.op.dir = MT_MATCH_DIR_SEND;
	cr_expect_eq(mt_sink_report_bypassed(&r, &s), 0, "a pending send reached the fabric");
	p.op.dir = MT_MATCH_DIR_RECV;
	struct mt_match_msg sent = msg(MT_MATCH_USER, 9, 0);
	mt_sink_report_add(&r, &sent, 1);
	cr_expect_eq(mt_sink_report_bypassed(&r, &s), 0, "a send reached the fabric");
	mt_sink_report_fini(&r);
}

/* Call sites recorded by some processes only: those without are marked,
 * and counted; none or all recorded: nothing to say (NULL). */
Test(report, processes_without_call_sites)
{
	struct mt_trace_proc procs[3] = { { .key = 0 }, { .key = 1 }, { .key = 2 } };
	struct mt_trace_site sites[3] = { { .proc = 0 }, { .proc = 2 }, { .proc = 0 } };
	struct mt_trace t = { .procs = procs, .nprocs = 3, .sites = sites, .nsites = 3 };
	size_t without = 99;
	unsigned char *has = mt_sink_site_procs(&t, &without);

	cr_assert_not_null(has);
	cr_expect_eq(without, 1);
	cr_expect(has[0] && !has[1] && has[2]);
	free(has);
	sites[2].proc = 1;
	cr_expect_null(mt_sink_site_procs(&t, &without), "every process recorded call sites");
	cr_expect_eq(without, 0);
	t.nsites = 0;
	cr_expect_null(mt_sink_site_procs(&t, &without), "no process recorded call sites");
	cr_expect_eq(without, 0);
}
