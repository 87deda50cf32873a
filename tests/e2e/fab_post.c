/*
 * fab_post - a libfabric program without MPI: opens one RDM endpoint on a
 * provider (fabep), posts N tagged receives and cancels each, closes what
 * it opened and exits. For the hook's tests that need real libfabric
 * objects and a known number of calls (with a small buffer, records past
 * its limit), or a provider's own objects (rxm's fabrics on libfabric 2.x),
 * and nothing of MPI.
 *
 * Usage: fab_post PROVIDER N
 */
#include <stdio.h>
#include <stdlib.h>

#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#include "fabep.h"

int main(int argc, char **argv)
{
	struct fabep e;
	const char *what = "";
	char buf[64];
	struct fi_context ctx;
	long n;
	int ret;

	if (argc != 3 || (n = strtol(argv[2], NULL, 10)) < 0) {
		fprintf(stderr, "usage: fab_post PROVIDER N\n");
		return 2;
	}
	ret = fabep_open(&e, argv[1], 0, &what);
	if (ret) {
		fprintf(stderr, "fab_post: %s: %s\n", what, fi_strerror(-ret));
		return 1;
	}
	for (long i = 0; i < n; i++) {
		ret = (int)fi_trecv(e.ep, buf, sizeof(buf), NULL, FI_ADDR_UNSPEC,
				    (uint64_t)i, 0, &ctx);
		if (!ret)
			ret = (int)fi_cancel(&e.ep->fid, &ctx);
		if (ret) {
			fprintf(stderr, "fab_post: receive %ld: %s\n", i, fi_strerror(-ret));
			return 1;
		}
	}
	fabep_close(&e);
	printf("fab_post: %ld receives posted and cancelled on %s\n", n, argv[1]);
	return 0;
}
