/*
 * mt_status.h - the one status set every msgtrace library returns, the
 * error cause that goes with it, and the note callback through which a
 * library says what the user should know without failing.
 *
 * Libraries never print: they return an mt_status, fill an mt_err with one
 * sentence naming the file, record or option at fault, and hand notes to
 * the caller's callback. Only the command (tools/) writes to the terminal.
 * This library knows nothing of traces, tags or MPI.
 */
#ifndef MT_STATUS_H
#define MT_STATUS_H

#include <stdint.h>

/* MT_OK, MT_END (normal end of a stream, not an error), negative errors. */
enum mt_status {
	MT_OK = 0,
	MT_END = 1,
	MT_ERR_IO = -1,		/* open/stat/mmap/readdir/write failed */
	MT_ERR_CORRUPT = -2,	/* input violates its format */
	MT_ERR_VERSION = -3,	/* input has a format version we do not read */
	MT_ERR_NOMEM = -4,
	MT_ERR_ARG = -5,	/* caller passed something unusable */
	MT_ERR_RANGE = -6,	/* a value does not fit where it must go */
	MT_ERR_INTERNAL = -7,	/* an invariant broke: a bug in msgtrace */
};

const char *mt_status_str(enum mt_status s);

/* Why a call failed, one sentence: "<path>: offset <n>: <reason>". */
struct mt_err {
	char msg[512];
};

/* Fills err (if non-NULL) with a printf-style message; returns st. Every
 * library reports its failures through this one helper. */
enum mt_status mt_err_set(struct mt_err *err, enum mt_status st,
			  const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Something the user should know that is not a failure ("records after it
 * are ignored", "N operations share a context"): fn gets one sentence. A
 * NULL fn drops notes. */
struct mt_note {
	void (*fn)(void *arg, const char *msg);
	void *arg;
};

/* Formats one note and hands it to n->fn (nothing when n or n->fn is NULL). */
void mt_note_say(const struct mt_note *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* MT_STATUS_H */
