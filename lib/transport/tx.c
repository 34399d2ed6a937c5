/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tx.c — a QP's packets onto the link, through the one wire builder.
 *
 * What rxe puts on the wire and sroce copies: UDP checksum 0, IPv4 DF set,
 * MigReq 0, the QP's P_Key, the UDP source port from the flow label (or
 * from both QPNs when the label is 0) as rdma_get_udp_sport() does.
 * Payload goes straight from registered memory into the TX buffer
 * (sr_build_hdrs, copy, sr_build_finish), or, from tx_ref_min bytes on
 * where the link can, is not copied at all: the frame points at the
 * registered memory and holds the region's reference until the link has
 * read it (sr_build_hdrs_ref, sr_build_finish_ref; link.h tx_alloc_ref).
 * A connected QP's headers come from its template, made when its address
 * or the device's GIDs change (sr_tx_prepare).
 */
#include <errno.h>
#include <string.h>

#include "transport/transport.h"

uint16_t sr_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn)
{
	uint32_t fl = flow_label & 0xfffffu;

	if (fl == 0) {
		uint64_t v = (uint64_t)lqpn * rqpn;

		v ^= v >> 20;
		v ^= v >> 40;
		fl = (uint32_t)(v & 0xfffffu);
	}
	return (uint16_t)(((fl & 0x3fffu) ^ ((fl & 0xfc000u) >> 14)) | 0xc000u);
}

void sr_tx_prepare(struct sr_qp *qp, struct sr_build *b,
		   const struct sr_av *av, uint8_t opcode, uint32_t psn)
{
	struct sr_dev *dev = qp->dev;
	bool conn = av == &qp->attr.av && qp->type != SR_QPT_UD;
	unsigned int gi;

	memset(b, 0, sizeof(*b));
	b->ip_id = qp->lane->ip_id++;
	b->opcode = opcode;
	b->pkey = qp->attr.pkey;
	b->dqpn = qp->attr.dest_qp_num;
	b->psn = psn & SR_PSN_MASK;
	/* a connection's packets: the addresses are in its template */
	if (conn && qp->tx_tmpl_gen == dev->tmpl_gen) {
		b->tmpl = &qp->tx_tmpl;
		return;
	}
	gi = av->sgid_index < dev->gid_count ? av->sgid_index : 0;
	memcpy(b->dmac, av->dmac, 6);
	memcpy(b->smac, dev->mac, 6);
	b->vlan = av->vlan;
	b->vlan_tci = av->vlan_tci;
	memcpy(b->sgid, dev->gid[gi], 16);
	memcpy(b->dgid, av->dgid, 16);
	b->tclass = dev->ecn ? (uint8_t)((av->tclass & ~3u) | dev->ecn) : av->tclass;
	b->hop_limit = av->hop_limit ? av->hop_limit : 64;
	b->flow_label = av->flow_label;
	b->ip_df = true;
	b->sport = qp->sport;
	b->udp_csum = 0;
	/* the first packet after a change makes the template (wire/build.h) */
	if (conn) {
		sr_build_tmpl_init(&qp->tx_tmpl, b);
		qp->tx_tmpl_gen = dev->tmpl_gen;
		b->tmpl = &qp->tx_tmpl;
	}
}

/*
 * One packet whose payload goes by reference.  Returns 0 when it was
 * queued, -errno when building it failed, 1 when it cannot go this way
 * (pieces in several SGEs or pages, on-demand memory, a lookup error, a
 * link without a buffer for it): the caller copies, and reports what the
 * copy finds.
 */
static int sr_tx_send_ref(struct sr_qp *qp, const struct sr_build *b,
			  const struct sr_tx_src *src, uint32_t len,
			  uint32_t flen)
{
	struct sr_dev *dev = qp->dev;
	uint32_t tail_len = ((4 - (len & 3)) & 3) + SR_ICRC_LEN;
	uint32_t hdr_len = flen - len - tail_len;
	const uint8_t *payload;
	struct sr_mr_ref ref;
	struct sr_pkt pkt;
	uint8_t *buf, *tail;
	void *cookie;
	int off;

	if (!sr_dma_piece(qp, src, len, &ref, &payload))
		return 1;
	buf = dev->ops->tx_alloc_ref(dev->link, hdr_len, payload, len,
				     tail_len, &ref, &tail, &cookie);
	if (buf == NULL) {
		sr_mr_ref_put(&ref);
		return 1;
	}
	/* the link holds the reference now; abort gives it back */
	off = sr_build_hdrs_ref(buf, hdr_len, b, len, &pkt);
	if (off < 0) {
		dev->ops->tx_abort(dev->link, cookie);
		return off;
	}
	sr_build_finish_ref(buf, &pkt, payload, tail);
	dev->ops->tx_submit(dev->link, cookie, flen);
	sr_qp_count(qp, SR_CNT_TX_PKTS, 1);
	sr_qp_count(qp, SR_CNT_TX_BYTES, len);
	return 0;
}

int sr_tx_send(struct sr_qp *qp, const struct sr_build *b,
	       const struct sr_tx_src *src, uint32_t len)
{
	struct sr_dev *dev = qp->dev;
	uint32_t flen = sr_build_frame_len(b, len);
	enum sr_mr_err err = SR_MR_OK;
	struct sr_pkt pkt;
	void *cookie;
	uint8_t *buf;
	int off;

	if (dev->tx_ref_min != 0 && len >= dev->tx_ref_min && src != NULL &&
	    src->bytes == NULL) {
		off = sr_tx_send_ref(qp, b, src, len, flen);
		if (off <= 0)
			return off;
	}
	buf = dev->ops->tx_alloc(dev->link, flen, &cookie);
	if (buf == NULL) {
		sr_qp_count(qp, SR_CNT_TX_NOBUF, 1);
		/* the engine keeps the lane's QPs ready */
		qp->lane->tx_blocked = true;
		return -EAGAIN;
	}
	off = sr_build_hdrs(buf, flen, b, len, &pkt);
	if (off < 0) {
		dev->ops->tx_abort(dev->link, cookie);
		return off;
	}
	if (len > 0 && src != NULL) {
		if (src->bytes != NULL) {
			memcpy(buf + off, src->bytes, len);
		} else if (src->remote) {
			struct sr_mr_ref ref;

			err = sr_dma_remote(qp, src->rkey, src->va, len,
					    SR_ACCESS_REMOTE_READ, &ref);
			if (err == SR_MR_OK) {
				err = sr_mr_copy_from(&ref, src->va, buf + off,
						      len);
				sr_mr_ref_put(&ref);
			}
		} else {
			err = sr_dma_gather(qp, src->sge, src->nsge, src->off,
					    buf + off, len);
		}
	}
	if (err != SR_MR_OK) {
		dev->ops->tx_abort(dev->link, cookie);
		return -(int)err;
	}
	sr_build_finish(buf, &pkt);
	dev->ops->tx_submit(dev->link, cookie, flen);
	sr_qp_count(qp, SR_CNT_TX_PKTS, 1);
	sr_qp_count(qp, SR_CNT_TX_BYTES, len);
	return 0;
}

uint64_t sr_rnr_timer_ns(uint8_t code)
{
	/* IBTA table 45, in units of 10 us; code 0 is 655.36 ms. */
	static const uint32_t t10us[32] = {
		65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128,
		192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144,
		8192, 12288, 16384, 24576, 32768, 49152,
	};

	return (uint64_t)t10us[code & 31] * 10000u;
}
