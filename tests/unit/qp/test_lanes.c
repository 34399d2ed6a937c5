/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_lanes.c — a device whose engine runs on two lanes at once, each
 * under its own lock (core/dev.h), and what lanes share: one send CQ, one
 * receive CQ and one SRQ fed and drained by QPs of both lanes, atomics of
 * QPs of both lanes on one word, a multicast datagram fanned out to QPs of
 * both lanes (every lane's lock, taken in the middle of a burst).
 *
 * Two devices, each with two lane threads, joined by a threaded wire of
 * their own here: a frame goes to the peer's queue of the lane that owns
 * its destination QP (as the pmd steers, pmd/rxtx.c), one in eight to the
 * other lane's (as the pmd's lane 0 delivers frames looped back to its own
 * MAC), or is lost.  Each
 * lane thread takes its queue's frames (sr_dev_rx_burst) and runs its
 * shard (sr_dev_poll_shard); the test's thread posts and polls, as a
 * consumer does.  Every payload and every count is checked.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/dev.h"
#include "mr/mr.h"
#include "qp/cq.h"
#include "qp/mcast.h"
#include "qp/qp.h"
#include "qp/srq.h"
#include "sr_check.h"
#include "wire/parse.h"

#define LANES     2
#define NQP       8           /* RC QP pairs, both lanes */
#define NUD       4           /* UD QPs of node 1 in a group, both lanes */
#define QCAP      256         /* frames waiting per lane */
#define SLOT      1536        /* MTU 1024 frames */
#define RSLOT     2048        /* receive buffer slots */
#define NRECV     128
#define BUFLEN    (1u << 20)

struct lq {
	pthread_mutex_t m;
	uint32_t head, n;
	uint32_t len[QCAP];
	uint8_t data[QCAP][SLOT];
};

struct lnet;

struct lnode {
	struct lnet *net;
	int id;
	struct sr_mr_dev *mrd;
	struct sr_dev *dev;
	struct sr_pd *pd;
	struct sr_cq *scq, *rcq;
	struct sr_srq *srq;
	struct sr_qp *qp[NQP];
	struct sr_qp *ud[NUD];
	uint8_t *buf;
	struct sr_mr *mr;
	uint8_t mac[6], gid[16];
	struct lq q[LANES];
	atomic_uint events[32];
};

struct lnet {
	struct lnode n[2];
	atomic_bool stop;
	atomic_uint loss_ppm;
	atomic_ulong lost;
	pthread_t th[2][LANES];
};

struct lane_arg {
	struct lnode *node;
	unsigned int lane;
};

/* ---- the wire ---- */

static uint8_t *l_tx_alloc(void *link, uint32_t len, void **cookie)
{
	uint8_t *b = len <= SLOT ? malloc(SLOT) : NULL;

	(void)link;
	*cookie = b;
	return b;
}

static void l_tx_abort(void *link, void *cookie)
{
	(void)link;
	free(cookie);
}

static void l_tx_submit(void *link, void *cookie, uint32_t len)
{
	static __thread unsigned int seed;
	struct lnode *from = link;
	struct lnode *to = &from->net->n[1 - from->id];
	uint8_t *frame = cookie;
	struct sr_pkt pkt;
	unsigned int lane;
	struct lq *q;

	if (seed == 0)
		seed = (unsigned int)(uintptr_t)&seed | 1u;
	ck_assert_int_eq(sr_parse_eth(frame, len, 0, &pkt), SR_PARSE_OK);
	lane = sr_dev_qpn_shard(sr_bth_dqpn(sr_pkt_bth(&pkt)), LANES);
	if (rand_r(&seed) % 8 == 0)      /* another lane's thread delivers it */
		lane = (lane + 1) % LANES;
	q = &to->q[lane];
	pthread_mutex_lock(&q->m);
	if ((uint32_t)rand_r(&seed) % 1000000u <
	    atomic_load(&from->net->loss_ppm) || q->n == QCAP) {
		atomic_fetch_add(&from->net->lost, 1);
	} else {
		uint32_t i = (q->head + q->n++) % QCAP;

		memcpy(q->data[i], frame, len);
		q->len[i] = len;
	}
	pthread_mutex_unlock(&q->m);
	free(cookie);
}

