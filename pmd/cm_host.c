/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_host.c — QP1 of an embedded device: frames for QPN 1 queued from the
 * transport's receive path, fed to the GSI and the CM on the engine, the
 * CM's MADs sent through the link.  See cm_host.h for the threading.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cm_host.h"
#include "core/dev.h"
#include "counters.h"
#include "daemon.h"
#include "pmd.h"
#include "wire/parse.h"

/* A MAD frame: Ethernet (+ 802.1Q) + IPv6 + UDP + BTH + DETH + 256 + ICRC
 * is 346 bytes; longer frames for QP1 are not MADs the GSI takes. */
#define SR_CM_HOST_FRAME_MAX 400u

struct sr_cm_host_frame {
	uint32_t len;
	uint8_t data[SR_CM_HOST_FRAME_MAX];
};

struct sr_cm_host {
	struct sr_cm_host_cfg cfg;
	pthread_mutex_t lock;          /* the CM, the GSI, the consumer */
	struct sr_gsi *gsi;
	sr_cm_host_event_fn *event;
	void *event_ctx;
	/* Frames from the receive path (any lane) to the engine's poll. */
	pthread_mutex_t rxq_lock;
	struct sr_cm_host_frame rxq[SR_CM_HOST_RXQ];
	unsigned int rxq_head, rxq_count;
	atomic_uint pending;           /* rxq_count, read without the lock */
	atomic_uint_fast64_t rxq_drops;
	/* What the stats file was last told (deltas are added). */
	uint64_t pub[6];
	uint64_t pub_next;
	/* The next CM deadline, read by the poll without the lock. */
	_Atomic uint64_t deadline;
	bool registered;
};

static int cm_host_tx(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct sr_cm_host *h = ctx;
	const struct sr_link_ops *ops = sr_pmd_link_ops();
	void *link = sr_pmd_link(h->cfg.pmd);
	void *cookie;
	uint8_t *buf = ops->tx_alloc(link, len, &cookie);

	if (buf == NULL)
		return -ENOBUFS;       /* the CM retransmits on its timer */
	memcpy(buf, frame, len);
	ops->tx_submit(link, cookie, len);
	return 0;
}

/* With sroced, QP1 is the daemon's: it learns our service IDs. */
static int cm_host_listen(void *ctx, uint64_t service_id, bool on)
{
	struct sr_cm_host *h = ctx;

	return sr_pmd_daemon_listen(sr_pmd_config_of(h->cfg.pmd)->daemon_fd,
				    service_id, on);
}

static void cm_host_event(void *ctx, struct sr_cm_id *id,
			  const struct sr_cm_event *ev)
{
	struct sr_cm_host *h = ctx;

	if (h->event != NULL)
		h->event(h->event_ctx, id, ev);
}

/* The transport's receive path, with a lane lock held: queue only. */
static void cm_host_rx(void *ctx, const struct sr_pkt *pkt)
{
	struct sr_cm_host *h = ctx;
	struct sr_cm_host_frame *f;

	pthread_mutex_lock(&h->rxq_lock);
	if (h->rxq_count == SR_CM_HOST_RXQ ||
	    pkt->frame_len > SR_CM_HOST_FRAME_MAX) {
		pthread_mutex_unlock(&h->rxq_lock);
		atomic_fetch_add(&h->rxq_drops, 1);
		return;
	}
	f = &h->rxq[(h->rxq_head + h->rxq_count) % SR_CM_HOST_RXQ];
	f->len = pkt->frame_len;
	memcpy(f->data, pkt->frame, pkt->frame_len);
	h->rxq_count++;
	atomic_fetch_add(&h->pending, 1);
	pthread_mutex_unlock(&h->rxq_lock);
}

static bool cm_host_rx_pop(struct sr_cm_host *h, struct sr_cm_host_frame *out)
{
	bool got = false;

	pthread_mutex_lock(&h->rxq_lock);
	if (h->rxq_count > 0) {
		*out = h->rxq[h->rxq_head];
		h->rxq_head = (h->rxq_head + 1) % SR_CM_HOST_RXQ;
		h->rxq_count--;
		atomic_fetch_sub(&h->pending, 1);
		got = true;
	}
	pthread_mutex_unlock(&h->rxq_lock);
	return got;
}

static void cm_host_note_deadline(struct sr_cm_host *h)
{
	atomic_store(&h->deadline, sr_cm_next_deadline(sr_gsi_cm(h->gsi)));
}

/*
 * The CM's and the GSI's counters into the device's stats file (sroce-stat):
 * MADs in and out, resends, timeouts, and one counter for every MAD the CM
 * drops and one for every frame QP1 refuses (the breakdown is in
 * struct sr_cm_counters / sr_gsi_counters).  With the lock held.
 */
static void cm_host_publish(struct sr_cm_host *h)
{
	const struct sr_cm_counters *c = sr_cm_counters(sr_gsi_cm(h->gsi));
	const struct sr_gsi_counters *g = sr_gsi_counters(h->gsi);
	struct sr_stats_shm *st = sr_pmd_stats(h->cfg.pmd);
	uint64_t v[6];
	static const unsigned int id[6] = {
		SR_CTR_CM_RX, SR_CTR_CM_TX, SR_CTR_CM_RETRANSMITS,
		SR_CTR_CM_TIMEOUTS, SR_CTR_CM_DROP, SR_CTR_GSI_DROP,
	};

	if (st == NULL)
		return;
	v[0] = c->rx;
	v[1] = c->tx;
	v[2] = c->retransmits;
	v[3] = c->timeouts;
	v[4] = sr_cm_counters_dropped(c);
	v[5] = sr_gsi_counters_dropped(g) + atomic_load(&h->rxq_drops);
	for (unsigned int i = 0; i < 6; i++) {
		if (v[i] != h->pub[i])
			sr_stats_add(st, id[i], v[i] - h->pub[i]);
		h->pub[i] = v[i];
	}
}

