/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp.c — IND2QueuePair on NDK_QP: ND2_SGEs become NDK_SGEs, ND_OP_FLAG_*
 * become NDK_OP_FLAG_* through one table, memory regions and windows
 * become their NDK objects.  Which flags a request accepts is the
 * documentation's (a flag outside them is ND_INVALID_PARAMETER_<n>, n the
 * flags argument's position); everything else is checked by the NDK shim
 * and lib.
 */
#include <stdlib.h>

#include "nd2_priv.h"

/* X(ND_OP_FLAG_*, NDK_OP_FLAG_*) */
#define SR_ND2_OP_FLAG_LIST(X)                                                     \
	X(ND_OP_FLAG_SILENT_SUCCESS,         NDK_OP_FLAG_SILENT_SUCCESS)           \
	X(ND_OP_FLAG_READ_FENCE,             NDK_OP_FLAG_READ_FENCE)               \
	X(ND_OP_FLAG_SEND_AND_SOLICIT_EVENT, NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)   \
	X(ND_OP_FLAG_ALLOW_READ,             NDK_OP_FLAG_ALLOW_REMOTE_READ)        \
	X(ND_OP_FLAG_ALLOW_WRITE,            NDK_OP_FLAG_ALLOW_REMOTE_WRITE)       \
	X(ND_OP_FLAG_INLINE,                 NDK_OP_FLAG_INLINE)

#define SR_ND2_FENCED (ND_OP_FLAG_SILENT_SUCCESS | ND_OP_FLAG_READ_FENCE)

/* The flags each request accepts (IND2QueuePair documentation). */
#define SR_ND2_SEND_FLAGS  (SR_ND2_FENCED | ND_OP_FLAG_SEND_AND_SOLICIT_EVENT | ND_OP_FLAG_INLINE)
#define SR_ND2_READ_FLAGS  SR_ND2_FENCED
#define SR_ND2_WRITE_FLAGS (SR_ND2_FENCED | ND_OP_FLAG_INLINE)
#define SR_ND2_BIND_FLAGS  (SR_ND2_FENCED | ND_OP_FLAG_ALLOW_READ | ND_OP_FLAG_ALLOW_WRITE)
#define SR_ND2_INV_FLAGS   SR_ND2_FENCED

static ULONG sr_nd2_op_flags(ULONG f)
{
	ULONG k = 0;

#define SR_X(nd, ndk) if (f & (nd)) k |= (ndk);
	SR_ND2_OP_FLAG_LIST(SR_X)
#undef SR_X
	return k;
}

static struct sr_nd2_qp *sr_nd2_qp_of(IND2QueuePair *p)
{
	return (struct sr_nd2_qp *)p;
}

/* ------------------------------------------------------------ IUnknown */

void sr_nd2_qp_get(struct sr_nd2_qp *qp)
{
	atomic_fetch_add(&qp->refs, 1);
}

static ULONG sr_nd2_qp_add_ref(IND2QueuePair *p)
{
	return atomic_fetch_add(&sr_nd2_qp_of(p)->refs, 1) + 1;
}

static ULONG sr_nd2_qp_add_ref_(void *p)
{
	return sr_nd2_qp_add_ref(p);
}

static ULONG sr_nd2_qp_release(IND2QueuePair *p)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_of(p);
	ULONG left = atomic_fetch_sub(&qp->refs, 1) - 1;

	if (left)
		return left;
	qp->ndk->Dispatch->NdkCloseQp(&qp->ndk->Header, NULL, NULL);
	sr_nd2_cq_put(qp->rcq);
	sr_nd2_cq_put(qp->icq);
	if (qp->srq)
		sr_nd2_srq_put(qp->srq);
	sr_nd2_object_del(qp->a);
	free(qp);
	return 0;
}

void sr_nd2_qp_put(struct sr_nd2_qp *qp)
{
	sr_nd2_qp_release(&qp->iface);
}

static HRESULT sr_nd2_qp_query_interface(IND2QueuePair *p, REFIID riid, VOID **ppv)
{
	return sr_nd2_query(p, riid, ppv, &IID_IND2QueuePair, false, sr_nd2_qp_add_ref_);
}

/* --------------------------------------------------------------- posting */

/* Copy the SGL; ND_SUCCESS or the error of a bad list. */
HRESULT sr_nd2_sgl(const ND2_SGE *sge, ULONG n, NDK_SGE *out)
{
	if (n && sge == NULL)
		return sr_hresult_from_errno(EINVAL);
	if (n > SR_NDK_MAX_SGE)
		return ND_DATA_OVERRUN;
	for (ULONG i = 0; i < n; i++)
		out[i] = (NDK_SGE){
			.VirtualAddress = sge[i].Buffer,
			.Length = sge[i].BufferLength,
			.MemoryRegionToken = sge[i].MemoryRegionToken,
		};
	return ND_SUCCESS;
}

