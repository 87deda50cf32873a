/*
 * test_spill.c - the spill file gives back every message as put, byte for
 * byte, but for the times the clock stage keeps; it takes fewer bytes than
 * the messages; a file that ends inside a record, or a directory that
 * cannot hold one, is an error that names the directory.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spill.h"

static char dir[] = "/tmp/msgtrace-test-spill.XXXXXX";

static void setup(void)
{
	cr_assert_not_null(mkdtemp(dir));
	setenv("TMPDIR", dir, 1);
}

static void teardown(void)
{
	rmdir(dir);
}

TestSuite(spill, .init = setup, .fini = teardown);

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A value of 0 to 8 significant bytes, or all ones. */
static uint64_t any_width(void)
{
	unsigned bytes = (unsigned)(rnd() % 10);

	return bytes == 9 ? ~0ull : bytes == 0 ? 0 : rnd() >> (64 - 8 * bytes);
}

/* Every byte of a message at random, each 32-bit field of any width. */
static void random_msg(struct mt_match_msg *m)
{
	uint32_t s[26];
	uint64_t t[4];

	for (unsigned i = 0; i < 26; i++)
		s[i] = (uint32_t)any_width();
	memcpy(m, s, sizeof(s));
	for (unsigned w = 0; w < 4; w++)
		switch (rnd() % 6) {
		case 0: t[w] = MT_MATCH_NOTIME; break;
		case 4: t[w] = 1000000 + rnd() % 60000; break;	/* near */
		case 5: t[w] = 1000000 + rnd() % 4000000000u; break;
		case 1: t[w] = (uint64_t)INT64_MAX + 1 + rnd() % 1000; break;
		case 2: t[w] = (uint64_t)INT64_MAX; break;
		default: t[w] = rnd() >> 4; break;
		}
	memcpy(&m->t_send_post, t, sizeof(t));
}

/* m as the spill gives it back: a time of at most INT64_MAX is the clock
 * stage's to write back. */
static struct mt_match_msg as_read(struct mt_match_msg m)
{
	uint64_t *t[4] = { &m.t_send_post, &m.t_send_done, &m.t_recv_post,
			   &m.t_recv_done };

	for (unsigned w = 0; w < 4; w++)
		if (*t[w] <= INT64_MAX)
			*t[w] = MT_MATCH_NOTIME;
	return m;
}

/* The descriptor of the one spill file this process has open. */
static int spill_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd = -1;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		char link[300], target[512];
		ssize_t n;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = 0;
		if (strstr(target, "/msgtrace-spill.")) {
			cr_assert_eq(fd, -1, "two spill files open");
			fd = atoi(e->d_name);
		}
	}
	closedir(d);
	cr_assert_neq(fd, -1, "no spill file open");
	return fd;
}

static off_t spill_size(void)
{
	struct stat st;

	cr_assert_eq(fstat(spill_fd(), &st), 0);
	return st.st_size;
}

#define N 20000		/* several of the spill's buffers */

/* N random messages put and read back twice (times: the file keeps every
 * time), in uneven batches. */
static void round_trip(int times)
{
	static struct mt_match_msg in[N], out[N + 1];
	struct mt_pipe_spill *sp;
	struct mt_err err = { { 0 } };
	size_t got = 0, n;

	for (size_t i = 0; i < N; i++)
		random_msg(&in[i]);
	cr_assert_eq(mt_pipe_spill_open(&sp, times, &err), MT_OK, "%s", err.msg);
	/* in uneven batches, as the matcher hands them over */
	for (size_t i = 0; i < N; i += n) {
		n = 1 + rnd() % 700;
		n = n > N - i ? N - i : n;
		cr_assert_eq(mt_pipe_spill_put(sp, &in[i], n, &err), MT_OK, "%s", err.msg);
	}
	for (int pass = 0; pass < 2; pass++) {
		cr_assert_eq(mt_pipe_spill_rewind(sp, &err), MT_OK, "%s", err.msg);
		got = 0;
		do {
			size_t max = 1 + rnd() % 900;

			max = max > N + 1 - got ? N + 1 - got : max;
			cr_assert_eq(mt_pipe_spill_get(sp, &out[got], max, &n, &err),
				     MT_OK, "%s", err.msg);
			got += n;
		} while (n);
		cr_assert_eq(got, N);
		for (size_t i = 0; i < N; i++) {
			struct mt_match_msg want = times ? in[i] : as_read(in[i]);

			cr_assert_eq(memcmp(&out[i], &want, sizeof(want)), 0,
				     "pass %d, message %zu", pass, i);
		}
	}
	mt_pipe_spill_close(sp);
}

