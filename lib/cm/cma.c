/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cma.c — rdma_cm's REQ, REP and SIDR_REQ over the IB CM, and the QP
 * attributes of a connection (see cma.h for the values and where they
 * come from).
 */
#include <errno.h>
#include <string.h>

#include "cm/cma.h"

#define SR_CMA_CM_TIMEOUT   SR_CMA_CM_RESPONSE_TIMEOUT   /* 20 */

uint32_t sr_cma_flow_label(uint16_t sport, uint16_t dport)
{
	return ((uint32_t)sport * 31u + dport) & 0xFFFFFu;
}

static int cma_pdata(uint8_t *buf, const struct sr_cma_route *r,
		     const uint8_t *udata, uint8_t ulen, uint8_t max)
{
	struct sr_cma_addr a = { .ip_version = r->ip_version, .port = r->sport };
	int rc;

	if (ulen > max || (ulen && udata == NULL))
		return -EINVAL;
	memcpy(a.src, r->sgid, 16);
	memcpy(a.dst, r->dgid, 16);
	rc = sr_cma_hdr_put(buf, &a);
	if (rc)
		return rc;
	if (ulen)
		memcpy(buf + SR_CMA_HDR_SIZE, udata, ulen);
	return 0;
}

static void cma_peer(struct sr_cm_addr *peer, const struct sr_cma_route *r)
{
	memset(peer, 0, sizeof(*peer));
	memcpy(peer->gid, r->dgid, 16);
	memcpy(peer->lgid, r->sgid, 16);
	memcpy(peer->mac, r->dmac, 6);
	peer->pkey = r->pkey ? r->pkey : 0xFFFFu;
}

int sr_cma_req(struct sr_cm_req_param *p, uint8_t buf[92],
	       const struct sr_cma_route *r, uint16_t ps,
	       const struct sr_cma_conn *c)
{
	struct sr_cm_path *path = &p->path;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = cma_pdata(buf, r, c->pdata, c->pdata_len, SR_CMA_REQ_PDATA_MAX);
	if (rc)
		return rc;
	p->service_id = sr_cma_service_id(ps, r->dport);
	cma_peer(&p->peer, r);
	path->local_lid = SR_CM_LID_PERMISSIVE;
	path->remote_lid = SR_CM_LID_PERMISSIVE;
	memcpy(path->local_gid, r->sgid, 16);
	memcpy(path->remote_gid, r->dgid, 16);
	path->flow_label = sr_cma_flow_label(r->sport, r->dport);
	path->traffic_class = r->tclass;
	path->hop_limit = r->hop_limit ? r->hop_limit : SR_CMA_HOP_LIMIT;
	path->subnet_local = path->hop_limit <= 1;
	path->ack_timeout = r->ack_timeout ? r->ack_timeout
					   : SR_CMA_PACKET_LIFE_TIME + 1;
	p->qpn = c->qpn & 0xFFFFFFu;
	p->psn = c->psn & SR_CMA_PSN_MASK;
	p->transport = c->transport;
	p->responder_resources = c->responder_resources;
	p->initiator_depth = c->initiator_depth;
	p->retry_count = c->retry_count & 7u;
	p->rnr_retry_count = c->rnr_retry_count & 7u;
	p->path_mtu = r->path_mtu;
	p->srq = c->srq ? 1 : 0;
	p->remote_cm_timeout = SR_CMA_CM_TIMEOUT;
	p->local_cm_timeout = SR_CMA_CM_TIMEOUT;
	p->max_cm_retries = SR_CMA_MAX_CM_RETRIES;
	p->pdata = buf;
	p->pdata_len = (uint8_t)(SR_CMA_HDR_SIZE + c->pdata_len);
	return 0;
}

int sr_cma_sidr_req(struct sr_cm_sidr_param *p, uint8_t buf[216],
		    const struct sr_cma_route *r, uint16_t ps,
		    const uint8_t *pdata, uint8_t pdata_len)
{
	int rc;

	memset(p, 0, sizeof(*p));
	rc = cma_pdata(buf, r, pdata, pdata_len, SR_CMA_SIDR_REQ_PDATA_MAX);
	if (rc)
		return rc;
	p->service_id = sr_cma_service_id(ps, r->dport);
	cma_peer(&p->peer, r);
	p->timeout = SR_CMA_CM_TIMEOUT;
	p->max_retries = SR_CMA_MAX_CM_RETRIES;
	p->pdata = buf;
	p->pdata_len = (uint8_t)(SR_CMA_HDR_SIZE + pdata_len);
	return 0;
}

