/*
 * otf2_write.c - see otf2_write.h.
 */
#include <stdio.h>
#include <string.h>

#include "otf2_write.h"

static OTF2_FlushType pre_flush(void *user, OTF2_FileType ft, OTF2_LocationRef loc,
				void *caller, bool final)
{
	(void)user, (void)ft, (void)loc, (void)caller, (void)final;
	return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_cbs = { .otf2_pre_flush = pre_flush };

int tw_open(struct tw *w, const char *dir, unsigned nlocs)
{
	memset(w, 0, sizeof(*w));
	w->nlocs = nlocs;
	w->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20,
				  4 << 20, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!w->ar || OTF2_Archive_SetFlushCallbacks(w->ar, &flush_cbs, NULL) ||
	    OTF2_Archive_SetSerialCollectiveCallbacks(w->ar) ||
	    OTF2_Archive_OpenEvtFiles(w->ar))
		return -1;
	for (unsigned l = 0; l < nlocs; l++)
		if (!(w->w[l] = OTF2_Archive_GetEvtWriter(w->ar, l)))
			return -1;
	return 0;
}

static const char *const regions[] = { "MPI_Send", "MPI_Recv", "MPI_Irecv",
				       "MPI_Wait", "MPI_Isend" };

int tw_close(struct tw *w)
{
	OTF2_GlobalDefWriter *d;
	uint32_t s = 0;
	char name[64];
	int rc = 0;

	for (unsigned l = 0; l < w->nlocs; l++)
		rc |= OTF2_Archive_CloseEvtWriter(w->ar, w->w[l]) != OTF2_SUCCESS;
	rc |= OTF2_Archive_CloseEvtFiles(w->ar) != OTF2_SUCCESS;
	if (!(d = OTF2_Archive_GetGlobalDefWriter(w->ar)))
		return -1;
	rc |= OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, 0, w->t_max + 1,
							OTF2_UNDEFINED_TIMESTAMP);
	rc |= OTF2_GlobalDefWriter_WriteString(d, s++, "");
	for (unsigned l = 0; l < w->nlocs; l++) {
		uint32_t host = s++, pname = s++, tname = s++;

		rc |= OTF2_GlobalDefWriter_WriteString(d, host, w->host[l] ? w->host[l] : "node");
		snprintf(name, sizeof(name), "rank %u", l);
		rc |= OTF2_GlobalDefWriter_WriteString(d, pname, name);
		rc |= OTF2_GlobalDefWriter_WriteString(d, tname, "thread 0");
		rc |= OTF2_GlobalDefWriter_WriteSystemTreeNode(d, l, host, 0,
							       OTF2_UNDEFINED_SYSTEM_TREE_NODE);
		rc |= OTF2_GlobalDefWriter_WriteLocationGroup(d, l, pname,
			OTF2_LOCATION_GROUP_TYPE_PROCESS, l, OTF2_UNDEFINED_LOCATION_GROUP);
		rc |= OTF2_GlobalDefWriter_WriteLocation(d, l, tname,
			OTF2_LOCATION_TYPE_CPU_THREAD, 0, l);
	}
	for (unsigned r = 0; r < sizeof(regions) / sizeof(*regions); r++) {
		uint32_t n = s++;

		rc |= OTF2_GlobalDefWriter_WriteString(d, n, regions[r]);
		rc |= OTF2_GlobalDefWriter_WriteRegion(d, r, n, n, n, OTF2_REGION_ROLE_FUNCTION,
			OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
	}
	uint64_t all[TW_MAX_LOCS];

	for (unsigned l = 0; l < w->nlocs; l++)
		all[l] = l;
	rc |= OTF2_GlobalDefWriter_WriteGroup(d, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS,
		OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, w->nlocs, all);
	rc |= OTF2_GlobalDefWriter_WriteGroup(d, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP,
		OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, w->nlocs, all);
	rc |= OTF2_GlobalDefWriter_WriteComm(d, 0, 0, 1, OTF2_UNDEFINED_COMM,
					     OTF2_COMM_FLAG_NONE);
	for (unsigned c = 0; c < w->ncomms; c++) {
		rc |= OTF2_GlobalDefWriter_WriteGroup(d, 2 + c, 0, OTF2_GROUP_TYPE_COMM_GROUP,
			OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, w->comm[c].n,
			w->comm[c].world);
		rc |= OTF2_GlobalDefWriter_WriteComm(d, w->comm[c].id, 0, 2 + c, 0,
						     OTF2_COMM_FLAG_NONE);
	}
	rc |= OTF2_Archive_CloseGlobalDefWriter(w->ar, d) != OTF2_SUCCESS;
	rc |= OTF2_Archive_OpenDefFiles(w->ar) != OTF2_SUCCESS;
	for (unsigned l = 0; l < w->nlocs; l++) {
		OTF2_DefWriter *lw = OTF2_Archive_GetDefWriter(w->ar, l);

		rc |= !lw || OTF2_Archive_CloseDefWriter(w->ar, lw) != OTF2_SUCCESS;
	}
	rc |= OTF2_Archive_CloseDefFiles(w->ar) != OTF2_SUCCESS;
	rc |= OTF2_Archive_Close(w->ar) != OTF2_SUCCESS;
	return rc ? -1 : 0;
}
