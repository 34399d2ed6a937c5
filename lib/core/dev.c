/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dev.c — the device: frames in (parsed once, dispatched by QPN and by
 * opcode to the responder or the completer), the engine's poll loop, the
 * device counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cc/hooks.h"
#include "core/alloc.h"
#include "core/dev_priv.h"
#include "core/sched.h"
#include "qp/mcast.h"
#include "qp/qp_priv.h"
#include "transport/transport.h"
#include "wire/cnp.h"

struct sr_dev *sr_dev_create(const struct sr_dev_config *cfg)
{
	struct sr_dev *dev;

	if (cfg == NULL || cfg->link_ops == NULL || cfg->mr == NULL ||
	    cfg->link_ops->tx_alloc == NULL || cfg->link_ops->tx_submit == NULL ||
	    cfg->link_ops->tx_abort == NULL || cfg->link_ops->now_ns == NULL ||
	    cfg->gid_count == 0 || cfg->gid_count > SR_GID_TABLE_LEN ||
	    cfg->ecn > 2 || (cfg->cc && sr_dcqcn_params_check(cfg->cc)) ||
	    cfg->max_qp > SR_MAX_QP || cfg->lanes > SR_DEV_LANES_MAX ||
	    (cfg->window != 0 && (cfg->window < SR_WINDOW_MIN ||
				  cfg->window > SR_WINDOW_MAX)) ||
	    (cfg->qpn_base != 0 &&
	     (cfg->qpn_base < SR_QPN_BASE ||
	      cfg->qpn_base > SR_QPN_MAX -
			      (cfg->max_qp ? cfg->max_qp : SR_MAX_QP) + 1)))
		return NULL;
	dev = sr_zalloc(sizeof(*dev));
	if (dev == NULL)
		return NULL;
	dev->nlanes = cfg->lanes ? cfg->lanes : 1;
	for (unsigned int i = 0; i < SR_DEV_LANES_MAX; i++)
		sr_lock_init(&dev->lane[i].lock);
	sr_lock_init(&dev->trace_lock);
	dev->ops = cfg->link_ops;
	dev->link = cfg->link;
	dev->mr = cfg->mr;
	dev->qpn_base = cfg->qpn_base ? cfg->qpn_base : SR_QPN_BASE;
	dev->max_qp = cfg->max_qp ? cfg->max_qp : SR_MAX_QP;
	dev->window = cfg->window ? cfg->window : SR_MAX_UNACKED;
	dev->tx_ref_min = cfg->link_ops->tx_alloc_ref ? cfg->tx_ref_min : 0;
	dev->peer_cb = cfg->peer_cb;
	dev->peer_ctx = cfg->peer_ctx;
	memcpy(dev->mac, cfg->mac, 6);
	memcpy(dev->gid, cfg->gid, sizeof(dev->gid));
	dev->gid_count = cfg->gid_count;
	dev->pkey = cfg->pkey ? cfg->pkey : SR_PKEY_DEFAULT;
	dev->async_cb = cfg->async_cb;
	dev->async_ctx = cfg->async_ctx;
	dev->ecn = cfg->ecn;
	dev->tmpl_gen = 1;
	dev->cc_on = cfg->cc != NULL;
	if (cfg->cc)
		dev->cc = *cfg->cc;
	dev->line_bps = cfg->line_bps ? cfg->line_bps : 100000000000ull;
	dev->line_paced = cfg->line_paced && cfg->line_bps != 0;
	dev->trace = cfg->trace;
	dev->sched_sweep_ns = cfg->sched_sweep_ns ? cfg->sched_sweep_ns
						  : SR_SCHED_SWEEP_NS;
	return dev;
}

int sr_dev_trace_qp(struct sr_dev *dev, uint32_t qpn, bool on)
{
	struct sr_qp *qp;
	int rc = 0;

	if (dev->trace == NULL)
		return -ENOTSUP;
	sr_dev_lock_all(dev);
	qp = sr_dev_qp_lookup(dev, qpn);
	if (qp != NULL)
		__atomic_store_n(&qp->trace, on, __ATOMIC_RELAXED);
	else
		rc = -ENOENT;
	sr_dev_unlock_all(dev);
	return rc;
}

void sr_dev_destroy(struct sr_dev *dev)
{
	if (dev == NULL)
		return;
	for (unsigned int i = 0; i < SR_SCHED_SHARDS; i++)
		free(dev->sched[i]);
	sr_mcast_fini(dev);
	free(dev);
}

