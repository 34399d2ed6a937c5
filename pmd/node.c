/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node.c — a pmd device, an MR engine and a transport device bound into
 * one node: wiring, the engine callback, counters into the stats file,
 * address vectors, connecting a QP and waiting for completions.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "node.h"

#define SR_NODE_PUBLISH_NS  (5ull * 1000 * 1000)   /* counters every 5 ms */
#define SR_NODE_BUDGET      64
#define SR_NODE_NAP_NS      20000
#define SR_NODE_YIELD_SPINS 256      /* idle rounds between yields */

/* X(pmd device counter, transport counter): rxe's names for lib's events. */
#define SR_NODE_DEV_MAP(X)              \
	X(DUP_REQ, REQ_DUP)             \
	X(OUT_OF_SEQ_REQ, SEQ_ERR)      \
	X(RCVD_RNR, RNR_NAK_RCVD)       \
	X(SEND_RNR, RNR_NAK_SENT)       \
	X(RCVD_SEQ_ERR, SEQ_NAK_RCVD)   \
	X(ACK_DEFERRED, ACK_COALESCED)  \
	X(RETRY_EXCEEDED, RETRY_EXC)    \
	X(RNR_RETRY_EXCEEDED, RNR_RETRY_EXC) \
	X(COMP_RETRY, RETRY)            \
	X(RDMA_SENDS, TX_PKTS)          \
	X(RDMA_RECVS, RX_PKTS)          \
	X(RETRIES, RETRY)               \
	X(TIMEOUTS, TIMEOUT)

/* X(pmd per-QP counter, transport counter) */
#define SR_NODE_QP_MAP(X)               \
	X(SENT_PKTS, TX_PKTS)           \
	X(RCVD_PKTS, RX_PKTS)           \
	X(DUP_REQ, REQ_DUP)             \
	X(OUT_OF_SEQ_REQ, SEQ_ERR)      \
	X(RCVD_RNR, RNR_NAK_RCVD)       \
	X(SEND_RNR, RNR_NAK_SENT)       \
	X(RETRIES, RETRY)               \
	X(TIMEOUTS, TIMEOUT)

struct sr_node_map {
	uint8_t to;     /* enum sr_dev_counter / sr_qp_counter */
	uint8_t from;   /* enum sr_counter */
};

static const struct sr_node_map sr_node_dev_map[] = {
#define SR_X(t, f) { .to = SR_CTR_##t, .from = SR_CNT_##f },
	SR_NODE_DEV_MAP(SR_X)
#undef SR_X
};

static const struct sr_node_map sr_node_qp_map[] = {
#define SR_X(t, f) { .to = SR_QP_CTR_##t, .from = SR_CNT_##f },
	SR_NODE_QP_MAP(SR_X)
#undef SR_X
};

#define SR_NODE_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

struct sr_node_qp {
	struct sr_qp *qp;
	struct sr_stats_qp *slot;
};

struct sr_node {
	struct sr_pmd_dev *pmd;
	struct sr_mr_dev *mr;
	struct sr_dev *dev;
	bool dedicated;
	unsigned int budget;
	/* Attached QPs and the stats file's transport part: one writer. */
	pthread_mutex_t stats_lock;
	uint64_t next_publish_ns;
	unsigned int nqps;
	struct sr_node_qp qps[SR_STATS_QP_SLOTS];
};

/* ---- counters ---- */

