/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.c — NDK_CONNECTOR and NDK_LISTENER over sroce's side channel
 * (sr_ndk.h): a Unix stream socket per listener, named after its address
 * and port; one fixed-size message per step:
 *
 *   connector                      listener's new connector
 *   NdkConnect      --- REQ --->   ConnectEvent callback
 *                   <-- REP ---    NdkAccept (QP to RTS)       (or REJ)
 *   QP to RTS, Connect completes
 *   NdkCompleteConnect --- RTU -->  Accept completes
 *   NdkDisconnect   --- DREQ -->   QP to ERR, DisconnectEvent callback
 *
 * The messages carry what RoCE CM would: QP number, first PSN, GID, read
 * limits and private data.  The QP transitions are the backend's
 * (pmd/node.h); this file only moves the data and calls back.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "ndk_priv.h"

#define SR_NDK_CM_MAGIC  0x53524e4bu   /* "SRNK" */
#define SR_NDK_PDATA_MAX 256
#define SR_NDK_CM_MAXFD  64

enum sr_ndk_cm_type { SR_CM_REQ = 1, SR_CM_REP, SR_CM_RTU, SR_CM_REJ, SR_CM_DREQ };

struct sr_ndk_cm_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t qpn;
	uint32_t psn;
	uint8_t gid[16];
	uint32_t ird, ord;
	uint32_t pdata_len;
	uint8_t pdata[SR_NDK_PDATA_MAX];
	struct sockaddr_storage src, dst;
};

enum sr_ndk_conn_state {
	SR_CONN_IDLE,
	SR_CONN_WAIT_REQ,      /* accepted socket, REQ not read yet */
	SR_CONN_REQ_RCVD,      /* ConnectEvent delivered: accept or reject */
	SR_CONN_CONNECTING,    /* REQ sent, waiting for REP */
	SR_CONN_REP_RCVD,      /* Connect completed: CompleteConnect next */
	SR_CONN_ACCEPTING,     /* REP sent, waiting for RTU */
	SR_CONN_CONNECTED,
	SR_CONN_CLOSED,
};

struct sr_ndk_conn {
	NDK_CONNECTOR iface;
	struct sr_ndk_adapter *a;
	int fd;
	enum sr_ndk_conn_state state;
	struct sr_ndk_qp *qp;
	struct sr_ndk_cm_msg peer;
	struct sockaddr_storage local, remote;
	NDK_FN_REQUEST_COMPLETION cb;     /* Connect / Accept completion */
	PVOID cb_ctx;
	NDK_FN_DISCONNECT_EVENT_CALLBACK disc;
	PVOID disc_ctx;
	struct sr_ndk_listener *from;
	struct sr_ndk_conn *next;
};

struct sr_ndk_listener {
	NDK_LISTENER iface;
	struct sr_ndk_adapter *a;
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct sockaddr_storage addr;
	NDK_FN_CONNECT_EVENT_CALLBACK ev;
	PVOID ev_ctx;
	bool paused;
	struct sr_ndk_listener *next;
};

struct sr_ndk_cm {
	int efd;
	pthread_mutex_t lock;   /* recursive: input processing vs. closes */
	struct sr_ndk_conn *conns;
	struct sr_ndk_listener *listeners;
};

int sr_ndk_cm_init(struct sr_ndk_adapter *a)
{
	a->cm = calloc(1, sizeof(*a->cm));
	if (a->cm == NULL)
		return -ENOMEM;
	pthread_mutexattr_t attr;

	a->cm->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->cm->efd < 0) {
		free(a->cm);
		return -errno;
	}
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&a->cm->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	return 0;
}

void sr_ndk_cm_fini(struct sr_ndk_adapter *a)
{
	if (a->cm == NULL)
		return;
	close(a->cm->efd);
	pthread_mutex_destroy(&a->cm->lock);
	free(a->cm);
	a->cm = NULL;
}