static uint64_t l_now(void *link)
{
	struct timespec ts;

	(void)link;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct sr_link_ops l_ops = {
	.tx_alloc = l_tx_alloc,
	.tx_submit = l_tx_submit,
	.tx_abort = l_tx_abort,
	.now_ns = l_now,
};

/* A lane: its frames, then its shard of the QPs. */
static void *lane_main(void *arg)
{
	static __thread uint8_t frames[32][SLOT];
	struct lane_arg *a = arg;
	struct lq *q = &a->node->q[a->lane];

	while (!atomic_load(&a->node->net->stop)) {
		struct sr_link_frame f[32];
		unsigned int n = 0, work;

		pthread_mutex_lock(&q->m);
		while (q->n > 0 && n < 32) {
			memcpy(frames[n], q->data[q->head], q->len[q->head]);
			f[n] = (struct sr_link_frame){ frames[n], q->len[q->head] };
			q->head = (q->head + 1) % QCAP;
			q->n--;
			n++;
		}
		pthread_mutex_unlock(&q->m);
		if (n > 0)
			sr_dev_rx_burst(a->node->dev, f, n);
		work = sr_dev_poll_shard(a->node->dev, 32, a->lane, LANES);
		if (n == 0 && work == 0)
			sched_yield();
	}
	return NULL;
}

/* ---- set-up ---- */

static void l_async(void *ctx, const struct sr_async_event *ev)
{
	struct lnode *n = ctx;

	if ((unsigned int)ev->type < 32)
		atomic_fetch_add(&n->events[ev->type], 1);
}

static struct sr_av av_to(const struct lnet *net, int to)
{
	struct sr_av av = { .hop_limit = 64 };

	memcpy(av.dmac, net->n[to].mac, 6);
	memcpy(av.dgid, net->n[to].gid, 16);
	return av;
}

static void node_init(struct lnet *net, int i)
{
	struct lnode *n = &net->n[i];
	struct sr_dev_config cfg = { 0 };
	struct sr_srq_attr sa = { .max_wr = NRECV, .max_sge = 1 };

	n->net = net;
	n->id = i;
	n->mac[0] = 0x02;
	n->mac[5] = (uint8_t)(i + 1);
	n->gid[10] = n->gid[11] = 0xff;
	n->gid[12] = 10;
	n->gid[15] = (uint8_t)(i + 1);
	for (int k = 0; k < LANES; k++)
		pthread_mutex_init(&n->q[k].m, NULL);
	n->mrd = sr_mr_dev_create(NULL);
	ck_assert_ptr_nonnull(n->mrd);
	cfg.link_ops = &l_ops;
	cfg.link = n;
	cfg.mr = n->mrd;
	memcpy(cfg.mac, n->mac, 6);
	memcpy(cfg.gid[0], n->gid, 16);
	cfg.gid_count = 1;
	cfg.async_cb = l_async;
	cfg.async_ctx = n;
	cfg.lanes = LANES;
	cfg.sched_sweep_ns = UINT64_MAX;   /* a lost kick hangs the test */
	n->dev = sr_dev_create(&cfg);
	ck_assert_ptr_nonnull(n->dev);
	n->pd = sr_pd_alloc(n->mrd);
	n->buf = aligned_alloc(4096, BUFLEN);
	ck_assert_ptr_nonnull(n->buf);
	memset(n->buf, 0, BUFLEN);
	n->mr = sr_mr_reg_virt(n->pd, n->buf, BUFLEN,
			       (uint64_t)(uintptr_t)n->buf,
			       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
			       SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC);
	ck_assert_ptr_nonnull(n->mr);
	n->scq = sr_cq_create(n->dev, 4096, NULL, NULL);
	n->rcq = sr_cq_create(n->dev, 4096, NULL, NULL);
	n->srq = sr_srq_create(n->dev, n->pd, &sa);
	ck_assert_ptr_nonnull(n->scq);
	ck_assert_ptr_nonnull(n->rcq);
	ck_assert_ptr_nonnull(n->srq);
	for (int k = 0; k < NQP; k++) {
		struct sr_qp_init_attr init = {
			.send_cq = n->scq, .recv_cq = n->rcq, .srq = n->srq,
			.pd = n->pd, .qp_type = SR_QPT_RC,
			.cap = { .max_send_wr = 64, .max_send_sge = 1 },
		};

		n->qp[k] = sr_qp_create(n->dev, &init);
		ck_assert_ptr_nonnull(n->qp[k]);
	}
}

static void rc_connect(struct lnet *net, int i, int k)
{
	struct sr_qp *qp = net->n[i].qp[k];
	struct sr_qp_attr a = { .qp_state = SR_QPS_INIT, .port_num = 1 };

	a.qp_access_flags = SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE |
			    SR_ACCESS_REMOTE_ATOMIC;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_PKEY_INDEX |
				      SR_QP_PORT | SR_QP_ACCESS_FLAGS), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTR;
	a.path_mtu = SR_MTU_1024;
	a.av = av_to(net, 1 - i);
	a.dest_qp_num = sr_qp_num(net->n[1 - i].qp[k]);
	a.rq_psn = 1000u * (unsigned int)k;
	a.max_dest_rd_atomic = 8;
	a.min_rnr_timer = 1;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_AV |
				      SR_QP_PATH_MTU | SR_QP_DEST_QPN |
				      SR_QP_RQ_PSN | SR_QP_MAX_DEST_RD_ATOMIC |
				      SR_QP_MIN_RNR_TIMER), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTS;
	a.sq_psn = 1000u * (unsigned int)k;
	a.timeout = 12;             /* 16 ms: losses recover quickly, and 8 in
				     * a row need 128 ms of a starved lane */
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 8;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN |
				      SR_QP_TIMEOUT | SR_QP_RETRY_CNT |
				      SR_QP_RNR_RETRY |
				      SR_QP_MAX_QP_RD_ATOMIC), 0);
}