static void sr_node_publish_locked(struct sr_node *node)
{
	struct sr_stats_shm *s = sr_pmd_stats(node->pmd);
	uint64_t c[SR_CNT_MAX], parse[SR_PARSE_MAX];
	size_t i;

	sr_dev_counters(node->dev, c);
	sr_dev_parse_drops(node->dev, parse);
	for (i = 0; i < SR_CNT_MAX; i++)
		sr_stats_set(&s->xport[i], c[i]);
	for (i = 0; i < SR_PARSE_MAX; i++)
		sr_stats_set(&s->parse[i], parse[i]);
	for (i = 0; i < SR_NODE_ARRAY_LEN(sr_node_dev_map); i++)
		sr_stats_set(&s->dev[sr_node_dev_map[i].to],
			     c[sr_node_dev_map[i].from]);
	sr_stats_set(&s->dev[SR_CTR_ICRC_ERR], parse[SR_PARSE_ICRC]);

	for (unsigned int q = 0; q < node->nqps; q++) {
		struct sr_stats_qp *slot = node->qps[q].slot;

		sr_qp_counters(node->qps[q].qp, c);
		for (i = 0; i < SR_CNT_MAX; i++)
			sr_stats_set(&slot->xport[i], c[i]);
		for (i = 0; i < SR_NODE_ARRAY_LEN(sr_node_qp_map); i++)
			sr_stats_set(&slot->c[sr_node_qp_map[i].to],
				     c[sr_node_qp_map[i].from]);
	}
}

void sr_node_stats_publish(struct sr_node *node)
{
	pthread_mutex_lock(&node->stats_lock);
	sr_node_publish_locked(node);
	pthread_mutex_unlock(&node->stats_lock);
}

int sr_node_qp_attach(struct sr_node *node, struct sr_qp *qp)
{
	struct sr_stats_qp *slot;
	int rc = 0;

	pthread_mutex_lock(&node->stats_lock);
	for (unsigned int i = 0; i < node->nqps; i++)
		if (node->qps[i].qp == qp) {
			rc = -EEXIST;
			goto out_unlock;
		}
	slot = node->nqps < SR_STATS_QP_SLOTS ?
		       sr_stats_qp_get(sr_pmd_stats(node->pmd), sr_qp_num(qp)) :
		       NULL;
	if (slot == NULL) {
		rc = -ENOSPC;
		goto out_unlock;
	}
	node->qps[node->nqps].qp = qp;
	node->qps[node->nqps].slot = slot;
	node->nqps++;
out_unlock:
	pthread_mutex_unlock(&node->stats_lock);
	return rc;
}

void sr_node_qp_detach(struct sr_node *node, struct sr_qp *qp)
{
	pthread_mutex_lock(&node->stats_lock);
	for (unsigned int i = 0; i < node->nqps; i++) {
		if (node->qps[i].qp != qp)
			continue;
		sr_stats_qp_put(node->qps[i].slot);
		node->qps[i] = node->qps[--node->nqps];
		break;
	}
	pthread_mutex_unlock(&node->stats_lock);
}

/* ---- the engine: one transport round per progress round ---- */

static int sr_node_engine_poll(void *ctx)
{
	struct sr_node *node = ctx;
	unsigned int work = sr_dev_poll(node->dev, node->budget);
	uint64_t now = sr_pmd_now_ns(node->pmd);

	if ((int64_t)(now - __atomic_load_n(&node->next_publish_ns,
					    __ATOMIC_RELAXED)) >= 0 &&
	    pthread_mutex_trylock(&node->stats_lock) == 0) {
		__atomic_store_n(&node->next_publish_ns, now + SR_NODE_PUBLISH_NS,
				 __ATOMIC_RELAXED);
		sr_node_publish_locked(node);
		pthread_mutex_unlock(&node->stats_lock);
	}
	return (int)work;
}

int sr_node_progress(struct sr_node *node)
{
	if (node->dedicated)
		return 0;
	return sr_pmd_progress(node->pmd);
}

/*
 * Waiting: progress (inline; with nap, sleep a little after an idle
 * round), else let the engine's core run.
 */
static void sr_node_idle(struct sr_node *node, bool nap)
{
	const struct timespec ts = { .tv_nsec = SR_NODE_NAP_NS };

	if (node->dedicated)
		sched_yield();
	else if (sr_pmd_progress(node->pmd) == 0 && nap)
		nanosleep(&ts, NULL);
}

void sr_node_relax(struct sr_node *node, unsigned int *idle)
{
	if (!node->dedicated && sr_pmd_progress(node->pmd) > 0) {
		*idle = 0;
		return;
	}
	if (++*idle % SR_NODE_YIELD_SPINS == 0 || node->dedicated)
		sched_yield();
}

