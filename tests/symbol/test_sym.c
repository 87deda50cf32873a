/*
 * test_sym.c - call sites resolved by mt_sym on this very executable: a
 * return address taken on a known line of a known function, the MPI entry
 * point a function of ours named PMPI_Fake_recv, the load base and path
 * the provider would record (dl_iterate_phdr). Then the fallbacks: an
 * object rebuilt since (other build id), no map at all.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mt_sym.h"

static uint64_t ret_addr;
static int call_line;

__attribute__((noinline)) void PMPI_Fake_recv(void);
__attribute__((noinline)) void PMPI_Fake_recv(void)
{
	ret_addr = (uint64_t)(uintptr_t)__builtin_return_address(0);
	__asm__ volatile("");
}

static __attribute__((noinline)) void app_function(void)
{
	call_line = __LINE__ + 1;
	PMPI_Fake_recv();
	__asm__ volatile("");
}

/* This executable's MAP record as the provider writes it. */
static struct {
	struct mt_rec_map m;
	char more[4096];
} map;

static int own(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size, (void)arg;
	map.m.base = info->dlpi_addr;	/* the first object: the executable */
	map.m.start = 0;
	map.m.end = UINT64_MAX;
	return 1;
}

static struct mt_trace t;
static struct mt_trace_map tm;
static struct mt_trace_site site;

static void setup_trace(void)
{
	/* The path runs on past path[8] into the record's rest (more). */
	char *path = (char *)&map + offsetof(struct mt_rec_map, path);
	ssize_t n = readlink("/proc/self/exe", path, sizeof(map.more));

	cr_assert_gt(n, 0);
	path[n] = 0;
	dl_iterate_phdr(own, NULL);
	app_function();
	tm = (struct mt_trace_map){ 0, &map.m };
	site = (struct mt_trace_site){ 0, ret_addr,
		(uint64_t)(uintptr_t)&PMPI_Fake_recv + 1, &tm, &tm };
	t.maps = &tm;
	t.nmaps = 1;
	t.sites = &site;
	t.nsites = 1;
}

static const struct mt_sym_loc *resolve(struct mt_sym **s)
{
	struct mt_err err;

	cr_assert_eq(mt_sym_new(&t, s, &err), MT_OK);
	cr_assert_null(mt_sym_site(*s, 0), "site 0 is no site");
	cr_assert_null(mt_sym_site(*s, 2), "a number the trace does not have");
	return mt_sym_site(*s, 1);
}

Test(sym, file_line_function_entry, .init = setup_trace)
{
	struct mt_sym *s;
	const struct mt_sym_loc *l = resolve(&s);
	char want[128];

	cr_assert_not_null(l);
	cr_assert_str_eq(l->file, "test_sym.c");
	cr_assert_eq(l->line, (uint32_t)call_line);
	cr_assert_str_eq(l->function, "app_function");
	cr_assert_str_eq(l->entry, "MPI_Fake_recv", "PMPI_ shown as MPI_");
	snprintf(want, sizeof(want), "test_sym.c:%d (app_function) via MPI_Fake_recv",
		 call_line);
	cr_assert_str_eq(l->text, want);
	cr_assert_eq(l->offset, ret_addr - map.m.base);
	cr_assert_eq(mt_sym_site(s, 1), l, "resolved once, then cached");
	mt_sym_free(s);
}

Test(sym, rebuilt_object_falls_back_to_offset, .init = setup_trace)
{
	struct mt_sym *s;
	const struct mt_sym_loc *l;
	char want[128];

	map.m.build_id_len = 20;
	memset(map.m.build_id, 0xab, 20);
	l = resolve(&s);
	cr_assert_not_null(l);
	snprintf(want, sizeof(want), "test_sym+0x%llx",
		 (unsigned long long)(ret_addr - map.m.base));
	cr_assert_str_eq(l->text, want);
	cr_assert_eq(l->line, 0);
	mt_sym_free(s);
}

Test(sym, no_map, .init = setup_trace)
{
	struct mt_sym *s;
	const struct mt_sym_loc *l;
	char want[64];

	site.app_map = site.entry_map = NULL;
	l = resolve(&s);
	cr_assert_not_null(l);
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)ret_addr);
	cr_assert_str_eq(l->text, want);
	mt_sym_free(s);
}
