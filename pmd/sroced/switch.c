/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * switch.c — sroced's frame switch (sroced.h).
 *
 * The destination QPN's block names the client that owns it: a frame
 * from the device's port goes to that client's channel.  A frame from a
 * client is checked first — its source MAC and IP must be the device's,
 * a UD datagram's source QPN (DETH) must be in the client's block, an RC,
 * UC or XRC frame (or a CNP) must go to the peer of one of its QPs — and
 * dropped and counted (sw_drop_forged, on the client's channel) when
 * not.  Then it goes to another client (or the same) when its
 * destination is the device's own address, else out of the port to the
 * neighbour's MAC (the device's ARP / ND, or the host's when the port is
 * the host's NIC).  QP1 is the daemon's: its MADs go where qp1.c says,
 * and a client's MAD must speak for the client's own CM.  Each frame is
 * copied once, into the other side's buffer.
 */
#include <string.h>

#include "counters.h"
#include "frame.h"
#include "gid.h"
#include "qp/mcast.h"
#include "sroced.h"
#include "wire/hdr.h"
#include "wire/opcode.h"

static struct sroced *srd_sw;

void srd_switch_init(struct sroced *d)
{
	srd_sw = d;
}

/* The frame's IP addresses as GIDs (IPv4 as ::ffff:a.b.c.d). */
void srd_frame_gid(const uint8_t *p, const struct sr_frame *f, bool dst,
		       uint8_t gid[16])
{
	if (f->ip_version == 4) {
		sr_gid_from_ipv4(gid, p + f->l3 + (dst ? 16 : 12));
	} else {
		memcpy(gid, p + f->l3 + (dst ? 24 : 8), 16);
	}
}

bool srd_dev_is_own(const struct srd_device *dv, const uint8_t gid[16])
{
	for (unsigned int i = 0; i < dv->nip; i++)
		if (memcmp(dv->ip[i], gid, 16) == 0)
			return true;
	return false;
}

struct srd_client *srd_block_owner(const struct srd_device *dv,
				   uint32_t block)
{
	struct srd_client *c = block < SRD_BLOCKS ? srd_sw->block[block].owner
						  : NULL;

	return c != NULL && c->dev == dv && c->port != NULL ? c : NULL;
}

/*
 * Copy a frame into a port's transmit buffer with a new Ethernet header:
 * new MACs, and an 802.1Q tag when vlan != 0 (the daemon's port may be on
 * a VLAN; its clients' channels never are, so a tag is taken off on the
 * way in and put on on the way out).
 */
bool srd_emit(struct sr_pmd_dev *to, const uint8_t *p, uint32_t len,
	      const struct sr_frame *f, const uint8_t dst[6],
	      const uint8_t src[6], uint16_t vlan, uint8_t prio)
{
	const struct sr_link_ops *ops = sr_pmd_link_ops();
	void *link = sr_pmd_link(to), *cookie;
	uint32_t body = len - f->l3;
	uint32_t hdr = SR_ETH_HLEN + (vlan != 0 ? SR_VLAN_HLEN : 0);
	uint8_t *buf = ops->tx_alloc(link, hdr + body, &cookie);

	if (buf == NULL) {
		sr_stats_add(sr_pmd_stats(to), SR_CTR_SW_DROP_FULL, 1);
		return false;
	}
	sr_frame_put_eth(buf, dst, src, vlan, prio, f->ethertype);
	memcpy(buf + hdr, p + f->l3, body);
	ops->tx_submit(link, cookie, hdr + body);
	return true;
}

bool srd_emit_client(const struct srd_client *c, const uint8_t *p,
		     uint32_t len, const struct sr_frame *f)
{
	return srd_emit(c->port, p, len, f, c->dev->info.mac, c->gw_mac, 0, 0);
}

bool srd_emit_port(const struct srd_device *dv, const uint8_t *p,
		   uint32_t len, const struct sr_frame *f, const uint8_t mac[6])
{
	return srd_emit(dv->pmd, p, len, f, mac, dv->info.mac, dv->cfg.vlan,
			dv->cfg.vlan_prio);
}

/* To the client that owns the destination QPN (of this device); QP1's
 * MADs to the client whose CM they name (qp1.c). */
static void srd_to_client(struct srd_device *dv, struct sr_pmd_dev *counted,
			  const uint8_t *p, uint32_t len, const struct sr_frame *f,
			  enum sr_dev_counter ok)
{
	uint32_t dqpn = sr_bth_dqpn(sr_frame_bth(p, f));
	struct srd_client *c = srd_block_owner(dv, dqpn >> SRD_QPN_SHIFT);

	if (dqpn == 1) {
		srd_qp1_route(dv, counted, p, len, f, ok);
		return;
	}
	if (dqpn == 0) {
		sr_stats_add(sr_pmd_stats(counted), SR_CTR_SW_DROP_GSI, 1);
		return;
	}
	if (c == NULL) {
		sr_stats_add(sr_pmd_stats(counted), SR_CTR_SW_DROP_NO_OWNER, 1);
		return;
	}
	if (srd_emit_client(c, p, len, f))
		sr_stats_add(sr_pmd_stats(counted), ok, 1);
}

/*
 * A datagram to a multicast group: to each client of the device that
 * joined it (the sender too, when it is one: an RNIC delivers a device's
 * multicast to its own members).  False when the frame is no such
 * datagram.
 */
static bool srd_to_members(struct srd_device *dv, struct sr_pmd_dev *counted,
			   const uint8_t *p, uint32_t len,
			   const struct sr_frame *f, enum sr_dev_counter ok)
{
	uint8_t gid[16];

	if (sr_bth_dqpn(sr_frame_bth(p, f)) != SR_MCAST_QPN)
		return false;
	srd_frame_gid(p, f, true, gid);
	if (!sr_gid_is_mcast(gid))
		return false;
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++) {
		const struct srd_client *c = srd_sw->client[i];

		if (c != NULL && c->dev == dv && c->port != NULL &&
		    srd_mcast_member(c, gid) && srd_emit_client(c, p, len, f))
			sr_stats_add(sr_pmd_stats(counted), ok, 1);
	}
	return true;
}

