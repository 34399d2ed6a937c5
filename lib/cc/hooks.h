/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hooks.h — where congestion control meets the transport: the device's
 * receive dispatch calls these (lib/core/dev.c), with the QP's lane lock held.
 *
 * Notification point: a CE-marked packet for an RC or UC QP makes it send
 * a CNP to the QP it is connected to, at most one per min_time_between_cnps.
 * Reaction point: a CNP for an RC or UC QP runs DCQCN on it.  With
 * congestion control off (sr_dev_config.cc NULL) CE is only counted and
 * CNPs are dropped and counted, as rxe ignores them.  Only these rare
 * paths read the clock.
 */
#ifndef SR_CC_HOOKS_H
#define SR_CC_HOOKS_H

#include <stdint.h>

#include "wire/parse.h"

struct sr_qp;

void sr_cc_rx_ce(struct sr_qp *qp, const struct sr_pkt *ce);
void sr_cc_rx_cnp(struct sr_qp *qp);

/*
 * Requester pacing, from the engine's round (now = the round's clock):
 * how many packets the requester may send of budget, then the payload
 * bytes it sent (byte counter and credit), and when a held QP may send
 * again (ns from now, UINT64_MAX: not held).
 */
unsigned int sr_cc_req_budget(struct sr_qp *qp, unsigned int budget,
			      uint64_t now);
void sr_cc_req_sent(struct sr_qp *qp, uint64_t bytes, uint64_t now);
uint64_t sr_cc_next_timer(struct sr_qp *qp, uint64_t now);

/*
 * Burst of a paced QP: SR_CC_BURST_NS of its rate, at least one packet of
 * its MTU (mtu 0: 4096) and at most SR_CC_BURST_MAX.  A switch queue is a
 * few tens of KiB; a fixed 64 KiB per QP let every paced QP put more than
 * that into it at once, before any CNP could act (docs/congestion.md).
 * The time is long enough for the rounds of a busy engine: credit beyond
 * the burst is lost, and rate with it (pacer.h).
 */
#define SR_CC_BURST_NS  500000ull
#define SR_CC_BURST_MAX (64u * 1024u)
uint32_t sr_cc_burst(uint64_t rate_bps, uint32_t mtu);

/*
 * An explicit rate limit for the QP's requester (ibv_modify_qp_rate_limit,
 * IBV_QP_RATE_LIMIT, an AH static rate), enforced by the same pacer as
 * DCQCN: the smaller rate wins.  bps 0 removes it.  0, or -EINVAL (NULL,
 * above SR_PACER_MAX_RATE).  Takes every lane lock.
 */
int sr_qp_set_rate_limit(struct sr_qp *qp, uint64_t bps);

/*
 * The rate the QP's requester is paced to now, in bit/s: the smaller of
 * DCQCN's rate and the explicit limit, or the line rate when neither holds
 * it.  A snapshot for the stats file; any thread may read it.
 */
uint64_t sr_qp_tx_rate(const struct sr_qp *qp);
/* DCQCN's current rate of the QP in bit/s (the line rate when idle or off). */
uint64_t sr_qp_cc_rate(const struct sr_qp *qp);

#endif /* SR_CC_HOOKS_H */
