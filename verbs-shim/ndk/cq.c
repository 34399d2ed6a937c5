/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.c — NDK_CQ: completions as NDK_RESULT / NDK_RESULT_EX, arming and
 * notification (delivered on the adapter thread), resize and interrupt
 * moderation as the adapter's flags advertise them (not supported: sroce
 * clears both flags).
 */
#include <endian.h>
#include <stdlib.h>

#include "ndk_priv.h"

#define SR_NDK_POLL_CHUNK 32

static struct sr_ndk_cq *sr_ndk_cq_of(NDK_CQ *p)
{
	return (struct sr_ndk_cq *)p;
}

/* The engine runs this (a lane lock held): hand the callback over. */
static void sr_ndk_cq_engine_notify(struct sr_cq *cq, void *ctx)
{
	struct sr_ndk_cq *c = ctx;

	(void)cq;
	atomic_store(&c->fired, 1);
}

struct sr_ndk_cq_args {
	struct sr_ndk_adapter *a;
	ULONG depth;
	NDK_FN_CQ_NOTIFICATION_CALLBACK notify;
	PVOID notify_ctx;
};

NDK_OBJECT_HEADER *sr_ndk_cq_create_(const void *p, NTSTATUS *st)
{
	const struct sr_ndk_cq_args *args = p;
	struct sr_ndk_adapter *a = args->a;
	struct sr_ndk_cq *c;

	if (args->depth == 0 || args->depth > a->info.MaxCqDepth) {
		*st = sr_ntstatus_from_errno(EINVAL);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	c->cq = sr_cq_create(a->be.dev, args->depth, sr_ndk_cq_engine_notify, c);
	if (c->cq == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		free(c);
		return NULL;
	}
	sr_ndk_header_init(&c->iface.Header, NdkObjectTypeCq);
	c->iface.Dispatch = &sr_ndk_cq_dispatch;
	c->a = a;
	c->notify = args->notify;
	c->notify_ctx = args->notify_ctx;
	pthread_mutex_lock(&a->lock);
	c->next = a->cqs;
	a->cqs = c;
	pthread_mutex_unlock(&a->lock);
	atomic_fetch_add(&a->objects, 1);
	return &c->iface.Header;
}

static NTSTATUS sr_ndk_cq_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_cq *c = (struct sr_ndk_cq *)o;
	struct sr_ndk_adapter *a = c->a;
	int rc;

	pthread_mutex_lock(&a->lock);
	rc = sr_cq_destroy(c->cq);
	if (rc == 0) {
		for (struct sr_ndk_cq **pp = &a->cqs; *pp; pp = &(*pp)->next) {
			if (*pp == c) {
				*pp = c->next;
				break;
			}
		}
		if (atomic_exchange(&c->armed, 0))
			atomic_fetch_sub(&a->busy, 1);
	}
	pthread_mutex_unlock(&a->lock);
	if (rc)
		return sr_ntstatus_from_errno(rc);
	free(c);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_cq(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb, PVOID ctx)
{
	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(((struct sr_ndk_cq *)o)->a, sr_ndk_cq_close_, o, cb, ctx);
}

struct sr_ndk_resize_args {
	struct sr_ndk_cq *c;
	ULONG depth;
};

/*
 * The engine's resize keeps the completions the CQ holds; a depth of 0,
 * above MaxCqDepth or below the completions held is invalid.
 */
static NTSTATUS sr_ndk_resize_cq_(const void *p)
{
	const struct sr_ndk_resize_args *r = p;

	return sr_ntstatus_from_errno(sr_cq_resize(r->c->cq, r->depth));
}

static NTSTATUS sr_ndk_resize_cq(NDK_CQ *p, ULONG CqDepth, NDK_FN_REQUEST_COMPLETION cb,
				 PVOID ctx)
{
	struct sr_ndk_resize_args r = { .c = sr_ndk_cq_of(p), .depth = CqDepth };

	if (r.c == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	if (!(r.c->a->info.AdapterFlags & NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED))
		return sr_ntstatus_from_errno(ENOTSUP);
	if (CqDepth == 0 || CqDepth > r.c->a->info.MaxCqDepth)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_request(r.c->a, r.c->a->async_all, sr_ndk_resize_cq_, &r, sizeof(r),
			      cb, ctx);
}

static NTSTATUS sr_ndk_control_cq_interrupt_moderation(NDK_CQ *p, ULONG Interval,
						       ULONG Count)
{
	struct sr_ndk_cq *c = sr_ndk_cq_of(p);

	(void)Interval;
	(void)Count;
	if (!(c->a->info.AdapterFlags & NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED))
		return sr_ntstatus_from_errno(ENOTSUP);
	return sr_ntstatus_from_errno(ENOTSUP);
}

static VOID sr_ndk_arm_cq(NDK_CQ *p, ULONG Type)
{
	struct sr_ndk_cq *c = sr_ndk_cq_of(p);

	if (Type > NDK_CQ_NOTIFY_SOLICITED)
		return;
	if (atomic_exchange(&c->armed, (int)Type + 1) == 0)
		atomic_fetch_add(&c->a->busy, 1);
	if (Type != NDK_CQ_NOTIFY_ERRORS)
		sr_cq_req_notify(c->cq, Type == NDK_CQ_NOTIFY_SOLICITED);
	sr_ndk_worker_kick(c->a);
}

/* Deliver pending notifications (adapter thread). */
void sr_ndk_cq_deliver(struct sr_ndk_adapter *a)
{
	struct {
		NDK_FN_CQ_NOTIFICATION_CALLBACK fn;
		PVOID ctx;
		NTSTATUS st;
	} todo[16];
	unsigned int n = 0;

	pthread_mutex_lock(&a->lock);
	for (struct sr_ndk_cq *c = a->cqs; c && n < 16; c = c->next) {
		NTSTATUS st;
		int armed = atomic_load(&c->armed);

		if (armed == 0)
			continue;
		if (sr_cq_overflowed(c->cq))
			st = STATUS_DATA_OVERRUN;
		else if (armed != NDK_CQ_NOTIFY_ERRORS + 1 && atomic_exchange(&c->fired, 0))
			st = STATUS_SUCCESS;
		else
			continue;
		atomic_store(&c->armed, 0);
		atomic_fetch_sub(&a->busy, 1);
		if (c->notify) {
			todo[n].fn = c->notify;
			todo[n].ctx = c->notify_ctx;
			todo[n].st = st;
			n++;
		}
	}
	pthread_mutex_unlock(&a->lock);
	for (unsigned int i = 0; i < n; i++)
		todo[i].fn(todo[i].ctx, todo[i].st);
}

/* X(transport completion opcode, NDK_OPERATION_TYPE) */
#define SR_NDK_OP_TYPE_LIST(X)                                   \
	X(SEND,               NdkOperationTypeSend)              \
	X(RDMA_WRITE,         NdkOperationTypeWrite)             \
	X(RDMA_READ,          NdkOperationTypeRead)              \
	X(BIND_MW,            NdkOperationTypeBind)              \
	X(LOCAL_INV,          NdkOperationTypeInvalidate)        \
	X(REG_MR,             NdkOperationTypeFastRegister)      \
	X(RECV,               NdkOperationTypeReceive)           \
	X(RECV_RDMA_WITH_IMM, NdkOperationTypeReceive)

static NDK_OPERATION_TYPE sr_ndk_op_type(const struct sr_wc *wc)
{
	switch (wc->opcode) {
#define SR_X(op, t) case SR_WC_OP_##op: return (t);
	SR_NDK_OP_TYPE_LIST(SR_X)
#undef SR_X
	default:
		return NdkOperationTypeSend;
	}
}

static void sr_ndk_result_fill(struct sr_ndk_adapter *a, const struct sr_wc *wc,
			       NDK_RESULT_EX *r)
{
	struct sr_ndk_qp *qp = sr_ndk_qpn_get(a, wc->qp_num);

	r->Status = sr_ntstatus_from_wc(wc->status);
	r->BytesTransferred = wc->byte_len;
	r->QPContext = qp ? qp->context : NULL;
	r->RequestContext = (PVOID)(uintptr_t)wc->wr_id;
	r->Type = sr_ndk_op_type(wc);
	r->TypeSpecificCompletionOutput = 0;
	if (r->Type == NdkOperationTypeReceive && (wc->wc_flags & SR_WC_WITH_INV)) {
		r->Type = NdkOperationTypeReceiveAndInvalidate;
		r->TypeSpecificCompletionOutput = htobe32(wc->invalidated_rkey);
	}
}

static ULONG sr_ndk_poll(struct sr_ndk_cq *c, NDK_RESULT *res, NDK_RESULT_EX *ex,
			 ULONG n)
{
	struct sr_wc wc[SR_NDK_POLL_CHUNK];
	ULONG done = 0;

	if (pthread_mutex_trylock(&c->a->progress_lock) == 0) {
		sr_ndk_progress_(c->a);
		pthread_mutex_unlock(&c->a->progress_lock);
	}
	while (done < n) {
		int want = (int)(n - done < SR_NDK_POLL_CHUNK ? n - done : SR_NDK_POLL_CHUNK);
		int got = sr_cq_poll(c->cq, want, wc);

		for (int i = 0; i < got; i++, done++) {
			NDK_RESULT_EX r;

			sr_ndk_result_fill(c->a, &wc[i], &r);
			if (ex) {
				ex[done] = r;
			} else {
				res[done].Status = r.Status;
				res[done].BytesTransferred = r.BytesTransferred;
				res[done].QPContext = r.QPContext;
				res[done].RequestContext = r.RequestContext;
			}
		}
		if (got < want)
			break;
	}
	return done;
}

static ULONG sr_ndk_get_cq_results(NDK_CQ *p, NDK_RESULT Results[], ULONG nResults)
{
	return sr_ndk_poll(sr_ndk_cq_of(p), Results, NULL, nResults);
}

static ULONG sr_ndk_get_cq_results_ex(NDK_CQ *p, NDK_RESULT_EX Results[], ULONG nResults)
{
	return sr_ndk_poll(sr_ndk_cq_of(p), NULL, Results, nResults);
}

static NTSTATUS sr_ndk_cq_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
					  NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_CQ_DISPATCH sr_ndk_cq_dispatch = {
	.NdkCloseCq = sr_ndk_close_cq,
	.NdkQueryExtension = sr_ndk_cq_query_extension,
	.NdkResizeCq = sr_ndk_resize_cq,
	.NdkArmCq = sr_ndk_arm_cq,
	.NdkGetCqResults = sr_ndk_get_cq_results,
	.NdkControlCqInterruptModeration = sr_ndk_control_cq_interrupt_moderation,
	.NdkGetCqResultsEx = sr_ndk_get_cq_results_ex,
};
