/*
 * vec.c - growable arrays and sorting for the reader's tables.
 */
#include <stdlib.h>

#include "trace_int.h"

void mt_trace_sort(void *base, size_t n, size_t size,
		   int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

void *mt_trace_push(void **v, size_t *n, size_t *cap, size_t elem)
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
