/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dev_priv.h — the device's insides, for lib/core, lib/qp, lib/transport.
 */
#ifndef SR_CORE_DEV_PRIV_H
#define SR_CORE_DEV_PRIV_H

#include <stdint.h>

#include "cc/dcqcn.h"
#include "core/dev.h"
#include "core/lock.h"
#include "core/sched.h"
#include "qp/mcast.h"

struct sr_qp;
struct sr_pkt;
struct sr_mcast_grp;

struct sr_dev {
	const struct sr_link_ops *ops;
	void *link;
	struct sr_mr_dev *mr;
	uint8_t mac[6];
	uint16_t pkey;
	uint8_t gid[SR_GID_TABLE_LEN][16];
	unsigned int gid_count;
	sr_async_fn async_cb;
	void *async_ctx;
	sr_dev_gsi_fn *gsi_rx;         /* QP1's owner, or NULL */
	void *gsi_ctx;

	struct sr_lock lock;           /* slow path and engine runs (lock.h) */
	struct sr_qp *qps[SR_MAX_QP];  /* by QPN - qpn_base */
	uint32_t qpn_base;             /* cfg.qpn_base, or SR_QPN_BASE */
	bool fatal;                    /* sr_dev_fatal() ran */
	int (*peer_cb)(void *ctx, uint32_t qpn, const uint8_t dgid[16],
		       uint32_t dqpn, bool on);
	void *peer_ctx;
	struct sr_srq *srqs[SR_MAX_SRQ]; /* by SRQ number - SR_SRQN_BASE */
	struct sr_mcast_grp *mcast[SR_MAX_MCAST_GRP]; /* UD multicast groups (qp/mcast.c) */
	unsigned int nqp, ncq, nsrq, nxrcd;
	uint32_t next_srqn;
	unsigned int max_qp;           /* cfg.max_qp, or SR_MAX_QP */
	uint32_t window;               /* cfg.window, or SR_MAX_UNACKED */
	uint32_t tx_ref_min;           /* cfg.tx_ref_min; 0 when the link
					* has no tx_alloc_ref */
	uint32_t next_qpn;
	uint16_t ip_id;
	uint8_t ecn;                   /* sr_dev_config.ecn */
	bool cc_on;                    /* sr_dev_config.cc given */
	struct sr_dcqcn_params cc;     /* its copy */
	uint64_t line_bps;
	bool line_paced;               /* sr_dev_config.line_paced */
	struct sr_trace_ring *trace;   /* sr_dev_config.trace */

	/* The engine's schedule (sched.h): kicks from any thread, the rest
	 * under lock, one schedule per lane. */
	_Atomic uint64_t kick[SR_SCHED_WORDS];
	_Atomic uint64_t kick_sum[SR_SCHED_SUM_WORDS];  /* words with kicks */
	uint8_t sched_in[SR_MAX_QP];   /* on its shard's ready list */
	struct sr_sched_shard *sched[SR_SCHED_SHARDS];
	uint64_t sched_sweep_ns;
	bool tx_blocked;               /* the link refused a frame this round */

	sr_counter_t cnt[SR_CNT_MAX];
	sr_counter_t parse_drop[SR_PARSE_MAX];
};

#define SR_QPN_BASE 2u
#define SR_SRQN_BASE 1u        /* SRQ numbers SR_SRQN_BASE .. + SR_MAX_SRQ - 1 */
#define SR_QPN_MAX  0xffffffu  /* QPNs are 24 bits */

static inline uint64_t sr_dev_now(struct sr_dev *dev)
{
	return dev->ops->now_ns(dev->link);
}

static inline void sr_dev_event(struct sr_dev *dev, enum sr_event_type t,
				void *obj)
{
	struct sr_async_event ev = { .type = t, .qp = obj };

	if (dev->async_cb != NULL)
		dev->async_cb(dev->async_ctx, &ev);
}

static inline void sr_dev_count(struct sr_dev *dev, enum sr_counter c,
				uint64_t n)
{
	sr_counter_add(&dev->cnt[c], n);
}

struct sr_qp *sr_dev_qp_lookup(struct sr_dev *dev, uint32_t qpn);
/* A received packet for one QP: the checks of its type, P_Key and path,
 * then its responder or completer.  Caller holds dev->lock. */
void sr_dev_rx_qp(struct sr_dev *dev, struct sr_qp *qp,
		  const struct sr_pkt *pkt);
/* The SRQ of a number (an XRCETH's), or NULL.  Caller holds dev->lock. */
struct sr_srq *sr_dev_srq_lookup(struct sr_dev *dev, uint32_t srqn);

#endif /* SR_CORE_DEV_PRIV_H */