void sr_dev_fatal(struct sr_dev *dev)
{
	sr_dev_lock_all(dev);
	if (dev->fatal) {
		sr_dev_unlock_all(dev);
		return;
	}
	dev->fatal = true;
	for (uint32_t i = 0; i < SR_MAX_QP; i++)
		if (dev->qps[i] != NULL)
			sr_qp_enter_err(dev->qps[i], SR_EVENT_QP_FATAL);
	sr_sched_kick_all(dev);
	sr_dev_unlock_all(dev);
	sr_dev_event(dev, SR_EVENT_DEVICE_FATAL, NULL);
}

bool sr_dev_is_fatal(const struct sr_dev *dev)
{
	return __atomic_load_n(&dev->fatal, __ATOMIC_ACQUIRE);
}

struct sr_qp *sr_dev_qp_lookup(struct sr_dev *dev, uint32_t qpn)
{
	if (qpn < dev->qpn_base || qpn - dev->qpn_base >= dev->max_qp)
		return NULL;
	return dev->qps[qpn - dev->qpn_base];
}

struct sr_srq *sr_dev_srq_lookup(struct sr_dev *dev, uint32_t srqn)
{
	if (srqn < SR_SRQN_BASE || srqn - SR_SRQN_BASE >= SR_MAX_SRQ)
		return NULL;
	return dev->srqs[srqn - SR_SRQN_BASE];
}

/* IBTA 10.9.3: same low 15 bits, and not both limited members. */
static bool sr_pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) == (b & 0x7fff) && (a & 0x7fff) != 0 &&
	       ((a | b) & 0x8000);
}

/*
 * Which QP types carry an opcode's transport: an XRC initiator takes only
 * XRC responses, a target only XRC requests.
 */
static bool sr_tt_matches(enum sr_qp_type t, const struct sr_pkt *pkt)
{
	uint8_t tt = pkt->opcode & SR_TT_MASK;
	bool req = (pkt->op->flags & SR_OPF_REQ) != 0;

	return (t == SR_QPT_RC && tt == SR_TT_RC) ||
	       (t == SR_QPT_UC && tt == SR_TT_UC) ||
	       (t == SR_QPT_UD && tt == SR_TT_UD) ||
	       (t == SR_QPT_XRC_SEND && tt == SR_TT_XRC && !req) ||
	       (t == SR_QPT_XRC_RECV && tt == SR_TT_XRC && req);
}

/*
 * A connected QP takes packets only from its peer: the IP source must be
 * the address vector's destination GID and the IP destination the QP's
 * own source GID (as rxe's check of the packet's addresses against the
 * QP's path; IBA 9.6.1.1 leaves address checking of RoCE to the layer
 * that maps GIDs to IP).  Without it a third party that learns a QPN and
 * PSN could write into an MR or aim READ responses at the real peer.
 * The source MAC is not checked: behind a router it is the router's.
 */
static bool sr_pkt_from_peer(const struct sr_dev *dev, const struct sr_qp *qp,
			     const struct sr_pkt *pkt)
{
	const struct sr_av *av = &qp->attr.av;
	const uint8_t *ip = pkt->frame + pkt->l3;
	const uint8_t *sgid = dev->gid[av->sgid_index % SR_GID_TABLE_LEN];

	if (pkt->ipv6)
		return memcmp(ip + 8, av->dgid, 16) == 0 &&
		       memcmp(ip + 24, sgid, 16) == 0;
	return sr_gid_is_v4(av->dgid) && sr_gid_is_v4(sgid) &&
	       memcmp(ip + 12, av->dgid + 12, 4) == 0 &&
	       memcmp(ip + 16, sgid + 12, 4) == 0;
}

/*
 * Which lock a received frame needs: its QP's lane, QP1's, or every lane
 * (a multicast frame fans out to QPs of any lane).
 */
#define SR_RX_ALL_LANES UINT32_MAX
#define SR_RX_NO_LANE   SR_DEV_LANES_MAX    /* none held yet */

static uint32_t sr_dev_rx_lane(const struct sr_dev *dev,
			       const struct sr_pkt *pkt)
{
	uint32_t dqpn = sr_bth_dqpn(sr_pkt_bth(pkt));

	if (dqpn == SR_MCAST_QPN)
		return SR_RX_ALL_LANES;
	return sr_dev_qpn_shard(dqpn, dev->nlanes);
}

