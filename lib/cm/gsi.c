/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gsi.c — QP1 for the CM class: the GSI's receive checks and its UD
 * SEND-only frames, through lib/wire's parser and builder.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cm/gsi.h"
#include "wire/build.h"

struct sr_gsi {
	struct sr_gsi_cfg cfg;
	struct sr_cm_ops user;   /* the consumer's event op and ctx */
	struct sr_cm *cm;
	struct sr_gsi_counters cnt;
	uint32_t psn;
};

static bool gid_is_zero(const uint8_t gid[16])
{
	static const uint8_t zero[16];

	return memcmp(gid, zero, 16) == 0;
}

static void gsi_send(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	struct sr_gsi *g = ctx;
	/* As rxe sends MADs: TTL 64, DF, UDP checksum 0, AckReq set. */
	struct sr_build b = {
		.hop_limit = 64,
		.ip_df = true,
		.ackreq = true,
		.sport = 0xC000u | SR_GSI_QPN,
		.opcode = SR_OPCODE(UD, SEND_ONLY),
		.pkey = to->pkey ? to->pkey : g->cfg.pkey,
		.dqpn = SR_GSI_QPN,
		.deth_qkey = SR_GSI_QKEY,
		.deth_sqpn = SR_GSI_QPN,
	};
	uint8_t frame[512];
	int n;

	memcpy(b.dmac, to->mac, 6);
	memcpy(b.smac, g->cfg.mac, 6);
	/* From the GID the peer used (or the consumer chose), else the
	 * port's. */
	memcpy(b.sgid, gid_is_zero(to->lgid) ? g->cfg.gid : to->lgid, 16);
	memcpy(b.dgid, to->gid, 16);
	b.psn = g->psn++ & 0xFFFFFFu;
	n = sr_build_frame(frame, sizeof(frame), &b, mad, SR_MAD_SIZE);
	if (n < 0 || g->cfg.tx(g->cfg.tx_ctx, frame, (uint32_t)n) != 0) {
		g->cnt.tx_error++;
		return;
	}
	g->cnt.tx++;
}

void sr_gsi_send_mad(struct sr_gsi *g, const struct sr_cm_addr *to,
		     const uint8_t *mad)
{
	gsi_send(g, to, mad);
}

static void gsi_event(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	struct sr_gsi *g = ctx;

	g->user.event(g->user.ctx, id, ev);
}

static int gsi_listen(void *ctx, uint64_t service_id, bool on)
{
	struct sr_gsi *g = ctx;

	return g->user.listen(g->user.ctx, service_id, on);
}

struct sr_gsi *sr_gsi_create(const struct sr_gsi_cfg *cfg)
{
	struct sr_cm_cfg cc;
	struct sr_gsi *g;

	if (cfg == NULL || cfg->tx == NULL || cfg->cm.ops.event == NULL)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return NULL;
	g->cfg = *cfg;
	g->user = cfg->cm.ops;
	cc = cfg->cm;
	cc.ops = (struct sr_cm_ops){ .send = gsi_send, .event = gsi_event,
				     .listen = cfg->cm.ops.listen ? gsi_listen
								  : NULL,
				     .ctx = g };
	g->cm = sr_cm_create(&cc);
	if (g->cm == NULL) {
		free(g);
		return NULL;
	}
	return g;
}

void sr_gsi_destroy(struct sr_gsi *g)
{
	if (g == NULL)
		return;
	sr_cm_destroy(g->cm);
	free(g);
}

struct sr_cm *sr_gsi_cm(struct sr_gsi *g)
{
	return g->cm;
}

const struct sr_gsi_counters *sr_gsi_counters(const struct sr_gsi *g)
{
	return &g->cnt;
}

/* IBTA 10.9.3: same low 15 bits, not 0, and not both limited members. */
static bool pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) == (b & 0x7fff) && (a & 0x7fff) != 0 &&
	       ((a | b) & 0x8000);
}

void sr_gsi_rx(struct sr_gsi *g, uint64_t now, const struct sr_pkt *pkt)
{
	const struct sr_bth *bth = sr_pkt_bth(pkt);
	const struct sr_deth *deth;
	struct sr_cm_addr from = { .pkey = sr_bth_pkey(bth) };

	g->cnt.rx++;
	if (pkt->opcode != SR_OPCODE(UD, SEND_ONLY)) {
		g->cnt.rx_opcode++;
		return;
	}
	deth = sr_pkt_ext(pkt, SR_EXT_DETH);
	if (deth == NULL || sr_deth_qkey(deth) != SR_GSI_QKEY) {
		g->cnt.rx_qkey++;
		return;
	}
	if (!pkey_match(from.pkey, g->cfg.pkey)) {
		g->cnt.rx_pkey++;
		return;
	}
	if (pkt->payload_len < SR_MAD_SIZE) {
		g->cnt.rx_short++;
		return;
	}
	sr_pkt_sgid(pkt, from.gid);
	sr_pkt_dgid(pkt, from.lgid);
	memcpy(from.mac, pkt->frame + 6, 6);
	sr_cm_input(g->cm, now, &from, sr_pkt_payload(pkt), SR_MAD_SIZE);
}
