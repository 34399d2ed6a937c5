/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.c — connections: listen, connect, accept, reject, disconnect over
 * the device's CM, and the CM's events turned into rdma_cm's, as Linux's
 * rdma_cm reports them (cma.c's cma_ib_handler and cma_req_handler):
 *
 *   REQ / SIDR_REQ  CONNECT_REQUEST on the listener's channel, with a new
 *                   id; private data after the 36-byte cma header;
 *   REP             the QP to RTR and RTS, the RTU, then ESTABLISHED (no
 *                   QP: CONNECT_RESPONSE, rdma_establish sends the RTU);
 *   RTU             ESTABLISHED (passive side);
 *   REJ             REJECTED, status the REJ's reason, QP to error;
 *   DREQ, DREP      DISCONNECTED, QP to error (a DREQ lost: DISCONNECTED
 *                   when its retries run out);
 *   timeouts        UNREACHABLE, status -ETIMEDOUT;
 *   SIDR_REP        ESTABLISHED with the peer's QPN and Q_Key, or
 *                   UNREACHABLE with the SIDR status;
 *   timewait end    TIMEWAIT_EXIT.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rdmacm.h"
#include "sroce_private.h"

static uint32_t sr_rcm_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)(uintptr_t)&v;
	return v & SR_CMA_PSN_MASK;
}

/* ---- the CM host's callback (its lock held): record, nothing more ---- */

static struct sr_rcm_id *sr_rcm_child(struct sr_rcm_id *l,
				      struct sr_cm_id *lcid,
				      struct sr_cm_id *cid)
{
	struct ibv_context **ctx;
	struct sr_rcm_id *c;
	int d;

	for (d = 0; d < SR_RCM_MAX_DEVS && l->lcm[d] != lcid; d++)
		;
	if (d == SR_RCM_MAX_DEVS || sr_rcm_devs(&ctx) <= d)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->chan = l->sync ? sr_rcm_chan_new(true) : l->chan;
	if (c->chan == NULL) {
		free(c);
		return NULL;
	}
	c->sync = l->sync;
	pthread_cond_init(&c->acked, NULL);
	c->id.channel = &c->chan->ch;
	c->id.context = l->id.context;
	c->id.ps = l->id.ps;
	c->id.qp_type = l->id.qp_type;
	c->id.route.path_rec = &c->path;
	c->id.verbs = ctx[d];
	c->id.port_num = 1;
	c->dev = d;
	c->host = l->lhost[d];
	c->cm = cid;
	c->parent = l;
	c->bound = true;
	c->tos = l->tos;
	c->ack_timeout = l->ack_timeout;
	sr_cm_id_set_ctx(cid, c);
	sr_rcm_ids_add(c);
	return c;
}

/* SROCE_CM_TRACE=1: one line on stderr per CM event, for interop work. */
static bool sr_rcm_trace(void)
{
	static int on = -1;

	if (on < 0) {
		const char *v = getenv("SROCE_CM_TRACE");

		on = v != NULL && *v != '\0' && *v != '0';
	}
	return on;
}

