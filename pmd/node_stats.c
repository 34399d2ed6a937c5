/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node_stats.c — the transport's counters in the pmd's stats file: every
 * lib counter and parse drop as they are, rxe's names mapped from them,
 * and the same per attached QP; sroce-stat reads them while traffic runs.
 */
#include <errno.h>

#include "core/counters.h"
#include "node_priv.h"
#include "wire/parse.h"


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

/* ---- counters ---- */

void sr_node_publish_locked(struct sr_node *node)
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
