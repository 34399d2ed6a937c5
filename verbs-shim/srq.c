/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.c — shared receive queues on lib/qp/srq.h: basic and XRC SRQs (an
 * XRC domain and a CQ; ibv_get_srq_num gives what initiators name), no
 * tag matching.  The limit event arrives as an async event.
 */
#include <errno.h>
#include <stdlib.h>

#include "qp/srq.h"
#include "shim.h"

static struct sr_ibv_srq *sr_srq_of(struct ibv_srq *srq)
{
	return sr_container_of(srq, struct sr_ibv_srq, ibsrq);
}

struct ibv_srq *sr_ibv_create_srq_ex(struct ibv_context *c,
				     struct ibv_srq_init_attr_ex *a)
{
	struct sr_ibv_ctx *ctx = sr_ctx(c);
	struct sr_srq_attr sa;
	struct sr_ibv_srq *w;
	int rc;

	bool xrc;

	if (a->comp_mask & ~(uint32_t)(IBV_SRQ_INIT_ATTR_TYPE |
				       IBV_SRQ_INIT_ATTR_PD |
				       IBV_SRQ_INIT_ATTR_XRCD |
				       IBV_SRQ_INIT_ATTR_CQ)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	xrc = (a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	      a->srq_type == IBV_SRQT_XRC;
	if ((a->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	    a->srq_type != IBV_SRQT_BASIC && !xrc) {
		errno = EOPNOTSUPP;          /* tag matching */
		return NULL;
	}
	if (!(a->comp_mask & IBV_SRQ_INIT_ATTR_PD) || a->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* an XRC SRQ needs its domain and its CQ */
	if (xrc && (!(a->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) ||
		    a->xrcd == NULL ||
		    !(a->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || a->cq == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	w = sr_ibv_obj_new(ctx->rt, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->rt = ctx->rt;
	sa.max_wr = a->attr.max_wr;
	sa.max_sge = a->attr.max_sge;
	sa.srq_limit = a->attr.srq_limit;
	if (xrc)
		w->srq = sr_srq_create_xrc(ctx->rt->dev,
				sr_container_of(a->pd, struct sr_ibv_pd, ibpd)->pd,
				sr_xrcd_of(a->xrcd)->xrcd, sr_cq_of(a->cq)->cq,
				&sa);
	else
		w->srq = sr_srq_create(ctx->rt->dev,
				sr_container_of(a->pd, struct sr_ibv_pd, ibpd)->pd,
				&sa);
	if (w->srq == NULL) {
		errno = sr_dev_srq_count(ctx->rt->dev) >= SR_MAX_SRQ ? ENOMEM
								   : EINVAL;
		goto out_free;
	}
	/* before the map: an event's ack may take them from now on */
	pthread_mutex_init(&w->ibsrq.mutex, NULL);
	pthread_cond_init(&w->ibsrq.cond, NULL);
	rc = sr_ibv_map_add(ctx->rt, w->srq, &w->ibsrq, ctx);
	if (rc) {
		errno = sr_ibv_err(rc);
		goto out_destroy;
	}
	if (sr_srq_query(w->srq, &sa) == 0) {
		a->attr.max_wr = sa.max_wr;
		a->attr.max_sge = sa.max_sge;
	}
	w->ibsrq.context = c;
	w->ibsrq.srq_context = a->srq_context;
	w->ibsrq.pd = a->pd;
	return &w->ibsrq;
out_destroy:
	sr_srq_destroy(w->srq);
out_free:
	free(w);
	return NULL;
}

struct ibv_srq *ibv_create_srq(struct ibv_pd *pd,
			       struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ax = { 0 };
	struct ibv_srq *srq;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ax.srq_context = attr->srq_context;
	ax.attr = attr->attr;
	ax.comp_mask = IBV_SRQ_INIT_ATTR_PD;
	ax.pd = pd;
	srq = sr_ibv_create_srq_ex(pd->context, &ax);
	if (srq)
		attr->attr = ax.attr;
	return srq;
}

int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		   int mask)
{
	struct sr_srq_attr sa;

	if (srq == NULL || attr == NULL)
		return EINVAL;
	sa.max_wr = attr->max_wr;
	sa.max_sge = attr->max_sge;
	sa.srq_limit = attr->srq_limit;
	/* IBV_SRQ_MAX_WR / IBV_SRQ_LIMIT are SR_SRQ_MAX_WR / SR_SRQ_LIMIT */
	return sr_ibv_err(sr_srq_modify(sr_srq_of(srq)->srq, &sa,
					(unsigned int)mask));
}

int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct sr_srq_attr sa;
	int rc;

	if (srq == NULL || attr == NULL)
		return EINVAL;
	rc = sr_srq_query(sr_srq_of(srq)->srq, &sa);
	if (rc)
		return sr_ibv_err(rc);
	attr->max_wr = sa.max_wr;
	attr->max_sge = sa.max_sge;
	attr->srq_limit = sa.srq_limit;
	return 0;
}

int sr_ibv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)
{
	if (srq == NULL || srq_num == NULL)
		return EINVAL;
	*srq_num = sr_srq_num(sr_srq_of(srq)->srq);
	return 0;
}

int ibv_destroy_srq(struct ibv_srq *srq)
{
	struct sr_ibv_srq *w;
	int rc;

	if (srq == NULL)
		return EINVAL;
	w = sr_srq_of(srq);
	rc = sr_srq_destroy(w->srq);
	if (rc)
		return sr_ibv_err(rc);
	sr_ibv_map_del(w->rt, w->srq, &w->ibsrq, IBV_EVENT_SRQ_ERR);
	pthread_cond_destroy(&srq->cond);
	pthread_mutex_destroy(&srq->mutex);
	free(w);
	return 0;
}