/* The checks every post starts with: the device, the flags (argument argn). */
static HRESULT sr_nd2_post_check(struct sr_nd2_qp *qp, ULONG flags, ULONG allowed,
				 unsigned int argn)
{
	HRESULT hr = sr_nd2_alive(qp->a);

	if (FAILED(hr))
		return hr;
	if (flags & ~allowed)
		return ND_INVALID_PARAMETER_1 + (HRESULT)(argn - 1);
	return ND_SUCCESS;
}

/*
 * A post's status: a full queue is ND_NO_MORE_ENTRIES, as the
 * NetworkDirect documentation gives it (NDK says "insufficient
 * resources"; a post allocates nothing else).  Too many SGEs
 * (ND_DATA_OVERRUN) and more than MaxTransferLength (ND_BUFFER_OVERFLOW)
 * come from NDK with the same values.
 */
HRESULT sr_nd2_post_status(NTSTATUS st)
{
	return st == STATUS_INSUFFICIENT_RESOURCES ? ND_NO_MORE_ENTRIES
						   : sr_hresult_from_ntstatus(st);
}

static HRESULT sr_nd2_flush(IND2QueuePair *p)
{
	NDK_QP *k = sr_nd2_qp_of(p)->ndk;

	k->Dispatch->NdkFlush(k);
	return ND_SUCCESS;
}

static HRESULT sr_nd2_send(IND2QueuePair *p, VOID *ctx, const ND2_SGE sge[], ULONG nSge,
			   ULONG flags)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_of(p);
	NDK_SGE k[SR_NDK_MAX_SGE];
	HRESULT hr = sr_nd2_post_check(qp, flags, SR_ND2_SEND_FLAGS, 4);

	if (SUCCEEDED(hr))
		hr = sr_nd2_sgl(sge, nSge, k);
	if (FAILED(hr))
		return hr;
	return sr_nd2_post_status(qp->ndk->Dispatch->NdkSend(qp->ndk, ctx, k, nSge,
							     sr_nd2_op_flags(flags)));
}

static HRESULT sr_nd2_receive(IND2QueuePair *p, VOID *ctx, const ND2_SGE sge[], ULONG nSge)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_of(p);
	NDK_SGE k[SR_NDK_MAX_SGE];
	HRESULT hr = sr_nd2_post_check(qp, 0, 0, 1);

	if (SUCCEEDED(hr))
		hr = sr_nd2_sgl(sge, nSge, k);
	if (FAILED(hr))
		return hr;
	return sr_nd2_post_status(qp->ndk->Dispatch->NdkReceive(qp->ndk, ctx, k, nSge));
}

static HRESULT sr_nd2_bind(IND2QueuePair *p, VOID *ctx, IUnknown *pMemoryRegion,
			   IUnknown *pMemoryWindow, const VOID *pBuffer, SIZE_T cbBuffer,
			   ULONG flags)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_of(p);
	struct sr_nd2_mr *m = sr_nd2_mr_from(pMemoryRegion);
	struct sr_nd2_mw *w = sr_nd2_mw_from(pMemoryWindow);
	HRESULT hr = sr_nd2_post_check(qp, flags, SR_ND2_BIND_FLAGS, 6);

	if (FAILED(hr))
		return hr;
	if (m == NULL || w == NULL ||
	    !(flags & (ND_OP_FLAG_ALLOW_READ | ND_OP_FLAG_ALLOW_WRITE)))
		return sr_hresult_from_errno(EINVAL);
	if (m->ndk == NULL)   /* never registered: no memory to bind to */
		return sr_hresult_from_errno(EACCES);
	return sr_hresult_from_ntstatus(qp->ndk->Dispatch->NdkBind(qp->ndk, ctx, m->ndk, w->ndk,
								   (PVOID)(uintptr_t)pBuffer,
								   cbBuffer,
								   sr_nd2_op_flags(flags)));
}

static HRESULT sr_nd2_invalidate(IND2QueuePair *p, VOID *ctx, IUnknown *pMemoryWindow,
				 ULONG flags)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_of(p);
	struct sr_nd2_mw *w = sr_nd2_mw_from(pMemoryWindow);
	HRESULT hr = sr_nd2_post_check(qp, flags, SR_ND2_INV_FLAGS, 3);

	if (FAILED(hr))
		return hr;
	if (w == NULL)
		return sr_hresult_from_errno(EINVAL);
	return sr_hresult_from_ntstatus(qp->ndk->Dispatch->NdkInvalidate(qp->ndk, ctx,
									 &w->ndk->Header,
									 sr_nd2_op_flags(flags)));
}

static HRESULT sr_nd2_read(IND2QueuePair *p, VOID *ctx, const ND2_SGE sge[], ULONG nSge,
			   UINT64 remoteAddress, UINT32 remoteToken, ULONG flags)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_of(p);
	NDK_SGE k[SR_NDK_MAX_SGE];
	HRESULT hr = sr_nd2_post_check(qp, flags, SR_ND2_READ_FLAGS, 6);

	if (SUCCEEDED(hr))
		hr = sr_nd2_sgl(sge, nSge, k);
	if (FAILED(hr))
		return hr;
	return sr_nd2_post_status(qp->ndk->Dispatch->NdkRead(qp->ndk, ctx, k, nSge,
							     remoteAddress, remoteToken,
							     sr_nd2_op_flags(flags)));
}

