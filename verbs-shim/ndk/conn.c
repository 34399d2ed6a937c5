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
 * transitions are the backend's (sr_ndk_cm_ops).  The CM calls back with
 * its lock held, on the engine's thread or inside our own sr_cm_* call:
 * that callback only queues the event; the adapter thread turns queued
 * events into NDK callbacks and completions (sr_ndk_cm_poll).
 */
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <unistd.h>

#include "cm/cma.h"
#include "ndk_priv.h"

enum sr_ndk_conn_state {
	SR_CONN_IDLE,
	SR_CONN_REQ_RCVD,      /* ConnectEvent delivered: accept or reject */
	SR_CONN_CONNECTING,    /* REQ sent, waiting for REP */
	SR_CONN_REP_RCVD,      /* Connect completed: CompleteConnect next */
	SR_CONN_ACCEPTING,     /* REP sent, waiting for RTU */
	SR_CONN_CONNECTED,
	SR_CONN_REJECTED,      /* our REQ was refused: the REJ's data readable */
	SR_CONN_CLOSED,        /* disconnected or failed */
};

struct sr_ndk_conn {
	NDK_CONNECTOR iface;
	struct sr_ndk_adapter *a;
	struct sr_cm_id *cm;
	enum sr_ndk_conn_state state;
	bool was_connected;
	struct sr_ndk_qp *qp;
	struct sr_cma_route route;
	struct sr_cm_req_param req;        /* active side: the REQ we sent */
	uint8_t req_pdata[92];
	struct sr_cm_msg peer;             /* the REQ, REP or REJ received */
	const uint8_t *pdata;              /* the peer's data in peer */
	uint8_t pdata_len;
	struct sockaddr_storage local, remote;
	NDK_FN_REQUEST_COMPLETION cb;      /* Connect / Accept completion */
	PVOID cb_ctx;
	NDK_FN_DISCONNECT_EVENT_CALLBACK disc;
	PVOID disc_ctx;
	struct sr_ndk_conn *next;
};

struct sr_ndk_listener {
	NDK_LISTENER iface;
	struct sr_ndk_adapter *a;
	struct sr_cm_id *cm;
	struct sockaddr_storage addr;
	NDK_FN_CONNECT_EVENT_CALLBACK ev;
	PVOID ev_ctx;
	bool paused;
	struct sr_ndk_listener *next;
};

/* One CM event, queued by the CM's callback for the adapter thread. */
struct sr_ndk_cm_evt {
	struct sr_ndk_cm_evt *next;
	enum sr_cm_event_type type;
	struct sr_cm_id *id;               /* REQ_RCVD: the new id */
	struct sr_ndk_conn *conn;          /* its connector (not REQ_RCVD) */
	struct sr_ndk_listener *listener;  /* REQ_RCVD */
	bool has_msg;
	struct sr_cm_msg msg;
};

struct sr_ndk_cm {
	int efd;
	pthread_mutex_t lock;   /* recursive: event processing vs. closes */
	struct sr_ndk_conn *conns;
	struct sr_ndk_listener *listeners;
	/* events from the CM's callback (qlock: taken under the CM's lock) */
	pthread_mutex_t qlock;
	struct sr_ndk_cm_evt *head, *tail;
	const struct sr_ndk_cm_ops *ops;
	void *ctx;
};

static void sr_ndk_cm_event(void *arg, struct sr_cm_id *id, const struct sr_cm_event *ev);

