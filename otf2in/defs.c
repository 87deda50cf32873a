/*
 * defs.c - the archive's definitions: strings, the system tree, location
 * groups and locations (processes and their threads), the MPI groups and
 * communicators (each rank of each communicator resolved to a location),
 * regions, the clock properties and each location's clock offsets; then
 * the trace description the sinks read (struct mt_trace).
 *
 * Definitions may repeat and come out of order (EZTrace 2.0 writes each
 * process's own): the first definition of a reference wins, and references
 * are resolved once all are read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otf2in_int.h"

long mt_otf2in_push(void **arr, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *p = realloc(*arr, c * elem);

		if (!p)
			return -1;
		*arr = p;
		*cap = c;
	}
	memset((char *)*arr + *n * elem, 0, elem);
	return (long)(*n)++;
}

#define PUSH(in, a) mt_otf2in_push((void **)&(in)->a, &(in)->n##a, &(in)->cap_##a, sizeof(*(in)->a))

static OTF2_CallbackCode nomem(struct mt_otf2in *in)
{
	in->fail = MT_ERR_NOMEM;
	return OTF2_CALLBACK_INTERRUPT;
}

static OTF2_CallbackCode def_clock(void *arg, uint64_t resolution, uint64_t offset,
				   uint64_t length, uint64_t realtime)
{
	struct mt_otf2in *in = arg;

	(void)realtime;
	in->resolution = resolution;
	in->offset = offset;
	in->length = length;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *arg, OTF2_StringRef self, const char *s)
{
	struct mt_otf2in *in = arg;
	long i;

	if (mt_otf2in_map_get(&in->str_map, self) != OI_NONE)
		return OTF2_CALLBACK_SUCCESS;
	if ((i = PUSH(in, str)) < 0 || !(in->str[i] = strdup(s)) ||
	    mt_otf2in_map_put(&in->str_map, self, (uint32_t)i))
		return nomem(in);
	mt_otf2in_def_kind(in, self, s);
	return OTF2_CALLBACK_SUCCESS;
}

const char *mt_otf2in_string(const struct mt_otf2in *in, uint32_t ref)
{
	uint32_t i = mt_otf2in_map_get(&in->str_map, ref);

	return i == OI_NONE ? "" : in->str[i];
}

static OTF2_CallbackCode def_stn(void *arg, OTF2_SystemTreeNodeRef self,
				 OTF2_StringRef name, OTF2_StringRef cls,
				 OTF2_SystemTreeNodeRef parent)
{
	struct mt_otf2in *in = arg;
	long i = PUSH(in, stn);

	(void)cls;
	if (i < 0)
		return nomem(in);
	in->stn[i].ref = self;
	in->stn[i].name = name;
	in->stn[i].parent = parent;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_lg(void *arg, OTF2_LocationGroupRef self,
				OTF2_StringRef name, OTF2_LocationGroupType type,
				OTF2_SystemTreeNodeRef stn, OTF2_LocationGroupRef creator)
{
	struct mt_otf2in *in = arg;
	long i;

	(void)creator;
	if (type != OTF2_LOCATION_GROUP_TYPE_PROCESS)
		return OTF2_CALLBACK_SUCCESS;
	for (size_t k = 0; k < in->nlg; k++)
		if (in->lg[k].ref == self)
			return OTF2_CALLBACK_SUCCESS;
	if ((i = PUSH(in, lg)) < 0)
		return nomem(in);
	in->lg[i].ref = self;
	in->lg[i].name = name;
	in->lg[i].stn = stn;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_loc(void *arg, OTF2_LocationRef self, OTF2_StringRef name,
				 OTF2_LocationType type, uint64_t events,
				 OTF2_LocationGroupRef lg)
{
	struct mt_otf2in *in = arg;
	long i;

	(void)type;
	for (size_t k = 0; k < in->nldef; k++)
		if (in->ldef[k].ref == self)
			return OTF2_CALLBACK_SUCCESS;
	if ((i = PUSH(in, ldef)) < 0)
		return nomem(in);
	in->ldef[i].ref = self;
	in->ldef[i].events = events;
	in->ldef[i].name = name;
	in->ldef[i].lg = lg;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *arg, OTF2_GroupRef self, OTF2_StringRef name,
				   OTF2_GroupType type, OTF2_Paradigm paradigm,
				   OTF2_GroupFlag flags, uint32_t n,
				   const uint64_t *members)
{
	struct mt_otf2in *in = arg;
	long i;

	(void)name;
	(void)flags;
	if (paradigm != OTF2_PARADIGM_MPI)
		return OTF2_CALLBACK_SUCCESS;
	if (type == OTF2_GROUP_TYPE_COMM_LOCATIONS) {
		if (in->world)		/* the first one */
			return OTF2_CALLBACK_SUCCESS;
		if (!(in->world = malloc((n ? n : 1) * sizeof(*in->world))))
			return nomem(in);
		memcpy(in->world, members, n * sizeof(*members));
		in->nworld = n;
		return OTF2_CALLBACK_SUCCESS;
	}
	if (type != OTF2_GROUP_TYPE_COMM_GROUP && type != OTF2_GROUP_TYPE_COMM_SELF)
		return OTF2_CALLBACK_SUCCESS;
	if (mt_otf2in_map_get(&in->group_map, self) != OI_NONE)
		return OTF2_CALLBACK_SUCCESS;
	if ((i = PUSH(in, groups)) < 0 ||
	    !(in->groups[i].members = malloc((n ? n : 1) * sizeof(*members))) ||
	    mt_otf2in_map_put(&in->group_map, self, (uint32_t)i))
		return nomem(in);
	memcpy(in->groups[i].members, members, n * sizeof(*members));
	in->groups[i].n = n;
	in->groups[i].self = type == OTF2_GROUP_TYPE_COMM_SELF;
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *arg, OTF2_CommRef self, OTF2_StringRef name,
				  OTF2_GroupRef group, OTF2_CommRef parent,
				  OTF2_CommFlag flags)
{
	struct mt_otf2in *in = arg;
	long i;

	(void)name;
	(void)parent;
	(void)flags;
	if (mt_otf2in_map_get(&in->comm_map, self) != OI_NONE)
		return OTF2_CALLBACK_SUCCESS;
	if ((i = PUSH(in, comms)) < 0 ||
	    mt_otf2in_map_put(&in->comm_map, self, (uint32_t)i))
		return nomem(in);
	in->comms[i].ref = self;
	in->comms[i].group = group;	/* a reference until resolved */
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *arg, OTF2_RegionRef self, OTF2_StringRef name,
				    OTF2_StringRef canonical, OTF2_StringRef descr,
				    OTF2_RegionRole role, OTF2_Paradigm paradigm,
				    OTF2_RegionFlag flags, OTF2_StringRef file,
				    uint32_t begin, uint32_t end)
{
	struct mt_otf2in *in = arg;
	long i;

	(void)canonical, (void)descr, (void)role, (void)paradigm, (void)flags;
	(void)file, (void)begin, (void)end;
	if (mt_otf2in_map_get(&in->region_map, self) != OI_NONE)
		return OTF2_CALLBACK_SUCCESS;
	if ((i = PUSH(in, regions)) < 0 ||
	    mt_otf2in_map_put(&in->region_map, self, (uint32_t)i))
		return nomem(in);
	in->regions[i].ref = self;
	in->regions[i].name = name;
	return OTF2_CALLBACK_SUCCESS;
}

