/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.c — completion queues: create (both APIs), destroy, poll.
 *
 * The first CQ brings the device up (sr_ibv_rt_up: EAL, port, transport).
 * Polling runs the engine inline first (progress.c), then takes lib's
 * completions and converts them: lib's enums carry ibverbs' values, the
 * immediate data goes back to network order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qp/cq.h"
#include "shim.h"

#define SR_POLL_CHUNK 32

/* What ibv_create_cq_ex may ask for: every field a lib completion has,
 * and its timestamp (the device clock, ns; or the wall clock). */
#define SR_IBV_CQ_WC_FLAGS ((uint64_t)IBV_WC_STANDARD_FLAGS |              \
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |          \
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
#define SR_IBV_CQ_FLAGS    IBV_CREATE_CQ_ATTR_SINGLE_THREADED

void sr_ibv_wc_from_sr(struct ibv_wc *out, const struct sr_wc *in)
{
	out->wr_id = in->wr_id;
	out->status = (enum ibv_wc_status)in->status;
	out->opcode = (enum ibv_wc_opcode)in->opcode;
	out->vendor_err = in->vendor_err;
	out->byte_len = in->byte_len;
	if (in->wc_flags & SR_WC_WITH_IMM)
		out->imm_data = htobe32(in->imm_data);
	else
		out->invalidated_rkey = in->invalidated_rkey;
	out->qp_num = in->qp_num;
	out->src_qp = in->src_qp;
	out->wc_flags = in->wc_flags;
	out->pkey_index = in->pkey_index;
	out->slid = in->slid;
	out->sl = in->sl;
	out->dlid_path_bits = in->dlid_path_bits;
}

static struct sr_ibv_cq *sr_ibv_cq_new(struct ibv_context *c, uint32_t cqe,
				       void *cq_context,
				       struct ibv_comp_channel *channel,
				       int comp_vector)
{
	struct sr_ibv_ctx *ctx = sr_ctx(c);
	struct sr_ibv_cq *w;
	int rc;

	if (cqe == 0 || comp_vector < 0 ||
	    comp_vector >= c->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	w = sr_ibv_obj_new(ctx->rt, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->rt = ctx->rt;
	w->cq = sr_cq_create(ctx->rt->dev, cqe, sr_ibv_cq_notify, w);
	if (w->cq == NULL) {
		errno = EINVAL;
		goto out_free;
	}
	/* before the map: an event's ack may take them from now on */
	pthread_mutex_init(&w->ibcq.mutex, NULL);
	pthread_cond_init(&w->ibcq.cond, NULL);
	rc = sr_ibv_map_add(ctx->rt, w->cq, &w->ibcq, ctx);
	if (rc) {
		errno = sr_ibv_err(rc);
		goto out_destroy;
	}
	w->ibcq.context = c;
	w->ibcq.channel = channel;
	w->ibcq.cq_context = cq_context;
	w->ibcq.cqe = (int)sr_cq_depth(w->cq);
	if (channel) {
		pthread_mutex_lock(&c->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&c->mutex);
		sr_ibv_channel_join(w);
	}
	sr_ibv_cq_ex_init(w);
	return w;
out_destroy:
	sr_cq_destroy(w->cq);
out_free:
	free(w);
	return NULL;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct sr_ibv_cq *w;

	if (context == NULL || cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	w = sr_ibv_cq_new(context, (uint32_t)cqe, cq_context, channel,
			  comp_vector);
	return w ? ibv_cq_ex_to_cq(&w->ibcq) : NULL;
}

struct ibv_cq_ex *sr_ibv_create_cq_ex(struct ibv_context *c,
				      struct ibv_cq_init_attr_ex *attr)
{
	struct sr_ibv_cq *w;

	if (attr->wc_flags & ~SR_IBV_CQ_WC_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)SR_IBV_CQ_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* a parent domain's CQ is any CQ (pd_parent.c) */
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    (sr_ibv_parent_domain(attr->parent_domain) == NULL ||
	     attr->parent_domain->context != c)) {
		errno = EINVAL;
		return NULL;
	}
	w = sr_ibv_cq_new(c, attr->cqe, attr->cq_context, attr->channel,
			  (int)attr->comp_vector);
	if (w == NULL)
		return NULL;
	w->ex = true;
	w->wc_flags = attr->wc_flags;
	if (attr->wc_flags & (IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			      IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		w->wall_off = (int64_t)((uint64_t)ts.tv_sec * 1000000000u +
					(uint64_t)ts.tv_nsec) -
			      (int64_t)sr_cq_clock_ns(w->cq);
		sr_cq_stamp(w->cq, true);
	}
	return &w->ibcq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct sr_ibv_cq *w;
	int rc;

	if (cq == NULL)
		return EINVAL;
	w = sr_cq_of(cq);
	/* a QP still on it: EBUSY, before its events are touched */
	if (sr_cq_in_use(w->cq))
		return EBUSY;
	/* no event of its own stays queued, none is taken from here on */
	sr_ibv_channel_forget(w);
	rc = sr_cq_destroy(w->cq);
	if (rc)
		return sr_ibv_err(rc);
	sr_ibv_map_del(w->rt, w->cq, &w->ibcq, IBV_EVENT_CQ_ERR);
	if (atomic_exchange(&w->armed, false))
		sr_ibv_waiter_del(w->rt);
	if (cq->channel) {
		pthread_mutex_lock(&cq->context->mutex);
		cq->channel->refcnt--;
		pthread_mutex_unlock(&cq->context->mutex);
	}
	pthread_cond_destroy(&cq->cond);
	pthread_mutex_destroy(&cq->mutex);
	free(w);
	return 0;
}

int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct sr_ibv_cq *w;
	int rc;

	if (cq == NULL || cqe <= 0)
		return EINVAL;
	w = sr_cq_of(cq);
	rc = sr_cq_resize(w->cq, (uint32_t)cqe);
	if (rc)
		return sr_ibv_err(rc);
	cq->cqe = (int)sr_cq_depth(w->cq);
	return 0;
}

int sr_ibv_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct sr_ibv_cq *w = sr_cq_of(cq);
	struct sr_wc buf[SR_POLL_CHUNK];
	int done = 0, work;

	if (n < 0)
		return -1;
	work = sr_ibv_progress_work(w->rt);
	while (done < n) {
		int want = n - done < SR_POLL_CHUNK ? n - done : SR_POLL_CHUNK;
		int got = sr_cq_poll(w->cq, want, buf);

		for (int i = 0; i < got; i++)
			sr_ibv_wc_from_sr(&wc[done + i], &buf[i]);
		done += got;
		if (got < want)
			break;
	}
	sr_ibv_poll_after(w->rt, work == 0 && done == 0);
	return done;
}