int sr_ndk_cm_init(struct sr_ndk_adapter *a)
{
	pthread_mutexattr_t attr;
	struct sr_ndk_cm *cm = calloc(1, sizeof(*cm));
	int rc;

	if (cm == NULL)
		return -ENOMEM;
	cm->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (cm->efd < 0) {
		free(cm);
		return -errno;
	}
	cm->ops = a->be.ops ? a->be.ops->cm : NULL;
	cm->ctx = a->be.ctx;
	if (cm->ops) {
		rc = cm->ops->attach(cm->ctx, sr_ndk_cm_event, a);
		if (rc) {
			close(cm->efd);
			free(cm);
			return rc;
		}
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&cm->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	pthread_mutex_init(&cm->qlock, NULL);
	a->cm = cm;
	return 0;
}

void sr_ndk_cm_fini(struct sr_ndk_adapter *a)
{
	struct sr_ndk_cm *cm = a->cm;

	if (cm == NULL)
		return;
	if (cm->ops)
		cm->ops->attach(cm->ctx, NULL, NULL);
	while (cm->head) {
		struct sr_ndk_cm_evt *e = cm->head;

		cm->head = e->next;
		free(e);
	}
	close(cm->efd);
	pthread_mutex_destroy(&cm->qlock);
	pthread_mutex_destroy(&cm->lock);
	free(cm);
	a->cm = NULL;
}

void sr_ndk_worker_kick(struct sr_ndk_adapter *a)
{
	uint64_t one = 1;

	if (a->cm && write(a->cm->efd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: the thread wakes anyway */
	}
}

/* ------------------------------------------------------------ the CM */

static struct sr_cm *sr_ndk_cm_lock(struct sr_ndk_adapter *a)
{
	return a->cm->ops->lock(a->cm->ctx);
}

static void sr_ndk_cm_unlock(struct sr_ndk_adapter *a)
{
	a->cm->ops->unlock(a->cm->ctx);
}

static uint64_t sr_ndk_cm_now(struct sr_ndk_adapter *a)
{
	return a->cm->ops->now(a->cm->ctx);
}

/* The CM's callback (its lock held): queue, wake the adapter thread. */
static void sr_ndk_cm_event(void *arg, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	struct sr_ndk_adapter *a = arg;
	struct sr_ndk_cm_evt *e;

	if (ev->type == SR_CM_EVENT_MRA_RCVD)
		return;
	if (ev->type == SR_CM_EVENT_SIDR_REQ_RCVD) {
		/* NDK connections are RC: no UD service here */
		sr_cm_sidr_rep(id, 0, SR_CM_SIDR_UNSUPPORTED, 0, 0, NULL, 0);
		sr_cm_id_destroy(id, 0);
		return;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL) {
		if (ev->type == SR_CM_EVENT_REQ_RCVD) {
			sr_cm_reject(id, 0, SR_CM_REJ_NO_RESOURCES, NULL, 0);
			sr_cm_id_destroy(id, 0);
		}
		return;     /* the peer retries, or our timer fires again */
	}
	e->type = ev->type;
	e->id = id;
	if (ev->type == SR_CM_EVENT_REQ_RCVD) {
		e->listener = sr_cm_id_ctx(ev->listen_id);
		if (e->listener == NULL) {
			sr_cm_reject(id, 0, SR_CM_REJ_INVALID_SERVICE_ID, NULL, 0);
			sr_cm_id_destroy(id, 0);
			free(e);
			return;
		}
	} else {
		e->conn = sr_cm_id_ctx(id);
		if (e->conn == NULL) {
			free(e);
			return;     /* its connector is gone */
		}
	}
	if (ev->msg) {
		e->has_msg = true;
		e->msg = *ev->msg;
	}
	pthread_mutex_lock(&a->cm->qlock);
	if (a->cm->tail)
		a->cm->tail->next = e;
	else
		a->cm->head = e;
	a->cm->tail = e;
	pthread_mutex_unlock(&a->cm->qlock);
	sr_ndk_worker_kick(a);
}

/* Refuse a request nobody will see (the CM's lock not held). */
static void sr_ndk_cm_refuse(struct sr_ndk_adapter *a, struct sr_cm_id *id, uint16_t reason)
{
	uint64_t now;

	sr_ndk_cm_lock(a);
	now = sr_ndk_cm_now(a);
	sr_cm_reject(id, now, reason, NULL, 0);
	sr_cm_id_destroy(id, now);
	sr_ndk_cm_unlock(a);
}

/*
 * Drop the queued events of a connector or listener being closed (the
 * CM's lock not held).  A request queued for a listener is refused.
 */
static void sr_ndk_cm_purge(struct sr_ndk_adapter *a, void *who)
{
	struct sr_ndk_cm_evt *drop = NULL, *last = NULL, **pp;

	pthread_mutex_lock(&a->cm->qlock);
	for (pp = &a->cm->head; *pp;) {
		struct sr_ndk_cm_evt *e = *pp;

		if ((void *)e->conn == who || (void *)e->listener == who) {
			*pp = e->next;
			e->next = drop;
			drop = e;
		} else {
			last = e;
			pp = &e->next;
		}
	}
	a->cm->tail = last;
	pthread_mutex_unlock(&a->cm->qlock);
	while (drop) {
		struct sr_ndk_cm_evt *e = drop;

		drop = e->next;
		if (e->type == SR_CM_EVENT_REQ_RCVD)
			sr_ndk_cm_refuse(a, e->id, SR_CM_REJ_INVALID_SERVICE_ID);
		free(e);
	}
}

/* ------------------------------------------------------------ addresses */

static socklen_t sr_ndk_sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

static int sr_ndk_sa_check(const struct sockaddr *sa, ULONG len)
{
	if (sa == NULL || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    len < sr_ndk_sa_len(sa))
		return -EINVAL;
	return 0;
}

static uint16_t sr_ndk_sa_port(const struct sockaddr *sa)
{
	return ntohs(sa->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)sa)->sin6_port
					       : ((const struct sockaddr_in *)sa)->sin_port);
}

