/*
 * fab_post - a libfabric program without MPI: opens one RDM endpoint on a
 * provider (fabep), posts N tagged receives, closes what it opened with
 * them still posted and exits; with "open", exits leaving it all open (as
 * a job that ends before any message came, its receives pending). For the tests that need real libfabric objects and a known number
 * of calls (with a small buffer, records past its limit), a provider's own
 * objects (rxm's fabrics on libfabric 2.x), or receives that no send
 * reached, and nothing of MPI.
 *
 * Usage: fab_post PROVIDER N [open]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "fabep.h"

int main(int argc, char **argv)
{
	struct fabep e;
	const char *what = "";
	char buf[64];
	struct fi_context *ctx;
	long n;
	int ret;

	if (argc < 3 || argc > 4 || (n = strtol(argv[2], NULL, 10)) < 0 ||
	    (argc == 4 && strcmp(argv[3], "open"))) {
		fprintf(stderr, "usage: fab_post PROVIDER N [open]\n");
		return 2;
	}
	ret = fabep_open(&e, argv[1], NULL, 0, &what);
	if (ret) {
		fprintf(stderr, "fab_post: %s: %s\n", what, fi_strerror(-ret));
		return 1;
	}
	ctx = calloc((size_t)n + 1, sizeof(*ctx));
	if (!ctx) {
		fprintf(stderr, "fab_post: out of memory\n");
		return 1;
	}
	for (long i = 0; i < n; i++) {
		ret = (int)fi_trecv(e.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
				    (uint64_t)i, 0, &ctx[i]);
		if (ret) {
			fprintf(stderr, "fab_post: receive %ld: %s\n", i, fi_strerror(-ret));
			return 1;
		}
	}
	if (argc == 4) {
		printf("fab_post: %ld receives posted on %s, left open\n", n, argv[1]);
		return 0;
	}
	fabep_close(&e);
	free(ctx);
	printf("fab_post: %ld receives posted on %s\n", n, argv[1]);
	return 0;
}
