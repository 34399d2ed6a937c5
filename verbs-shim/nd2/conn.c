/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * conn.c — IND2Connector and IND2Listener on NDK_CONNECTOR and
 * NDK_LISTENER (the device's CM moves the connection data, with rdma_cm's
 * addressing; see sr_ndk.h).
 *
 * The two models differ in who makes the passive connector: NDK hands a
 * new NDK_CONNECTOR to the listener's ConnectEvent callback, ND2 fills a
 * connector the caller made with GetConnectionRequest.  The listener
 * therefore queues both: requests that arrived before anybody asked, and
 * GetConnectionRequests that wait for a request; each arrival or request
 * is matched with the oldest of the other queue.  An active connector
 * makes its NDK connector at Connect.
 *
 * Completions: Connect and Accept are NDK requests whose completion
 * completes the OVERLAPPED; NotifyDisconnect completes on the NDK
 * disconnect event; CompleteConnect, Reject and Disconnect complete at
 * once.
 */
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "nd2_priv.h"

static socklen_t sr_nd2_sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

static bool sr_nd2_sa_ok(const struct sockaddr *sa, ULONG len)
{
	return sa && (sa->sa_family == AF_INET || sa->sa_family == AF_INET6) &&
	       len >= sr_nd2_sa_len(sa);
}

/* ---------------------------------------------------------- connector */

static struct sr_nd2_conn *sr_nd2_conn_of(IND2Connector *p)
{
	return (struct sr_nd2_conn *)p;
}

/* Take an outstanding OVERLAPPED out of its slot (NULL if none). */
static OVERLAPPED *sr_nd2_conn_take(struct sr_nd2_conn *c, OVERLAPPED **slot)
{
	OVERLAPPED *ov;

	pthread_mutex_lock(&c->lock);
	ov = *slot;
	*slot = NULL;
	pthread_mutex_unlock(&c->lock);
	return ov;
}

/* NDK_FN_REQUEST_COMPLETION of Connect and Accept (adapter thread). */
static VOID sr_nd2_conn_op_done(PVOID ctx, NTSTATUS st)
{
	struct sr_nd2_conn *c = ctx;
	OVERLAPPED *ov;

	struct sr_nd2_qp *qp = NULL;

	pthread_mutex_lock(&c->lock);
	ov = c->op;
	c->op = NULL;
	if (NT_SUCCESS(st)) {
		c->connected = true;
	} else if (!c->connected) {
		/* refused or failed: the connector may try again */
		qp = c->qp;
		c->qp = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	if (qp)
		sr_nd2_qp_put(qp);
	if (ov)
		sr_nd2_ov_complete(ov, sr_hresult_from_ntstatus(st));
}

/* NDK_FN_DISCONNECT_EVENT_CALLBACK (adapter thread). */
static VOID sr_nd2_conn_disconnected(PVOID ctx)
{
	struct sr_nd2_conn *c = ctx;
	OVERLAPPED *ov;

	pthread_mutex_lock(&c->lock);
	c->disconnected = true;
	ov = c->notify;
	c->notify = NULL;
	pthread_mutex_unlock(&c->lock);
	if (ov)
		sr_nd2_ov_complete(ov, ND_SUCCESS);
}

static ULONG sr_nd2_conn_add_ref(IND2Connector *p)
{
	return atomic_fetch_add(&sr_nd2_conn_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_conn_add_ref_(void *p)
{
	return sr_nd2_conn_add_ref(p);
}

static HRESULT sr_nd2_conn_cancel(IND2Connector *p)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	OVERLAPPED *op = sr_nd2_conn_take(c, &c->op);
	OVERLAPPED *notify = sr_nd2_conn_take(c, &c->notify);
	HRESULT hr = sr_hresult_from_errno(ECANCELED);

	if (op)
		sr_nd2_ov_complete(op, hr);
	if (notify)
		sr_nd2_ov_complete(notify, hr);
	return ND_SUCCESS;
}

static ULONG sr_nd2_conn_release(IND2Connector *p)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	ULONG left = atomic_fetch_sub(&c->refs, 1) - 1;

	if (left)
		return left;
	/* closing the NDK connector waits for its callbacks, then none come */
	if (c->ndk)
		c->ndk->Dispatch->NdkCloseConnector(&c->ndk->Header, NULL, NULL);
	sr_nd2_conn_cancel(p);
	if (c->qp)
		sr_nd2_qp_put(c->qp);
	pthread_mutex_destroy(&c->lock);
	sr_nd2_object_del(c->a);
	free(c);
	return 0;
}

static HRESULT sr_nd2_conn_query_interface(IND2Connector *p, REFIID riid, VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2Connector, true, sr_nd2_conn_add_ref_);
}