/* One parsed frame, with the lock sr_dev_rx_lane() names held. */
static void sr_dev_rx_one(struct sr_dev *dev, const struct sr_pkt *pkt)
{
	const struct sr_bth *bth = sr_pkt_bth(pkt);
	struct sr_qp *qp;

	if (sr_bth_dqpn(bth) == 1 && dev->gsi_rx != NULL) {
		dev->gsi_rx(dev->gsi_ctx, pkt);      /* QP1's owner: the CM */
		return;
	}
	if (sr_bth_dqpn(bth) <= 1) {
		sr_dev_count(dev, SR_CNT_MGMT_QP_DROP, 1);
		return;
	}
	if (sr_bth_dqpn(bth) == SR_MCAST_QPN) {
		sr_mcast_rx(dev, pkt);
		return;
	}
	qp = sr_dev_qp_lookup(dev, sr_bth_dqpn(bth));
	if (qp == NULL) {
		sr_dev_count(dev, SR_CNT_UNKNOWN_QP, 1);
		return;
	}
	sr_dev_rx_qp(dev, qp, pkt);
}

void sr_dev_rx_qp(struct sr_dev *dev, struct sr_qp *qp,
		  const struct sr_pkt *pkt)
{
	const struct sr_bth *bth = sr_pkt_bth(pkt);

	sr_qp_count(qp, SR_CNT_RX_PKTS, 1);
	sr_sched_kick_locked(dev, qp);  /* under its lane lock */
	if (pkt->opcode != SR_OPCODE_CNP && !sr_tt_matches(qp->type, pkt)) {
		sr_qp_count(qp, SR_CNT_OPCODE_DROP, 1);
		return;
	}
	if (!sr_pkey_match(sr_bth_pkey(bth), qp->attr.pkey)) {
		sr_qp_count(qp, SR_CNT_PKEY_DROP, 1);
		return;
	}
	if (qp->type != SR_QPT_UD && sr_qp_state_get(qp) >= SR_QPS_RTR &&
	    !sr_pkt_from_peer(dev, qp, pkt)) {
		sr_qp_count(qp, SR_CNT_ADDR_DROP, 1);
		return;
	}
	/* A CNP passes the P_Key and address checks: no third party slows a QP. */
	if (pkt->opcode == SR_OPCODE_CNP) {
		sr_cc_rx_cnp(qp);
		return;
	}
	if (sr_pkt_ecn(pkt) == SR_ECN_CE)
		sr_cc_rx_ce(qp, pkt);
	if (pkt->op->flags & SR_OPF_REQ)
		sr_resp_rx(qp, pkt);
	else
		sr_comp_rx(qp, pkt);
}

static void sr_dev_rx_unlock(struct sr_dev *dev, uint32_t held)
{
	if (held == SR_RX_ALL_LANES)
		sr_dev_unlock_all(dev);
	else
		sr_lock_release(&dev->lane[held].lock);
}

/*
 * Parsing needs no lock; the rest runs under the lane lock of the frame's
 * QP, kept from one frame to the next while they name the same lane (a
 * link that steers frames to their lane hands over runs of one lane).
 */
void sr_dev_rx_burst(void *ctx, const struct sr_link_frame *frames,
		     unsigned int n)
{
	struct sr_dev *dev = ctx;
	uint32_t held = SR_RX_NO_LANE;

	for (unsigned int i = 0; i < n; i++) {
		enum sr_parse_result r;
		struct sr_pkt pkt;
		uint32_t want;

		r = sr_parse_eth(frames[i].data, frames[i].len, 0, &pkt);
		if (r != SR_PARSE_OK) {
			if (!sr_parse_result_is_roce(r)) {
				sr_dev_count(dev, SR_CNT_NOT_ROCE, 1);
			} else {
				atomic_fetch_add_explicit(&dev->parse_drop[r], 1,
							  memory_order_relaxed);
				sr_dev_count(dev, SR_CNT_PARSE_DROP, 1);
			}
			continue;
		}
		want = sr_dev_rx_lane(dev, &pkt);
		if (want != held) {
			if (held != SR_RX_NO_LANE)
				sr_dev_rx_unlock(dev, held);
			if (want == SR_RX_ALL_LANES)
				sr_dev_lock_all(dev);
			else
				sr_lock_acquire(&dev->lane[want].lock);
			held = want;
		}
		sr_dev_rx_one(dev, &pkt);
	}
	if (held != SR_RX_NO_LANE)
		sr_dev_rx_unlock(dev, held);
}