void srd_switch_from_port(void *dev_ctx, const struct sr_link_frame *fr,
			  unsigned int n)
{
	struct srd_device *dv = dev_ctx;

	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *p = fr[i].data;
		struct sr_frame f;

		/* the port's classifier let only RoCEv2 to us through */
		if (!sr_frame_layout(p, fr[i].len, &f) || !sr_frame_is_roce(p, &f))
			continue;
		if (srd_to_members(dv, dv->pmd, p, fr[i].len, &f,
				   SR_CTR_SW_TO_CLIENT))
			continue;
		srd_to_client(dv, dv->pmd, p, fr[i].len, &f, SR_CTR_SW_TO_CLIENT);
	}
}

/* Is this frame one the client may send?  Its source, its QPN. */
static bool srd_client_frame_ok(const struct srd_client *c,
				const uint8_t *p, const struct sr_frame *f)
{
	const struct srd_device *dv = c->dev;
	const struct sr_bth *bth = sr_frame_bth(p, f);
	uint8_t src[16], dst[16];
	uint8_t op = sr_bth_opcode(bth);

	if (f->vlan != 0 || memcmp(p + 6, dv->info.mac, 6) != 0)
		return false;
	srd_frame_gid(p, f, false, src);
	if (!srd_dev_is_own(dv, src))
		return false;
	/* UD SEND_ONLY (+IMM): DETH's source QP is named on the wire */
	if (op == 0x64 || op == 0x65) {
		const uint8_t *deth = (const uint8_t *)bth + SR_BTH_LEN;
		uint32_t sqpn;

		if ((uint32_t)f->l4 + 8 + SR_BTH_LEN + 8 > f->l4 + f->l4_len)
			return false;
		sqpn = ((uint32_t)deth[5] << 16) | ((uint32_t)deth[6] << 8) |
		       deth[7];
		/* QP1 is the daemon's: a client's CM speaks only for its
		 * own communication IDs, and only to another QP1 */
		if (sqpn == 1 || sr_bth_dqpn(bth) == 1)
			return sqpn == 1 && sr_bth_dqpn(bth) == 1 &&
			       srd_qp1_client_ok(c, p, f);
		if (sqpn >> SRD_QPN_SHIFT != c->block)
			return false;
	}
	/* RC, UC, XRC and CNPs: only to the peer of one of its QPs (an XRC
	 * initiator's and a target's peers are registered as RC's are) */
	if ((op & SR_TT_MASK) == SR_TT_RC || (op & SR_TT_MASK) == SR_TT_UC ||
	    (op & SR_TT_MASK) == SR_TT_XRC || op == SR_OPCODE_CNP) {
		srd_frame_gid(p, f, true, dst);
		if (!srd_peers_has(c->peers, dst, sr_bth_dqpn(bth)))
			return false;
	}
	return true;
}

void srd_switch_from_client(void *client_ctx, const struct sr_link_frame *fr,
			    unsigned int n)
{
	struct srd_client *c = client_ctx;
	struct srd_device *dv = c->dev;

	if (dv == NULL)
		return;
	for (unsigned int i = 0; i < n; i++) {
		const uint8_t *p = fr[i].data;
		uint32_t len = fr[i].len;
		uint8_t dst[16], mac[6];
		struct sr_frame f;
		int rc;

		if (!sr_frame_layout(p, len, &f) || !sr_frame_is_roce(p, &f) ||
		    !srd_client_frame_ok(c, p, &f)) {
			c->forged++;
			sr_stats_add(sr_pmd_stats(c->port), SR_CTR_SW_DROP_FORGED, 1);
			continue;
		}
		if (sr_bth_dqpn(sr_frame_bth(p, &f)) == 1)
			srd_qp1_from_client(c, p, &f);  /* its connections */
		srd_frame_gid(p, &f, true, dst);
		/* a group's datagram: to the members here, and out */
		if (srd_to_members(dv, c->port, p, len, &f, SR_CTR_SW_LOCAL)) {
			sr_mcast_mac(dst, mac);
			if (srd_emit_port(dv, p, len, &f, mac))
				sr_stats_add(sr_pmd_stats(c->port),
					     SR_CTR_SW_TO_NIC, 1);
			continue;
		}
		if (srd_dev_is_own(dv, dst)) {      /* another process of ours */
			srd_to_client(dv, c->port, p, len, &f, SR_CTR_SW_LOCAL);
			continue;
		}
		rc = sr_pmd_resolve(dv->pmd, dst, mac);
		if (rc) {   /* asked; the transport's retry finds it known */
			sr_stats_add(sr_pmd_stats(c->port), SR_CTR_SW_DROP_NEIGH, 1);
			continue;
		}
		if (srd_emit_port(dv, p, len, &f, mac))
			sr_stats_add(sr_pmd_stats(c->port), SR_CTR_SW_TO_NIC, 1);
	}
}
