/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rxtx.c — the data path: receive bursts classified to the transport, ARP
 * and ND; the link ops (lib/core/link.h) over mbufs; the transmit burst
 * flushed at the end of each poll.  A port whose queue is full holds the
 * sender back, as a NIC's does: what it refuses waits for the next round
 * (tx_wait), in order, and the transport's tx_alloc fails while a round's
 * worth waits; frames are dropped only with the link down (tx_full).
 * Capture and fault injection sit here,
 * at the wire: capture sees what is sent after TX faults and what is
 * received before RX faults.
 *
 * Everything runs per lane (dev_priv.h): a lane bursts its own port queue
 * pair and hands the RoCE frames of QPs it does not own to their lane's
 * rx_ring, so each QP is processed, and transmitted, by one lane in order.
 *
 * A frame whose payload stays in registered memory (tx_alloc_ref) is three
 * segments: headers, the payload as an external buffer that holds the
 * region's reference, pad and ICRC.  Ports that copy a frame in their
 * transmit burst (port.c: memif without zero copy, af_packet, tap) take
 * it, and the reference goes back in the burst.  A frame that must outlive
 * its round (the port's queue full, a fault's hold, our own MAC) is copied
 * into one plain mbuf first, so a deregistration waits at most a round.
 */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "classify.h"
#include "core/dev.h"
#include "daemon.h"
#include "mr/mr.h"
#include "dev_priv.h"

/* Bursts tried in a row before what is left waits for the next round. */
#define SR_TX_RETRIES 4

/*
 * initial-exec: read every round and per frame; in a shared library (the
 * drop-in libibverbs) the default model calls __tls_get_addr each time.
 */
__thread struct sr_pmd_lane *sr_rxtx_current
	__attribute__((tls_model("initial-exec")));

/* ---- capture ---- */

static void sr_rxtx_capture(struct sr_pmd_dev *dev, struct rte_mbuf *m)
{
	const uint8_t *seg[8];
	uint32_t seg_len[8], n = 0;

	for (struct rte_mbuf *s = m; s && n < 8; s = s->next, n++) {
		seg[n] = rte_pktmbuf_mtod(s, const uint8_t *);
		seg_len[n] = s->data_len;
	}
	sr_wire_lock(dev);
	if (sr_capture_segs(dev->cap, seg, seg_len, n, m->pkt_len))
		sr_stats_add(dev->stats, SR_CTR_CAPTURE_ERR, 1);
	sr_wire_unlock(dev);
}

/*
 * The per-frame counters of a lane's own bursts: with one lane its
 * progress lock makes it their only writer (sr_stats_add_1w; a locked add
 * after a burst waits for the frames' copies into the link's ring, ~20 ns
 * a message for the drop-in's 64 B WRITEs); several lanes share them.
 */
static inline void sr_rxtx_count(const struct sr_pmd_dev *dev,
				 unsigned int id, uint64_t n)
{
	if (dev->nlanes == 1)
		sr_stats_add_1w(&dev->stats->dev[id], n);
	else
		sr_stats_add(dev->stats, id, n);
}

/* ---- transmit ---- */

/*
 * UDP over IPv6 of a chained frame (the payload by reference): DPDK 22.11's
 * rte_ipv6_udptcp_cksum_mbuf is still experimental API, so its two stable
 * halves, summed over the segments and the pseudo-header.
 */
static uint16_t sr_rxtx_udp6_cksum_segs(const struct rte_mbuf *m,
					const struct rte_ipv6_hdr *ip6,
					uint32_t l4)
{
	uint16_t raw;
	uint32_t sum;

	if (rte_raw_cksum_mbuf(m, l4, rte_be_to_cpu_16(ip6->payload_len),
			       &raw) != 0)
		return 0;
	sum = (uint32_t)raw + rte_ipv6_phdr_cksum(ip6, 0);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	return (uint16_t)(sum == 0 ? 0xffff : sum);   /* 0 means none */
}

/*
 * Checksums the transport left zero: IPv4 header always, UDP over IPv6
 * (mandatory there; zero is allowed over IPv4).  Offloaded when the port can.
 */
