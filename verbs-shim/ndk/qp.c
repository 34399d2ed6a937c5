/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp.c — NDK_QP: work requests translated into lib's (sr_send_wr,
 * sr_recv_wr), NDK_OP_FLAG_* into send flags and rights, tokens into keys.
 *
 * Deferral (NDKPI deferred processing scheme): a request with
 * NDK_OP_FLAG_DEFER is held in the QP's deferred list and handed to the
 * engine, in order, with the next request posted without the flag, when a
 * request fails inline, or on NdkFlush.
 *
 * Fast-register: the shim picks the MR's next key byte and hands it out
 * at once (NdkGetRemoteTokenFromMr right after NdkFastRegister returns);
 * lib checks the request when the engine runs it and, on failure,
 * completes it with an error whatever NDK_OP_FLAG_SILENT_SUCCESS said.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ndk_priv.h"

static struct sr_ndk_qp *sr_ndk_qp_of(NDK_QP *p)
{
	return (struct sr_ndk_qp *)p;
}

bool sr_ndk_qp_connected(const struct sr_ndk_qp *qp)
{
	enum sr_qp_state s = sr_qp_state(qp->qp);

	return s == SR_QPS_RTS || s == SR_QPS_SQD || s == SR_QPS_SQE || s == SR_QPS_ERR;
}

