/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * listener.c — NDK_LISTENER on the device's CM: NdkListen listens on
 * rdma_cm's RDMA_PS_TCP service ID for the port (0x0000000001060000 |
 * port), so any rdma_cm client (rping -c, rdma_client, an ND2 Connect)
 * reaches it; requests arrive through cm.c as new connectors.
 */
#include <stdlib.h>
#include <string.h>

#include "conn_priv.h"

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
	uint16_t port;
	int rc = 0;

	(void)cb;
	(void)ctx;
	if (sr_ndk_sa_check(pAddress, AddressLength))
		return sr_ntstatus_from_errno(EINVAL);
	if (l->cm)
		return sr_ntstatus_from_errno(EISCONN);
	if (a->cm->ops == NULL)
		return sr_ntstatus_from_errno(ENOTSUP);
	memcpy(&l->addr, pAddress, sr_ndk_sa_len(pAddress));
	sr_ndk_sa_resolve_any(a, &l->addr);
	port = sr_ndk_sa_port(pAddress);
	/* port 0: an ephemeral port nobody listens on (GetLocalAddress says which) */
	for (int i = 0; i < (port ? 1 : 64); i++) {
		uint16_t try = port ? port : sr_ndk_ephemeral_port();

		sid = sr_cma_service_id(SR_RDMA_PS_TCP, try);
		rc = sr_cm_listen(sr_ndk_cm_lock(a), sid, l, &l->cm);
		sr_ndk_cm_unlock(a);
		if (rc != -EADDRINUSE) {
			sr_ndk_sa_set_port(&l->addr, try);
			break;
		}
	}
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
