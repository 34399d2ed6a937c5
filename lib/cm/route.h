/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route.h — whose CM a MAD is for, on a port shared by several processes.
 *
 * With sroced, one port (and its QP1) serves every process on the host,
 * and each process runs its own CM (cm.h) over the same QP1.  The daemon
 * owns QP1 and the CM's name spaces: each process gets a block of
 * communication IDs (sr_cm_cfg.comm_id_block, the same number as its QPN
 * block) and registers the service IDs it listens on.  A MAD that arrives
 * for QP1 then goes to:
 *
 *   REQ, SIDR_REQ            the process listening on its service ID;
 *   SIDR_REP                 the block of its request ID (ours);
 *   MRA, REJ, REP, RTU,      the block of its remote communication ID
 *   DREQ, DREP, LAP, APR     (ours, as the peer echoes it);
 *   anything else            the port's owner (a Get, a MAD the parser
 *                            refuses, a remote ID of 0): its own CM
 *                            answers or counts it, as a lone CM would.
 *
 * And a MAD a process sends must speak for its own block: the sender's
 * communication ID it carries (sr_cm_route_sender) is checked by the owner.
 * Pure functions over the wire bytes (mad.h's parser), no state.
 */
#ifndef SR_CM_ROUTE_H
#define SR_CM_ROUTE_H

#include <stdint.h>

enum sr_cm_route_kind {
	SR_CM_ROUTE_OWNER,       /* the port owner's CM */
	SR_CM_ROUTE_SERVICE,     /* the listener of service_id */
	SR_CM_ROUTE_COMM_ID,     /* the CM whose block comm_id is in */
};

struct sr_cm_route {
	enum sr_cm_route_kind kind;
	uint16_t attr_id;        /* the MAD's attribute ID (0: unparsed) */
	uint64_t service_id;
	uint32_t comm_id;
};

/* Where a MAD (len bytes: QP1's DETH payload) received for QP1 goes. */
void sr_cm_route_rx(const uint8_t *mad, uint32_t len, struct sr_cm_route *r);

/*
 * The communication ID a process's outgoing MAD speaks for: 1 and *comm_id
 * (the sender's own ID: REQ, MRA, REP, RTU, DREQ, DREP, LAP, APR, a REJ
 * that names one, a SIDR_REQ's request ID); 0 when the MAD carries none
 * of its own (a REJ before any ID, a SIDR_REP); -1 when it is no CM Send
 * a process may put on the shared QP1 (the parser refuses it, or it is a
 * Get/Set/GetResp: those are the owner's).
 */
int sr_cm_route_sender(const uint8_t *mad, uint32_t len, uint32_t *comm_id);

#endif /* SR_CM_ROUTE_H */