static void net_start(struct lnet *net, uint32_t loss_ppm,
		      struct lane_arg args[2][LANES])
{
	unsigned int lane_qps[LANES] = { 0 };

	memset(net, 0, sizeof(*net));
	atomic_store(&net->loss_ppm, loss_ppm);
	node_init(net, 0);
	node_init(net, 1);
	for (int k = 0; k < NQP; k++) {
		rc_connect(net, 0, k);
		rc_connect(net, 1, k);
		lane_qps[sr_dev_qpn_shard(sr_qp_num(net->n[0].qp[k]), LANES)]++;
	}
	for (int l = 0; l < LANES; l++)      /* the QPs span the lanes */
		ck_assert_uint_ge(lane_qps[l], 2);
	for (int i = 0; i < 2; i++)
		for (unsigned int l = 0; l < LANES; l++) {
			args[i][l] = (struct lane_arg){ &net->n[i], l };
			ck_assert_int_eq(pthread_create(&net->th[i][l], NULL,
							lane_main, &args[i][l]), 0);
		}
}

static void net_halt(struct lnet *net)
{
	if (atomic_exchange(&net->stop, true))
		return;
	for (int i = 0; i < 2; i++)
		for (int l = 0; l < LANES; l++)
			pthread_join(net->th[i][l], NULL);
}

/* The device's count of c is the sum of its QPs' (lanes count their own). */
static void check_counts_add_up(struct lnode *n, enum sr_counter c)
{
	uint64_t dev[SR_CNT_MAX], qp[SR_CNT_MAX], sum = 0;

	for (int k = 0; k < NQP; k++) {
		sr_qp_counters(n->qp[k], qp);
		sum += qp[c];
	}
	sr_dev_counters(n->dev, dev);
	ck_assert_uint_gt(sum, 0);
	ck_assert_uint_eq(dev[c], sum);
}

static void net_stop(struct lnet *net)
{
	net_halt(net);
	for (int i = 0; i < 2; i++) {
		struct lnode *n = &net->n[i];

		for (int k = 0; k < NQP; k++)
			ck_assert_int_eq(sr_qp_destroy(n->qp[k]), 0);
		for (int k = 0; k < NUD; k++)
			if (n->ud[k] != NULL)
				ck_assert_int_eq(sr_qp_destroy(n->ud[k]), 0);
		ck_assert_int_eq(sr_srq_destroy(n->srq), 0);
		ck_assert_int_eq(sr_cq_destroy(n->scq), 0);
		ck_assert_int_eq(sr_cq_destroy(n->rcq), 0);
		ck_assert_int_eq(sr_mr_dereg(n->mr), 0);
		ck_assert_int_eq(sr_pd_dealloc(n->pd), 0);
		ck_assert_int_eq(sr_mr_dev_destroy(n->mrd), 0);
		sr_dev_destroy(n->dev);
		free(n->buf);
	}
}

static void post_srq(struct lnode *n, uint32_t slot)
{
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)(n->buf + (size_t)slot * RSLOT),
		.length = RSLOT, .lkey = sr_mr_lkey(n->mr),
	};
	struct sr_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	const struct sr_recv_wr *bad;

	ck_assert_int_eq(sr_srq_post_recv(n->srq, &wr, &bad), 0);
}

