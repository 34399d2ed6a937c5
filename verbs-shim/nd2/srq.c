/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.c — IND2SharedReceiveQueue on NDK_SRQ.  Receive is NdkSrqReceive
 * with the SGL translated; Modify is NdkModifySrq; Notify keeps the
 * OVERLAPPED requests outstanding until the NDK SRQ's notification (fewer
 * receives queued than the notify threshold, on the adapter thread)
 * completes all of them.
 */
#include <stdlib.h>

#include "nd2_priv.h"

static struct sr_nd2_srq *sr_nd2_srq_of(IND2SharedReceiveQueue *p)
{
	return (struct sr_nd2_srq *)p;
}

/* Complete every outstanding Notify with hr. */
static void sr_nd2_srq_fire(struct sr_nd2_srq *s, HRESULT hr)
{
	OVERLAPPED **todo;
	unsigned int n;

	pthread_mutex_lock(&s->lock);
	todo = s->notify;
	n = s->nnotify;
	s->notify = NULL;
	s->nnotify = s->cap = 0;
	pthread_mutex_unlock(&s->lock);
	for (unsigned int i = 0; i < n; i++)
		sr_nd2_ov_complete(todo[i], hr);
	free(todo);
}

/* NDK_FN_SRQ_NOTIFICATION_CALLBACK (adapter thread). */
static VOID sr_nd2_srq_notified(PVOID ctx, NTSTATUS st)
{
	sr_nd2_srq_fire(ctx, sr_hresult_from_ntstatus(st));
}

/* ------------------------------------------------------------ IUnknown */

void sr_nd2_srq_get(struct sr_nd2_srq *s)
{
	atomic_fetch_add(&s->refs, 1);
}

static ULONG sr_nd2_srq_add_ref(IND2SharedReceiveQueue *p)
{
	return atomic_fetch_add(&sr_nd2_srq_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_srq_add_ref_(void *p)
{
	return sr_nd2_srq_add_ref(p);
}

static ULONG sr_nd2_srq_release(IND2SharedReceiveQueue *p)
{
	struct sr_nd2_srq *s = sr_nd2_srq_of(p);
	ULONG left = atomic_fetch_sub(&s->refs, 1) - 1;

	if (left)
		return left;
	s->ndk->Dispatch->NdkCloseSrq(&s->ndk->Header, NULL, NULL);
	sr_nd2_adapter_barrier(s->a);   /* no notification of ours in flight */
	sr_nd2_srq_fire(s, sr_hresult_from_errno(ECANCELED));
	pthread_mutex_destroy(&s->lock);
	sr_nd2_object_del(s->a);
	free(s);
	return 0;
}

void sr_nd2_srq_put(struct sr_nd2_srq *s)
{
	sr_nd2_srq_release(&s->iface);
}

static HRESULT sr_nd2_srq_query_interface(IND2SharedReceiveQueue *p, REFIID riid,
					  VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2SharedReceiveQueue, true,
			    sr_nd2_srq_add_ref_);
}

/* ------------------------------------------------------ IND2Overlapped */

static HRESULT sr_nd2_srq_cancel(IND2SharedReceiveQueue *p)
{
	sr_nd2_srq_fire(sr_nd2_srq_of(p), sr_hresult_from_errno(ECANCELED));
	return ND_SUCCESS;
}

static HRESULT sr_nd2_srq_get_overlapped_result(IND2SharedReceiveQueue *p, OVERLAPPED *ov,
						BOOL wait)
{
	return sr_nd2_ov_result(sr_nd2_srq_of(p)->a, ov, wait);
}

/* ---------------------------------------------- IND2SharedReceiveQueue */

static HRESULT sr_nd2_srq_get_notify_affinity(IND2SharedReceiveQueue *p, USHORT *pGroup,
					      KAFFINITY *pAffinity)
{
	(void)p;
	return sr_nd2_notify_affinity(pGroup, pAffinity);
}

static HRESULT sr_nd2_srq_modify(IND2SharedReceiveQueue *p, ULONG queueDepth,
				 ULONG notifyThreshold)
{
	struct sr_nd2_srq *s = sr_nd2_srq_of(p);
	HRESULT hr = sr_nd2_alive(s->a);

	if (FAILED(hr))
		return hr;
	return sr_hresult_from_ntstatus(s->ndk->Dispatch->NdkModifySrq(s->ndk, queueDepth,
								       notifyThreshold,
								       NULL, NULL));
}

static HRESULT sr_nd2_srq_notify(IND2SharedReceiveQueue *p, OVERLAPPED *ov)
{
	struct sr_nd2_srq *s = sr_nd2_srq_of(p);
	HRESULT hr = sr_nd2_alive(s->a);

	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	if (ov == NULL)
		return sr_hresult_from_errno(EINVAL);
	pthread_mutex_lock(&s->lock);
	if (s->nnotify == s->cap) {
		unsigned int cap = s->cap ? 2 * s->cap : 4;
		OVERLAPPED **n = realloc(s->notify, cap * sizeof(*n));

		if (n == NULL) {
			pthread_mutex_unlock(&s->lock);
			return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(ENOMEM));
		}
		s->notify = n;
		s->cap = cap;
	}
	sr_nd2_ov_start(s->f, ov);
	s->notify[s->nnotify++] = ov;
	pthread_mutex_unlock(&s->lock);
	return ND_PENDING;
}