static void sr_rxtx_csum(struct sr_pmd_dev *dev, struct rte_mbuf *m)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	struct sr_frame f;

	if (!sr_frame_layout(p, m->data_len, &f) || f.l4 == 0 ||
	    f.proto != SR_IPPROTO_UDP)
		return;
	m->l2_len = f.l3;
	m->l3_len = (uint16_t)(f.l4 - f.l3);
	if (f.ip_version == 4) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + f.l3);

		if (ip->hdr_checksum != 0)
			return;
		if (dev->tx_ip_cksum)
			m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		else
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		return;
	}
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(p + f.l3);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(p + f.l4);

	if (udp->dgram_cksum != 0)
		return;
	if (dev->tx_udp_cksum) {
		m->ol_flags |= RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_UDP_CKSUM;
		udp->dgram_cksum = rte_ipv6_phdr_cksum(ip6, m->ol_flags);
	} else if (m->nb_segs > 1) {
		udp->dgram_cksum = sr_rxtx_udp6_cksum_segs(m, ip6, f.l4);
	} else {
		udp->dgram_cksum = rte_ipv6_udptcp_cksum(ip6, udp);
	}
}

static uint8_t *sr_rxtx_tx_alloc(void *link, uint32_t len, void **cookie)
{
	struct sr_pmd_dev *dev = link;
	struct sr_pmd_lane *l = sr_rxtx_lane_of(dev);
	struct rte_mbuf *m;

	/* The port is behind by a whole queue: the transport waits too;
	 * and so does another thread when the lane's ring for it is full. */
	if (l != NULL ? l->n_tx_pend >= SR_TX_PEND_MAX :
	    dev->lane[0].tx_ring != NULL && rte_ring_full(dev->lane[0].tx_ring))
		return NULL;
	m = rte_pktmbuf_alloc(dev->pool);

	if (m == NULL)
		return NULL;
	if (len > rte_pktmbuf_tailroom(m) || len > dev->max_frame) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	*cookie = m;
	return rte_pktmbuf_mtod(m, uint8_t *);
}

static void sr_rxtx_tx_submit(void *link, void *cookie, uint32_t len)
{
	struct sr_pmd_dev *dev = link;
	struct sr_pmd_lane *l = sr_rxtx_lane_of(dev);
	struct rte_mbuf *m = cookie;

	if (m->nb_segs == 1) {      /* a chained frame's lengths are set */
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
	}
	sr_rxtx_csum(dev, m);
	if (l != NULL) {
		sr_rxtx_queue(l, m);
		return;
	}
	if (rte_ring_mp_enqueue(dev->lane[0].tx_ring, m) != 0) {
		rte_pktmbuf_free(m);
		__atomic_fetch_add(&dev->tx_ring_full, 1, __ATOMIC_RELAXED);
	}
}

/* The payload segment's view of the registration it points into. */
struct sr_rxtx_ref {
	struct rte_mbuf_ext_shared_info shinfo;
	struct sr_mr_ref ref;
};

/* The port has read the payload (or the frame was dropped): let the MR go. */
static void sr_rxtx_ref_free(void *addr, void *opaque)
{
	struct sr_rxtx_ref *r = opaque;

	(void)addr;
	sr_mr_ref_put(&r->ref);
}

