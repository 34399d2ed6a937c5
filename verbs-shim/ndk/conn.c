/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.c — NDK_CONNECTOR and NDK_LISTENER over the device's communication
 * manager (QP1, lib/cm), with rdma_cm's addressing (lib/cm/cma.h), so the
 * peer may be another NDK/ND2 program or any Linux rdma_cm program:
 *
 *   connector                        listener's new connector
 *   NdkConnect         --- REQ --->   ConnectEvent callback
 *                      <-- REP ---    NdkAccept (QP to RTS)     (or REJ)
 *   QP to RTS, Connect completes
 *   NdkCompleteConnect --- RTU --->   Accept completes
 *   NdkDisconnect      --- DREQ -->   QP to ERR, DREP, DisconnectEvent
 *
 * Only translation lives here: the messages, their contents and the QP
 * attributes are lib/cm's (sr_cm_*, sr_cma_*); the route and the QP's
 * transitions are the backend's (sr_ndk_cm_ops).  The CM's events reach
 * the connector on the adapter thread (cm.c); listeners: listener.c.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "conn_priv.h"

/* ------------------------------------------------------------ addresses */

socklen_t sr_ndk_sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

int sr_ndk_sa_check(const struct sockaddr *sa, ULONG len)
{
	if (sa == NULL || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    len < sr_ndk_sa_len(sa))
		return -EINVAL;
	return 0;
}

uint16_t sr_ndk_sa_port(const struct sockaddr *sa)
{
	return ntohs(sa->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)sa)->sin6_port
					       : ((const struct sockaddr_in *)sa)->sin_port);
}

void sr_ndk_sa_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
}

/* A socket address as a GID (IPv4-mapped for IPv4). */
void sr_ndk_sa_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	if (sa->sa_family == AF_INET)
		sr_cma_ipv4_gid(gid, (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr);
	else
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* A GID and port as a socket address of the route's family. */
void sr_ndk_gid_sa(const uint8_t gid[16], uint8_t ip_version, uint16_t port,
			  struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ip_version == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, gid + 12, 4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		memcpy(&s6->sin6_addr, gid, 16);
	}
}

/* An unspecified address listens on the adapter's first of that family. */
void sr_ndk_sa_resolve_any(struct sr_ndk_adapter *a, struct sockaddr_storage *ss)
{
	bool any;

	if (ss->ss_family == AF_INET)
		any = ((struct sockaddr_in *)ss)->sin_addr.s_addr == INADDR_ANY;
	else
		any = IN6_IS_ADDR_UNSPECIFIED(&((struct sockaddr_in6 *)ss)->sin6_addr);
	if (!any)
		return;
	for (unsigned int i = 0; i < a->be.naddr; i++) {
		if (a->be.addr[i].ss_family != ss->ss_family)
			continue;
		if (ss->ss_family == AF_INET)
			((struct sockaddr_in *)ss)->sin_addr =
				((struct sockaddr_in *)&a->be.addr[i])->sin_addr;
		else
			((struct sockaddr_in6 *)ss)->sin6_addr =
				((struct sockaddr_in6 *)&a->be.addr[i])->sin6_addr;
		return;
	}
}