void sr_rcm_cm_event(void *ctx, struct sr_cm_id *cid,
		     const struct sr_cm_event *ev)
{
	struct sr_rcm_id *r, *l;
	struct sr_rcm_evt *e;

	(void)ctx;
	if (sr_rcm_trace())
		fprintf(stderr, "sroce-cm: %s lcid=0x%08x rcid=0x%08x state=%s\n",
			sr_cm_event_name[ev->type], sr_cm_id_local(cid),
			sr_cm_id_remote(cid),
			sr_cm_state_name[sr_cm_id_state(cid)]);
	if (ev->type == SR_CM_EVENT_MRA_RCVD)
		return;
	if (ev->type == SR_CM_EVENT_REQ_RCVD ||
	    ev->type == SR_CM_EVENT_SIDR_REQ_RCVD) {
		l = sr_cm_id_ctx(ev->listen_id);
		r = l != NULL ? sr_rcm_child(l, ev->listen_id, cid) : NULL;
		if (r == NULL) {
			/* No listener left, or no memory: refuse. */
			if (ev->type == SR_CM_EVENT_REQ_RCVD)
				sr_cm_reject(cid, 0, SR_CM_REJ_NO_RESOURCES,
					     NULL, 0);
			else
				sr_cm_sidr_rep(cid, 0, SR_CM_SIDR_REJECT, 0, 0,
					       NULL, 0);
			sr_cm_id_destroy(cid, 0);
			return;
		}
		e = sr_rcm_evt_new(r);
		if (e == NULL)
			return;      /* the peer retries its REQ */
		e->cm = ev->type;
		e->has_msg = true;
		e->msg = *ev->msg;
		r->peer_req = *ev->msg;
		sr_rcm_evt_push(l->chan, e);
		return;
	}
	r = sr_cm_id_ctx(cid);
	if (r == NULL)
		return;              /* its rdma_cm_id is gone */
	e = sr_rcm_evt_new(r);
	if (e == NULL)
		return;
	e->cm = ev->type;
	e->timed_out = ev->timed_out;
	if (ev->msg != NULL) {
		e->has_msg = true;
		e->msg = *ev->msg;
	}
	sr_rcm_evt_push(r->chan, e);
}

/* ---- turning a happening into an event (the consumer's thread) ---- */

static void sr_rcm_conn_param(struct rdma_conn_param *p,
			      const struct sr_cm_msg *m, const uint8_t *pdata,
			      uint8_t len)
{
	p->private_data = pdata;
	p->private_data_len = len;
	p->responder_resources = m->responder_resources;
	p->initiator_depth = m->initiator_depth;
	p->flow_control = m->e2e_flow_ctrl;
	p->retry_count = m->retry_count;
	p->rnr_retry_count = m->rnr_retry_count;
	p->srq = m->srq;
	p->qp_num = m->qpn;
}

/* A request: the new id's addresses from the REQ; false if it is not a
 * valid rdma_cm request (then refused and gone). */
static bool sr_rcm_request(struct sr_rcm_evt *e)
{
	struct sr_rcm_id *c = e->id;
	bool sidr = e->cm == SR_CM_EVENT_SIDR_REQ_RCVD;
	const uint8_t *udata;
	uint8_t ulen;
	int mtu = sroce_path_mtu(c->id.verbs);

	if (sr_cma_req_read(&e->msg, sr_cm_id_peer(c->cm),
			    (uint32_t)(mtu > 0 ? mtu : IBV_MTU_1024),
			    &c->route, &udata, &ulen) != 0) {
		sr_cm_host_lock(c->host);
		if (sidr)
			sr_cm_sidr_rep(c->cm, sr_cm_host_now(c->host),
				       SR_CM_SIDR_UNSUPPORTED, 0, 0, NULL, 0);
		else
			sr_cm_reject(c->cm, sr_cm_host_now(c->host),
				     SR_CM_REJ_INVALID_SERVICE_ID, NULL, 0);
		sr_cm_id_set_ctx(c->cm, NULL);
		sr_cm_id_destroy(c->cm, sr_cm_host_now(c->host));
		sr_cm_host_unlock(c->host);
		sr_rcm_ids_del(c);
		if (c->chan->internal)
			sr_rcm_chan_free(c->chan);
		free(c);
		return false;
	}
	sr_rcm_addr_of(c->route.sgid, c->route.ip_version, c->route.sport,
		       &c->id.route.addr.src_storage);
	sr_rcm_addr_of(c->route.dgid, c->route.ip_version, c->route.dport,
		       &c->id.route.addr.dst_storage);
	sr_rcm_route_publish(c);
	c->id.route.num_paths = 1;
	e->ev.id = &c->id;
	e->ev.listen_id = &c->parent->id;
	e->ev.event = RDMA_CM_EVENT_CONNECT_REQUEST;
	if (sidr) {
		e->ev.param.ud.private_data = udata;
		e->ev.param.ud.private_data_len = SR_CMA_SIDR_REQ_PDATA_MAX;
	} else {
		/* As the kernel: the whole field after the header. */
		sr_rcm_conn_param(&e->ev.param.conn, &e->msg, udata,
				  SR_CMA_REQ_PDATA_MAX);
	}
	(void)ulen;
	return true;
}

