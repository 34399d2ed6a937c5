/* SPDX-License-Identifier: BSD-3-Clause */
#include "cc/hooks.h"

#include <errno.h>

#include "core/sched.h"
#include "transport/transport.h"
#include "wire/cnp.h"

#define US 1000ull

static bool sr_cc_connected(const struct sr_qp *qp)
{
	return sr_qp_connected(qp);
}

void sr_cc_rx_ce(struct sr_qp *qp, const struct sr_pkt *ce)
{
	struct sr_dev *dev = qp->dev;
	static const uint8_t reserved[SR_CNP_PAYLOAD];
	const struct sr_tx_src src = { .bytes = reserved };
	struct sr_build b;
	uint64_t now;

	sr_qp_count(qp, SR_CNT_CE_RCVD, 1);
	if (!dev->cc_on || !sr_cc_connected(qp))
		return;
	now = sr_dev_now(dev);
	if (qp->cc_cnp_sent &&
	    now - qp->cc_last_cnp_ns < dev->cc.min_time_between_cnps * US)
		return;
	sr_cnp_describe(&b, ce, qp->attr.dest_qp_num, (uint8_t)dev->cc.cnp_dscp);
	b.ip_id = qp->lane->ip_id++;
	if (b.vlan)
		b.vlan_tci = (uint16_t)((b.vlan_tci & 0x0fff) |
					dev->cc.cnp_802p_prio << 13);
	if (sr_tx_send(qp, &b, &src, SR_CNP_PAYLOAD) != 0)
		return;        /* no buffer: the next CE mark tries again */
	qp->cc_cnp_sent = true;
	qp->cc_last_cnp_ns = now;
	sr_qp_count(qp, SR_CNT_CNP_SENT, 1);
}

void sr_cc_rx_cnp(struct sr_qp *qp)
{
	struct sr_dev *dev = qp->dev;

	if (!dev->cc_on || !sr_cc_connected(qp)) {
		sr_qp_count(qp, SR_CNT_CNP_DROP, 1);
		return;
	}
	if (qp->cc_rp.line_bps == 0 &&
	    sr_dcqcn_init(&qp->cc_rp, &dev->cc, dev->line_bps) != 0) {
		sr_qp_count(qp, SR_CNT_CNP_DROP, 1);
		return;
	}
	sr_dcqcn_on_cnp(&qp->cc_rp, sr_dev_now(dev));
	qp->cc_quiet = false;
	sr_qp_count(qp, SR_CNT_CNP_RCVD, 1);
}

uint32_t sr_cc_burst(uint64_t rate_bps, uint32_t mtu)
{
	uint64_t b = rate_bps / 8000u * SR_CC_BURST_NS / 1000000u;
	uint32_t floor = mtu ? mtu : 4096;

	if (b < floor)
		b = floor;
	return b > SR_CC_BURST_MAX ? SR_CC_BURST_MAX : (uint32_t)b;
}

/* The smaller of two rates, 0 meaning none. */
static uint64_t sr_cc_min_rate(uint64_t a, uint64_t b)
{
	return a && b ? (a < b ? a : b) : a | b;
}

/* The explicit limits: ibv_modify_qp_rate_limit / IBV_QP_RATE_LIMIT and,
 * on a connected QP, the address vector's static rate; and the line rate
 * when the device is set to a link slower than its port; the lowest wins. */
static uint64_t sr_cc_limit(const struct sr_qp *qp)
{
	uint64_t s = qp->type == SR_QPT_UD ? 0
					   : sr_static_rate_bps(qp->attr.av.static_rate);
	uint64_t l = sr_cc_min_rate(qp->cc_limit_bps, s);

	return qp->dev->line_paced ? sr_cc_min_rate(l, qp->dev->line_bps) : l;
}

/*
 * A paced QP asks for an ACK once per burst: at a low rate the unpaced
 * spacing (SR_ACKREQ_EVERY packets) can take longer than the retransmit
 * timeout, which then expires on packets that were not lost.
 */