/* The engine's poll callback: queued frames, then due timers. */
static int cm_host_poll(void *ctx, unsigned int lane, unsigned int nlanes)
{
	struct sr_cm_host *h = ctx;
	struct sr_cm_host_frame f;
	struct sr_pkt pkt;
	uint64_t now;
	int work = 0;

	(void)nlanes;
	if (lane != 0)
		return 0;
	now = sr_pmd_now_ns(h->cfg.pmd);
	if (atomic_load_explicit(&h->pending, memory_order_relaxed) == 0 &&
	    now < atomic_load(&h->deadline) && now < h->pub_next)
		return 0;
	/* A consumer in an sr_cm_* call: the next round will do. */
	if (pthread_mutex_trylock(&h->lock) != 0)
		return 0;
	while (cm_host_rx_pop(h, &f)) {
		if (sr_parse_eth(f.data, f.len, 0, &pkt) == SR_PARSE_OK)
			sr_gsi_rx(h->gsi, now, &pkt);
		work++;
	}
	if (now >= sr_cm_next_deadline(sr_gsi_cm(h->gsi))) {
		sr_cm_poll(sr_gsi_cm(h->gsi), now);
		work++;
	}
	cm_host_note_deadline(h);
	cm_host_publish(h);
	h->pub_next = now + 100000000ull;      /* at least every 100 ms */
	pthread_mutex_unlock(&h->lock);
	return work;
}

int sr_cm_host_create(const struct sr_cm_host_cfg *cfg,
		      struct sr_cm_host **out)
{
	struct sr_gsi_cfg gc = { 0 };
	const struct sr_pmd_config *pc;
	struct sr_cm_host *h;
	int rc;

	if (cfg == NULL || cfg->pmd == NULL || cfg->dev == NULL || out == NULL)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (h == NULL)
		return -ENOMEM;
	h->cfg = *cfg;
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->rxq_lock, NULL);
	memcpy(gc.gid, cfg->gid, 16);
	memcpy(gc.mac, cfg->mac, 6);
	gc.pkey = 0xFFFFu;
	gc.tx = cm_host_tx;
	gc.tx_ctx = h;
	gc.cm.ops.event = cm_host_event;
	gc.cm.ops.ctx = h;
	gc.cm.ca_guid = cfg->ca_guid;
	/* Local communication IDs differ per process and per run. */
	gc.cm.comm_id_seed = (uint32_t)(sr_pmd_now_ns(cfg->pmd) ^
					((uint64_t)getpid() << 16));
	/* On sroced's device our IDs are in our QPN block's number, and our
	 * listeners are registered with the daemon (lib/cm/route.h). */
	pc = sr_pmd_config_of(cfg->pmd);
	if (pc->has_gw && pc->daemon_fd >= 0) {
		gc.cm.comm_id_block = pc->qpn_base >> SRD_QPN_SHIFT;
		gc.cm.max_ids = SR_CM_BLOCK_IDS;
		gc.cm.ops.listen = cm_host_listen;
	}
	h->gsi = sr_gsi_create(&gc);
	if (h->gsi == NULL) {
		free(h);
		return -ENOMEM;
	}
	atomic_store(&h->deadline, UINT64_MAX);
	rc = sr_pmd_engine_register(cfg->pmd, cm_host_poll, h);
	if (rc) {
		sr_gsi_destroy(h->gsi);
		free(h);
		return rc;
	}
	h->registered = true;
	sr_dev_set_gsi(cfg->dev, cm_host_rx, h);
	*out = h;
	return 0;
}

void sr_cm_host_destroy(struct sr_cm_host *h)
{
	if (h == NULL)
		return;
	pthread_mutex_lock(&h->lock);
	cm_host_publish(h);
	pthread_mutex_unlock(&h->lock);
	sr_dev_set_gsi(h->cfg.dev, NULL, NULL);
	if (h->registered)
		(void)sr_pmd_engine_unregister(h->cfg.pmd, cm_host_poll, h);
	sr_gsi_destroy(h->gsi);
	pthread_mutex_destroy(&h->rxq_lock);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

int sr_cm_host_attach(struct sr_cm_host *h, sr_cm_host_event_fn *fn,
		      void *ctx)
{
	int rc = 0;

	pthread_mutex_lock(&h->lock);
	if (fn != NULL && h->event != NULL &&
	    (h->event != fn || h->event_ctx != ctx))
		rc = -EBUSY;
	else {
		h->event = fn;
		h->event_ctx = ctx;
	}
	pthread_mutex_unlock(&h->lock);
	return rc;
}

struct sr_cm *sr_cm_host_lock(struct sr_cm_host *h)
{
	pthread_mutex_lock(&h->lock);
	return sr_gsi_cm(h->gsi);
}

void sr_cm_host_unlock(struct sr_cm_host *h)
{
	/* A call may have armed a timer (a REQ sent): tell the poll. */
	cm_host_note_deadline(h);
	pthread_mutex_unlock(&h->lock);
}

void sr_cm_host_flush(struct sr_cm_host *h)
{
	(void)sr_pmd_engine_sync(h->cfg.pmd, 200);
}

uint64_t sr_cm_host_now(const struct sr_cm_host *h)
{
	return sr_pmd_now_ns(h->cfg.pmd);
}

const struct sr_gsi_counters *sr_cm_host_gsi_counters(struct sr_cm_host *h)
{
	return sr_gsi_counters(h->gsi);
}

uint64_t sr_cm_host_rxq_drops(const struct sr_cm_host *h)
{
	return atomic_load(&((struct sr_cm_host *)h)->rxq_drops);
}
