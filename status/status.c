/*
 * status.c - names of the shared status codes, the error cause and notes.
 */
#include <stdarg.h>
#include <stdio.h>

#include "mt_status.h"

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
	case MT_ERR_RANGE: return "value does not fit its field";
	case MT_ERR_INTERNAL: return "internal error";
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

void mt_note_say(const struct mt_note *n, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!n || !n->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n->fn(n->arg, msg);
}