static HRESULT sr_nd2_conn_get_overlapped_result(IND2Connector *p, OVERLAPPED *ov, BOOL wait)
{
	return sr_nd2_ov_result(sr_nd2_conn_of(p)->a, ov, wait);
}

static HRESULT sr_nd2_conn_bind(IND2Connector *p, const struct sockaddr *pAddress,
				ULONG cbAddress)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	HRESULT hr = sr_nd2_alive(c->a);

	if (FAILED(hr))
		return hr;
	if (!sr_nd2_sa_ok(pAddress, cbAddress))
		return sr_hresult_from_errno(EINVAL);
	if (c->ndk)
		return sr_hresult_from_errno(EISCONN);
	memcpy(&c->bound, pAddress, sr_nd2_sa_len(pAddress));
	return ND_SUCCESS;
}

/* Attach a queue pair (a reference for the connector's life); hr of a bad one. */
static HRESULT sr_nd2_conn_qp(struct sr_nd2_conn *c, IUnknown *pQueuePair)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_from(pQueuePair);

	if (qp == NULL || qp->a != c->a)
		return ND_INVALID_PARAMETER_1;
	if (c->qp)
		return sr_hresult_from_errno(EISCONN);
	sr_nd2_qp_get(qp);
	c->qp = qp;
	return ND_SUCCESS;
}

static ULONG sr_nd2_clamp(ULONG v, ULONG max)
{
	return v < max ? v : max;
}

static HRESULT sr_nd2_connect(IND2Connector *p, IUnknown *pQueuePair,
			      const struct sockaddr *pDestAddress, ULONG cbDestAddress,
			      ULONG inboundReadLimit, ULONG outboundReadLimit,
			      const VOID *pPrivateData, ULONG cbPrivateData, OVERLAPPED *ov)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	const ND2_ADAPTER_INFO *i = &c->a->info;
	HRESULT hr = sr_nd2_alive(c->a);
	NTSTATUS st;

	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	if (ov == NULL || !sr_nd2_sa_ok(pDestAddress, cbDestAddress))
		return sr_hresult_from_errno(EINVAL);
	if (cbPrivateData > i->MaxCallerData)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(EMSGSIZE));
	if (c->waiting || c->op)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(EISCONN));
	if (c->ndk == NULL) {
		st = c->a->ndk->Dispatch->NdkCreateConnector(c->a->ndk, NULL, NULL, &c->ndk);
		if (!NT_SUCCESS(st))
			return sr_nd2_ov_done_now(ov, sr_hresult_from_ntstatus(st));
	}
	hr = sr_nd2_conn_qp(c, pQueuePair);
	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	sr_nd2_ov_start(c->f, ov);
	pthread_mutex_lock(&c->lock);
	c->op = ov;
	pthread_mutex_unlock(&c->lock);
	st = c->ndk->Dispatch->NdkConnect(c->ndk, c->qp->ndk,
					  c->bound.ss_family ? (PSOCKADDR)&c->bound : NULL,
					  c->bound.ss_family ?
					  sr_nd2_sa_len((struct sockaddr *)&c->bound) : 0,
					  (PSOCKADDR)pDestAddress, cbDestAddress,
					  sr_nd2_clamp(inboundReadLimit, i->MaxInboundReadLimit),
					  sr_nd2_clamp(outboundReadLimit, i->MaxOutboundReadLimit),
					  (PVOID)(uintptr_t)pPrivateData, cbPrivateData,
					  sr_nd2_conn_op_done, c);
	if (st == STATUS_PENDING)
		return ND_PENDING;
	sr_nd2_conn_take(c, &c->op);
	if (c->qp) {
		sr_nd2_qp_put(c->qp);
		c->qp = NULL;
	}
	return sr_nd2_ov_done_now(ov, sr_hresult_from_ntstatus(st));
}

static HRESULT sr_nd2_complete_connect(IND2Connector *p, OVERLAPPED *ov)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	HRESULT hr = sr_nd2_alive(c->a);

	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	if (c->ndk == NULL || !c->connected)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(ENOTCONN));
	hr = sr_hresult_from_ntstatus(c->ndk->Dispatch->NdkCompleteConnect(
		c->ndk, sr_nd2_conn_disconnected, c, NULL, NULL));
	return sr_nd2_ov_done_now(ov, hr);
}