/* ---- create / close ---- */

static int sr_node_wire(struct sr_node *node,
			const struct sr_node_params *params, char *err,
			size_t errlen)
{
	const struct sr_gid_table *gids = sr_pmd_gids(node->pmd);
	struct sr_dev_config dc = {
		.link_ops = sr_pmd_link_ops(),
		.link = sr_pmd_link(node->pmd),
		.mr = node->mr,
		.async_cb = params->async_cb,
		.async_ctx = params->async_ctx,
	};
	int rc;

	sr_pmd_mac(node->pmd, dc.mac);
	for (uint32_t i = 0; i < gids->n && i < SR_GID_TABLE_LEN; i++) {
		if (gids->entry[i].valid)
			memcpy(dc.gid[i], gids->entry[i].gid, 16);
		dc.gid_count = i + 1;
	}
	node->dev = sr_dev_create(&dc);
	if (node->dev == NULL) {
		snprintf(err, errlen, "cannot create the transport device");
		return -ENOMEM;
	}
	sr_pmd_set_rx_handler(node->pmd, sr_dev_rx, node->dev);
	rc = sr_pmd_engine_register(node->pmd, sr_node_engine_poll, node);
	if (rc) {
		snprintf(err, errlen, "cannot register the engine callback: %s",
			 strerror(-rc));
		return rc;
	}
	if (!node->dedicated)
		return 0;
	rc = sr_pmd_start(node->pmd);
	if (rc) {
		snprintf(err, errlen, "cannot start the engine on lcore %u: %s",
			 sr_pmd_config_of(node->pmd)->engine_lcore, strerror(-rc));
		return rc == -EINVAL ? -EBUSY : rc;
	}
	return 0;
}

static void sr_node_free(struct sr_node *node)
{
	if (node->pmd != NULL) {
		if (node->dedicated)
			sr_pmd_stop(node->pmd);     /* -EALREADY when not running */
		sr_pmd_engine_unregister(node->pmd, sr_node_engine_poll, node);
		sr_pmd_set_rx_handler(node->pmd, NULL, NULL);
	}
	sr_dev_destroy(node->dev);
	sr_pmd_dev_destroy(node->pmd);
	sr_mr_dev_destroy(node->mr);
	pthread_mutex_destroy(&node->stats_lock);
	free(node);
}

int sr_node_create(const struct sr_pmd_config *cfg, int lock_fd,
		   const struct sr_node_params *params, struct sr_node **out,
		   char *err, size_t errlen)
{
	static const struct sr_node_params none;
	struct sr_node *node;
	int rc;

	if (params == NULL)
		params = &none;
	node = calloc(1, sizeof(*node));
	if (node == NULL) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out_close_lock;
	}
	pthread_mutex_init(&node->stats_lock, NULL);
	node->dedicated = cfg->mode == SR_PMD_MODE_DEDICATED;
	node->budget = params->poll_budget ? params->poll_budget : SR_NODE_BUDGET;
	node->mr = sr_mr_dev_create(params->limits);
	if (node->mr == NULL) {
		rc = -errno;
		snprintf(err, errlen, "memory registration engine: %s",
			 strerror(errno));
		goto out_free;
	}
	rc = sr_pmd_dev_create(cfg, lock_fd, &node->pmd, err, errlen);
	if (rc)
		goto out_free;
	lock_fd = -1;                       /* the pmd device holds it now */
	rc = sr_node_wire(node, params, err, errlen);
	if (rc)
		goto out_free;
	*out = node;
	return 0;
out_free:
	sr_node_free(node);
out_close_lock:
	if (lock_fd >= 0)
		close(lock_fd);
	return rc;
}

