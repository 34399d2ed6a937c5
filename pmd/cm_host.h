/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_host.h — QP1 of a device: the GSI and the communication manager
 * (lib/cm) on a pmd device and its transport.
 *
 * QP1 belongs to whoever owns the port: in the embedded device, the
 * process (this file); in a shared device, sroced.  Consumers (the
 * librdmacm drop-in, NDK/ND2 connectors) reach the CM through this one
 * interface:
 *
 *   receive   the transport hands every frame for QPN 1 to the host
 *             (sr_dev_set_gsi); the host only copies it into a small queue,
 *             because the transport calls it with a lane lock held;
 *   progress  a poll callback on the device's engine feeds the queued
 *             frames to the GSI and runs the CM's timers, holding the
 *             host's lock;
 *   consumer  sr_cm_host_lock() returns the CM for sr_cm_* calls (connect,
 *             accept, ...); events come to the attached consumer's
 *             callback, with the host's lock held, on the engine's thread
 *             or inside the consumer's own sr_cm_* call.  The callback only
 *             records them: it must not modify QPs or wait for the engine
 *             (that runs the callback).  Lock order: host, then transport.
 */
#ifndef SR_PMD_CM_HOST_H
#define SR_PMD_CM_HOST_H

#include <stdint.h>

#include "cm/cm.h"
#include "cm/gsi.h"

struct sr_pmd_dev;
struct sr_dev;
struct sr_cm_host;

struct sr_cm_host_cfg {
	struct sr_pmd_dev *pmd;
	struct sr_dev *dev;
	uint8_t gid[16];       /* the port's first GID (answers use the peer's) */
	uint8_t mac[6];
	uint64_t ca_guid;
};

/* Frames for QP1 the host could not queue (the engine is behind). */
#define SR_CM_HOST_RXQ 64

/* 0, -EINVAL (no pmd or dev), -ENOMEM, or -errno of the engine. */
int sr_cm_host_create(const struct sr_cm_host_cfg *cfg,
		      struct sr_cm_host **out);
/* Detach from the transport and the engine, free every id.  NULL ok. */
void sr_cm_host_destroy(struct sr_cm_host *h);

typedef void sr_cm_host_event_fn(void *ctx, struct sr_cm_id *id,
				 const struct sr_cm_event *ev);
/*
 * The consumer of the device's CM events (fn NULL: none; events are then
 * dropped).  -EBUSY when another consumer is attached.
 */
int sr_cm_host_attach(struct sr_cm_host *h, sr_cm_host_event_fn *fn,
		      void *ctx);

/* Take / release the CM for sr_cm_* calls. */
struct sr_cm *sr_cm_host_lock(struct sr_cm_host *h);
void sr_cm_host_unlock(struct sr_cm_host *h);

/* Put the MADs sent so far on the wire before returning (bounded): for a
 * consumer about to let its process exit.  Not with the lock held, not
 * from the engine. */
void sr_cm_host_flush(struct sr_cm_host *h);

/* The clock the CM's times are in (the link's). */
uint64_t sr_cm_host_now(const struct sr_cm_host *h);

/* Counters: the GSI's, the CM's (read with the lock held), queue drops. */
const struct sr_gsi_counters *sr_cm_host_gsi_counters(struct sr_cm_host *h);
uint64_t sr_cm_host_rxq_drops(const struct sr_cm_host *h);

#endif /* SR_PMD_CM_HOST_H */