Test(spill, gives_back_every_message_as_put)
{
	round_trip(0);
	round_trip(1);
}

/* A message of a benign run: small ranks, sites, tags and lengths. */
static struct mt_match_msg benign(uint32_t i)
{
	return (struct mt_match_msg){
		.send_rank = (int32_t)(i % 10000), .recv_rank = (int32_t)((i + 1) % 10000),
		.send_ep = (int32_t)(i % 10000), .recv_ep = (int32_t)((i + 1) % 10000),
		.f = { .cid = 3, .comm_src = (int32_t)(i % 10000), .tag = (int32_t)(i % 100),
		       .kind = 1, .has_tag = 1 },
		.recv_f = { .cid = 3, .comm_src = (int32_t)(i % 10000), .tag = (int32_t)(i % 100),
			    .kind = 1, .has_tag = 1 },
		.status = 1, .send_site = 12, .recv_site = 13,
		.raw_tag = 0x0003000000000000ull | i % 100, .bytes = 4096, .recv_buf = 4096,
		.t_send_post = 1700000000000000000ull + i, .t_send_done = 1700000000000000100ull + i,
		.t_recv_post = 1700000000000000000ull + i, .t_recv_done = 1700000000000000200ull + i,
	};
}

Test(spill, takes_fewer_bytes_than_the_messages)
{
	static struct mt_match_msg in[N];
	struct mt_pipe_spill *sp;
	struct mt_err err = { { 0 } };

	for (uint32_t i = 0; i < N; i++)
		in[i] = benign(i);
	for (int times = 0; times < 2; times++) {
		cr_assert_eq(mt_pipe_spill_open(&sp, times, &err), MT_OK, "%s", err.msg);
		cr_assert_eq(mt_pipe_spill_put(sp, in, N, &err), MT_OK, "%s", err.msg);
		cr_assert_eq(mt_pipe_spill_rewind(sp, &err), MT_OK, "%s", err.msg);
		/* with times: the first 8 bytes, the others 2 each */
		cr_assert_leq(spill_size(), (off_t)N * (48 + 14 * times),
			      "%lld bytes for %d messages", (long long)spill_size(), N);
		mt_pipe_spill_close(sp);
	}
}

Test(spill, a_file_that_ends_inside_a_record_is_an_error)
{
	static struct mt_match_msg in[N], out[N];
	struct mt_pipe_spill *sp;
	struct mt_err err = { { 0 } };
	size_t n, got = 0;
	enum mt_status s;

	for (uint32_t i = 0; i < N; i++)
		in[i] = benign(i);
	cr_assert_eq(mt_pipe_spill_open(&sp, 1, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(mt_pipe_spill_put(sp, in, N, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(mt_pipe_spill_rewind(sp, &err), MT_OK, "%s", err.msg);
	cr_assert_eq(ftruncate(spill_fd(), spill_size() - 3), 0);
	while (!(s = mt_pipe_spill_get(sp, out, 1000, &n, &err)) && n)
		got += n;
	cr_assert_eq(s, MT_ERR_IO);
	cr_assert_eq(got, N - 1000, "the batch with the cut record is not given");
	cr_assert_not_null(strstr(err.msg, dir), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "short read"), "%s", err.msg);
	mt_pipe_spill_close(sp);
}

Test(spill, a_directory_that_cannot_hold_it_is_named)
{
	struct mt_pipe_spill *sp;
	struct mt_err err = { { 0 } };
	char missing[300];

	snprintf(missing, sizeof(missing), "%s/none", dir);
	setenv("TMPDIR", missing, 1);
	cr_assert_eq(mt_pipe_spill_open(&sp, 0, &err), MT_ERR_IO);
	cr_assert_not_null(strstr(err.msg, missing), "%s", err.msg);
	cr_assert_not_null(strstr(err.msg, "No such file"), "%s", err.msg);
}
