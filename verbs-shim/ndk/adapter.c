/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * adapter.c — the NDK adapter object: NDK_ADAPTER_DISPATCH, adapter
 * creation on a backend, NdkQueryAdapterInfo, PDs, logical address
 * mappings.
 */
#include <stdlib.h>
#include <string.h>

#include "cm/cma.h"
#include "ndk_priv.h"

/* AdapterFlags the shim cannot honour, whatever the limits say. */
#define SR_NDK_FLAGS_UNSUPPORTED                                         \
	(NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED |            \
	 NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED)

void sr_ndk_header_init(NDK_OBJECT_HEADER *h, NDK_OBJECT_TYPE type)
{
	memset(h, 0, sizeof(*h));
	h->Version.Major = SR_NDK_VERSION_MAJOR;
	h->Version.Minor = SR_NDK_VERSION_MINOR;
	h->ObjectType = type;
}

struct sr_ndk_adapter *sr_ndk_adapter_of(NDK_ADAPTER *p)
{
	return (struct sr_ndk_adapter *)p;
}

NTSTATUS sr_ndk_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
				NDK_EXTENSION_INTERFACE *ext)
{
	(void)o;
	(void)id;
	(void)v;
	(void)ext;
	return sr_ntstatus_from_errno(ENOTSUP);  /* sroce has no extensions */
}

void sr_ndk_progress_(struct sr_ndk_adapter *a)
{
	if (a->be.ops && a->be.ops->progress)
		a->be.ops->progress(a->be.ctx);
}

VOID sr_ndk_progress(NDK_ADAPTER *p)
{
	sr_ndk_progress_(sr_ndk_adapter_of(p));
}

void sr_ndk_qpn_set(struct sr_ndk_adapter *a, uint32_t qpn, struct sr_ndk_qp *qp)
{
	if (qpn < SR_MAX_QP + 2)
		__atomic_store_n(&a->qpn_map[qpn], qp, __ATOMIC_RELEASE);
}

struct sr_ndk_qp *sr_ndk_qpn_get(struct sr_ndk_adapter *a, uint32_t qpn)
{
	return qpn < SR_MAX_QP + 2 ?
		__atomic_load_n(&a->qpn_map[qpn], __ATOMIC_ACQUIRE) : NULL;
}

static void sr_ndk_info_fill(struct sr_ndk_adapter *a)
{
	const struct sr_dev_limits *l = sr_mr_dev_limits(a->be.mr);
	NDK_ADAPTER_INFO *i = &a->info;

	memset(i, 0, sizeof(*i));
	i->Version.Major = (USHORT)(l->version >> 16);
	i->Version.Minor = (USHORT)(l->version & 0xffff);
	i->VendorId = l->vendor_id;
	i->DeviceId = l->device_id;
	i->MaxRegistrationSize = l->max_registration_size;
	i->MaxWindowSize = l->max_window_size;
	i->FRMRPageCount = l->frmr_page_count;
	i->MaxInitiatorRequestSge = l->max_initiator_request_sge;
	i->MaxReceiveRequestSge = l->max_receive_request_sge;
	i->MaxReadRequestSge = l->max_read_request_sge;
	i->MaxTransferLength = l->max_transfer_length;
	i->MaxInlineDataSize = l->max_inline_data_size;
	i->MaxInboundReadLimit = l->max_inbound_read_limit;
	i->MaxOutboundReadLimit = l->max_outbound_read_limit;
	i->MaxReceiveQueueDepth = l->max_receive_queue_depth;
	i->MaxInitiatorQueueDepth = l->max_initiator_queue_depth;
	i->MaxSrqDepth = l->max_srq_depth;
	i->MaxCqDepth = l->max_cq_depth;
	i->LargeRequestThreshold = l->large_request_threshold;
	/* what the CM's REQ and REP carry after rdma_cm's header */
	i->MaxCallerData = l->max_caller_data < SR_CMA_REQ_PDATA_MAX ? l->max_caller_data
								     : SR_CMA_REQ_PDATA_MAX;
	i->MaxCalleeData = l->max_callee_data < SR_CMA_REP_PDATA_MAX ? l->max_callee_data
								     : SR_CMA_REP_PDATA_MAX;
	i->AdapterFlags = l->adapter_flags & ~(ULONG)SR_NDK_FLAGS_UNSUPPORTED;
	i->RdmaTechnology = (NDK_RDMA_TECHNOLOGY)l->rdma_technology;
	/* the transport's own bounds */
	if (i->MaxInitiatorRequestSge > SR_QP_MAX_SGE)
		i->MaxInitiatorRequestSge = SR_QP_MAX_SGE;
	if (i->MaxReceiveRequestSge > SR_QP_MAX_SGE)
		i->MaxReceiveRequestSge = SR_QP_MAX_SGE;
	if (i->MaxReadRequestSge > SR_QP_MAX_SGE)
		i->MaxReadRequestSge = SR_QP_MAX_SGE;
	if (i->MaxInlineDataSize > SR_QP_MAX_INLINE)
		i->MaxInlineDataSize = SR_QP_MAX_INLINE;
	if (i->MaxReceiveQueueDepth > SR_QP_MAX_WR)
		i->MaxReceiveQueueDepth = SR_QP_MAX_WR;
	if (i->MaxInitiatorQueueDepth > SR_QP_MAX_WR)
		i->MaxInitiatorQueueDepth = SR_QP_MAX_WR;
	if (i->MaxInboundReadLimit > SR_QP_MAX_RD_ATOMIC)
		i->MaxInboundReadLimit = SR_QP_MAX_RD_ATOMIC;
	if (i->MaxOutboundReadLimit > SR_QP_MAX_RD_ATOMIC)
		i->MaxOutboundReadLimit = SR_QP_MAX_RD_ATOMIC;
}