static uint8_t *sr_rxtx_tx_alloc_ref(void *link, uint32_t hdr_len,
				     const uint8_t *payload, uint32_t len,
				     uint32_t tail_len, struct sr_mr_ref *ref,
				     uint8_t **tail, void **cookie)
{
	struct sr_pmd_dev *dev = link;
	struct sr_pmd_lane *l = sr_rxtx_lane_of(dev);
	struct rte_mbuf *m[3];
	struct sr_rxtx_ref *r;

	/*
	 * Only in a lane's round, which sends or copies what it queued before
	 * it ends; frames headed for fault rules are copied anyway.
	 */
	if (l == NULL || l->n_tx_pend >= SR_TX_PEND_MAX || dev->fault_on_tx ||
	    len == 0 || len > UINT16_MAX ||
	    hdr_len + len + tail_len > dev->max_frame)
		return NULL;
	if (rte_pktmbuf_alloc_bulk(dev->pool, m, 3) != 0)
		return NULL;
	if (hdr_len > rte_pktmbuf_tailroom(m[0]) ||
	    tail_len > rte_pktmbuf_tailroom(m[2])) {
		rte_pktmbuf_free_bulk(m, 3);
		return NULL;
	}
	/* the payload mbuf's own room, unused while attached, keeps the ref */
	r = rte_pktmbuf_mtod(m[1], struct sr_rxtx_ref *);
	r->ref = *ref;
	r->shinfo.free_cb = sr_rxtx_ref_free;
	r->shinfo.fcb_opaque = r;
	rte_mbuf_ext_refcnt_set(&r->shinfo, 1);
	rte_pktmbuf_attach_extbuf(m[1], (void *)(uintptr_t)payload, RTE_BAD_IOVA,
				  (uint16_t)len, &r->shinfo);
	m[0]->data_len = (uint16_t)hdr_len;
	m[1]->data_len = (uint16_t)len;
	m[2]->data_len = (uint16_t)tail_len;
	m[0]->next = m[1];
	m[1]->next = m[2];
	m[0]->nb_segs = 3;
	m[0]->pkt_len = hdr_len + len + tail_len;
	sr_rxtx_count(dev, SR_CTR_TX_BY_REF, 1);
	*tail = rte_pktmbuf_mtod(m[2], uint8_t *);
	*cookie = m[0];
	return rte_pktmbuf_mtod(m[0], uint8_t *);
}

/*
 * A frame that points at registered memory made one plain mbuf, for a
 * frame that must outlive its round.  NULL (m freed) when the pool is dry.
 */
static struct rte_mbuf *sr_rxtx_flatten(struct sr_pmd_dev *dev,
					struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (m->nb_segs == 1)
		return m;
	c = rte_pktmbuf_copy(m, dev->pool, 0, UINT32_MAX);
	rte_pktmbuf_free(m);
	sr_stats_add(dev->stats, c ? SR_CTR_TX_REF_COPIED : SR_CTR_TX_FULL, 1);
	return c;
}

/* Flatten the frames of a queue that wait for the next round, in order. */
static uint32_t sr_rxtx_flatten_all(struct sr_pmd_dev *dev,
				    struct rte_mbuf **q, uint32_t n)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < n; i++) {
		struct rte_mbuf *m = sr_rxtx_flatten(dev, q[i]);

		if (m != NULL)
			q[k++] = m;
	}
	return k;
}

static void sr_rxtx_tx_abort(void *link, void *cookie)
{
	(void)link;
	rte_pktmbuf_free(cookie);
}

static uint64_t sr_rxtx_now_ns(void *link)
{
	return sr_pmd_now_ns(link);
}

static uint64_t sr_rxtx_clock_ns(void *link)
{
	return sr_dev_now_ns(link);
}

const struct sr_link_ops sr_rxtx_link_ops = {
	.tx_alloc = sr_rxtx_tx_alloc,
	.tx_submit = sr_rxtx_tx_submit,
	.tx_abort = sr_rxtx_tx_abort,
	.tx_alloc_ref = sr_rxtx_tx_alloc_ref,
	.now_ns = sr_rxtx_now_ns,
	.clock_ns = sr_rxtx_clock_ns,
};

/*
 * Put the staged frames on the wire.  What the port refuses stays staged,
 * first in line for the next burst; with the link down it is dropped.
 */