void sr_dev_set_gsi(struct sr_dev *dev, sr_dev_gsi_fn *fn, void *ctx)
{
	sr_dev_lock_all(dev);
	dev->gsi_rx = fn;
	dev->gsi_ctx = ctx;
	sr_dev_unlock_all(dev);
}

void sr_dev_rx(struct sr_dev *dev, const uint8_t *frame, uint32_t len)
{
	const struct sr_link_frame f = { .data = frame, .len = len };

	sr_dev_rx_burst(dev, &f, 1);
}

unsigned int sr_dev_poll(struct sr_dev *dev, unsigned int budget)
{
	return sr_dev_poll_shard(dev, budget, 0, 1);
}

/* One QP's turn in a round, with its lane lock held: completions,
 * requests (paced), responses.  Returns the work done. */
static unsigned int sr_dev_visit(struct sr_dev *dev, struct sr_qp *qp,
				 unsigned int budget, uint64_t now)
{
	enum sr_qp_state st = sr_qp_state_get(qp);
	unsigned int work, n;
	uint64_t tx0;

	if (st == SR_QPS_RESET)
		return 0;
	if (st == SR_QPS_ERR) {
		sr_qp_flush(qp);
		return 0;
	}
	work = sr_comp_run(qp, now);
	/*
	 * The ACK of a SEND (or of anything that may not wait) goes before
	 * this QP's new requests, as an RNIC acknowledges on receipt: when
	 * the consumer answered a SEND while this round ran (it polled on
	 * another thread), its answer would otherwise reach the peer before
	 * the ACK, and the peer would see the answer's completion and event
	 * before its own send's (perftest's send_lat -e then waits for the
	 * wrong event, and both sides stall).
	 */
	work += sr_resp_ack_first(qp);
	tx0 = atomic_load_explicit(&qp->cnt[SR_CNT_TX_BYTES],
				   memory_order_relaxed);
	n = sr_req_run(qp, sr_cc_req_budget(qp, budget, now));
	sr_cc_req_sent(qp, atomic_load_explicit(&qp->cnt[SR_CNT_TX_BYTES],
						memory_order_relaxed) - tx0, now);
	if (n > 0)      /* UC/UD and local WRs are done once sent */
		n += sr_comp_run(qp, now);
	work += n + sr_resp_run(qp, budget, now, n > 0);
	if (sr_qp_state_get(qp) == SR_QPS_ERR) {
		sr_qp_flush(qp);
		return work;
	}
	if (st == SR_QPS_SQD && qp->sqd_event &&
	    qp->comp.idx == qp->req.idx) {
		qp->sqd_event = false;
		sr_dev_event(dev, SR_EVENT_SQ_DRAINED, qp);
	}
	return work;
}

/* The QP's earliest timer, ns from now (UINT64_MAX: none). */
static uint64_t sr_dev_qp_timer(struct sr_qp *qp, uint64_t now)
{
	uint64_t t = sr_comp_next_timer(qp, now), q;

	q = sr_resp_next_timer(qp, now);
	if (q < t)
		t = q;
	q = sr_cc_next_timer(qp, now);
	return q < t ? q : t;
}