/* A socket address as a GID (IPv4-mapped for IPv4). */
static void sr_ndk_sa_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	if (sa->sa_family == AF_INET)
		sr_cma_ipv4_gid(gid, (const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr);
	else
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
}

/* A GID and port as a socket address of the route's family. */
static void sr_ndk_gid_sa(const uint8_t gid[16], uint8_t ip_version, uint16_t port,
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
static void sr_ndk_sa_resolve_any(struct sr_ndk_adapter *a, struct sockaddr_storage *ss)
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

/* ------------------------------------------------------------ connector */

static struct sr_ndk_conn *sr_ndk_conn_of(NDK_CONNECTOR *p)
{
	return (struct sr_ndk_conn *)p;
}

static struct sr_ndk_conn *sr_ndk_conn_new(struct sr_ndk_adapter *a)
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

static void sr_ndk_conn_set_state(struct sr_ndk_conn *c, enum sr_ndk_conn_state s)
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
static void sr_ndk_conn_op_done(struct sr_ndk_conn *c, NTSTATUS st)
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

static void sr_ndk_conn_qp_err(struct sr_ndk_conn *c)
{
	struct sr_qp_attr attr = { .qp_state = SR_QPS_ERR };

	if (c->qp)
		sr_qp_modify(c->qp->qp, &attr, SR_QP_STATE);
}

/* Let go of the QP (a failed or refused connection). */
static void sr_ndk_conn_qp_release(struct sr_ndk_conn *c)
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
static void sr_ndk_conn_drop_id(struct sr_ndk_conn *c)
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

static uint16_t sr_ndk_ephemeral_port(void)
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
	    (s == SR_CONN_CLOSED && c->peer.attr == 0))
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

static NTSTATUS sr_ndk_copy_sa(const struct sockaddr_storage *ss, PSOCKADDR out, ULONG *len)
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

static NTSTATUS sr_ndk_conn_close_(NDK_OBJECT_HEADER *o)
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

/* ------------------------------------------------------------- listener */

struct sr_ndk_listener_args {
	struct sr_ndk_adapter *a;
	NDK_FN_CONNECT_EVENT_CALLBACK ev;
	PVOID ev_ctx;
};

