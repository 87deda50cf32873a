/*
 * mt_sym.h - call sites as source lines (library mt_sym): turns a trace's
 * call site (struct mt_trace_site: return addresses and the loaded objects
 * they lie in) into "file.c:LINE (function) via MPI_Recv", with elfutils'
 * libdw reading the objects' symbol tables and DWARF line tables as they
 * are now on disk.
 *
 * Without debug information a site falls back to "object+0xOFF (function)"
 * or "object+0xOFF" (OFF: the return address relative to the object's load
 * base, what addr2line takes once 1 is subtracted); an object whose build
 * id differs from the recorded one is not looked into (it was rebuilt), nor
 * one that is gone. The MPI entry point is the function holding the entry
 * address, PMPI_ prefixes shown as MPI_. Only sinks use it: neither the
 * provider nor decode/ know it. Prints nothing.
 */
#ifndef MT_SYM_H
#define MT_SYM_H

#include <stdint.h>

#include "mt_status.h"
#include "mt_trace.h"

/* One call site resolved. Strings are "" when unknown; line 0 then too. */
struct mt_sym_loc {
	const char *file;		/* source file, base name */
	uint32_t line;
	const char *function;		/* application function */
	const char *object;		/* object file, base name */
	uint64_t offset;		/* return address - object's load base */
	const char *entry;		/* MPI entry point: "MPI_Recv" */
	const char *text;		/* all of it, as the reports show it */
};

struct mt_sym;

/* A resolver for t's call sites; resolves each site on first use. */
enum mt_status mt_sym_new(const struct mt_trace *t, struct mt_sym **out,
			  struct mt_err *err);
void mt_sym_free(struct mt_sym *s);
/* Site number site (mt_trace_op_site) resolved, NULL for 0 or a number
 * the trace does not have. Valid until mt_sym_free. */
const struct mt_sym_loc *mt_sym_site(struct mt_sym *s, uint32_t site);

#endif /* MT_SYM_H */
