/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp.c — the QP of an rdma_cm_id, moved through its states in the
 * consumer's thread, as rdma-core's librdmacm does: INIT at creation
 * (UD: on to RTS, Q_Key RDMA_UDP_QKEY); at connection INIT again with the
 * remote rights the CM negotiated, RTR and RTS with lib/cm/cma.h's
 * attributes; the error state at disconnection.  Also the CQs and
 * channels rdma_create_qp makes when the consumer gives none, the
 * default PD, SRQs and rdma_init_qp_attr.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rdmacm.h"
#include "sroce_private.h"

static pthread_mutex_t sr_rcm_pd_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ibv_pd *sr_rcm_pds[SR_RCM_MAX_DEVS];

/* The device's default PD (rdma-core keeps one per device too). */
static struct ibv_pd *sr_rcm_default_pd(struct sr_rcm_id *r)
{
	struct ibv_pd *pd;

	if (r->dev < 0 || r->dev >= SR_RCM_MAX_DEVS)
		return NULL;
	pthread_mutex_lock(&sr_rcm_pd_lock);
	if (sr_rcm_pds[r->dev] == NULL)
		sr_rcm_pds[r->dev] = ibv_alloc_pd(r->id.verbs);
	pd = sr_rcm_pds[r->dev];
	pthread_mutex_unlock(&sr_rcm_pd_lock);
	return pd;
}

uint8_t sr_rcm_max_rd_atomic(struct ibv_context *ctx)
{
	struct ibv_device_attr da;

	if (ibv_query_device(ctx, &da) != 0 || da.max_qp_rd_atom <= 0)
		return 1;
	return (uint8_t)(da.max_qp_rd_atom > 255 ? 255 : da.max_qp_rd_atom);
}

static int sr_rcm_sgid_index(const struct sr_rcm_id *r)
{
	union ibv_gid g;

	for (int i = 0; i < 16; i++)
		if (ibv_query_gid(r->id.verbs, 1, i, &g) == 0 &&
		    memcmp(g.raw, r->route.sgid, 16) == 0)
			return i;
	return 0;
}

void sr_rcm_ah_attr(const struct sr_rcm_id *r, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, r->route.dgid, 16);
	ah->grh.sgid_index = (uint8_t)sr_rcm_sgid_index(r);
	ah->grh.hop_limit = r->route.hop_limit ? r->route.hop_limit
					       : SR_CMA_HOP_LIMIT;
	ah->grh.traffic_class = r->route.tclass;
	ah->grh.flow_label = sr_cma_flow_label(r->route.sport, r->route.dport);
	ah->port_num = 1;
}

static int sr_rcm_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int rc = ibv_modify_qp(qp, a, mask);

	return rc > 0 ? -rc : (rc < 0 ? -errno : 0);
}

/*
 * An id's QP is read and changed by the CM's event processing (another
 * thread, often) while the consumer may destroy it with ibv_destroy_qp.
 * The libibverbs drop-in tells us first (sr_rcm_qp_gone, id.c), under this
 * lock, so a QP read under it is alive until it is released.
 */
static pthread_mutex_t sr_rcm_qp_mutex = PTHREAD_MUTEX_INITIALIZER;

void sr_rcm_qp_lock(void)
{
	pthread_mutex_lock(&sr_rcm_qp_mutex);
}

void sr_rcm_qp_unlock(void)
{
	pthread_mutex_unlock(&sr_rcm_qp_mutex);
}

static int sr_rcm_qp_connect_locked(struct sr_rcm_id *r,
				    const struct sr_cma_qp_attr *c);

int sr_rcm_qp_connect(struct sr_rcm_id *r, const struct sr_cma_qp_attr *c)
{
	int rc;

	sr_rcm_qp_lock();
	rc = r->id.qp != NULL ? sr_rcm_qp_connect_locked(r, c) : -EINVAL;
	sr_rcm_qp_unlock();
	return rc;
}

