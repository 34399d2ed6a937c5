/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.c — IND2MemoryRegion and IND2MemoryWindow on NDK_MR and NDK_MW.
 *
 * Register registers the caller's virtual buffer into the NDK MR's engine
 * region (lib/mr: one buffer per object, every check and errno class is
 * lib's), now or on the adapter thread (ND_PENDING) as the adapter's
 * asynchronous settings say; Deregister is NdkDeregisterMr.  The NDK MR is
 * made by the first Register, so its key-table slot is taken only when a
 * region is registered.  Tokens are NDK's: the local token in host order,
 * the remote token in network order.
 */
#include <stdlib.h>

#include "nd2_priv.h"

/* ND_MR_FLAG_* are NDK_MR_FLAG_* plus DO_NOT_SECURE_VM, which changes nothing here. */
#define SR_ND2_MR_FLAG_LIST(X)                                               \
	X(ND_MR_FLAG_ALLOW_LOCAL_WRITE,  NDK_MR_FLAG_ALLOW_LOCAL_WRITE)      \
	X(ND_MR_FLAG_ALLOW_REMOTE_READ,  NDK_MR_FLAG_ALLOW_REMOTE_READ)      \
	X(ND_MR_FLAG_ALLOW_REMOTE_WRITE, NDK_MR_FLAG_ALLOW_REMOTE_WRITE)     \
	X(ND_MR_FLAG_RDMA_READ_SINK,     NDK_MR_FLAG_RDMA_READ_SINK)

#define SR_X(nd, ndk) static_assert((nd) == (ndk), #nd " is " #ndk);
SR_ND2_MR_FLAG_LIST(SR_X)
#undef SR_X

static struct sr_nd2_mr *sr_nd2_mr_of(IND2MemoryRegion *p)
{
	return (struct sr_nd2_mr *)p;
}

/* ------------------------------------------------------------ IUnknown */

static ULONG sr_nd2_mr_add_ref(IND2MemoryRegion *p)
{
	return atomic_fetch_add(&sr_nd2_mr_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_mr_add_ref_(void *p)
{
	return sr_nd2_mr_add_ref(p);
}

static ULONG sr_nd2_mr_release(IND2MemoryRegion *p)
{
	struct sr_nd2_mr *m = sr_nd2_mr_of(p);
	ULONG left = atomic_fetch_sub(&m->refs, 1) - 1;

	if (left)
		return left;
	if (m->ndk) {
		/* a registration left behind goes with the object */
		m->ndk->Dispatch->NdkDeregisterMr(m->ndk, NULL, NULL);
		m->ndk->Dispatch->NdkCloseMr(&m->ndk->Header, NULL, NULL);
	}
	pthread_mutex_destroy(&m->lock);
	sr_nd2_object_del(m->a);
	free(m);
	return 0;
}

static HRESULT sr_nd2_mr_query_interface(IND2MemoryRegion *p, REFIID riid, VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2MemoryRegion, true, sr_nd2_mr_add_ref_);
}

/* ------------------------------------------------------ IND2Overlapped */

static HRESULT sr_nd2_mr_cancel(IND2MemoryRegion *p)
{
	(void)p;   /* registrations run to completion on the adapter thread */
	return ND_SUCCESS;
}

static HRESULT sr_nd2_mr_get_overlapped_result(IND2MemoryRegion *p, OVERLAPPED *ov,
					       BOOL wait)
{
	return sr_nd2_ov_result(sr_nd2_mr_of(p)->a, ov, wait);
}

/* ------------------------------------------------------------- Register */

struct sr_nd2_reg_args {
	struct sr_nd2_mr *m;
	const VOID *buf;
	SIZE_T len;
	ULONG flags;
};

/* Make the NDK MR if this is the object's first registration (m->lock held). */
static NTSTATUS sr_nd2_mr_ndk(struct sr_nd2_mr *m)
{
	NDK_PD *pd = m->a->pd;

	if (m->ndk)
		return STATUS_SUCCESS;
	return pd->Dispatch->NdkCreateMr(pd, FALSE, NULL, NULL, &m->ndk);
}

static NTSTATUS sr_nd2_register_(const void *p)
{
	const struct sr_nd2_reg_args *r = p;
	struct sr_nd2_mr *m = r->m;
	uint32_t access = sr_ndk_access_from_mr_flags(r->flags & ~(ULONG)ND_MR_FLAG_DO_NOT_SECURE_VM);
	NTSTATUS st;

	if (access == UINT32_MAX)
		return sr_ntstatus_from_errno(EINVAL);
	pthread_mutex_lock(&m->lock);
	st = sr_nd2_mr_ndk(m);
	pthread_mutex_unlock(&m->lock);
	if (!NT_SUCCESS(st))
		return st;
	return sr_ntstatus_from_errno(sr_mr_register_virt(((struct sr_ndk_mr *)m->ndk)->mr,
							  (void *)(uintptr_t)r->buf, r->len,
							  (uintptr_t)r->buf, access));
}

static HRESULT sr_nd2_register(IND2MemoryRegion *p, const VOID *pBuffer, SIZE_T cbBuffer,
			       ULONG flags, OVERLAPPED *ov)
{
	struct sr_nd2_mr *m = sr_nd2_mr_of(p);
	struct sr_ndk_adapter *ka = sr_ndk_adapter_of(m->a->ndk);
	struct sr_nd2_reg_args r = { .m = m, .buf = pBuffer, .len = cbBuffer, .flags = flags };
	HRESULT hr = sr_nd2_alive(m->a);
	NTSTATUS st;

	if (FAILED(hr))
		return sr_nd2_ov_done_now(ov, hr);
	if (ov == NULL)
		return sr_hresult_from_errno(EINVAL);
	/* a zero-sized buffer: nothing to register (NULL) or a bad size */
	if (cbBuffer == 0)
		return sr_nd2_ov_done_now(ov, sr_hresult_from_errno(pBuffer ? EMSGSIZE : EINVAL));
	sr_nd2_ov_start(m->f, ov);
	st = sr_ndk_request(ka, ka->async_all || cbBuffer >= ka->async_threshold,
			    sr_nd2_register_, &r, sizeof(r), sr_nd2_ov_ndk_done, ov);
	if (st == STATUS_PENDING)
		return ND_PENDING;
	return sr_nd2_ov_done_now(ov, sr_hresult_from_ntstatus(st));
}

static HRESULT sr_nd2_deregister(IND2MemoryRegion *p, OVERLAPPED *ov)
{
	struct sr_nd2_mr *m = sr_nd2_mr_of(p);
	NTSTATUS st;

	if (ov == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (m->ndk == NULL)   /* never registered: nothing to drop */
		return sr_nd2_ov_done_now(ov, ND_SUCCESS);
	sr_nd2_ov_start(m->f, ov);
	st = m->ndk->Dispatch->NdkDeregisterMr(m->ndk, sr_nd2_ov_ndk_done, ov);
	if (st == STATUS_PENDING)
		return ND_PENDING;
	return sr_nd2_ov_done_now(ov, sr_hresult_from_ntstatus(st));
}

static UINT32 sr_nd2_get_local_token(IND2MemoryRegion *p)
{
	struct sr_nd2_mr *m = sr_nd2_mr_of(p);

	return m->ndk ? m->ndk->Dispatch->NdkGetLocalTokenFromMr(m->ndk) : 0;
}

static UINT32 sr_nd2_get_remote_token(IND2MemoryRegion *p)
{
	struct sr_nd2_mr *m = sr_nd2_mr_of(p);

	return m->ndk ? m->ndk->Dispatch->NdkGetRemoteTokenFromMr(m->ndk) : 0;
}

static const IND2MemoryRegionVtbl sr_nd2_mr_vtbl = {
	.QueryInterface = sr_nd2_mr_query_interface,
	.AddRef = sr_nd2_mr_add_ref,
	.Release = sr_nd2_mr_release,
	.CancelOverlappedRequests = sr_nd2_mr_cancel,
	.GetOverlappedResult = sr_nd2_mr_get_overlapped_result,
	.Register = sr_nd2_register,
	.Deregister = sr_nd2_deregister,
	.GetLocalToken = sr_nd2_get_local_token,
	.GetRemoteToken = sr_nd2_get_remote_token,
};

HRESULT sr_nd2_mr_create(struct sr_nd2_adapter *a, struct sr_nd2_file *f, VOID **out)
{
	struct sr_nd2_mr *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return ND_NO_MEMORY;
	m->iface.lpVtbl = &sr_nd2_mr_vtbl;
	atomic_init(&m->refs, 1);
	m->a = a;
	m->f = f;
	pthread_mutex_init(&m->lock, NULL);
	sr_nd2_object_add(a);
	*out = &m->iface;
	return ND_SUCCESS;
}

struct sr_nd2_mr *sr_nd2_mr_from(IUnknown *p)
{
	return p && (const void *)p->lpVtbl == (const void *)&sr_nd2_mr_vtbl ?
	       (struct sr_nd2_mr *)p : NULL;
}

/* ------------------------------------------------------------- windows */

static struct sr_nd2_mw *sr_nd2_mw_of(IND2MemoryWindow *p)
{
	return (struct sr_nd2_mw *)p;
}

static ULONG sr_nd2_mw_add_ref(IND2MemoryWindow *p)
{
	return atomic_fetch_add(&sr_nd2_mw_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_mw_add_ref_(void *p)
{
	return sr_nd2_mw_add_ref(p);
}

static ULONG sr_nd2_mw_release(IND2MemoryWindow *p)
{
	struct sr_nd2_mw *w = sr_nd2_mw_of(p);
	ULONG left = atomic_fetch_sub(&w->refs, 1) - 1;

	if (left)
		return left;
	w->ndk->Dispatch->NdkCloseMw(&w->ndk->Header, NULL, NULL);
	sr_nd2_object_del(w->a);
	free(w);
	return 0;
}

static HRESULT sr_nd2_mw_query_interface(IND2MemoryWindow *p, REFIID riid, VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2MemoryWindow, false, sr_nd2_mw_add_ref_);
}

static UINT32 sr_nd2_mw_get_remote_token(IND2MemoryWindow *p)
{
	NDK_MW *k = sr_nd2_mw_of(p)->ndk;

	return k->Dispatch->NdkGetRemoteTokenFromMw(k);
}

static const IND2MemoryWindowVtbl sr_nd2_mw_vtbl = {
	.QueryInterface = sr_nd2_mw_query_interface,
	.AddRef = sr_nd2_mw_add_ref,
	.Release = sr_nd2_mw_release,
	.GetRemoteToken = sr_nd2_mw_get_remote_token,
};

HRESULT sr_nd2_mw_create(struct sr_nd2_adapter *a, VOID **out)
{
	struct sr_nd2_mw *w = calloc(1, sizeof(*w));
	NTSTATUS st;

	if (w == NULL)
		return ND_NO_MEMORY;
	st = a->pd->Dispatch->NdkCreateMw(a->pd, NULL, NULL, &w->ndk);
	if (!NT_SUCCESS(st)) {
		free(w);
		return sr_hresult_from_ntstatus(st);
	}
	w->iface.lpVtbl = &sr_nd2_mw_vtbl;
	atomic_init(&w->refs, 1);
	w->a = a;
	sr_nd2_object_add(a);
	*out = &w->iface;
	return ND_SUCCESS;
}

struct sr_nd2_mw *sr_nd2_mw_from(IUnknown *p)
{
	return p && (const void *)p->lpVtbl == (const void *)&sr_nd2_mw_vtbl ?
	       (struct sr_nd2_mw *)p : NULL;
}