void sr_ndk_worker_kick(struct sr_ndk_adapter *a)
{
	uint64_t one = 1;

	if (a->cm && write(a->cm->efd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: the thread wakes anyway */
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

/* The side-channel path of an address: <run_dir>/ndk-<ip>-<port>.sock. */
static int sr_ndk_cm_path(struct sr_ndk_adapter *a, const struct sockaddr *sa, char *out,
			  size_t len)
{
	const char *dir = a->be.run_dir ? a->be.run_dir : getenv("SROCE_RUN_DIR");
	char ip[INET6_ADDRSTRLEN];
	unsigned int port;
	int n;

	if (dir == NULL)
		dir = "/run/sroce";
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, ip, sizeof(ip));
		port = ntohs(s4->sin_port);
	} else {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, ip, sizeof(ip));
		port = ntohs(s6->sin6_port);
	}
	n = snprintf(out, len, "%s/ndk-%s-%u.sock", dir, ip, port);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
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

static int sr_ndk_msg_send(int fd, struct sr_ndk_cm_msg *m)
{
	const char *p = (const char *)m;
	size_t left = sizeof(*m);

	m->magic = SR_NDK_CM_MAGIC;
	while (left) {
		ssize_t n = send(fd, p, left, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -ECONNABORTED;
		p += n;
		left -= (size_t)n;
	}
	return 0;
}

/* 1: a message, 0: the peer closed, -errno */
static int sr_ndk_msg_recv(int fd, struct sr_ndk_cm_msg *m)
{
	char *p = (char *)m;
	size_t left = sizeof(*m);

	while (left) {
		ssize_t n = recv(fd, p, left, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0)
			return 0;
		if (n < 0)
			return -errno;
		p += n;
		left -= (size_t)n;
	}
	return m->magic == SR_NDK_CM_MAGIC ? 1 : -EPROTO;
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
	c->fd = -1;
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

/* An operation that keeps the adapter thread progressing ends. */
static void sr_ndk_conn_op_done(struct sr_ndk_conn *c, NTSTATUS st)
{
	NDK_FN_REQUEST_COMPLETION cb = c->cb;
	PVOID ctx = c->cb_ctx;

	c->cb = NULL;
	atomic_fetch_sub(&c->a->busy, 1);
	if (cb)
		cb(ctx, st);
}

static void sr_ndk_conn_qp_err(struct sr_ndk_conn *c)
{
	struct sr_qp_attr attr = { .qp_state = SR_QPS_ERR };

	if (c->qp)
		sr_qp_modify(c->qp->qp, &attr, SR_QP_STATE);
}

void sr_ndk_qp_disconnected(struct sr_ndk_qp *qp)
{
	if (qp->conn) {
		qp->conn->qp = NULL;
		qp->conn = NULL;
	}
}

static void sr_ndk_conn_fill(struct sr_ndk_conn *c, struct sr_ndk_cm_msg *m, uint32_t type,
			     ULONG ird, ULONG ord, const void *pdata, ULONG plen)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	if (c->qp) {
		m->qpn = sr_qp_num(c->qp->qp);
		m->psn = c->qp->sq_psn;
	}
	if (c->a->be.ops->gid)
		c->a->be.ops->gid(c->a->be.ctx, (struct sockaddr *)&c->remote, m->gid);
	/* the provider's maximum, whatever the consumer asked */
	m->ird = ird < c->a->info.MaxInboundReadLimit ? ird : c->a->info.MaxInboundReadLimit;
	m->ord = ord < c->a->info.MaxOutboundReadLimit ? ord : c->a->info.MaxOutboundReadLimit;
	m->pdata_len = plen;
	if (plen)
		memcpy(m->pdata, pdata, plen);
	m->src = c->local;
	m->dst = c->remote;
}

static NTSTATUS sr_ndk_connect(NDK_CONNECTOR *p, NDK_QP *pNdkQp, CONST PSOCKADDR pSrc,
			       ULONG SrcLen, CONST PSOCKADDR pDest, ULONG DestLen,
			       ULONG InboundReadLimit, ULONG OutboundReadLimit,
			       CONST PVOID pPrivateData, ULONG PrivateDataLength,
			       NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	struct sr_ndk_qp *qp = (struct sr_ndk_qp *)pNdkQp;
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sr_ndk_cm_msg m;
	int fd, rc;

	if (qp == NULL || cb == NULL || sr_ndk_sa_check(pDest, DestLen) ||
	    (pSrc && sr_ndk_sa_check(pSrc, SrcLen)) ||
	    PrivateDataLength > c->a->info.MaxCallerData ||
	    PrivateDataLength > SR_NDK_PDATA_MAX || (PrivateDataLength && !pPrivateData))
		return sr_ntstatus_from_errno(EINVAL);
	if (c->state != SR_CONN_IDLE || qp->conn)
		return sr_ntstatus_from_errno(EISCONN);
	rc = sr_ndk_cm_path(c->a, pDest, un.sun_path, sizeof(un.sun_path));
	if (rc)
		return sr_ntstatus_from_errno(rc);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sr_ntstatus_from_errno(errno);
	if (connect(fd, (struct sockaddr *)&un, sizeof(un)) < 0) {
		close(fd);
		return sr_ntstatus_from_errno(ECONNREFUSED);
	}
	memcpy(&c->remote, pDest, sr_ndk_sa_len(pDest));
	if (pSrc)
		memcpy(&c->local, pSrc, sr_ndk_sa_len(pSrc));
	else if (c->a->be.naddr)
		c->local = c->a->be.addr[0];
	c->qp = qp;
	qp->conn = c;
	sr_ndk_conn_fill(c, &m, SR_CM_REQ, InboundReadLimit, OutboundReadLimit,
			 pPrivateData, PrivateDataLength);
	if (sr_ndk_msg_send(fd, &m)) {
		close(fd);
		qp->conn = NULL;
		c->qp = NULL;
		return sr_ntstatus_from_errno(ECONNREFUSED);
	}
	c->cb = cb;
	c->cb_ctx = ctx;
	atomic_fetch_add(&c->a->busy, 1);
	pthread_mutex_lock(&c->a->lock);
	c->fd = fd;
	c->state = SR_CONN_CONNECTING;
	pthread_mutex_unlock(&c->a->lock);
	sr_ndk_worker_kick(c->a);
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
	struct sr_ndk_cm_msg m;

	(void)cb;
	(void)ctx;
	if (c->state != SR_CONN_REP_RCVD)
		return sr_ntstatus_from_errno(EPERM);
	c->disc = DisconnectEvent;
	c->disc_ctx = DisconnectEventContext;
	sr_ndk_conn_fill(c, &m, SR_CM_RTU, 0, 0, NULL, 0);
	if (sr_ndk_msg_send(c->fd, &m))
		return sr_ntstatus_from_errno(ECONNABORTED);
	c->state = SR_CONN_CONNECTED;
	return STATUS_SUCCESS;
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
	struct sr_ndk_peer peer;
	struct sr_ndk_cm_msg m;
	int rc;

	if (qp == NULL || cb == NULL || PrivateDataLength > c->a->info.MaxCalleeData ||
	    PrivateDataLength > SR_NDK_PDATA_MAX || (PrivateDataLength && !pPrivateData))
		return sr_ntstatus_from_errno(EINVAL);
	if (c->state != SR_CONN_REQ_RCVD || qp->conn)
		return sr_ntstatus_from_errno(EPERM);
	peer.qpn = c->peer.qpn;
	peer.psn = c->peer.psn;
	memcpy(peer.gid, c->peer.gid, 16);
	rc = c->a->be.ops->qp_connect(c->a->be.ctx, qp->qp, qp->sq_psn, &peer);
	if (rc)
		return sr_ntstatus_from_errno(rc);
	c->qp = qp;
	qp->conn = c;
	c->disc = DisconnectEvent;
	c->disc_ctx = DisconnectEventContext;
	sr_ndk_conn_fill(c, &m, SR_CM_REP, InboundReadLimit, OutboundReadLimit,
			 pPrivateData, PrivateDataLength);
	c->cb = cb;
	c->cb_ctx = ctx;
	atomic_fetch_add(&c->a->busy, 1);
	pthread_mutex_lock(&c->a->lock);
	c->state = SR_CONN_ACCEPTING;
	pthread_mutex_unlock(&c->a->lock);
	if (sr_ndk_msg_send(c->fd, &m)) {
		pthread_mutex_lock(&c->a->lock);
		c->state = SR_CONN_CLOSED;
		pthread_mutex_unlock(&c->a->lock);
		c->cb = NULL;
		atomic_fetch_sub(&c->a->busy, 1);
		return sr_ntstatus_from_errno(ECONNABORTED);
	}
	sr_ndk_worker_kick(c->a);
	return STATUS_PENDING;
}

static NTSTATUS sr_ndk_reject(NDK_CONNECTOR *p, CONST PVOID pPrivateData,
			      ULONG PrivateDataLength)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);
	struct sr_ndk_cm_msg m;

	if (c->state != SR_CONN_REQ_RCVD || PrivateDataLength > SR_NDK_PDATA_MAX)
		return sr_ntstatus_from_errno(EPERM);
	sr_ndk_conn_fill(c, &m, SR_CM_REJ, 0, 0, pPrivateData, PrivateDataLength);
	sr_ndk_msg_send(c->fd, &m);
	pthread_mutex_lock(&c->a->lock);
	c->state = SR_CONN_CLOSED;
	pthread_mutex_unlock(&c->a->lock);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_get_connection_data(NDK_CONNECTOR *p, ULONG *pInboundReadLimit,
					   ULONG *pOutboundReadLimit, PVOID pPrivateData,
					   ULONG *pPrivateDataLength)
{
	struct sr_ndk_conn *c = sr_ndk_conn_of(p);

	if (c->state == SR_CONN_IDLE || c->state == SR_CONN_WAIT_REQ ||
	    c->state == SR_CONN_CONNECTING)
		return sr_ntstatus_from_errno(EPERM);
	if (pInboundReadLimit)
		*pInboundReadLimit = c->peer.ird;
	if (pOutboundReadLimit)
		*pOutboundReadLimit = c->peer.ord;
	if (pPrivateDataLength) {
		if (*pPrivateDataLength < c->peer.pdata_len || (!pPrivateData &&
							        c->peer.pdata_len)) {
			*pPrivateDataLength = c->peer.pdata_len;
			return sr_ntstatus_from_errno(EOVERFLOW);
		}
		if (c->peer.pdata_len)
			memcpy(pPrivateData, c->peer.pdata, c->peer.pdata_len);
		*pPrivateDataLength = c->peer.pdata_len;
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
	struct sr_ndk_cm_msg m;

	(void)cb;
	(void)ctx;
	if (c->state != SR_CONN_CONNECTED && c->state != SR_CONN_REP_RCVD)
		return sr_ntstatus_from_errno(ENOTCONN);
	sr_ndk_conn_fill(c, &m, SR_CM_DREQ, 0, 0, NULL, 0);
	sr_ndk_msg_send(c->fd, &m);
	sr_ndk_conn_qp_err(c);
	pthread_mutex_lock(&c->a->lock);
	c->state = SR_CONN_CLOSED;
	pthread_mutex_unlock(&c->a->lock);
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
	if (c->cb)
		atomic_fetch_sub(&a->busy, 1);
	if (c->qp)
		c->qp->conn = NULL;
	if (c->fd >= 0)
		close(c->fd);
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
	l->fd = -1;
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
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd, rc;

	(void)cb;
	(void)ctx;
	if (sr_ndk_sa_check(pAddress, AddressLength))
		return sr_ntstatus_from_errno(EINVAL);
	if (l->fd >= 0)
		return sr_ntstatus_from_errno(EISCONN);
	memcpy(&l->addr, pAddress, sr_ndk_sa_len(pAddress));
	sr_ndk_sa_resolve_any(l->a, &l->addr);
	rc = sr_ndk_cm_path(l->a, (struct sockaddr *)&l->addr, un.sun_path,
			    sizeof(un.sun_path));
	if (rc)
		return sr_ntstatus_from_errno(rc);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return sr_ntstatus_from_errno(errno);
	unlink(un.sun_path);   /* a stale socket of a finished process */
	if (bind(fd, (struct sockaddr *)&un, sizeof(un)) < 0 || listen(fd, 64) < 0) {
		rc = errno == EADDRINUSE ? EADDRINUSE : errno;
		close(fd);
		return sr_ntstatus_from_errno(rc);
	}
	memcpy(l->path, un.sun_path, sizeof(l->path));
	pthread_mutex_lock(&l->a->lock);
	l->fd = fd;
	l->next = l->a->cm->listeners;
	l->a->cm->listeners = l;
	pthread_mutex_unlock(&l->a->lock);
	sr_ndk_worker_kick(l->a);
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
	for (struct sr_ndk_conn *c = a->cm->conns; c; c = c->next)
		if (c->from == l)
			c->from = NULL;
	pthread_mutex_unlock(&a->lock);
	if (l->fd >= 0) {
		close(l->fd);
		unlink(l->path);
	}
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

/* ------------------------------------------------- the side channel's loop */

/* A message (or the end) on a connector's socket (adapter thread). */
static void sr_ndk_conn_input(struct sr_ndk_conn *c)
{
	struct sr_ndk_cm_msg m;
	int rc = sr_ndk_msg_recv(c->fd, &m);

	if (rc <= 0 || m.type == SR_CM_DREQ) {
		enum sr_ndk_conn_state was = c->state;

		pthread_mutex_lock(&c->a->lock);
		c->state = SR_CONN_CLOSED;
		pthread_mutex_unlock(&c->a->lock);
		sr_ndk_conn_qp_err(c);
		if (was == SR_CONN_CONNECTING || was == SR_CONN_ACCEPTING)
			sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(ECONNABORTED));
		else if ((was == SR_CONN_CONNECTED || was == SR_CONN_REP_RCVD) && c->disc)
			c->disc(c->disc_ctx);
		return;
	}
	switch (c->state) {
	case SR_CONN_WAIT_REQ:
		if (m.type != SR_CM_REQ)
			break;
		c->peer = m;
		c->remote = m.src;
		c->local = m.dst;
		c->state = SR_CONN_REQ_RCVD;
		if (c->from && c->from->ev)
			c->from->ev(c->from->ev_ctx, &c->iface);
		break;
	case SR_CONN_CONNECTING:
		c->peer = m;
		if (m.type == SR_CM_REJ) {
			c->state = SR_CONN_CLOSED;
			sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(ECONNREFUSED));
		} else if (m.type == SR_CM_REP && c->qp) {
			struct sr_ndk_peer peer = { .qpn = m.qpn, .psn = m.psn };

			memcpy(peer.gid, m.gid, 16);
			rc = c->a->be.ops->qp_connect(c->a->be.ctx, c->qp->qp,
						      c->qp->sq_psn, &peer);
			c->state = rc ? SR_CONN_CLOSED : SR_CONN_REP_RCVD;
			sr_ndk_conn_op_done(c, sr_ntstatus_from_errno(rc));
		}
		break;
	case SR_CONN_ACCEPTING:
		if (m.type == SR_CM_RTU) {
			c->state = SR_CONN_CONNECTED;
			sr_ndk_conn_op_done(c, STATUS_SUCCESS);
		}
		break;
	default:
		break;
	}
}

/* Is the object still open, on that socket?  (cm->lock held) */
static bool sr_ndk_cm_alive(struct sr_ndk_adapter *a, void *who, bool listener, int fd)
{
	bool alive = false;

	pthread_mutex_lock(&a->lock);
	if (listener) {
		for (struct sr_ndk_listener *l = a->cm->listeners; l && !alive; l = l->next)
			alive = (void *)l == who && l->fd == fd && !l->paused;
	} else {
		for (struct sr_ndk_conn *c = a->cm->conns; c && !alive; c = c->next)
			alive = (void *)c == who && c->fd == fd && c->state != SR_CONN_CLOSED;
	}
	pthread_mutex_unlock(&a->lock);
	return alive;
}

int sr_ndk_cm_poll(struct sr_ndk_adapter *a, int timeout_ms)
{
	struct pollfd pfd[SR_NDK_CM_MAXFD];
	void *who[SR_NDK_CM_MAXFD];
	bool is_listener[SR_NDK_CM_MAXFD];
	unsigned int n = 1;
	int done = 0, rc;

	pfd[0] = (struct pollfd){ .fd = a->cm->efd, .events = POLLIN };
	pthread_mutex_lock(&a->lock);
	for (struct sr_ndk_listener *l = a->cm->listeners; l && n < SR_NDK_CM_MAXFD;
	     l = l->next) {
		if (l->fd < 0 || l->paused)
			continue;
		pfd[n] = (struct pollfd){ .fd = l->fd, .events = POLLIN };
		who[n] = l;
		is_listener[n++] = true;
	}
	for (struct sr_ndk_conn *c = a->cm->conns; c && n < SR_NDK_CM_MAXFD; c = c->next) {
		if (c->fd < 0 || c->state == SR_CONN_CLOSED || c->state == SR_CONN_REQ_RCVD ||
		    c->state == SR_CONN_IDLE)
			continue;
		pfd[n] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
		who[n] = c;
		is_listener[n++] = false;
	}
	pthread_mutex_unlock(&a->lock);
	rc = poll(pfd, n, timeout_ms);
	if (rc <= 0)
		return 0;
	if (pfd[0].revents) {
		uint64_t v;

		if (read(a->cm->efd, &v, sizeof(v)) < 0) {
			/* nothing to drain */
		}
	}
	pthread_mutex_lock(&a->cm->lock);
	for (unsigned int i = 1; i < n; i++) {
		if (!pfd[i].revents || (pfd[i].revents & POLLNVAL) ||
		    !sr_ndk_cm_alive(a, who[i], is_listener[i], pfd[i].fd))
			continue;
		done++;
		if (is_listener[i]) {
			struct sr_ndk_listener *l = who[i];
			int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
			struct sr_ndk_conn *c;

			if (fd < 0)
				continue;
			c = sr_ndk_conn_new(a);
			if (c == NULL) {
				close(fd);
				continue;
			}
			c->from = l;
			pthread_mutex_lock(&a->lock);
			c->fd = fd;
			c->state = SR_CONN_WAIT_REQ;
			pthread_mutex_unlock(&a->lock);
		} else {
			sr_ndk_conn_input(who[i]);
		}
	}
	pthread_mutex_unlock(&a->cm->lock);
	return done;
}
