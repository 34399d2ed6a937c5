/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xstats.h — a transport device's counters (lib/core/counters.h, parse
 * drops) copied into its pmd device's stats file for sroce-stat: the
 * device's as a whole and, per attached QP, the QP's.  Whoever binds a
 * transport device to a pmd device (the node, the drop-in libibverbs)
 * keeps one, polls it from the engine and attaches its QPs.
 *
 * One writer at a time (the lock); sr_xstats_poll() skips a round rather
 * than wait for it.
 */
#ifndef SR_PMD_XSTATS_H
#define SR_PMD_XSTATS_H

#include <pthread.h>
#include <stdint.h>

#include "core/dev.h"
#include "counters.h"
#include "pmd.h"
#include "qp/qp.h"

#define SR_XSTATS_PERIOD_NS (5ull * 1000 * 1000)   /* every 5 ms */

struct sr_xstats {
	struct sr_pmd_dev *pmd;
	struct sr_dev *dev;
	pthread_mutex_t lock;
	uint64_t next_ns;
	unsigned int nqps;
	struct {
		struct sr_qp *qp;
		struct sr_stats_qp *slot;
	} qps[SR_STATS_QP_SLOTS];
};

void sr_xstats_init(struct sr_xstats *xs, struct sr_pmd_dev *pmd,
		    struct sr_dev *dev);
/* A last copy, then the QP slots are given back.  Accepts one never init. */
void sr_xstats_fini(struct sr_xstats *xs);
/* Copy now (any thread). */
void sr_xstats_publish(struct sr_xstats *xs);
/*
 * Copy when SR_XSTATS_PERIOD_NS passed since the last copy, and apply what
 * sroce-stat --trace asked for (engine, outside the device lock).
 */
void sr_xstats_poll(struct sr_xstats *xs, uint64_t now);
/*
 * The live trace's ring in pmd's stats file, for sr_dev_config.trace
 * (NULL: no stats file).
 */
struct sr_trace_ring *sr_xstats_trace_ring(struct sr_pmd_dev *pmd);
/*
 * Publish a QP's counters in a per-QP slot (sroce-stat -q) until detached,
 * which must come before sr_qp_destroy().  0, -ENOSPC (every slot in use,
 * or no stats file), -EEXIST (attached).  Detach accepts a QP that is not
 * attached.
 */
int sr_xstats_qp_attach(struct sr_xstats *xs, struct sr_qp *qp);
void sr_xstats_qp_detach(struct sr_xstats *xs, struct sr_qp *qp);

#endif /* SR_PMD_XSTATS_H */
