/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * async.c — asynchronous events: the transport's callback, the per-context
 * queue read through ibv_context.async_fd (an eventfd), and the map from
 * lib/ objects to the ibverbs objects that wrap them (several for an XRC
 * target QP that ibv_open_qp gave more handles: each gets the event).
 *
 * The callback runs on the engine thread (core/dev.h): it only looks the
 * object up, queues the event and signals the eventfd.  An event is
 * delivered to the context that created the object.
 *
 * Destroying an object keeps rdma-core's promise (ibv_cmd_destroy_qp and
 * the kernel's ib_uverbs_release_uevent): no event for it is queued after
 * its map entry goes, the queued ones nobody has read are dropped, and the
 * ones read are waited for until ibv_ack_async_event, so that an ack never
 * writes into a freed object.  UCX acks LAST_WQE_REACHED on its async
 * thread while its main thread destroys the QP that the event let go.
 *
 * Locks: map_lock, then a context's ev_lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "shim.h"

/* Handles an event reaches at most (an XRC target's, ibv_open_qp). */
#define SR_IBV_EV_HANDLES 64

struct sr_ibv_map_entry {
	const void *lib;
	void *wrapper;
	struct sr_ibv_ctx *ctx;
};

int sr_ibv_map_add(struct sr_ibv_rt *rt, const void *lib, void *wrapper,
		   struct sr_ibv_ctx *ctx)
{
	struct sr_ibv_map_entry *m;
	int rc = 0;

	pthread_mutex_lock(&rt->map_lock);
	if (rt->map_n == rt->map_cap) {
		unsigned int cap = rt->map_cap ? rt->map_cap * 2 : 64;

		m = realloc(rt->map, cap * sizeof(*m));
		if (m == NULL) {
			rc = -ENOMEM;
			goto out_unlock;
		}
		rt->map = m;
		rt->map_cap = cap;
	}
	rt->map[rt->map_n++] = (struct sr_ibv_map_entry){
		.lib = lib, .wrapper = wrapper, .ctx = ctx,
	};
out_unlock:
	pthread_mutex_unlock(&rt->map_lock);
	return rc;
}

/*
 * What an event's object keeps for rdma-core's destroy rule: the wrapper
 * (NULL for a port's or the device's event), its events read, its acks,
 * and the lock and cond the ack signals.  element: the event's, any member
 * (the union's pointers share storage).
 */
struct sr_ibv_ev_obj {
	const void *obj;
	uint32_t *read, *acked;
	pthread_mutex_t *mutex;
	pthread_cond_t *cond;
};

static struct sr_ibv_ev_obj sr_ibv_ev_obj(enum ibv_event_type type,
					  void *element)
{
	struct sr_ibv_ev_obj o = { 0 };

	if (element == NULL)
		return o;
	switch (type) {
	case IBV_EVENT_CQ_ERR: {
		struct ibv_cq *cq = element;

		o = (struct sr_ibv_ev_obj){ cq, &sr_cq_of(cq)->ev_read,
			&cq->async_events_completed, &cq->mutex, &cq->cond };
		break;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		struct ibv_srq *srq = element;

		o = (struct sr_ibv_ev_obj){ srq,
			&sr_container_of(srq, struct sr_ibv_srq, ibsrq)->ev_read,
			&srq->events_completed, &srq->mutex, &srq->cond };
		break;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		struct ibv_qp *qp = element;

		o = (struct sr_ibv_ev_obj){ qp, &sr_qp_of(qp)->ev_read,
			&qp->events_completed, &qp->mutex, &qp->cond };
		break;
	}
	default:
		break;
	}
	return o;
}

/*
 * Take back a dropped event's count from the eventfd without blocking, so
 * that poll() does not report an empty queue readable (the kernel drops
 * the event and its readiness together).  EAGAIN: a reader holds that
 * count already, and ibv_get_async_event reads past it.
 */
static void sr_ibv_ev_token_drop(struct sr_ibv_ctx *ctx)
{
	uint64_t v;
	struct iovec io = { .iov_base = &v, .iov_len = sizeof(v) };

	(void)preadv2(ctx->vctx.context.async_fd, &io, 1, -1, RWF_NOWAIT);
}

/* Drop ctx's unread events of object (ev_lock held). */
static void sr_ibv_ev_purge(struct sr_ibv_ctx *ctx, const void *object)
{
	unsigned int kept = 0;

	for (unsigned int i = 0; i < ctx->ev_count; i++) {
		const struct ibv_async_event *e =
			&ctx->ev_ring[(ctx->ev_head + i) % ctx->ev_size];

		if (sr_ibv_ev_obj(e->event_type, e->element.qp).obj == object) {
			sr_ibv_ev_token_drop(ctx);
			continue;
		}
		ctx->ev_ring[(ctx->ev_head + kept) % ctx->ev_size] = *e;
		kept++;
	}
	ctx->ev_count = kept;
}

void sr_ibv_map_del(struct sr_ibv_rt *rt, const void *lib, void *wrapper,
		    enum ibv_event_type kind)
{
	struct sr_ibv_ev_obj o = sr_ibv_ev_obj(kind, wrapper);
	struct sr_ibv_ctx *ctx = NULL;
	uint32_t n = 0;

