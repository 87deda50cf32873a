/*
 * bench_rec_loss - what a record costs the application when the thread's
 * trace file has room, and when it is full and the record is only counted
 * as lost (FI_OFI_HOOK_MSGTRACE_BUFFER_SIZE exhausted). One mode per
 * process, because the recording state is process-wide:
 *   bench_rec_loss room|full DIR [N]
 * prints "<mode> <ns per record>". bench/rec_loss.sh runs both and prints
 * the ratio full/room: dropping must not cost more than recording.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mt_rec.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 3 ? atol(argv[3]) : 1000000;
	int full = argc > 2 && !strcmp(argv[1], "full");
	struct mt_rec_conf c = {
		.dir = argc > 2 ? argv[2] : "", .chunk_size = 4 << 20,
		.buffer_size = full ? 8192 : (uint64_t)(n + 1000) * sizeof(struct mt_rec_op),
		.file_mode = 0600,
	};
	double t0, t1;

	if (argc < 3 || (!full && strcmp(argv[1], "room"))) {
		fprintf(stderr, "usage: bench_rec_loss room|full DIR [N]\n");
		return 2;
	}
	if (mt_rec_init(&c))
		return 1;
	/* Create the file and, in full mode, fill it before timing. */
	for (int i = 0; i < 200; i++) {
		struct mt_rec_opargs a = { 1, 2, (uint64_t)i, 0, 8, 0, 3, 0 };

		mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSEND, &a), 0, 0);
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		struct mt_rec_opargs a = { 1, 2, (uint64_t)i, 0, 8, 0, 3, 0 };

		mt_rec_op_end(mt_rec_op_begin(0, MT_OP_TSEND, &a), 0, 0);
	}
	t1 = now_ns();
	mt_rec_fini();
	printf("%s %.2f\n", argv[1], (t1 - t0) / (double)n);
	return 0;
}
