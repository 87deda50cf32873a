/*
 * trace_int.h - private helpers shared by the files of trace/ (not public).
 */
#ifndef MT_TRACE_INT_H
#define MT_TRACE_INT_H

#include "mt_trace.h"


/* Grow-by-doubling append of one elem-sized slot; NULL when out of memory. */
void *mt_trace_push(void **v, size_t *n, size_t *cap, size_t elem);

/* qsort that accepts an empty (NULL) array. */
void mt_trace_sort(void *base, size_t n, size_t size,
		int (*cmp)(const void *, const void *));

/* Set p->clock from its PROC record and CLOCK calibration pairs. */
void mt_trace_clock_setup(struct mt_trace_proc *p);

/* Build the endpoint, bind and AV tables of t from the files' setup records. */
enum mt_status mt_trace_addr_build(struct mt_trace *t, struct mt_err *err);
void mt_trace_addr_free(struct mt_trace *t);

/* p->alive and its files' live flags, from its writer as it is now. */
void mt_trace_proc_live(struct mt_trace_proc *p);

/* t->jobs, and each process's job and key (jobs.c). */
enum mt_status mt_trace_jobs_build(struct mt_trace *t, struct mt_err *err);

/* t->maps and t->sites, each file's site_ids (sites.c). */
enum mt_status mt_trace_sites_build(struct mt_trace *t, struct mt_err *err);
void mt_trace_sites_free(struct mt_trace *t);

#endif /* MT_TRACE_INT_H */