static void sr_cc_set_ackreq(struct sr_qp *qp, uint64_t rate)
{
	uint32_t mtu = qp->mtu ? qp->mtu : 4096;
	uint32_t n = sr_cc_burst(rate, mtu) / mtu;

	if (n < 1)
		n = 1;
	qp->cc_ackreq_every = (uint16_t)(n < SR_ACKREQ_EVERY ? n : SR_ACKREQ_EVERY);
}

unsigned int sr_cc_req_budget(struct sr_qp *qp, unsigned int budget,
			      uint64_t now)
{
	uint64_t rate = 0, n, limit;

	if (qp->cc_quiet)
		return budget;
	limit = sr_cc_limit(qp);
	if (qp->cc_rp.line_bps == 0 && limit == 0) {
		qp->cc_paced = false;          /* no CNP ever, no limit */
		qp->cc_ackreq_every = 0;
		qp->cc_quiet = true;           /* until a CNP or a modify */
		return budget;
	}
	if (qp->cc_rp.line_bps != 0) {
		sr_dcqcn_advance(&qp->cc_rp, now);
		if (!sr_dcqcn_idle(&qp->cc_rp))
			rate = sr_dcqcn_rate(&qp->cc_rp);
	}
	if (limit != 0 && (rate == 0 || limit < rate))
		rate = limit;
	if (rate == 0) {
		qp->cc_paced = false;          /* back at the line rate */
		qp->cc_ackreq_every = 0;
		return budget;
	}
	if (!qp->cc_paced) {
		sr_pacer_init(&qp->cc_pacer, rate, sr_cc_burst(rate, qp->mtu), now);
		qp->cc_paced = true;
		sr_cc_set_ackreq(qp, rate);
	} else if (qp->cc_pacer.rate_bps != rate) {
		sr_pacer_set_rate(&qp->cc_pacer, rate, now);
		sr_pacer_set_burst(&qp->cc_pacer, sr_cc_burst(rate, qp->mtu));
		sr_cc_set_ackreq(qp, rate);
	}
	if (!sr_pacer_ready(&qp->cc_pacer, now)) {
		qp->cc_pacer.held++;
		return 0;
	}
	n = sr_pacer_credit_bytes(&qp->cc_pacer) / (qp->mtu ? qp->mtu : 4096) + 1;
	return n < budget ? (unsigned int)n : budget;
}

void sr_cc_req_sent(struct sr_qp *qp, uint64_t bytes, uint64_t now)
{
	if (bytes == 0 || qp->cc_quiet)
		return;
	if (qp->cc_rp.line_bps != 0)
		sr_dcqcn_on_tx(&qp->cc_rp, bytes, now);
	if (qp->cc_paced)
		sr_pacer_charge(&qp->cc_pacer, bytes);
}

uint64_t sr_cc_next_timer(struct sr_qp *qp, uint64_t now)
{
	if (qp->cc_quiet || !qp->cc_paced ||
	    sr_pacer_ready(&qp->cc_pacer, now))
		return UINT64_MAX;
	return sr_pacer_next(&qp->cc_pacer, now) - now;
}

int sr_qp_set_rate_limit(struct sr_qp *qp, uint64_t bps)
{
	if (qp == NULL || bps > SR_PACER_MAX_RATE)
		return -EINVAL;
	sr_dev_lock_all(qp->dev);
	qp->cc_limit_bps = bps;
	qp->cc_quiet = false;
	sr_sched_kick(qp->dev, qp);
	sr_dev_unlock_all(qp->dev);
	return 0;
}

uint64_t sr_qp_tx_rate(const struct sr_qp *qp)
{
	uint64_t r;

	if (!__atomic_load_n(&qp->cc_paced, __ATOMIC_RELAXED))
		return qp->dev->line_bps;
	r = __atomic_load_n(&qp->cc_pacer.rate_bps, __ATOMIC_RELAXED);
	return r ? r : qp->dev->line_bps;
}

uint64_t sr_qp_cc_rate(const struct sr_qp *qp)
{
	return qp->cc_rp.line_bps ? sr_dcqcn_rate(&qp->cc_rp) : qp->dev->line_bps;
}
