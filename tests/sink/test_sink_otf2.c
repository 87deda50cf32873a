/*
 * test_sink_otf2.c - the OTF2 export sink (sink/sink_otf2.c, otf2_defs.c)
 * on messages built here, read back with otf2-print: an operation posted
 * long before it completes (more than the reorder window of its location)
 * still yields times that never decrease, also across buffer flushes (no
 * BufferFlush records); cancelled receives end with
 * MpiRequestCancelled; negative tags become their two's complement.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt_sink.h"

#define NMSG 70000		/* more events per location than the window */

/* Two processes, one thread each, one endpoint each: the least a trace
 * needs for the sink's locations. */
static struct mt_file_hdr hdr[2];
static struct mt_rec_ep ep_rec[2];
static struct mt_trace_file file[2];
static struct mt_trace_file *files[2][1];
static struct mt_trace_proc procs[2];
static struct mt_trace_ep eps[2];
static struct mt_trace trace;
static struct mt_run run;
static char dir[64];

static void setup(void)
{
	for (int p = 0; p < 2; p++) {
		hdr[p].tid = 100 + (uint32_t)p;
		file[p].hdr = &hdr[p];
		file[p].map = (const uint8_t *)&ep_rec[p];
		file[p].map_len = sizeof(ep_rec[p]);
		files[p][0] = &file[p];
		snprintf(procs[p].host, sizeof(procs[p].host), "node%d", p);
		procs[p].world_rank = p;
		procs[p].files = files[p];
		procs[p].nfiles = 1;
		eps[p].proc = (uint32_t)p;
		eps[p].rec = &ep_rec[p];
	}
	trace.procs = procs;
	trace.nprocs = 2;
	trace.eps = eps;
	trace.neps = 2;
	run.trace = &trace;
	run.nranks = 2;
	snprintf(dir, sizeof(dir), "/tmp/test_sink_otf2.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	rmdir(dir);		/* the sink creates it */
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

static struct mt_match_msg msg(uint64_t t, int32_t tag, uint8_t status)
{
	struct mt_match_msg m = {
		.send_rank = 0, .recv_rank = 1, .send_ep = 0, .recv_ep = 1,
		.f = { .cid = 0, .comm_src = 0, .tag = tag, .has_tag = 1 },
		.status = status, .bytes = 8, .recv_buf = 8,
		.t_send_post = t, .t_send_done = t + 1,
		.t_recv_post = t + 2, .t_recv_done = t + 3,
	};
	return m;
}

/* Runs otf2-print on the archive; returns its output (caller frees). */
static char *print_archive(void)
{
	char cmd[160], *buf = NULL;
	size_t len = 0, n;
	char chunk[65536];
	FILE *in, *out = open_memstream(&buf, &len);

	snprintf(cmd, sizeof(cmd), "otf2-print '%s/traces.otf2' 2>&1", dir);
	cr_assert_not_null(in = popen(cmd, "r"), "otf2-print (otf2-tools) runs");
	while ((n = fread(chunk, 1, sizeof(chunk), in)))
		fwrite(chunk, 1, n, out);
	cr_assert_eq(pclose(in), 0, "otf2-print reads the archive");
	fclose(out);
	return buf;
}

static size_t lines_starting(const char *text, const char *word)
{
	size_t n = 0, w = strlen(word);

	for (const char *p = text; p; p = strchr(p, '\n')) {
		p += *p == '\n';
		n += !strncmp(p, word, w) && p[w] == ' ';
	}
	return n;
}

/* Each location's record times never decrease (equal times stay equal, so
 * that the archive reads back as exported; one assertion: each Criterion
 * assertion is a message to the runner). */
static void expect_nondecreasing(const char *text)
{
	uint64_t last[2] = { 0, 0 };
	char line[96], name[64], bad[160] = "";
	unsigned loc;
	unsigned long long ts;

	for (const char *p = text; p && !bad[0]; p = strchr(p, '\n')) {
		p += *p == '\n';
		/* sscanf on the whole text would measure all of it per line. */
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
		if (sscanf(line, "%63s %u %llu", name, &loc, &ts) != 3 || loc > 1 ||
		    name[0] < 'A' || name[0] > 'Z')
			continue;
		if (ts < last[loc])
			snprintf(bad, sizeof(bad), "location %u: %llu after %llu", loc,
				 ts, (unsigned long long)last[loc]);
		last[loc] = ts;
	}
	cr_expect(!bad[0], "%s", bad);
	cr_expect(last[0] && last[1], "both locations have events");
}

TestSuite(sink_otf2, .init = setup, .fini = teardown);

Test(sink_otf2, late_post_cancel_and_negative_tag)
{
	void *st = dir;
	struct mt_match_summary sum = { 0 };
	struct mt_match_msg m;
	struct mt_err err = { { 0 } };
	char *text;

	cr_assert_eq(mt_sink_otf2.init(&st, stdout, &run, &err), MT_OK, "%s", err.msg);
	for (uint64_t i = 0; i < NMSG; i++) {
		m = msg(1000000 + 10 * i, 5, MT_MATCH_ST_MATCHED);
		cr_assert_eq(mt_sink_otf2.consume(st, &m, 1, &err), MT_OK);
	}
	/* Received at the end, its receive posted before everything else. */
	m = msg(1000000 + 10 * NMSG, -16, MT_MATCH_ST_MATCHED);
	m.t_recv_post = 10;
	cr_assert_eq(mt_sink_otf2.consume(st, &m, 1, &err), MT_OK);
	m = msg(1000000 + 10 * NMSG + 100, 7, MT_MATCH_ST_CANCELLED);
	m.t_send_post = m.t_send_done = MT_MATCH_NOTIME;
	m.send_ep = -1;
	cr_assert_eq(mt_sink_otf2.consume(st, &m, 1, &err), MT_OK);
	cr_assert_eq(mt_sink_otf2.finalize(st, &run, &sum, &err), MT_OK,
		     "%s", err.msg);

	text = print_archive();
	cr_expect_eq(lines_starting(text, "MPI_ISEND"), NMSG + 1);
	cr_expect_eq(lines_starting(text, "MPI_IRECV"), NMSG + 1);
	cr_expect_eq(lines_starting(text, "MPI_IRECV_REQUEST"), NMSG + 2);
	cr_expect_eq(lines_starting(text, "MPI_REQUEST_CANCELLED"), 1);
	cr_expect(strstr(text, "Tag: 4294967280") != NULL, "-16 as 2^32 - 16");
	cr_expect(strstr(text, "\"cancelled\"") != NULL, "status attribute");
	cr_expect(strstr(text, "BUFFER_FLUSH") == NULL);
	expect_nondecreasing(text);
	free(text);
}
