/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loop.c — the loopback backend (loop.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/dev.h"
#include "loop.h"
#include "mr/mr.h"
#include "qp/qp.h"

struct nt_frame {
	struct nt_frame *next;
	uint32_t len;
	uint8_t data[];
};

struct nt_loop {
	struct sr_mr_dev *mr;
	struct sr_dev *dev;
	pthread_mutex_t lock;
	struct nt_frame *head, *tail;
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
	return work + (int)sr_dev_poll(l->dev, 64);
}

static int nt_qp_connect(void *ctx, struct sr_qp *qp, uint32_t sq_psn,
			 const struct sr_ndk_peer *peer)
{
	struct nt_loop *l = ctx;
	struct sr_qp_attr a = { 0 };
	int rc;

	a.qp_state = SR_QPS_RTR;
	a.path_mtu = SR_MTU_1024;
	memcpy(a.av.dmac, l->mac, 6);
	memcpy(a.av.dgid, peer->gid, 16);
	a.av.hop_limit = 64;
	a.dest_qp_num = peer->qpn;
	a.rq_psn = peer->psn;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	rc = sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU | SR_QP_DEST_QPN |
			  SR_QP_RQ_PSN | SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;
	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 4;
	return sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN | SR_QP_TIMEOUT |
			    SR_QP_RETRY_CNT | SR_QP_RNR_RETRY | SR_QP_MAX_QP_RD_ATOMIC);
}

static int nt_gid(void *ctx, const struct sockaddr *peer, uint8_t gid[16])
{
	(void)peer;
	memcpy(gid, ((struct nt_loop *)ctx)->gid, 16);
	return 0;
}

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
	free(l);
	return 0;
}

static const struct sr_ndk_backend_ops nt_ops = {
	.progress = nt_progress,
	.qp_connect = nt_qp_connect,
	.gid = nt_gid,
	.close = nt_close,
};

struct nt_loop *nt_loop_create(const struct sr_dev_limits *limits, const char *run_dir)
{
	struct nt_loop *l = calloc(1, sizeof(*l));
	struct sr_dev_config cfg = { 0 };
	struct sockaddr_in *s4;

	if (l == NULL)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
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
	l->be.ops = &nt_ops;
	l->be.ctx = l;
	l->be.mr = l->mr;
	l->be.dev = l->dev;
	l->be.run_dir = run_dir;
	s4 = (struct sockaddr_in *)&l->be.addr[0];
	s4->sin_family = AF_INET;
	s4->sin_addr.s_addr = htonl(0x0a000001);
	l->be.naddr = 1;
	return l;

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
