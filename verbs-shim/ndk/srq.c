/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.c — NDK_SRQ: shared receive queues, NdkModifySrq, NdkSrqReceive and
 * the notification when fewer than NotifyThreshold receives remain (lib's
 * SRQ limit event, delivered on the adapter thread).
 */
#include <stdlib.h>

#include "ndk_priv.h"

#define SR_NDK_MAX_SRQ 64

static struct {
	pthread_mutex_t lock;
	struct sr_ndk_srq *srq[SR_NDK_MAX_SRQ];
} sr_ndk_srqs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct sr_ndk_srq *sr_ndk_srq_of(NDK_SRQ *p)
{
	return (struct sr_ndk_srq *)p;
}

static void sr_ndk_srq_track(struct sr_ndk_srq *s, bool add)
{
	pthread_mutex_lock(&sr_ndk_srqs.lock);
	for (unsigned int i = 0; i < SR_NDK_MAX_SRQ; i++) {
		if (add && sr_ndk_srqs.srq[i] == NULL) {
			sr_ndk_srqs.srq[i] = s;
			break;
		}
		if (!add && sr_ndk_srqs.srq[i] == s) {
			sr_ndk_srqs.srq[i] = NULL;
			break;
		}
	}
	pthread_mutex_unlock(&sr_ndk_srqs.lock);
}

struct sr_ndk_srq_work {
	struct sr_ndk_work w;
	NDK_FN_SRQ_NOTIFICATION_CALLBACK fn;
	PVOID ctx;
};

static void sr_ndk_srq_work_run(struct sr_ndk_work *w)
{
	struct sr_ndk_srq_work *sw = (struct sr_ndk_srq_work *)w;

	sw->fn(sw->ctx, STATUS_SUCCESS);
	free(sw);
}

/* lib's SRQ limit event (engine thread): queue the callback. */
void sr_ndk_srq_event(struct sr_ndk_adapter *a, struct sr_srq *srq)
{
	struct sr_ndk_srq_work *sw;

	pthread_mutex_lock(&sr_ndk_srqs.lock);
	for (unsigned int i = 0; i < SR_NDK_MAX_SRQ; i++) {
		struct sr_ndk_srq *s = sr_ndk_srqs.srq[i];

		if (s && s->srq == srq && s->notify && (sw = malloc(sizeof(*sw)))) {
			sw->w.run = sr_ndk_srq_work_run;
			sw->fn = s->notify;
			sw->ctx = s->notify_ctx;
			sr_ndk_work_queue(a, &sw->w);
		}
	}
	pthread_mutex_unlock(&sr_ndk_srqs.lock);
}

struct sr_ndk_srq *sr_ndk_srq_create_(struct sr_ndk_pd *pd, ULONG depth, ULONG sge,
				      ULONG threshold,
				      NDK_FN_SRQ_NOTIFICATION_CALLBACK cb, PVOID ctx,
				      NTSTATUS *st)
{
	const NDK_ADAPTER_INFO *i = &pd->a->info;
	struct sr_srq_attr attr = { .max_wr = depth, .max_sge = sge ? sge : 1 };
	struct sr_ndk_srq *s;

	if (depth == 0 || depth > i->MaxSrqDepth || sge > i->MaxReceiveRequestSge ||
	    threshold > depth) {
		*st = sr_ntstatus_from_errno(EINVAL);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		return NULL;
	}
	s->srq = sr_srq_create(pd->a->be.dev, pd->pd, &attr);
	if (s->srq == NULL) {
		*st = sr_ntstatus_from_errno(ENOMEM);
		free(s);
		return NULL;
	}
	if (threshold) {
		attr.srq_limit = threshold;
		sr_srq_modify(s->srq, &attr, SR_SRQ_LIMIT);
	}
	sr_ndk_header_init(&s->iface.Header, NdkObjectTypeSrq);
	s->iface.Dispatch = &sr_ndk_srq_dispatch;
	s->pd = pd;
	s->notify = cb;
	s->notify_ctx = ctx;
	s->max_sge = attr.max_sge;
	sr_pd_get(pd->pd);
	sr_ndk_srq_track(s, true);
	atomic_fetch_add(&pd->a->objects, 1);
	return s;
}