static int qp_index(const struct lnode *n, uint32_t qpn)
{
	for (int k = 0; k < NQP; k++)
		if (sr_qp_num(n->qp[k]) == qpn)
			return k;
	return -1;
}

static uint8_t pattern(int k, uint32_t seq, uint32_t i)
{
	return (uint8_t)(k * 31 + seq * 7 + i);
}

static uint32_t msg_len(int k, uint32_t seq)
{
	return 16 + (seq * 37u + (uint32_t)k * 101u) % 1900u;
}

/*
 * Every QP of both lanes SENDs into one SRQ through one receive CQ, with
 * completions on one send CQ, over a lossy wire: each message arrives
 * whole and in its QP's order, each send completes in order, no SRQ WQE
 * is taken twice (a taken slot is reposted only after its completion).
 */
START_TEST(test_lanes_share_cq_srq)
{
	enum { PER_QP = 3000, OUTSTANDING = 16 };
	struct lane_arg args[2][LANES];
	static struct lnet net;
	struct lnode *a, *b;
	uint32_t posted[NQP] = { 0 }, sdone[NQP] = { 0 }, rdone[NQP] = { 0 };
	uint32_t total_s = 0, total_r = 0;
	uint8_t *src;

	net_start(&net, 5000, args);
	a = &net.n[0];
	b = &net.n[1];
	src = a->buf + (size_t)NRECV * RSLOT;
	for (uint32_t s = 0; s < NRECV; s++)
		post_srq(b, s);
	while (total_s < NQP * PER_QP || total_r < NQP * PER_QP) {
		struct sr_wc wc[32];
		int n;

		for (int k = 0; k < NQP; k++) {
			uint8_t *p = src + (size_t)k * OUTSTANDING * RSLOT;

			while (posted[k] < PER_QP &&
			       posted[k] - sdone[k] < OUTSTANDING) {
				uint32_t seq = posted[k], len = msg_len(k, seq);
				uint8_t *m = p + (seq % OUTSTANDING) * RSLOT;
				struct sr_sge sge = {
					.addr = (uint64_t)(uintptr_t)m,
					.length = len, .lkey = sr_mr_lkey(a->mr),
				};
				struct sr_send_wr wr = {
					.wr_id = (uint64_t)k << 32 | seq,
					.sg_list = &sge, .num_sge = 1,
					.opcode = SR_WR_SEND,
					.send_flags = SR_SEND_SIGNALED,
				};
				const struct sr_send_wr *bad;

				for (uint32_t i = 0; i < len; i++)
					m[i] = pattern(k, seq, i);
				ck_assert_int_eq(sr_qp_post_send(a->qp[k], &wr,
								 &bad), 0);
				posted[k]++;
			}
		}
		n = sr_cq_poll(a->scq, 32, wc);
		for (int i = 0; i < n; i++, total_s++) {
			int k = (int)(wc[i].wr_id >> 32);

			ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
			ck_assert_int_eq(qp_index(a, wc[i].qp_num), k);
			ck_assert_uint_eq((uint32_t)wc[i].wr_id, sdone[k]);
			sdone[k]++;
		}
		n = sr_cq_poll(b->rcq, 32, wc);
		for (int i = 0; i < n; i++, total_r++) {
			int k = qp_index(b, wc[i].qp_num);
			uint32_t slot = (uint32_t)wc[i].wr_id, seq;
			const uint8_t *m = b->buf + (size_t)slot * RSLOT;

			ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
			ck_assert_int_ge(k, 0);
			ck_assert_uint_lt(slot, NRECV);
			seq = rdone[k]++;
			ck_assert_uint_eq(wc[i].byte_len, msg_len(k, seq));
			for (uint32_t j = 0; j < wc[i].byte_len; j++)
				if (m[j] != pattern(k, seq, j))
					ck_abort_msg("qp %d msg %u byte %u", k,
						     seq, j);
			memset(b->buf + (size_t)slot * RSLOT, 0xee, RSLOT);
			post_srq(b, slot);
		}
		if (n == 0)
			sched_yield();
	}
	ck_assert_uint_gt(atomic_load(&net.lost), 0);   /* it was lossy */
	ck_assert_uint_eq(atomic_load(&a->events[SR_EVENT_CQ_ERR]), 0);
	net_halt(&net);
	for (int i = 0; i < 2; i++) {
		check_counts_add_up(&net.n[i], SR_CNT_RX_PKTS);
		check_counts_add_up(&net.n[i], SR_CNT_TX_PKTS);
	}
	net_stop(&net);
}
END_TEST