struct sr_ndk_qp *sr_ndk_qp_create_(struct sr_ndk_pd *pd, struct sr_ndk_cq *rcq,
				    struct sr_ndk_cq *icq, struct sr_ndk_srq *srq,
				    PVOID ctx, ULONG rq_depth, ULONG iq_depth,
				    ULONG rsge, ULONG isge, ULONG inline_size, NTSTATUS *st)
{
	struct sr_ndk_adapter *a = pd->a;
	const NDK_ADAPTER_INFO *i = &a->info;
	struct sr_qp_init_attr init = { 0 };
	struct sr_qp_attr attr = { 0 };
	struct sr_ndk_qp *qp;
	int rc;

	if (rcq == NULL || icq == NULL || iq_depth == 0 ||
	    iq_depth > i->MaxInitiatorQueueDepth || isge > i->MaxInitiatorRequestSge ||
	    inline_size > i->MaxInlineDataSize ||
	    (srq == NULL && (rq_depth == 0 || rq_depth > i->MaxReceiveQueueDepth ||
			     rsge > i->MaxReceiveRequestSge))) {
		*st = sr_ntstatus_from_errno(EINVAL);
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (qp == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	init.qp_context = qp;
	init.send_cq = icq->cq;
	init.recv_cq = rcq->cq;
	init.srq = srq ? srq->srq : NULL;
	init.pd = pd->pd;
	init.qp_type = SR_QPT_RC;
	init.cap.max_send_wr = iq_depth;
	init.cap.max_recv_wr = srq ? 0 : rq_depth;
	init.cap.max_send_sge = isge ? isge : 1;
	init.cap.max_recv_sge = srq ? 0 : (rsge ? rsge : 1);
	init.cap.max_inline_data = inline_size;
	errno = 0;
	qp->qp = sr_qp_create(a->be.dev, &init);
	if (qp->qp == NULL) {
		rc = errno ? errno : ENOMEM;
		goto out_free;
	}
	/* INIT at once: NDK posts receives before the connection */
	attr.qp_state = SR_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE |
			       SR_ACCESS_REMOTE_ATOMIC;
	rc = sr_qp_modify(qp->qp, &attr, SR_QP_STATE | SR_QP_PKEY_INDEX | SR_QP_PORT |
			  SR_QP_ACCESS_FLAGS);
	if (rc)
		goto out_destroy;
	qp->sq_depth = init.cap.max_send_wr + 1;
	qp->pages = calloc(qp->sq_depth, sizeof(*qp->pages));
	if (qp->pages == NULL) {
		rc = -ENOMEM;
		goto out_destroy;
	}
	sr_ndk_header_init(&qp->iface.Header, NdkObjectTypeQp);
	qp->iface.Dispatch = &sr_ndk_qp_dispatch;
	qp->pd = pd;
	qp->context = ctx;
	qp->rcq = rcq;
	qp->icq = icq;
	qp->srq = srq;
	qp->max_isge = init.cap.max_send_sge;
	qp->max_rsge = init.cap.max_recv_sge;
	qp->max_inline = init.cap.max_inline_data;
	qp->sq_psn = (sr_qp_num(qp->qp) * 2654435761u) & 0xffffff;
	pthread_mutex_init(&qp->lock, NULL);
	sr_pd_get(pd->pd);
	sr_ndk_qpn_set(a, sr_qp_num(qp->qp), qp);
	atomic_fetch_add(&a->objects, 1);
	return qp;

out_destroy:
	sr_qp_destroy(qp->qp);
out_free:
	free(qp);
	*st = sr_ntstatus_from_errno(rc);
	return NULL;
}

static NTSTATUS sr_ndk_qp_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_qp *qp = (struct sr_ndk_qp *)o;
	struct sr_ndk_adapter *a = qp->pd->a;

	sr_ndk_qp_disconnected(qp);
	sr_ndk_qpn_set(a, sr_qp_num(qp->qp), NULL);
	pthread_mutex_lock(&a->progress_lock);
	sr_qp_destroy(qp->qp);
	pthread_mutex_unlock(&a->progress_lock);
	sr_pd_put(qp->pd->pd);
	for (uint32_t i = 0; i < qp->sq_depth; i++)
		free(qp->pages[i].pages);
	free(qp->pages);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_qp(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb, PVOID ctx)
{
	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(((struct sr_ndk_qp *)o)->pd->a, sr_ndk_qp_close_, o, cb, ctx);
}

/* --------------------------------------------------------------- posting */

static unsigned int sr_ndk_send_flags(ULONG flags)
{
	unsigned int f = 0;

	if (!(flags & NDK_OP_FLAG_SILENT_SUCCESS))
		f |= SR_SEND_SIGNALED;
	if (flags & NDK_OP_FLAG_READ_FENCE)
		f |= SR_SEND_FENCE;
	if (flags & NDK_OP_FLAG_SEND_AND_SOLICIT_EVENT)
		f |= SR_SEND_SOLICITED;
	if (flags & NDK_OP_FLAG_INLINE)
		f |= SR_SEND_INLINE;
	return f;
}

/* Hand a chain to the engine; a full send queue drains with progress. */
static int sr_ndk_post_chain(struct sr_ndk_qp *qp, struct sr_send_wr *head, unsigned int n,
			     bool retry)
{
	const struct sr_send_wr *bad = NULL;
	uint64_t deadline = 0;
	int rc;

	for (;;) {
		rc = sr_qp_post_send(qp->qp, head, &bad);
		if (rc == 0) {
			qp->posted += n;
			return 0;
		}
		/* count what went in; continue from the first not posted */
		for (const struct sr_send_wr *w = head; w && w != bad; w = w->next)
			qp->posted++, n--;
		head = (struct sr_send_wr *)bad;
		if (rc != -ENOMEM || !retry)
			return rc;
		if (deadline == 0) {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			deadline = (uint64_t)ts.tv_sec + 2;
		} else {
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			if ((uint64_t)ts.tv_sec > deadline)
				return rc;
		}
		if (pthread_mutex_trylock(&qp->pd->a->progress_lock) == 0) {
			sr_ndk_progress_(qp->pd->a);
			pthread_mutex_unlock(&qp->pd->a->progress_lock);
		}
	}
}

/* Give every deferred request to the engine (qp->lock held). */
static void sr_ndk_defer_flush(struct sr_ndk_qp *qp)
{
	unsigned int n = qp->ndefer;

	if (n == 0)
		return;
	for (unsigned int i = 0; i + 1 < n; i++)
		qp->defer[i].next = &qp->defer[i + 1];
	qp->defer[n - 1].next = NULL;
	qp->ndefer = 0;
	sr_ndk_post_chain(qp, &qp->defer[0], n, true);
}

/*
 * Post one send-queue request (the SGE array is copied if deferred).
 * qp->lock is taken here.
 */
static NTSTATUS sr_ndk_post_send(struct sr_ndk_qp *qp, struct sr_send_wr *wr, ULONG flags)
{
	int rc;

	wr->next = NULL;
	if (flags & NDK_OP_FLAG_DEFER && qp->ndefer < SR_NDK_DEFER_MAX) {
		struct sr_send_wr *d = &qp->defer[qp->ndefer];

		*d = *wr;
		if (wr->num_sge > 0) {
			memcpy(qp->defer_sge[qp->ndefer], wr->sg_list,
			       (size_t)wr->num_sge * sizeof(struct sr_sge));
			d->sg_list = qp->defer_sge[qp->ndefer];
		}
		qp->ndefer++;
		return STATUS_SUCCESS;
	}
	sr_ndk_defer_flush(qp);
	rc = sr_ndk_post_chain(qp, wr, 1, false);
	return sr_ntstatus_from_errno(rc);
}

/*
 * Common checks and SGE translation for requests with an SGL: too many
 * SGEs is STATUS_DATA_OVERRUN, more bytes than MaxTransferLength
 * STATUS_BUFFER_OVERFLOW (the ND_DATA_OVERRUN and ND_BUFFER_OVERFLOW the
 * NetworkDirect documentation gives for both; NDK's says "other status
 * codes").
 */
static NTSTATUS sr_ndk_sgl(struct sr_ndk_qp *qp, CONST NDK_SGE *sgl, ULONG n, uint32_t max,
			   struct sr_sge *out)
{
	uint64_t total = 0;

	if (n && sgl == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	if (n > max)
		return STATUS_DATA_OVERRUN;
	for (ULONG i = 0; i < n; i++) {
		out[i].addr = (uint64_t)(uintptr_t)sgl[i].VirtualAddress;
		out[i].length = sgl[i].Length;
		out[i].lkey = sgl[i].MemoryRegionToken;
		total += sgl[i].Length;
	}
	if (total > qp->pd->a->info.MaxTransferLength)
		return STATUS_BUFFER_OVERFLOW;
	return STATUS_SUCCESS;
}

/* Lock, check the connection, post; on an inline failure flush deferrals. */
static NTSTATUS sr_ndk_submit(struct sr_ndk_qp *qp, struct sr_send_wr *wr, ULONG flags,
			      NTSTATUS pre)
{
	NTSTATUS st;

	pthread_mutex_lock(&qp->lock);
	if (!NT_SUCCESS(pre))
		st = pre;
	else if (!sr_ndk_qp_connected(qp))
		st = sr_ntstatus_from_errno(ENOTCONN);
	else
		st = sr_ndk_post_send(qp, wr, flags);
	if (!NT_SUCCESS(st))
		sr_ndk_defer_flush(qp);
	pthread_mutex_unlock(&qp->lock);
	return st;
}

static NTSTATUS sr_ndk_send_common(NDK_QP *p, PVOID ctx, CONST NDK_SGE *sgl, ULONG n,
				   ULONG flags, enum sr_wr_opcode op, uint32_t inv)
{
	struct sr_ndk_qp *qp = sr_ndk_qp_of(p);
	struct sr_sge sge[SR_NDK_MAX_SGE];
	struct sr_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)ctx,
		.sg_list = sge,
		.num_sge = (int)n,
		.opcode = op,
		.send_flags = sr_ndk_send_flags(flags),
		.invalidate_rkey = inv,
	};

	return sr_ndk_submit(qp, &wr, flags, sr_ndk_sgl(qp, sgl, n, qp->max_isge, sge));
}

static NTSTATUS sr_ndk_send(NDK_QP *p, PVOID ctx, CONST NDK_SGE *sgl, ULONG n, ULONG flags)
{
	return sr_ndk_send_common(p, ctx, sgl, n, flags, SR_WR_SEND, 0);
}

static NTSTATUS sr_ndk_send_and_invalidate(NDK_QP *p, PVOID ctx, CONST NDK_SGE *sgl,
					   ULONG n, ULONG flags, UINT32 RemoteToken)
{
	return sr_ndk_send_common(p, ctx, sgl, n, flags, SR_WR_SEND_WITH_INV,
				  be32toh(RemoteToken));
}

static NTSTATUS sr_ndk_rdma(NDK_QP *p, PVOID ctx, CONST NDK_SGE *sgl, ULONG n,
			    UINT64 addr, UINT32 token, ULONG flags, enum sr_wr_opcode op)
{
	struct sr_ndk_qp *qp = sr_ndk_qp_of(p);
	struct sr_sge sge[SR_NDK_MAX_SGE];
	struct sr_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)ctx,
		.sg_list = sge,
		.num_sge = (int)n,
		.opcode = op,
		.send_flags = sr_ndk_send_flags(flags),
	};
	NTSTATUS pre;

	wr.wr.rdma.remote_addr = addr;
	wr.wr.rdma.rkey = be32toh(token);
	pre = sr_ndk_sgl(qp, sgl, n, op == SR_WR_RDMA_READ ?
			 qp->pd->a->info.MaxReadRequestSge < qp->max_isge ?
			 qp->pd->a->info.MaxReadRequestSge : qp->max_isge : qp->max_isge, sge);
	/*
	 * Local invalidate after a READ: the adapter does not advertise it
	 * (NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED), and the
	 * documentation says the flag is then ignored.
	 */
	return sr_ndk_submit(qp, &wr, flags & ~(ULONG)NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE,
			     pre);
}