static void sr_rxtx_burst(struct sr_pmd_lane *l)
{
	struct sr_pmd_dev *dev = l->dev;
	uint32_t sent = 0, n = l->n_tx_out, tries = 0;
	uint64_t bytes = 0;

	if (n == 0)
		return;
	/* counted before: a frame the driver took is no longer ours to read */
	for (uint32_t i = 0; i < n; i++)
		bytes += l->tx_out[i]->pkt_len;
	while (dev->link_ok && sent < n && tries++ < SR_TX_RETRIES)
		sent += rte_eth_tx_burst(dev->port_id, l->id, l->tx_out + sent,
					 (uint16_t)(n - sent));
	for (uint32_t i = sent; i < n; i++)
		bytes -= l->tx_out[i]->pkt_len;
	if (sent)
		dev->last_tx_ns = l->round_ns;
	/* a client of sroced wakes a daemon that sleeps, and the daemon's
	 * channel a client that sleeps (sroced/proto.h) */
	if (sent && dev->ring_flag != NULL &&
	    sr_pmd_daemon_bell_ring(dev->ring_flag, dev->ring_efd))
		sr_stats_add(dev->stats, SR_CTR_SW_BELL_RUNG, 1);
	sr_rxtx_count(dev, SR_CTR_SENT_PKTS, sent);
	sr_rxtx_count(dev, SR_CTR_SENT_BYTES, bytes);
	if (!dev->link_ok) {
		for (uint32_t i = sent; i < n; i++)
			rte_pktmbuf_free(l->tx_out[i]);
		sr_stats_add(dev->stats, SR_CTR_TX_FULL, n - sent);
		sent = n;
	}
	if (sent < n) {
		memmove(l->tx_out, l->tx_out + sent,
			(n - sent) * sizeof(l->tx_out[0]));
		sr_stats_add(dev->stats, SR_CTR_TX_WAIT, n - sent);
	}
	l->n_tx_out = n - sent;
}

/*
 * One frame goes to the wire: captured and staged.  false: the port's
 * queue is full and the frame was not taken (the caller keeps it).
 */
static bool sr_rxtx_emit(struct sr_pmd_lane *l, struct rte_mbuf *m)
{
	struct sr_pmd_dev *dev = l->dev;

	if (l->n_tx_out == dev->cfg.burst) {
		sr_rxtx_burst(l);
		if (l->n_tx_out == dev->cfg.burst)
			return false;
	}
	if (dev->cap)
		sr_rxtx_capture(dev, m);
	/*
	 * A datagram to a group this device joined goes out and, as on an
	 * RNIC, to the device's own QPs of the group too.
	 */
	if ((rte_pktmbuf_mtod(m, const uint8_t *)[0] & 1) && dev->n_mc &&
	    sr_dev_mcast_joined(dev, rte_pktmbuf_mtod(m, const uint8_t *),
				m->data_len)) {
		struct rte_mbuf *copy = rte_pktmbuf_copy(m, dev->pool, 0,
							 UINT32_MAX);

		if (copy == NULL || rte_ring_mp_enqueue(dev->loop_ring, copy)) {
			rte_pktmbuf_free(copy);
			sr_stats_add(dev->stats, SR_CTR_TX_FULL, 1);
		}
	}
	/*
	 * A frame to our own MAC (a QP talking to a QP of the same device)
	 * never reaches the port: it comes back in at the next receive.
	 */
	if (memcmp(rte_pktmbuf_mtod(m, const uint8_t *), dev->addr.mac, 6) == 0) {
		m = sr_rxtx_flatten(dev, m);     /* read in a later round */
		if (m == NULL)
			return true;
		if (rte_ring_mp_enqueue(dev->loop_ring, m) != 0) {
			rte_pktmbuf_free(m);
			sr_stats_add(dev->stats, SR_CTR_TX_FULL, 1);
		} else {
			sr_rxtx_count(dev, SR_CTR_SENT_PKTS, 1);
			sr_rxtx_count(dev, SR_CTR_SENT_BYTES, m->pkt_len);
		}
		return true;
	}
	l->tx_out[l->n_tx_out++] = m;
	if (l->n_tx_out == dev->cfg.burst)
		sr_rxtx_burst(l);
	return true;
}

/* Emit a frame that cannot wait (fault injection's copies and releases). */
static void sr_rxtx_emit_or_drop(struct sr_pmd_lane *l, struct rte_mbuf *m)
{
	if (!sr_rxtx_emit(l, m)) {
		rte_pktmbuf_free(m);
		sr_stats_add(l->dev->stats, SR_CTR_TX_FULL, 1);
	}
}

/* Frames a lane's hold counts (read without the wire lock: a hint). */
static inline uint32_t sr_rxtx_held(const struct sr_fault_hold *h)
{
	return __atomic_load_n(&h->count, __ATOMIC_RELAXED);
}

