/*
 * otf2_defs.c - the OTF2 export's definitions, written once every event is
 * out (see sink_otf2.h): clock properties (1 ns resolution, merged trace
 * clock), a system tree of the host names, one location group per process
 * (rank), with what time its trace covers as its properties, and one
 * location per traced thread, the fabric operation regions,
 * the MPI_COMM_WORLD locations group and one communicator per (job, cid)
 * seen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink_otf2.h"

static const char *const phase_name[PH_COUNT] = {
	[PH_SEND] = "fi_tsend", [PH_SEND_DONE] = "send completion",
	[PH_RECV] = "fi_trecv", [PH_RECV_DONE] = "recv completion",
	[PH_CANCEL] = "cancelled",
};

int mt_sink_otf2_check(const struct otf2_out *o, OTF2_ErrorCode e,
		       const char *what)
{
	if (e == OTF2_SUCCESS)
		return 0;
	if (!o->err->msg[0])
		mt_err_set(o->err, MT_ERR_IO, "OTF2 %s: %s (%s)", what,
			   OTF2_Error_GetName(e), OTF2_Error_GetDescription(e));
	return -1;
}

struct defs {
	const struct otf2_out *o;
	OTF2_GlobalDefWriter *w;
	OTF2_StringRef next;
	int rc;
};

/* Defines text as the next string; failures stick in d->rc. */
static OTF2_StringRef str(struct defs *d, const char *text)
{
	if (!d->rc)
		d->rc = mt_sink_otf2_check(d->o,
			OTF2_GlobalDefWriter_WriteString(d->w, d->next, text),
			"string definition");
	return d->next++;
}

static void check(struct defs *d, OTF2_ErrorCode e, const char *what)
{
	if (!d->rc)
		d->rc = mt_sink_otf2_check(d->o, e, what);
}

/* System tree: the machine, then one node per distinct host name. */
static void system_tree(struct defs *d, const struct mt_trace *t,
			OTF2_SystemTreeNodeRef *node_of_proc)
{
	OTF2_SystemTreeNodeRef n = 1;

	check(d, OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, 0,
		str(d, "msgtrace run"), str(d, "machine"),
		OTF2_UNDEFINED_SYSTEM_TREE_NODE), "system tree");
	for (size_t p = 0; p < t->nprocs; p++) {
		size_t q;

		for (q = 0; q < p && strcmp(t->procs[q].host, t->procs[p].host); q++)
			;
		if (q < p) {
			node_of_proc[p] = node_of_proc[q];
			continue;
		}
		node_of_proc[p] = n;
		check(d, OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, n++,
			str(d, t->procs[p].host[0] ? t->procs[p].host : "(unknown host)"),
			str(d, "node"), 0), "system tree");
	}
}

/* Names of the properties spans() gives each process. */
enum { SPAN_TEXT, SPAN_FIRST, SPAN_LAST, SPAN_WINDOW, SPAN_START,
       SPAN_OVERWRITTEN, SPAN_ENDED, SPAN_LOST, SPAN_PROPS };
static const char *const span_prop[SPAN_PROPS] = {
	"msgtrace::span", "msgtrace::first_ns", "msgtrace::last_ns",
	"msgtrace::window", "msgtrace::window_start_ns", "msgtrace::overwritten",
	"msgtrace::ended_early", "msgtrace::lost",
};

/* What time process p's trace covers, as properties of its location
 * group: in words (s after the run's first record), and first and last
 * record in ns on the merged clock, whether it is a window (ring: records
 * overwritten before it) and where its records start (the window's start,
 * else the first record), whether it ends early (records lost after it). */
static void prop(struct defs *d, size_t p, OTF2_StringRef name, OTF2_Type type,
		 OTF2_AttributeValue a)
{
	check(d, OTF2_GlobalDefWriter_WriteLocationGroupProperty(d->w, p, name,
		type, a), "location group property");
}