int sr_node_open(const struct sr_node_params *params, struct sr_node **out)
{
	char err[SR_CONFIG_ERR_MAX] = "";
	struct sr_pmd_config *cfg;
	int lock_fd = -1, rc;

	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL) {
		fprintf(stderr, "sroce: out of memory\n");
		return -ENOMEM;
	}
	rc = sr_pmd_config_load(cfg, &lock_fd, err, sizeof(err));
	if (rc == 0)
		rc = sr_node_create(cfg, lock_fd, params, out, err, sizeof(err));
	else if (lock_fd >= 0)
		close(lock_fd);
	if (rc)
		fprintf(stderr, "sroce: %s\n", err);
	free(cfg);
	return rc;
}

int sr_node_close(struct sr_node *node)
{
	if (node == NULL)
		return 0;
	if (sr_dev_qp_count(node->dev) || sr_dev_cq_count(node->dev) ||
	    sr_dev_srq_count(node->dev) || sr_mr_dev_in_use(node->mr))
		return -EBUSY;
	if (node->dedicated)
		sr_pmd_stop(node->pmd);
	sr_node_stats_publish(node);
	sr_node_free(node);
	return 0;
}

/* ---- accessors ---- */

struct sr_dev *sr_node_dev(const struct sr_node *node)
{
	return node->dev;
}

struct sr_mr_dev *sr_node_mr(const struct sr_node *node)
{
	return node->mr;
}

struct sr_pmd_dev *sr_node_pmd(const struct sr_node *node)
{
	return node->pmd;
}

uint64_t sr_node_now_ns(const struct sr_node *node)
{
	return sr_pmd_now_ns(node->pmd);
}

int sr_node_link_wait(struct sr_node *node, uint32_t timeout_ms)
{
	return sr_pmd_link_wait(node->pmd, timeout_ms);
}

enum sr_mtu sr_node_path_mtu(const struct sr_node *node)
{
	uint32_t bytes = sr_pmd_path_mtu_of(node->pmd);
	enum sr_mtu m = SR_MTU_256;

	while (m < SR_MTU_4096 && sr_mtu_bytes(m + 1) <= bytes)
		m++;
	return m;
}

/* ---- addresses ---- */

int sr_node_gid(const struct sr_node *node, unsigned int index,
		uint8_t gid[16])
{
	struct sr_gid_entry e;
	int rc = sr_gid_query(sr_pmd_gids(node->pmd), index, &e);

	if (rc == 0)
		memcpy(gid, e.gid, 16);
	return rc;
}

int sr_node_sgid_index(const struct sr_node *node, const uint8_t dgid[16])
{
	const struct sr_gid_table *t = sr_pmd_gids(node->pmd);
	bool v4 = sr_gid_is_ipv4(dgid);
	bool link_local = dgid[0] == 0xfe && (dgid[1] & 0xc0) == 0x80;

	for (uint32_t i = 0; i < t->n; i++) {
		const uint8_t *g = t->entry[i].gid;
		bool g_ll = g[0] == 0xfe && (g[1] & 0xc0) == 0x80;

		if (!t->entry[i].valid || sr_gid_is_ipv4(g) != v4)
			continue;
		if (v4 || g_ll == link_local)
			return (int)i;
	}
	return -ENOENT;
}

/* A resolution run on the progress thread (sr_pmd_engine_call). */
struct sr_node_resolve {
	struct sr_pmd_dev *pmd;
	uint8_t ip[16];
	uint8_t mac[6];
	int rc;
	bool done;
};

static void sr_node_resolve_on_engine(void *arg)
{
	struct sr_node_resolve *r = arg;

	r->rc = sr_pmd_resolve(r->pmd, r->ip, r->mac);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
}