static HRESULT sr_nd2_accept(IND2Connector *p, IUnknown *pQueuePair, ULONG inboundReadLimit,
			     ULONG outboundReadLimit, const VOID *pPrivateData,
			     ULONG cbPrivateData, OVERLAPPED *ov)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	const ND2_ADAPTER_INFO *i = &c->a->info;
	HRESULT hr = sr_nd2_alive(c->a);
	ULONG peer_ird = 0, peer_ord = 0;
	NTSTATUS st;

	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	if (ov == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (cbPrivateData > i->MaxCalleeData)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(EMSGSIZE));
	if (c->ndk == NULL || c->op)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(ENOTCONN));
	hr = sr_nd2_conn_qp(c, pQueuePair);
	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	/* no more than the peer offered */
	c->ndk->Dispatch->NdkGetConnectionData(c->ndk, &peer_ird, &peer_ord, NULL, NULL);
	inboundReadLimit = sr_nd2_clamp(sr_nd2_clamp(inboundReadLimit, i->MaxInboundReadLimit),
					peer_ord);
	outboundReadLimit = sr_nd2_clamp(sr_nd2_clamp(outboundReadLimit,
						      i->MaxOutboundReadLimit), peer_ird);
	sr_nd2_ov_start(c->f, ov);
	pthread_mutex_lock(&c->lock);
	c->op = ov;
	pthread_mutex_unlock(&c->lock);
	st = c->ndk->Dispatch->NdkAccept(c->ndk, c->qp->ndk, inboundReadLimit, outboundReadLimit,
					 (PVOID)(uintptr_t)pPrivateData, cbPrivateData,
					 sr_nd2_conn_disconnected, c, sr_nd2_conn_op_done, c);
	if (st == STATUS_PENDING)
		return ND_PENDING;
	sr_nd2_conn_take(c, &c->op);
	return sr_nd2_ov_done_now(ov, sr_hresult_from_ntstatus(st));
}

static HRESULT sr_nd2_reject(IND2Connector *p, const VOID *pPrivateData, ULONG cbPrivateData)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	HRESULT hr = sr_nd2_alive(c->a);

	if (FAILED(hr))
		return hr;
	if (cbPrivateData > c->a->info.MaxCalleeData)
		return sr_hresult_from_errno(EMSGSIZE);
	if (c->ndk == NULL)
		return sr_hresult_from_errno(ENOTCONN);
	return sr_hresult_from_ntstatus(c->ndk->Dispatch->NdkReject(
		c->ndk, (PVOID)(uintptr_t)pPrivateData, cbPrivateData));
}

static HRESULT sr_nd2_get_read_limits(IND2Connector *p, ULONG *pInboundReadLimit,
				      ULONG *pOutboundReadLimit)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	ULONG ird = 0, ord = 0;
	NTSTATUS st;

	if (c->ndk == NULL)
		return sr_hresult_from_errno(ENOTCONN);
	st = c->ndk->Dispatch->NdkGetConnectionData(c->ndk, &ird, &ord, NULL, NULL);
	if (!NT_SUCCESS(st))
		return sr_hresult_from_errno(ENOTCONN);
	/* our inbound limit is what the peer may read of us: its outbound */
	if (pInboundReadLimit)
		*pInboundReadLimit = sr_nd2_clamp(ord, c->a->info.MaxInboundReadLimit);
	if (pOutboundReadLimit)
		*pOutboundReadLimit = sr_nd2_clamp(ird, c->a->info.MaxOutboundReadLimit);
	return ND_SUCCESS;
}

static HRESULT sr_nd2_get_private_data(IND2Connector *p, VOID *pPrivateData,
				       ULONG *pcbPrivateData)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	NTSTATUS st;

	if (pcbPrivateData == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (c->ndk == NULL)
		return sr_hresult_from_errno(ENOTCONN);
	st = c->ndk->Dispatch->NdkGetConnectionData(c->ndk, NULL, NULL, pPrivateData,
						    pcbPrivateData);
	if (st == STATUS_INVALID_DEVICE_STATE)
		return sr_hresult_from_errno(ENOTCONN);
	return sr_hresult_from_ntstatus(st);
}