static NTSTATUS sr_ndk_read(NDK_QP *p, PVOID ctx, CONST NDK_SGE *sgl, ULONG n,
			    UINT64 RemoteAddress, UINT32 RemoteToken, ULONG Flags)
{
	return sr_ndk_rdma(p, ctx, sgl, n, RemoteAddress, RemoteToken, Flags, SR_WR_RDMA_READ);
}

static NTSTATUS sr_ndk_write(NDK_QP *p, PVOID ctx, CONST NDK_SGE *sgl, ULONG n,
			     UINT64 RemoteAddress, UINT32 RemoteToken, ULONG Flags)
{
	return sr_ndk_rdma(p, ctx, sgl, n, RemoteAddress, RemoteToken, Flags,
			   SR_WR_RDMA_WRITE);
}

static NTSTATUS sr_ndk_receive(NDK_QP *p, PVOID ctx, CONST NDK_SGE *sgl, ULONG n)
{
	struct sr_ndk_qp *qp = sr_ndk_qp_of(p);
	struct sr_sge sge[SR_NDK_MAX_SGE];
	struct sr_recv_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)ctx,
		.sg_list = sge,
		.num_sge = (int)n,
	};
	const struct sr_recv_wr *bad;
	NTSTATUS st;

	if (qp->srq)
		return sr_ntstatus_from_errno(EPERM);
	st = sr_ndk_sgl(qp, sgl, n, qp->max_rsge, sge);
	if (!NT_SUCCESS(st))
		return st;
	return sr_ntstatus_from_errno(sr_qp_post_recv(qp->qp, &wr, &bad));
}

