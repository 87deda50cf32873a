/*
 * run.c - what sinks share about the run they describe (struct mt_run).
 */
#include <stdio.h>

#include "mt_sink.h"

const char *mt_sink_clock_ranks(const struct mt_run_clock *c, uint32_t d,
				char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (uint32_t r = 0; r < c->nranks && k < len; r++) {
		uint32_t e = r;

		if (c->res->proc_domain[r] != d)
			continue;
		while (e + 1 < c->nranks && c->res->proc_domain[e + 1] == d)
			e++;
		k += (size_t)snprintf(buf + k, len - k, e > r ? "%s%u-%u" : "%s%u",
				      k ? "," : "", r, e);
		r = e;
	}
	return buf;
}

enum mt_status mt_sink_written(FILE *f, int flush, struct mt_err *err)
{
	if ((flush && fflush(f)) || ferror(f))
		return mt_err_set(err, MT_ERR_IO, "cannot write the output");
	return MT_OK;
}