static HRESULT sr_nd2_conn_address(struct sr_nd2_conn *c, struct sockaddr *a, ULONG *len,
				   bool peer)
{
	NTSTATUS st;

	if (len == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (c->ndk == NULL)
		return sr_hresult_from_errno(ENOTCONN);
	st = peer ? c->ndk->Dispatch->NdkGetPeerAddress(c->ndk, a, len)
		  : c->ndk->Dispatch->NdkGetLocalAddress(c->ndk, a, len);
	if (st == STATUS_INVALID_DEVICE_STATE)
		return sr_hresult_from_errno(ENOTCONN);
	return sr_hresult_from_ntstatus(st);
}

static HRESULT sr_nd2_conn_local_address(IND2Connector *p, struct sockaddr *a, ULONG *len)
{
	return sr_nd2_conn_address(sr_nd2_conn_of(p), a, len, false);
}

static HRESULT sr_nd2_conn_peer_address(IND2Connector *p, struct sockaddr *a, ULONG *len)
{
	return sr_nd2_conn_address(sr_nd2_conn_of(p), a, len, true);
}

static HRESULT sr_nd2_notify_disconnect(IND2Connector *p, OVERLAPPED *ov)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	HRESULT hr = ND_PENDING;

	if (ov == NULL)
		return sr_hresult_from_errno(EINVAL);
	pthread_mutex_lock(&c->lock);
	if (!c->connected)
		hr = sr_hresult_from_errno(ENOTCONN);
	else if (c->disconnected)
		hr = ND_SUCCESS;
	else if (c->notify)
		hr = sr_hresult_from_errno(EBUSY);
	else {
		sr_nd2_ov_start(c->f, ov);
		c->notify = ov;
	}
	pthread_mutex_unlock(&c->lock);
	return hr == ND_PENDING ? hr : sr_nd2_ov_done_now(ov, hr);
}

static HRESULT sr_nd2_disconnect(IND2Connector *p, OVERLAPPED *ov)
{
	struct sr_nd2_conn *c = sr_nd2_conn_of(p);
	NTSTATUS st;

	if (c->ndk == NULL || !c->connected)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(ENOTCONN));
	/* the NDK disconnect takes the queue pair to ERR: outstanding requests flush */
	st = c->ndk->Dispatch->NdkDisconnect(c->ndk, NULL, NULL);
	sr_nd2_conn_disconnected(c);
	return sr_nd2_ov_done_now(ov, sr_hresult_from_ntstatus(st));
}

static const IND2ConnectorVtbl sr_nd2_conn_vtbl = {
	.QueryInterface = sr_nd2_conn_query_interface,
	.AddRef = sr_nd2_conn_add_ref,
	.Release = sr_nd2_conn_release,
	.CancelOverlappedRequests = sr_nd2_conn_cancel,
	.GetOverlappedResult = sr_nd2_conn_get_overlapped_result,
	.Bind = sr_nd2_conn_bind,
	.Connect = sr_nd2_connect,
	.CompleteConnect = sr_nd2_complete_connect,
	.Accept = sr_nd2_accept,
	.Reject = sr_nd2_reject,
	.GetReadLimits = sr_nd2_get_read_limits,
	.GetPrivateData = sr_nd2_get_private_data,
	.GetLocalAddress = sr_nd2_conn_local_address,
	.GetPeerAddress = sr_nd2_conn_peer_address,
	.NotifyDisconnect = sr_nd2_notify_disconnect,
	.Disconnect = sr_nd2_disconnect,
};

HRESULT sr_nd2_conn_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, VOID **out)
{
	struct sr_nd2_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return ND_NO_MEMORY;
	c->iface.lpVtbl = &sr_nd2_conn_vtbl;
	atomic_init(&c->refs, 1);
	c->a = a;
	c->f = f;
	pthread_mutex_init(&c->lock, NULL);
	sr_nd2_object_add(a);
	*out = &c->iface;
	return ND_SUCCESS;
}

static struct sr_nd2_conn *sr_nd2_conn_from(IUnknown *p)
{
	return p && (const void *)p->lpVtbl == (const void *)&sr_nd2_conn_vtbl ?
	       (struct sr_nd2_conn *)p : NULL;
}

/* ----------------------------------------------------------- listener */

static struct sr_nd2_listener *sr_nd2_listener_of(IND2Listener *p)
{
	return (struct sr_nd2_listener *)p;
}

