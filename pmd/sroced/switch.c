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
 * copied once, into the other side's buffer.  A client's frame that finds
 * no room where it goes waits, with the rest of its burst, and the
 * client's channel takes no more meanwhile (struct srd_park).
 */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "frame.h"
#include "gid.h"
#include "qp/mcast.h"
#include "sroced.h"
#include "wire/hdr.h"
#include "wire/opcode.h"

static struct sroced *srd_sw;

/* What became of a frame: sent, dropped (counted), or no room where it
 * goes (it may wait: srd_park). */
enum srd_fate {
	SRD_SENT,
	SRD_DROPPED,
	SRD_FULL,
};

/* May a frame that finds no room wait (srd_park)? */
enum srd_wait {
	SRD_WAIT,       /* yes: it comes back SRD_FULL */
	SRD_NOW,        /* no: it is dropped, and counted where it went */
	SRD_LATE,       /* no, it waited SRD_PARK_MAX_NS: dropped, and the
			 * client that had no room is stuck (SRD_STUCK_NS) */
};

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
 * way in and put on on the way out).  count: a frame that finds no room
 * is dropped, and counted there (sw_drop_full); else the caller may keep
 * it (srd_park).
 */
static bool srd_put(struct sr_pmd_dev *to, const uint8_t *p, uint32_t len,
		    const struct sr_frame *f, const uint8_t dst[6],
		    const uint8_t src[6], uint16_t vlan, uint8_t prio,
		    bool count)
{
	const struct sr_link_ops *ops = sr_pmd_link_ops();
	void *link = sr_pmd_link(to), *cookie;
	uint32_t body = len - f->l3;
	uint32_t hdr = SR_ETH_HLEN + (vlan != 0 ? SR_VLAN_HLEN : 0);
	uint8_t *buf = ops->tx_alloc(link, hdr + body, &cookie);

	if (buf == NULL) {
		if (count)
			sr_stats_add(sr_pmd_stats(to), SR_CTR_SW_DROP_FULL, 1);
		return false;
	}
	sr_frame_put_eth(buf, dst, src, vlan, prio, f->ethertype);
	memcpy(buf + hdr, p + f->l3, body);
	ops->tx_submit(link, cookie, hdr + body);
	return true;
}

static bool srd_put_client(const struct srd_client *c, const uint8_t *p,
			   uint32_t len, const struct sr_frame *f, bool count)
{
	return srd_put(c->port, p, len, f, c->dev->info.mac, c->gw_mac, 0, 0,
		       count);
}

static bool srd_put_port(const struct srd_device *dv, const uint8_t *p,
			 uint32_t len, const struct sr_frame *f,
			 const uint8_t mac[6], bool count)
{
	return srd_put(dv->pmd, p, len, f, mac, dv->info.mac, dv->cfg.vlan,
		       dv->cfg.vlan_prio, count);
}

bool srd_emit_client(const struct srd_client *c, const uint8_t *p,
		     uint32_t len, const struct sr_frame *f)
{
	return srd_put_client(c, p, len, f, true);
}

bool srd_emit_port(const struct srd_device *dv, const uint8_t *p,
		   uint32_t len, const struct sr_frame *f, const uint8_t mac[6])
{
	return srd_put_port(dv, p, len, f, mac, true);
}

/*
 * To the client that owns the destination QPN (of this device); QP1's
 * MADs to the client whose CM they name (qp1.c).  A frame to a stuck
 * client does not wait.
 */
static enum srd_fate srd_to_client(struct srd_device *dv,
				   struct sr_pmd_dev *counted,
				   const uint8_t *p, uint32_t len,
				   const struct sr_frame *f,
				   enum sr_dev_counter ok, enum srd_wait w)
{
	uint32_t dqpn = sr_bth_dqpn(sr_frame_bth(p, f));
	struct srd_client *c = srd_block_owner(dv, dqpn >> SRD_QPN_SHIFT);

