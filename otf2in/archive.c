/*
 * archive.c - finding, opening and reading an OTF2 archive (see
 * mt_otf2in.h). libotf2 reports its errors through a callback, which here
 * keeps the last message for ours instead of printing it.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "otf2in_int.h"

static __thread char otf2_why[256];

static OTF2_ErrorCode keep_error(void *arg, const char *file, uint64_t line,
				 const char *fn, OTF2_ErrorCode code,
				 const char *fmt, va_list va)
{
	(void)arg, (void)file, (void)line, (void)fn;
	if (fmt)
		vsnprintf(otf2_why, sizeof(otf2_why), fmt, va);
	else
		snprintf(otf2_why, sizeof(otf2_why), "%s", OTF2_Error_GetDescription(code));
	return code;
}

static int ends_otf2(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && !strcmp(name + n - 5, ".otf2");
}

/* The one *.otf2 file in dir into out: 1, or 0 when none or several. */
static int anchor_in(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (ends_otf2(e->d_name) && n++ == 0)
			snprintf(out, len, "%s/%s", dir, e->d_name);
	closedir(d);
	return n == 1;
}

int mt_otf2in_is_archive(const char *path)
{
	struct stat st;
	char a[4096];

	if (stat(path, &st))
		return 0;
	if (S_ISDIR(st.st_mode))
		return anchor_in(path, a, sizeof(a));
	return S_ISREG(st.st_mode) && ends_otf2(path);
}

/* 1 when dir is a directory of *.evt and *.def files only, at least one;
 * those *.evt into *nevt. */
static int local_files_only(const char *dir, size_t *nevt)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int only = d != NULL, any = 0;
	size_t k;

	*nevt = 0;
	while (only && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		k = strlen(e->d_name);
		only = k > 4 && (!strcmp(e->d_name + k - 4, ".evt") ||
				 !strcmp(e->d_name + k - 4, ".def"));
		*nevt += only && e->d_name[k - 3] == 'e';
		any = 1;
	}
	if (d)
		closedir(d);
	return only && any;
}

