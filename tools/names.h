/*
 * names.h - human names for the numbers a trace stores (private to tools/):
 * libfabric flag bits, fid classes, error codes, op and record names, and
 * address bytes. tools/ may use libfabric's public constants; the trace
 * reader may not, which is why these live here.
 */
#ifndef MT_NAMES_H
#define MT_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* Which meaning to give bits that libfabric reuses (bit 58/59). */
enum mt_name_flag_set {
	MT_NAME_OP_FLAGS,	/* op and CQ entry flags: FI_CLAIM ... */
	MT_NAME_CAPS,		/* endpoint caps: FI_DIRECTED_RECV ... */
	MT_NAME_BIND_FLAGS,	/* bind flags: FI_SELECTIVE_COMPLETION ... */
};

/* "FI_TAGGED|FI_RECV|0x1000" into buf; "0" for no bits. Returns buf. */
char *mt_name_flags(char *buf, size_t len, uint64_t flags,
		    enum mt_name_flag_set set);
/* "cq", "ep", ... for a fid class, NULL when unknown. */
const char *mt_name_fid_class(uint32_t fclass);
/* "FI_ETRUNC" for 265 (positive libfabric errno), NULL when unknown. */
const char *mt_name_errno(int err);
/* "0a000001..." hex, followed by " (1.2.3.4:5)" for a sockaddr_in/in6. */
char *mt_name_addr(char *buf, size_t len, const uint8_t *addr, size_t n);
/* Lower-case copy of a record or op name ("tsend"), "?" when NULL. */
const char *mt_name_lower(char *buf, size_t len, const char *name);

#endif /* MT_NAMES_H */