	if (dqpn == 1) {
		srd_qp1_route(dv, counted, p, len, f, ok);
		return SRD_SENT;
	}
	if (dqpn == 0) {
		sr_stats_add(sr_pmd_stats(counted), SR_CTR_SW_DROP_GSI, 1);
		return SRD_DROPPED;
	}
	if (c == NULL) {
		sr_stats_add(sr_pmd_stats(counted), SR_CTR_SW_DROP_NO_OWNER, 1);
		return SRD_DROPPED;
	}
	if (c->stuck_until_ns != 0 && w == SRD_WAIT) {
		if (srd_now_ns() < c->stuck_until_ns)
			w = SRD_NOW;
		else
			c->stuck_until_ns = 0;
	}
	if (!srd_put_client(c, p, len, f, w != SRD_WAIT)) {
		if (w == SRD_LATE && c->stuck_until_ns == 0) {
			c->stuck_until_ns = srd_now_ns() + SRD_STUCK_NS;
			srd_log("client %u (pid %d, %s): its channel took nothing for %llu ms; frames to it drop when it is full, for %llu ms",
				c->id, (int)c->pid, c->comm,
				SRD_PARK_MAX_NS / 1000000, SRD_STUCK_NS / 1000000);
		}
		return w == SRD_WAIT ? SRD_FULL : SRD_DROPPED;
	}
	sr_stats_add(sr_pmd_stats(counted), ok, 1);
	return SRD_SENT;
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

/* One frame from the device's port. */
static enum srd_fate srd_from_port(void *ctx, const uint8_t *p, uint32_t len,
				   enum srd_wait w)
{
	struct srd_device *dv = ctx;
	struct sr_frame f;