int sr_cma_rep(struct sr_cm_rep_param *p, const struct sr_cma_conn *c)
{
	if (c->pdata_len > SR_CMA_REP_PDATA_MAX ||
	    (c->pdata_len && c->pdata == NULL))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->qpn = c->qpn & 0xFFFFFFu;
	p->psn = c->psn & SR_CMA_PSN_MASK;
	p->responder_resources = c->responder_resources;
	p->initiator_depth = c->initiator_depth;
	p->target_ack_delay = SR_CMA_TARGET_ACK_DELAY;
	p->rnr_retry_count = c->rnr_retry_count & 7u;
	p->srq = c->srq ? 1 : 0;
	p->pdata = c->pdata;
	p->pdata_len = c->pdata_len;
	return 0;
}

int sr_cma_req_read(const struct sr_cm_msg *m, const struct sr_cm_addr *from,
		    uint32_t our_path_mtu, struct sr_cma_route *r,
		    const uint8_t **udata, uint8_t *ulen)
{
	struct sr_cma_addr a;
	int rc;

	memset(r, 0, sizeof(*r));
	if (sr_cma_service_ps(m->service_id) == 0)
		return -EINVAL;
	rc = sr_cma_hdr_get(m->pdata, m->pdata_len, &a);
	if (rc)
		return rc;
	r->ip_version = a.ip_version;
	r->sport = sr_cma_service_port(m->service_id);
	r->dport = a.port;
	/* Addressing is the frame's: the header is what the peer meant. */
	memcpy(r->sgid, from->lgid, 16);
	memcpy(r->dgid, from->gid, 16);
	memcpy(r->dmac, from->mac, 6);
	r->pkey = from->pkey;
	if (m->attr == SR_CM_ATTR_REQ) {
		r->path_mtu = m->path_mtu < our_path_mtu ? m->path_mtu
							 : (uint8_t)our_path_mtu;
		r->hop_limit = m->pri.hop_limit;
		r->tclass = m->pri.traffic_class;
		r->ack_timeout = m->pri.ack_timeout;
	} else {
		r->path_mtu = (uint8_t)our_path_mtu;
		r->hop_limit = SR_CMA_HOP_LIMIT;
	}
	*udata = m->pdata + SR_CMA_HDR_SIZE;
	*ulen = (uint8_t)(m->pdata_len - SR_CMA_HDR_SIZE);
	return 0;
}

/* ib_cm's ACK timeout from a packet life time and the peer's ACK delay
 * (cm_ack_timeout): life + 1, adjusted by the larger of the two. */
static uint8_t cma_ack_timeout(uint8_t ack_delay, uint8_t life)
{
	unsigned int t = life + 1u;

	if (t >= ack_delay)
		t += ack_delay >= t - 1;
	else
		t = ack_delay + (t + 1 >= ack_delay);
	return (uint8_t)(t > 31 ? 31 : t);
}

void sr_cma_qp_attr_active(struct sr_cma_qp_attr *a,
			   const struct sr_cm_req_param *req,
			   const struct sr_cm_msg *rep)
{
	uint8_t life = req->path.ack_timeout ? req->path.ack_timeout - 1 : 0;

	memset(a, 0, sizeof(*a));
	a->dest_qpn = rep->qpn;
	/* Linux's convention (cm.c; rping between rxe hosts shows it): the
	 * REQ's starting PSN is what the active side receives first, the
	 * REP's what it sends first. */
	a->rq_psn = req->psn;
	a->sq_psn = rep->psn;
	a->path_mtu = req->path_mtu;
	/* The peer's initiator depth is what we must be able to answer. */
	a->max_dest_rd_atomic = rep->initiator_depth;
	a->max_rd_atomic = rep->responder_resources;
	a->min_rnr_timer = 0;
	a->timeout = cma_ack_timeout(rep->target_ack_delay, life);
	a->retry_cnt = req->retry_count;
	a->rnr_retry = rep->rnr_retry_count;
	a->remote_read = a->max_dest_rd_atomic > 0;
}

void sr_cma_qp_attr_passive(struct sr_cma_qp_attr *a,
			    const struct sr_cm_msg *req,
			    const struct sr_cm_rep_param *rep,
			    uint32_t our_path_mtu)
{
	memset(a, 0, sizeof(*a));
	a->dest_qpn = req->qpn;
	a->rq_psn = rep->psn;
	a->sq_psn = req->psn;
	a->path_mtu = req->path_mtu < our_path_mtu ? req->path_mtu
						   : (uint8_t)our_path_mtu;
	a->max_dest_rd_atomic = rep->responder_resources;
	a->max_rd_atomic = rep->initiator_depth;
	a->min_rnr_timer = 0;
	/* The REQ's ACK timeout is the active side's life time + 1. */
	a->timeout = req->pri.ack_timeout ? req->pri.ack_timeout
					  : SR_CMA_PACKET_LIFE_TIME + 1;
	a->retry_cnt = req->retry_count;
	a->rnr_retry = req->rnr_retry_count;
	a->remote_read = a->max_dest_rd_atomic > 0;
}
