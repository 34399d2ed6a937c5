/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * watch.h — the connections of CMs that share a port, seen from the port's
 * owner, so that a CM that dies without disconnecting still disconnects.
 *
 * On a kernel RDMA device, a process that exits (kill -9 included) has its
 * connections torn down by the kernel's CM: each peer gets a DREQ and its
 * application an RDMA_CM_EVENT_DISCONNECTED at once.  With sroced every
 * process runs its own CM (route.h) and takes its connections with it when
 * it dies; the daemon, which switches every CM MAD of the port, follows
 * each process's connections here and sends the DREQs for it:
 *
 *   REQ out, REP in      an active connection: both IDs and the peer's QPN
 *   REQ in, REP out      a passive one, the same
 *   REJ, DREQ, DREP      the connection ends (either way): forgotten
 *   the CM's block dies  each connection that got as far as a REP is
 *                        disconnected: a DREQ (its IDs, the peer's QPN),
 *                        sent again SR_CM_WATCH_TRIES times in all,
 *                        SR_CM_WATCH_GAP_NS apart, until the peer's DREP
 *                        (or its own DREQ) answers
 *
 * A CM is named by its communication-ID block (cm.h), as route.h does.
 * Half-open attempts (a REQ with no REP yet) are forgotten with their CM:
 * the peer's CM times them out.  A full table forgets new connections
 * (counted), never old ones, and one CM holds a quarter of it at most.
 * No locks: the caller serialises.
 */
#ifndef SR_CM_WATCH_H
#define SR_CM_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "cm/cm.h"

#define SR_CM_WATCH_TRIES  3
#define SR_CM_WATCH_GAP_NS 500000000ull    /* 0.5 s between DREQs */

struct sr_cm_watch;

struct sr_cm_watch_counters {
	uint64_t open;       /* connections that reached a REP */
	uint64_t full;       /* not followed: the table was full */
	uint64_t orphaned;   /* connections of a CM that died */
	uint64_t dreq_sent;  /* DREQs sent for them */
	uint64_t answered;   /* of them, answered by the peer */
};

/* A table for max connections (NULL: no memory, or max 0). */
struct sr_cm_watch *sr_cm_watch_create(uint32_t max);
void sr_cm_watch_destroy(struct sr_cm_watch *w);

/*
 * A CM MAD (len bytes, QP1's DETH payload) that the CM of block sent
 * (out) or received (!out); peer: the other CM's address (its GID and
 * P_Key; lgid: the GID of ours it used).  MADs that do not parse are
 * ignored.
 */
void sr_cm_watch_mad(struct sr_cm_watch *w, uint32_t block, bool out,
		     const struct sr_cm_addr *peer, const uint8_t *mad,
		     uint32_t len);

/* The CM of block is gone: its connections are to be disconnected from
 * now on (sr_cm_watch_poll).  Returns how many. */
unsigned int sr_cm_watch_orphan(struct sr_cm_watch *w, uint32_t block,
				uint64_t now);

/* Send the DREQs that are due (send: to the peer's QP1). */
void sr_cm_watch_poll(struct sr_cm_watch *w, uint64_t now,
		      void (*send)(void *ctx, const struct sr_cm_addr *to,
				   const uint8_t *mad),
		      void *ctx);

/* When the next DREQ is due (UINT64_MAX: none). */
uint64_t sr_cm_watch_next(const struct sr_cm_watch *w);

/*
 * A MAD from from_gid that arrived for a CM that is gone: true when it
 * answers a DREQ sent for it (a DREP from that connection's peer; the
 * connection is then forgotten).  A DREQ from the peer also ends the
 * connection, but returns false: the port owner's CM answers it with a
 * DREP.
 */
bool sr_cm_watch_answer(struct sr_cm_watch *w, const uint8_t from_gid[16],
			const uint8_t *mad, uint32_t len);

const struct sr_cm_watch_counters *
sr_cm_watch_counters(const struct sr_cm_watch *w);

#endif /* SR_CM_WATCH_H */
