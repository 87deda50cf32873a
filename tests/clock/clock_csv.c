/*
 * clock_csv.c - `msgtrace messages --csv` into struct mt_clock_times.
 * Columns are found by name in the header line; empty fields are unknown.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "clock_csv.h"

static const char *const wanted[] = {
	"send_rank", "recv_rank", "t_send_post_ns", "t_send_done_ns",
	"t_recv_post_ns", "t_recv_done_ns",
};
#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))

/* Column index of each wanted name in the header, -1 when absent. */
static int header(char *line, int *col)
{
	int i = 0;

	for (size_t w = 0; w < NWANTED; w++)
		col[w] = -1;
	for (char *f = strtok(line, ",\r\n"); f; f = strtok(NULL, ",\r\n"), i++)
		for (size_t w = 0; w < NWANTED; w++)
			if (strcmp(f, wanted[w]) == 0)
				col[w] = i;
	for (size_t w = 0; w < NWANTED; w++)
		if (col[w] < 0)
			return -1;
	return 0;
}

/* Splits line at commas in place (empty fields kept); returns the count. */
static int split(char *line, char **field, int max)
{
	int n = 0;

	line[strcspn(line, "\r\n")] = 0;
	for (char *p = line; n < max; p++) {
		field[n++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p = 0;
	}
	return n;
}

static int number(const char *s, int64_t *v)
{
	char *end;

	if (!*s) {
		*v = -1;
		return 0;
	}
	errno = 0;
	*v = strtoll(s, &end, 10);
	return *end || errno ? -1 : 0;
}

static int parse(const char *path, unsigned long lineno, char *line,
		 const int *col, struct mt_clock_times *t, char *why,
		 size_t why_len)
{
	char *field[64];
	int nf = split(line, field, 64);
	int64_t v[NWANTED];

	for (size_t w = 0; w < NWANTED; w++) {
		if (col[w] >= nf || number(field[col[w]], &v[w]) ||
		    (w < 2 && v[w] >= (int64_t)MT_CLOCK_NOPROC)) {
			snprintf(why, why_len, "%s:%lu: field %s: bad value", path,
				 lineno, wanted[w]);
			return -1;
		}
	}
	t->send_proc = v[0] < 0 ? MT_CLOCK_NOPROC : (uint32_t)v[0];
	t->recv_proc = v[1] < 0 ? MT_CLOCK_NOPROC : (uint32_t)v[1];
	for (unsigned k = 0; k < MT_CLOCK_WHEN_COUNT; k++)
		t->t[k] = *field[col[2 + k]] ? v[2 + k] : MT_CLOCK_NOTIME;
	return 0;
}

int clock_csv_read(const char *path, struct mt_clock_times **m, uint64_t *n,
		   uint32_t *nprocs, char *why, size_t why_len)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	int col[NWANTED];
	uint64_t cap = 0;
	unsigned long lineno = 1;

	*m = NULL;
	*n = 0;
	*nprocs = 0;
	if (!f) {
		snprintf(why, why_len, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!fgets(line, sizeof(line), f) || header(line, col)) {
		snprintf(why, why_len, "%s:1: not a `msgtrace messages --csv` header", path);
		goto fail;
	}
	while (fgets(line, sizeof(line), f)) {
		struct mt_clock_times t;

		lineno++;
		if (parse(path, lineno, line, col, &t, why, why_len))
			goto fail;
		if (t.send_proc == MT_CLOCK_NOPROC && t.recv_proc == MT_CLOCK_NOPROC)
			continue;
		if (*n == cap) {
			struct mt_clock_times *g;

			cap = cap ? 2 * cap : 1024;
			g = realloc(*m, cap * sizeof(*g));
			if (!g) {
				snprintf(why, why_len, "%s:%lu: out of memory", path, lineno);
				goto fail;
			}
			*m = g;
		}
		(*m)[(*n)++] = t;
		for (unsigned k = 0; k < 2; k++) {
			uint32_t p = k ? t.recv_proc : t.send_proc;

			if (p != MT_CLOCK_NOPROC && p + 1 > *nprocs)
				*nprocs = p + 1;
		}
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	free(*m);
	*m = NULL;
	return -1;
}
