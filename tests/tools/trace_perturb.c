/*
 * trace_perturb.c - makes one process of a real trace look as if it ran on
 * another host with its own clock (test helper for the clock stage).
 *
 * usage: trace_perturb HOST OFFSET_NS DRIFT_PPM REALTIME_ERR_NS FILE...
 * FILE... are all the files of ONE process, edited in place. Its local
 * clock becomes x' = x + OFFSET_NS + DRIFT_PPM * 1e-6 * (x - x_start),
 * x_start its START calibration pair: every record's tick stamp and the
 * calibration pairs' monotonic_ns move together, so the reader's tick to
 * ns line goes through the moved pairs. Its CLOCK_REALTIME (calibration
 * pairs, PROC start time) is off by REALTIME_ERR_NS, an NTP error. The PROC
 * record gets hostname HOST; renaming the files <HOST>.<pid>.<seq>.mt is the
 * caller's job (the reader takes the host from the name).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mt_format.h"

struct map {
	uint8_t *p;
	size_t len;
	const char *path;
};

struct perturb {
	double offset_ns, drift, ticks_per_ns;
	int64_t realtime_err;
	uint64_t ts_start, mono_start;
	const struct mt_rec_clock *start, *end;
	const char *host;
};

static void die(const char *path, const char *what)
{
	fprintf(stderr, "trace_perturb: %s: %s\n", path, what);
	exit(1);
}

static void map_file(const char *path, struct map *m)
{
	struct stat sb;
	int fd = open(path, O_RDWR);

	if (fd < 0 || fstat(fd, &sb))
		die(path, strerror(errno));
	m->len = (size_t)sb.st_size;
	m->path = path;
	m->p = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m->len < MT_FILE_HDR_SIZE || m->p == MAP_FAILED ||
	    memcmp(m->p, MT_TRACE_MAGIC, 8))
		die(path, "not a msgtrace file");
}

/* Calls fn on every committed record of the file. */
static void each_rec(const struct map *m, struct perturb *pt,
		     void (*fn)(struct mt_rec_hdr *, struct perturb *))
{
	const struct mt_file_hdr *h = (const struct mt_file_hdr *)m->p;
	uint64_t off = h->data_off, end = h->data_off + h->committed;

	if (end > m->len)
		die(m->path, "committed bytes beyond the end of the file");
	while (off + sizeof(struct mt_rec_hdr) <= end) {
		struct mt_rec_hdr *r = (struct mt_rec_hdr *)(m->p + off);

		if (r->size < sizeof(*r) || r->size % 8 || off + r->size > end)
			die(m->path, "bad record size");
		fn(r, pt);
		off += r->size;
	}
}

static void find_pairs(struct mt_rec_hdr *r, struct perturb *pt)
{
	const struct mt_rec_clock *c = (const struct mt_rec_clock *)r;

	if (r->type != MT_REC_CLOCK)
		return;
	if (r->aux == MT_CLOCK_START && !pt->start)
		pt->start = c;
	if (r->aux == MT_CLOCK_END && (!pt->end || r->ts > pt->end->h.ts))
		pt->end = c;
}

static uint64_t local(const struct perturb *pt, uint64_t x, uint64_t x0,
		      double unit)
{
	double d = pt->offset_ns * unit + pt->drift * ((double)x - (double)x0);

	return (uint64_t)((int64_t)x + (int64_t)(d < 0 ? d - 0.5 : d + 0.5));
}

static void rewrite(struct mt_rec_hdr *r, struct perturb *pt)
{
	r->ts = local(pt, r->ts, pt->ts_start, pt->ticks_per_ns);
	if (r->type == MT_REC_CLOCK) {
		struct mt_rec_clock *c = (struct mt_rec_clock *)r;

		c->monotonic_ns = local(pt, c->monotonic_ns, pt->mono_start, 1.0);
		c->realtime_ns += (uint64_t)pt->realtime_err;
	} else if (r->type == MT_REC_PROC) {
		struct mt_rec_proc *p = (struct mt_rec_proc *)r;

		p->start_realtime_ns += (uint64_t)pt->realtime_err;
		snprintf(p->hostname, sizeof(p->hostname), "%s", pt->host);
	}
}

int main(int argc, char **argv)
{
	struct perturb pt = { 0 };
	struct map *maps;
	int n = argc - 5;

	if (n < 1) {
		fprintf(stderr, "usage: trace_perturb HOST OFFSET_NS DRIFT_PPM "
			"REALTIME_ERR_NS FILE...\n");
		return 2;
	}
	pt.host = argv[1];
	pt.offset_ns = strtod(argv[2], NULL);
	pt.drift = strtod(argv[3], NULL) * 1e-6;
	pt.realtime_err = strtoll(argv[4], NULL, 10);
	maps = calloc((size_t)n, sizeof(*maps));
	if (!maps)
		die(argv[0], "out of memory");
	for (int i = 0; i < n; i++) {
		map_file(argv[5 + i], &maps[i]);
		each_rec(&maps[i], &pt, find_pairs);
	}
	if (!pt.start || !pt.end || pt.end->monotonic_ns <= pt.start->monotonic_ns)
		die(argv[5], "the process needs START and END calibration pairs");
	pt.ts_start = pt.start->h.ts;
	pt.mono_start = pt.start->monotonic_ns;
	pt.ticks_per_ns = (double)(pt.end->h.ts - pt.start->h.ts) /
			  (double)(pt.end->monotonic_ns - pt.start->monotonic_ns);
	for (int i = 0; i < n; i++) {
		each_rec(&maps[i], &pt, rewrite);
		if (msync(maps[i].p, maps[i].len, MS_SYNC))
			die(maps[i].path, strerror(errno));
		munmap(maps[i].p, maps[i].len);
	}
	free(maps);
	return 0;
}