static int sr_rcm_qp_connect_locked(struct sr_rcm_id *r,
				    const struct sr_cma_qp_attr *c)
{
	struct ibv_qp *qp = r->id.qp;
	struct ibv_qp_attr a;
	int rc;

	/* INIT again: the remote rights follow the negotiated resources. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (c->remote_read)
		a.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
				     IBV_ACCESS_REMOTE_ATOMIC;
	rc = sr_rcm_modify(qp, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)c->path_mtu;
	a.dest_qp_num = c->dest_qpn;
	a.rq_psn = c->rq_psn;
	a.max_dest_rd_atomic = c->max_dest_rd_atomic;
	a.min_rnr_timer = c->min_rnr_timer;
	sr_rcm_ah_attr(r, &a.ah_attr);
	rc = sr_rcm_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   (qp->qp_type == IBV_QPT_RC
					    ? IBV_QP_MAX_DEST_RD_ATOMIC |
						      IBV_QP_MIN_RNR_TIMER
					    : 0));
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->sq_psn;
	a.timeout = c->timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = c->rnr_retry;
	a.max_rd_atomic = c->max_rd_atomic;
	return sr_rcm_modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				     (qp->qp_type == IBV_QPT_RC
					      ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
							IBV_QP_RNR_RETRY |
							IBV_QP_MAX_QP_RD_ATOMIC
					      : 0));
}

int sr_rcm_qp_error(struct sr_rcm_id *r)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int rc = 0;

	sr_rcm_qp_lock();
	if (r->id.qp != NULL)
		rc = sr_rcm_modify(r->id.qp, &a, IBV_QP_STATE);
	sr_rcm_qp_unlock();
	return rc;
}

/* A new QP to INIT (RC, UC) or on to RTS (UD). */
static int sr_rcm_qp_init(struct sr_rcm_id *r, struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	int rc;

	if (qp->qp_type != IBV_QPT_UD)
		return sr_rcm_modify(qp, &a, mask | IBV_QP_ACCESS_FLAGS);
	a.qkey = SR_CMA_UDP_QKEY;
	rc = sr_rcm_modify(qp, &a, mask | IBV_QP_QKEY);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	rc = sr_rcm_modify(qp, &a, IBV_QP_STATE);
	if (rc)
		return rc;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	(void)r;
	return sr_rcm_modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* CQs (and their channels) for a QP the consumer gave none. */
static int sr_rcm_cqs(struct sr_rcm_id *r, struct ibv_qp_init_attr_ex *a)
{
	struct rdma_cm_id *id = &r->id;

	if (a->send_cq != NULL && a->recv_cq != NULL)
		return 0;
	if (a->recv_cq == NULL) {
		id->recv_cq_channel = ibv_create_comp_channel(id->verbs);
		id->recv_cq = id->recv_cq_channel
			? ibv_create_cq(id->verbs, (int)(a->cap.max_recv_wr ? a->cap.max_recv_wr : 1),
					id, id->recv_cq_channel, 0) : NULL;
		if (id->recv_cq == NULL)
			return -ENOMEM;
		a->recv_cq = id->recv_cq;
	}
	if (a->send_cq == NULL) {
		id->send_cq_channel = ibv_create_comp_channel(id->verbs);
		id->send_cq = id->send_cq_channel
			? ibv_create_cq(id->verbs, (int)(a->cap.max_send_wr ? a->cap.max_send_wr : 1),
					id, id->send_cq_channel, 0) : NULL;
		if (id->send_cq == NULL)
			return -ENOMEM;
		a->send_cq = id->send_cq;
	}
	r->own_cqs = true;
	return 0;
}

static void sr_rcm_cqs_free(struct sr_rcm_id *r)
{
	struct rdma_cm_id *id = &r->id;

	if (!r->own_cqs)
		return;
	if (id->send_cq)
		ibv_destroy_cq(id->send_cq);
	if (id->recv_cq)
		ibv_destroy_cq(id->recv_cq);
	if (id->send_cq_channel)
		ibv_destroy_comp_channel(id->send_cq_channel);
	if (id->recv_cq_channel)
		ibv_destroy_comp_channel(id->recv_cq_channel);
	id->send_cq = id->recv_cq = NULL;
	id->send_cq_channel = id->recv_cq_channel = NULL;
	r->own_cqs = false;
}

int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	struct sr_rcm_id *r;
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;
	int rc;

	if (id == NULL || attr == NULL || id->verbs == NULL || id->qp != NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	a = *attr;
	if (!(a.comp_mask & IBV_QP_INIT_ATTR_PD) || a.pd == NULL) {
		a.pd = id->pd ? id->pd : sr_rcm_default_pd(r);
		a.comp_mask |= IBV_QP_INIT_ATTR_PD;
		if (a.pd == NULL) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (a.pd->context != id->verbs) {
		errno = EINVAL;
		return -1;
	}
	if (a.srq == NULL && id->srq != NULL)
		a.srq = id->srq;
	rc = sr_rcm_cqs(r, &a);
	if (rc) {
		sr_rcm_cqs_free(r);
		return sr_rcm_err(rc);
	}
	qp = ibv_create_qp_ex(id->verbs, &a);
	if (qp == NULL) {
		rc = -errno;
		sr_rcm_cqs_free(r);
		return sr_rcm_err(rc);
	}
	rc = sr_rcm_qp_init(r, qp);
	if (rc) {
		ibv_destroy_qp(qp);
		sr_rcm_cqs_free(r);
		return sr_rcm_err(rc);
	}
	id->qp = qp;
	id->pd = a.pd;
	attr->cap = a.cap;
	return 0;
}

int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
		   struct ibv_qp_init_attr *qp_init_attr)
{
	struct ibv_qp_init_attr_ex a;
	int rc;

	if (id == NULL || qp_init_attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	memcpy(&a, qp_init_attr, sizeof(*qp_init_attr));
	a.comp_mask = pd ? IBV_QP_INIT_ATTR_PD : 0;
	a.pd = pd;
	rc = rdma_create_qp_ex(id, &a);
	if (rc == 0) {
		qp_init_attr->cap = a.cap;
		qp_init_attr->send_cq = id->qp->send_cq;
		qp_init_attr->recv_cq = id->qp->recv_cq;
	}
	return rc;
}

void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (id == NULL)
		return;
	/* the QP may be gone already, destroyed with verbs: its CQs go too */
	if (id->qp != NULL)
		ibv_destroy_qp(id->qp);   /* clears id->qp (sr_rcm_qp_gone) */
	id->qp = NULL;
	sr_rcm_cqs_free(sr_rcm_id(id));
}

int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)
{
	struct ibv_srq_init_attr a;
	struct ibv_pd *pd;

	if (id == NULL || attr == NULL || id->verbs == NULL) {
		errno = EINVAL;
		return -1;
	}
	pd = (attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) && attr->pd ? attr->pd
			: (id->pd ? id->pd : sr_rcm_default_pd(sr_rcm_id(id)));
	if (pd == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	id->srq = ibv_create_srq(pd, &a);
	if (id->srq == NULL)
		return -1;
	attr->attr = a.attr;
	id->pd = pd;
	return 0;
}

int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd,
		    struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex a;
	int rc;

	if (attr == NULL) {
		errno = EINVAL;
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.srq_context = attr->srq_context;
	a.attr = attr->attr;
	a.comp_mask = pd ? IBV_SRQ_INIT_ATTR_PD : 0;
	a.pd = pd;
	rc = rdma_create_srq_ex(id, &a);
	if (rc == 0)
		attr->attr = a.attr;
	return rc;
}

void rdma_destroy_srq(struct rdma_cm_id *id)
{
	if (id == NULL || id->srq == NULL)
		return;
	ibv_destroy_srq(id->srq);
	id->srq = NULL;
}

/*
 * The attributes the CM would set for qp_attr->qp_state, for consumers
 * that move their own QP (libfabric, UCX).
 */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct sr_cma_qp_attr c;
	struct sr_rcm_id *r;
	int mtu;

	if (id == NULL || qp_attr == NULL || qp_attr_mask == NULL ||
	    id->verbs == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	mtu = sroce_path_mtu(id->verbs);
	if (mtu <= 0)
		mtu = IBV_MTU_1024;
	memset(&c, 0, sizeof(c));
	if (r->cm != NULL && r->parent != NULL)
		sr_cma_qp_attr_passive(&c, &r->peer_req, &r->rep, (uint32_t)mtu);
	else if (r->cm != NULL && r->req.qpn != 0 && r->peer_req.qpn != 0)
		sr_cma_qp_attr_active(&c, &r->req, &r->peer_req);
	switch (qp_attr->qp_state) {
	case IBV_QPS_INIT:
		qp_attr->pkey_index = 0;
		qp_attr->port_num = 1;
		*qp_attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
		if (id->qp_type == IBV_QPT_UD) {
			qp_attr->qkey = SR_CMA_UDP_QKEY;
			*qp_attr_mask |= IBV_QP_QKEY;
		} else {
			qp_attr->qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				(c.remote_read ? IBV_ACCESS_REMOTE_READ |
						 IBV_ACCESS_REMOTE_ATOMIC : 0);
			*qp_attr_mask |= IBV_QP_ACCESS_FLAGS;
		}
		return 0;
	case IBV_QPS_RTR:
		*qp_attr_mask = IBV_QP_STATE;
		if (id->qp_type == IBV_QPT_UD)
			return 0;
		if (c.dest_qpn == 0) {
			errno = EINVAL;
			return -1;
		}
		qp_attr->path_mtu = (enum ibv_mtu)c.path_mtu;
		qp_attr->dest_qp_num = c.dest_qpn;
		qp_attr->rq_psn = c.rq_psn;
		qp_attr->max_dest_rd_atomic = c.max_dest_rd_atomic;
		qp_attr->min_rnr_timer = c.min_rnr_timer;
		sr_rcm_ah_attr(r, &qp_attr->ah_attr);
		*qp_attr_mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				 IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				 IBV_QP_MIN_RNR_TIMER;
		return 0;
	case IBV_QPS_RTS:
		*qp_attr_mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
		qp_attr->sq_psn = c.sq_psn;
		if (id->qp_type == IBV_QPT_UD)
			return 0;
		qp_attr->timeout = c.timeout;
		qp_attr->retry_cnt = c.retry_cnt;
		qp_attr->rnr_retry = c.rnr_retry;
		qp_attr->max_rd_atomic = c.max_rd_atomic;
		*qp_attr_mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				 IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
		return 0;
	default:
		errno = EINVAL;
		return -1;
	}
}
