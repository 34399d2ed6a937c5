/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port_event.c — events of the device's port, delivered to every open
 * context (a QP's or CQ's event goes to its creator only: async.c).
 *
 * On a host NIC (port = iface:NAME, docs/host-nic.md) the GIDs are the
 * interface's addresses and follow them: the pmd reads the change on its
 * progress thread and calls sr_ibv_gid_changed(), which updates the
 * runtime's table (what ibv_query_gid reads) and the transport's, then
 * queues IBV_EVENT_GID_CHANGE on port 1 for each context, as the kernel
 * does when an address of a RoCE device's netdev comes or goes.  Such a
 * device's helper thread runs from the first open (device.c), so the
 * events come while the consumer only waits on its async_fd.
 */
#include <string.h>

#include "shim.h"

void sr_ibv_ctx_link(struct sr_ibv_ctx *ctx)
{
	struct sr_ibv_rt *rt = ctx->rt;

	pthread_mutex_lock(&rt->map_lock);
	ctx->next = rt->ctxs;
	rt->ctxs = ctx;
	pthread_mutex_unlock(&rt->map_lock);
}

void sr_ibv_ctx_unlink(struct sr_ibv_ctx *ctx)
{
	struct sr_ibv_rt *rt = ctx->rt;

	pthread_mutex_lock(&rt->map_lock);
	for (struct sr_ibv_ctx **p = &rt->ctxs; *p != NULL; p = &(*p)->next) {
		if (*p == ctx) {
			*p = ctx->next;
			break;
		}
	}
	pthread_mutex_unlock(&rt->map_lock);
}

void sr_ibv_port_event(struct sr_ibv_rt *rt, enum ibv_event_type type)
{
	const struct ibv_async_event ev = {
		.event_type = type,
		.element.port_num = SR_IBV_PORT,
	};

	pthread_mutex_lock(&rt->map_lock);
	for (struct sr_ibv_ctx *c = rt->ctxs; c != NULL; c = c->next)
		sr_ibv_ev_push(c, &ev);
	pthread_mutex_unlock(&rt->map_lock);
}

/* The transport's entry index as the runtime's table has it. */
static void sr_ibv_dev_gid_set(struct sr_dev *dev, const struct sr_ibv_rt *rt,
			       unsigned int index)
{
	static const uint8_t zero[16];
	const struct sr_gid_entry *e = &rt->gids.entry[index];

	if (index < SR_GID_TABLE_LEN)
		sr_dev_set_gid(dev, index, e->valid ? e->gid : zero);
}

void sr_ibv_gid_changed(void *arg, unsigned int index,
			const struct sr_gid_entry *e)
{
	struct sr_ibv_rt *rt = arg;
	struct sr_gid_entry *mine;
	struct sr_dev *dev;

	if (index >= SR_GID_TABLE_MAX)
		return;
	mine = &rt->gids.entry[index];
	/* valid last: ibv_query_gid never sees a half-written GID as valid */
	mine->valid = 0;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(mine->gid, e->gid, sizeof(mine->gid));
	mine->type = e->type;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	mine->valid = e->valid;
	if (index >= rt->gids.n)
		rt->gids.n = index + 1;
	/* pairs with sr_ibv_gids_sync(): one of the two writes the entry */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	dev = __atomic_load_n(&rt->dev, __ATOMIC_ACQUIRE);
	if (dev != NULL)
		sr_ibv_dev_gid_set(dev, rt, index);
	sr_ibv_port_event(rt, IBV_EVENT_GID_CHANGE);
}

void sr_ibv_gids_sync(struct sr_ibv_rt *rt)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (unsigned int i = 0; i < rt->gids.n && i < SR_GID_TABLE_MAX; i++)
		sr_ibv_dev_gid_set(rt->dev, rt, i);
}