static void sr_rxtx_emit_held(struct sr_pmd_lane *l, uint64_t now,
			      bool passed)
{
	void *held[SR_CONFIG_BURST_MAX];
	uint32_t n;

	do {
		n = sr_fault_hold_pop(&l->hold_tx, now, passed, held,
				      SR_CONFIG_BURST_MAX);
		for (uint32_t i = 0; i < n; i++)
			sr_rxtx_emit_or_drop(l, held[i]);
	} while (n == SR_CONFIG_BURST_MAX);
}

/* Apply the TX fault rules to one frame, then emit what survives. */
static void sr_rxtx_fault_tx(struct sr_pmd_lane *l, struct rte_mbuf *m,
			     uint64_t now)
{
	struct sr_pmd_dev *dev = l->dev;
	uint64_t delay = 0;
	struct rte_mbuf *copy;
	unsigned int act;
	uint8_t *p;
	int held;

	/* held, corrupted, duplicated: never registered memory (a rule may
	 * have come after the frame was built) */
	m = sr_rxtx_flatten(dev, m);
	if (m == NULL)
		return;
	p = rte_pktmbuf_mtod(m, uint8_t *);

	sr_wire_lock(dev);
	act = sr_fault_decide(&dev->fault_tx, SR_FAULT_TX, p, m->data_len,
			      &delay);
	sr_wire_unlock(dev);
	switch (act) {
	case SR_FAULT_DROP:
		sr_stats_add(dev->stats, SR_CTR_FAULT_DROP, 1);
		rte_pktmbuf_free(m);
		return;
	case SR_FAULT_DUP:
		sr_stats_add(dev->stats, SR_CTR_FAULT_DUP, 1);
		copy = rte_pktmbuf_copy(m, dev->pool, 0, UINT32_MAX);
		if (copy)
			sr_rxtx_emit_or_drop(l, copy);
		break;
	case SR_FAULT_REORDER:
	case SR_FAULT_DELAY:
		/* held per lane: a QP's frames stay on its lane's queue */
		held = sr_fault_hold_push(&l->hold_tx, m,
					  act == SR_FAULT_DELAY ? now + delay :
								  UINT64_MAX);
		if (held == 0) {
			sr_stats_add(dev->stats, act == SR_FAULT_DELAY ?
					 SR_CTR_FAULT_DELAY : SR_CTR_FAULT_REORDER, 1);
			return;
		}
		break;
	case SR_FAULT_CORRUPT:
		sr_stats_add(dev->stats, SR_CTR_FAULT_CORRUPT, 1);
		sr_fault_corrupt(p, m->data_len);
		break;
	case SR_FAULT_CE:
		if (sr_fault_mark_ce(p, m->data_len))
			sr_stats_add(dev->stats, SR_CTR_FAULT_CE, 1);
		break;
	default:
		break;
	}
	sr_rxtx_emit_or_drop(l, m);
	/* A frame passed: what waits to be reordered behind it goes now. */
	sr_rxtx_emit_held(l, now, true);
}

void sr_rxtx_queue(struct sr_pmd_lane *l, struct rte_mbuf *m)
{
	if (l->n_tx_pend == SR_TX_PEND_MAX)
		sr_rxtx_flush(l);
	if (l->n_tx_pend == SR_TX_PEND_MAX) {        /* the port is stuck */
		rte_pktmbuf_free(m);
		sr_stats_add(l->dev->stats, SR_CTR_TX_FULL, 1);
		return;
	}
	l->tx_pend[l->n_tx_pend++] = m;
}