/*
 * FETCH_AND_ADDs of QPs of both lanes on one word of the responder: the
 * sum is exact and every requester saw a different old value.
 */
START_TEST(test_lanes_atomics_one_word)
{
	enum { PER_QP = 200 };
	struct lane_arg args[2][LANES];
	static struct lnet net;
	static uint8_t seen[NQP * PER_QP];
	struct lnode *a, *b;
	uint32_t posted[NQP] = { 0 }, cdone[NQP] = { 0 }, done = 0;
	uint64_t *word;

	net_start(&net, 2000, args);
	a = &net.n[0];
	b = &net.n[1];
	word = (uint64_t *)(void *)b->buf;
	memset(seen, 0, sizeof(seen));
	while (done < NQP * PER_QP) {
		struct sr_wc wc[32];
		int n;

		for (int k = 0; k < NQP; k++) {
			while (posted[k] < PER_QP && posted[k] - cdone[k] < 8) {
				uint32_t i = (uint32_t)k * PER_QP + posted[k];
				struct sr_sge sge = {
					.addr = (uint64_t)(uintptr_t)(a->buf + 8 * i),
					.length = 8, .lkey = sr_mr_lkey(a->mr),
				};
				struct sr_send_wr wr = {
					.wr_id = i, .sg_list = &sge, .num_sge = 1,
					.opcode = SR_WR_ATOMIC_FETCH_AND_ADD,
					.send_flags = SR_SEND_SIGNALED,
				};
				const struct sr_send_wr *bad;

				wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)word;
				wr.wr.atomic.rkey = sr_mr_rkey(b->mr);
				wr.wr.atomic.compare_add = 1;
				ck_assert_int_eq(sr_qp_post_send(a->qp[k], &wr,
								 &bad), 0);
				posted[k]++;
			}
		}
		n = sr_cq_poll(a->scq, 32, wc);
		for (int i = 0; i < n; i++, done++) {
			uint64_t old;
			int k;

			ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
			memcpy(&old, a->buf + 8 * wc[i].wr_id, 8);
			ck_assert_uint_lt(old, NQP * PER_QP);
			ck_assert_int_eq(seen[old], 0);
			seen[old] = 1;
			k = (int)(wc[i].wr_id / PER_QP);
			ck_assert_int_eq(qp_index(a, wc[i].qp_num), k);
			cdone[k]++;
		}
		if (n == 0)
			sched_yield();
	}
	ck_assert_uint_eq(__atomic_load_n(word, __ATOMIC_SEQ_CST),
			  NQP * PER_QP);
	net_stop(&net);
}
END_TEST

#define MC_N 60                 /* datagrams to the group */

/*
 * Poll node b's receive CQ until *total reaches want: each completion is a
 * datagram to one member, once each (the wire here may reorder them).
 */
static void mcast_take(struct lnode *b, bool once[NUD][MC_N],
		       unsigned int got[NUD], unsigned int *total,
		       unsigned int want)
{
	while (*total < want) {
		struct sr_wc r[16];
		int n = sr_cq_poll(b->rcq, 16, r);

		for (int i = 0; i < n; i++, (*total)++) {
			int k = -1;

			for (int j = 0; j < NUD; j++)
				if (sr_qp_num(b->ud[j]) == r[i].qp_num)
					k = j;
			ck_assert_int_ge(k, 0);
			ck_assert_int_eq(r[i].status, SR_WC_SUCCESS);
			ck_assert_uint_lt(r[i].imm_data, MC_N);
			ck_assert(!once[k][r[i].imm_data]);
			once[k][r[i].imm_data] = true;
			got[k]++;
		}
		if (n == 0)
			sched_yield();
	}
}

/*
 * A datagram to a group with members on both lanes: each member gets
 * every one, once (the fan-out takes every lane's lock).  Not in order:
 * the wire here hands some frames to the other lane's thread.
 */
