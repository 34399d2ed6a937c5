/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.c — IND2CompletionQueue on NDK_CQ.  GetResults is NdkGetCqResultsEx
 * translated into ND2_RESULT; Notify keeps the OVERLAPPED requests
 * outstanding and arms the NDK CQ, whose notification (on the adapter
 * thread) completes all of them, as the documentation's notification
 * event does.  ND_CQ_NOTIFY_ANY wins over a pending SOLICITED request.
 */
#include <stdlib.h>

#include "nd2_priv.h"

#define SR_ND2_POLL_CHUNK 32

static_assert(ND_CQ_NOTIFY_ERRORS == NDK_CQ_NOTIFY_ERRORS &&
	      ND_CQ_NOTIFY_ANY == NDK_CQ_NOTIFY_ANY &&
	      ND_CQ_NOTIFY_SOLICITED == NDK_CQ_NOTIFY_SOLICITED,
	      "ND and NDK notification types share values");

/* X(NDK_OPERATION_TYPE, ND2_REQUEST_TYPE) */
#define SR_ND2_REQUEST_TYPE_LIST(X)                                          \
	X(NdkOperationTypeReceive,              Nd2RequestTypeReceive)       \
	X(NdkOperationTypeReceiveAndInvalidate, Nd2RequestTypeReceive)       \
	X(NdkOperationTypeSend,                 Nd2RequestTypeSend)          \
	X(NdkOperationTypeBind,                 Nd2RequestTypeBind)          \
	X(NdkOperationTypeInvalidate,           Nd2RequestTypeInvalidate)    \
	X(NdkOperationTypeRead,                 Nd2RequestTypeRead)          \
	X(NdkOperationTypeWrite,                Nd2RequestTypeWrite)         \
	X(NdkOperationTypeFastRegister,         Nd2RequestTypeBind)

static ND2_REQUEST_TYPE sr_nd2_request_type(NDK_OPERATION_TYPE t)
{
	switch (t) {
#define SR_X(ndk, nd2) case ndk: return nd2;
	SR_ND2_REQUEST_TYPE_LIST(SR_X)
#undef SR_X
	}
	return Nd2RequestTypeSend;
}

static struct sr_nd2_cq *sr_nd2_cq_of(IND2CompletionQueue *p)
{
	return (struct sr_nd2_cq *)p;
}

/* Complete every outstanding Notify with hr. */
static void sr_nd2_cq_fire(struct sr_nd2_cq *c, HRESULT hr)
{
	OVERLAPPED **todo;
	unsigned int n;

	pthread_mutex_lock(&c->lock);
	todo = c->notify;
	n = c->nnotify;
	c->notify = NULL;
	c->nnotify = c->cap = 0;
	c->notify_any = false;
	pthread_mutex_unlock(&c->lock);
	for (unsigned int i = 0; i < n; i++)
		sr_nd2_ov_complete(todo[i], hr);
	free(todo);
}

/* NDK_FN_CQ_NOTIFICATION_CALLBACK (adapter thread). */
static VOID sr_nd2_cq_notified(PVOID ctx, NTSTATUS st)
{
	sr_nd2_cq_fire(ctx, sr_hresult_from_ntstatus(st));
}

/* ------------------------------------------------------------ IUnknown */

void sr_nd2_cq_get(struct sr_nd2_cq *c)
{
	atomic_fetch_add(&c->refs, 1);
}