int mt_otf2in_unfinished(const char *path, char *sub, size_t len, size_t *nevt)
{
	DIR *d;
	struct dirent *e;
	struct stat st;
	char a[4096];
	int found = 0;

	if (anchor_in(path, a, sizeof(a)) || !(d = opendir(path)))
		return 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(a, sizeof(a), "%s/%s", path, e->d_name);
		if (!stat(a, &st) && S_ISDIR(st.st_mode) && local_files_only(a, nevt)) {
			snprintf(sub, len, "%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

uint64_t mt_otf2in_ns(const struct mt_otf2in *in, uint64_t ticks)
{
	return (uint64_t)((unsigned __int128)ticks * 1000000000u / in->resolution) +
	       in->base_ns;
}

/* Every location selected, its event reader open, and the merged reader. */
static enum mt_status open_events(struct mt_otf2in *in, struct mt_err *err)
{
	OTF2_GlobalEvtReaderCallbacks *cb;

	if (OTF2_Reader_OpenEvtFiles(in->rd) != OTF2_SUCCESS)
		return mt_err_set(err, MT_ERR_CORRUPT, "%s: cannot open the event "
				  "files: %s", in->path, otf2_why);
	for (size_t l = 0; l < in->nloc; l++)
		if (!OTF2_Reader_GetEvtReader(in->rd, in->loc[l].ref))
			return mt_err_set(err, MT_ERR_CORRUPT, "%s: no events of "
					  "location %" PRIu64 ": %s", in->path,
					  in->loc[l].ref, otf2_why);
	if (!(in->ger = OTF2_Reader_GetGlobalEvtReader(in->rd)))
		return mt_err_set(err, MT_ERR_CORRUPT, "%s: cannot merge the event "
				  "files: %s", in->path, otf2_why);
	if (!(cb = OTF2_GlobalEvtReaderCallbacks_New()))
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	mt_otf2in_set_callbacks(cb);
	OTF2_Reader_RegisterGlobalEvtCallbacks(in->rd, in->ger, cb, in);
	OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	return MT_OK;
}

enum mt_status mt_otf2in_open(const char *path, struct mt_otf2in **out,
			      struct mt_err *err)
{
	struct mt_otf2in *in = calloc(1, sizeof(*in));
	struct stat st;
	enum mt_status s;
	char *creator = NULL, *calls_comm = NULL;
	bool one = false;

	*out = NULL;
	if (!in)
		return mt_err_set(err, MT_ERR_NOMEM, "out of memory");
	OTF2_Error_RegisterCallback(keep_error, NULL);
	otf2_why[0] = 0;
	in->facts.open_rank = -1;
	for (unsigned a = 0; a < OI_A_COUNT; a++)
		in->attr[a] = OI_NONE;
	for (unsigned k = 0; k < MT_MATCH_KIND_COUNT; k++)
		in->kind_str[k] = OI_NONE;
	if (stat(path, &st)) {
		free(in);
		return mt_err_set(err, MT_ERR_IO, "%s: cannot read it", path);
	}
	if (!S_ISDIR(st.st_mode))
		snprintf(in->path, sizeof(in->path), "%s", path);
	else if (!anchor_in(path, in->path, sizeof(in->path))) {
		free(in);
		return mt_err_set(err, MT_ERR_ARG, "%s: no single OTF2 anchor file "
				  "(*.otf2) in it", path);
	}
	if (!(in->rd = OTF2_Reader_Open(in->path))) {
		s = mt_err_set(err, MT_ERR_CORRUPT, "%s: not an OTF2 archive: %s",
			       in->path, otf2_why[0] ? otf2_why : "libotf2 refused it");
		goto fail;
	}
	if (OTF2_Reader_SetSerialCollectiveCallbacks(in->rd) != OTF2_SUCCESS) {
		s = mt_err_set(err, MT_ERR_CORRUPT, "%s: not an OTF2 archive: %s",
			       in->path, otf2_why);
		goto fail;
	}
	if (OTF2_Reader_GetCreator(in->rd, &creator) == OTF2_SUCCESS && creator) {
		snprintf(in->facts.creator, sizeof(in->facts.creator), "%s", creator);
		free(creator);
	}
	if (OTF2_Reader_GetBoolProperty(in->rd, OI_ONE_CLOCK, &one) == OTF2_SUCCESS)
		in->one_clock = one;
	in->calls_comm = OTF2_UNDEFINED_COMM;
	if (OTF2_Reader_GetProperty(in->rd, OI_CALLS_COMM, &calls_comm) == OTF2_SUCCESS &&
	    calls_comm) {
		in->calls_comm = strtoull(calls_comm, NULL, 10);
		free(calls_comm);
	}
	if ((s = mt_otf2in_read_defs(in, err)) || (s = open_events(in, err)))
		goto fail;
	*out = in;
	return MT_OK;
fail:
	mt_otf2in_close(in);
	return s;
}

void mt_otf2in_close(struct mt_otf2in *in)
{
	if (!in)
		return;
	if (in->rd)
		OTF2_Reader_Close(in->rd);
	mt_otf2in_free_defs(in);
	free(in);
}

const struct mt_trace *mt_otf2in_trace(const struct mt_otf2in *in)
{
	return &in->t;
}

const char *mt_otf2in_path(const struct mt_otf2in *in)
{
	return in->path;
}

int mt_otf2in_one_clock(const struct mt_otf2in *in)
{
	return in->one_clock;
}

void mt_otf2in_match_cfg(struct mt_match_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->field_mask[MT_MATCH_F_CID] = ~0ull << MT_OTF2IN_CID_SHIFT & ~MT_OTF2IN_ACK_BIT;
	cfg->field_mask[MT_MATCH_F_TAG] = ~(~0ull << MT_OTF2IN_CID_SHIFT);
}

enum mt_status mt_otf2in_attach(struct mt_otf2in *in, struct mt_match *m)
{
	struct mt_match_cfg cfg;
	enum mt_status s;

	in->m = m;
	mt_otf2in_match_cfg(&cfg);
	for (size_t l = 0; l < in->nloc; l++)
		if ((s = mt_match_add_ep(m, (int32_t)l, (int32_t)in->loc[l].proc,
					 in->procs[in->loc[l].proc].key)) ||
		    (s = mt_match_ep_masks(m, (int32_t)l, &cfg)))
			return s;
	return MT_OK;
}

enum mt_status mt_otf2in_read(struct mt_otf2in *in, uint64_t max, uint64_t *n,
			      struct mt_err *err)
{
	OTF2_ErrorCode e;

	*n = 0;
	otf2_why[0] = 0;
	e = OTF2_Reader_ReadGlobalEvents(in->rd, in->ger, max, n);
	in->facts.events += *n;
	if (in->fail)
		return mt_err_set(err, in->fail, "%s: %s", in->path,
				  in->fail == MT_ERR_NOMEM ? "out of memory" :
				  "matching failed: bad operation");
	if (e != OTF2_SUCCESS)
		return mt_err_set(err, MT_ERR_CORRUPT, "%s: bad event after %" PRIu64
				  " events: %s", in->path, in->facts.events,
				  otf2_why[0] ? otf2_why : OTF2_Error_GetDescription(e));
	return *n < max ? MT_END : MT_OK;
}

enum mt_status mt_otf2in_finish(struct mt_otf2in *in)
{
	return mt_otf2in_flush_all(in);
}

const struct mt_otf2in_facts *mt_otf2in_facts(const struct mt_otf2in *in)
{
	return &in->facts;
}

int mt_otf2in_unrecorded(const struct mt_otf2in *in, const struct mt_match_op *op)
{
	return op->dir == MT_MATCH_DIR_SEND && !(op->context & OI_CTX_BLOCK) &&
	       !in->facts.isend_done && !in->facts.cancels;
}
