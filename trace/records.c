/*
 * records.c - per record type and per op facts, generated from the
 * MT_REC_TYPES and MT_OPS lists of mt_trace.h so they cannot drift.
 */
#include <stddef.h>

#include "mt_trace.h"

/* Record type -> struct, spelled once for the size table below. */
#define REC_STRUCT_PROC struct mt_rec_proc
#define REC_STRUCT_CLOCK struct mt_rec_clock
#define REC_STRUCT_OBJ struct mt_rec_obj
#define REC_STRUCT_EP struct mt_rec_ep
#define REC_STRUCT_BIND struct mt_rec_bind
#define REC_STRUCT_AV struct mt_rec_av
#define REC_STRUCT_OP struct mt_rec_op
#define REC_STRUCT_CQE struct mt_rec_cqe
#define REC_STRUCT_CLOSE struct mt_rec_close
#define REC_STRUCT_MAP struct mt_rec_map
#define REC_STRUCT_SITE struct mt_rec_site

size_t mt_trace_rec_min_size(unsigned type)
{
	switch (type) {
#define REC_SIZE(name, val) case val: return sizeof(REC_STRUCT_##name);
	MT_REC_TYPES(REC_SIZE)
#undef REC_SIZE
	}
	return 0;
}

#define NAME_ENTRY(name, val) [val] = #name,
#define TABLE_LOOKUP(table, i) \
	((i) < sizeof(table) / sizeof((table)[0]) ? (table)[i] : NULL)

const char *mt_trace_rec_name(unsigned type)
{
	static const char *const names[] = { MT_REC_TYPES(NAME_ENTRY) };

	return TABLE_LOOKUP(names, type);
}

const char *mt_trace_op_name(unsigned op)
{
	static const char *const names[] = { MT_OPS(NAME_ENTRY) };

	return TABLE_LOOKUP(names, op);
}