/* A location's clock offset (local definitions): the first and the last
 * of its process become calibration pairs for the clock stage. */
struct clk_arg {
	struct mt_otf2in *in;
	uint32_t proc;
};

static OTF2_CallbackCode def_offset(void *arg, OTF2_TimeStamp time, int64_t offset,
				    double sd)
{
	struct clk_arg *a = arg;
	struct mt_otf2in *in = a->in;
	uint8_t *n = &in->ncal[a->proc];

	(void)sd;
	in->cal[a->proc][*n < 2 ? *n : 1].ns = mt_otf2in_ns(in, time);
	in->cal[a->proc][*n < 2 ? *n : 1].off = offset;
	*n += *n < 2;
	return OTF2_CALLBACK_SUCCESS;
}

static int by_ref_lg(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static enum mt_status corrupt(struct mt_otf2in *in, struct mt_err *err,
			      const char *what)
{
	return mt_err_set(err, MT_ERR_CORRUPT, "%s: not a usable OTF2 archive: %s",
			  in->path, what);
}

/* Processes by location group reference (the rank order), locations by
 * process then reference: dense indices. */
static enum mt_status number(struct mt_otf2in *in, struct mt_err *err)
{
	if (!in->nlg)		/* and no table to sort: qsort takes none */
		return corrupt(in, err, "no process (location group) is defined");
	qsort(in->lg, in->nlg, sizeof(*in->lg), by_ref_lg);
	if (!(in->loc = calloc(in->nldef ? in->nldef : 1, sizeof(*in->loc))))
		return MT_ERR_NOMEM;
	for (size_t g = 0; g < in->nlg; g++)
		for (size_t l = 0; l < in->nldef; l++) {
			if (in->ldef[l].lg != in->lg[g].ref)
				continue;
			struct oi_loc *lo = &in->loc[in->nloc];

			lo->ref = in->ldef[l].ref;
			lo->proc = (uint32_t)g;
			if (mt_otf2in_map_put(&in->loc_map, lo->ref, (uint32_t)in->nloc++))
				return MT_ERR_NOMEM;
		}
	if (!in->nloc)
		return corrupt(in, err, "no location of a process is defined");
	return MT_OK;
}

/* Each communicator's ranks to locations: comm group member -> rank in
 * the COMM_LOCATIONS group -> location. */
static enum mt_status resolve_comms(struct mt_otf2in *in)
{
	for (size_t c = 0; c < in->ncomms; c++) {
		struct oi_comm *cm = &in->comms[c];
		uint32_t g = mt_otf2in_map_get(&in->group_map, cm->group);
		const struct oi_group *gr = g == OI_NONE ? NULL : &in->groups[g];

		cm->group = g;
		cm->n = gr && !gr->self ? gr->n : 0;
		if (!(cm->loc = malloc((cm->n ? cm->n : 1) * sizeof(*cm->loc))))
			return MT_ERR_NOMEM;
		for (uint32_t r = 0; r < cm->n; r++) {
			uint64_t w = gr->members[r];
			uint32_t l = w < in->nworld ?
				mt_otf2in_map_get(&in->loc_map, in->world[w]) : OI_NONE;

			cm->loc[r] = l == OI_NONE ? -1 : (int32_t)l;
			if (l != OI_NONE &&
			    mt_otf2in_map_put(&in->src_map, (uint64_t)c << 32 | l, r + 1))
				return MT_ERR_NOMEM;
		}
	}
	return MT_OK;
}

/* The host of a process: its system tree node's name. */
static const char *host_of(const struct mt_otf2in *in, uint32_t stn)
{
	for (size_t i = 0; i < in->nstn; i++)
		if (in->stn[i].ref == stn)
			return mt_otf2in_string(in, in->stn[i].name);
	return "";
}

/* Location l as a thread of its process: a file of the trace description
 * (the archive), with no mapping and no records of its own. Locations
 * come grouped by process. */
static void thread(struct mt_otf2in *in, size_t l)
{
	struct mt_trace_file *f = &in->files[l];
	struct mt_trace_proc *pr = &in->procs[in->loc[l].proc];

	f->path = in->path;
	f->hdr = &f->hdr_snap;
	f->proc = in->loc[l].proc;
	f->index = (uint32_t)pr->nfiles;
	f->hdr_snap.thread_seq = (uint32_t)pr->nfiles;
	for (size_t d = 0; d < in->nldef; d++)
		if (in->ldef[d].ref == in->loc[l].ref)
			f->nrecs = in->ldef[d].events;
	in->file_ptrs[l] = f;
	if (!pr->nfiles++)
		pr->files = &in->file_ptrs[l];
}

static enum mt_status describe(struct mt_otf2in *in)
{
	struct mt_trace *t = &in->t;
	size_t np = in->nlg;

	in->procs = calloc(np, sizeof(*in->procs));
	in->clk = calloc(np * 2, sizeof(*in->clk));
	in->eps = calloc(in->nloc, sizeof(*in->eps));
	in->ep_recs = calloc(in->nloc, sizeof(*in->ep_recs));
	in->files = calloc(in->nloc, sizeof(*in->files));
	in->file_ptrs = calloc(in->nloc, sizeof(*in->file_ptrs));
	if (!in->procs || !in->clk || !in->eps || !in->ep_recs || !in->files ||
	    !in->file_ptrs)
		return MT_ERR_NOMEM;
	for (size_t p = 0; p < np; p++) {
		struct mt_trace_proc *pr = &in->procs[p];
		size_t q;

		snprintf(pr->host, sizeof(pr->host), "%s", host_of(in, in->lg[p].stn));
		pr->world_rank = (int32_t)p;
		pr->key = (int32_t)p;
		pr->clock = (struct mt_trace_clock){ .kind = MT_TRACE_CLOCK_RAW, .mult = 1 };
		pr->first_ns = 1;
		for (unsigned c = 0; c < in->ncal[p]; c++) {
			struct mt_rec_clock *k = &in->clk[2 * p + c];

			k->h.ts = in->cal[p][c].ns;
			k->realtime_ns = (uint64_t)((int64_t)in->cal[p][c].ns +
				(int64_t)((__int128)in->cal[p][c].off * 1000000000 /
					  (__int128)in->resolution));
		}
		pr->clock_start = in->ncal[p] ? &in->clk[2 * p] : NULL;
		pr->clock_end = in->ncal[p] > 1 ? &in->clk[2 * p + 1] : NULL;
		for (q = 0; q < p && strcmp(in->procs[q].host, pr->host); q++)
			;
		t->nhosts += q == p;
	}
	for (size_t l = 0; l < in->nloc; l++) {
		struct mt_rec_ep *e = &in->ep_recs[l];

		e->ep = in->loc[l].ref;
		snprintf(e->prov_name, sizeof(e->prov_name), "OTF2");
		snprintf(e->fabric_name, sizeof(e->fabric_name), "MPI");
		in->eps[l] = (struct mt_trace_ep){ .proc = in->loc[l].proc, .rec = e };
		thread(in, l);
	}
	in->job = (struct mt_trace_job){ .start_ns = INT64_MAX, .nprocs = np,
		.span = (uint32_t)np };
	t->procs = in->procs;
	t->nprocs = np;
	t->jobs = &in->job;
	t->njobs = 1;
	t->nlaunches = 1;
	t->fork_base = INT32_MAX;
	t->eps = in->eps;
	t->neps = in->nloc;
	t->files = in->file_ptrs;
	t->nfiles = in->nloc;
	return MT_OK;
}

/* Every location's local definitions: its clock offsets and the
 * mappings libotf2 applies to its events. */
static enum mt_status local_defs(struct mt_otf2in *in, struct mt_err *err)
{
	OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
	enum mt_status s = MT_OK;

	if (!cb)
		return MT_ERR_NOMEM;
	OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, def_offset);
	if (OTF2_Reader_OpenDefFiles(in->rd) != OTF2_SUCCESS) {
		OTF2_DefReaderCallbacks_Delete(cb);
		return MT_OK;		/* no local definitions: none needed */
	}
	for (size_t l = 0; l < in->nloc && !s; l++) {
		OTF2_DefReader *dr = OTF2_Reader_GetDefReader(in->rd, in->loc[l].ref);
		struct clk_arg a = { in, in->loc[l].proc };
		uint64_t n;

		if (!dr)
			continue;
		OTF2_Reader_RegisterDefCallbacks(in->rd, dr, cb, &a);
		if (OTF2_Reader_ReadAllLocalDefinitions(in->rd, dr, &n) != OTF2_SUCCESS)
			s = mt_err_set(err, MT_ERR_CORRUPT, "%s: the local definitions of "
				       "location %" PRIu64 " are unreadable", in->path,
				       in->loc[l].ref);
		OTF2_Reader_CloseDefReader(in->rd, dr);
	}
	OTF2_Reader_CloseDefFiles(in->rd);
	OTF2_DefReaderCallbacks_Delete(cb);
	return s;
}

