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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
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

void sr_ibv_map_del(struct sr_ibv_rt *rt, const void *lib,
		    const void *wrapper)
{
	pthread_mutex_lock(&rt->map_lock);
	for (unsigned int i = 0; i < rt->map_n; i++) {
		if (rt->map[i].lib == lib && rt->map[i].wrapper == wrapper) {
			rt->map[i] = rt->map[--rt->map_n];
			break;
		}
	}
	pthread_mutex_unlock(&rt->map_lock);
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
	pthread_mutex_unlock(&rt->map_lock);
	for (unsigned int i = 0; i < n; i++)
		sr_ibv_ev_push(ctx[i], &out[i]);
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
	uint64_t n;

	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	ctx = sr_ctx(context);
	/* blocks, EAGAIN or EINTR as the kernel's async fd (channel.c) */
	if (read(context->async_fd, &n, sizeof(n)) != sizeof(n))
		return -1;
	pthread_mutex_lock(&ctx->ev_lock);
	if (ctx->ev_count == 0) {
		pthread_mutex_unlock(&ctx->ev_lock);
		errno = EAGAIN;
		return -1;
	}
	*event = ctx->ev_ring[ctx->ev_head];
	ctx->ev_head = (ctx->ev_head + 1) % ctx->ev_size;
	ctx->ev_count--;
	pthread_mutex_unlock(&ctx->ev_lock);
	return 0;
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	pthread_mutex_t *mutex = NULL;
	uint32_t *done = NULL;

	if (event == NULL)
		return;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		if (event->element.cq) {
			struct ibv_cq *cq = event->element.cq;

			mutex = &cq->mutex;
			done = &cq->async_events_completed;
		}
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		if (event->element.srq) {
			mutex = &event->element.srq->mutex;
			done = &event->element.srq->events_completed;
		}
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		if (event->element.qp) {
			mutex = &event->element.qp->mutex;
			done = &event->element.qp->events_completed;
		}
		break;
	default:
		break;
	}
	if (mutex) {
		pthread_mutex_lock(mutex);
		++*done;
		pthread_mutex_unlock(mutex);
	}
}
