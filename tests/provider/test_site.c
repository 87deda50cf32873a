/*
 * test_site.c - the provider's per-thread call-site table (mt_site.h):
 * one index per distinct (app, entry) pair, in insertion order, and a full
 * table answering MT_SITE_LOST (counted) for new pairs while the pairs it
 * holds keep their index.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "mt_site.h"

static struct mt_site_tab *tab(void)
{
	struct mt_site_tab *t = calloc(1, sizeof(*t));

	cr_assert_not_null(t);
	return t;
}

Test(site, dedupe)
{
	struct mt_site_tab *t = tab();
	int fresh;

	cr_assert_eq(mt_hook_site_tab_get(t, 0x401000, 0x7f0000001000, &fresh), 1);
	cr_assert(fresh);
	cr_assert_eq(mt_hook_site_tab_get(t, 0x401000, 0x7f0000002000, &fresh), 2,
		     "same application address, other MPI entry: another site");
	cr_assert(fresh);
	cr_assert_eq(mt_hook_site_tab_get(t, 0x401008, 0x7f0000001000, &fresh), 3);
	cr_assert_eq(mt_hook_site_tab_get(t, 0x401000, 0x7f0000001000, &fresh), 1);
	cr_assert_not(fresh, "a site seen before is not written again");
	cr_assert_eq(mt_hook_site_tab_get(t, 0x401008, 0x7f0000001000, &fresh), 3);
	cr_assert_not(fresh);
	cr_assert_eq(t->n, 3);
	cr_assert_eq(t->lost, 0);
	free(t);
}

Test(site, full_table_counts_losses)
{
	struct mt_site_tab *t = tab();
	int fresh;

	/* Addresses that collide in the hash's low bits too. */
	for (uint32_t i = 0; i < MT_SITE_MAX; i++)
		cr_assert_eq(mt_hook_site_tab_get(t, 0x400000 + 16ull * i, 0, &fresh),
			     i + 1);
	cr_assert_eq(mt_hook_site_tab_get(t, 0x10, 0x20, &fresh), MT_SITE_LOST);
	cr_assert_not(fresh);
	cr_assert_eq(mt_hook_site_tab_get(t, 0x30, 0x20, &fresh), MT_SITE_LOST);
	cr_assert_eq(t->lost, 2);
	cr_assert_eq(t->n, MT_SITE_MAX);
	for (uint32_t i = 0; i < MT_SITE_MAX; i += 97) {
		cr_assert_eq(mt_hook_site_tab_get(t, 0x400000 + 16ull * i, 0, &fresh),
			     i + 1, "a full table still finds site %u", i + 1);
		cr_assert_not(fresh);
	}
	free(t);
}