enum mt_status mt_otf2in_read_defs(struct mt_otf2in *in, struct mt_err *err)
{
	OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(in->rd);
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	enum mt_status s;
	uint64_t n;

	if (!gdr || !cb) {
		OTF2_GlobalDefReaderCallbacks_Delete(cb);
		return gdr ? MT_ERR_NOMEM : corrupt(in, err, "no global definitions");
	}
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
	OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cb, def_stn);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, def_lg);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_loc);
	OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
	OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
	OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, mt_otf2in_def_attribute);
	OTF2_Reader_RegisterGlobalDefCallbacks(in->rd, gdr, cb, in);
	OTF2_ErrorCode e = OTF2_Reader_ReadAllGlobalDefinitions(in->rd, gdr, &n);

	OTF2_GlobalDefReaderCallbacks_Delete(cb);
	OTF2_Reader_CloseGlobalDefReader(in->rd, gdr);
	if (in->fail)
		return mt_err_set(err, in->fail, "%s: out of memory", in->path);
	if (e != OTF2_SUCCESS)
		return corrupt(in, err, OTF2_Error_GetDescription(e));
	if (!in->resolution)
		return corrupt(in, err, "no clock properties (timer resolution)");
	/* msgtrace's own export is on the trace's clock already, and nothing
	 * will correct it: read back, its times are the trace's. */
	if (!in->one_clock &&
	    (unsigned __int128)in->offset * 1000000000u / in->resolution < OI_BASE_NS)
		in->base_ns = OI_BASE_NS;
	in->facts.length_ns = mt_otf2in_ns(in, in->offset + in->length);
	in->facts.start_ns = mt_otf2in_ns(in, in->offset);
	for (size_t l = 0; l < in->nldef; l++)
		in->facts.defined_events += in->ldef[l].events;
	for (size_t r = 0; r < in->nregions; r++)
		in->regions[r].sendrecv = !strncmp(mt_otf2in_string(in, in->regions[r].name),
						   "MPI_Sendrecv", 12);
	if ((s = number(in, err)) || (s = resolve_comms(in)))
		return s == MT_ERR_NOMEM ? mt_err_set(err, s, "out of memory") : s;
	in->cal = calloc(in->nlg, sizeof(*in->cal));
	in->ncal = calloc(in->nlg, 1);
	if (!in->cal || !in->ncal)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	if ((s = local_defs(in, err)))
		return s;
	if ((s = describe(in)))
		return mt_err_set(err, s, "out of memory");
	return MT_OK;
}

void mt_otf2in_free_defs(struct mt_otf2in *in)
{
	for (size_t i = 0; i < in->nstr; i++)
		free(in->str[i]);
	free(in->str);
	mt_otf2in_map_free(&in->str_map);
	free(in->stn);
	free(in->lg);
	free(in->ldef);
	free(in->world);
	for (size_t i = 0; i < in->ngroups; i++)
		free(in->groups[i].members);
	free(in->groups);
	mt_otf2in_map_free(&in->group_map);
	for (size_t i = 0; i < in->ncomms; i++)
		free(in->comms[i].loc);
	free(in->comms);
	mt_otf2in_map_free(&in->comm_map);
	mt_otf2in_map_free(&in->src_map);
	free(in->regions);
	mt_otf2in_map_free(&in->region_map);
	free(in->cal);
	free(in->ncal);
	for (size_t l = 0; l < in->nloc; l++)
		free(in->loc[l].rq);
	free(in->loc);
	mt_otf2in_map_free(&in->loc_map);
	free(in->procs);
	free(in->eps);
	free(in->ep_recs);
	free(in->clk);
	free(in->files);
	free(in->file_ptrs);
}
