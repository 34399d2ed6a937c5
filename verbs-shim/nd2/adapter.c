/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * adapter.c — IND2Adapter on an NDK adapter and one protection domain:
 * reference counting, overlapped files, Query (ND2_ADAPTER_INFO from
 * NDK_ADAPTER_INFO), QueryAddressList, and the Create* methods, which
 * check the iid and hand over to the object's file.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "nd2_priv.h"

/* The AdapterFlags ND2 defines (NDK defines more, with the same values). */
#define SR_ND2_ADAPTER_FLAGS                                                 \
	(ND_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED |                            \
	 ND_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED |                 \
	 ND_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED |                            \
	 ND_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED |                               \
	 ND_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED)

static_assert(ND_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED == NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED,
	      "ND and NDK adapter flags share values");
static_assert(ND_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED == NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED,
	      "ND and NDK adapter flags share values");
static_assert(ND_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED ==
	      NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED,
	      "ND and NDK adapter flags share values");

static struct sr_nd2_adapter *sr_nd2_adapter_of(IND2Adapter *p)
{
	return (struct sr_nd2_adapter *)p;
}

HRESULT sr_nd2_alive(const struct sr_nd2_adapter *a)
{
	return atomic_load(&a->removed) ? sr_hresult_from_errno(ENODEV) : ND_SUCCESS;
}

void sr_nd2_object_add(struct sr_nd2_adapter *a)
{
	atomic_fetch_add(&a->objects, 1);
	sr_nd2_adapter_get(a);
}

void sr_nd2_object_del(struct sr_nd2_adapter *a)
{
	atomic_fetch_sub(&a->objects, 1);
	sr_nd2_adapter_put(a);
}

HRESULT sr_nd2_query(void *This, REFIID riid, VOID **ppv, REFIID own, bool overlapped,
		     ULONG (*add_ref)(void *This))
{
	if (ppv == NULL || riid == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (IsEqualIID(riid, &IID_IUnknown) || IsEqualIID(riid, own) ||
	    (overlapped && IsEqualIID(riid, &IID_IND2Overlapped))) {
		add_ref(This);
		*ppv = This;
		return ND_SUCCESS;
	}
	*ppv = NULL;
	return E_NOINTERFACE;
}

/* ---------------------------------------------------- adapter thread */

struct sr_nd2_barrier {
	struct sr_ndk_work w;
	struct sr_nd2_adapter *a;
	bool done;
};

static void sr_nd2_barrier_run(struct sr_ndk_work *w)
{
	struct sr_nd2_barrier *b = (struct sr_nd2_barrier *)w;
	struct sr_nd2_adapter *a = b->a;

	pthread_mutex_lock(&a->ov_lock);
	b->done = true;
	pthread_cond_broadcast(&a->ov_cond);
	pthread_mutex_unlock(&a->ov_lock);
}

void sr_nd2_adapter_barrier(struct sr_nd2_adapter *a)
{
	struct sr_ndk_adapter *ka = sr_ndk_adapter_of(a->ndk);
	struct sr_nd2_barrier b = { .w.run = sr_nd2_barrier_run, .a = a };

	if (pthread_equal(pthread_self(), ka->thread))
		return;   /* a callback: nothing else runs on the thread meanwhile */
	sr_ndk_work_queue(ka, &b.w);
	pthread_mutex_lock(&a->ov_lock);
	while (!b.done)
		pthread_cond_wait(&a->ov_cond, &a->ov_lock);
	pthread_mutex_unlock(&a->ov_lock);
}

/* ------------------------------------------------------------ IUnknown */

void sr_nd2_adapter_get(struct sr_nd2_adapter *a)
{
	atomic_fetch_add(&a->refs, 1);
}

static void sr_nd2_adapter_destroy(struct sr_nd2_adapter *a)
{
	if (a->on_destroy)
		a->on_destroy(a);
	while (a->files) {
		struct sr_nd2_file *f = a->files;

		a->files = f->next;
		sr_nd2_file_close(f);
		free(f);
	}
	a->pd->Dispatch->NdkClosePd(&a->pd->Header, NULL, NULL);
	sr_ndk_close_adapter(a->ndk);
	pthread_cond_destroy(&a->ov_cond);
	pthread_mutex_destroy(&a->ov_lock);
	free(a);
}

void sr_nd2_adapter_put(struct sr_nd2_adapter *a)
{
	if (atomic_fetch_sub(&a->refs, 1) == 1)
		sr_nd2_adapter_destroy(a);
}

static ULONG sr_nd2_adapter_add_ref(IND2Adapter *p)
{
	return atomic_fetch_add(&sr_nd2_adapter_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_adapter_release(IND2Adapter *p)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	ULONG left = atomic_fetch_sub(&a->refs, 1) - 1;

	if (left == 0)
		sr_nd2_adapter_destroy(a);
	return left;
}

static ULONG sr_nd2_adapter_add_ref_(void *p)
{
	return sr_nd2_adapter_add_ref(p);
}

static HRESULT sr_nd2_adapter_query_interface(IND2Adapter *p, REFIID riid, VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2Adapter, false, sr_nd2_adapter_add_ref_);
}

/* ------------------------------------------------------ overlapped files */

static HRESULT sr_nd2_create_overlapped_file(IND2Adapter *p, HANDLE *phOverlappedFile)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	struct sr_nd2_file *f;
	HRESULT hr = sr_nd2_alive(a);
	int rc;

	if (FAILED(hr))
		return hr;
	if (phOverlappedFile == NULL)
		return sr_hresult_from_errno(EINVAL);
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return ND_NO_MEMORY;
	rc = sr_nd2_file_open(f);
	if (rc) {
		free(f);
		return sr_hresult_from_errno(rc);
	}
	f->a = a;
	pthread_mutex_lock(&a->ov_lock);
	f->next = a->files;
	a->files = f;
	pthread_mutex_unlock(&a->ov_lock);
	*phOverlappedFile = f;
	return ND_SUCCESS;
}