/* The REP of our REQ: QP to RTR/RTS, RTU, ESTABLISHED. */
static bool sr_rcm_rep(struct sr_rcm_evt *e)
{
	struct sr_rcm_id *r = e->id;
	struct sr_cma_qp_attr a;
	int rc = 0;

	sr_rcm_conn_param(&e->ev.param.conn, &e->msg, e->msg.pdata,
			  SR_CMA_REP_PDATA_MAX);
	if (r->id.qp == NULL) {
		e->ev.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
		r->peer_req = e->msg;    /* rdma_establish needs the REP */
		return true;
	}
	sr_cma_qp_attr_active(&a, &r->req, &e->msg);
	rc = sr_rcm_qp_connect(r, &a);
	sr_cm_host_lock(r->host);
	if (rc)
		sr_cm_reject(r->cm, sr_cm_host_now(r->host),
			     SR_CM_REJ_CONSUMER_DEFINED, NULL, 0);
	else
		rc = sr_cm_rtu(r->cm, sr_cm_host_now(r->host), NULL, 0);
	sr_cm_host_unlock(r->host);
	if (rc) {
		sr_rcm_qp_error(r);
		e->ev.event = RDMA_CM_EVENT_CONNECT_ERROR;
		e->ev.status = rc;
		return true;
	}
	r->connected = true;
	e->ev.event = RDMA_CM_EVENT_ESTABLISHED;
	return true;
}

bool sr_rcm_cm_process(struct sr_rcm_evt *e)
{
	struct sr_rcm_id *r = e->id;
	struct rdma_cm_event *ev = &e->ev;

	ev->id = &r->id;
	switch (e->cm) {
	case SR_CM_EVENT_REQ_RCVD:
	case SR_CM_EVENT_SIDR_REQ_RCVD:
		return sr_rcm_request(e);
	case SR_CM_EVENT_REP_RCVD:
		return sr_rcm_rep(e);
	case SR_CM_EVENT_ESTABLISHED:
		r->connected = true;
		ev->event = RDMA_CM_EVENT_ESTABLISHED;
		sr_rcm_conn_param(&ev->param.conn, &r->peer_req, NULL, 0);
		return true;
	case SR_CM_EVENT_REJ_RCVD:
		sr_rcm_qp_error(r);
		ev->event = RDMA_CM_EVENT_REJECTED;
		ev->status = e->msg.reason;
		ev->param.conn.private_data = e->msg.pdata;
		ev->param.conn.private_data_len = SR_CMA_REJ_PDATA_MAX;
		return true;
	case SR_CM_EVENT_DREQ_RCVD:
	case SR_CM_EVENT_DISCONNECTED:
		sr_rcm_qp_error(r);
		r->connected = false;
		ev->event = RDMA_CM_EVENT_DISCONNECTED;
		if (e->has_msg) {
			ev->param.conn.private_data = e->msg.pdata;
			ev->param.conn.private_data_len = e->cm == SR_CM_EVENT_DREQ_RCVD
				? SR_CMA_DREQ_PDATA_MAX : SR_CMA_DREP_PDATA_MAX;
		}
		return true;
	case SR_CM_EVENT_TIMEWAIT_EXIT:
		ev->event = RDMA_CM_EVENT_TIMEWAIT_EXIT;
		return true;
	case SR_CM_EVENT_TIMEOUT:
		sr_rcm_qp_error(r);
		ev->event = RDMA_CM_EVENT_UNREACHABLE;
		ev->status = -ETIMEDOUT;
		return true;
	case SR_CM_EVENT_SIDR_REP_RCVD:
		if (e->msg.status != SR_CM_SIDR_SUCCESS) {
			ev->event = RDMA_CM_EVENT_UNREACHABLE;
			ev->status = e->msg.status;
			return true;
		}
		ev->event = RDMA_CM_EVENT_ESTABLISHED;
		ev->param.ud.private_data = e->msg.pdata;
		ev->param.ud.private_data_len = SR_CMA_SIDR_REP_PDATA_MAX;
		sr_rcm_ah_attr(r, &ev->param.ud.ah_attr);
		ev->param.ud.qp_num = e->msg.qpn;
		ev->param.ud.qkey = e->msg.qkey;
		return true;
	default:
		return false;
	}
}