static NTSTATUS sr_ndk_srq_close_(NDK_OBJECT_HEADER *o)
{
	struct sr_ndk_srq *s = (struct sr_ndk_srq *)o;
	struct sr_ndk_adapter *a = s->pd->a;
	int rc = sr_srq_destroy(s->srq);

	if (rc)
		return sr_ntstatus_from_errno(rc);
	sr_ndk_srq_track(s, false);
	sr_pd_put(s->pd->pd);
	free(s);
	atomic_fetch_sub(&a->objects, 1);
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ndk_close_srq(NDK_OBJECT_HEADER *o, NDK_FN_CLOSE_COMPLETION cb, PVOID ctx)
{
	if (o == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	return sr_ndk_close(((struct sr_ndk_srq *)o)->pd->a, sr_ndk_srq_close_, o, cb, ctx);
}

struct sr_ndk_srq_mod {
	struct sr_ndk_srq *s;
	ULONG depth, threshold;
};

static NTSTATUS sr_ndk_modify_srq_(const void *p)
{
	const struct sr_ndk_srq_mod *m = p;
	struct sr_srq_attr attr;
	int rc = sr_srq_query(m->s->srq, &attr);

	if (rc)
		return sr_ntstatus_from_errno(rc);
	if (m->depth != attr.max_wr)    /* lib cannot resize an SRQ */
		return sr_ntstatus_from_errno(ENOTSUP);
	attr.srq_limit = m->threshold;
	return sr_ntstatus_from_errno(sr_srq_modify(m->s->srq, &attr, SR_SRQ_LIMIT));
}

static NTSTATUS sr_ndk_modify_srq(NDK_SRQ *p, ULONG SrqDepth, ULONG NotifyThreshold,
				  NDK_FN_REQUEST_COMPLETION cb, PVOID ctx)
{
	struct sr_ndk_srq_mod m = { .s = sr_ndk_srq_of(p), .depth = SrqDepth,
				    .threshold = NotifyThreshold };

	return sr_ndk_request(m.s->pd->a, m.s->pd->a->async_all, sr_ndk_modify_srq_, &m,
			      sizeof(m), cb, ctx);
}

static NTSTATUS sr_ndk_srq_receive(NDK_SRQ *p, PVOID ctx, CONST NDK_SGE *sgl, ULONG n)
{
	struct sr_ndk_srq *s = sr_ndk_srq_of(p);
	struct sr_sge sge[SR_NDK_MAX_SGE];
	struct sr_recv_wr wr = {
		.wr_id = (uint64_t)(uintptr_t)ctx,
		.sg_list = sge,
		.num_sge = (int)n,
	};
	const struct sr_recv_wr *bad;

	if (n > s->max_sge || (n && sgl == NULL))
		return sr_ntstatus_from_errno(EINVAL);
	for (ULONG i = 0; i < n; i++) {
		sge[i].addr = (uint64_t)(uintptr_t)sgl[i].VirtualAddress;
		sge[i].length = sgl[i].Length;
		sge[i].lkey = sgl[i].MemoryRegionToken;
	}
	return sr_ntstatus_from_errno(sr_srq_post_recv(s->srq, &wr, &bad));
}

static NTSTATUS sr_ndk_srq_query_extension(NDK_OBJECT_HEADER *o, GUID *id, NDK_VERSION v,
					   NDK_EXTENSION_INTERFACE *e)
{
	return sr_ndk_query_extension(o, id, v, e);
}

const NDK_SRQ_DISPATCH sr_ndk_srq_dispatch = {
	.NdkCloseSrq = sr_ndk_close_srq,
	.NdkQueryExtension = sr_ndk_srq_query_extension,
	.NdkModifySrq = sr_ndk_modify_srq,
	.NdkSrqReceive = sr_ndk_srq_receive,
};