/* Give an arrived request to a waiting connector: complete its request. */
static void sr_nd2_listener_match(struct sr_nd2_conn *c, OVERLAPPED *ov, NDK_CONNECTOR *k)
{
	pthread_mutex_lock(&c->lock);
	c->ndk = k;
	c->waiting = false;
	pthread_mutex_unlock(&c->lock);
	sr_nd2_ov_complete(ov, ND_SUCCESS);
	sr_nd2_conn_release(&c->iface);   /* the listener's reference */
}

/* NDK_FN_CONNECT_EVENT_CALLBACK (adapter thread). */
static VOID sr_nd2_listener_event(PVOID ctx, NDK_CONNECTOR *k)
{
	struct sr_nd2_listener *l = ctx;
	struct sr_nd2_conn *c = NULL;
	OVERLAPPED *ov = NULL;
	bool full = false;

	pthread_mutex_lock(&l->lock);
	if (l->nwaiting) {
		c = l->waiting[0].c;
		ov = l->waiting[0].ov;
		memmove(&l->waiting[0], &l->waiting[1], --l->nwaiting * sizeof(l->waiting[0]));
	} else if (l->nincoming < SR_ND2_MAX_WAITERS) {
		l->incoming[l->nincoming++] = k;
	} else {
		full = true;
	}
	pthread_mutex_unlock(&l->lock);
	if (c) {
		sr_nd2_listener_match(c, ov, k);
	} else if (full) {   /* over the backlog: refuse */
		k->Dispatch->NdkReject(k, NULL, 0);
		k->Dispatch->NdkCloseConnector(&k->Header, NULL, NULL);
	}
}

