/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xstats.c — the transport's counters in the pmd's stats file (xstats.h):
 * every lib counter and parse drop as they are, rxe's names mapped from
 * them, and the same per attached QP; sroce-stat reads them while traffic
 * runs.  Used by the node (node.h) and the drop-in libibverbs alike.
 */
#include <errno.h>

#include "cc/hooks.h"
#include "core/counters.h"
#include "wire/parse.h"
#include "xstats.h"
#include <string.h>

/* X(pmd device counter, transport counter): rxe's names for lib's events. */
#define SR_XSTATS_DEV_MAP(X)              \
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
#define SR_XSTATS_QP_MAP(X)               \
	X(SENT_PKTS, TX_PKTS)           \
	X(RCVD_PKTS, RX_PKTS)           \
	X(DUP_REQ, REQ_DUP)             \
	X(OUT_OF_SEQ_REQ, SEQ_ERR)      \
	X(RCVD_RNR, RNR_NAK_RCVD)       \
	X(SEND_RNR, RNR_NAK_SENT)       \
	X(RETRIES, RETRY)               \
	X(TIMEOUTS, TIMEOUT)

struct sr_xstats_map {
	uint8_t to;     /* enum sr_dev_counter / sr_qp_counter */
	uint8_t from;   /* enum sr_counter */
};

static const struct sr_xstats_map sr_xstats_dev_map[] = {
#define SR_X(t, f) { .to = SR_CTR_##t, .from = SR_CNT_##f },
	SR_XSTATS_DEV_MAP(SR_X)
#undef SR_X
};

static const struct sr_xstats_map sr_xstats_qp_map[] = {
#define SR_X(t, f) { .to = SR_QP_CTR_##t, .from = SR_CNT_##f },
	SR_XSTATS_QP_MAP(SR_X)
#undef SR_X
};

#define SR_XSTATS_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- counters ---- */

void sr_xstats_init(struct sr_xstats *xs, struct sr_pmd_dev *pmd,
		    struct sr_dev *dev)
{
	memset(xs, 0, sizeof(*xs));
	pthread_mutex_init(&xs->lock, NULL);
	xs->pmd = pmd;
	xs->dev = dev;
}

void sr_xstats_fini(struct sr_xstats *xs)
{
	if (xs->dev == NULL)
		return;
	sr_xstats_publish(xs);
	pthread_mutex_lock(&xs->lock);
	for (unsigned int i = 0; i < xs->nqps; i++)
		sr_stats_qp_put(xs->qps[i].slot);
	xs->nqps = 0;
	xs->dev = NULL;
	pthread_mutex_unlock(&xs->lock);
	pthread_mutex_destroy(&xs->lock);
}

/* Copy every counter in; the lock is held. */
static void sr_xstats_publish_locked(struct sr_xstats *xs)
{
	struct sr_stats_shm *s = sr_pmd_stats(xs->pmd);
	uint64_t c[SR_CNT_MAX], parse[SR_PARSE_MAX];
	size_t i;

	if (s == NULL || xs->dev == NULL)
		return;
	sr_dev_counters(xs->dev, c);
	sr_dev_parse_drops(xs->dev, parse);
	for (i = 0; i < SR_CNT_MAX; i++)
		sr_stats_set(&s->xport[i], c[i]);
	for (i = 0; i < SR_PARSE_MAX; i++)
		sr_stats_set(&s->parse[i], parse[i]);
	for (i = 0; i < SR_XSTATS_ARRAY_LEN(sr_xstats_dev_map); i++)
		sr_stats_set(&s->dev[sr_xstats_dev_map[i].to],
			     c[sr_xstats_dev_map[i].from]);
	sr_stats_set(&s->dev[SR_CTR_ICRC_ERR], parse[SR_PARSE_ICRC]);

	for (unsigned int q = 0; q < xs->nqps; q++) {
		struct sr_stats_qp *slot = xs->qps[q].slot;

		sr_qp_counters(xs->qps[q].qp, c);
		for (i = 0; i < SR_CNT_MAX; i++)
			sr_stats_set(&slot->xport[i], c[i]);
		for (i = 0; i < SR_XSTATS_ARRAY_LEN(sr_xstats_qp_map); i++)
			sr_stats_set(&slot->c[sr_xstats_qp_map[i].to],
				     c[sr_xstats_qp_map[i].from]);
		sr_stats_set(&slot->rate_bps, sr_qp_tx_rate(xs->qps[q].qp));
	}
}

void sr_xstats_publish(struct sr_xstats *xs)
{
	pthread_mutex_lock(&xs->lock);
	sr_xstats_publish_locked(xs);
	pthread_mutex_unlock(&xs->lock);
}

/* sroce-stat --trace asked for a QP's trace on or off: apply it. */
static void sr_xstats_trace_poll(struct sr_xstats *xs)
{
	struct sr_stats_shm *s = sr_pmd_stats(xs->pmd);
	uint32_t gen, qpn;
	bool on;

	if (s != NULL && xs->dev != NULL &&
	    sr_stats_trace_poll(s, &gen, &qpn, &on))
		sr_stats_trace_done(s, gen, sr_dev_trace_qp(xs->dev, qpn, on));
}

void sr_xstats_poll(struct sr_xstats *xs, uint64_t now)
{
	if ((int64_t)(now - __atomic_load_n(&xs->next_ns, __ATOMIC_RELAXED)) < 0 ||
	    pthread_mutex_trylock(&xs->lock) != 0)
		return;
	__atomic_store_n(&xs->next_ns, now + SR_XSTATS_PERIOD_NS,
			 __ATOMIC_RELAXED);
	sr_xstats_publish_locked(xs);
	sr_xstats_trace_poll(xs);
	pthread_mutex_unlock(&xs->lock);
}

struct sr_trace_ring *sr_xstats_trace_ring(struct sr_pmd_dev *pmd)
{
	struct sr_stats_shm *s = sr_pmd_stats(pmd);

	return s != NULL ? &s->trace.ring : NULL;
}

int sr_xstats_qp_attach(struct sr_xstats *xs, struct sr_qp *qp)
{
	struct sr_stats_shm *s = sr_pmd_stats(xs->pmd);
	struct sr_stats_qp *slot;
	int rc = 0;

	pthread_mutex_lock(&xs->lock);
	for (unsigned int i = 0; i < xs->nqps; i++)
		if (xs->qps[i].qp == qp) {
			rc = -EEXIST;
			goto out_unlock;
		}
	slot = s != NULL && xs->nqps < SR_STATS_QP_SLOTS ?
		       sr_stats_qp_get(s, sr_qp_num(qp)) : NULL;
	if (slot == NULL) {
		rc = -ENOSPC;
		goto out_unlock;
	}
	xs->qps[xs->nqps].qp = qp;
	xs->qps[xs->nqps].slot = slot;
	xs->nqps++;
out_unlock:
	pthread_mutex_unlock(&xs->lock);
	return rc;
}

void sr_xstats_qp_detach(struct sr_xstats *xs, struct sr_qp *qp)
{
	pthread_mutex_lock(&xs->lock);
	for (unsigned int i = 0; i < xs->nqps; i++) {
		if (xs->qps[i].qp != qp)
			continue;
		sr_stats_qp_put(xs->qps[i].slot);
		xs->qps[i] = xs->qps[--xs->nqps];
		break;
	}
	pthread_mutex_unlock(&xs->lock);
}
