/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp1.c — QP1 of sroced's devices (sroced.h, lib/cm/route.h).
 *
 * Every process runs its own CM (pmd/cm_host.c) over the device's one QP1,
 * which is the daemon's: each client's communication IDs carry its QPN
 * block, and the service IDs it listens on are registered here (SRD_LISTEN).
 * A MAD for QP1 — from the port, or from a client to the device's own
 * address — goes to the client its service ID or communication ID names
 * (cm/route.h); what names no client (a REQ for a service nobody listens
 * on, a DREQ for a client that died, a Get) goes to the daemon's own CM,
 * which answers as a lone CM would (REJ "invalid service ID", DREP, GetResp)
 * and counts the rest (cm_rx, cm_drop, gsi_drop in the device's counters).
 * A MAD a client sends must speak for its own block (switch.c refuses it
 * otherwise).  Every CM MAD to or from a client is also shown to the
 * device's watch (cm/watch.h): when a client dies, its peers get a DREQ
 * for each of its connections, as the kernel's CM sends for a process
 * that exits, and the watch takes their DREPs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm/gsi.h"
#include "cm/route.h"
#include "cm/watch.h"
#include "counters.h"
#include "frame.h"
#include "sroced.h"
#include "wire/hdr.h"

/* UDP + BTH + DETH before the MAD, ICRC after it. */
#define SRD_MAD_OFF (8u + SR_BTH_LEN + 8u)
/* Connections followed per device (a client's CM allows 1024). */
#define SRD_WATCH_MAX 4096u

/*
 * A REQ or SIDR_REQ for a service nobody listens on yet is held a while
 * before the daemon's CM answers it.  A server often tells its peer where
 * to connect before it listens (qperf: the port over TCP, then
 * rdma_listen; perftest -R: its control connection, then the data
 * listener), and a client's SRD_LISTEN comes on the control socket, a
 * round trip behind the peer's REQ on the wire: answered at once, the
 * peer got REJ or "service ID not supported" and failed.  A kernel's
 * rdma_listen takes no round trip.  A held MAD goes to the listener as
 * soon as there is one (within a poll, 1 ms), or after --cm-hold-ms
 * (SRD_CM_HOLD_MS; 0: none held) to the daemon's CM, which answers it as
 * before.  Counted sw_cm_held.
 */
#define SRD_HOLD_MAX 16u
#define SRD_HOLD_FRAME 512u

struct srd_held {
	uint64_t since;
	uint32_t len;
	uint8_t frame[SRD_HOLD_FRAME];
};

static void srd_held_poll(struct srd_device *dv, uint64_t now);

static struct sroced *srd_q;

/* ---- listeners ---- */

static void srd_listen_count(struct srd_client *c, int n)
{
	struct sr_stats_shm *st = sr_pmd_stats(c->port);

	if (st != NULL)
		st->client.listeners += (uint32_t)n;
}

int srd_listen_set(struct sroced *d, struct srd_client *c, uint64_t sid,
		   bool on)
{
	unsigned int i;

	for (i = 0; i < d->nlisten; i++)
		if (d->listen[i].dev == c->dev && d->listen[i].sid == sid)
			break;
	if (!on) {
		if (i == d->nlisten || d->listen[i].client != c)
			return -ENOENT;
		d->listen[i] = d->listen[--d->nlisten];
		srd_listen_count(c, -1);
		return 0;
	}
	if (i < d->nlisten)
		return d->listen[i].client == c ? 0 : -EADDRINUSE;
	if (d->nlisten == SRD_LISTEN_MAX)
		return -ENOSPC;
	d->listen[d->nlisten++] = (struct srd_listen){ .client = c,
						       .dev = c->dev, .sid = sid };
	srd_listen_count(c, 1);
	return 0;
}

void srd_listen_drop_client(struct sroced *d, const struct srd_client *c)
{
	for (unsigned int i = 0; i < d->nlisten;)
		if (d->listen[i].client == c)
			d->listen[i] = d->listen[--d->nlisten];
		else
			i++;
}

static struct srd_client *srd_listener(const struct srd_device *dv,
				       uint64_t sid)
{
	for (unsigned int i = 0; i < srd_q->nlisten; i++)
		if (srd_q->listen[i].dev == dv && srd_q->listen[i].sid == sid)
			return srd_q->listen[i].client;
	return NULL;
}

/* ---- the daemon's own CM ---- */

static void srd_own_publish(struct srd_device *dv)
{
	const struct sr_cm_counters *c = sr_cm_counters(sr_gsi_cm(dv->gsi));
	const struct sr_gsi_counters *g = sr_gsi_counters(dv->gsi);
	struct sr_stats_shm *st = sr_pmd_stats(dv->pmd);
	uint64_t v[4] = {
		c->rx, c->tx, sr_cm_counters_dropped(c), sr_gsi_counters_dropped(g),
	};
	static const unsigned int id[4] = {
		SR_CTR_CM_RX, SR_CTR_CM_TX, SR_CTR_CM_DROP, SR_CTR_GSI_DROP,
	};

	for (unsigned int i = 0; i < 4; i++) {
		if (v[i] != dv->gsi_pub[i])
			sr_stats_add(st, id[i], v[i] - dv->gsi_pub[i]);
		dv->gsi_pub[i] = v[i];
	}
}

static void srd_own_rx(struct srd_device *dv, const uint8_t *p, uint32_t len)
{
	struct sr_pkt pkt;

	if (sr_parse_eth(p, len, 0, &pkt) != SR_PARSE_OK) {
		sr_stats_add(sr_pmd_stats(dv->pmd), SR_CTR_SW_DROP_GSI, 1);
		return;
	}
	sr_gsi_rx(dv->gsi, srd_now_ns(), &pkt);
	srd_own_publish(dv);
}

/* The daemon CM's answers: to a client of ours, or out of the port. */
static int srd_own_tx(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct srd_device *dv = ctx;
	struct sr_frame f;
	struct sr_cm_route r;
	struct srd_client *c = NULL;
	uint8_t dst[16], mac[6];

	if (!sr_frame_layout(frame, len, &f) || !sr_frame_is_roce(frame, &f))
		return -EINVAL;
	srd_frame_gid(frame, &f, true, dst);
	if (srd_dev_is_own(dv, dst)) {
		sr_cm_route_rx(frame + f.l4 + SRD_MAD_OFF,
			       len - f.l4 - SRD_MAD_OFF, &r);
		if (r.kind == SR_CM_ROUTE_COMM_ID)
			c = srd_block_owner(dv, sr_cm_comm_id_block(r.comm_id));
		if (c == NULL)
			return -ENOENT;    /* to ourselves: nobody to tell */
		return srd_emit_client(c, frame, len, &f) ? 0 : -ENOBUFS;
	}
	if (sr_pmd_resolve(dv->pmd, dst, mac))
		return -EAGAIN;            /* the peer's CM resends */
	return srd_emit_port(dv, frame, len, &f, mac) ? 0 : -ENOBUFS;
}

static void srd_own_event(void *ctx, struct sr_cm_id *id,
			  const struct sr_cm_event *ev)
{
	/* no listener and no connection of its own: nothing to tell */
	(void)ctx;
	(void)id;
	(void)ev;
}

/* The MAD of a QP1 frame and its length; false: too short. */
static bool srd_mad_of(const uint8_t *p, const struct sr_frame *f,
		       const uint8_t **mad, uint32_t *len)
{
	if (f->l4_len < SRD_MAD_OFF + 4)
		return false;
	*mad = p + f->l4 + SRD_MAD_OFF;
	*len = f->l4_len - SRD_MAD_OFF - 4;
	return true;
}

/* The other CM's address as the frame shows it: its GID is the frame's
 * source (dst: false) or destination (true). */
static void srd_mad_peer(const uint8_t *p, const struct sr_frame *f,
			 bool peer_is_dst, struct sr_cm_addr *a)
{
	memset(a, 0, sizeof(*a));
	srd_frame_gid(p, f, peer_is_dst, a->gid);
	srd_frame_gid(p, f, !peer_is_dst, a->lgid);
	a->pkey = sr_bth_pkey(sr_frame_bth(p, f));
}

static void srd_watch_send(void *ctx, const struct sr_cm_addr *to,
			   const uint8_t *mad)
{
	struct srd_device *dv = ctx;

	sr_gsi_send_mad(dv->gsi, to, mad);
}

void srd_qp1_from_client(const struct srd_client *c, const uint8_t *p,
			 const struct sr_frame *f)
{
	struct sr_cm_addr peer;
	const uint8_t *mad;
	uint32_t len;

	if (c->dev == NULL || !srd_mad_of(p, f, &mad, &len))
		return;
	srd_mad_peer(p, f, true, &peer);
	sr_cm_watch_mad(c->dev->watch, c->block, true, &peer, mad, len);
}

unsigned int srd_qp1_client_gone(const struct srd_client *c)
{
	struct srd_device *dv = c->dev;
	unsigned int n;

	if (dv == NULL || c->block == 0)
		return 0;
	n = sr_cm_watch_orphan(dv->watch, c->block, srd_now_ns());
	if (n > 0)
		srd_qp1_poll(dv, srd_now_ns());     /* the first DREQs now */
	return n;
}

int srd_qp1_open(struct sroced *d, struct srd_device *dv)
{
	struct sr_gsi_cfg gc = { 0 };

	srd_q = d;
	memcpy(gc.gid, dv->ip[0], 16);
	memcpy(gc.mac, dv->info.mac, 6);
	gc.pkey = 0xFFFFu;
	gc.tx = srd_own_tx;
	gc.tx_ctx = dv;
	gc.cm.ops.event = srd_own_event;
	gc.cm.max_ids = 16;
	gc.cm.comm_id_seed = (uint32_t)srd_now_ns();
	for (int i = 0; i < 6; i++)
		gc.cm.ca_guid = gc.cm.ca_guid << 8 | dv->info.mac[i];
	dv->gsi = sr_gsi_create(&gc);
	dv->watch = sr_cm_watch_create(SRD_WATCH_MAX);
	if (dv->gsi == NULL || dv->watch == NULL) {
		srd_qp1_close(dv);
		return -ENOMEM;
	}
	return 0;
}

void srd_qp1_close(struct srd_device *dv)
{
	sr_gsi_destroy(dv->gsi);
	dv->gsi = NULL;
	sr_cm_watch_destroy(dv->watch);
	dv->watch = NULL;
	free(dv->held);
	dv->held = NULL;
	dv->nheld = 0;
}

void srd_qp1_poll(struct srd_device *dv, uint64_t now)
{
	if (dv->gsi == NULL)
		return;
	if (dv->nheld > 0)
		srd_held_poll(dv, now);
	if (now >= sr_cm_next_deadline(sr_gsi_cm(dv->gsi))) {
		sr_cm_poll(sr_gsi_cm(dv->gsi), now);
		srd_own_publish(dv);
	}
	if (now >= sr_cm_watch_next(dv->watch))
		sr_cm_watch_poll(dv->watch, now, srd_watch_send, dv);
	if (sr_cm_watch_counters(dv->watch)->full != dv->watch_full_logged) {
		dv->watch_full_logged = sr_cm_watch_counters(dv->watch)->full;
		srd_log("%s: %llu connections not followed so far (table full, or a client over its quarter): no DREQ for them if their client dies",
			dv->name, (unsigned long long)dv->watch_full_logged);
	}
}

/* ---- routing ---- */

/* Keep a REQ for a listener to come: false when there is no room. */
static bool srd_hold(struct srd_device *dv, const uint8_t *p, uint32_t len)
{
	struct srd_held *h;

	if (len > SRD_HOLD_FRAME || srd_q->cm_hold_ns == 0)
		return false;
	if (dv->held == NULL) {
		dv->held = calloc(SRD_HOLD_MAX, sizeof(*dv->held));
		if (dv->held == NULL)
			return false;
	}
	if (dv->nheld == SRD_HOLD_MAX)
		return false;
	h = &dv->held[dv->nheld++];
	h->since = srd_now_ns();
	h->len = len;
	memcpy(h->frame, p, len);
	sr_stats_add(sr_pmd_stats(dv->pmd), SR_CTR_SW_CM_HELD, 1);
	return true;
}

/*
 * To the client the MAD names; what names none to the daemon's CM, or,
 * a REQ for a service nobody listens on, held (may_hold) for a listener.
 * False when held and its listener still missing.
 */
static bool srd_qp1_deliver(struct srd_device *dv, struct sr_pmd_dev *counted,
			    const uint8_t *p, uint32_t len,
			    const struct sr_frame *f, enum sr_dev_counter ok,
			    bool may_hold)
{
	struct srd_client *c = NULL;
	struct sr_cm_route r;
	struct sr_cm_addr peer;
	const uint8_t *mad;
	uint32_t mlen;

	if (!srd_mad_of(p, f, &mad, &mlen) ||
	    (uint32_t)f->l4 + f->l4_len > len) {
		sr_stats_add(sr_pmd_stats(counted), SR_CTR_SW_DROP_GSI, 1);
		return true;
	}
	sr_cm_route_rx(mad, mlen, &r);
	if (r.kind == SR_CM_ROUTE_SERVICE)
		c = srd_listener(dv, r.service_id);
	else if (r.kind == SR_CM_ROUTE_COMM_ID)
		c = srd_block_owner(dv, sr_cm_comm_id_block(r.comm_id));
	if (c == NULL) {
		if (r.kind == SR_CM_ROUTE_SERVICE && may_hold &&
		    srd_hold(dv, p, len))
			return false;
		/* a DREP to a DREQ sent for a client that died: taken */
		srd_mad_peer(p, f, false, &peer);
		if (!sr_cm_watch_answer(dv->watch, peer.gid, mad, mlen))
			srd_own_rx(dv, p, len);
		return true;
	}
	srd_mad_peer(p, f, false, &peer);
	sr_cm_watch_mad(dv->watch, c->block, false, &peer, mad, mlen);
	if (srd_emit_client(c, p, len, f))
		sr_stats_add(sr_pmd_stats(counted), ok, 1);
	return true;
}

void srd_qp1_route(struct srd_device *dv, struct sr_pmd_dev *counted,
		   const uint8_t *p, uint32_t len, const struct sr_frame *f,
		   enum sr_dev_counter ok)
{
	(void)srd_qp1_deliver(dv, counted, p, len, f, ok, true);
}

/* Held REQs: to their listener now there is one, or, held long enough,
 * to the daemon's CM (counted on the port: their sender may be gone). */
static void srd_held_poll(struct srd_device *dv, uint64_t now)
{
	for (unsigned int i = 0; i < dv->nheld;) {
		struct srd_held *h = &dv->held[i];
		struct sr_cm_route r;
		const uint8_t *mad;
		struct sr_frame f;
		uint32_t mlen;

		/* (it was a whole MAD of a REQ when held) */
		if (!sr_frame_layout(h->frame, h->len, &f) ||
		    !srd_mad_of(h->frame, &f, &mad, &mlen)) {
			dv->held[i] = dv->held[--dv->nheld];
			continue;
		}
		sr_cm_route_rx(mad, mlen, &r);
		if (now - h->since < srd_q->cm_hold_ns &&
		    srd_listener(dv, r.service_id) == NULL) {
			i++;
			continue;
		}
		(void)srd_qp1_deliver(dv, dv->pmd, h->frame, h->len, &f,
				      SR_CTR_SW_TO_CLIENT, false);
		dv->held[i] = dv->held[--dv->nheld];
	}
}

bool srd_qp1_client_ok(const struct srd_client *c, const uint8_t *p,
		       const struct sr_frame *f)
{
	const uint8_t *mad;
	uint32_t id, len;
	int k;

	if (!srd_mad_of(p, f, &mad, &len))
		return false;
	k = sr_cm_route_sender(mad, len, &id);
	return k == 0 || (k == 1 && sr_cm_comm_id_block(id) == c->block);
}