static HRESULT sr_nd2_write(IND2QueuePair *p, VOID *ctx, const ND2_SGE sge[], ULONG nSge,
			    UINT64 remoteAddress, UINT32 remoteToken, ULONG flags)
{
	struct sr_nd2_qp *qp = sr_nd2_qp_of(p);
	NDK_SGE k[SR_NDK_MAX_SGE];
	HRESULT hr = sr_nd2_post_check(qp, flags, SR_ND2_WRITE_FLAGS, 6);

	if (SUCCEEDED(hr))
		hr = sr_nd2_sgl(sge, nSge, k);
	if (FAILED(hr))
		return hr;
	return sr_nd2_post_status(qp->ndk->Dispatch->NdkWrite(qp->ndk, ctx, k, nSge,
							      remoteAddress, remoteToken,
							      sr_nd2_op_flags(flags)));
}

static const IND2QueuePairVtbl sr_nd2_qp_vtbl = {
	.QueryInterface = sr_nd2_qp_query_interface,
	.AddRef = sr_nd2_qp_add_ref,
	.Release = sr_nd2_qp_release,
	.Flush = sr_nd2_flush,
	.Send = sr_nd2_send,
	.Receive = sr_nd2_receive,
	.Bind = sr_nd2_bind,
	.Invalidate = sr_nd2_invalidate,
	.Read = sr_nd2_read,
	.Write = sr_nd2_write,
};

/* ------------------------------------------------------------- creation */

HRESULT sr_nd2_qp_create(struct sr_nd2_adapter *a, IUnknown *prcq, IUnknown *picq,
			 IUnknown *psrq, VOID *context, ULONG rq_depth, ULONG iq_depth,
			 ULONG rsge, ULONG isge, ULONG inline_size, VOID **out)
{
	struct sr_nd2_cq *rcq = sr_nd2_cq_from(prcq), *icq = sr_nd2_cq_from(picq);
	struct sr_nd2_srq *srq = sr_nd2_srq_from(psrq);
	const ND2_ADAPTER_INFO *i = &a->info;
	bool shared = psrq != NULL;
	/*
	 * The documented parameter checks, in argument order; with a shared
	 * receive queue (CreateQueuePairWithSrq) it is argument 4 and the
	 * initiator's arguments come one earlier.
	 */
	const struct {
		bool bad;
		HRESULT hr;
	} checks[] = {
		{ rcq == NULL || rcq->a != a, ND_INVALID_PARAMETER_2 },
		{ icq == NULL || icq->a != a, ND_INVALID_PARAMETER_3 },
		{ shared && (srq == NULL || srq->a != a), ND_INVALID_PARAMETER_4 },
		{ !shared && (rq_depth == 0 || rq_depth > i->MaxReceiveQueueDepth),
		  ND_INVALID_PARAMETER_5 },
		{ iq_depth == 0 || iq_depth > i->MaxInitiatorQueueDepth, ND_INVALID_PARAMETER_6 },
		{ !shared && rsge > i->MaxReceiveSge, ND_INVALID_PARAMETER_7 },
		{ isge > i->MaxInitiatorSge,
		  shared ? ND_INVALID_PARAMETER_7 : ND_INVALID_PARAMETER_8 },
		{ inline_size > i->MaxInlineDataSize,
		  shared ? ND_INVALID_PARAMETER_8 : ND_INVALID_PARAMETER_9 },
	};
	struct sr_nd2_qp *qp;
	NTSTATUS st;

	for (size_t n = 0; n < sizeof(checks) / sizeof(checks[0]); n++)
		if (checks[n].bad)
			return checks[n].hr;
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL)
		return ND_NO_MEMORY;
	if (shared)
		st = a->pd->Dispatch->NdkCreateQpWithSrq(a->pd, rcq->ndk, icq->ndk, srq->ndk,
							 context, iq_depth, isge, inline_size,
							 NULL, NULL, &qp->ndk);
	else
		st = a->pd->Dispatch->NdkCreateQp(a->pd, rcq->ndk, icq->ndk, context,
						  rq_depth, iq_depth, rsge, isge,
						  inline_size, NULL, NULL, &qp->ndk);
	if (!NT_SUCCESS(st)) {
		free(qp);
		return sr_hresult_from_ntstatus(st);
	}
	if (shared) {
		qp->srq = srq;
		sr_nd2_srq_get(srq);
	}
	qp->iface.lpVtbl = &sr_nd2_qp_vtbl;
	atomic_init(&qp->refs, 1);
	qp->a = a;
	qp->rcq = rcq;
	qp->icq = icq;
	sr_nd2_cq_get(rcq);
	sr_nd2_cq_get(icq);
	sr_nd2_object_add(a);
	*out = &qp->iface;
	return ND_SUCCESS;
}

struct sr_nd2_qp *sr_nd2_qp_from(IUnknown *p)
{
	return p && (const void *)p->lpVtbl == (const void *)&sr_nd2_qp_vtbl ?
	       (struct sr_nd2_qp *)p : NULL;
}
