/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dev_priv.h — the device object, shared by the files of pmd/ only.
 * Consumers see struct sr_pmd_dev as opaque (pmd.h).
 */
#ifndef SR_PMD_DEV_PRIV_H
#define SR_PMD_DEV_PRIV_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

#include "capture.h"
#include "config.h"
#include "counters.h"
#include "fault.h"
#include "frame.h"
#include "gid.h"
#include "neigh.h"
#include "pmd.h"

#define SR_ENGINE_CALLBACKS_MAX 16
#define SR_TX_PEND_MAX 512
#define SR_RING_SIZE 4096
#define SR_PMD_XSK_MAX 16            /* AF_XDP sockets of a port counted */

struct sr_pmd_work {
	void (*fn)(void *arg);
	void *arg;
};

struct sr_pmd_engine {
	struct {
		sr_pmd_poll_fn fn;
		void *ctx;
	} cb[SR_ENGINE_CALLBACKS_MAX];
	uint32_t n_cb;
	struct rte_ring *work;        /* struct sr_pmd_work *, MP/SC */
	struct sr_pmd_work *work_pool;/* ring-sized pool of work items */
	struct rte_ring *work_free;   /* free work items, MP/MC */
	volatile bool stop;
	bool running;                 /* every lane's lcore runs its loop */
};

/*
 * A lane: one engine's share of the device — the port's queue pair of the
 * same index, the frames it stages for that TX queue, and the QPs whose
 * QPN % nlanes is its index (their frames are handed to it when another
 * lane receives them).  Lane 0 also does the device's housekeeping (handed
 * work, ARP / ND, link checks, same-process loopback).  One lane unless
 * `engines` says more (dedicated mode).
 */
struct sr_pmd_lane {
	struct sr_pmd_dev *dev;
	uint16_t id;                  /* port queue and QP shard */
	uint32_t lcore;               /* dedicated mode */
	rte_spinlock_t progress_lock; /* one thread in this lane's round */
	uint64_t round_ns;            /* the clock, read once per round */
	struct rte_mbuf *tx_pend[SR_TX_PEND_MAX];
	uint32_t n_tx_pend;
	struct rte_mbuf *tx_out[SR_CONFIG_BURST_MAX];
	uint32_t n_tx_out;
	struct rte_ring *tx_ring;     /* frames submitted outside progress (lane 0) */
	struct rte_ring *rx_ring;     /* frames other lanes received for us, MP/SC */
	uint32_t n_steered;           /* frames handed to other lanes this round */
	uint8_t *scratch;             /* linearised multi-segment frames */
	/* TX frames a delay / reorder fault holds: they leave on this lane's queue */
	struct sr_fault_hold hold_tx;
} __rte_cache_aligned;

struct sr_pmd_dev {
	struct sr_pmd_config cfg;
	int lock_fd;                  /* default link node lock, or -1 */
	uint16_t port_id;
	bool port_started;
	bool hotplugged;              /* probed with rte_dev_probe */
	char dev_name[RTE_DEV_NAME_MAX_LEN];
	struct rte_mempool *pool;
	uint32_t mtu, path_mtu, max_frame;
	bool tx_ip_cksum, tx_udp_cksum, tx_multi_seg;
	uint32_t tx_ref_min;          /* payloads from this size go by
				       * reference (rxtx.c); 0: copied */
	bool memif_client;            /* reconnects itself (port.c) */
	bool memif;                   /* bursts only while the link is up */
	bool link_ok;                 /* this round may burst */
	bool rx_paused;               /* sr_pmd_rx_pause: no receive burst */
	uint64_t last_tx_ns;          /* a lane's round that sent (port.c) */
	uint64_t link_check_ns, link_down_since_ns;

	struct sr_pmd_addr addr;
	struct sr_gid_table gids;
	struct sr_neigh_cache neigh;
	uint64_t neigh_next_ns;
	uint64_t link_asked_ns;       /* memif link state last asked */

	struct sr_host *host;         /* port = iface:NAME (hostnic.c), else NULL */
	uint64_t host_next_ns;        /* next look at address changes */
	uint64_t daemon_check_ns;     /* sroced's device: next look at it */
	bool daemon_lost;
	sr_pmd_gid_change_fn gid_cb;
	void *gid_ctx;

	sr_link_rx_fn rx_fn;
	void *rx_ctx;

	struct sr_pmd_lane lane[SR_PMD_ENGINES_MAX];
	uint32_t nlanes;              /* cfg.engines */
	int xsk_fd[SR_PMD_XSK_MAX];   /* net_af_xdp's sockets (counters) */
	int n_xsk;
	int rx_fd[SR_PMD_XSK_MAX];    /* sockets readable when frames wait */
	int n_rx_fd;                  /* (AF_XDP, af_packet), -1: none */
	struct srd_bell *bell;        /* a client of sroced: the doorbell */
	int bell_efd;                 /* that rings it (sroced/proto.h) */
	int wake_efd;                 /* and that wakes us (owned) */
	uint32_t *ring_flag;          /* after a burst: wake the peer if */
	int ring_efd;                 /* it sleeps (sr_pmd_daemon_bell_ring) */
	struct rte_ring *loop_ring;   /* frames to our own MAC: same-process loopback */
	uint64_t tx_ring_full;        /* counted by other threads (atomic) */

