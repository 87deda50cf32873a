/* rec_dir.c - see rec_dir.h. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "rec_dir.h"

char rec_tmp[PATH_MAX];
char rec_dir[PATH_MAX + 16];

void rec_dir_setup(void)
{
	snprintf(rec_tmp, sizeof(rec_tmp), "%s/mt_rec_test.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(rec_tmp));
	snprintf(rec_dir, sizeof(rec_dir), "%s/trace", rec_tmp);
}

void rec_dir_teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", rec_tmp);
	cr_assert_eq(system(cmd), 0);
}