uint32_t sr_rxtx_flush(struct sr_pmd_lane *l)
{
	struct sr_pmd_dev *dev = l->dev;
	uint64_t now = 0;
	uint32_t n, room, i;

	/* Frames handed over by other threads, as many as fit this round. */
	room = SR_TX_PEND_MAX - l->n_tx_pend;
	if (room && l->tx_ring != NULL)
		l->n_tx_pend += rte_ring_sc_dequeue_burst(l->tx_ring,
			(void **)(l->tx_pend + l->n_tx_pend), room, NULL);
	n = l->n_tx_pend;
	if (dev->fault_on_tx || l->hold_tx.count)
		now = sr_rxtx_now_ns(dev);
	for (i = 0; i < n; i++) {
		if (dev->fault_on_tx)
			sr_rxtx_fault_tx(l, l->tx_pend[i], now);
		else if (!sr_rxtx_emit(l, l->tx_pend[i]))
			break;                  /* the rest waits, in order */
	}
	if (i < n)
		memmove(l->tx_pend, l->tx_pend + i,
			(n - i) * sizeof(l->tx_pend[0]));
	l->n_tx_pend = n - i;
	if (l->hold_tx.count)
		sr_rxtx_emit_held(l, now, false);
	sr_rxtx_burst(l);
	/* what waits for the next round lets go of registered memory */
	if (dev->tx_ref_min != 0) {
		l->n_tx_out = sr_rxtx_flatten_all(dev, l->tx_out, l->n_tx_out);
		l->n_tx_pend = sr_rxtx_flatten_all(dev, l->tx_pend,
						   l->n_tx_pend);
	}
	return n;       /* frames sent or waiting: either is work */
}

/* ---- receive ---- */

/*
 * The RoCE frames of a receive burst go to the transport together (one
 * call, one lane lock); their mbufs are freed after it.
 */
struct sr_rx_batch {
	struct sr_link_frame f[SR_CONFIG_BURST_MAX];
	struct rte_mbuf *m[SR_CONFIG_BURST_MAX];
	unsigned int n;
};

static void sr_rxtx_hand_over(struct sr_pmd_dev *dev, struct sr_rx_batch *b)
{
	sr_link_rx_fn fn = __atomic_load_n(&dev->rx_fn, __ATOMIC_ACQUIRE);

	if (b->n == 0)
		return;
	if (fn != NULL)
		fn(dev->rx_ctx, b->f, b->n);
	else
		sr_stats_add(dev->stats, SR_CTR_DROP_NO_HANDLER, b->n);
	rte_pktmbuf_free_bulk(b->m, b->n);
	b->n = 0;
}

/*
 * With several lanes, the lane that owns a received frame: its QP's for
 * RoCE (the transport shards QPs by QPN, lib/core/dev.h), lane 0 for ARP
 * and ND.  A frame for another lane goes to its rx_ring; true when it did
 * (or was dropped because that ring is full).
 */
static bool sr_rxtx_steer(struct sr_pmd_lane *l, struct rte_mbuf *m,
			  enum sr_rx_class c, const uint8_t *p,
			  const struct sr_frame *f)
{
	struct sr_pmd_dev *dev = l->dev;
	uint32_t owner = 0;

	if (c == SR_RX_ROCE)
		owner = sr_dev_qpn_shard(sr_bth_dqpn(sr_frame_bth(p, f)),
					 dev->nlanes);
	else if (c == SR_RX_DROP)
		return false;
	if (owner == l->id)
		return false;
	if (rte_ring_mp_enqueue(dev->lane[owner].rx_ring, m) != 0) {
		rte_pktmbuf_free(m);
		sr_stats_add(dev->stats, SR_CTR_DROP_STEER, 1);
	} else {
		l->n_steered++;         /* counted once per round (sr_rxtx_rx) */
	}
	return true;
}

/*
 * Classify one frame: RoCE joins the batch, the rest is handled here.
 * steer: the frame came from the port (or a fault's hold), not from
 * another lane, so it may belong to another lane.
 */
static void sr_rxtx_deliver(struct sr_pmd_lane *l, struct rte_mbuf *m,
			    struct sr_rx_batch *b, bool steer)
{
	struct sr_pmd_dev *dev = l->dev;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t len = m->pkt_len;
	enum sr_rx_class c;
	unsigned int reason = 0;
	struct sr_frame f;