START_TEST(test_lanes_multicast_fan_out)
{
	struct lane_arg args[2][LANES];
	static struct lnet net;
	struct lnode *a, *b;
	uint8_t group[16] = { [10] = 0xff, [11] = 0xff, [12] = 239, [13] = 1,
			      [15] = 7 };
	unsigned int got[NUD] = { 0 }, total = 0, lanes[LANES] = { 0 };
	bool once[NUD][MC_N];
	struct sr_qp *sender;
	struct sr_qp_init_attr init = { 0 };

	memset(once, 0, sizeof(once));
	net_start(&net, 0, args);
	a = &net.n[0];
	b = &net.n[1];
	init.pd = a->pd;
	init.qp_type = SR_QPT_UD;
	init.cap.max_send_wr = 64;
	init.cap.max_recv_wr = 64;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	for (int k = 0; k <= NUD; k++) {
		struct lnode *n = k < NUD ? b : a;
		struct sr_qp_attr at = { .qp_state = SR_QPS_INIT,
					 .port_num = 1, .qkey = 0x1234 };
		struct sr_qp *qp;

		init.pd = n->pd;
		init.send_cq = n->scq;
		init.recv_cq = n->rcq;
		qp = sr_qp_create(n->dev, &init);
		ck_assert_ptr_nonnull(qp);
		ck_assert_int_eq(sr_qp_modify(qp, &at, SR_QP_STATE |
					      SR_QP_PKEY_INDEX | SR_QP_PORT |
					      SR_QP_QKEY), 0);
		at.qp_state = SR_QPS_RTR;
		ck_assert_int_eq(sr_qp_modify(qp, &at, SR_QP_STATE), 0);
		at.qp_state = SR_QPS_RTS;
		ck_assert_int_eq(sr_qp_modify(qp, &at, SR_QP_STATE |
					      SR_QP_SQ_PSN), 0);
		if (k == NUD) {
			a->ud[0] = sender = qp;
			break;
		}
		b->ud[k] = qp;
		lanes[sr_dev_qpn_shard(sr_qp_num(qp), LANES)]++;
		ck_assert_int_ge(sr_mcast_attach(qp, group), 0);
		for (uint32_t r = 0; r < 64; r++) {
			struct sr_sge sge = {
				.addr = (uint64_t)(uintptr_t)(b->buf +
					((size_t)k * 64 + r) * 256),
				.length = 256, .lkey = sr_mr_lkey(b->mr),
			};
			struct sr_recv_wr wr = { .wr_id = r, .sg_list = &sge,
						 .num_sge = 1 };
			const struct sr_recv_wr *bad;

			ck_assert_int_eq(sr_qp_post_recv(qp, &wr, &bad), 0);
		}
	}
	for (int l = 0; l < LANES; l++)
		ck_assert_uint_ge(lanes[l], 1);
	for (uint32_t s = 0; s < MC_N; s++) {
		struct sr_av av = av_to(&net, 1);
		struct sr_sge sge = {
			.addr = (uint64_t)(uintptr_t)(a->buf + s), .length = 100,
			.lkey = sr_mr_lkey(a->mr),
		};
		struct sr_send_wr wr = {
			.wr_id = s, .sg_list = &sge, .num_sge = 1,
			.opcode = SR_WR_SEND_WITH_IMM, .imm_data = s,
			.send_flags = SR_SEND_SIGNALED,
		};
		const struct sr_send_wr *bad;
		struct sr_wc wc;

		memcpy(av.dgid, group, 16);
		sr_mcast_mac(group, av.dmac);
		wr.wr.ud.av = &av;
		wr.wr.ud.remote_qpn = SR_MCAST_QPN;
		wr.wr.ud.remote_qkey = 0x1234;
		ck_assert_int_eq(sr_qp_post_send(sender, &wr, &bad), 0);
		while (sr_cq_poll(a->scq, 1, &wc) == 0)
			sched_yield();
		ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
		/* at most a few in flight: the receive queues keep up */
		mcast_take(b, once, got, &total,
			   s + 1 > 4 ? (s + 1 - 4) * NUD : 0);
	}
	mcast_take(b, once, got, &total, MC_N * NUD);
	for (int k = 0; k < NUD; k++)
		ck_assert_uint_eq(got[k], MC_N);
	net_stop(&net);
}
END_TEST

static Suite *lanes_suite(void)
{
	Suite *s = suite_create("lanes");
	TCase *tc = tcase_create("lanes");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_lanes_share_cq_srq);
	tcase_add_test(tc, test_lanes_atomics_one_word);
	tcase_add_test(tc, test_lanes_multicast_fan_out);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(lanes_suite)