void sr_rcm_cm_release(struct sr_rcm_id *r)
{
	sr_rcm_release_lock();
	for (int d = 0; d < SR_RCM_MAX_DEVS; d++) {
		if (r->lcm[d] == NULL)
			continue;
		sr_cm_host_lock(r->lhost[d]);
		sr_cm_id_set_ctx(r->lcm[d], NULL);
		sr_cm_id_destroy(r->lcm[d], sr_cm_host_now(r->lhost[d]));
		sr_cm_host_unlock(r->lhost[d]);
		r->lcm[d] = NULL;
	}
	if (r->cm != NULL) {
		sr_cm_host_lock(r->host);
		sr_cm_id_set_ctx(r->cm, NULL);
		/* Sends what the peer must learn: REJ, DREQ or DREP. */
		sr_cm_id_destroy(r->cm, sr_cm_host_now(r->host));
		sr_cm_host_unlock(r->host);
		r->cm = NULL;
		/* The process may exit next: the REJ, DREQ or DREP first. */
		sr_cm_host_flush(r->host);
	}
	sr_rcm_release_unlock();
}

/* ---- the consumer's calls ---- */

int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct ibv_context **ctx;
	struct sr_rcm_id *r;
	uint64_t sid;
	int n, rc = 0, listening = 0;

	(void)backlog;
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (!r->bound) {
		errno = EINVAL;
		return -1;
	}
	if (r->listening)
		return 0;
	sid = sr_cma_service_id((uint16_t)id->ps, r->route.sport);
	n = sr_rcm_devs(&ctx);
	for (int d = 0; d < n; d++) {
		struct sr_cm_host *h;

		if (r->dev >= 0 && d != r->dev)
			continue;
		h = sroce_cm_host(ctx[d]);
		if (h == NULL || sr_cm_host_attach(h, sr_rcm_cm_event, NULL)) {
			rc = -ENODEV;
			continue;
		}
		rc = sr_cm_listen(sr_cm_host_lock(h), sid, r, &r->lcm[d]);
		sr_cm_host_unlock(h);
		if (rc == 0) {
			r->lhost[d] = h;
			listening++;
		}
	}
	if (listening == 0) {
		sr_rcm_cm_release(r);
		return sr_rcm_err(rc ? rc : -ENODEV);
	}
	r->listening = true;
	return 0;
}

int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	struct sr_rcm_id *l, *c;
	struct rdma_cm_event *ev;

	if (listen == NULL || id == NULL) {
		errno = EINVAL;
		return -1;
	}
	l = sr_rcm_id(listen);
	if (!l->sync) {
		errno = EINVAL;
		return -1;
	}
	if (l->sync_event != NULL) {
		rdma_ack_cm_event(l->sync_event);
		l->sync_event = NULL;
	}
	for (;;) {
		if (rdma_get_cm_event(&l->chan->ch, &ev) != 0)
			return -1;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		rdma_ack_cm_event(ev);
	}
	c = sr_rcm_id(ev->id);
	c->sync_event = ev;           /* acked at the id's next call */
	c->id.event = ev;
	if (l->ep_qp_attr != NULL &&
	    rdma_create_qp(&c->id, l->ep_pd, l->ep_qp_attr) != 0) {
		int err = errno;

		rdma_reject(&c->id, NULL, 0);
		rdma_destroy_id(&c->id);
		errno = err;
		return -1;
	}
	*id = &c->id;
	return 0;
}