/* X(NDK_OP_FLAG_ALLOW_*, SR_ACCESS_*): rights a fast-register grants. */
#define SR_NDK_OP_ACCESS_LIST(X)                                              \
	X(NDK_OP_FLAG_ALLOW_REMOTE_READ,  SR_ACCESS_REMOTE_READ)              \
	X(NDK_OP_FLAG_ALLOW_LOCAL_WRITE,  SR_ACCESS_LOCAL_WRITE)              \
	X(NDK_OP_FLAG_ALLOW_REMOTE_WRITE, SR_ACCESS_REMOTE_WRITE | SR_ACCESS_LOCAL_WRITE) \
	X(NDK_OP_FLAG_RDMA_READ_SINK,     SR_ACCESS_READ_SINK)

static uint32_t sr_ndk_op_access(ULONG flags)
{
	uint32_t acc = 0;

#define SR_X(f, a) if ((flags & (f)) == (f)) acc |= (a);
	SR_NDK_OP_ACCESS_LIST(SR_X)
#undef SR_X
	return acc;
}

/* The page-array slot of the next send WR (qp->lock held), grown to n. */
static uint64_t *sr_ndk_pages_slot(struct sr_ndk_qp *qp, uint32_t n)
{
	struct sr_ndk_pages *s = &qp->pages[(qp->posted + qp->ndefer) % qp->sq_depth];

	if (s->cap < n) {
		uint64_t *p = realloc(s->pages, (size_t)n * sizeof(uint64_t));

		if (p == NULL)
			return NULL;
		s->pages = p;
		s->cap = n;
	}
	return s->pages;
}