static void spans(struct defs *d, const struct otf2_out *o, size_t p,
		  const OTF2_StringRef *names)
{
	struct mt_sink_span sp;
	char text[192];
	OTF2_AttributeValue a;

	mt_sink_proc_span(&o->run->trace->procs[p], &sp);
	a.stringRef = str(d, mt_sink_span_text(&sp, o->run->t0_ns, text, sizeof(text)));
	prop(d, p, names[SPAN_TEXT], OTF2_TYPE_STRING, a);
	a.int64 = sp.first_ns;
	prop(d, p, names[SPAN_FIRST], OTF2_TYPE_INT64, a);
	a.int64 = sp.last_ns;
	prop(d, p, names[SPAN_LAST], OTF2_TYPE_INT64, a);
	a.uint8 = (uint8_t)sp.wrapped;
	prop(d, p, names[SPAN_WINDOW], OTF2_TYPE_UINT8, a);
	a.int64 = mt_sink_span_start(&sp);
	prop(d, p, names[SPAN_START], OTF2_TYPE_INT64, a);
	a.uint64 = sp.overwritten;
	prop(d, p, names[SPAN_OVERWRITTEN], OTF2_TYPE_UINT64, a);
	a.uint8 = (uint8_t)sp.ended;
	prop(d, p, names[SPAN_ENDED], OTF2_TYPE_UINT8, a);
	a.uint64 = sp.lost;
	prop(d, p, names[SPAN_LOST], OTF2_TYPE_UINT64, a);
}

static void locations(struct defs *d, const struct otf2_out *o,
		      const OTF2_SystemTreeNodeRef *node_of_proc)
{
	const struct mt_trace *t = o->run->trace;
	OTF2_StringRef names[SPAN_PROPS];

	for (int i = 0; i < SPAN_PROPS; i++)
		names[i] = str(d, span_prop[i]);
	for (size_t p = 0; p < t->nprocs; p++) {
		const struct mt_trace_proc *pr = &t->procs[p];
		char label[96], name[160];

		mt_sink_tracks_proc_label(t, pr, label, sizeof(label));
		check(d, OTF2_GlobalDefWriter_WriteLocationGroup(d->w, p,
			str(d, label), OTF2_LOCATION_GROUP_TYPE_PROCESS,
			node_of_proc[p], OTF2_UNDEFINED_LOCATION_GROUP),
		      "location group");
		spans(d, o, p, names);
		for (size_t f = 0; f < pr->nfiles; f++) {
			size_t l = o->tr.first[p] + f;

			snprintf(name, sizeof(name), "%s thread %u (tid %u)", label,
				 pr->files[f]->hdr->thread_seq, pr->files[f]->hdr->tid);
			check(d, OTF2_GlobalDefWriter_WriteLocation(d->w, l,
				str(d, name), OTF2_LOCATION_TYPE_CPU_THREAD,
				o->nevents[l], p), "location");
		}
		for (size_t i = 0; i < o->ncall_locs; i++)
			if (o->call_rank[i] == (int32_t)p) {
				snprintf(name, sizeof(name), "%s MPI calls", label);
				check(d, OTF2_GlobalDefWriter_WriteLocation(d->w,
					o->tr.nthreads + i, str(d, name),
					OTF2_LOCATION_TYPE_CPU_THREAD, o->call_events[i],
					p), "location");
			}
	}
}

static void regions(struct defs *d, const struct otf2_out *o)
{
	char name[64];

	for (unsigned ph = 0; ph < PH_COUNT; ph++)
		for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++) {
			OTF2_StringRef s;

			snprintf(name, sizeof(name), "%s [%s]", phase_name[ph],
				 mt_match_kind_str(k));
			s = str(d, name);
			check(d, OTF2_GlobalDefWriter_WriteRegion(d->w,
				OTF2_REGION(ph, k), s, s, s,
				OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI,
				OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0),
			      "region");
		}
	for (uint32_t i = 0; i < o->ncall_names; i++) {
		OTF2_StringRef s = str(d, o->call_name[i]);

		check(d, OTF2_GlobalDefWriter_WriteRegion(d->w, OTF2_NREGIONS + i,
			s, s, s, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
			OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0, 0), "region");
	}
}

/*
 * "MPI_COMM_WORLD (cid 0)", "cid 3" or "unknown communicator" for the first
 * job's communicators as ever; another job's say which ("job 1 cid 3",
 * "MPI_COMM_WORLD of job 1 (cid 0)"), one whose members span jobs (an
 * intercommunicator) says all of them ("jobs 0-1 cid 3").
 */
