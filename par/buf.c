/*
 * buf.c - growable arrays of fixed-size items consumed from their head
 * (par_int.h): the outboxes of routed records and of tagged messages.
 */
#include <stdlib.h>
#include <string.h>

#include "par_int.h"

void *mt_par_buf_add(struct par_buf *b)
{
	if (b->n == b->cap) {
		/* Compact first: a consumed head is room. */
		if (b->head && b->head >= b->n / 2) {
			memmove(b->v, (char *)b->v + b->head * b->size,
				(b->n - b->head) * b->size);
			b->n -= b->head;
			b->head = 0;
		} else {
			size_t cap = b->cap ? b->cap * 2 : 1024;
			void *v = realloc(b->v, cap * b->size);

			if (!v)
				return NULL;
			b->v = v;
			b->cap = cap;
		}
	}
	return (char *)b->v + b->n++ * b->size;
}

int mt_par_buf_append(struct par_buf *b, const void *p, size_t k)
{
	if (b->n + k > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		void *v;

		while (cap < b->n + k)
			cap *= 2;
		if (!(v = realloc(b->v, cap * b->size)))
			return -1;
		b->v = v;
		b->cap = cap;
	}
	memcpy((char *)b->v + b->n * b->size, p, k * b->size);
	b->n += k;
	return 0;
}

void mt_par_buf_drop(struct par_buf *b, size_t k)
{
	b->head += k;
	if (b->head == b->n)
		b->head = b->n = 0;
}

void mt_par_buf_free(struct par_buf *b)
{
	free(b->v);
	b->v = NULL;
	b->head = b->n = b->cap = 0;
}

int mt_par_buf_reserve(struct par_buf *b, size_t n)
{
	if (n > b->cap) {
		void *v = realloc(b->v, n * b->size);

		if (!v)
			return -1;
		b->v = v;
		b->cap = n;
	}
	b->head = 0;
	b->n = n;
	return 0;
}