static NDK_OBJECT_HEADER *sr_ndk_listener_create_(const void *p, NTSTATUS *st)
{
	const struct sr_ndk_listener_args *args = p;
	struct sr_ndk_listener *l = calloc(1, sizeof(*l));

	if (l == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	sr_ndk_header_init(&l->iface.Header, NdkObjectTypeListener);
	l->iface.Dispatch = &sr_ndk_listener_dispatch;
	l->a = args->a;
	l->ev = args->ev;
	l->ev_ctx = args->ev_ctx;
	atomic_fetch_add(&args->a->objects, 1);
	return &l->iface.Header;
}

NTSTATUS sr_ndk_create_listener(NDK_ADAPTER *p, NDK_FN_CONNECT_EVENT_CALLBACK ev,
				PVOID evctx, NDK_FN_CREATE_COMPLETION cb, PVOID ctx,
				NDK_LISTENER **out)
{
	struct sr_ndk_listener_args args = { .a = sr_ndk_adapter_of(p), .ev = ev,
					     .ev_ctx = evctx };

	if (out == NULL || ev == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(args.a, args.a->async_all, sr_ndk_listener_create_, &args,
			     sizeof(args), cb, ctx, (void **)out);
}

static NTSTATUS sr_ndk_listen(NDK_LISTENER *p, CONST PSOCKADDR pAddress, ULONG AddressLength,
			      NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_listener *l = (struct sr_ndk_listener *)p;
	struct sr_ndk_adapter *a = l->a;
	uint64_t sid;
	int rc;

	(void)cb;
	(void)ctx;
	if (sr_ndk_sa_check(pAddress, AddressLength) || sr_ndk_sa_port(pAddress) == 0)
		return sr_ntstatus_from_errno(EINVAL);
	if (l->cm)
		return sr_ntstatus_from_errno(EISCONN);
	if (a->cm->ops == NULL)
		return sr_ntstatus_from_errno(ENOTSUP);
	memcpy(&l->addr, pAddress, sr_ndk_sa_len(pAddress));
	sr_ndk_sa_resolve_any(a, &l->addr);
	sid = sr_cma_service_id(SR_RDMA_PS_TCP, sr_ndk_sa_port(pAddress));
	rc = sr_cm_listen(sr_ndk_cm_lock(a), sid, l, &l->cm);
	sr_ndk_cm_unlock(a);
	if (rc)
		return sr_ntstatus_from_errno(-rc);
	pthread_mutex_lock(&a->lock);
	l->next = a->cm->listeners;
	a->cm->listeners = l;
	pthread_mutex_unlock(&a->lock);
	/* requests must be received: the adapter thread progresses */
	atomic_fetch_add(&a->cm_watch, 1);
	sr_ndk_worker_kick(a);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_listener_local_address(NDK_LISTENER *p, PSOCKADDR a, ULONG *len)
{
	return sr_ndk_copy_sa(&((struct sr_ndk_listener *)p)->addr, a, len);
}

static VOID sr_ndk_control_connect_events(NDK_LISTENER *p, BOOLEAN Pause)
{
	struct sr_ndk_listener *l = (struct sr_ndk_listener *)p;

	l->paused = Pause != 0;
	sr_ndk_worker_kick(l->a);
}

static NTSTATUS sr_ndk_listener_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_listener *l = (struct sr_ndk_listener *)o;
	struct sr_ndk_adapter *a = l->a;

	pthread_mutex_lock(&a->cm->lock);
	pthread_mutex_lock(&a->lock);
	for (struct sr_ndk_listener **pp = &a->cm->listeners; *pp; pp = &(*pp)->next) {
		if (*pp == l) {
			*pp = l->next;
			break;
		}
	}
	pthread_mutex_unlock(&a->lock);
	if (l->cm) {
		sr_ndk_cm_lock(a);
		sr_cm_id_set_ctx(l->cm, NULL);
		sr_cm_id_destroy(l->cm, sr_ndk_cm_now(a));
		sr_ndk_cm_unlock(a);
		atomic_fetch_sub(&a->cm_watch, 1);
	}
	sr_ndk_cm_purge(a, l);
	free(l);
	pthread_mutex_unlock(&a->cm->lock);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_listener(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb,
				      PVOID ctx)
{
	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(((struct sr_ndk_listener *)o)->a, sr_ndk_listener_close_, o, cb,
			    ctx);
}

static NTSTATUS sr_ndk_listener_query_extension(NDK_OBJECT_HEADER *o, GUID *id,
						NDK_VERSION v, NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_LISTENER_DISPATCH sr_ndk_listener_dispatch = {
	.NdkCloseListener = sr_ndk_close_listener,
	.NdkQueryExtension = sr_ndk_listener_query_extension,
	.NdkListen = sr_ndk_listen,
	.NdkGetLocalAddress = sr_ndk_listener_local_address,
	.NdkControlConnectEvents = sr_ndk_control_connect_events,
};

/* ------------------------------------- CM events on the adapter thread */

/* A REQ on a listener: a new connector, then the ConnectEvent callback. */
static void sr_ndk_cm_request(struct sr_ndk_adapter *a, struct sr_ndk_cm_evt *e)
{
	struct sr_ndk_listener *l = e->listener;
	struct sr_ndk_conn *c;
	const struct sr_cm_addr *from;
	const uint8_t *udata;
	uint8_t ulen;
	int rc;

	c = sr_ndk_conn_new(a);
	if (c == NULL) {
		sr_ndk_cm_refuse(a, e->id, SR_CM_REJ_NO_RESOURCES);
		return;
	}
	c->peer = e->msg;
	sr_ndk_cm_lock(a);
	from = sr_cm_id_peer(e->id);
	rc = sr_cma_req_read(&c->peer, from, SR_MTU_4096, &c->route, &udata, &ulen);
	sr_ndk_cm_unlock(a);
	if (rc == 0) {
		struct sr_cma_route r;

		/* the path MTU is the smaller of the REQ's and the port's */
		memset(&r, 0, sizeof(r));
		rc = a->cm->ops->route(a->cm->ctx, c->route.dgid, &r);
		if (rc == 0 && r.path_mtu < c->route.path_mtu)
			c->route.path_mtu = r.path_mtu;
	}
	if (rc) {
		sr_ndk_cm_refuse(a, e->id, rc == -EINVAL || rc == -EPROTO ||
					   rc == -EPROTONOSUPPORT ?
					   SR_CM_REJ_INVALID_SERVICE_ID : SR_CM_REJ_NO_RESOURCES);
		sr_ndk_conn_close_(&c->iface.Header);
		return;
	}
	(void)ulen;
	/* as rdma_cm: the whole field after the header (the CM has no length) */
	c->pdata = udata;
	c->pdata_len = SR_CMA_REQ_PDATA_MAX;
	sr_ndk_gid_sa(c->route.sgid, c->route.ip_version, c->route.sport, &c->local);
	sr_ndk_gid_sa(c->route.dgid, c->route.ip_version, c->route.dport, &c->remote);
	sr_ndk_cm_lock(a);
	c->cm = e->id;
	sr_cm_id_set_ctx(e->id, c);
	sr_ndk_cm_unlock(a);
	sr_ndk_conn_set_state(c, SR_CONN_REQ_RCVD);
	if (l->ev)
		l->ev(l->ev_ctx, &c->iface);
}

/* The REP of our REQ: the QP to RTS, Connect completes (RTU at CompleteConnect). */
static void sr_ndk_cm_rep(struct sr_ndk_adapter *a, struct sr_ndk_conn *c,
			  const struct sr_cm_msg *m)
{
	struct sr_cma_qp_attr attr;
	int rc = -ENOTCONN;

	c->peer = *m;
	c->pdata = c->peer.pdata;
	c->pdata_len = SR_CMA_REP_PDATA_MAX;
	if (c->qp) {
		sr_cma_qp_attr_active(&attr, &c->req, m);
		rc = a->cm->ops->qp_connect(a->cm->ctx, c->qp->qp, &attr, &c->route);
	}
	if (rc) {
		sr_ndk_cm_lock(a);
		sr_cm_reject(c->cm, sr_ndk_cm_now(a), SR_CM_REJ_CONSUMER_DEFINED, NULL, 0);
		sr_ndk_cm_unlock(a);
		sr_ndk_conn_qp_release(c);
		sr_ndk_conn_set_state(c, SR_CONN_CLOSED);
		sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(-rc));
		return;
	}
	sr_ndk_conn_set_state(c, SR_CONN_REP_RCVD);
	sr_ndk_conn_op_done(c, STATUS_SUCCESS);
}

/* The connection ends (DREQ, DREP, retries out): QP to ERR, the callback. */
static void sr_ndk_cm_closed(struct sr_ndk_adapter *a, struct sr_ndk_conn *c, bool dreq)
{
	enum sr_ndk_conn_state was = c->state;

	sr_ndk_conn_qp_err(c);
	if (dreq) {
		sr_ndk_cm_lock(a);
		sr_cm_drep(c->cm, sr_ndk_cm_now(a), NULL, 0);
		sr_ndk_cm_unlock(a);
	}
	if (was == SR_CONN_CLOSED)
		return;
	c->was_connected = was == SR_CONN_CONNECTED || was == SR_CONN_REP_RCVD;
	sr_ndk_conn_set_state(c, SR_CONN_CLOSED);
	if (was == SR_CONN_CONNECTING || was == SR_CONN_ACCEPTING)
		sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(ECONNABORTED));
	else if (c->was_connected && c->disc)
		c->disc(c->disc_ctx);
}

static void sr_ndk_cm_dispatch(struct sr_ndk_adapter *a, struct sr_ndk_cm_evt *e)
{
	struct sr_ndk_conn *c = e->conn;

	switch (e->type) {
	case SR_CM_EVENT_REQ_RCVD:
		sr_ndk_cm_request(a, e);
		break;
	case SR_CM_EVENT_REP_RCVD:
		if (c->state == SR_CONN_CONNECTING)
			sr_ndk_cm_rep(a, c, &e->msg);
		break;
	case SR_CM_EVENT_ESTABLISHED:
		if (c->state == SR_CONN_ACCEPTING) {
			sr_ndk_conn_set_state(c, SR_CONN_CONNECTED);
			sr_ndk_conn_op_done(c, STATUS_SUCCESS);
		}
		break;
	case SR_CM_EVENT_REJ_RCVD:
		if (c->state == SR_CONN_CONNECTING) {
			/* the REJ's private data stays readable */
			c->peer = e->msg;
			c->pdata = c->peer.pdata;
			c->pdata_len = SR_CMA_REJ_PDATA_MAX;
			sr_ndk_conn_drop_id(c);
			sr_ndk_conn_qp_release(c);
			sr_ndk_conn_set_state(c, SR_CONN_REJECTED);
			sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(ECONNREFUSED));
		} else {
			sr_ndk_cm_closed(a, c, false);
		}
		break;
	case SR_CM_EVENT_TIMEOUT:
		if (c->state == SR_CONN_CONNECTING) {
			sr_ndk_conn_drop_id(c);
			sr_ndk_conn_qp_release(c);
			sr_ndk_conn_set_state(c, SR_CONN_CLOSED);
			sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(ETIMEDOUT));
		} else {
			sr_ndk_cm_closed(a, c, false);
		}
		break;
	case SR_CM_EVENT_DREQ_RCVD:
		sr_ndk_cm_closed(a, c, true);
		break;
	case SR_CM_EVENT_DISCONNECTED:
		sr_ndk_cm_closed(a, c, false);
		break;
	default:
		break;
	}
}

