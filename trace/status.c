/*
 * status.c - names of the shared status codes and small shared helpers.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "trace_int.h"

const char *mt_status_str(enum mt_status s)
{
	switch (s) {
	case MT_OK: return "success";
	case MT_END: return "end of stream";
	case MT_ERR_IO: return "I/O error";
	case MT_ERR_CORRUPT: return "corrupt input";
	case MT_ERR_VERSION: return "unsupported format version";
	case MT_ERR_NOMEM: return "out of memory";
	case MT_ERR_ARG: return "invalid argument";
	}
	return "unknown status";
}

enum mt_status mt_err_set(struct mt_err *err, enum mt_status st,
			  const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return st;
}

void trace_sort(void *base, size_t n, size_t size,
		int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void *trace_push(void **v, size_t *n, size_t *cap, size_t elem)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 32;
		void *nv = realloc(*v, c * elem);

		if (!nv)
			return NULL;
		*v = nv;
		*cap = c;
	}
	return (char *)*v + (*n)++ * elem;
}