static uint32_t sr_ndk_next_key(uint32_t key)
{
	return (key & ~0xffu) | ((key + 1) & 0xffu);
}

static NTSTATUS sr_ndk_fast_register(NDK_QP *p, PVOID ctx, NDK_MR *pMr,
				     ULONG AdapterPageCount,
				     CONST NDK_LOGICAL_ADDRESS *AdapterPageArray, ULONG FBO,
				     SIZE_T Length, PVOID BaseVirtualAddress, ULONG Flags)
{
	struct sr_ndk_qp *qp = sr_ndk_qp_of(p);
	struct sr_ndk_mr *m = (struct sr_ndk_mr *)pMr;
	uint32_t access = sr_ndk_op_access(Flags);
	struct sr_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)ctx,
		.opcode = SR_WR_REG_MR,
		.send_flags = sr_ndk_send_flags(Flags),
	};
	uint64_t *pages;
	uint32_t key;
	NTSTATUS st;

	if (m == NULL || AdapterPageArray == NULL || AdapterPageCount == 0)
		return sr_ntstatus_from_errno(EINVAL);
	pthread_mutex_lock(&qp->lock);
	if (!sr_ndk_qp_connected(qp)) {
		st = sr_ntstatus_from_errno(ENOTCONN);
		goto out_unlock;
	}
	if (!m->fast_register || !m->frmr_ready) {
		st = sr_ntstatus_from_errno(EPERM);
		goto out_unlock;
	}
	if ((access & SR_ACCESS_REMOTE) && !m->remote_access) {
		st = sr_ntstatus_from_errno(EACCES);
		goto out_unlock;
	}
	pages = sr_ndk_pages_slot(qp, AdapterPageCount);
	if (pages == NULL) {
		st = sr_ntstatus_from_errno(ENOMEM);
		goto out_unlock;
	}
	for (ULONG i = 0; i < AdapterPageCount; i++)
		pages[i] = (uint64_t)AdapterPageArray[i].QuadPart;
	key = sr_ndk_next_key(m->token);
	{
		/* parameter errors are the call's, not a completion's */
		const struct sr_frmr_req req = {
			.pd = qp->pd->pd, .pages = pages,
			.npages = AdapterPageCount, .fbo = FBO,
			.length = Length,
			.iova = (uint64_t)(uintptr_t)BaseVirtualAddress,
			.access = access, .key = key,
		};
		int rc = sr_frmr_check_params(m->mr, &req);

		if (rc) {
			st = sr_ntstatus_from_errno(-rc);
			goto out_unlock;
		}
	}
	wr.wr.reg.mr = m->mr;
	wr.wr.reg.pages = pages;
	wr.wr.reg.npages = AdapterPageCount;
	wr.wr.reg.fbo = FBO;
	wr.wr.reg.length = Length;
	wr.wr.reg.iova = (uint64_t)(uintptr_t)BaseVirtualAddress;
	wr.wr.reg.access = access;
	wr.wr.reg.key = key;
	st = sr_ndk_post_send(qp, &wr, Flags);
	if (NT_SUCCESS(st)) {
		m->token = key;
		m->token_remote = (access & SR_ACCESS_REMOTE) != 0;
	}
out_unlock:
	if (!NT_SUCCESS(st))
		sr_ndk_defer_flush(qp);
	pthread_mutex_unlock(&qp->lock);
	return st;
}