	/* the port's classifier let only RoCEv2 to us through */
	if (!sr_frame_layout(p, len, &f) || !sr_frame_is_roce(p, &f))
		return SRD_DROPPED;
	if (srd_to_members(dv, dv->pmd, p, len, &f, SR_CTR_SW_TO_CLIENT))
		return SRD_SENT;
	return srd_to_client(dv, dv->pmd, p, len, &f, SR_CTR_SW_TO_CLIENT, w);
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

/*
 * One frame from a client: checked, then switched.  QP1's MADs and a
 * group's datagrams never wait (qp1.c has seen the MAD; a group's members
 * are several).
 */
static enum srd_fate srd_from_client(struct srd_client *c, const uint8_t *p,
				     uint32_t len, enum srd_wait w)
{
	struct srd_device *dv = c->dev;
	uint8_t dst[16], mac[6];
	struct sr_frame f;

	if (!sr_frame_layout(p, len, &f) || !sr_frame_is_roce(p, &f) ||
	    !srd_client_frame_ok(c, p, &f)) {
		c->forged++;
		sr_stats_add(sr_pmd_stats(c->port), SR_CTR_SW_DROP_FORGED, 1);
		return SRD_DROPPED;
	}
	if (sr_bth_dqpn(sr_frame_bth(p, &f)) == 1) {
		srd_qp1_from_client(c, p, &f);  /* its connections */
		if (w == SRD_WAIT)
			w = SRD_NOW;
	}
	srd_frame_gid(p, &f, true, dst);
	/* a group's datagram: to the members here, and out */
	if (srd_to_members(dv, c->port, p, len, &f, SR_CTR_SW_LOCAL)) {
		sr_mcast_mac(dst, mac);
		if (srd_emit_port(dv, p, len, &f, mac))
			sr_stats_add(sr_pmd_stats(c->port), SR_CTR_SW_TO_NIC, 1);
		return SRD_SENT;
	}
	if (srd_dev_is_own(dv, dst))            /* another process of ours */
		return srd_to_client(dv, c->port, p, len, &f, SR_CTR_SW_LOCAL,
				     w);
	if (sr_pmd_resolve(dv->pmd, dst, mac)) {
		/* asked; the transport's retry finds it known */
		sr_stats_add(sr_pmd_stats(c->port), SR_CTR_SW_DROP_NEIGH, 1);
		return SRD_DROPPED;
	}
	if (!srd_put_port(dv, p, len, &f, mac, w != SRD_WAIT))
		return w == SRD_WAIT ? SRD_FULL : SRD_DROPPED;
	sr_stats_add(sr_pmd_stats(c->port), SR_CTR_SW_TO_NIC, 1);
	return SRD_SENT;
}

typedef enum srd_fate (*srd_switch_fn)(void *ctx, const uint8_t *p,
					uint32_t len, enum srd_wait w);

static enum srd_fate srd_from_client_fn(void *ctx, const uint8_t *p,
					uint32_t len, enum srd_wait w)
{
	return srd_from_client(ctx, p, len, w);
}

/* Copy fr[0..n) into the park of the port they came from, which stops it. */
static void srd_park(struct srd_park **kp, struct sr_pmd_dev *from,
		     srd_switch_fn fn, void *ctx,
		     const struct sr_link_frame *fr, unsigned int n)
{
	struct srd_park *k = *kp;

	if (k == NULL) {
		uint32_t slot = sr_pmd_mtu(from) + SR_ETH_HLEN + SR_VLAN_HLEN;

		k = calloc(1, sizeof(*k));
		if (k != NULL)
			k->buf = malloc((size_t)slot * SR_CONFIG_BURST_MAX);
		if (k != NULL && k->buf == NULL) {
			free(k);
			k = NULL;
		}
		if (k != NULL)
			k->slot = slot;
		*kp = k;
	}
	if (k != NULL && k->n == 0)
		k->since_ns = srd_now_ns();
	for (unsigned int i = 0; i < n; i++) {
		/* no memory, no slot, a frame longer than the port's MTU:
		 * it goes now or never, as before */
		if (k == NULL || k->n == SR_CONFIG_BURST_MAX ||
		    fr[i].len > k->slot) {
			(void)fn(ctx, fr[i].data, fr[i].len, SRD_NOW);
			continue;
		}
		memcpy(k->buf + (size_t)k->n * k->slot, fr[i].data, fr[i].len);
		k->len[k->n++] = fr[i].len;
		sr_stats_add(sr_pmd_stats(from), SR_CTR_SW_PARKED, 1);
	}
	if (k != NULL && k->n != 0)
		sr_pmd_rx_pause(from, true);
}

static int srd_park_retry(struct srd_park *k, struct sr_pmd_dev *from,
			  srd_switch_fn fn, void *ctx, uint64_t now_ns)
{
	enum srd_wait w;

	if (k == NULL || k->n == 0)
		return 0;
	w = now_ns - k->since_ns >= SRD_PARK_MAX_NS ? SRD_LATE : SRD_WAIT;
	while (k->next < k->n) {
		if (fn(ctx, k->buf + (size_t)k->next * k->slot,
		       k->len[k->next], w) == SRD_FULL)
			return 1;
		k->next++;
	}
	k->n = k->next = 0;
	sr_pmd_rx_pause(from, false);
	return 1;
}

int srd_park_retry_client(struct srd_client *c, uint64_t now_ns)
{
	return srd_park_retry(c->park, c->port, srd_from_client_fn, c, now_ns);
}

int srd_park_retry_port(struct srd_device *dv, uint64_t now_ns)
{
	return srd_park_retry(dv->park, dv->pmd, srd_from_port, dv, now_ns);
}

void srd_park_free(struct srd_park **k)
{
	if (*k != NULL)
		free((*k)->buf);
	free(*k);
	*k = NULL;
}

/*
 * A burst from a port: each frame switched, in order; the first that finds
 * no room, and all after it, wait (srd_park) — as do all of a burst that
 * comes while some wait (a burst's frames come in several calls).
 */
static void srd_switch(struct srd_park **kp, struct sr_pmd_dev *from,
		       srd_switch_fn fn, void *ctx,
		       const struct sr_link_frame *fr, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if ((*kp != NULL && (*kp)->n != 0) ||
		    fn(ctx, fr[i].data, fr[i].len, SRD_WAIT) == SRD_FULL) {
			srd_park(kp, from, fn, ctx, fr + i, n - i);
			return;
		}
	}
}

void srd_switch_from_port(void *dev_ctx, const struct sr_link_frame *fr,
			  unsigned int n)
{
	struct srd_device *dv = dev_ctx;

	srd_switch(&dv->park, dv->pmd, srd_from_port, dv, fr, n);
}

void srd_switch_from_client(void *client_ctx, const struct sr_link_frame *fr,
			    unsigned int n)
{
	struct srd_client *c = client_ctx;

	if (c->dev == NULL)
		return;
	srd_switch(&c->park, c->port, srd_from_client_fn, c, fr, n);
}
