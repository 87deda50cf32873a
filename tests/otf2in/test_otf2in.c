/*
 * test_otf2in.c - OTF2 archives written here with libotf2, read through
 * the whole pipeline (mt_pipe_run into the CSV sink): the event kinds
 * EZTrace does not write, each with its known truth.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt_pipe.h"
#include "otf2_write.h"

#define BASE 1000000000000ull	/* what the reader adds to a clock from 0 */

static char dir[64];
static char notes[4096];

static void keep_note(void *arg, const char *msg)
{
	(void)arg;
	strncat(notes, msg, sizeof(notes) - strlen(notes) - 2);
	strcat(notes, "\n");
}

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test_otf2in.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	strcat(dir, "/a");
	notes[0] = 0;
}

static void teardown(void)
{
	char cmd[128];

	dir[strlen(dir) - 2] = 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(otf2in, .init = setup, .fini = teardown);

/* `msgtrace messages --csv` of dir: the CSV (free it), the status. */
static enum mt_status messages(enum mt_clock_mode clock, char **csv, struct mt_err *err)
{
	const char *paths[] = { dir };
	struct mt_pipe_opts o = { .paths = paths, .npaths = 1,
				  .layout = MT_TAG_LAYOUT_NONE, .clock = clock,
				  .note = { keep_note, NULL } };
	size_t len;
	FILE *f = open_memstream(csv, &len);
	enum mt_status s;

	cr_assert_not_null(f);
	memset(err, 0, sizeof(*err));
	s = mt_pipe_run(&o, &mt_sink_csv, f, err);
	fclose(f);
	return s;
}

static void call(struct tw *w, unsigned l, unsigned region, uint64_t t)
{
	cr_assert_eq(OTF2_EvtWriter_Enter(w->w[l], NULL, t, region), OTF2_SUCCESS);
}

static void ret(struct tw *w, unsigned l, unsigned region, uint64_t t)
{
	cr_assert_eq(OTF2_EvtWriter_Leave(w->w[l], NULL, t, region), OTF2_SUCCESS);
	w->t_max = t > w->t_max ? t : w->t_max;
}

static void has_line(const char *csv, const char *line)
{
	cr_assert_not_null(strstr(csv, line), "no line\n%s\nin\n%s", line, csv);
}

/* Two nonblocking receives of one source and tag, completed in the other
 * order: the one posted first takes the first message (MPI's
 * non-overtaking), whatever order the waits reported them in. */
Test(otf2in, irecv_completed_out_of_order_keeps_posting_order)
{
	struct tw w;
	struct mt_err err;
	char *csv, line[256];

	cr_assert_eq(tw_open(&w, dir, 2), 0);
	call(&w, 1, TW_IRECV, 1);
	OTF2_EvtWriter_MpiIrecvRequest(w.w[1], NULL, 2, 71);
	ret(&w, 1, TW_IRECV, 3);
	call(&w, 1, TW_IRECV, 4);
	OTF2_EvtWriter_MpiIrecvRequest(w.w[1], NULL, 5, 72);
	ret(&w, 1, TW_IRECV, 6);
	call(&w, 0, TW_SEND, 10);
	OTF2_EvtWriter_MpiSend(w.w[0], NULL, 11, 1, 0, 5, 100);
	ret(&w, 0, TW_SEND, 12);
	call(&w, 0, TW_SEND, 20);
	OTF2_EvtWriter_MpiSend(w.w[0], NULL, 21, 1, 0, 5, 200);
	ret(&w, 0, TW_SEND, 22);
	call(&w, 1, TW_WAIT, 30);
	OTF2_EvtWriter_MpiIrecv(w.w[1], NULL, 31, 0, 0, 5, 200, 72);
	ret(&w, 1, TW_WAIT, 32);
	call(&w, 1, TW_WAIT, 40);
	OTF2_EvtWriter_MpiIrecv(w.w[1], NULL, 41, 0, 0, 5, 100, 71);
	ret(&w, 1, TW_WAIT, 42);
	cr_assert_eq(tw_close(&w), 0);

	cr_assert_eq(messages(MT_CLOCK_MODE_NONE, &csv, &err), MT_OK, "%s", err.msg);
	/* A blocking send posts at its event, completes at its call's Leave. */
	snprintf(line, sizeof(line), "0,1,0,0,5,user,100,%llu,%llu,%llu,%llu,matched\n",
		 BASE + 11, BASE + 12, BASE + 2, BASE + 41);
	has_line(csv, line);
	snprintf(line, sizeof(line), "0,1,0,0,5,user,200,%llu,%llu,%llu,%llu,matched\n",
		 BASE + 21, BASE + 22, BASE + 5, BASE + 31);
	has_line(csv, line);
	cr_assert_null(strstr(csv, "truncated"));
	free(csv);
}

/* msgtrace's own export (property MSGTRACE::ONE_CLOCK) keeps the trace's
 * clock: read back, its times are the trace's, even from near 0 (a fabric
 * trace recorded soon after boot, whose clock is the uptime). */
Test(otf2in, own_export_near_zero_keeps_its_times)
{
	struct tw w;
	struct mt_err err;
	char *csv;

	cr_assert_eq(tw_open(&w, dir, 2), 0);
	cr_assert_eq(OTF2_Archive_SetBoolProperty(w.ar, "MSGTRACE::ONE_CLOCK",
						  true, false), OTF2_SUCCESS);
	call(&w, 1, TW_RECV, 1);
	call(&w, 0, TW_SEND, 10);
	OTF2_EvtWriter_MpiSend(w.w[0], NULL, 11, 1, 0, 5, 100);
	ret(&w, 0, TW_SEND, 12);
	OTF2_EvtWriter_MpiRecv(w.w[1], NULL, 13, 0, 0, 5, 100);
	ret(&w, 1, TW_RECV, 14);
	cr_assert_eq(tw_close(&w), 0);

	cr_assert_eq(messages(MT_CLOCK_MODE_AUTO, &csv, &err), MT_OK, "%s", err.msg);
	has_line(csv, "0,1,0,0,5,user,100,11,12,1,13,matched\n");
	free(csv);
}

/* A cancelled receive ends as a cancelled operation, not a hang; a
 * request never completed in an archive that records completions is
 * pending, and said. */
Test(otf2in, cancel_and_open_request)
{
	struct tw w;
	struct mt_err err;
	char *csv;

	cr_assert_eq(tw_open(&w, dir, 2), 0);
	call(&w, 1, TW_IRECV, 1);
	OTF2_EvtWriter_MpiIrecvRequest(w.w[1], NULL, 2, 9);
	ret(&w, 1, TW_IRECV, 3);
	OTF2_EvtWriter_MpiRequestCancelled(w.w[1], NULL, 4, 9);
	call(&w, 1, TW_IRECV, 5);
	OTF2_EvtWriter_MpiIrecvRequest(w.w[1], NULL, 6, 10);
	ret(&w, 1, TW_IRECV, 7);
	call(&w, 0, TW_ISEND, 8);
	OTF2_EvtWriter_MpiIsend(w.w[0], NULL, 9, 1, 0, 3, 16, 44);
	ret(&w, 0, TW_ISEND, 10);
	call(&w, 0, TW_WAIT, 11);
	OTF2_EvtWriter_MpiIsendComplete(w.w[0], NULL, 12, 44);
	ret(&w, 0, TW_WAIT, 13);
	call(&w, 1, TW_WAIT, 14);
	OTF2_EvtWriter_MpiIrecv(w.w[1], NULL, 15, 0, 0, 3, 16, 10);
	ret(&w, 1, TW_WAIT, 16);
	call(&w, 1, TW_IRECV, 20);
	OTF2_EvtWriter_MpiIrecvRequest(w.w[1], NULL, 21, 11);
	ret(&w, 1, TW_IRECV, 22);
	cr_assert_eq(tw_close(&w), 0);

	cr_assert_eq(messages(MT_CLOCK_MODE_NONE, &csv, &err), MT_OK, "%s", err.msg);
	has_line(csv, ",1,,,,user,0,,,1000000000002,1000000000004,cancelled\n");
	has_line(csv, "0,1,0,0,3,user,16,1000000000009,1000000000012,"
		 "1000000000006,1000000000015,matched\n");
	cr_assert_not_null(strstr(notes, "1 nonblocking receives were never completed"),
			   "%s", notes);
	free(csv);
}

/* A communicator's ranks are not the world's: rank 1 of communicator 7
 * (world ranks 2, 0) is world rank 0. */
Test(otf2in, communicator_ranks_through_groups)
{
	struct tw w;
	struct mt_err err;
	char *csv;

	cr_assert_eq(tw_open(&w, dir, 3), 0);
	w.ncomms = 1;
	w.comm[0] = (struct tw_comm){ .id = 7, .n = 2, .world = { 2, 0 } };
	call(&w, 2, TW_SEND, 1);
	OTF2_EvtWriter_MpiSend(w.w[2], NULL, 2, 1, 7, 9, 8);
	ret(&w, 2, TW_SEND, 3);
	call(&w, 0, TW_RECV, 4);
	OTF2_EvtWriter_MpiRecv(w.w[0], NULL, 5, 0, 7, 9, 8);
	ret(&w, 0, TW_RECV, 6);
	/* The same tag on the world communicator is another stream. */
	call(&w, 1, TW_SEND, 7);
	OTF2_EvtWriter_MpiSend(w.w[1], NULL, 8, 0, 0, 9, 8);
	ret(&w, 1, TW_SEND, 9);
	cr_assert_eq(tw_close(&w), 0);

	cr_assert_eq(messages(MT_CLOCK_MODE_NONE, &csv, &err), MT_OK, "%s", err.msg);
	has_line(csv, "2,0,7,0,9,user,8,1000000000002,1000000000003,"
		 "1000000000004,1000000000005,matched\n");
	has_line(csv, "1,0,0,1,9,user,8,1000000000008,1000000000009,,,unmatched_send\n");
	free(csv);
}

#define SKEW 1000000000ull	/* rank 1's clock runs 1 s ahead */
#define LAT 5000ull		/* one way, true */

/* The matched messages of csv (*n): how many took not between 0 and
 * twice the true latency LAT from send post to receive completion. */
static unsigned latencies(char *csv, unsigned *n);

/* Two hosts, rank 1's clock 1 s ahead: as recorded, replies arrive
 * before they were sent; corrected (the hosts are two clock domains),
 * every message takes about its true latency. */
Test(otf2in, two_hosts_skewed_clocks_corrected)
{
	struct tw w;
	struct mt_err err;
	char *csv;
	unsigned n = 0;

	cr_assert_eq(tw_open(&w, dir, 2), 0);
	w.host[0] = "a";
	w.host[1] = "b";
	for (uint64_t i = 0, t = 1000; i < 20; i++, t += 100000) {
		call(&w, 0, TW_SEND, t);
		OTF2_EvtWriter_MpiSend(w.w[0], NULL, t + 1, 1, 0, 1, 8);
		ret(&w, 0, TW_SEND, t + 2);
		call(&w, 1, TW_RECV, SKEW + t - 1000);
		OTF2_EvtWriter_MpiRecv(w.w[1], NULL, SKEW + t + 1 + LAT, 0, 0, 1, 8);
		ret(&w, 1, TW_RECV, SKEW + t + 2 + LAT);
		call(&w, 1, TW_SEND, SKEW + t + 3 + LAT);
		OTF2_EvtWriter_MpiSend(w.w[1], NULL, SKEW + t + 4 + LAT, 0, 0, 2, 8);
		ret(&w, 1, TW_SEND, SKEW + t + 5 + LAT);
		call(&w, 0, TW_RECV, t + 3);
		OTF2_EvtWriter_MpiRecv(w.w[0], NULL, t + 4 + 2 * LAT, 1, 0, 2, 8);
		ret(&w, 0, TW_RECV, t + 5 + 2 * LAT);
	}
	cr_assert_eq(tw_close(&w), 0);

	cr_assert_eq(messages(MT_CLOCK_MODE_NONE, &csv, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(latencies(csv, &n), 40);	/* all of them, as recorded */
	cr_assert_eq(n, 40);
	free(csv);
	cr_assert_eq(messages(MT_CLOCK_MODE_AUTO, &csv, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(latencies(csv, &n), 0);
	cr_assert_eq(n, 40);
	free(csv);
}

static unsigned latencies(char *csv, unsigned *n)
{
	unsigned bad = 0;
	char *p = strchr(csv, '\n') + 1;

	*n = 0;
	for (char *e; (e = strchr(p, '\n')); p = e + 1, (*n)++) {
		unsigned long long sp, sd, rp, rd;

		cr_assert_eq(sscanf(p, "%*[^,],%*[^,],%*[^,],%*[^,],%*[^,],user,8,"
				    "%llu,%llu,%llu,%llu,matched", &sp, &sd, &rp, &rd),
			     4, "%.*s", (int)(e - p), p);
		bad += rd < sp || rd - sp > 2 * LAT;
	}
	return bad;
}

static void small_archive(void)
{
	struct tw w;

	cr_assert_eq(tw_open(&w, dir, 2), 0);
	for (uint64_t t = 1; t < 4000; t += 4) {
		call(&w, 0, TW_SEND, t);
		OTF2_EvtWriter_MpiSend(w.w[0], NULL, t + 1, 1, 0, 1, 8);
		ret(&w, 0, TW_SEND, t + 2);
		call(&w, 1, TW_RECV, t);
		OTF2_EvtWriter_MpiRecv(w.w[1], NULL, t + 2, 0, 0, 1, 8);
		ret(&w, 1, TW_RECV, t + 3);
	}
	cr_assert_eq(tw_close(&w), 0);
}

static void cut(const char *file, long keep)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	cr_assert_eq(truncate(path, keep), 0, "%s", path);
}

/* A truncated event file: an error naming the archive. */
Test(otf2in, truncated_events_named)
{
	struct mt_err err;
	char *csv;

	small_archive();
	cut("traces/1.evt", 100);
	cr_assert_neq(messages(MT_CLOCK_MODE_NONE, &csv, &err), MT_OK);
	cr_assert(strstr(err.msg, "traces.otf2") || strstr(notes, "traces.otf2"),
		  "%s / %s", err.msg, notes);
	free(csv);
}

/* A malformed anchor or definitions file: an error naming the file. */
Test(otf2in, malformed_archive_named)
{
	struct mt_err err;
	char *csv;

	small_archive();
	cut("traces.def", 20);
	cr_assert_eq(messages(MT_CLOCK_MODE_NONE, &csv, &err), MT_ERR_CORRUPT);
	cr_assert_not_null(strstr(err.msg, "traces.otf2"), "%s", err.msg);
	free(csv);
	cut("traces.otf2", 10);
	cr_assert_eq(messages(MT_CLOCK_MODE_NONE, &csv, &err), MT_ERR_CORRUPT);
	cr_assert_not_null(strstr(err.msg, "traces.otf2"), "%s", err.msg);
	free(csv);
}