	if (m->nb_segs > 1) {
		if (len > dev->max_frame) {
			sr_stats_add(dev->stats, SR_CTR_DROP_TOO_LONG, 1);
			rte_pktmbuf_free(m);
			return;
		}
		/* linearised into the lane's scratch buffer: goes alone */
		sr_rxtx_hand_over(dev, b);
		p = rte_pktmbuf_read(m, 0, len, l->scratch);
	}
	c = sr_rx_classify(&dev->addr, p, len, &f, &reason);
	if (steer && dev->nlanes > 1 && sr_rxtx_steer(l, m, c, p, &f))
		return;
	switch (c) {
	case SR_RX_ROCE:
		if (b->n == SR_CONFIG_BURST_MAX)
			sr_rxtx_hand_over(dev, b);
		b->f[b->n] = (struct sr_link_frame){ .data = p, .len = len };
		b->m[b->n++] = m;
		if (m->nb_segs > 1)
			sr_rxtx_hand_over(dev, b);
		return;
	case SR_RX_ARP:
		sr_stats_add(dev->stats, SR_CTR_ARP_RX, 1);
		sr_dev_arp_input(dev, p, len, &f);
		break;
	case SR_RX_ND:
		sr_stats_add(dev->stats, SR_CTR_ND_RX, 1);
		sr_dev_nd_input(dev, p, len, &f);
		break;
	case SR_RX_IGMP:
		sr_stats_add(dev->stats, SR_CTR_IGMP_RX, 1);
		sr_dev_igmp_input(dev, p, len, &f);
		break;
	case SR_RX_DROP:
		sr_stats_add(dev->stats, reason, 1);
		break;
	}
	rte_pktmbuf_free(m);
}

static void sr_rxtx_release_rx(struct sr_pmd_lane *l, uint64_t now,
			       bool passed, struct sr_rx_batch *b)
{
	struct sr_pmd_dev *dev = l->dev;
	void *held[SR_CONFIG_BURST_MAX];
	uint32_t n;

	sr_wire_lock(dev);
	n = sr_fault_hold_pop(&dev->hold_rx, now, passed, held,
			      SR_CONFIG_BURST_MAX);
	sr_wire_unlock(dev);
	for (uint32_t i = 0; i < n; i++)
		sr_rxtx_deliver(l, held[i], b, true);
}

/* RX faults; returns true when the caller still delivers m. */
static bool sr_rxtx_fault_rx(struct sr_pmd_lane *l, struct rte_mbuf *m,
			     uint64_t now, struct sr_rx_batch *b)
{
	struct sr_pmd_dev *dev = l->dev;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint64_t delay = 0;
	unsigned int act;
	int held;

	sr_wire_lock(dev);
	act = sr_fault_decide(&dev->fault_rx, SR_FAULT_RX, p, m->data_len,
			      &delay);
	sr_wire_unlock(dev);
	switch (act) {
	case SR_FAULT_DROP:
		sr_stats_add(dev->stats, SR_CTR_FAULT_DROP, 1);
		rte_pktmbuf_free(m);
		return false;
	case SR_FAULT_DUP:
		sr_stats_add(dev->stats, SR_CTR_FAULT_DUP, 1);
		rte_pktmbuf_refcnt_update(m, 1); /* delivered twice: every segment */
		sr_rxtx_deliver(l, m, b, true);
		return true;
	case SR_FAULT_REORDER:
	case SR_FAULT_DELAY:
		sr_wire_lock(dev);
		held = sr_fault_hold_push(&dev->hold_rx, m,
					  act == SR_FAULT_DELAY ? now + delay :
								  UINT64_MAX);
		sr_wire_unlock(dev);
		if (held == 0) {
			sr_stats_add(dev->stats, act == SR_FAULT_DELAY ?
					 SR_CTR_FAULT_DELAY : SR_CTR_FAULT_REORDER, 1);
			return false;
		}
		return true;
	case SR_FAULT_CORRUPT:
		sr_stats_add(dev->stats, SR_CTR_FAULT_CORRUPT, 1);
		sr_fault_corrupt(p, m->data_len);
		return true;
	case SR_FAULT_CE:
		if (sr_fault_mark_ce(p, m->data_len))
			sr_stats_add(dev->stats, SR_CTR_FAULT_CE, 1);
		return true;
	default:
		return true;
	}
}