static void comm_name(char *name, size_t len, const struct mt_trace *t,
		      const struct otf2_comm *cm)
{
	uint32_t hi = cm->job;
	char jobs[32] = "";

	for (uint32_t i = 0; i < cm->n; i++)
		if (t->procs[cm->member[i]].job > hi)
			hi = t->procs[cm->member[i]].job;
	if (hi > cm->job)
		snprintf(jobs, sizeof(jobs), "jobs %u-%u ", cm->job, hi);
	else if (cm->job)
		snprintf(jobs, sizeof(jobs), "job %u ", cm->job);

	if (cm->cid == 0 && !jobs[0])
		snprintf(name, len, "MPI_COMM_WORLD (cid 0)");
	else if (cm->cid == 0)
		snprintf(name, len, "MPI_COMM_WORLD of %s(cid 0)", jobs);
	else if (cm->cid < 0)
		snprintf(name, len, "%sunknown communicator", jobs);
	else
		snprintf(name, len, "%scid %lld", jobs, (long long)cm->cid);
}

/* Group 0: MPI_COMM_WORLD's locations, one per process in rank order (the
 * thread of its first endpoint). Then one group and comm per (job, cid),
 * and in a joined export the MPI calls' communicator. */
static void comms(struct defs *d, const struct otf2_out *o)
{
	const struct mt_trace *t = o->run->trace;
	uint64_t *loc = calloc(t->nprocs + 1, sizeof(*loc));
	uint64_t *mem = NULL;
	uint32_t most = 0;

	if (!loc) {
		d->rc = -1;
		return;
	}
	for (size_t p = 0; p < t->nprocs; p++)
		loc[p] = o->tr.first[p];
	for (size_t e = t->neps; e-- > 0;)
		loc[t->eps[e].proc] = mt_sink_tracks_thread_of_ep(&o->tr, (int32_t)e);
	check(d, OTF2_GlobalDefWriter_WriteGroup(d->w, 0, str(d, "MPI_COMM_WORLD locations"),
		OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
		OTF2_GROUP_FLAG_NONE, (uint32_t)t->nprocs, loc), "locations group");
	for (uint32_t c = 0; c < o->ncomm; c++)
		most = o->comm[c].n > most ? o->comm[c].n : most;
	mem = calloc(most + 1, sizeof(*mem));
	for (uint32_t c = 0; mem && c < o->ncomm; c++) {
		const struct otf2_comm *cm = &o->comm[c];
		char name[80];
		/* beside the MPI calls' communicator, the fabric's say so */
		int pre = o->join ? snprintf(name, sizeof(name), "fabric: ") : 0;
		OTF2_StringRef s;

		for (uint32_t i = 0; i < cm->n; i++)
			mem[i] = (uint64_t)cm->member[i];
		comm_name(name + pre, sizeof(name) - (size_t)pre, t, cm);
		s = str(d, name);
		check(d, OTF2_GlobalDefWriter_WriteGroup(d->w, c + 1, s,
			OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
			OTF2_GROUP_FLAG_NONE, cm->n, mem), "communicator group");
		check(d, OTF2_GlobalDefWriter_WriteComm(d->w, c, s, c + 1,
			OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE), "communicator");
	}
	if (o->join) {	/* the MPI calls' point-to-point events: world ranks */
		OTF2_StringRef s = str(d, "MPI calls: world ranks");

		for (size_t p = 0; p < t->nprocs; p++)
			loc[p] = p;
		check(d, OTF2_GlobalDefWriter_WriteGroup(d->w, o->ncomm + 1, s,
			OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
			OTF2_GROUP_FLAG_NONE, (uint32_t)t->nprocs, loc),
		      "communicator group");
		check(d, OTF2_GlobalDefWriter_WriteComm(d->w, o->ncomm, s,
			o->ncomm + 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE),
		      "communicator");
	}
	if (!mem)
		d->rc = -1;
	free(mem);
	free(loc);
}

/* The attributes of sink_otf2.c; status strings take refs 0.. so that an
 * event's status is its own string ref, and the kind names follow. */
