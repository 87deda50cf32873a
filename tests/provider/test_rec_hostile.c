/*
 * test_rec_hostile.c - the recording path against a hostile trace
 * directory: a name planted where the thread's trace file will go (a
 * symlink to a file the attacker wants written or created) must never be
 * followed, and an unwritable directory must be found at init, with one
 * warning (the e2e test reliab_dir checks the same through libfabric).
 */
#define _GNU_SOURCE /* setresuid */
#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mt_rec.h"

static char tmp[PATH_MAX];
static char dir[PATH_MAX + 16];
static char victim[PATH_MAX + 16];
static char warnings[8][512];
static int nwarn;

static void collect(const char *msg)
{
	if (nwarn < 8)
		snprintf(warnings[nwarn], sizeof(warnings[0]), "%s", msg);
	nwarn++;
}

static void setup(void)
{
	snprintf(tmp, sizeof(tmp), "%s/mt_rec_hostile.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(tmp));
	snprintf(dir, sizeof(dir), "%s/trace", tmp);
	snprintf(victim, sizeof(victim), "%s/victim", tmp);
	cr_assert_eq(mkdir(dir, 0700), 0);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(rec_hostile, .init = setup, .fini = teardown);

static int record_one(void)
{
	struct mt_rec_conf c = {
		.dir = dir, .buffer_size = 1 << 20, .chunk_size = 4096,
		.file_mode = 0600, .fi_version = 0x10011, .warn = collect,
	};
	struct mt_rec_opargs a = { 0 };

	if (mt_rec_init(&c))
		return -1;
	mt_rec_op(0, MT_OP_TSEND, mt_rec_now(), &a, 0);
	mt_rec_fini();
	return 0;
}

/* Plants a symlink named like this process's first trace file. */
static void plant(const char *target)
{
	char host[64] = "", path[PATH_MAX + 128];

	gethostname(host, sizeof(host) - 1);
	snprintf(path, sizeof(path), "%s/%s.%d.0.mt", dir, host, (int)getpid());
	cr_assert_eq(symlink(target, path), 0);
}

Test(rec_hostile, dangling_symlink_file_is_not_followed)
{
	struct stat st;

	plant(victim);	/* O_CREAT alone would create the victim */
	cr_assert_eq(record_one(), 0);
	cr_assert_eq(lstat(victim, &st), -1, "the symlink was followed: victim created");
	cr_assert(strstr(warnings[0], "cannot create") && strstr(warnings[0], "File exists"),
		  "%s", warnings[0]);
}

Test(rec_hostile, symlink_to_existing_file_is_not_written)
{
	struct stat before, after;
	FILE *f = fopen(victim, "w");

	cr_assert_not_null(f);
	fputs("precious", f);
	fclose(f);
	cr_assert_eq(stat(victim, &before), 0);
	plant(victim);
	cr_assert_eq(record_one(), 0);
	cr_assert_eq(stat(victim, &after), 0);
	cr_assert_eq(after.st_size, 8, "the victim was truncated or written through the symlink");
	cr_assert_eq(after.st_mode, before.st_mode, "the victim's mode changed");
}

/* Root writes anywhere but on a read-only mount, so a child drops to
 * nobody, for whom the 0555 directory is unwritable. */
Test(rec_hostile, unwritable_directory_found_at_init)
{
	int status;
	pid_t pid;

	cr_assert_eq(chmod(tmp, 0711), 0);
	cr_assert_eq(chmod(dir, 0555), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (geteuid() == 0 && setresuid(65534, 65534, 65534))
			_exit(3);
		_exit(record_one() == -1 && nwarn == 1 &&
		      strstr(warnings[0], "cannot write to trace directory") ? 0 : 1);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "init must refuse an unwritable directory with one warning (status %d)",
		  status);
}
