/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node.c — a pmd device, an MR engine and a transport device bound into
 * one node: wiring, the engine callback, progress, life cycle.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "node_priv.h"

#define SR_NODE_BUDGET      64
#define SR_NODE_NAP_NS      20000
#define SR_NODE_YIELD_SPINS 32       /* idle rounds between yields */

/* ---- the engine: one transport round per progress round ---- */

static int sr_node_engine_poll(void *ctx, unsigned int lane,
			       unsigned int nlanes)
{
	struct sr_node *node = ctx;
	unsigned int work = sr_dev_poll_shard(node->dev, node->budget, lane,
					      nlanes);

	uint64_t now = sr_pmd_now_ns(node->pmd);

	sr_xstats_poll(&node->xstats, now);
	if (lane == 0 && sr_pmd_daemon_lost(node->pmd, now)) {
		fprintf(stderr, "sroce: sroced went away: device fatal\n");
		sr_dev_fatal(node->dev);
	}
	return (int)work;
}

int sr_node_progress(struct sr_node *node)
{
	if (node->dedicated)
		return 0;
	return sr_pmd_progress(node->pmd);
}

void sr_node_idle(struct sr_node *node, bool nap)
{
	const struct timespec ts = { .tv_nsec = SR_NODE_NAP_NS };

	if (node->dedicated)
		sched_yield();
	else if (sr_pmd_progress(node->pmd) == 0 && nap)
		nanosleep(&ts, NULL);
}

void sr_node_relax(struct sr_node *node, unsigned int *idle)
{
	if (!node->dedicated && sr_pmd_progress(node->pmd) > 0) {
		*idle = 0;
		return;
	}
	if (++*idle % SR_NODE_YIELD_SPINS == 0 || node->dedicated)
		sched_yield();
}

/* ---- create / close ---- */

/*
 * A host NIC's addresses follow the interface (hostnic.h): the transport's
 * copy of the GID table follows the pmd's (an address gone leaves a zero
 * GID, which no address vector names).  Runs on the progress thread.
 */
static void sr_node_gid_changed(void *ctx, unsigned int index,
				const struct sr_gid_entry *e)
{
	static const uint8_t zero[16];
	struct sr_node *node = ctx;

	sr_dev_set_gid(node->dev, index, e->valid ? e->gid : zero);
}

void sr_pmd_dev_config(struct sr_pmd_dev *pmd, const struct sr_gid_table *gids,
		       struct sr_dev_config *dc)
{
	const struct sr_pmd_config *cfg = sr_pmd_config_of(pmd);

	dc->link_ops = sr_pmd_link_ops();
	dc->link = sr_pmd_link(pmd);
	sr_pmd_mac(pmd, dc->mac);
	for (uint32_t i = 0; i < gids->n && i < SR_GID_TABLE_LEN; i++) {
		if (gids->entry[i].valid)   /* else zero: no AV names it */
			memcpy(dc->gid[i], gids->entry[i].gid, 16);
		dc->gid_count = i + 1;
	}
	/* ECN and congestion control as the configuration says */
	dc->ecn = cfg->ecn;
	dc->cc = cfg->cc ? &cfg->dcqcn : NULL;
	dc->line_bps = sr_pmd_line_bps(pmd, &dc->line_paced);
	dc->trace = sr_xstats_trace_ring(pmd);   /* sroce-stat --trace */
	dc->window = cfg->window;
	dc->tx_ref_min = sr_pmd_tx_ref_min(pmd);
	dc->lanes = sr_pmd_lanes(pmd);       /* a lock per lane */
	/* a shared device: sroced's QPN block, and the peers it checks */
	dc->qpn_base = cfg->has_gw ? cfg->qpn_base : 0;
	dc->max_qp = cfg->has_gw ? cfg->max_qp : 0;
	dc->peer_cb = sr_pmd_daemon_peer_cb(pmd);
	dc->peer_ctx = pmd;
}

static int sr_node_wire(struct sr_node *node,
			const struct sr_node_params *params, char *err,
			size_t errlen)
{
	struct sr_dev_config dc = {
		.mr = node->mr,
		.async_cb = params->async_cb,
		.async_ctx = params->async_ctx,
	};
	int rc;

	sr_pmd_dev_config(node->pmd, sr_pmd_gids(node->pmd), &dc);
	node->dev = sr_dev_create(&dc);
	if (node->dev == NULL) {
		snprintf(err, errlen, "cannot create the transport device");
		return -ENOMEM;
	}
	sr_xstats_init(&node->xstats, node->pmd, node->dev);
	sr_pmd_set_rx_handler(node->pmd, sr_dev_rx_burst, node->dev);
	sr_pmd_set_gid_change_cb(node->pmd, sr_node_gid_changed, node);
	rc = sr_pmd_engine_register(node->pmd, sr_node_engine_poll, node);
	if (rc) {
		snprintf(err, errlen, "cannot register the engine callback: %s",
			 strerror(-rc));
		return rc;
	}
	if (!node->dedicated)
		return 0;
	rc = sr_pmd_start(node->pmd);
	if (rc) {
		snprintf(err, errlen, "cannot start the engine on lcore %u: %s",
			 sr_pmd_config_of(node->pmd)->engine_lcore, strerror(-rc));
		return rc == -EINVAL ? -EBUSY : rc;
	}
	return 0;
}

