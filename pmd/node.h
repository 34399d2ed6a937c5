/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node.h — one sroce node: a pmd device (a DPDK port), a memory-
 * registration engine (lib/mr) and a transport device (lib/core/dev.h),
 * bound together.
 *
 *   frames in    the pmd's rx handler is sr_dev_rx_burst();
 *   engine       a pmd poll callback runs sr_dev_poll() every round and
 *                copies the transport's counters into the pmd's stats file
 *                (device and attached QPs) so sroce-stat shows them live;
 *   addresses    the transport's MAC and GID table are the pmd device's;
 *   events       the transport's async events go to params->async_cb.
 *
 * Progress follows the pmd configuration's mode.  Inline: the consumer
 * calls sr_node_progress() (the waiting helpers below do) and everything
 * runs on its thread.  Dedicated: sr_node_create() starts the engine on its
 * own lcore and sr_node_progress() does nothing, so consumer code is the
 * same in both modes.  Objects (PDs, MRs, CQs, QPs, SRQs) are made with
 * lib's own calls on sr_node_mr() and sr_node_dev(); dev.h's threading
 * rules hold.
 *
 * Errors: int functions return 0 or -errno as documented per function.
 */
#ifndef SR_PMD_NODE_H
#define SR_PMD_NODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/dev.h"
#include "mr/mr.h"
#include "pmd.h"
#include "qp/cq.h"
#include "qp/qp.h"

struct sr_node;

struct sr_node_params {
	sr_async_fn async_cb;                /* NULL: events are dropped */
	void *async_ctx;
	/*
	 * The MR engine: NULL, the node makes its own (with limits, NULL:
	 * lib/mr's defaults) and destroys it; else the caller's, borrowed
	 * (registrations made before the port came up stay valid).
	 */
	struct sr_mr_dev *mr;
	const struct sr_dev_limits *limits;
	unsigned int poll_budget;            /* packets per round, 0: 64 */
};

/*
 * Open a node on the device the environment names (SROCE_CONFIG,
 * SROCE_NODE, SROCE_RUN_DIR: see pmd/CONFIG.md).  params may be NULL.  On
 * failure prints one line "sroce: <reason>" to stderr and returns -errno
 * (those of sr_node_create()); *out is set only on success.
 */
int sr_node_open(const struct sr_node_params *params, struct sr_node **out);

/*
 * Open a node on a configuration; lock_fd is the default link's node lock
 * from sr_pmd_config_load() (or -1), owned by the node from then on, even
 * on failure.  Returns 0, or with one line in err:
 *   -EINVAL  bad configuration or limits;
 *   -ENOMEM  no memory;
 *   -EBUSY   dedicated mode: the engine lcore could not be started;
 *   others   of sr_pmd_dev_create().
 */
int sr_node_create(const struct sr_pmd_config *cfg, int lock_fd,
		   const struct sr_node_params *params, struct sr_node **out,
		   char *err, size_t errlen);

/*
 * Stop the engine, publish the counters a last time and close everything.
 * Accepts NULL (0).  -EBUSY, closing nothing, while QPs, CQs or SRQs of
 * the transport or (of a node's own MR engine) PDs/MRs/MWs remain.
 */
int sr_node_close(struct sr_node *node);

/* Inline mode: one progress round, returns the work done.  Dedicated: 0. */
int sr_node_progress(struct sr_node *node);

/*
 * For a consumer's polling loop that found nothing to do: progress
 * (inline), and after a run of idle rounds (counted in *idle, which the
 * caller zeroes when it finds work) yield the core, so that on a busy
 * machine the peer and the engine get to run.  Dedicated mode: yield.
 */
void sr_node_relax(struct sr_node *node, unsigned int *idle);

/* The parts, for lib's calls and for pmd's. */
struct sr_dev *sr_node_dev(const struct sr_node *node);
struct sr_mr_dev *sr_node_mr(const struct sr_node *node);
struct sr_pmd_dev *sr_node_pmd(const struct sr_node *node);

/* Monotonic nanoseconds (the link's clock). */
uint64_t sr_node_now_ns(const struct sr_node *node);

/* Wait for the port's link (memif: the peer).  0 or -ETIMEDOUT. */
int sr_node_link_wait(struct sr_node *node, uint32_t timeout_ms);