static void attributes(struct defs *d)
{
	for (unsigned s = 0; s < MT_MATCH_ST_COUNT; s++)
		str(d, mt_match_status_str(s));
	str(d, "pending");	/* OTF2_STATUS_PENDING */
	for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)
		str(d, mt_match_kind_str(k));	/* OTF2_KIND_STR(k) */
	/* Refs ATTR_STATUS .. ATTR_COMM, in order (ATTR_SITE: sites()). */
	static const struct { const char *name, *what; OTF2_Type type; } attr[] = {
		[ATTR_STATUS] = { "status",
			"msgtrace pairing outcome of the message", OTF2_TYPE_STRING },
		[ATTR_RECV_BUF] = { "recv_buf", "bytes the receive had posted (on "
			"its request; elsewhere: a truncated message)", OTF2_TYPE_UINT64 },
		[ATTR_KIND] = { "msgtrace::kind",
			"message kind (msgtrace messages --help)", OTF2_TYPE_STRING },
		[ATTR_CID] = { "msgtrace::cid",
			"communicator id on the fabric, -1: unknown", OTF2_TYPE_INT64 },
		[ATTR_COMM_SRC] = { "msgtrace::comm_src",
			"sender's rank in the communicator, -1: unknown", OTF2_TYPE_INT32 },
		[ATTR_FLAGS] = { "msgtrace::flags",
			"1: internal tag, 2: tag known, 4: any source", OTF2_TYPE_UINT8 },
		[ATTR_TAG] = { "msgtrace::tag",
			"MPI tag a receive was posted for", OTF2_TYPE_INT32 },
		[ATTR_PEER] = { "msgtrace::peer",
			"world rank a receive was posted for, -1: any", OTF2_TYPE_INT32 },
		[ATTR_COMM] = { "msgtrace::comm",
			"communicator a receive was posted on", OTF2_TYPE_COMM },
	};

	for (unsigned a = 0; a < sizeof(attr) / sizeof(attr[0]); a++)
		check(d, OTF2_GlobalDefWriter_WriteAttribute(d->w, a,
			str(d, attr[a].name), str(d, attr[a].what), attr[a].type),
			"attribute");
}

/* Call sites, when the trace has them: SourceCodeLocation n - 1 for site n
 * (file and line; without debug information, the text "object+0xOFF
 * (function) via MPI_Recv" and line 0), and the attribute naming them. */
static void sites(struct defs *d, const struct mt_trace *t)
{
	struct mt_sym *sym = mt_sink_sym(t);

	if (!sym)
		return;
	check(d, OTF2_GlobalDefWriter_WriteAttribute(d->w, ATTR_SITE,
		str(d, "call_site"), str(d, "where the application called MPI"),
		OTF2_TYPE_SOURCE_CODE_LOCATION), "attribute");
	for (uint32_t n = 1; n <= t->nsites; n++) {
		const struct mt_sym_loc *l = mt_sym_site(sym, n);

		check(d, OTF2_GlobalDefWriter_WriteSourceCodeLocation(d->w, n - 1,
			str(d, l && l->line ? l->file : l ? l->text : "?"),
			l ? l->line : 0), "source code location");
	}
	mt_sym_free(sym);
}

/* OTF2 readers expect a (here empty) local definition file per location. */
static int local_defs(const struct otf2_out *o)
{
	if (mt_sink_otf2_check(o, OTF2_Archive_OpenDefFiles(o->ar),
			       "definition files"))
		return -1;
	for (size_t l = 0; l < o->tr.nthreads + o->ncall_locs; l++) {
		OTF2_DefWriter *w = OTF2_Archive_GetDefWriter(o->ar, l);

		if (!w || mt_sink_otf2_check(o, OTF2_Archive_CloseDefWriter(o->ar, w),
					     "local definitions"))
			return -1;
	}
	return mt_sink_otf2_check(o, OTF2_Archive_CloseDefFiles(o->ar),
				  "definition files");
}

int mt_sink_otf2_defs(struct otf2_out *o)
{
	const struct mt_trace *t = o->run->trace;
	struct defs d = { .o = o, .w = OTF2_Archive_GetGlobalDefWriter(o->ar) };
	OTF2_SystemTreeNodeRef *node = calloc(t->nprocs + 1, sizeof(*node));
	uint64_t t0 = o->t_min == UINT64_MAX ? 0 : o->t_min;

	if (!d.w || !node) {
		mt_err_set(o->err, MT_ERR_IO, "cannot write the OTF2 definitions");
		free(node);
		return -1;
	}
	check(&d, OTF2_GlobalDefWriter_WriteClockProperties(d.w, 1000000000ull,
		t0, o->t_max >= t0 ? o->t_max - t0 + 1 : 1,
		OTF2_UNDEFINED_TIMESTAMP), "clock properties");
	attributes(&d);
	system_tree(&d, t, node);
	locations(&d, o, node);
	regions(&d, o);
	comms(&d, o);
	sites(&d, t);
	free(node);
	if (!d.rc)
		d.rc = mt_sink_otf2_check(o, OTF2_Archive_CloseGlobalDefWriter(o->ar,
									   d.w),
					  "global definitions");
	return d.rc ? -1 : local_defs(o);
}