/* The next queued event to run now (requests of a paused listener wait). */
static struct sr_ndk_cm_evt *sr_ndk_cm_next(struct sr_ndk_adapter *a)
{
	struct sr_ndk_cm_evt **pp, *e = NULL, *prev = NULL;

	pthread_mutex_lock(&a->cm->qlock);
	for (pp = &a->cm->head; *pp; prev = *pp, pp = &(*pp)->next) {
		if ((*pp)->listener && (*pp)->listener->paused)
			continue;
		e = *pp;
		*pp = e->next;
		if (a->cm->tail == e)
			a->cm->tail = prev;
		break;
	}
	pthread_mutex_unlock(&a->cm->qlock);
	return e;
}

int sr_ndk_cm_poll(struct sr_ndk_adapter *a, int timeout_ms)
{
	struct pollfd pfd = { .fd = a->cm->efd, .events = POLLIN };
	struct sr_ndk_cm_evt *e;
	int done = 0;

	if (poll(&pfd, 1, timeout_ms) > 0) {
		uint64_t v;

		if (read(a->cm->efd, &v, sizeof(v)) < 0) {
			/* nothing to drain */
		}
	}
	pthread_mutex_lock(&a->cm->lock);
	while ((e = sr_ndk_cm_next(a)) != NULL) {
		sr_ndk_cm_dispatch(a, e);
		free(e);
		done++;
	}
	pthread_mutex_unlock(&a->cm->lock);
	return done;
}
