/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pd.c — NDK_PD: the objects made on a protection domain (MRs, MWs, SRQs,
 * QPs) and the privileged memory region token.
 */
#include <stdlib.h>

#include "ndk_priv.h"

static struct sr_ndk_pd *sr_ndk_pd_of(NDK_PD *p)
{
	return (struct sr_ndk_pd *)p;
}

static NTSTATUS sr_ndk_pd_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_pd *pd = (struct sr_ndk_pd *)o;
	struct sr_ndk_adapter *a = pd->a;
	int rc = sr_pd_dealloc(pd->pd);

	if (rc)
		return sr_ntstatus_from_errno(rc);
	free(pd);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_pd(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb, PVOID ctx)
{
	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(((struct sr_ndk_pd *)o)->a, sr_ndk_pd_close_, o, cb, ctx);
}

struct sr_ndk_mr_args {
	struct sr_ndk_pd *pd;
	BOOLEAN fast;
};

static NDK_OBJECT_HEADER *sr_ndk_mr_create_cb(const void *p, NTSTATUS *st)
{
	const struct sr_ndk_mr_args *a = p;
	struct sr_ndk_mr *m = sr_ndk_mr_create_(a->pd, a->fast != 0, st);

	return m ? &m->iface.Header : NULL;
}

static NTSTATUS sr_ndk_create_mr(NDK_PD *p, BOOLEAN FastRegister,
				 NDK_FN_CREATE_COMPLETION cb, PVOID ctx, NDK_MR **ppNdkMr)
{
	struct sr_ndk_mr_args args = { .pd = sr_ndk_pd_of(p), .fast = FastRegister };

	if (p == NULL || ppNdkMr == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(args.pd->a, args.pd->a->async_all, sr_ndk_mr_create_cb, &args,
			     sizeof(args), cb, ctx, (void **)ppNdkMr);
}

static NDK_OBJECT_HEADER *sr_ndk_mw_create_cb(const void *p, NTSTATUS *st)
{
	struct sr_ndk_mw *w = sr_ndk_mw_create_(*(struct sr_ndk_pd *const *)p, st);

	return w ? &w->iface.Header : NULL;
}

static NTSTATUS sr_ndk_create_mw(NDK_PD *p, NDK_FN_CREATE_COMPLETION cb, PVOID ctx,
				 NDK_MW **ppNdkMw)
{
	struct sr_ndk_pd *pd = sr_ndk_pd_of(p);

	if (p == NULL || ppNdkMw == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(pd->a, pd->a->async_all, sr_ndk_mw_create_cb, &pd, sizeof(pd),
			     cb, ctx, (void **)ppNdkMw);
}

struct sr_ndk_srq_args {
	struct sr_ndk_pd *pd;
	ULONG depth, sge, threshold;
	NDK_FN_SRQ_NOTIFICATION_CALLBACK notify;
	PVOID notify_ctx;
};

static NDK_OBJECT_HEADER *sr_ndk_srq_create_cb(const void *p, NTSTATUS *st)
{
	const struct sr_ndk_srq_args *a = p;
	struct sr_ndk_srq *s = sr_ndk_srq_create_(a->pd, a->depth, a->sge, a->threshold,
						  a->notify, a->notify_ctx, st);

	return s ? &s->iface.Header : NULL;
}

static NTSTATUS sr_ndk_create_srq(NDK_PD *p, ULONG SrqDepth, ULONG MaxReceiveRequestSge,
				  ULONG NotifyThreshold,
				  NDK_FN_SRQ_NOTIFICATION_CALLBACK SrqNotification,
				  PVOID SrqNotificationContext, GROUP_AFFINITY *Affinity,
				  NDK_FN_CREATE_COMPLETION cb, PVOID ctx, NDK_SRQ **ppNdkSrq)
{
	struct sr_ndk_srq_args args = {
		.pd = sr_ndk_pd_of(p),
		.depth = SrqDepth,
		.sge = MaxReceiveRequestSge,
		.threshold = NotifyThreshold,
		.notify = SrqNotification,
		.notify_ctx = SrqNotificationContext,
	};

	(void)Affinity;
	if (p == NULL || ppNdkSrq == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(args.pd->a, args.pd->a->async_all, sr_ndk_srq_create_cb, &args,
			     sizeof(args), cb, ctx, (void **)ppNdkSrq);
}

struct sr_ndk_qp_args {
	struct sr_ndk_pd *pd;
	NDK_CQ *rcq, *icq;
	NDK_SRQ *srq;
	PVOID ctx;
	ULONG rq_depth, iq_depth, rsge, isge, inline_size;
};

static NDK_OBJECT_HEADER *sr_ndk_qp_create_cb(const void *p, NTSTATUS *st)
{
	const struct sr_ndk_qp_args *a = p;
	struct sr_ndk_qp *qp = sr_ndk_qp_create_(a->pd, (struct sr_ndk_cq *)a->rcq,
						 (struct sr_ndk_cq *)a->icq,
						 (struct sr_ndk_srq *)a->srq, a->ctx,
						 a->rq_depth, a->iq_depth, a->rsge, a->isge,
						 a->inline_size, st);

	return qp ? &qp->iface.Header : NULL;
}

static NTSTATUS sr_ndk_create_qp(NDK_PD *p, NDK_CQ *pReceiveCq, NDK_CQ *pInitiatorCq,
				 PVOID QPContext, ULONG ReceiveQueueDepth,
				 ULONG InitiatorQueueDepth, ULONG MaxReceiveRequestSge,
				 ULONG MaxInitiatorRequestSge, ULONG InlineDataSize,
				 NDK_FN_CREATE_COMPLETION cb, PVOID ctx, NDK_QP **ppNdkQp)
{
	struct sr_ndk_qp_args args = {
		.pd = sr_ndk_pd_of(p),
		.rcq = pReceiveCq,
		.icq = pInitiatorCq,
		.ctx = QPContext,
		.rq_depth = ReceiveQueueDepth,
		.iq_depth = InitiatorQueueDepth,
		.rsge = MaxReceiveRequestSge,
		.isge = MaxInitiatorRequestSge,
		.inline_size = InlineDataSize,
	};

	if (p == NULL || ppNdkQp == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(args.pd->a, args.pd->a->async_all, sr_ndk_qp_create_cb, &args,
			     sizeof(args), cb, ctx, (void **)ppNdkQp);
}

static NTSTATUS sr_ndk_create_qp_with_srq(NDK_PD *p, NDK_CQ *pReceiveCq,
					  NDK_CQ *pInitiatorCq, NDK_SRQ *pSrq,
					  PVOID QPContext, ULONG InitiatorQueueDepth,
					  ULONG MaxInitiatorRequestSge, ULONG InlineDataSize,
					  NDK_FN_CREATE_COMPLETION cb, PVOID ctx,
					  NDK_QP **ppNdkQp)
{
	struct sr_ndk_qp_args args = {
		.pd = sr_ndk_pd_of(p),
		.rcq = pReceiveCq,
		.icq = pInitiatorCq,
		.srq = pSrq,
		.ctx = QPContext,
		.iq_depth = InitiatorQueueDepth,
		.isge = MaxInitiatorRequestSge,
		.inline_size = InlineDataSize,
	};

	if (p == NULL || ppNdkQp == NULL || pSrq == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(args.pd->a, args.pd->a->async_all, sr_ndk_qp_create_cb, &args,
			     sizeof(args), cb, ctx, (void **)ppNdkQp);
}

static VOID sr_ndk_get_privileged_memory_region_token(NDK_PD *p, UINT32 *pToken)
{
	*pToken = sr_mr_dev_privileged_lkey(sr_ndk_pd_of(p)->a->be.mr);
}

static NTSTATUS sr_ndk_pd_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
					  NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_PD_DISPATCH sr_ndk_pd_dispatch = {
	.NdkClosePd = sr_ndk_close_pd,
	.NdkQueryExtension = sr_ndk_pd_query_extension,
	.NdkCreateMr = sr_ndk_create_mr,
	.NdkCreateMw = sr_ndk_create_mw,
	.NdkCreateSrq = sr_ndk_create_srq,
	.NdkCreateQp = sr_ndk_create_qp,
	.NdkCreateQpWithSrq = sr_ndk_create_qp_with_srq,
	.NdkGetPrivilegedMemoryRegionToken = sr_ndk_get_privileged_memory_region_token,
};
