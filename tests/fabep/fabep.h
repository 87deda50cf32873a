/*
 * fabep.h - one RDM endpoint for tagged messages on a named libfabric
 * provider, opened the way Open MPI's OFI MTL opens its own (manual
 * progress, FI_CONTEXT, a tagged-format CQ, an FI_AV_MAP address vector),
 * for the bench and test programs that drive libfabric themselves
 * (bench_fabric, fork_fabric). It knows nothing of msgtrace: the programs
 * run with the hook or without it.
 */
#ifndef FABEP_H
#define FABEP_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>

#define FABEP_NAME_MAX 256

struct fabep {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_ep *ep;
	struct fid_cq *cq;
	struct fid_av *av;
	char name[FABEP_NAME_MAX];	/* this endpoint's address */
	size_t name_len;
};

/*
 * fabep_open() opens e on provider prov (e.g. "tcp;ofi_rxm"), bound to
 * node (an address or host name; NULL: 127.0.0.1, for a peer on this
 * host). The CQ takes receive completions and transmit ones with
 * tx_flags (FI_SELECTIVE_COMPLETION: sends complete only when asked, as
 * the MTL binds it). Returns 0, or a negative libfabric error code with
 * *what naming the call that failed; what is open then stays open (the
 * programs exit).
 * fabep_close() closes what fabep_open() opened.
 */
int fabep_open(struct fabep *e, const char *prov, const char *node,
	       uint64_t tx_flags, const char **what);
void fabep_close(struct fabep *e);

#endif /* FABEP_H */
