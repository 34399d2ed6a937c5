/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loop.c — the loopback backend (loop.h): a device whose link loops every
 * frame back, and a communication manager (lib/cm) whose MADs come back
 * to itself, as a device's QP1 does for a connection to its own address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cm/cm.h"
#include "cm/cma.h"
#include "core/dev.h"
#include "loop.h"
#include "mr/mr.h"
#include "qp/qp.h"

struct nt_frame {
	struct nt_frame *next;
	uint32_t len;
	uint8_t data[];
};

struct nt_mad {
	struct nt_mad *next;
	uint8_t mad[SR_MAD_SIZE];
};

struct nt_loop {
	struct sr_mr_dev *mr;
	struct sr_dev *dev;
	pthread_mutex_t lock;
	struct nt_frame *head, *tail;
	/* the CM: its lock, its MADs on their way back to it, its consumer */
	struct sr_cm *cm;
	pthread_mutex_t cm_lock;
	struct nt_mad *mads;
	sr_ndk_cm_event_fn *cm_fn;
	void *cm_arg;
	uint8_t mac[6];
	uint8_t gid[16];
	struct sr_ndk_backend be;
};

static uint8_t *nt_tx_alloc(void *link, uint32_t len, void **cookie)
{
	struct nt_frame *f = malloc(sizeof(*f) + len);

	(void)link;
	if (f == NULL)
		return NULL;
	*cookie = f;
	return f->data;
}

static void nt_tx_submit(void *link, void *cookie, uint32_t len)
{
	struct nt_loop *l = link;
	struct nt_frame *f = cookie;

	f->len = len;
	f->next = NULL;
	pthread_mutex_lock(&l->lock);
	if (l->tail)
		l->tail->next = f;
	else
		l->head = f;
	l->tail = f;
	pthread_mutex_unlock(&l->lock);
}

static void nt_tx_abort(void *link, void *cookie)
{
	(void)link;
	free(cookie);
}