	struct sr_pmd_engine engine;

	/* Capture and fault state, shared by the lanes (taken when nlanes > 1). */
	rte_spinlock_t wire_lock;
	struct sr_fault_state fault_tx, fault_rx;
	struct sr_fault_hold hold_rx; /* RX holds: steered again when let go */
	bool fault_on_tx, fault_on_rx;

	struct sr_stats_shm *stats;
	char stats_path[PATH_MAX];
	struct sr_capture *cap;

	uint64_t tsc0, ns_mult;       /* ns = (tsc - tsc0) * ns_mult >> 32 */

	/* Multicast groups the device's QPs joined (mcast.c): the port's
	 * membership; from any thread, under mc_lock. */
	rte_spinlock_t mc_lock;
	struct sr_pmd_mc *mc;         /* SR_PMD_MC_MAX slots, or NULL */
	uint32_t n_mc;
};

static inline uint64_t sr_dev_now_ns(const struct sr_pmd_dev *dev)
{
	return (uint64_t)(((unsigned __int128)(rte_get_tsc_cycles() - dev->tsc0) *
			   dev->ns_mult) >> 32);
}

/* eal.c: initialise the EAL once per process from cfg. */
int sr_eal_init(const struct sr_pmd_config *cfg, char *err, size_t errlen);

/* port.c: probe / find, configure and start the port; and undo it. */
int sr_port_setup(struct sr_pmd_dev *dev, char *err, size_t errlen);
void sr_port_teardown(struct sr_pmd_dev *dev);
bool sr_port_link_up(const struct sr_pmd_dev *dev);
/* memif: wait (bounded) until the peer had time to take what was sent. */
void sr_port_memif_drain(struct sr_pmd_dev *dev);
void sr_port_keepalive(struct sr_pmd_dev *dev, uint64_t now_ns);

/* rxtx.c: one receive burst, transmit flush, drain of held frames. */
uint32_t sr_rxtx_rx(struct sr_pmd_lane *l);
uint32_t sr_rxtx_flush(struct sr_pmd_lane *l);
void sr_rxtx_release_all(struct sr_pmd_dev *dev);
/* Queue one built frame for transmission (the lane's progress thread). */
void sr_rxtx_queue(struct sr_pmd_lane *l, struct rte_mbuf *m);
extern const struct sr_link_ops sr_rxtx_link_ops;
/* The lane this thread is in progress on (for tx_submit routing). */
extern __thread struct sr_pmd_lane *sr_rxtx_current
	__attribute__((tls_model("initial-exec")));

/* The lane of this thread when it is in progress on dev, else NULL. */
static inline struct sr_pmd_lane *sr_rxtx_lane_of(const struct sr_pmd_dev *dev)
{
	struct sr_pmd_lane *l = sr_rxtx_current;

	return l != NULL && l->dev == dev ? l : NULL;
}

/* Capture and fault state are shared by the lanes: serialise when several. */
static inline void sr_wire_lock(struct sr_pmd_dev *dev)
{
	if (dev->nlanes > 1)
		rte_spinlock_lock(&dev->wire_lock);
}

static inline void sr_wire_unlock(struct sr_pmd_dev *dev)
{
	if (dev->nlanes > 1)
		rte_spinlock_unlock(&dev->wire_lock);
}

/* engine.c */
int sr_engine_init(struct sr_pmd_dev *dev, char *err, size_t errlen);
void sr_engine_fini(struct sr_pmd_dev *dev);
uint32_t sr_engine_run_work(struct sr_pmd_dev *dev);
uint32_t sr_engine_run_callbacks(struct sr_pmd_lane *l);
int sr_engine_lane_round(struct sr_pmd_lane *l);

/* dev.c: neighbour glue called by rxtx.c for ARP / ND frames. */
void sr_dev_arp_input(struct sr_pmd_dev *dev, const uint8_t *frame,
		      uint32_t len, const struct sr_frame *f);
/* mcast.c: an IGMP frame; queries are answered with our groups. */
void sr_dev_igmp_input(struct sr_pmd_dev *dev, const uint8_t *frame,
		       uint32_t len, const struct sr_frame *f);
/* mcast.c: is a frame a RoCEv2 datagram to a group the device joined? */
bool sr_dev_mcast_joined(struct sr_pmd_dev *dev, const uint8_t *frame,
			 uint32_t len);
/* mcast.c: the groups joined (up to max), their number. */
uint32_t sr_dev_mcast_groups(struct sr_pmd_dev *dev, uint8_t (*gid)[16],
			     uint32_t max);
/* mcast.c: leave every group (the device goes). */
void sr_dev_mcast_fini(struct sr_pmd_dev *dev);
/* dev.c: a built frame out of the port from any thread (lane 0). */
void sr_dev_send_built(struct sr_pmd_dev *dev, const uint8_t *frame, int len,
		       unsigned int ctr);
void sr_dev_nd_input(struct sr_pmd_dev *dev, const uint8_t *frame,
		     uint32_t len, const struct sr_frame *f);
void sr_dev_neigh_tick(struct sr_pmd_dev *dev, uint64_t now_ns);
void sr_dev_fault_poll(struct sr_pmd_dev *dev);

#endif /* SR_PMD_DEV_PRIV_H */