/*
 * The path MTU the port carries, as the enum QPs take (SR_MTU_256 ..
 * SR_MTU_4096).
 */
enum sr_mtu sr_node_path_mtu(const struct sr_node *node);

/*
 * Publish a QP's transport counters in the stats file's per-QP slots
 * (sroce-stat -q) until sr_node_qp_detach(), which must come before
 * sr_qp_destroy().  0, -ENOSPC (every slot in use), -EEXIST (attached).
 * Detach accepts a QP that is not attached.
 */
int sr_node_qp_attach(struct sr_node *node, struct sr_qp *qp);
void sr_node_qp_detach(struct sr_node *node, struct sr_qp *qp);

/*
 * GID index of ours to send to dgid from: the IPv4 entry for an IPv4-mapped
 * dgid, the link-local entry for fe80::/10, else the first configured IPv6
 * address.  Returns the index or -ENOENT (no address of that family).
 */
int sr_node_sgid_index(const struct sr_node *node, const uint8_t dgid[16]);

/* Is gid one of this node's own addresses (a loopback peer)? */
bool sr_node_gid_is_local(const struct sr_node *node, const uint8_t gid[16]);

/* Our GID at index.  0 or -EINVAL (past the table or a hole). */
int sr_node_gid(const struct sr_node *node, unsigned int index,
		uint8_t gid[16]);

/*
 * The MAC of a peer's IP (16 bytes, IPv4 as ::ffff:a.b.c.d) by ARP / ND,
 * run on the progress thread while this thread progresses (inline) or
 * waits.  0; -EHOSTUNREACH the peer did not answer its retries;
 * -ETIMEDOUT after timeout_ms.
 */
int sr_node_resolve(struct sr_node *node, const uint8_t ip[16], uint8_t mac[6],
		    uint32_t timeout_ms);

/*
 * Fill an address vector for a peer's GID: source GID index as
 * sr_node_sgid_index(), destination MAC resolved with ARP / ND (on the
 * progress thread; this thread progresses meanwhile in inline mode), hop
 * limit 64, the device's VLAN.  0; -ENOENT no source address for dgid's
 * family; -EHOSTUNREACH the peer did not answer; -ETIMEDOUT after
 * timeout_ms.
 */
int sr_node_av(struct sr_node *node, const uint8_t dgid[16], struct sr_av *av,
	       uint32_t timeout_ms);

/* What a connected (RC or UC) QP needs to know of its peer. */
struct sr_node_peer {
	uint32_t qpn;
	uint32_t psn;            /* the peer's first send PSN */
	uint8_t gid[16];
};

/* Connection attributes; zero fields take the defaults in brackets. */
struct sr_node_conn {
	enum sr_mtu path_mtu;    /* [sr_node_path_mtu()] */
	unsigned int access;     /* remote rights [REMOTE_READ|WRITE|ATOMIC] */
	uint8_t timeout;         /* 4.096 us * 2^timeout [14: 67 ms] */
	uint8_t retry_cnt;       /* [7] */
	uint8_t rnr_retry;       /* [7: infinite] */
	uint8_t min_rnr_timer;   /* IBTA code [12: 0.64 ms] */
	uint8_t rd_atomic;       /* both directions [SR_QP_MAX_RD_ATOMIC: 16] */
};

/*
 * Take a QP from RESET through INIT and RTR to RTS towards peer: resolves
 * the peer's MAC (sr_node_av, with timeout_ms), our send PSN is sq_psn.
 * conn may be NULL.  0, -errno of sr_node_av() or of sr_qp_modify().
 */
int sr_node_qp_connect(struct sr_node *node, struct sr_qp *qp,
		       uint32_t sq_psn, const struct sr_node_peer *peer,
		       const struct sr_node_conn *conn, uint32_t timeout_ms);

/*
 * Poll cq for exactly n completions into wc, progressing (inline) while
 * waiting.  Returns n, or how many came (< n) when timeout_ms passed.
 */
int sr_node_cq_wait(struct sr_node *node, struct sr_cq *cq, struct sr_wc *wc,
		    int n, uint32_t timeout_ms);

/* Copy the transport's counters into the stats file now (any thread). */
void sr_node_stats_publish(struct sr_node *node);

#endif /* SR_PMD_NODE_H */