unsigned int sr_dev_poll_shard(struct sr_dev *dev, unsigned int budget,
			       unsigned int shard, unsigned int nshards)
{
	uint64_t now = sr_dev_now(dev);
	unsigned int work = 0, i, seen = 0, n;
	uint32_t first;
	struct sr_sched_shard *sh;
	struct sr_dev_lane *lane;
	bool all = nshards != dev->nlanes || shard >= nshards;

	/* the shard's lane, or (a caller's own sharding) every lane */
	if (all) {
		sr_dev_lock_all(dev);
		lane = &dev->lane[0];
	} else {
		lane = &dev->lane[shard];
		sr_lock_acquire(&lane->lock);
	}
	sh = sr_sched_shard_get(dev, shard, nshards);
	if (sh == NULL) {               /* no schedule: every QP */
		for (i = 0; i < SR_MAX_QP && seen < dev->nqp; i++) {
			struct sr_qp *qp = dev->qps[i];

			if (qp == NULL)
				continue;
			seen++;
			if (sr_dev_qpn_shard(qp->qpn, nshards) == shard)
				work += sr_dev_visit(dev, qp, budget, now);
		}
		goto out;
	}
	/* Only the QPs that may have work (sched.h). */
	sr_sched_gather(dev, sh, shard, now);
	if (all)
		for (i = 0; i < dev->nlanes; i++)
			dev->lane[i].tx_blocked = false;
	else
		lane->tx_blocked = false;
	n = sh->nready;
	sh->nready = 0;
	/*
	 * The QPs that stay busy are listed again in the order visited, so
	 * the first of them would be first in every round, and first to the
	 * link: behind a small queue it took most of the slots (cc_storm: one
	 * of 16 QPs sent 2218 frames, the others 300-400, until one ran out
	 * of retries).  The first goes last instead, which round-robins who
	 * goes first.  sr_sched_done() rewrites the list behind the reader,
	 * so the first entry is kept aside before its slot is reused.
	 */
	first = n > 0 ? sh->ready[0] : 0;
	for (i = 1; i <= n; i++) {
		uint32_t idx = i < n ? sh->ready[i] : first;
		struct sr_qp *qp = dev->qps[idx];
		unsigned int w;

		dev->sched_in[idx] = 0;
		if (qp == NULL || sr_dev_qpn_shard(qp->qpn, nshards) != shard)
			continue;
		w = sr_dev_visit(dev, qp, budget, now);
		work += w;
		sr_sched_done(dev, sh, qp,
			      w > 0 || qp->lane->tx_blocked,
			      now, sr_dev_qp_timer(qp, now));
	}
out:
	if (all)
		sr_dev_unlock_all(dev);
	else
		sr_lock_release(&lane->lock);
	return work;
}

uint64_t sr_dev_next_timer_ns(struct sr_dev *dev)
{
	uint64_t now = sr_dev_now(dev), t = UINT64_MAX;
	unsigned int i, seen = 0;

	sr_dev_lock_all(dev);
	for (i = 0; i < SR_MAX_QP && seen < dev->nqp; i++) {
		struct sr_qp *qp = dev->qps[i];
		uint64_t q;

		if (qp == NULL)
			continue;
		seen++;
		q = sr_comp_next_timer(qp, now);
		if (q < t)
			t = q;
		q = sr_resp_next_timer(qp, now);
		if (q < t)
			t = q;
		q = sr_cc_next_timer(qp, now);
		if (q < t)
			t = q;
	}
	sr_dev_unlock_all(dev);
	return t;
}

int sr_dev_set_gid(struct sr_dev *dev, unsigned int index,
		   const uint8_t gid[16])
{
	if (index >= SR_GID_TABLE_LEN)
		return -EINVAL;
	sr_dev_lock_all(dev);
	memcpy(dev->gid[index], gid, 16);
	if (index >= dev->gid_count)
		dev->gid_count = index + 1;
	if (++dev->tmpl_gen == 0)
		dev->tmpl_gen = 1;
	sr_dev_unlock_all(dev);
	return 0;
}

void sr_dev_counters(const struct sr_dev *dev, uint64_t out[SR_CNT_MAX])
{
	unsigned int i;

	for (i = 0; i < SR_CNT_MAX; i++)
		out[i] = atomic_load_explicit(&dev->cnt[i], memory_order_relaxed);
	for (unsigned int k = 0; k < dev->nlanes; k++)
		for (i = 0; i < SR_CNT_MAX; i++)
			out[i] += atomic_load_explicit(&dev->lane[k].cnt[i],
						       memory_order_relaxed);
}

void sr_dev_parse_drops(const struct sr_dev *dev, uint64_t out[SR_PARSE_MAX])
{
	unsigned int i;

	for (i = 0; i < SR_PARSE_MAX; i++)
		out[i] = atomic_load_explicit(&dev->parse_drop[i],
					      memory_order_relaxed);
}

unsigned int sr_dev_qp_count(const struct sr_dev *dev)
{
	return dev->nqp;
}

unsigned int sr_dev_max_qp(const struct sr_dev *dev)
{
	return dev->max_qp;
}

unsigned int sr_dev_cq_count(const struct sr_dev *dev)
{
	return dev->ncq;
}

unsigned int sr_dev_srq_count(const struct sr_dev *dev)
{
	return dev->nsrq;
}

struct sr_mr_dev *sr_dev_mr(const struct sr_dev *dev)
{
	return dev->mr;
}