struct sr_nd2_file *sr_nd2_file_of(struct sr_nd2_adapter *a, HANDLE h)
{
	struct sr_nd2_file *f;

	if (h == NULL)
		return &a->dflt;
	pthread_mutex_lock(&a->ov_lock);
	for (f = a->files; f && (HANDLE)f != h; f = f->next)
		;
	pthread_mutex_unlock(&a->ov_lock);
	return f;
}

int sr_nd2_overlapped_file_fd(IND2Adapter *p, HANDLE h)
{
	struct sr_nd2_file *f = h ? sr_nd2_file_of(sr_nd2_adapter_of(p), h) : NULL;

	return f ? f->fd : -1;
}

/* ---------------------------------------------------------------- Query */

static void sr_nd2_info_fill(struct sr_nd2_adapter *a, const NDK_ADAPTER_INFO *k)
{
	const struct sr_ndk_backend *be = sr_ndk_adapter_backend(a->ndk);
	ND2_ADAPTER_INFO *i = &a->info;

	memset(i, 0, sizeof(*i));
	i->InfoVersion = 1;
	i->VendorId = (UINT16)k->VendorId;
	i->DeviceId = (UINT16)k->DeviceId;
	/* the adapter's first address identifies it */
	if (be->naddr && be->addr[0].ss_family == AF_INET)
		i->AdapterId = ntohl(((const struct sockaddr_in *)&be->addr[0])->sin_addr.s_addr);
	else if (be->naddr)
		memcpy(&i->AdapterId, ((const struct sockaddr_in6 *)&be->addr[0])->sin6_addr.s6_addr + 8, 8);
	i->MaxRegistrationSize = k->MaxRegistrationSize;
	i->MaxWindowSize = k->MaxWindowSize;
	i->MaxInitiatorSge = k->MaxInitiatorRequestSge;
	i->MaxReceiveSge = k->MaxReceiveRequestSge;
	i->MaxReadSge = k->MaxReadRequestSge < k->MaxInitiatorRequestSge ?
			k->MaxReadRequestSge : k->MaxInitiatorRequestSge;
	i->MaxTransferLength = k->MaxTransferLength;
	i->MaxInlineDataSize = k->MaxInlineDataSize;
	i->MaxInboundReadLimit = k->MaxInboundReadLimit;
	i->MaxOutboundReadLimit = k->MaxOutboundReadLimit;
	i->MaxReceiveQueueDepth = k->MaxReceiveQueueDepth;
	i->MaxInitiatorQueueDepth = k->MaxInitiatorQueueDepth;
	i->MaxSharedReceiveQueueDepth = k->MaxSrqDepth;
	i->MaxCompletionQueueDepth = k->MaxCqDepth;
	i->InlineRequestThreshold = k->MaxInlineDataSize;
	i->LargeRequestThreshold = k->LargeRequestThreshold;
	i->MaxCallerData = k->MaxCallerData;
	i->MaxCalleeData = k->MaxCalleeData;
	i->AdapterFlags = k->AdapterFlags & SR_ND2_ADAPTER_FLAGS;
}

static HRESULT sr_nd2_query_info(IND2Adapter *p, ND2_ADAPTER_INFO *pInfo, ULONG *pcbInfo)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);

	if (pcbInfo == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (pInfo == NULL || *pcbInfo < sizeof(ND2_ADAPTER_INFO)) {
		*pcbInfo = sizeof(ND2_ADAPTER_INFO);
		return sr_hresult_from_errno(EOVERFLOW);
	}
	if (pInfo->InfoVersion != 1)
		return sr_hresult_from_errno(EINVAL);
	*pInfo = a->info;
	*pcbInfo = sizeof(ND2_ADAPTER_INFO);
	return ND_SUCCESS;
}