static HRESULT sr_nd2_srq_receive(IND2SharedReceiveQueue *p, VOID *ctx, const ND2_SGE sge[],
				  ULONG nSge)
{
	struct sr_nd2_srq *s = sr_nd2_srq_of(p);
	NDK_SGE k[SR_NDK_MAX_SGE];
	HRESULT hr = sr_nd2_alive(s->a);

	if (SUCCEEDED(hr))
		hr = sr_nd2_sgl(sge, nSge, k);
	if (FAILED(hr))
		return hr;
	return sr_nd2_post_status(s->ndk->Dispatch->NdkSrqReceive(s->ndk, ctx, k, nSge));
}

static const IND2SharedReceiveQueueVtbl sr_nd2_srq_vtbl = {
	.QueryInterface = sr_nd2_srq_query_interface,
	.AddRef = sr_nd2_srq_add_ref,
	.Release = sr_nd2_srq_release,
	.CancelOverlappedRequests = sr_nd2_srq_cancel,
	.GetOverlappedResult = sr_nd2_srq_get_overlapped_result,
	.GetNotifyAffinity = sr_nd2_srq_get_notify_affinity,
	.Modify = sr_nd2_srq_modify,
	.Notify = sr_nd2_srq_notify,
	.Receive = sr_nd2_srq_receive,
};

HRESULT sr_nd2_srq_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, ULONG depth,
			  ULONG max_sge, ULONG threshold, VOID **out)
{
	struct sr_nd2_srq *s;
	NTSTATUS st;

	if (depth == 0 || depth > a->info.MaxSharedReceiveQueueDepth)
		return ND_INVALID_PARAMETER_4;
	if (max_sge > a->info.MaxReceiveSge)
		return ND_INVALID_PARAMETER_5;
	if (threshold > depth)
		return ND_INVALID_PARAMETER_6;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return ND_NO_MEMORY;
	pthread_mutex_init(&s->lock, NULL);
	st = a->pd->Dispatch->NdkCreateSrq(a->pd, depth, max_sge ? max_sge : 1, threshold,
					   sr_nd2_srq_notified, s, NULL, NULL, NULL, &s->ndk);
	if (!NT_SUCCESS(st)) {
		pthread_mutex_destroy(&s->lock);
		free(s);
		return sr_hresult_from_ntstatus(st);
	}
	s->iface.lpVtbl = &sr_nd2_srq_vtbl;
	atomic_init(&s->refs, 1);
	s->a = a;
	s->f = f;
	sr_nd2_object_add(a);
	*out = &s->iface;
	return ND_SUCCESS;
}

struct sr_nd2_srq *sr_nd2_srq_from(IUnknown *p)
{
	return p && (const void *)p->lpVtbl == (const void *)&sr_nd2_srq_vtbl ?
	       (struct sr_nd2_srq *)p : NULL;
}
