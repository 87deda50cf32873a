/*
 * provider_mtcheck - validates msgtrace trace files against trace/mt_trace.h
 * and prints one line per fact the provider e2e scripts check:
 *
 *   file <name> mode <octal> seq <n> flags <n> closed <0|1> records <n>
 *   proc <name> rank <r> size <s> local <l> clock <src> hz <hz>
 *   op <name> layer <l> <OPNAME> tag <hex> len <n> ret <r>
 *   cqe <name> layer <l> <RECV|SEND|OTHER> tag <hex> len <n> err <e>
 *   type <name> layer <l> <TYPENAME> <count>
 *
 * Reads version 1 files and compacted ones (version 2, decoded with
 * codec/mt_codec.h). Exit 1 with a message naming file and offset when a
 * file is invalid: bad magic/version, committed beyond the file, or a record whose size is
 * not a multiple of 8, below the record header, or crossing 'committed'.
 *
 * Usage: provider_mtcheck FILE...
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/fabric.h>

#include "mt_codec.h"
#include "mt_format.h"

static const char *op_name(unsigned op)
{
#define OP_NAME(name, val) case val: return #name;
	switch (op) {
	MT_OPS(OP_NAME)
	default: return "UNKNOWN";
	}
#undef OP_NAME
}

static const char *type_name(unsigned type)
{
#define TYPE_NAME(name, val) case val: return #name;
	switch (type) {
	MT_REC_TYPES(TYPE_NAME)
	default: return "UNKNOWN";
	}
#undef TYPE_NAME
}

static int check(const char *path)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	unsigned long counts[2][16] = { { 0 } };
	const struct mt_file_hdr *h;
	unsigned long records = 0;
	struct stat st;
	struct mt_codec_state cs;
	uint64_t off, pos;
	int fd, t, l, v2;
	char *map;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "%s: cannot open\n", path);
		return 1;
	}
	if ((size_t)st.st_size < sizeof(*h)) {
		fprintf(stderr, "%s: shorter than the file header\n", path);
		return 1;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 1;
	h = (const void *)map;
	v2 = h->version == MT_TRACE_VERSION_COMPACT;
	if (memcmp(h->magic, MT_TRACE_MAGIC, 8) ||
	    (h->version != MT_TRACE_VERSION && !v2) ||
	    h->data_off != (v2 ? MT_CODEC_DATA_OFF : MT_FILE_HDR_SIZE) ||
	    h->data_off + h->committed > (uint64_t)st.st_size) {
		fprintf(stderr, "%s: bad header (magic, version or committed=%llu beyond size %lld)\n",
			path, (unsigned long long)h->committed, (long long)st.st_size);
		return 1;
	}
	/* A compacted file (version 2): its stream decodes to the records
	 * version 1 holds, checked alike; off counts the decoded bytes. */
	mt_codec_reset(&cs);
	pos = h->data_off;
	for (off = 0; v2 ? pos < h->data_off + h->committed : off < h->committed;) {
		const struct mt_rec_hdr *r = (const void *)(map + h->data_off + off);
		const char *why = "";

		if (v2)
			r = mt_codec_decode(&cs, (const uint8_t *)map, &pos,
					    h->data_off + h->committed, &why);
		if (!r || (!v2 && (h->committed - off < sizeof(*r) ||
				   r->size < sizeof(*r) || r->size % 8 ||
				   r->size > h->committed - off)) || r->layer > 1) {
			fprintf(stderr, "%s: bad record at offset %llu%s%s\n", path,
				(unsigned long long)(v2 ? pos : off), *why ? ": " : "", why);
			return 1;
		}
		counts[r->layer][r->type < 16 ? r->type : 0]++;
		records++;
		if (r->type == MT_REC_PROC) {
			const struct mt_rec_proc *p = (const void *)r;

			printf("proc %s rank %d size %d local %d clock %u hz %llu host %s cpuset %s\n",
			       name, p->world_rank, p->world_size, p->local_rank,
			       p->clock_source, (unsigned long long)p->clock_hz,
			       p->hostname, p->cpuset);
		} else if (r->type == MT_REC_OP) {
			const struct mt_rec_op *o = (const void *)r;

			printf("op %s layer %u %s tag 0x%llx len %llu ret %d\n",
			       name, r->layer, op_name(r->aux),
			       (unsigned long long)o->tag,
			       (unsigned long long)o->len, o->ret);
		} else if (r->type == MT_REC_CQE) {
			const struct mt_rec_cqe *c = (const void *)r;

			printf("cqe %s layer %u %s tag 0x%llx len %llu err %d\n",
			       name, r->layer,
			       (c->flags & FI_RECV) ? "RECV" :
			       (c->flags & FI_SEND) ? "SEND" : "OTHER",
			       (unsigned long long)c->tag,
			       (unsigned long long)c->len, c->err);
		}
		off += r->size;
	}
	if (v2 && off != h->raw_bytes) {
		fprintf(stderr, "%s: the stream decodes to %llu bytes, the header says %llu\n",
			path, (unsigned long long)off, (unsigned long long)h->raw_bytes);
		return 1;
	}
	printf("file %s mode %o seq %u flags %u closed %u records %lu\n", name,
	       (unsigned)(st.st_mode & 07777), h->thread_seq, h->flags,
	       (h->flags & MT_FILE_CLOSED) ? 1u : 0u, records);
	for (l = 0; l < 2; l++)
		for (t = 0; t < 16; t++)
			if (counts[l][t])
				printf("type %s layer %d %s %lu\n", name, l,
				       type_name((unsigned)t), counts[l][t]);
	munmap(map, (size_t)st.st_size);
	return 0;
}

int main(int argc, char **argv)
{
	int i, bad = 0;

	if (argc < 2 || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout, "usage: %s FILE...\n", argv[0]);
		return argc < 2 ? 2 : 0;
	}
	for (i = 1; i < argc; i++)
		bad |= check(argv[i]);
	return bad;
}