static HRESULT sr_nd2_query_address_list(IND2Adapter *p, SOCKET_ADDRESS_LIST *list,
					 ULONG *pcb)
{
	const struct sr_ndk_backend *be = sr_ndk_adapter_backend(sr_nd2_adapter_of(p)->ndk);
	size_t head = offsetof(SOCKET_ADDRESS_LIST, Address) +
		      be->naddr * sizeof(SOCKET_ADDRESS);
	size_t need = head;
	char *at;

	if (pcb == NULL)
		return sr_hresult_from_errno(EINVAL);
	for (unsigned int i = 0; i < be->naddr; i++)
		need += sizeof(struct sockaddr_in6);
	if (list == NULL || *pcb < need) {
		*pcb = (ULONG)need;
		return sr_hresult_from_errno(EOVERFLOW);
	}
	list->iAddressCount = (int)be->naddr;
	at = (char *)list + head;
	for (unsigned int i = 0; i < be->naddr; i++) {
		int len = be->addr[i].ss_family == AF_INET6 ? (int)sizeof(struct sockaddr_in6)
							     : (int)sizeof(struct sockaddr_in);

		memcpy(at, &be->addr[i], (size_t)len);
		list->Address[i].lpSockaddr = (struct sockaddr *)at;
		list->Address[i].iSockaddrLength = len;
		at += sizeof(struct sockaddr_in6);
	}
	*pcb = (ULONG)need;
	return ND_SUCCESS;
}

/* ------------------------------------------------------------- creation */

/* The common checks of a Create*: the device, the out pointer, the iid, the file. */
static HRESULT sr_nd2_create_check(struct sr_nd2_adapter *a, REFIID iid, REFIID want,
				   HANDLE h, VOID **out, struct sr_nd2_file **f)
{
	HRESULT hr = sr_nd2_alive(a);

	if (FAILED(hr))
		return hr;
	if (out == NULL || iid == NULL)
		return sr_hresult_from_errno(EINVAL);
	*out = NULL;
	if (!IsEqualIID(iid, want))
		return E_NOINTERFACE;
	if (f) {
		*f = sr_nd2_file_of(a, h);
		if (*f == NULL)
			return sr_hresult_from_errno(EBADF);
	}
	return ND_SUCCESS;
}

static HRESULT sr_nd2_create_cq(IND2Adapter *p, REFIID iid, HANDLE h, ULONG queueDepth,
				USHORT group, KAFFINITY affinity, VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	struct sr_nd2_file *f;
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2CompletionQueue, h, out, &f);

	(void)group;     /* one adapter thread serves every notification */
	(void)affinity;
	if (FAILED(hr))
		return hr;
	if (queueDepth == 0 || queueDepth > a->info.MaxCompletionQueueDepth)
		return ND_INVALID_PARAMETER_3;
	return sr_nd2_cq_create(a, f, queueDepth, out);
}

static HRESULT sr_nd2_create_mr(IND2Adapter *p, REFIID iid, HANDLE h, VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	struct sr_nd2_file *f;
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2MemoryRegion, h, out, &f);

	return FAILED(hr) ? hr : sr_nd2_mr_create(a, f, out);
}

static HRESULT sr_nd2_create_mw(IND2Adapter *p, REFIID iid, VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2MemoryWindow, NULL, out, NULL);

	return FAILED(hr) ? hr : sr_nd2_mw_create(a, out);
}

static HRESULT sr_nd2_create_srq(IND2Adapter *p, REFIID iid, HANDLE h, ULONG queueDepth,
				 ULONG maxRequestSge, ULONG notifyThreshold, USHORT group,
				 KAFFINITY affinity, VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	struct sr_nd2_file *f;
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2SharedReceiveQueue, h, out, &f);

	(void)group;     /* one adapter thread serves every notification */
	(void)affinity;
	if (FAILED(hr))
		return hr;
	return sr_nd2_srq_create(a, f, queueDepth, maxRequestSge, notifyThreshold, out);
}

static HRESULT sr_nd2_create_qp(IND2Adapter *p, REFIID iid, IUnknown *rcq, IUnknown *icq,
				VOID *context, ULONG receiveQueueDepth,
				ULONG initiatorQueueDepth, ULONG maxReceiveRequestSge,
				ULONG maxInitiatorRequestSge, ULONG inlineDataSize, VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2QueuePair, NULL, out, NULL);

	if (FAILED(hr))
		return hr;
	return sr_nd2_qp_create(a, rcq, icq, NULL, context, receiveQueueDepth,
				initiatorQueueDepth, maxReceiveRequestSge, maxInitiatorRequestSge,
				inlineDataSize, out);
}

