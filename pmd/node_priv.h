/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node_priv.h — the node object, shared by node.c (life cycle, engine),
 * node_stats.c (counters) and node_conn.c (addresses, connecting, waiting).
 * Consumers see struct sr_node as opaque (node.h).
 */
#ifndef SR_PMD_NODE_PRIV_H
#define SR_PMD_NODE_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "node.h"
#include "xstats.h"

struct sr_node {
	struct sr_pmd_dev *pmd;
	struct sr_mr_dev *mr;
	struct sr_dev *dev;
	bool dedicated;
	bool own_mr;                  /* the node made mr: it destroys it */
	unsigned int budget;
	struct sr_xstats xstats;      /* the stats file's transport part */
};

/*
 * node.c: wait a moment — progress (inline; with nap, sleep a little after
 * an idle round), else let the engine's core run.
 */
void sr_node_idle(struct sr_node *node, bool nap);

#endif /* SR_PMD_NODE_PRIV_H */
