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

/*
 * One lane's share of the device: its lock, and what its engine writes for
 * every packet of its QPs.  A line of its own, so lanes on other cores do
 * not pull it back and forth.
 */
struct sr_dev_lane {
	_Alignas(64) struct sr_lock lock;
	uint16_t ip_id;                /* IPv4 ID of the lane's next packet */
	bool tx_blocked;               /* the link refused a frame this round */
	sr_counter_t cnt[SR_CNT_MAX];  /* its QPs' counts (sr_qp_count): one
					* writer, summed by sr_dev_counters */
	uint64_t progress_at;          /* when one of its QPs' requests was
					* last acknowledged (comp.c) */
};

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

	/* The locks (sr_dev_lock_all() below): one per lane, each held while
	 * the engine runs that lane's QPs; the slow path takes them all. */
	unsigned int nlanes;           /* cfg.lanes, 1 .. SR_DEV_LANES_MAX */
	struct sr_dev_lane lane[SR_DEV_LANES_MAX];
	struct sr_lock trace_lock;     /* the trace ring's producers, lanes > 1 */
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
	uint8_t ecn;                   /* sr_dev_config.ecn */
	uint32_t tmpl_gen;             /* a GID changed: QPs remake their
					* header templates (qp_priv.h) */
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

	sr_counter_t cnt[SR_CNT_MAX];  /* the device's own (sr_dev_count) */
	sr_counter_t parse_drop[SR_PARSE_MAX];
};

#define SR_QPN_BASE 2u
#define SR_SRQN_BASE 1u        /* SRQ numbers SR_SRQN_BASE .. + SR_MAX_SRQ - 1 */
#define SR_QPN_MAX  0xffffffu  /* QPNs are 24 bits */

/* The lane of a QPN: its lock guards the QP's transport state. */
static inline struct sr_dev_lane *sr_dev_lane_of(struct sr_dev *dev,
						 uint32_t qpn)
{
	return &dev->lane[sr_dev_qpn_shard(qpn, dev->nlanes)];
}

/*
 * The slow path (create, modify, destroy, a multicast frame's fan-out):
 * every lane's lock, in lane order, so no engine runs meanwhile.  With one
 * lane, the one lock.
 */
static inline void sr_dev_lock_all(struct sr_dev *dev)
{
	for (unsigned int i = 0; i < dev->nlanes; i++)
		sr_lock_acquire(&dev->lane[i].lock);
}

static inline void sr_dev_unlock_all(struct sr_dev *dev)
{
	for (unsigned int i = dev->nlanes; i-- > 0;)
		sr_lock_release(&dev->lane[i].lock);
}

static inline uint64_t sr_dev_now(struct sr_dev *dev)
{
	return dev->ops->now_ns(dev->link);
}

/* The clock read now (sr_link_ops.clock_ns): completion timestamps. */
static inline uint64_t sr_dev_clock(struct sr_dev *dev)
{
	return dev->ops->clock_ns != NULL ? dev->ops->clock_ns(dev->link)
					  : dev->ops->now_ns(dev->link);
}

static inline void sr_dev_event(struct sr_dev *dev, enum sr_event_type t,
				void *obj)
{
	struct sr_async_event ev = { .type = t, .qp = obj };

	if (dev->async_cb != NULL)
		dev->async_cb(dev->async_ctx, &ev);
}

/* Device counters: several lanes count (rare events), so a locked add. */
static inline void sr_dev_count(struct sr_dev *dev, enum sr_counter c,
				uint64_t n)
{
	atomic_fetch_add_explicit(&dev->cnt[c], n, memory_order_relaxed);
}

struct sr_qp *sr_dev_qp_lookup(struct sr_dev *dev, uint32_t qpn);
/* A received packet for one QP: the checks of its type, P_Key and path,
 * then its responder or completer.  Caller holds the QP's lane lock. */
void sr_dev_rx_qp(struct sr_dev *dev, struct sr_qp *qp,
		  const struct sr_pkt *pkt);
/* The SRQ of a number (an XRCETH's), or NULL.  Caller holds a lane lock. */
struct sr_srq *sr_dev_srq_lookup(struct sr_dev *dev, uint32_t srqn);

#endif /* SR_CORE_DEV_PRIV_H */