static HRESULT sr_nd2_create_qp_with_srq(IND2Adapter *p, REFIID iid, IUnknown *rcq,
					 IUnknown *icq, IUnknown *srq, VOID *context,
					 ULONG initiatorQueueDepth,
					 ULONG maxInitiatorRequestSge, ULONG inlineDataSize,
					 VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2QueuePair, NULL, out, NULL);

	if (FAILED(hr))
		return hr;
	if (srq == NULL)
		return ND_INVALID_PARAMETER_4;
	return sr_nd2_qp_create(a, rcq, icq, srq, context, 0, initiatorQueueDepth, 0,
				maxInitiatorRequestSge, inlineDataSize, out);
}

static HRESULT sr_nd2_create_connector(IND2Adapter *p, REFIID iid, HANDLE h, VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	struct sr_nd2_file *f;
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2Connector, h, out, &f);

	return FAILED(hr) ? hr : sr_nd2_conn_create(a, f, out);
}

static HRESULT sr_nd2_create_listener(IND2Adapter *p, REFIID iid, HANDLE h, VOID **out)
{
	struct sr_nd2_adapter *a = sr_nd2_adapter_of(p);
	struct sr_nd2_file *f;
	HRESULT hr = sr_nd2_create_check(a, iid, &IID_IND2Listener, h, out, &f);

	return FAILED(hr) ? hr : sr_nd2_listener_create(a, f, out);
}

static const IND2AdapterVtbl sr_nd2_adapter_vtbl = {
	.QueryInterface = sr_nd2_adapter_query_interface,
	.AddRef = sr_nd2_adapter_add_ref,
	.Release = sr_nd2_adapter_release,
	.CreateOverlappedFile = sr_nd2_create_overlapped_file,
	.Query = sr_nd2_query_info,
	.QueryAddressList = sr_nd2_query_address_list,
	.CreateCompletionQueue = sr_nd2_create_cq,
	.CreateMemoryRegion = sr_nd2_create_mr,
	.CreateMemoryWindow = sr_nd2_create_mw,
	.CreateSharedReceiveQueue = sr_nd2_create_srq,
	.CreateQueuePair = sr_nd2_create_qp,
	.CreateQueuePairWithSrq = sr_nd2_create_qp_with_srq,
	.CreateConnector = sr_nd2_create_connector,
	.CreateListener = sr_nd2_create_listener,
};

/* -------------------------------------------------------- construction */

HRESULT sr_nd2_adapter_wrap(NDK_ADAPTER *ndk, REFIID iid, VOID **out,
			    void (*on_destroy)(struct sr_nd2_adapter *a))
{
	struct sr_nd2_adapter *a;
	NDK_ADAPTER_INFO k;
	ULONG len = sizeof(k);
	NTSTATUS st;

	if (out == NULL || iid == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (!IsEqualIID(iid, &IID_IND2Adapter) && !IsEqualIID(iid, &IID_IUnknown))
		return E_NOINTERFACE;
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return ND_NO_MEMORY;
	st = ndk->Dispatch->NdkQueryAdapterInfo(ndk, &k, &len);
	if (NT_SUCCESS(st))
		st = ndk->Dispatch->NdkCreatePd(ndk, NULL, NULL, &a->pd);
	if (!NT_SUCCESS(st)) {
		free(a);
		return sr_hresult_from_ntstatus(st);
	}
	a->iface.lpVtbl = &sr_nd2_adapter_vtbl;
	atomic_init(&a->refs, 1);
	a->ndk = ndk;
	a->on_destroy = on_destroy;
	a->dflt.a = a;
	a->dflt.fd = -1;
	pthread_mutex_init(&a->ov_lock, NULL);
	pthread_cond_init(&a->ov_cond, NULL);
	sr_nd2_info_fill(a, &k);
	*out = &a->iface;
	return ND_SUCCESS;
}

HRESULT sr_nd2_adapter_create(const struct sr_ndk_backend *be, REFIID iid, VOID **out)
{
	NDK_ADAPTER *ndk;
	NTSTATUS st = sr_ndk_adapter_create(be, &ndk);
	HRESULT hr;

	if (!NT_SUCCESS(st))
		return sr_hresult_from_ntstatus(st);
	hr = sr_nd2_adapter_wrap(ndk, iid, out, NULL);
	if (FAILED(hr))
		sr_ndk_close_adapter(ndk);
	return hr;
}

VOID sr_nd2_set_async(IND2Adapter *p, SIZE_T Threshold, BOOL All)
{
	sr_ndk_set_async(sr_nd2_adapter_of(p)->ndk, Threshold, All != 0);
}

VOID sr_nd2_surprise_removal(IND2Adapter *p)
{
	atomic_store(&sr_nd2_adapter_of(p)->removed, true);
}

ULONG sr_nd2_object_count(IND2Adapter *p)
{
	return atomic_load(&sr_nd2_adapter_of(p)->objects);
}
