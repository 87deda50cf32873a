/*
 * bench_otf2.c - reading and matching an OTF2 archive (the OTF2 front
 * end: mt_pipe_run with times as recorded into a sink that drops the
 * messages) against libotf2 alone reading the same archive with
 * callbacks that do nothing, alternated in one run. Times are this
 * thread's CPU time: events per second per core.
 *
 *   bench_otf2 ARCHIVE [ROUNDS]
 *
 * Prints each round's events/s of both and the median ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <otf2/otf2.h>

#include "mt_pipe.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t nlocs;
static OTF2_LocationRef locs[4096];

static OTF2_CallbackCode def_loc(void *arg, OTF2_LocationRef self, OTF2_StringRef name,
				 OTF2_LocationType type, uint64_t events,
				 OTF2_LocationGroupRef lg)
{
	(void)arg, (void)name, (void)type, (void)events, (void)lg;
	if (nlocs < sizeof(locs) / sizeof(*locs))
		locs[nlocs++] = self;
	return OTF2_CALLBACK_SUCCESS;
}

/* The do-nothing callbacks, one per signature. */
static OTF2_CallbackCode nop_region(OTF2_LocationRef l, OTF2_TimeStamp t, void *a,
				    OTF2_AttributeList *al, OTF2_RegionRef r)
{
	(void)l, (void)t, (void)a, (void)al, (void)r;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode nop_req(OTF2_LocationRef l, OTF2_TimeStamp t, void *a,
				 OTF2_AttributeList *al, uint64_t req)
{
	(void)l, (void)t, (void)a, (void)al, (void)req;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode nop_p2p(OTF2_LocationRef l, OTF2_TimeStamp t, void *a,
				 OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
				 uint32_t tag, uint64_t len)
{
	(void)l, (void)t, (void)a, (void)al, (void)peer, (void)c, (void)tag, (void)len;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode nop_ip2p(OTF2_LocationRef l, OTF2_TimeStamp t, void *a,
				  OTF2_AttributeList *al, uint32_t peer, OTF2_CommRef c,
				  uint32_t tag, uint64_t len, uint64_t req)
{
	(void)l, (void)t, (void)a, (void)al, (void)peer, (void)c, (void)tag, (void)len;
	(void)req;
	return OTF2_CALLBACK_SUCCESS;
}

/* libotf2 alone: events read, *secs its CPU time. */
static uint64_t bare(const char *anchor, double *secs)
{
	double t = now();
	OTF2_Reader *rd = OTF2_Reader_Open(anchor);
	OTF2_GlobalDefReader *gd;
	OTF2_GlobalDefReaderCallbacks *dcb = OTF2_GlobalDefReaderCallbacks_New();
	OTF2_GlobalEvtReaderCallbacks *cb = OTF2_GlobalEvtReaderCallbacks_New();
	OTF2_GlobalEvtReader *ger;
	uint64_t n = 0;

	if (!rd || OTF2_Reader_SetSerialCollectiveCallbacks(rd) ||
	    !(gd = OTF2_Reader_GetGlobalDefReader(rd))) {
		fprintf(stderr, "bench_otf2: libotf2 cannot open %s\n", anchor);
		exit(1);
	}
	nlocs = 0;
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dcb, def_loc);
	OTF2_Reader_RegisterGlobalDefCallbacks(rd, gd, dcb, NULL);
	OTF2_Reader_ReadAllGlobalDefinitions(rd, gd, &n);
	OTF2_Reader_CloseGlobalDefReader(rd, gd);
	for (uint64_t i = 0; i < nlocs; i++)
		OTF2_Reader_SelectLocation(rd, locs[i]);
	OTF2_Reader_OpenEvtFiles(rd);
	for (uint64_t i = 0; i < nlocs; i++)
		OTF2_Reader_GetEvtReader(rd, locs[i]);
	ger = OTF2_Reader_GetGlobalEvtReader(rd);
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, nop_region);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, nop_region);
	OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, nop_p2p);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, nop_p2p);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, nop_ip2p);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, nop_ip2p);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, nop_req);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, nop_req);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, nop_req);
	OTF2_Reader_RegisterGlobalEvtCallbacks(rd, ger, cb, NULL);
	OTF2_Reader_ReadGlobalEvents(rd, ger, OTF2_UNDEFINED_UINT64, &n);
	OTF2_Reader_CloseGlobalEvtReader(rd, ger);
	OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	OTF2_GlobalDefReaderCallbacks_Delete(dcb);
	OTF2_Reader_Close(rd);
	*secs = now() - t;
	return n;
}

static enum mt_status null_init(void **state, FILE *out, const struct mt_run *run,
				struct mt_err *err)
{
	(void)state, (void)out, (void)run, (void)err;
	return MT_OK;
}

static enum mt_status null_consume(void *state, const struct mt_match_msg *b,
				   size_t n, struct mt_err *err)
{
	(void)state, (void)b, (void)n, (void)err;
	return MT_OK;
}

static uint64_t events;

static enum mt_status null_finalize(void *state, const struct mt_run *run,
				    const struct mt_match_summary *sum, struct mt_err *err)
{
	(void)state, (void)sum, (void)err;
	events = run->events;
	return MT_OK;
}

static const struct mt_sink_ops null_sink = {
	.key = "null", .name = "null", .init = null_init, .consume = null_consume,
	.finalize = null_finalize,
};

/* msgtrace: events read and matched, *secs its CPU time. */
static uint64_t matched(const char *anchor, double *secs)
{
	const char *paths[] = { anchor };
	struct mt_pipe_opts o = { .paths = paths, .npaths = 1,
				  .layout = MT_TAG_LAYOUT_NONE,
				  .clock = MT_CLOCK_MODE_NONE };
	struct mt_err err = { { 0 } };
	double t = now();

	if (mt_pipe_run(&o, &null_sink, stdout, &err)) {
		fprintf(stderr, "bench_otf2: %s\n", err.msg);
		exit(1);
	}
	*secs = now() - t;
	return events;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	double ratio[64];

	if (argc < 2 || rounds < 1 || rounds > 64) {
		fprintf(stderr, "usage: bench_otf2 ARCHIVE.otf2 [ROUNDS <= 64]\n");
		return 2;
	}
	for (int r = 0; r < rounds; r++) {
		double tb, tm;
		uint64_t nb = bare(argv[1], &tb), nm = matched(argv[1], &tm);

		if (nb != nm) {
			fprintf(stderr, "bench_otf2: libotf2 read %llu events, msgtrace %llu\n",
				(unsigned long long)nb, (unsigned long long)nm);
			return 1;
		}
		ratio[r] = (nm / tm) / (nb / tb);
		printf("round %d: %llu events, libotf2 alone %.2f M/s, read + match "
		       "%.2f M/s, ratio %.3f\n", r + 1, (unsigned long long)nb,
		       nb / tb / 1e6, nm / tm / 1e6, ratio[r]);
	}
	qsort(ratio, (size_t)rounds, sizeof(*ratio), by_value);
	printf("OTF2_RATIO %.3f (median of %d, read + match over libotf2 alone)\n",
	       ratio[rounds / 2], rounds);
	return 0;
}