	pthread_mutex_lock(&rt->map_lock);
	for (unsigned int i = 0; i < rt->map_n; i++) {
		if (rt->map[i].lib == lib && rt->map[i].wrapper == wrapper) {
			ctx = rt->map[i].ctx;
			rt->map[i] = rt->map[--rt->map_n];
			break;
		}
	}
	if (ctx != NULL) {
		pthread_mutex_lock(&ctx->ev_lock);
		sr_ibv_ev_purge(ctx, wrapper);
		if (o.obj != NULL)
			n = *o.read;
		pthread_mutex_unlock(&ctx->ev_lock);
	}
	pthread_mutex_unlock(&rt->map_lock);
	if (ctx == NULL || o.obj == NULL)
		return;
	/* the events read: until their acks, as rdma-core's destroy waits
	 * (the counts may wrap: compared as a difference) */
	pthread_mutex_lock(o.mutex);
	while ((int32_t)(*o.acked - n) < 0)
		pthread_cond_wait(o.cond, o.mutex);
	pthread_mutex_unlock(o.mutex);
}

void sr_ibv_ev_push(struct sr_ibv_ctx *ctx, const struct ibv_async_event *ev)
{
	uint64_t one = 1;

	pthread_mutex_lock(&ctx->ev_lock);
	if (ctx->ev_count == ctx->ev_size) {
		unsigned int size = ctx->ev_size ? ctx->ev_size * 2 : 32;
		struct ibv_async_event *r = malloc(size * sizeof(*r));

		if (r == NULL) {
			pthread_mutex_unlock(&ctx->ev_lock);
			return;          /* lost: no memory */
		}
		for (unsigned int i = 0; i < ctx->ev_count; i++)
			r[i] = ctx->ev_ring[(ctx->ev_head + i) % ctx->ev_size];
		free(ctx->ev_ring);
		ctx->ev_ring = r;
		ctx->ev_head = 0;
		ctx->ev_size = size;
	}
	ctx->ev_ring[(ctx->ev_head + ctx->ev_count) % ctx->ev_size] = *ev;
	ctx->ev_count++;
	pthread_mutex_unlock(&ctx->ev_lock);
	if (write(ctx->vctx.context.async_fd, &one, sizeof(one)) < 0) {
		/* eventfd overflow cannot happen below 2^64 - 1 events */
	}
}

void sr_ibv_async_cb(void *arg, const struct sr_async_event *ev)
{
	struct sr_ibv_rt *rt = arg;
	struct ibv_async_event out[SR_IBV_EV_HANDLES];
	struct sr_ibv_ctx *ctx[SR_IBV_EV_HANDLES];
	const void *lib = ev->qp;   /* the union's members share storage */
	unsigned int n = 0;

	if (ev->type == SR_EVENT_DEVICE_FATAL) {   /* every context's */
		sr_ibv_port_event(rt, IBV_EVENT_DEVICE_FATAL);
		return;
	}
	/* every handle of the object: an XRC target may have several */
	pthread_mutex_lock(&rt->map_lock);
	for (unsigned int i = 0; i < rt->map_n && n < SR_IBV_EV_HANDLES; i++) {
		if (rt->map[i].lib != lib)
			continue;
		ctx[n] = rt->map[i].ctx;
		out[n] = (struct ibv_async_event){
			.event_type = (enum ibv_event_type)ev->type,
		};
		switch (ev->type) {
		case SR_EVENT_CQ_ERR:
			out[n].element.cq = rt->map[i].wrapper;
			break;
		case SR_EVENT_SRQ_ERR:
		case SR_EVENT_SRQ_LIMIT_REACHED:
			out[n].element.srq = rt->map[i].wrapper;
			break;
		default:
			out[n].element.qp = rt->map[i].wrapper;
			break;
		}
		n++;
	}
	/* under map_lock: a destroy's sr_ibv_map_del then finds it queued */
	for (unsigned int i = 0; i < n; i++)
		sr_ibv_ev_push(ctx[i], &out[i]);
	pthread_mutex_unlock(&rt->map_lock);
}

int sr_ibv_async_init(struct sr_ibv_ctx *ctx)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);

	if (fd < 0)
		return -errno;
	pthread_mutex_init(&ctx->ev_lock, NULL);
	ctx->vctx.context.async_fd = fd;
	return 0;
}

void sr_ibv_async_fini(struct sr_ibv_ctx *ctx)
{
	close(ctx->vctx.context.async_fd);
	free(ctx->ev_ring);
	pthread_mutex_destroy(&ctx->ev_lock);
}

int ibv_get_async_event(struct ibv_context *context,
			struct ibv_async_event *event)
{
	struct sr_ibv_ctx *ctx;
	struct sr_ibv_ev_obj o;
	uint64_t n;

	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	ctx = sr_ctx(context);
	/*
	 * Blocks, EAGAIN or EINTR as the kernel's async fd (channel.c).  A
	 * count with no event is one a destroy dropped (sr_ibv_ev_purge): read
	 * on, so that a blocking fd still blocks until a real event.
	 */
	for (;;) {
		if (read(context->async_fd, &n, sizeof(n)) != sizeof(n))
			return -1;
		pthread_mutex_lock(&ctx->ev_lock);
		if (ctx->ev_count != 0)
			break;
		pthread_mutex_unlock(&ctx->ev_lock);
	}
	*event = ctx->ev_ring[ctx->ev_head];
	ctx->ev_head = (ctx->ev_head + 1) % ctx->ev_size;
	ctx->ev_count--;
	/* read: its object's destroy now waits for the ack */
	o = sr_ibv_ev_obj(event->event_type, event->element.qp);
	if (o.obj != NULL)
		++*o.read;
	pthread_mutex_unlock(&ctx->ev_lock);
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	struct sr_ibv_ev_obj o;

	if (event == NULL)
		return;
	o = sr_ibv_ev_obj(event->event_type, event->element.qp);
	if (o.obj == NULL)
		return;
	pthread_mutex_lock(o.mutex);
	++*o.acked;
	pthread_cond_broadcast(o.cond);
	pthread_mutex_unlock(o.mutex);
}