int sr_node_av(struct sr_node *node, const uint8_t dgid[16], struct sr_av *av,
	       uint32_t timeout_ms)
{
	uint64_t deadline = sr_node_now_ns(node) + (uint64_t)timeout_ms * 1000000;
	struct sr_node_resolve r = { .pmd = node->pmd };
	uint16_t vlan = sr_pmd_vlan(node->pmd);
	int sgid = sr_node_sgid_index(node, dgid);

	if (sgid < 0)
		return sgid;
	memcpy(r.ip, dgid, 16);
	for (;;) {
		__atomic_store_n(&r.done, false, __ATOMIC_RELAXED);
		while (sr_pmd_engine_call(node->pmd, sr_node_resolve_on_engine,
					  &r) == -ENOBUFS)
			sr_node_idle(node, true);
		/* r lives on this stack: wait for the call whatever happens. */
		while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
			sr_node_idle(node, true);
		if (r.rc != -EAGAIN)
			break;
		if (sr_node_now_ns(node) > deadline)
			return -ETIMEDOUT;
		sr_node_idle(node, true);
	}
	if (r.rc)
		return r.rc;
	*av = (struct sr_av){
		.sgid_index = (uint8_t)sgid,
		.hop_limit = 64,
		.vlan = vlan != 0,
		.vlan_tci = (uint16_t)(vlan |
			(uint16_t)sr_pmd_config_of(node->pmd)->vlan_prio << 13),
	};
	memcpy(av->dmac, r.mac, 6);
	memcpy(av->dgid, dgid, 16);
	return 0;
}

/* ---- connecting a QP ---- */

int sr_node_qp_connect(struct sr_node *node, struct sr_qp *qp,
		       uint32_t sq_psn, const struct sr_node_peer *peer,
		       const struct sr_node_conn *conn, uint32_t timeout_ms)
{
	static const struct sr_node_conn defaults;
	struct sr_qp_init_attr init;
	struct sr_qp_attr a;
	unsigned int rc_mask;
	bool rc_qp;
	int rc;

	if (conn == NULL)
		conn = &defaults;
	/*
	 * The init attributes alone: lib's struct copy of the QP attributes
	 * faults on a QP that calloc under-aligned (see the test
	 * xport_bug_qp_misaligned).
	 */
	rc = sr_qp_query(qp, NULL, &init);
	if (rc)
		return rc;
	rc_qp = init.qp_type == SR_QPT_RC;

	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = conn->access ? conn->access :
			SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE |
			SR_ACCESS_REMOTE_ATOMIC,
	};
	rc = sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_PKEY_INDEX | SR_QP_PORT |
			  SR_QP_ACCESS_FLAGS);
	if (rc)
		return rc;

	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_RTR,
		.path_mtu = conn->path_mtu ? conn->path_mtu :
					     sr_node_path_mtu(node),
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = conn->rd_atomic ? conn->rd_atomic : 8,
		.min_rnr_timer = conn->min_rnr_timer ? conn->min_rnr_timer : 12,
	};
	rc = sr_node_av(node, peer->gid, &a.av, timeout_ms);
	if (rc)
		return rc;
	rc_mask = rc_qp ? SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER : 0;
	rc = sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU |
			  SR_QP_DEST_QPN | SR_QP_RQ_PSN | rc_mask);
	if (rc)
		return rc;

	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_RTS,
		.sq_psn = sq_psn,
		.timeout = conn->timeout ? conn->timeout : 14,
		.retry_cnt = conn->retry_cnt ? conn->retry_cnt : 7,
		.rnr_retry = conn->rnr_retry ? conn->rnr_retry : 7,
		.max_rd_atomic = conn->rd_atomic ? conn->rd_atomic : 8,
	};
	rc_mask = rc_qp ? SR_QP_TIMEOUT | SR_QP_RETRY_CNT | SR_QP_RNR_RETRY |
				  SR_QP_MAX_QP_RD_ATOMIC : 0;
	return sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN | rc_mask);
}

/* ---- completions ---- */

int sr_node_cq_wait(struct sr_node *node, struct sr_cq *cq, struct sr_wc *wc,
		    int n, uint32_t timeout_ms)
{
	uint64_t deadline = sr_node_now_ns(node) + (uint64_t)timeout_ms * 1000000;
	unsigned int idle = 0;
	int got = 0;

	while (got < n) {
		int k = sr_cq_poll(cq, n - got, wc + got);

		got += k;
		if (got == n || (k == 0 && sr_node_now_ns(node) > deadline))
			break;
		if (k == 0)
			sr_node_relax(node, &idle);  /* busy poll: latency */
	}
	return got;
}