static ULONG sr_nd2_listener_add_ref(IND2Listener *p)
{
	return atomic_fetch_add(&sr_nd2_listener_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_listener_add_ref_(void *p)
{
	return sr_nd2_listener_add_ref(p);
}

/* Cancel every GetConnectionRequest outstanding. */
static HRESULT sr_nd2_listener_cancel(IND2Listener *p)
{
	struct sr_nd2_listener *l = sr_nd2_listener_of(p);
	HRESULT hr = sr_hresult_from_errno(ECANCELED);

	for (;;) {
		struct sr_nd2_conn *c = NULL;
		OVERLAPPED *ov = NULL;

		pthread_mutex_lock(&l->lock);
		if (l->nwaiting) {
			c = l->waiting[--l->nwaiting].c;
			ov = l->waiting[l->nwaiting].ov;
		}
		pthread_mutex_unlock(&l->lock);
		if (c == NULL)
			return ND_SUCCESS;
		c->waiting = false;
		sr_nd2_ov_complete(ov, hr);
		sr_nd2_conn_release(&c->iface);
	}
}

static ULONG sr_nd2_listener_release(IND2Listener *p)
{
	struct sr_nd2_listener *l = sr_nd2_listener_of(p);
	ULONG left = atomic_fetch_sub(&l->refs, 1) - 1;

	if (left)
		return left;
	/* after the NDK close no connect event comes */
	l->ndk->Dispatch->NdkCloseListener(&l->ndk->Header, NULL, NULL);
	sr_nd2_listener_cancel(p);
	for (unsigned int i = 0; i < l->nincoming; i++) {
		NDK_CONNECTOR *k = l->incoming[i];

		k->Dispatch->NdkReject(k, NULL, 0);
		k->Dispatch->NdkCloseConnector(&k->Header, NULL, NULL);
	}
	pthread_mutex_destroy(&l->lock);
	sr_nd2_object_del(l->a);
	free(l);
	return 0;
}

static HRESULT sr_nd2_listener_query_interface(IND2Listener *p, REFIID riid, VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2Listener, true, sr_nd2_listener_add_ref_);
}

static HRESULT sr_nd2_listener_get_overlapped_result(IND2Listener *p, OVERLAPPED *ov,
						     BOOL wait)
{
	return sr_nd2_ov_result(sr_nd2_listener_of(p)->a, ov, wait);
}

static HRESULT sr_nd2_listener_bind(IND2Listener *p, const struct sockaddr *pAddress,
				    ULONG cbAddress)
{
	struct sr_nd2_listener *l = sr_nd2_listener_of(p);
	HRESULT hr = sr_nd2_alive(l->a);

	if (FAILED(hr))
		return hr;
	if (!sr_nd2_sa_ok(pAddress, cbAddress))
		return sr_hresult_from_errno(EINVAL);
	if (l->listening)
		return sr_hresult_from_errno(EPERM);
	memcpy(&l->bound, pAddress, sr_nd2_sa_len(pAddress));
	return ND_SUCCESS;
}

static HRESULT sr_nd2_listen(IND2Listener *p, ULONG backlog)
{
	struct sr_nd2_listener *l = sr_nd2_listener_of(p);
	HRESULT hr = sr_nd2_alive(l->a);

	(void)backlog;   /* SR_ND2_MAX_WAITERS requests wait at most */
	if (FAILED(hr))
		return hr;
	if (l->bound.ss_family == 0 || l->listening)
		return sr_hresult_from_errno(EPERM);
	hr = sr_hresult_from_ntstatus(l->ndk->Dispatch->NdkListen(
		l->ndk, (PSOCKADDR)&l->bound, sr_nd2_sa_len((struct sockaddr *)&l->bound),
		NULL, NULL));
	if (SUCCEEDED(hr))
		l->listening = true;
	return hr;
}

static HRESULT sr_nd2_listener_local_address(IND2Listener *p, struct sockaddr *a, ULONG *len)
{
	struct sr_nd2_listener *l = sr_nd2_listener_of(p);

	if (len == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (!l->listening)
		return sr_hresult_from_errno(EPERM);
	return sr_hresult_from_ntstatus(l->ndk->Dispatch->NdkGetLocalAddress(l->ndk, a, len));
}

static HRESULT sr_nd2_get_connection_request(IND2Listener *p, IUnknown *pConnector,
					     OVERLAPPED *ov)
{
	struct sr_nd2_listener *l = sr_nd2_listener_of(p);
	struct sr_nd2_conn *c = sr_nd2_conn_from(pConnector);
	NDK_CONNECTOR *k = NULL;
	HRESULT hr = sr_nd2_alive(l->a);

	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	if (ov == NULL || c == NULL || c->a != l->a)
		return sr_hresult_from_errno(EINVAL);
	if (c->ndk || c->waiting)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(EISCONN));
	sr_nd2_ov_start(c->f, ov);
	sr_nd2_conn_add_ref(&c->iface);   /* held while it waits */
	c->waiting = true;
	pthread_mutex_lock(&l->lock);
	if (l->nincoming) {
		k = l->incoming[0];
		memmove(&l->incoming[0], &l->incoming[1], --l->nincoming * sizeof(k));
	} else if (l->nwaiting < SR_ND2_MAX_WAITERS) {
		l->waiting[l->nwaiting].c = c;
		l->waiting[l->nwaiting++].ov = ov;
		hr = ND_PENDING;
	} else {
		hr = sr_hresult_from_errno(ENOMEM);
	}
	pthread_mutex_unlock(&l->lock);
	if (k) {
		sr_nd2_listener_match(c, ov, k);
		return ND_SUCCESS;
	}
	if (hr == ND_PENDING)
		return hr;
	c->waiting = false;
	sr_nd2_conn_release(&c->iface);
	return sr_nd2_ov_done_now(ov, hr);
}

static const IND2ListenerVtbl sr_nd2_listener_vtbl = {
	.QueryInterface = sr_nd2_listener_query_interface,
	.AddRef = sr_nd2_listener_add_ref,
	.Release = sr_nd2_listener_release,
	.CancelOverlappedRequests = sr_nd2_listener_cancel,
	.GetOverlappedResult = sr_nd2_listener_get_overlapped_result,
	.Bind = sr_nd2_listener_bind,
	.Listen = sr_nd2_listen,
	.GetLocalAddress = sr_nd2_listener_local_address,
	.GetConnectionRequest = sr_nd2_get_connection_request,
};

HRESULT sr_nd2_listener_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, VOID **out)
{
	struct sr_nd2_listener *l = calloc(1, sizeof(*l));
	NTSTATUS st;

	if (l == NULL)
		return ND_NO_MEMORY;
	pthread_mutex_init(&l->lock, NULL);
	st = a->ndk->Dispatch->NdkCreateListener(a->ndk, sr_nd2_listener_event, l, NULL, NULL,
						 &l->ndk);
	if (!NT_SUCCESS(st)) {
		pthread_mutex_destroy(&l->lock);
		free(l);
		return sr_hresult_from_ntstatus(st);
	}
	l->iface.lpVtbl = &sr_nd2_listener_vtbl;
	atomic_init(&l->refs, 1);
	l->a = a;
	l->f = f;
	sr_nd2_object_add(a);
	*out = &l->iface;
	return ND_SUCCESS;
}
