/*
 * tw.h - a minimal in-memory trace file writer for the reader's tests. It
 * builds files the way the format in mt_trace.h says, so tests can make
 * good traces and then break them on purpose. Not the provider's writer.
 */
#ifndef MT_TW_H
#define MT_TW_H

#include <stddef.h>
#include <stdint.h>

#include "mt_trace.h"

struct tw {
	uint8_t *buf;
	size_t len, cap;
};

/* A file with a valid header for (pid, thread_seq) and no records. */
void tw_init(struct tw *w, uint32_t pid, uint32_t seq);
struct mt_file_hdr *tw_hdr(struct tw *w);
/* Append a zeroed record of size bytes; valid until the next append. */
void *tw_add(struct tw *w, unsigned type, unsigned aux, size_t size, uint64_t ts);
void tw_proc(struct tw *w, uint64_t ts, int32_t rank, uint64_t hz,
	     const char *host);
void tw_clock(struct tw *w, unsigned phase, uint64_t ts, uint64_t mono,
	      uint64_t real);
struct mt_rec_op *tw_op(struct tw *w, unsigned op, uint64_t ts, uint64_t tag);
/* Set committed (all records), capacity, the closed flag; write dir/name. */
char *tw_save(struct tw *w, const char *dir, const char *name);
void tw_free(struct tw *w);

/* A fresh temporary directory (mkdtemp), and its recursive removal. */
char *tw_tmpdir(void);
void tw_rmdir(char *dir);
/* Read a whole file; *len gets its size. */
uint8_t *tw_read(const char *path, size_t *len);
void tw_write(const char *path, const void *buf, size_t len);

#endif /* MT_TW_H */