static uint64_t nt_now_ns(void *link)
{
	struct timespec ts;

	(void)link;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const struct sr_link_ops nt_link_ops = {
	.tx_alloc = nt_tx_alloc,
	.tx_submit = nt_tx_submit,
	.tx_abort = nt_tx_abort,
	.now_ns = nt_now_ns,
};

static int nt_cm_progress(struct nt_loop *l);

static int nt_progress(void *ctx)
{
	struct nt_loop *l = ctx;
	struct nt_frame *f;
	int work = 0;

	pthread_mutex_lock(&l->lock);
	f = l->head;
	l->head = l->tail = NULL;
	pthread_mutex_unlock(&l->lock);
	while (f) {
		struct nt_frame *next = f->next;

		sr_dev_rx(l->dev, f->data, f->len);
		free(f);
		f = next;
		work++;
	}
	work += nt_cm_progress(l);
	return work + (int)sr_dev_poll(l->dev, 64);
}

/* ---- the CM ---- */

/* The CM's send (its lock held): the MAD comes back on the next progress. */
static void nt_cm_send(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	struct nt_loop *l = ctx;
	struct nt_mad *m = malloc(sizeof(*m)), **pp;

	(void)to;
	if (m == NULL)
		return;      /* lost: the CM retries */
	memcpy(m->mad, mad, SR_MAD_SIZE);
	m->next = NULL;
	for (pp = &l->mads; *pp; pp = &(*pp)->next)
		;
	*pp = m;
}

static void nt_cm_event(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	struct nt_loop *l = ctx;

	if (l->cm_fn)
		l->cm_fn(l->cm_arg, id, ev);
}

/* Deliver the MADs sent so far and run the CM's timers. */
static int nt_cm_progress(struct nt_loop *l)
{
	struct sr_cm_addr from = { .pkey = 0xFFFF };
	uint64_t now = nt_now_ns(l);
	int work = 0;

	memcpy(from.gid, l->gid, 16);
	memcpy(from.lgid, l->gid, 16);
	memcpy(from.mac, l->mac, 6);
	pthread_mutex_lock(&l->cm_lock);
	while (l->mads) {
		struct nt_mad *m = l->mads;

		l->mads = m->next;
		sr_cm_input(l->cm, now, &from, m->mad, SR_MAD_SIZE);
		free(m);
		work++;
	}
	if (now >= sr_cm_next_deadline(l->cm))
		sr_cm_poll(l->cm, now);
	pthread_mutex_unlock(&l->cm_lock);
	return work;
}

static int nt_cm_attach(void *ctx, sr_ndk_cm_event_fn *fn, void *arg)
{
	struct nt_loop *l = ctx;

	pthread_mutex_lock(&l->cm_lock);
	l->cm_fn = fn;
	l->cm_arg = arg;
	pthread_mutex_unlock(&l->cm_lock);
	return 0;
}

static struct sr_cm *nt_cm_lock(void *ctx)
{
	struct nt_loop *l = ctx;

	pthread_mutex_lock(&l->cm_lock);
	return l->cm;
}

static void nt_cm_unlock(void *ctx)
{
	pthread_mutex_unlock(&((struct nt_loop *)ctx)->cm_lock);
}

static uint64_t nt_cm_now(void *ctx)
{
	return nt_now_ns(ctx);
}

static void nt_cm_flush(void *ctx)
{
	(void)ctx;
}

static int nt_route(void *ctx, const uint8_t dgid[16], struct sr_cma_route *r)
{
	struct nt_loop *l = ctx;

	/* one address: anything else does not answer ARP */
	if (memcmp(dgid, l->gid, 16) != 0)
		return -EHOSTUNREACH;
	memcpy(r->sgid, l->gid, 16);
	memcpy(r->dgid, dgid, 16);
	memcpy(r->dmac, l->mac, 6);
	r->path_mtu = SR_MTU_1024;
	return 0;
}

static int nt_qp_connect(void *ctx, struct sr_qp *qp, const struct sr_cma_qp_attr *a,
			 const struct sr_cma_route *r)
{
	struct sr_av av = { .hop_limit = 64 };

	(void)ctx;
	memcpy(av.dmac, r->dmac, 6);
	memcpy(av.dgid, r->dgid, 16);
	return sr_cma_qp_connect(qp, a, &av);
}

static const struct sr_ndk_cm_ops nt_cm_ops = {
	.attach = nt_cm_attach,
	.lock = nt_cm_lock,
	.unlock = nt_cm_unlock,
	.now = nt_cm_now,
	.flush = nt_cm_flush,
	.route = nt_route,
	.qp_connect = nt_qp_connect,
};

static int nt_close(void *ctx)
{
	struct nt_loop *l = ctx;

	if (sr_dev_qp_count(l->dev) || sr_dev_cq_count(l->dev) || sr_dev_srq_count(l->dev))
		return -EBUSY;
	nt_progress(l);
	sr_dev_destroy(l->dev);
	if (sr_mr_dev_destroy(l->mr))
		return -EBUSY;
	while (l->head) {
		struct nt_frame *f = l->head;

		l->head = f->next;
		free(f);
	}
	while (l->mads) {
		struct nt_mad *m = l->mads;

		l->mads = m->next;
		free(m);
	}
	sr_cm_destroy(l->cm);
	pthread_mutex_destroy(&l->cm_lock);
	free(l);
	return 0;
}

static const struct sr_ndk_backend_ops nt_ops = {
	.progress = nt_progress,
	.close = nt_close,
	.cm = &nt_cm_ops,
};

struct nt_loop *nt_loop_create(const struct sr_dev_limits *limits)
{
	struct nt_loop *l = calloc(1, sizeof(*l));
	struct sr_dev_config cfg = { 0 };
	struct sr_cm_cfg cc = { 0 };
	struct sockaddr_in *s4;

	if (l == NULL)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
	pthread_mutex_init(&l->cm_lock, NULL);
	l->mac[0] = 0x02;
	l->mac[5] = 0x01;
	l->gid[10] = l->gid[11] = 0xff;
	l->gid[12] = 10;
	l->gid[15] = 1;
	l->mr = sr_mr_dev_create(limits);
	if (l->mr == NULL)
		goto out_free;
	cfg.link_ops = &nt_link_ops;
	cfg.link = l;
	cfg.mr = l->mr;
	memcpy(cfg.mac, l->mac, 6);
	memcpy(cfg.gid[0], l->gid, 16);
	cfg.gid_count = 1;
	l->dev = sr_dev_create(&cfg);
	if (l->dev == NULL)
		goto out_mr;
	cc.ops.send = nt_cm_send;
	cc.ops.event = nt_cm_event;
	cc.ops.ctx = l;
	cc.ca_guid = 0x0200000000000001ull;
	cc.comm_id_seed = (uint32_t)nt_now_ns(l);
	l->cm = sr_cm_create(&cc);
	if (l->cm == NULL)
		goto out_dev;
	l->be.ops = &nt_ops;
	l->be.ctx = l;
	l->be.mr = l->mr;
	l->be.dev = l->dev;
	s4 = (struct sockaddr_in *)&l->be.addr[0];
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(0x0a000001);
	l->be.naddr = 1;
	return l;

out_dev:
	sr_dev_destroy(l->dev);
out_mr:
	sr_mr_dev_destroy(l->mr);
out_free:
	free(l);
	return NULL;
}

const struct sr_ndk_backend *nt_loop_backend(struct nt_loop *l)
{
	return &l->be;
}

struct sr_mr_dev *nt_loop_mr(struct nt_loop *l)
{
	return l->mr;
}