static ULONG sr_nd2_cq_add_ref(IND2CompletionQueue *p)
{
	return atomic_fetch_add(&sr_nd2_cq_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_cq_add_ref_(void *p)
{
	return sr_nd2_cq_add_ref(p);
}

static ULONG sr_nd2_cq_release(IND2CompletionQueue *p)
{
	struct sr_nd2_cq *c = sr_nd2_cq_of(p);
	ULONG left = atomic_fetch_sub(&c->refs, 1) - 1;

	if (left)
		return left;
	c->ndk->Dispatch->NdkCloseCq(&c->ndk->Header, NULL, NULL);
	sr_nd2_adapter_barrier(c->a);   /* no notification of ours in flight */
	sr_nd2_cq_fire(c, sr_hresult_from_errno(ECANCELED));   /* the queue was destroyed */
	pthread_mutex_destroy(&c->lock);
	sr_nd2_object_del(c->a);
	free(c);
	return 0;
}

void sr_nd2_cq_put(struct sr_nd2_cq *c)
{
	sr_nd2_cq_release(&c->iface);
}

static HRESULT sr_nd2_cq_query_interface(IND2CompletionQueue *p, REFIID riid, VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2CompletionQueue, true, sr_nd2_cq_add_ref_);
}

/* ------------------------------------------------------ IND2Overlapped */

static HRESULT sr_nd2_cq_cancel(IND2CompletionQueue *p)
{
	sr_nd2_cq_fire(sr_nd2_cq_of(p), sr_hresult_from_errno(ECANCELED));
	return ND_SUCCESS;
}

static HRESULT sr_nd2_cq_get_overlapped_result(IND2CompletionQueue *p, OVERLAPPED *ov,
					       BOOL wait)
{
	return sr_nd2_ov_result(sr_nd2_cq_of(p)->a, ov, wait);
}

/* ------------------------------------------------- IND2CompletionQueue */

static HRESULT sr_nd2_cq_get_notify_affinity(IND2CompletionQueue *p, USHORT *pGroup,
					     KAFFINITY *pAffinity)
{
	(void)p;
	return sr_nd2_notify_affinity(pGroup, pAffinity);
}

static HRESULT sr_nd2_cq_resize(IND2CompletionQueue *p, ULONG queueDepth)
{
	struct sr_nd2_cq *c = sr_nd2_cq_of(p);
	HRESULT hr = sr_nd2_alive(c->a);

	if (FAILED(hr))
		return hr;
	return sr_hresult_from_ntstatus(c->ndk->Dispatch->NdkResizeCq(c->ndk, queueDepth,
								      NULL, NULL));
}

static HRESULT sr_nd2_cq_notify(IND2CompletionQueue *p, ULONG type, OVERLAPPED *ov)
{
	struct sr_nd2_cq *c = sr_nd2_cq_of(p);
	HRESULT hr = sr_nd2_alive(c->a);
	ULONG arm;

	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	if (ov == NULL || type > ND_CQ_NOTIFY_SOLICITED)
		return sr_hresult_from_errno(EINVAL);
	pthread_mutex_lock(&c->lock);
	if (c->nnotify == c->cap) {
		unsigned int cap = c->cap ? 2 * c->cap : 4;
		OVERLAPPED **n = realloc(c->notify, cap * sizeof(*n));

		if (n == NULL) {
			pthread_mutex_unlock(&c->lock);
			return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(ENOMEM));
		}
		c->notify = n;
		c->cap = cap;
	}
	sr_nd2_ov_start(c->f, ov);
	c->notify[c->nnotify++] = ov;
	c->notify_any |= type == ND_CQ_NOTIFY_ANY;
	arm = c->notify_any ? ND_CQ_NOTIFY_ANY : type;
	pthread_mutex_unlock(&c->lock);
	c->ndk->Dispatch->NdkArmCq(c->ndk, arm);
	return ND_PENDING;
}

static ULONG sr_nd2_cq_get_results(IND2CompletionQueue *p, ND2_RESULT results[],
				   ULONG nResults)
{
	struct sr_nd2_cq *c = sr_nd2_cq_of(p);
	NDK_RESULT_EX r[SR_ND2_POLL_CHUNK];
	ULONG done = 0;

	if (results == NULL)
		return 0;
	while (done < nResults) {
		ULONG want = nResults - done < SR_ND2_POLL_CHUNK ? nResults - done
								  : SR_ND2_POLL_CHUNK;
		ULONG got = c->ndk->Dispatch->NdkGetCqResultsEx(c->ndk, r, want);

		for (ULONG i = 0; i < got; i++, done++) {
			results[done] = (ND2_RESULT){
				.Status = sr_hresult_from_ntstatus(r[i].Status),
				.BytesTransferred = r[i].BytesTransferred,
				.QueuePairContext = r[i].QPContext,
				.RequestContext = r[i].RequestContext,
				.RequestType = sr_nd2_request_type(r[i].Type),
			};
		}
		if (got < want)
			break;
	}
	return done;
}

static const IND2CompletionQueueVtbl sr_nd2_cq_vtbl = {
	.QueryInterface = sr_nd2_cq_query_interface,
	.AddRef = sr_nd2_cq_add_ref,
	.Release = sr_nd2_cq_release,
	.CancelOverlappedRequests = sr_nd2_cq_cancel,
	.GetOverlappedResult = sr_nd2_cq_get_overlapped_result,
	.GetNotifyAffinity = sr_nd2_cq_get_notify_affinity,
	.Resize = sr_nd2_cq_resize,
	.Notify = sr_nd2_cq_notify,
	.GetResults = sr_nd2_cq_get_results,
};

HRESULT sr_nd2_cq_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, ULONG depth,
			 VOID **out)
{
	struct sr_nd2_cq *c = calloc(1, sizeof(*c));
	NTSTATUS st;

	if (c == NULL)
		return ND_NO_MEMORY;
	pthread_mutex_init(&c->lock, NULL);
	st = a->ndk->Dispatch->NdkCreateCq(a->ndk, depth, sr_nd2_cq_notified, c, NULL, NULL,
					   NULL, &c->ndk);
	if (!NT_SUCCESS(st)) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		return sr_hresult_from_ntstatus(st);
	}
	c->iface.lpVtbl = &sr_nd2_cq_vtbl;
	atomic_init(&c->refs, 1);
	c->a = a;
	c->f = f;
	sr_nd2_object_add(a);
	*out = &c->iface;
	return ND_SUCCESS;
}

struct sr_nd2_cq *sr_nd2_cq_from(IUnknown *p)
{
	return p && (const void *)p->lpVtbl == (const void *)&sr_nd2_cq_vtbl ?
	       (struct sr_nd2_cq *)p : NULL;
}
