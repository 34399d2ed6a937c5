/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gsi.h — QP1, the general services interface of one port (IBA 13.5),
 * for the CM class: RoCEv2 frames to QPN 1 in, MADs to the CM; the CM's
 * MADs out as UD SEND-only frames to the peer's QPN 1.
 *
 * What the GSI checks on receive (IBA 13.5.1, 10.9.3): UD SEND-only, Q_Key
 * 0x80010000, a P_Key matching the port's, 256 bytes of MAD.  It answers
 * with the P_Key the peer used.  Framing is lib/wire's (sr_parse_eth,
 * sr_build_frame); the GSI has no I/O of its own: the owner (the device,
 * or sroced) gives it the parsed packets for QPN 1 and a tx function.
 */
#ifndef SR_CM_GSI_H
#define SR_CM_GSI_H

#include "cm/cm.h"
#include "wire/parse.h"

#define SR_GSI_COUNTERS(X)                                          \
	X(rx,          "frames to QPN 1")                           \
	X(rx_opcode,   "dropped: not a UD SEND-only")               \
	X(rx_qkey,     "dropped: Q_Key is not 0x80010000")          \
	X(rx_pkey,     "dropped: P_Key does not match the port's")  \
	X(rx_short,    "dropped: payload shorter than a MAD")       \
	X(tx,          "frames sent")                               \
	X(tx_error,    "MADs the builder or the tx function refused")

struct sr_gsi_counters {
#define SR_X(n, t) uint64_t n;
	SR_GSI_COUNTERS(SR_X)
#undef SR_X
};

struct sr_gsi_cfg {
	uint8_t gid[16];        /* the port's GID the GSI sends from */
	uint8_t mac[6];
	uint16_t pkey;          /* the port's P_Key */
	/* Put one frame on the wire: 0 or -errno. */
	int (*tx)(void *ctx, const uint8_t *frame, uint32_t len);
	void *tx_ctx;
	/* The CM: ops.event and ops.ctx are the consumer's; ops.send is
	 * ignored (the GSI sends). */
	struct sr_cm_cfg cm;
};

/* NULL on a bad cfg (no tx, no event op) or no memory. */
struct sr_gsi *sr_gsi_create(const struct sr_gsi_cfg *cfg);
void sr_gsi_destroy(struct sr_gsi *g);
struct sr_cm *sr_gsi_cm(struct sr_gsi *g);
const struct sr_gsi_counters *sr_gsi_counters(const struct sr_gsi *g);
/* The frames QP1 refused, every reason summed (the stats file's gsi_drop). */
static inline uint64_t sr_gsi_counters_dropped(const struct sr_gsi_counters *g)
{
	return g->rx_opcode + g->rx_qkey + g->rx_pkey + g->rx_short;
}

/* Send a CM MAD (SR_MAD_SIZE bytes) to the QP1 at to, outside the CM's
 * own exchanges (sroced's DREQs for a client that died, cm/watch.h). */
void sr_gsi_send_mad(struct sr_gsi *g, const struct sr_cm_addr *to,
		     const uint8_t *mad);

/* One parsed RoCEv2 packet whose destination QPN is 1. */
void sr_gsi_rx(struct sr_gsi *g, uint64_t now, const struct sr_pkt *pkt);

#endif /* SR_CM_GSI_H */