NTSTATUS sr_ndk_copy_sa(const struct sockaddr_storage *ss, PSOCKADDR out, ULONG *len)
{
	socklen_t need;

	if (len == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	if (ss->ss_family == 0)
		return sr_ntstatus_from_errno(EPERM);
	need = sr_ndk_sa_len((const struct sockaddr *)ss);
	if (out == NULL || *len < need) {
		*len = need;
		return sr_ntstatus_from_errno(EOVERFLOW);
	}
	memcpy(out, ss, need);
	*len = need;
	return STATUS_SUCCESS;
}

/* ------------------------------------------------------------ connector */

static struct sr_ndk_conn *sr_ndk_conn_of(NDK_CONNECTOR *p)
{
	return (struct sr_ndk_conn *)p;
}

struct sr_ndk_conn *sr_ndk_conn_new(struct sr_ndk_adapter *a)
{
	struct sr_ndk_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	sr_ndk_header_init(&c->iface.Header, NdkObjectTypeConnector);
	c->iface.Dispatch = &sr_ndk_connector_dispatch;
	c->a = a;
	pthread_mutex_lock(&a->lock);
	c->next = a->cm->conns;
	a->cm->conns = c;
	pthread_mutex_unlock(&a->lock);
	atomic_fetch_add(&a->objects, 1);
	return c;
}

static NDK_OBJECT_HEADER *sr_ndk_conn_create_(const void *p, NTSTATUS *st)
{
	struct sr_ndk_conn *c = sr_ndk_conn_new(*(struct sr_ndk_adapter *const *)p);

	if (c == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	return &c->iface.Header;
}

NTSTATUS sr_ndk_create_connector(NDK_ADAPTER *p, NDK_FN_CREATE_COMPLETION cb, PVOID ctx,
				 NDK_CONNECTOR **out)
{
	struct sr_ndk_adapter *a = sr_ndk_adapter_of(p);

	if (out == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(a, a->async_all, sr_ndk_conn_create_, &a, sizeof(a), cb, ctx,
			     (void **)out);
}

void sr_ndk_conn_set_state(struct sr_ndk_conn *c, enum sr_ndk_conn_state s)
{
	bool watched = c->state != SR_CONN_IDLE && c->state != SR_CONN_REJECTED &&
		       c->state != SR_CONN_CLOSED;
	bool watch = s != SR_CONN_IDLE && s != SR_CONN_REJECTED && s != SR_CONN_CLOSED;

	/* a connection in progress or up needs the CM's MADs to be received */
	if (watch && !watched)
		atomic_fetch_add(&c->a->cm_watch, 1);
	else if (watched && !watch)
		atomic_fetch_sub(&c->a->cm_watch, 1);
	if (s == SR_CONN_CONNECTED)
		c->was_connected = true;
	pthread_mutex_lock(&c->a->lock);
	c->state = s;
	pthread_mutex_unlock(&c->a->lock);
}

/* An operation that keeps the adapter thread progressing ends. */
void sr_ndk_conn_op_done(struct sr_ndk_conn *c, NTSTATUS st)
{
	NDK_FN_REQUEST_COMPLETION cb = c->cb;
	PVOID ctx = c->cb_ctx;

	if (cb == NULL)
		return;
	c->cb = NULL;
	atomic_fetch_sub(&c->a->busy, 1);
	cb(ctx, st);
}

static void sr_ndk_conn_op_start(struct sr_ndk_conn *c, NDK_FN_REQUEST_COMPLETION cb,
				 PVOID ctx)
{
	c->cb = cb;
	c->cb_ctx = ctx;
	atomic_fetch_add(&c->a->busy, 1);
}

void sr_ndk_conn_qp_err(struct sr_ndk_conn *c)
{
	struct sr_qp_attr attr = { .qp_state = SR_QPS_ERR };

	if (c->qp)
		sr_qp_modify(c->qp->qp, &attr, SR_QP_STATE);
}

/* Let go of the QP (a failed or refused connection). */
void sr_ndk_conn_qp_release(struct sr_ndk_conn *c)
{
	if (c->qp) {
		c->qp->conn = NULL;
		c->qp = NULL;
	}
}

void sr_ndk_qp_disconnected(struct sr_ndk_qp *qp)
{
	if (qp->conn) {
		qp->conn->qp = NULL;
		qp->conn = NULL;
	}
}

/* Release the CM id: what the peer must learn (REJ, DREQ) is sent. */
void sr_ndk_conn_drop_id(struct sr_ndk_conn *c)
{
	if (c->cm == NULL)
		return;
	sr_ndk_cm_lock(c->a);
	sr_cm_id_set_ctx(c->cm, NULL);
	sr_cm_id_destroy(c->cm, sr_ndk_cm_now(c->a));
	sr_ndk_cm_unlock(c->a);
	c->cm = NULL;
	c->a->cm->ops->flush(c->a->cm->ctx);
}

static uint8_t sr_ndk_limit(ULONG v, ULONG max)
{
	v = v < max ? v : max;
	return (uint8_t)(v > SR_QP_MAX_RD_ATOMIC ? SR_QP_MAX_RD_ATOMIC : v);
}

uint16_t sr_ndk_ephemeral_port(void)
{
	uint16_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint16_t)(uintptr_t)&v;
	return (uint16_t)(32768u + v % 28232u);
}

static NTSTATUS sr_ndk_connect(NDK_CONNECTOR *p, NDK_QP *pNdkQp, CONST PSOCKADDR pSrc,
			       ULONG SrcLen, CONST PSOCKADDR pDest, ULONG DestLen,
			       ULONG InboundReadLimit, ULONG OutboundReadLimit,
			       CONST PVOID pPrivateData, ULONG PrivateDataLength,
			       NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	struct sr_ndk_qp *qp = (struct sr_ndk_qp *)pNdkQp;
	struct sr_ndk_adapter *a = c->a;
	struct sr_cma_conn cc = { .transport = SR_CM_TRANSPORT_RC };
	uint8_t dgid[16];
	int rc;

	if (qp == NULL || cb == NULL || sr_ndk_sa_check(pDest, DestLen) ||
	    (pSrc && sr_ndk_sa_check(pSrc, SrcLen)) ||
	    PrivateDataLength > a->info.MaxCallerData ||
	    PrivateDataLength > SR_CMA_REQ_PDATA_MAX || (PrivateDataLength && !pPrivateData))
		return sr_ntstatus_from_errno(EINVAL);
	if ((c->state != SR_CONN_IDLE && c->state != SR_CONN_REJECTED &&
	     c->state != SR_CONN_CLOSED) || c->cm || qp->conn)
		return sr_ntstatus_from_errno(EISCONN);
	if (a->cm->ops == NULL)
		return sr_ntstatus_from_errno(ENOTSUP);
	memset(&c->route, 0, sizeof(c->route));
	sr_ndk_sa_gid(pDest, dgid);
	rc = a->cm->ops->route(a->cm->ctx, dgid, &c->route);
	if (rc)
		return sr_ntstatus_from_errno(-rc);
	c->route.ip_version = pDest->sa_family == AF_INET ? 4 : 6;
	c->route.dport = sr_ndk_sa_port(pDest);
	c->route.sport = pSrc && sr_ndk_sa_port(pSrc) ? sr_ndk_sa_port(pSrc)
						      : sr_ndk_ephemeral_port();
	memcpy(&c->remote, pDest, sr_ndk_sa_len(pDest));
	sr_ndk_gid_sa(c->route.sgid, c->route.ip_version, c->route.sport, &c->local);
	cc.qpn = sr_qp_num(qp->qp);
	cc.psn = qp->sq_psn;
	cc.responder_resources = sr_ndk_limit(InboundReadLimit, a->info.MaxInboundReadLimit);
	cc.initiator_depth = sr_ndk_limit(OutboundReadLimit, a->info.MaxOutboundReadLimit);
	cc.retry_count = 7;
	cc.rnr_retry_count = 7;
	cc.srq = qp->srq != NULL;
	cc.pdata = pPrivateData;
	cc.pdata_len = (uint8_t)PrivateDataLength;
	rc = sr_cma_req(&c->req, c->req_pdata, &c->route, SR_RDMA_PS_TCP, &cc);
	if (rc)
		return sr_ntstatus_from_errno(-rc);
	c->qp = qp;
	qp->conn = c;
	c->pdata = NULL;
	c->pdata_len = 0;
	sr_ndk_conn_op_start(c, cb, ctx);
	sr_ndk_conn_set_state(c, SR_CONN_CONNECTING);
	rc = sr_cm_connect(sr_ndk_cm_lock(a), sr_ndk_cm_now(a), &c->req, c, &c->cm);
	sr_ndk_cm_unlock(a);
	if (rc) {
		sr_ndk_conn_set_state(c, SR_CONN_IDLE);
		sr_ndk_conn_qp_release(c);
		c->cb = NULL;
		atomic_fetch_sub(&a->busy, 1);
		return sr_ntstatus_from_errno(-rc);
	}
	sr_ndk_worker_kick(a);
	return STATUS_PENDING;
}

static NTSTATUS sr_ndk_connect_with_shared_endpoint(NDK_CONNECTOR *p, NDK_QP *qp,
						    NDK_SHARED_ENDPOINT *ep,
						    CONST PSOCKADDR dst, ULONG dlen,
						    ULONG ird, ULONG ord, CONST PVOID pd,
						    ULONG plen, NDK_FN_REQUEST_COMPLETION cb,
						    PVOID ctx)
{
	(void)p, (void)qp, (void)ep, (void)dst, (void)dlen, (void)ird, (void)ord;
	(void)pd, (void)plen, (void)cb, (void)ctx;
	return sr_ntstatus_from_errno(ENOTSUP);
}

static NTSTATUS sr_ndk_complete_connect(NDK_CONNECTOR *p,
					NDK_FN_DISCONNECT_EVENT_CALLBACK DisconnectEvent,
					PVOID DisconnectEventContext,
					NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	int rc;

	(void)cb;
	(void)ctx;
	pthread_mutex_lock(&c->a->cm->lock);
	if (c->state != SR_CONN_REP_RCVD || c->cm == NULL) {
		pthread_mutex_unlock(&c->a->cm->lock);
		return sr_ntstatus_from_errno(EPERM);
	}
	c->disc = DisconnectEvent;
	c->disc_ctx = DisconnectEventContext;
	sr_ndk_cm_lock(c->a);
	rc = sr_cm_rtu(c->cm, sr_ndk_cm_now(c->a), NULL, 0);
	sr_ndk_cm_unlock(c->a);
	if (rc == 0)
		sr_ndk_conn_set_state(c, SR_CONN_CONNECTED);
	pthread_mutex_unlock(&c->a->cm->lock);
	/* the peer disconnected or rejected meanwhile: the connection is gone */
	return rc ? sr_ntstatus_from_errno(ECONNABORTED) : STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_accept(NDK_CONNECTOR *p, NDK_QP *pNdkQp, ULONG InboundReadLimit,
			      ULONG OutboundReadLimit, CONST PVOID pPrivateData,
			      ULONG PrivateDataLength,
			      NDK_FN_DISCONNECT_EVENT_CALLBACK DisconnectEvent,
			      PVOID DisconnectEventContext, NDK_FN_REQUEST_COMPLETION cb,
			      PVOID ctx)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	struct sr_ndk_qp *qp = (struct sr_ndk_qp *)pNdkQp;
	struct sr_ndk_adapter *a = c->a;
	struct sr_cma_conn cc = { .transport = SR_CM_TRANSPORT_RC };
	struct sr_cm_rep_param rep;
	struct sr_cma_qp_attr attr;
	int rc;

	if (qp == NULL || cb == NULL || PrivateDataLength > a->info.MaxCalleeData ||
	    PrivateDataLength > SR_CMA_REP_PDATA_MAX || (PrivateDataLength && !pPrivateData))
		return sr_ntstatus_from_errno(EINVAL);
	pthread_mutex_lock(&a->cm->lock);
	if (c->state != SR_CONN_REQ_RCVD || c->cm == NULL || qp->conn) {
		pthread_mutex_unlock(&a->cm->lock);
		return sr_ntstatus_from_errno(EPERM);
	}
	cc.qpn = sr_qp_num(qp->qp);
	cc.psn = qp->sq_psn;
	/* no more than the peer offered */
	cc.responder_resources = sr_ndk_limit(InboundReadLimit < c->peer.initiator_depth ?
					      InboundReadLimit : c->peer.initiator_depth,
					      a->info.MaxInboundReadLimit);
	cc.initiator_depth = sr_ndk_limit(OutboundReadLimit < c->peer.responder_resources ?
					  OutboundReadLimit : c->peer.responder_resources,
					  a->info.MaxOutboundReadLimit);
	cc.rnr_retry_count = 7;
	cc.srq = qp->srq != NULL;
	cc.pdata = pPrivateData;
	cc.pdata_len = (uint8_t)PrivateDataLength;
	rc = sr_cma_rep(&rep, &cc);
	if (rc == 0) {
		sr_cma_qp_attr_passive(&attr, &c->peer, &rep, c->route.path_mtu);
		rc = a->cm->ops->qp_connect(a->cm->ctx, qp->qp, &attr, &c->route);
	}
	if (rc) {
		pthread_mutex_unlock(&a->cm->lock);
		return sr_ntstatus_from_errno(-rc);
	}
	c->qp = qp;
	qp->conn = c;
	c->disc = DisconnectEvent;
	c->disc_ctx = DisconnectEventContext;
	sr_ndk_conn_op_start(c, cb, ctx);
	sr_ndk_conn_set_state(c, SR_CONN_ACCEPTING);
	sr_ndk_cm_lock(a);
	rc = sr_cm_accept(c->cm, sr_ndk_cm_now(a), &rep);
	sr_ndk_cm_unlock(a);
	if (rc) {
		sr_ndk_conn_qp_err(c);
		sr_ndk_conn_qp_release(c);
		sr_ndk_conn_set_state(c, SR_CONN_CLOSED);
		c->cb = NULL;
		atomic_fetch_sub(&a->busy, 1);
		pthread_mutex_unlock(&a->cm->lock);
		return sr_ntstatus_from_errno(ECONNABORTED);
	}
	pthread_mutex_unlock(&a->cm->lock);
	sr_ndk_worker_kick(a);
	return STATUS_PENDING;
}

static NTSTATUS sr_ndk_reject(NDK_CONNECTOR *p, CONST PVOID pPrivateData,
			      ULONG PrivateDataLength)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	int rc;

	if (PrivateDataLength > SR_CMA_REJ_PDATA_MAX || (PrivateDataLength && !pPrivateData))
		return sr_ntstatus_from_errno(EINVAL);
	pthread_mutex_lock(&c->a->cm->lock);
	if (c->state != SR_CONN_REQ_RCVD || c->cm == NULL) {
		pthread_mutex_unlock(&c->a->cm->lock);
		return sr_ntstatus_from_errno(EPERM);
	}
	sr_ndk_cm_lock(c->a);
	rc = sr_cm_reject(c->cm, sr_ndk_cm_now(c->a), SR_CM_REJ_CONSUMER_DEFINED,
			  pPrivateData, (uint8_t)PrivateDataLength);
	sr_ndk_cm_unlock(c->a);
	sr_ndk_conn_set_state(c, SR_CONN_CLOSED);
	pthread_mutex_unlock(&c->a->cm->lock);
	c->a->cm->ops->flush(c->a->cm->ctx);
	return rc ? sr_ntstatus_from_errno(ECONNABORTED) : STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_get_connection_data(NDK_CONNECTOR *p, ULONG *pInboundReadLimit,
					   ULONG *pOutboundReadLimit, PVOID pPrivateData,
					   ULONG *pPrivateDataLength)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	enum sr_ndk_conn_state s = c->state;

	if (s == SR_CONN_IDLE || s == SR_CONN_CONNECTING ||
	    (s == SR_CONN_CLOSED && c->pdata == NULL))
		return sr_ntstatus_from_errno(EPERM);
	/* the peer's: its inbound limit is what it lets us read */
	if (pInboundReadLimit)
		*pInboundReadLimit = c->peer.responder_resources;
	if (pOutboundReadLimit)
		*pOutboundReadLimit = c->peer.initiator_depth;
	if (pPrivateDataLength) {
		if (*pPrivateDataLength < c->pdata_len || (!pPrivateData && c->pdata_len)) {
			*pPrivateDataLength = c->pdata_len;
			return sr_ntstatus_from_errno(EOVERFLOW);
		}
		if (c->pdata_len)
			memcpy(pPrivateData, c->pdata, c->pdata_len);
		*pPrivateDataLength = c->pdata_len;
	}
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_conn_local_address(NDK_CONNECTOR *p, PSOCKADDR a, ULONG *len)
{
	return sr_ndk_copy_sa(&sr_ndk_conn_of(p)->local, a, len);
}

static NTSTATUS sr_ndk_conn_peer_address(NDK_CONNECTOR *p, PSOCKADDR a, ULONG *len)
{
	return sr_ndk_copy_sa(&sr_ndk_conn_of(p)->remote, a, len);
}

static NTSTATUS sr_ndk_disconnect(NDK_CONNECTOR *p, NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	struct sr_ndk_adapter *a = c->a;
	uint64_t now;
	int rc = 0;

	(void)cb;
	(void)ctx;
	pthread_mutex_lock(&a->cm->lock);
	if (c->state == SR_CONN_CLOSED && c->was_connected) {
		/* the peer went first: nothing left to say */
		pthread_mutex_unlock(&a->cm->lock);
		return STATUS_SUCCESS;
	}
	if (c->state != SR_CONN_CONNECTED && c->state != SR_CONN_REP_RCVD &&
	    c->state != SR_CONN_ACCEPTING) {
		pthread_mutex_unlock(&a->cm->lock);
		return sr_ntstatus_from_errno(ENOTCONN);
	}
	sr_ndk_conn_qp_err(c);
	sr_ndk_cm_lock(a);
	now = sr_ndk_cm_now(a);
	switch (c->cm ? sr_cm_id_state(c->cm) : SR_CM_IDLE) {
	case SR_CM_ESTABLISHED:
		rc = sr_cm_disconnect(c->cm, now, NULL, 0);
		break;
	case SR_CM_DREQ_RCVD:
		rc = sr_cm_drep(c->cm, now, NULL, 0);
		break;
	case SR_CM_REP_RCVD:
	case SR_CM_MRA_REP_SENT:
		/* Connect completed, CompleteConnect never came: refuse the REP */
		rc = sr_cm_reject(c->cm, now, SR_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		break;
	case SR_CM_REP_SENT:
	case SR_CM_MRA_REP_RCVD:
		/* the RTU was lost or is late: established, then DREQ */
		rc = sr_cm_established(c->cm, now);
		if (rc == 0)
			rc = sr_cm_disconnect(c->cm, now, NULL, 0);
		break;
	default:
		break;
	}
	sr_ndk_cm_unlock(a);
	if (c->state == SR_CONN_ACCEPTING)
		sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(ECONNABORTED));
	c->was_connected = true;
	sr_ndk_conn_set_state(c, SR_CONN_CLOSED);
	pthread_mutex_unlock(&a->cm->lock);
	a->cm->ops->flush(a->cm->ctx);
	(void)rc;
	return STATUS_SUCCESS;
}

NTSTATUS sr_ndk_conn_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_conn *c = (struct sr_ndk_conn *)o;
	struct sr_ndk_adapter *a = c->a;

	pthread_mutex_lock(&a->cm->lock);
	pthread_mutex_lock(&a->lock);
	for (struct sr_ndk_conn **pp = &a->cm->conns; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	}
	pthread_mutex_unlock(&a->lock);
	sr_ndk_conn_drop_id(c);
	sr_ndk_cm_purge(a, c);
	sr_ndk_conn_set_state(c, SR_CONN_CLOSED);
	if (c->cb)
		atomic_fetch_sub(&a->busy, 1);
	if (c->qp)
		c->qp->conn = NULL;
	free(c);
	pthread_mutex_unlock(&a->cm->lock);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_connector(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb,
				       PVOID ctx)
{
	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(((struct sr_ndk_conn *)o)->a, sr_ndk_conn_close_, o, cb, ctx);
}

static NTSTATUS sr_ndk_conn_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
					    NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_CONNECTOR_DISPATCH sr_ndk_connector_dispatch = {
	.NdkCloseConnector = sr_ndk_close_connector,
	.NdkQueryExtension = sr_ndk_conn_query_extension,
	.NdkConnect = sr_ndk_connect,
	.NdkConnectWithSharedEndpoint = sr_ndk_connect_with_shared_endpoint,
	.NdkCompleteConnect = sr_ndk_complete_connect,
	.NdkAccept = sr_ndk_accept,
	.NdkReject = sr_ndk_reject,
	.NdkGetConnectionData = sr_ndk_get_connection_data,
	.NdkGetLocalAddress = sr_ndk_conn_local_address,
	.NdkGetPeerAddress = sr_ndk_conn_peer_address,
	.NdkDisconnect = sr_ndk_disconnect,
};