/* Frames other lanes received for this one: already counted and captured. */
static uint32_t sr_rxtx_rx_steered(struct sr_pmd_lane *l,
				   struct sr_rx_batch *b)
{
	struct rte_mbuf *pkts[SR_CONFIG_BURST_MAX];
	uint32_t n;

	n = rte_ring_sc_dequeue_burst(l->rx_ring, (void **)pkts,
				      l->dev->cfg.burst, NULL);
	for (uint32_t i = 0; i < n; i++)
		sr_rxtx_deliver(l, pkts[i], b, false);
	return n;
}

uint32_t sr_rxtx_rx(struct sr_pmd_lane *l)
{
	struct sr_pmd_dev *dev = l->dev;
	struct rte_mbuf *pkts[SR_CONFIG_BURST_MAX];
	struct sr_rx_batch b;
	uint64_t bytes = 0, now = 0;
	uint32_t steered = 0;
	uint16_t n = 0;

	b.n = 0;
	if (l->rx_ring != NULL)
		steered = sr_rxtx_rx_steered(l, &b);
	if (dev->rx_paused) {           /* the port's queue holds its sender */
		sr_rxtx_hand_over(dev, &b);
		return steered;
	}
	if (l->id == 0)
		n = (uint16_t)rte_ring_sc_dequeue_burst(dev->loop_ring,
			(void **)pkts, dev->cfg.burst, NULL);
	if (n < dev->cfg.burst && dev->link_ok)
		n += rte_eth_rx_burst(dev->port_id, l->id, pkts + n,
				      (uint16_t)(dev->cfg.burst - n));
	if (dev->fault_on_rx || sr_rxtx_held(&dev->hold_rx))
		now = l->round_ns;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];

		bytes += m->pkt_len;
		if (dev->cap)
			sr_rxtx_capture(dev, m);
		if (dev->fault_on_rx && !sr_rxtx_fault_rx(l, m, now, &b))
			continue;
		sr_rxtx_deliver(l, m, &b, true);
		if (sr_rxtx_held(&dev->hold_rx))
			sr_rxtx_release_rx(l, now, true, &b);
	}
	if (n) {
		sr_rxtx_count(dev, SR_CTR_RCVD_PKTS, n);
		sr_rxtx_count(dev, SR_CTR_RCVD_BYTES, bytes);
	}
	if (sr_rxtx_held(&dev->hold_rx))
		sr_rxtx_release_rx(l, now, false, &b);
	sr_rxtx_hand_over(dev, &b);
	if (l->n_steered) {
		sr_stats_add(dev->stats, SR_CTR_RX_STEERED, l->n_steered);
		l->n_steered = 0;
	}
	return n + steered;
}

/* Free every frame still held, staged or handed over (device teardown). */
void sr_rxtx_release_all(struct sr_pmd_dev *dev)
{
	void *held[SR_FAULT_HOLD_MAX];
	uint32_t n;
	void *m;

	n = sr_fault_hold_drain(&dev->hold_rx, held, SR_FAULT_HOLD_MAX);
	for (uint32_t i = 0; i < n; i++)
		rte_pktmbuf_free(held[i]);
	while (dev->loop_ring && rte_ring_sc_dequeue(dev->loop_ring, &m) == 0)
		rte_pktmbuf_free(m);
	for (uint32_t k = 0; k < dev->nlanes; k++) {
		struct sr_pmd_lane *l = &dev->lane[k];

		n = sr_fault_hold_drain(&l->hold_tx, held, SR_FAULT_HOLD_MAX);
		for (uint32_t i = 0; i < n; i++)
			rte_pktmbuf_free(held[i]);

		for (uint32_t i = 0; i < l->n_tx_pend; i++)
			rte_pktmbuf_free(l->tx_pend[i]);
		l->n_tx_pend = 0;
		for (uint32_t i = 0; i < l->n_tx_out; i++)
			rte_pktmbuf_free(l->tx_out[i]);
		l->n_tx_out = 0;
		while (l->tx_ring && rte_ring_sc_dequeue(l->tx_ring, &m) == 0)
			rte_pktmbuf_free(m);
		while (l->rx_ring && rte_ring_sc_dequeue(l->rx_ring, &m) == 0)
			rte_pktmbuf_free(m);
	}
}
