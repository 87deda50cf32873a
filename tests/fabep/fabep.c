/*
 * fabep.c - open and close the endpoint of fabep.h.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include "fabep.h"

/* A step of the opening: on failure, its name and its return value. */
#define STEP(name, call)			\
	do {					\
		if ((ret = (call))) {		\
			*what = (name);		\
			return ret;		\
		}				\
	} while (0)

int fabep_open(struct fabep *e, const char *prov, const char *node,
	       uint64_t tx_flags, const char **what)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED };
	struct fi_av_attr av_attr = { .type = FI_AV_MAP };
	int ret;

	memset(e, 0, sizeof(*e));
	if (!hints) {
		*what = "fi_allocinfo";
		return -FI_ENOMEM;
	}
	hints->caps = FI_TAGGED;
	hints->ep_attr->type = FI_EP_RDM;
	hints->domain_attr->threading = FI_THREAD_DOMAIN;
	hints->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	hints->mode = FI_CONTEXT;
	hints->fabric_attr->prov_name = strdup(prov);	/* fi_freeinfo frees it */
	ret = fi_getinfo(FI_VERSION(1, 17), node ? node : "127.0.0.1", NULL,
			 FI_SOURCE, hints, &e->info);
	fi_freeinfo(hints);
	if (ret) {
		*what = "fi_getinfo";
		return ret;
	}
	STEP("fi_fabric", fi_fabric(e->info->fabric_attr, &e->fabric, NULL));
	STEP("fi_domain", fi_domain(e->fabric, e->info, &e->domain, NULL));
	STEP("fi_cq_open", fi_cq_open(e->domain, &cq_attr, &e->cq, NULL));
	STEP("fi_av_open", fi_av_open(e->domain, &av_attr, &e->av, NULL));
	STEP("fi_endpoint", fi_endpoint(e->domain, e->info, &e->ep, NULL));
	STEP("fi_ep_bind (tx cq)",
	     fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | tx_flags));
	STEP("fi_ep_bind (rx cq)", fi_ep_bind(e->ep, &e->cq->fid, FI_RECV));
	STEP("fi_ep_bind (av)", fi_ep_bind(e->ep, &e->av->fid, 0));
	STEP("fi_enable", fi_enable(e->ep));
	e->name_len = sizeof(e->name);
	STEP("fi_getname", fi_getname(&e->ep->fid, e->name, &e->name_len));
	return 0;
}

void fabep_close(struct fabep *e)
{
	fi_close(&e->ep->fid);
	fi_close(&e->av->fid);
	fi_close(&e->cq->fid);
	fi_close(&e->domain->fid);
	fi_close(&e->fabric->fid);
	fi_freeinfo(e->info);
}
