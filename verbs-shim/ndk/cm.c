/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm.c — the NDK shim's side of the device's communication manager: the
 * CM calls back with its lock held, on the engine's thread or inside our
 * own sr_cm_* call, so its callback only queues the event; the adapter
 * thread (sr_ndk_cm_poll) turns queued events into what NDK promises:
 *
 *   REQ on a listener     a new connector, the ConnectEvent callback
 *   REP of our REQ        the QP to RTS, Connect completes
 *                         (NdkCompleteConnect sends the RTU)
 *   RTU                   Accept completes
 *   REJ                   Connect completes STATUS_CONNECTION_REFUSED, the
 *                         REJ's private data readable
 *   DREQ, DREP, timeouts  the QP to ERR, the DisconnectEvent callback (or
 *                         the pending request fails)
 *
 * Message contents and QP attributes are lib/cm's (sr_cma_*); routes and
 * QP transitions the backend's (sr_ndk_cm_ops).
 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "conn_priv.h"

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

struct sr_cm *sr_ndk_cm_lock(struct sr_ndk_adapter *a)
{
	return a->cm->ops->lock(a->cm->ctx);
}

void sr_ndk_cm_unlock(struct sr_ndk_adapter *a)
{
	a->cm->ops->unlock(a->cm->ctx);
}

uint64_t sr_ndk_cm_now(struct sr_ndk_adapter *a)
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
void sr_ndk_cm_refuse(struct sr_ndk_adapter *a, struct sr_cm_id *id, uint16_t reason)
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
void sr_ndk_cm_purge(struct sr_ndk_adapter *a, void *who)
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
		sr_ndk_conn_drop_id(c);
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