static uint8_t sr_rcm_clamp(uint8_t v, uint8_t max)
{
	return v > max ? max : v;
}

int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct sr_cma_conn c = { .transport = SR_CM_TRANSPORT_RC };
	struct sr_cm_sidr_param sp;
	uint8_t sbuf[216];
	struct sr_rcm_id *r;
	uint8_t max;
	int rc;

	if (id == NULL || id->verbs == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (r->host == NULL || r->route.path_mtu == 0 || r->cm != NULL) {
		errno = EINVAL;
		return -1;
	}
	if (p != NULL && p->private_data_len && p->private_data == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (id->qp_type == IBV_QPT_UD) {
		rc = sr_cma_sidr_req(&sp, sbuf, &r->route, (uint16_t)id->ps,
				     p ? p->private_data : NULL,
				     p ? p->private_data_len : 0);
		if (rc == 0) {
			rc = sr_cm_sidr_req(sr_cm_host_lock(r->host),
					    sr_cm_host_now(r->host), &sp, r,
					    &r->cm);
			sr_cm_host_unlock(r->host);
		}
		if (rc)
			return sr_rcm_err(rc);
		return r->sync ? sr_rcm_sync_wait(r, RDMA_CM_EVENT_ESTABLISHED) : 0;
	}
	max = sr_rcm_max_rd_atomic(id->verbs);
	c.qpn = id->qp ? id->qp->qp_num : (p ? p->qp_num : 0);
	c.psn = sr_rcm_psn();
	c.responder_resources = p ? sr_rcm_clamp(p->responder_resources, max) : max;
	c.initiator_depth = p ? sr_rcm_clamp(p->initiator_depth, max) : max;
	c.retry_count = p ? p->retry_count : 7;
	c.rnr_retry_count = p ? p->rnr_retry_count : 7;
	c.srq = id->srq != NULL || (id->qp ? id->qp->srq != NULL : (p && p->srq));
	c.pdata = p ? p->private_data : NULL;
	c.pdata_len = p ? p->private_data_len : 0;
	if (c.qpn == 0) {
		errno = EINVAL;
		return -1;
	}
	rc = sr_cma_req(&r->req, r->req_pdata, &r->route, (uint16_t)id->ps, &c);
	if (rc == 0) {
		rc = sr_cm_connect(sr_cm_host_lock(r->host),
				   sr_cm_host_now(r->host), &r->req, r, &r->cm);
		sr_cm_host_unlock(r->host);
	}
	if (rc)
		return sr_rcm_err(rc);
	return r->sync ? sr_rcm_sync_wait(r, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int rdma_establish(struct rdma_cm_id *id)
{
	struct sr_rcm_id *r;
	int rc;

	if (id == NULL || id->qp != NULL || sr_rcm_id(id)->cm == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	sr_cm_host_lock(r->host);
	rc = sr_cm_rtu(r->cm, sr_cm_host_now(r->host), NULL, 0);
	sr_cm_host_unlock(r->host);
	if (rc == 0)
		r->connected = true;
	return sr_rcm_err(rc);
}

int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *p)
{
	struct sr_cma_conn c = { .transport = SR_CM_TRANSPORT_RC };
	struct sr_cma_qp_attr a;
	struct sr_rcm_id *r;
	uint8_t max;
	int rc, mtu;

	if (id == NULL || sr_rcm_id(id)->cm == NULL || sr_rcm_id(id)->parent == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	if (p != NULL && p->private_data_len && p->private_data == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (id->qp_type == IBV_QPT_UD) {
		uint32_t qpn = id->qp ? id->qp->qp_num : (p ? p->qp_num : 0);

		if (p != NULL && p->private_data_len > SR_CMA_SIDR_REP_PDATA_MAX) {
			errno = EINVAL;
			return -1;
		}
		sr_cm_host_lock(r->host);
		rc = sr_cm_sidr_rep(r->cm, sr_cm_host_now(r->host),
				    SR_CM_SIDR_SUCCESS, qpn, SR_CMA_UDP_QKEY,
				    p ? p->private_data : NULL,
				    p ? p->private_data_len : 0);
		sr_cm_host_unlock(r->host);
		return sr_rcm_err(rc);
	}
	max = sr_rcm_max_rd_atomic(id->verbs);
	c.qpn = id->qp ? id->qp->qp_num : (p ? p->qp_num : 0);
	c.psn = sr_rcm_psn();
	c.responder_resources = sr_rcm_clamp(
		p ? p->responder_resources : r->peer_req.initiator_depth, max);
	c.initiator_depth = sr_rcm_clamp(
		p ? p->initiator_depth : r->peer_req.responder_resources, max);
	c.rnr_retry_count = p ? p->rnr_retry_count : 7;
	c.srq = id->srq != NULL || (id->qp ? id->qp->srq != NULL : (p && p->srq));
	c.pdata = p ? p->private_data : NULL;
	c.pdata_len = p ? p->private_data_len : 0;
	if (c.qpn == 0) {
		errno = EINVAL;
		return -1;
	}
	rc = sr_cma_rep(&r->rep, &c);
	if (rc)
		return sr_rcm_err(rc);
	if (id->qp != NULL) {
		mtu = sroce_path_mtu(id->verbs);
		sr_cma_qp_attr_passive(&a, &r->peer_req, &r->rep,
				       (uint32_t)(mtu > 0 ? mtu : IBV_MTU_1024));
		rc = sr_rcm_qp_connect(r, &a);
		if (rc)
			return sr_rcm_err(rc);
	}
	sr_cm_host_lock(r->host);
	rc = sr_cm_accept(r->cm, sr_cm_host_now(r->host), &r->rep);
	sr_cm_host_unlock(r->host);
	if (rc)
		return sr_rcm_err(rc);
	return r->sync ? sr_rcm_sync_wait(r, RDMA_CM_EVENT_ESTABLISHED) : 0;
}

int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		uint8_t private_data_len)
{
	struct sr_rcm_id *r;
	uint64_t now;
	int rc;

	if (id == NULL || sr_rcm_id(id)->cm == NULL ||
	    (private_data_len && private_data == NULL)) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	sr_cm_host_lock(r->host);
	now = sr_cm_host_now(r->host);
	if (id->qp_type == IBV_QPT_UD)
		rc = sr_cm_sidr_rep(r->cm, now, SR_CM_SIDR_REJECT, 0, 0,
				    private_data, private_data_len);
	else
		rc = sr_cm_reject(r->cm, now, SR_CM_REJ_CONSUMER_DEFINED,
				  private_data, private_data_len);
	sr_cm_host_unlock(r->host);
	return sr_rcm_err(rc);
}

int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data,
		    uint8_t private_data_len)
{
	return rdma_reject(id, private_data, private_data_len);
}

int rdma_disconnect(struct rdma_cm_id *id)
{
	struct sr_rcm_id *r;
	uint64_t now;
	int rc;

	if (id == NULL || sr_rcm_id(id)->cm == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	sr_rcm_qp_error(r);
	sr_cm_host_lock(r->host);
	now = sr_cm_host_now(r->host);
	switch (sr_cm_id_state(r->cm)) {
	case SR_CM_ESTABLISHED:
		rc = sr_cm_disconnect(r->cm, now, NULL, 0);
		break;
	case SR_CM_DREQ_RCVD:
		rc = sr_cm_drep(r->cm, now, NULL, 0);
		break;
	case SR_CM_REP_SENT:
	case SR_CM_MRA_REP_RCVD:
		/* The RTU was lost but data flowed: established, then DREQ. */
		rc = sr_cm_established(r->cm, now);
		if (rc == 0)
			rc = sr_cm_disconnect(r->cm, now, NULL, 0);
		break;
	default:
		rc = -EINVAL;
	}
	sr_cm_host_unlock(r->host);
	sr_cm_host_flush(r->host);
	r->connected = false;
	return sr_rcm_err(rc);
}