static void sr_node_free(struct sr_node *node)
{
	if (node->pmd != NULL) {
		if (node->dedicated)
			sr_pmd_stop(node->pmd);     /* -EALREADY when not running */
		sr_pmd_engine_unregister(node->pmd, sr_node_engine_poll, node);
		sr_pmd_set_rx_handler(node->pmd, NULL, NULL);
		sr_pmd_set_gid_change_cb(node->pmd, NULL, NULL);
	}
	sr_xstats_fini(&node->xstats);
	sr_dev_destroy(node->dev);
	sr_pmd_dev_destroy(node->pmd);
	if (node->own_mr)
		sr_mr_dev_destroy(node->mr);
	free(node);
}

int sr_node_create(const struct sr_pmd_config *cfg, int lock_fd,
		   const struct sr_node_params *params, struct sr_node **out,
		   char *err, size_t errlen)
{
	static const struct sr_node_params none;
	struct sr_node *node;
	int rc;

	if (params == NULL)
		params = &none;
	node = calloc(1, sizeof(*node));
	if (node == NULL) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out_close_lock;
	}
	node->dedicated = cfg->mode == SR_PMD_MODE_DEDICATED;
	node->budget = params->poll_budget ? params->poll_budget : SR_NODE_BUDGET;
	node->own_mr = params->mr == NULL;
	node->mr = node->own_mr ? sr_mr_dev_create(params->limits) : params->mr;
	if (node->mr == NULL) {
		rc = -errno;
		snprintf(err, errlen, "memory registration engine: %s",
			 strerror(errno));
		goto out_free;
	}
	rc = sr_pmd_dev_create(cfg, lock_fd, &node->pmd, err, errlen);
	if (rc)
		goto out_free;
	lock_fd = -1;                       /* the pmd device holds it now */
	/* sroced's channel: frames sent before it is up would be lost */
	if (cfg->has_gw && sr_pmd_link_wait(node->pmd, 10000))
		fprintf(stderr, "sroce: sroced's frame channel is not up after 10 s\n");
	rc = sr_node_wire(node, params, err, errlen);
	if (rc)
		goto out_free;
	*out = node;
	return 0;
out_free:
	sr_node_free(node);
out_close_lock:
	if (lock_fd >= 0)
		close(lock_fd);
	return rc;
}

/* sroced's first device when the daemon runs (pmd/daemon.h), else the
 * environment's configuration. */
static int sr_node_config_load(struct sr_pmd_config *cfg, int *lock_fd,
			       char *err, size_t errlen)
{
	struct sr_pmd_daemon_att att;
	bool required;
	const char *sock = sr_pmd_daemon_socket(&required);
	int rc;

	if (sock == NULL)
		return sr_pmd_config_load(cfg, lock_fd, err, errlen);
	*lock_fd = -1;
	rc = sr_pmd_daemon_attach(sock, 0, cfg, &att, err, errlen);
	if (rc && !required && (rc == -ECONNREFUSED || rc == -ENOENT))
		return sr_pmd_config_load(cfg, lock_fd, err, errlen);
	return rc;
}

int sr_node_open(const struct sr_node_params *params, struct sr_node **out)
{
	char err[SR_CONFIG_ERR_MAX] = "";
	struct sr_pmd_config *cfg;
	int lock_fd = -1, rc;

	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL) {
		fprintf(stderr, "sroce: out of memory\n");
		return -ENOMEM;
	}
	rc = sr_node_config_load(cfg, &lock_fd, err, sizeof(err));
	if (rc == 0)
		rc = sr_node_create(cfg, lock_fd, params, out, err, sizeof(err));
	else if (lock_fd >= 0)
		close(lock_fd);
	if (rc)
		fprintf(stderr, "sroce: %s\n", err);
	free(cfg);
	return rc;
}

int sr_node_close(struct sr_node *node)
{
	if (node == NULL)
		return 0;
	if (sr_dev_qp_count(node->dev) || sr_dev_cq_count(node->dev) ||
	    sr_dev_srq_count(node->dev) ||
	    (node->own_mr && sr_mr_dev_in_use(node->mr)))
		return -EBUSY;
	if (node->dedicated)
		sr_pmd_stop(node->pmd);
	sr_node_free(node);
	return 0;
}

/* ---- accessors ---- */

struct sr_dev *sr_node_dev(const struct sr_node *node)
{
	return node->dev;
}

struct sr_mr_dev *sr_node_mr(const struct sr_node *node)
{
	return node->mr;
}

struct sr_pmd_dev *sr_node_pmd(const struct sr_node *node)
{
	return node->pmd;
}

uint64_t sr_node_now_ns(const struct sr_node *node)
{
	return sr_pmd_now_ns(node->pmd);
}

int sr_node_link_wait(struct sr_node *node, uint32_t timeout_ms)
{
	return sr_pmd_link_wait(node->pmd, timeout_ms);
}

enum sr_mtu sr_node_path_mtu(const struct sr_node *node)
{
	uint32_t bytes = sr_pmd_path_mtu_of(node->pmd);
	enum sr_mtu m = SR_MTU_256;

	while (m < SR_MTU_4096 && sr_mtu_bytes(m + 1) <= bytes)
		m++;
	return m;
}

/* ---- the stats file (xstats.h) ---- */

int sr_node_qp_attach(struct sr_node *node, struct sr_qp *qp)
{
	return sr_xstats_qp_attach(&node->xstats, qp);
}

void sr_node_qp_detach(struct sr_node *node, struct sr_qp *qp)
{
	sr_xstats_qp_detach(&node->xstats, qp);
}

void sr_node_stats_publish(struct sr_node *node)
{
	sr_xstats_publish(&node->xstats);
}