static NTSTATUS sr_ndk_invalidate(NDK_QP *p, PVOID ctx, NDK_OBJECT_HEADER *pNdkMrOrMw,
				  ULONG Flags)
{
	struct sr_ndk_qp *qp = sr_ndk_qp_of(p);
	struct sr_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)ctx,
		.opcode = SR_WR_LOCAL_INV,
		.send_flags = sr_ndk_send_flags(Flags),
	};
	NTSTATUS pre = STATUS_SUCCESS;

	if (pNdkMrOrMw == NULL)
		pre = sr_ntstatus_from_errno(EINVAL);
	else if (pNdkMrOrMw->ObjectType == NdkObjectTypeMr)
		wr.invalidate_rkey = ((struct sr_ndk_mr *)pNdkMrOrMw)->fast_register ?
			((struct sr_ndk_mr *)pNdkMrOrMw)->token :
			sr_mr_lkey(((struct sr_ndk_mr *)pNdkMrOrMw)->mr);
	else if (pNdkMrOrMw->ObjectType == NdkObjectTypeMw)
		wr.invalidate_rkey = ((struct sr_ndk_mw *)pNdkMrOrMw)->token;
	else
		pre = sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_submit(qp, &wr, Flags, pre);
}

static NTSTATUS sr_ndk_bind(NDK_QP *p, PVOID ctx, NDK_MR *pMr, NDK_MW *pMw,
			    PVOID VirtualAddress, SIZE_T Length, ULONG Flags)
{
	struct sr_ndk_qp *qp = sr_ndk_qp_of(p);
	struct sr_ndk_mr *m = (struct sr_ndk_mr *)pMr;
	struct sr_ndk_mw *w = (struct sr_ndk_mw *)pMw;
	struct sr_send_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)ctx,
		.opcode = SR_WR_BIND_MW,
		.send_flags = sr_ndk_send_flags(Flags),
	};
	uint32_t key;
	NTSTATUS st;

	if (m == NULL || w == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	key = sr_ndk_next_key(w->token);
	wr.wr.bind_mw.mw = w->mw;
	wr.wr.bind_mw.rkey = key;
	wr.wr.bind_mw.mr = m->mr;
	wr.wr.bind_mw.addr = (uint64_t)(uintptr_t)VirtualAddress;
	wr.wr.bind_mw.length = Length;
	wr.wr.bind_mw.access = sr_ndk_op_access(Flags) & SR_ACCESS_REMOTE;
	{
		/* rights the region does not allow: the call's error */
		const struct sr_mw_bind b = {
			.mr = m->mr, .pd = qp->pd->pd, .qpn = sr_qp_num(qp->qp),
			.key = key, .addr = wr.wr.bind_mw.addr, .length = Length,
			.access = wr.wr.bind_mw.access,
		};
		int rc = sr_mw_bind_check_params(w->mw, &b);

		if (rc)
			return sr_ntstatus_from_errno(-rc);
	}
	st = sr_ndk_submit(qp, &wr, Flags, STATUS_SUCCESS);
	if (NT_SUCCESS(st))
		w->token = key;
	return st;
}

static VOID sr_ndk_flush(NDK_QP *p)
{
	struct sr_ndk_qp *qp = sr_ndk_qp_of(p);
	struct sr_qp_attr attr = { .qp_state = SR_QPS_ERR };

	pthread_mutex_lock(&qp->lock);
	sr_ndk_defer_flush(qp);
	pthread_mutex_unlock(&qp->lock);
	sr_qp_modify(qp->qp, &attr, SR_QP_STATE);
}

static NTSTATUS sr_ndk_qp_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
					  NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_QP_DISPATCH sr_ndk_qp_dispatch = {
	.NdkCloseQp = sr_ndk_close_qp,
	.NdkQueryExtension = sr_ndk_qp_query_extension,
	.NdkFlush = sr_ndk_flush,
	.NdkSend = sr_ndk_send,
	.NdkReceive = sr_ndk_receive,
	.NdkBind = sr_ndk_bind,
	.NdkFastRegister = sr_ndk_fast_register,
	.NdkInvalidate = sr_ndk_invalidate,
	.NdkRead = sr_ndk_read,
	.NdkWrite = sr_ndk_write,
	.NdkSendAndInvalidate = sr_ndk_send_and_invalidate,
};
