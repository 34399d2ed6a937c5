/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sched.h — which QPs an engine round visits.
 *
 * A round used to walk every QP of the device, busy or not, so its cost
 * grew with the number of QPs (2048 idle QPs cost a single busy one 97 %
 * of its message rate).  Now a round visits only the QPs that may have
 * work:
 *
 *   kicked   something happened to the QP: a work request posted (from
 *            the consumer's thread, lock-free: one bit in dev->kick), a
 *            frame received for it, a state change;
 *   busy     its last visit did work (it may have more: a budget ran out,
 *            a window opened), or the link refused a frame in that round;
 *   due      a timer it armed is due: retransmit, RNR, a coalesced ACK,
 *            the congestion-control pacer (a binary heap of deadlines);
 *   sweep    every sweep_ns (10 ms by default) each QP once, a safety net
 *            that bounds what a missed kick could cost; the unit tests run
 *            with it off, so a missing kick shows there as a hang.
 *
 * Everything but the kick bits is the engine's, under its lane's lock, one
 * schedule per lane (shard).  A stale entry (a QP destroyed, its slot
 * reused, a deadline moved) costs at most one visit that finds nothing.
 */
#ifndef SR_CORE_SCHED_H
#define SR_CORE_SCHED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/dev.h"

#define SR_SCHED_WORDS   (SR_MAX_QP / 64)
/* A bit per kick word that may hold kicks: a round reads these few words,
 * not the whole map (256 words for 16384 QPs). */
#define SR_SCHED_SUM_WORDS ((SR_SCHED_WORDS + 63) / 64)
#define SR_SCHED_SHARDS  SR_DEV_LANES_MAX  /* lanes; more: the full walk */
#define SR_SCHED_HEAP    (SR_MAX_QP + 256)
#define SR_SCHED_SWEEP_NS 10000000ull

struct sr_dev;
struct sr_qp;

struct sr_sched_timer {
	uint64_t at;                 /* absolute, the link's clock */
	uint32_t idx;                /* QPN - qpn_base */
};

struct sr_sched_shard {
	unsigned int nshards;        /* the lane count the masks are for */
	uint64_t mask[SR_SCHED_WORDS];  /* this shard's QPs in dev->kick */
	uint64_t next_sweep;
	uint32_t nready;
	uint16_t ready[SR_MAX_QP];
	uint32_t nheap;
	struct sr_sched_timer heap[SR_SCHED_HEAP];
};

/* Wake a QP: its shard's next round visits it.  Any thread, lock-free. */
void sr_sched_kick(struct sr_dev *dev, const struct sr_qp *qp);
/*
 * The same from a thread that holds the QP's lane lock (the receive
 * path): the shard's gatherer takes that lock too, so the lock orders the
 * caller's work before the gatherer's reads, and no fence is needed.
 */
void sr_sched_kick_locked(struct sr_dev *dev, const struct sr_qp *qp);
/* Every QP of the device (a device-wide change: fatal, a full sweep). */
void sr_sched_kick_all(struct sr_dev *dev);

/* The shard's schedule (allocated on first use); NULL: walk every QP. */
struct sr_sched_shard *sr_sched_shard_get(struct sr_dev *dev,
					  unsigned int shard,
					  unsigned int nshards);
/* Under the shard's lane lock: move the kicked, due and (sweep) all QPs of the shard
 * to its ready list. */
void sr_sched_gather(struct sr_dev *dev, struct sr_sched_shard *sh,
		     unsigned int shard, uint64_t now);
/* Under the lane lock, after a visit of qp (taken off the ready list): busy
 * keeps it ready, else its next timer (delay ns from now; UINT64_MAX:
 * none) goes in the heap. */
void sr_sched_done(struct sr_dev *dev, struct sr_sched_shard *sh,
		   struct sr_qp *qp, bool busy, uint64_t now, uint64_t delay);

/* For tests and tools: QPs on the ready lists, entries in the timer
 * heaps (stale ones included), summed over the shards. */
void sr_dev_sched_stats(struct sr_dev *dev, uint32_t *ready,
			uint32_t *timers);

#endif /* SR_CORE_SCHED_H */
