/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * addrinfo.c — rdma_getaddrinfo (IP addresses and ports through libc's
 * getaddrinfo; RoCE has no SA path records to add) and the endpoint
 * helpers built on it, rdma_create_ep and rdma_destroy_ep.
 */
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm.h"

static struct sockaddr *sr_rcm_dup_addr(const struct sockaddr *a, socklen_t len)
{
	struct sockaddr *d = malloc(len);

	if (d != NULL)
		memcpy(d, a, len);
	return d;
}

int rdma_getaddrinfo(const char *node, const char *service,
		     const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	struct addrinfo h = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
	struct rdma_addrinfo *r;
	int rc;

	/* Addresses come from node/service, or from the hints alone
	 * (libfabric's verbs provider passes its sockaddrs that way). */
	if (res == NULL || (node == NULL && service == NULL &&
			    (hints == NULL || (hints->ai_src_addr == NULL &&
					       hints->ai_dst_addr == NULL)))) {
		errno = EINVAL;
		return -1;
	}
	if (hints != NULL) {
		if (hints->ai_flags & RAI_PASSIVE)
			h.ai_flags |= AI_PASSIVE;
		if (hints->ai_flags & RAI_NUMERICHOST)
			h.ai_flags |= AI_NUMERICHOST;
		if (hints->ai_family == AF_INET || hints->ai_family == AF_INET6)
			h.ai_family = hints->ai_family;
		else if (hints->ai_family != 0 && hints->ai_family != AF_UNSPEC) {
			errno = EAFNOSUPPORT;   /* AF_IB: no IB addressing on RoCE */
			return -1;
		}
	}
	if (node != NULL || service != NULL) {
		rc = getaddrinfo(node, service, &h, &ai);
		if (rc != 0) {
			errno = rc == EAI_SYSTEM ? errno : ENOENT;
			return -1;
		}
	}
	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		freeaddrinfo(ai);
		errno = ENOMEM;
		return -1;
	}
	r->ai_flags = hints ? hints->ai_flags : 0;
	r->ai_family = ai ? ai->ai_family : AF_INET;
	r->ai_port_space = hints && hints->ai_port_space ? hints->ai_port_space
							  : RDMA_PS_TCP;
	r->ai_qp_type = hints && hints->ai_qp_type ? hints->ai_qp_type
			: (r->ai_port_space == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC);
	if (ai != NULL && (r->ai_flags & RAI_PASSIVE)) {
		r->ai_src_addr = sr_rcm_dup_addr(ai->ai_addr, ai->ai_addrlen);
		r->ai_src_len = ai->ai_addrlen;
	} else if (ai != NULL) {
		r->ai_dst_addr = sr_rcm_dup_addr(ai->ai_addr, ai->ai_addrlen);
		r->ai_dst_len = ai->ai_addrlen;
	} else if (hints->ai_dst_addr != NULL && hints->ai_dst_len > 0) {
		r->ai_dst_addr = sr_rcm_dup_addr(hints->ai_dst_addr,
						 hints->ai_dst_len);
		r->ai_dst_len = hints->ai_dst_len;
	}
	if (r->ai_src_addr == NULL && hints != NULL &&
	    hints->ai_src_addr != NULL && hints->ai_src_len > 0) {
		r->ai_src_addr = sr_rcm_dup_addr(hints->ai_src_addr,
						 hints->ai_src_len);
		r->ai_src_len = hints->ai_src_len;
	}
	if (r->ai_src_addr != NULL)
		r->ai_family = r->ai_src_addr->sa_family;
	else if (r->ai_dst_addr != NULL)
		r->ai_family = r->ai_dst_addr->sa_family;
	freeaddrinfo(ai);
	if ((r->ai_src_len && r->ai_src_addr == NULL) ||
	    (r->ai_dst_len && r->ai_dst_addr == NULL)) {
		rdma_freeaddrinfo(r);
		errno = ENOMEM;
		return -1;
	}
	*res = r;
	return 0;
}

void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	struct rdma_addrinfo *n;

	for (; res != NULL; res = n) {
		n = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
	}
}

int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res,
		   struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	struct rdma_cm_id *cm;
	struct sr_rcm_id *r;
	int err;

	if (id == NULL || res == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (rdma_create_id(NULL, &cm, NULL,
			   (enum rdma_port_space)res->ai_port_space) != 0)
		return -1;
	r = sr_rcm_id(cm);
	if (res->ai_flags & RAI_PASSIVE) {
		if (res->ai_src_addr == NULL ||
		    rdma_bind_addr(cm, res->ai_src_addr) != 0)
			goto fail;
		if (qp_init_attr != NULL) {
			/* Each request's QP is made of these (rdma_get_request). */
			r->ep_qp_attr = malloc(sizeof(*qp_init_attr));
			if (r->ep_qp_attr == NULL) {
				errno = ENOMEM;
				goto fail;
			}
			*r->ep_qp_attr = *qp_init_attr;
			r->ep_qp_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
			r->ep_pd = pd;
		}
		*id = cm;
		return 0;
	}
	if (rdma_resolve_addr(cm, res->ai_src_addr, res->ai_dst_addr, 2000) != 0 ||
	    rdma_resolve_route(cm, 2000) != 0)
		goto fail;
	if (qp_init_attr != NULL) {
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		if (rdma_create_qp(cm, pd, qp_init_attr) != 0)
			goto fail;
	}
	*id = cm;
	return 0;
fail:
	err = errno;
	free(r->ep_qp_attr);
	rdma_destroy_id(cm);
	errno = err;
	return -1;
}

void rdma_destroy_ep(struct rdma_cm_id *id)
{
	struct sr_rcm_id *r;

	if (id == NULL)
		return;
	r = sr_rcm_id(id);
	rdma_destroy_qp(id);
	rdma_destroy_srq(id);
	free(r->ep_qp_attr);
	r->ep_qp_attr = NULL;
	rdma_destroy_id(id);
}