static NTSTATUS sr_ndk_query_adapter_info(NDK_ADAPTER *p, NDK_ADAPTER_INFO *pInfo,
					  ULONG *pBufferSize)
{
	struct sr_ndk_adapter *a = sr_ndk_adapter_of(p);

	if (pBufferSize == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	if (pInfo == NULL || *pBufferSize < sizeof(NDK_ADAPTER_INFO)) {
		*pBufferSize = sizeof(NDK_ADAPTER_INFO);
		return sr_ntstatus_from_errno(EOVERFLOW);
	}
	*pInfo = a->info;
	*pBufferSize = sizeof(NDK_ADAPTER_INFO);
	return STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ PDs */

static NDK_OBJECT_HEADER *sr_ndk_pd_create_(const void *args, NTSTATUS *st)
{
	struct sr_ndk_adapter *a = *(struct sr_ndk_adapter *const *)args;
	struct sr_ndk_pd *pd = calloc(1, sizeof(*pd));

	if (pd == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	pd->pd = sr_pd_alloc(a->be.mr);
	if (pd->pd == NULL) {
		*st = sr_ntstatus_from_errno(errno);
		free(pd);
		return NULL;
	}
	sr_ndk_header_init(&pd->iface.Header, NdkObjectTypePd);
	pd->iface.Dispatch = &sr_ndk_pd_dispatch;
	pd->a = a;
	atomic_fetch_add(&a->objects, 1);
	return &pd->iface.Header;
}

static NTSTATUS sr_ndk_create_pd(NDK_ADAPTER *p, NDK_FN_CREATE_COMPLETION cb, PVOID ctx,
				 NDK_PD **ppNdkPd)
{
	struct sr_ndk_adapter *a = sr_ndk_adapter_of(p);

	if (ppNdkPd == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(a, a->async_all, sr_ndk_pd_create_, &a, sizeof(a), cb, ctx,
			     (void **)ppNdkPd);
}

/* ------------------------------------------------------------------ CQs */

struct sr_ndk_cq_args {
	struct sr_ndk_adapter *a;
	ULONG depth;
	NDK_FN_CQ_NOTIFICATION_CALLBACK notify;
	PVOID notify_ctx;
};

static NTSTATUS sr_ndk_create_cq(NDK_ADAPTER *p, ULONG CqDepth,
				 NDK_FN_CQ_NOTIFICATION_CALLBACK CqNotification,
				 PVOID CqNotificationContext, GROUP_AFFINITY *Affinity,
				 NDK_FN_CREATE_COMPLETION cb, PVOID ctx, NDK_CQ **ppNdkCq)
{
	struct sr_ndk_adapter *a = sr_ndk_adapter_of(p);
	struct sr_ndk_cq_args args = {
		.a = a,
		.depth = CqDepth,
		.notify = CqNotification,
		.notify_ctx = CqNotificationContext,
	};

	(void)Affinity;   /* one adapter thread delivers every notification */
	if (ppNdkCq == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_create(a, a->async_all, sr_ndk_cq_create_, &args, sizeof(args), cb,
			     ctx, (void **)ppNdkCq);
}

static NTSTATUS sr_ndk_create_shared_endpoint(NDK_ADAPTER *p, CONST PSOCKADDR addr,
					      ULONG len, NDK_FN_CREATE_COMPLETION cb,
					      PVOID ctx, NDK_SHARED_ENDPOINT **out)
{
	(void)p;
	(void)addr;
	(void)len;
	(void)cb;
	(void)ctx;
	(void)out;
	return sr_ntstatus_from_errno(ENOTSUP);
}

/* ------------------------------------------------- logical address maps */

static NTSTATUS sr_ndk_build_lam(NDK_ADAPTER *p, MDL *Mdl, SIZE_T Length,
				 NDK_FN_REQUEST_COMPLETION cb, PVOID ctx,
				 NDK_LOGICAL_ADDRESS_MAPPING *lam, ULONG *pLAMSize,
				 ULONG *pFBO)
{
	struct sr_mdl_pages mp;
	size_t need;
	uint32_t n;
	int rc;

	(void)p;
	(void)cb;   /* always synchronous */
	(void)ctx;
	if (Mdl == NULL || pLAMSize == NULL || pFBO == NULL || Length == 0)
		return sr_ntstatus_from_errno(EINVAL);
	rc = sr_mdl_flatten(Mdl, &mp);
	if (rc)
		return sr_ntstatus_from_errno(rc);
	if (Length > mp.bytes) {
		sr_mdl_pages_free(&mp);
		return sr_ntstatus_from_errno(EINVAL);
	}
	n = ADDRESS_AND_SIZE_TO_SPAN_PAGES(mp.fbo, Length);
	need = offsetof(NDK_LOGICAL_ADDRESS_MAPPING, AdapterPageArray) +
	       (size_t)n * sizeof(NDK_LOGICAL_ADDRESS);
	if (lam == NULL || *pLAMSize < need) {
		*pLAMSize = (ULONG)need;
		sr_mdl_pages_free(&mp);
		return sr_ntstatus_from_errno(EOVERFLOW);
	}
	lam->AdapterContext = NULL;
	lam->AdapterPageCount = n;
	for (uint32_t i = 0; i < n; i++)
		lam->AdapterPageArray[i].QuadPart = (LONGLONG)mp.pages[i];
	*pLAMSize = (ULONG)need;
	*pFBO = mp.fbo;
	sr_mdl_pages_free(&mp);
	return STATUS_SUCCESS;
}

static VOID sr_ndk_release_lam(NDK_ADAPTER *p, NDK_LOGICAL_ADDRESS_MAPPING *lam)
{
	(void)p;
	(void)lam;   /* nothing was mapped: logical addresses are VAs */
}

static NTSTATUS sr_ndk_adapter_query_extension(NDK_OBJECT_HEADER *o, GUID *id,
					       NDK_VERSION v, NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

static const NDK_ADAPTER_DISPATCH sr_ndk_adapter_dispatch = {
	.NdkQueryExtension = sr_ndk_adapter_query_extension,
	.NdkQueryAdapterInfo = sr_ndk_query_adapter_info,
	.NdkCreateCq = sr_ndk_create_cq,
	.NdkCreatePd = sr_ndk_create_pd,
	.NdkCreateSharedEndpoint = sr_ndk_create_shared_endpoint,
	.NdkCreateConnector = sr_ndk_create_connector,
	.NdkCreateListener = sr_ndk_create_listener,
	.NdkBuildLAM = sr_ndk_build_lam,
	.NdkReleaseLAM = sr_ndk_release_lam,
};

/* -------------------------------------------------------- open / close */

NTSTATUS sr_ndk_adapter_create(const struct sr_ndk_backend *be, NDK_ADAPTER **out)
{
	struct sr_ndk_adapter *a;
	const char *env;
	int rc;

	if (be == NULL || be->mr == NULL || be->dev == NULL || out == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	a = calloc(1, sizeof(*a));
	if (a == NULL)
		return sr_ntstatus_from_errno(ENOMEM);
	sr_ndk_header_init(&a->iface.Header, NdkObjectTypeAdapter);
	a->iface.Dispatch = &sr_ndk_adapter_dispatch;
	a->be = *be;
	pthread_mutex_init(&a->lock, NULL);
	pthread_mutex_init(&a->wlock, NULL);
	pthread_mutex_init(&a->progress_lock, NULL);
	pthread_cond_init(&a->wcond, NULL);
	env = getenv("SROCE_NDK_ASYNC_BYTES");
	a->async_threshold = env ? strtoull(env, NULL, 0) : (SIZE_T)1 << 30;
	sr_ndk_info_fill(a);
	rc = sr_ndk_cm_init(a);
	if (rc)
		goto out_free;
	rc = sr_ndk_worker_start(a);
	if (rc)
		goto out_cm;
	*out = &a->iface;
	return STATUS_SUCCESS;

out_cm:
	sr_ndk_cm_fini(a);
out_free:
	free(a);
	return sr_ntstatus_from_errno(rc);
}

NTSTATUS sr_ndk_close_adapter(NDK_ADAPTER *p)
{
	struct sr_ndk_adapter *a;
	int rc = 0;

	if (p == NULL)
		return STATUS_SUCCESS;
	a = sr_ndk_adapter_of(p);
	if (atomic_load(&a->objects) != 0)
		return sr_ntstatus_from_errno(EBUSY);
	sr_ndk_worker_stop(a);
	sr_ndk_cm_fini(a);
	if (a->be.ops && a->be.ops->close)
		rc = a->be.ops->close(a->be.ctx);
	pthread_mutex_destroy(&a->lock);
	pthread_mutex_destroy(&a->wlock);
	pthread_mutex_destroy(&a->progress_lock);
	pthread_cond_destroy(&a->wcond);
	free(a);
	return sr_ntstatus_from_errno(rc);
}

VOID sr_ndk_set_async(NDK_ADAPTER *p, SIZE_T Threshold, BOOLEAN All)
{
	struct sr_ndk_adapter *a = sr_ndk_adapter_of(p);

	a->async_threshold = Threshold;
	a->async_all = All != 0;
}

ULONG sr_ndk_object_count(NDK_ADAPTER *p)
{
	return atomic_load(&sr_ndk_adapter_of(p)->objects);
}

const struct sr_ndk_backend *sr_ndk_adapter_backend(NDK_ADAPTER *p)
{
	return &sr_ndk_adapter_of(p)->be;
}
