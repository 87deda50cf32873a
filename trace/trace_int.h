/*
 * trace_int.h - private helpers shared by the files of trace/ (not public).
 */
#ifndef MT_TRACE_INT_H
#define MT_TRACE_INT_H

#include "mt_trace.h"


/* A buffer files are read into, one after the other. */
struct mt_trace_copy {
	uint8_t *p;
	size_t cap;
};

/* The division of an opening's scans (mt_trace_open_part): bytes given to
 * each part so far. */
struct mt_trace_plan {
	unsigned part, nparts;
	uint64_t *load;
};

/* Whether f, header read, is scanned by another part than plan's (no plan:
 * never); sets f->scan_part and scan_owed (part.c). */
int mt_trace_plan_elsewhere(struct mt_trace_plan *plan, struct mt_trace_file *f);

/* mt_trace_file_open for a reader of some files' records only: a closed
 * file that fits (file.c's COPY_MAX) scanned from a copy read into c, its
 * setup records kept apart (its mapping left untouched), any other's pages
 * given back once scanned (mt_trace_file_release); given a plan, a file
 * it gives another part is opened but not scanned (its scan is owed). */
enum mt_status mt_trace_file_open_copy(const char *path, struct mt_trace_copy *c,
				       struct mt_trace_plan *plan,
				       struct mt_trace_file **out, struct mt_err *err);

/* Grow-by-doubling append of one elem-sized slot; NULL when out of memory. */
void *mt_trace_push(void **v, size_t *n, size_t *cap, size_t elem);

/* qsort that accepts an empty (NULL) array. */
void mt_trace_sort(void *base, size_t n, size_t size,
		int (*cmp)(const void *, const void *));

/* Set p->clock from its PROC record and CLOCK calibration pairs. */
void mt_trace_clock_setup(struct mt_trace_proc *p);
/* One map for the n processes of one host that count the TSC (after
 * mt_trace_clock_setup of each); MT_ERR_NOMEM. */
enum mt_status mt_trace_clock_host(struct mt_trace_proc *procs, size_t n);

/* Build the endpoint, bind and AV tables of t from the files' setup records. */
enum mt_status mt_trace_addr_build(struct mt_trace *t, struct mt_err *err);
void mt_trace_addr_free(struct mt_trace *t);

/* An OP whose call had not returned when read: its writer publishes it
 * before the call, then stores ret, or takes it back after -FI_EAGAIN and
 * writes what comes next over it (r: a checked record). */
static inline int mt_trace_rec_in_flight(const struct mt_rec_hdr *r)
{
	return r->type == MT_REC_OP &&
	       ((const struct mt_rec_op *)r)->ret == MT_OP_RET_PENDING;
}

/* Bytes at the end of what a file's header says is committed that its
 * writer may write over: a call taken back (an OP, with its call site or
 * not) is always the last record. */
#define MT_TRACE_TAKEN_BACK sizeof(struct mt_rec_op_site)

/* p->alive and its files' live flags, from its writer as it is now. */
void mt_trace_proc_live(struct mt_trace_proc *p);
/* The scan of f stopped at a call in progress (f->inflight) but its writer
 * no longer runs: the rest of its records, as a killed writer left them. */
enum mt_status mt_trace_file_settle(struct mt_trace_file *f, struct mt_err *err);

/* A ring file's records (version 3) read from fd (size bytes), whose
 * header f->hdr_snap holds, into a buffer laid out as a version 1 file
 * (ring.c). */
enum mt_status mt_trace_ring_read(struct mt_trace_file *f, int fd,
				  uint64_t size, struct mt_err *err);
/* Whether a ring file's writer wrote since f was read (header now). */
int mt_trace_ring_moved(const struct mt_trace_file *f,
			const struct mt_file_hdr *now);

/* t->jobs, and each process's job and key (jobs.c). */
enum mt_status mt_trace_jobs_build(struct mt_trace *t, struct mt_err *err);

/* t->maps and t->sites, each file's site_ids (sites.c). */
enum mt_status mt_trace_sites_build(struct mt_trace *t, struct mt_err *err);
void mt_trace_sites_free(struct mt_trace *t);

#endif /* MT_TRACE_INT_H */
