/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pd_parent.c — parent domains and thread domains (ibv_alloc_parent_domain,
 * ibv_alloc_td).
 *
 * A parent domain is its protection domain wherever a PD is taken: it
 * carries the same lib/ PD (one counted user of it, so the PD cannot go
 * first: EBUSY), and QPs, SRQs, MRs and MWs made with it are the PD's.
 * ibv_create_cq_ex takes one (IBV_CQ_INIT_ATTR_MASK_PD).  A thread domain
 * is a hint that sroce needs not (its queues are lock-free single-producer
 * rings already): it is kept and reported, nothing more.  The allocators
 * are kept with the domain; sroce's queues are lib/'s own memory, so they
 * are never called — a consumer's allocator may always be passed over
 * (IBV_ALLOCATOR_USE_DEFAULT says the same from the other side).
 */
#include <errno.h>
#include <stdlib.h>

#include "mr/mr.h"
#include "shim.h"

struct sr_ibv_pd *sr_ibv_parent_domain(struct ibv_pd *pd)
{
	struct sr_ibv_pd *p;

	if (pd == NULL)
		return NULL;
	p = sr_container_of(pd, struct sr_ibv_pd, ibpd);
	return p->protection ? p : NULL;
}

struct ibv_pd *sr_ibv_alloc_parent_domain(struct ibv_context *c,
					  struct ibv_parent_domain_init_attr *a)
{
	const uint32_t known = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	struct sr_ibv_pd *p;

	if (a == NULL || a->pd == NULL || a->pd->context != c ||
	    sr_ibv_parent_domain(a->pd) != NULL ||
	    (a->td != NULL && a->td->context != c)) {
		errno = EINVAL;
		return NULL;
	}
	if (a->comp_mask & ~known) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((a->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    (a->alloc == NULL || a->free == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p->pd = sr_container_of(a->pd, struct sr_ibv_pd, ibpd)->pd;
	sr_pd_get(p->pd);
	p->protection = a->pd;
	p->td = a->td;
	if (a->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		p->alloc = a->alloc;
		p->free = a->free;
	}
	if (a->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		p->pd_context = a->pd_context;
	p->ibpd.context = c;
	p->ibpd.handle = a->pd->handle;
	return &p->ibpd;
}

int sr_ibv_dealloc_parent_domain(struct sr_ibv_pd *p)
{
	sr_pd_put(p->pd);
	free(p);
	return 0;
}

struct ibv_td *sr_ibv_alloc_td(struct ibv_context *c,
			       struct ibv_td_init_attr *a)
{
	struct ibv_td *td;

	if (a == NULL || a->comp_mask != 0) {
		errno = a == NULL ? EINVAL : EOPNOTSUPP;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (td == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	td->context = c;
	return td;
}

int sr_ibv_dealloc_td(struct ibv_td *td)
{
	free(td);
	return 0;
}
