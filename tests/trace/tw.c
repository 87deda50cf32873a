/*
 * tw.c - the tests' trace writer (see tw.h).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tw.h"

static void reserve(struct tw *w, size_t more)
{
	if (w->len + more <= w->cap)
		return;
	while (w->len + more > w->cap)
		w->cap = w->cap ? 2 * w->cap : 8192;
	w->buf = realloc(w->buf, w->cap);
	cr_assert_not_null(w->buf);
}

void tw_init(struct tw *w, uint32_t pid, uint32_t seq)
{
	struct mt_file_hdr *h;

	memset(w, 0, sizeof(*w));
	reserve(w, MT_FILE_HDR_SIZE);
	memset(w->buf, 0, MT_FILE_HDR_SIZE);
	w->len = MT_FILE_HDR_SIZE;
	h = tw_hdr(w);
	memcpy(h->magic, MT_TRACE_MAGIC, sizeof(h->magic));
	h->version = MT_TRACE_VERSION;
	h->hdr_size = MT_FILE_HDR_SIZE;
	h->data_off = MT_FILE_HDR_SIZE;
	h->pid = pid;
	h->tid = pid + seq;
	h->thread_seq = seq;
}

struct mt_file_hdr *tw_hdr(struct tw *w)
{
	return (struct mt_file_hdr *)w->buf;
}

void *tw_add(struct tw *w, unsigned type, unsigned aux, size_t size, uint64_t ts)
{
	struct mt_rec_hdr *r;

	reserve(w, size);
	r = (struct mt_rec_hdr *)(w->buf + w->len);
	memset(r, 0, size);
	r->type = (uint8_t)type;
	r->size = (uint16_t)size;
	r->aux = aux;
	r->ts = ts;
	w->len += size;
	return r;
}

void tw_proc(struct tw *w, uint64_t ts, int32_t rank, uint64_t hz,
	     const char *host)
{
	struct mt_rec_proc *p = tw_add(w, MT_REC_PROC, 0, sizeof(*p), ts);

	p->pid = tw_hdr(w)->pid;
	p->world_rank = rank;
	p->world_size = -1;
	p->local_rank = -1;
	p->clock_source = MT_CLOCK_TSC;
	p->clock_hz = hz;
	snprintf(p->hostname, sizeof(p->hostname), "%s", host);
}

void tw_clock(struct tw *w, unsigned phase, uint64_t ts, uint64_t mono,
	      uint64_t real)
{
	struct mt_rec_clock *c = tw_add(w, MT_REC_CLOCK, phase, sizeof(*c), ts);

	c->monotonic_ns = mono;
	c->realtime_ns = real;
}

struct mt_rec_op *tw_op(struct tw *w, unsigned op, uint64_t ts, uint64_t tag)
{
	struct mt_rec_op *o = tw_add(w, MT_REC_OP, op, sizeof(*o), ts);

	o->tag = tag;
	o->addr = UINT64_MAX;
	return o;
}

char *tw_save(struct tw *w, const char *dir, const char *name)
{
	struct mt_file_hdr *h = tw_hdr(w);
	char *path;

	h->committed = w->len - h->data_off;
	h->capacity = h->committed + 4096;
	h->flags |= MT_FILE_CLOSED;
	cr_assert(asprintf(&path, "%s/%s", dir, name) > 0);
	tw_write(path, w->buf, w->len);
	return path;
}

void tw_free(struct tw *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

char *tw_tmpdir(void)
{
	char *d = strdup("/tmp/mt-test-XXXXXX");

	cr_assert_not_null(mkdtemp(d));
	return d;
}

void tw_rmdir(char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

uint8_t *tw_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	cr_assert_not_null(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	cr_assert_not_null(buf);
	cr_assert_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

void tw_write(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert_not_null(f, "cannot create %s", path);
	cr_assert_eq(fwrite(buf, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}
