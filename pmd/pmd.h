/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmd.h — the public API of pmd/, the only code that drives DPDK.
 *
 * A device is one DPDK port (net_memif, net_af_packet, net_tap, net_ring or
 * a real NIC) with its addresses, GID table, ARP/ND, counters, capture and
 * fault injection.  It implements lib/core/link.h for the transport:
 * sr_pmd_link_ops() + sr_pmd_link() are what the transport's struct sr_dev
 * is given, and sr_pmd_set_rx_handler() is where it registers for received
 * UDP/4791 frames.
 *
 * Progress runs in one of two modes (config key mode):
 *   inline     the consumer calls sr_pmd_progress() from its post/poll;
 *   dedicated  sr_pmd_start() runs the same progress in a loop on a worker
 *              lcore — or on `engines` lcores, each a lane with its own
 *              port queue pair and its shard of the QPs; other threads hand
 *              work over through rings (sr_pmd_engine_call, and tx_submit
 *              from outside progress).
 * Either way, the rx handler and the registered poll callbacks run on the
 * progress threads: one at a time per lane (the transport's lock per lane
 * lets lanes run at once, each on its own QPs).  The link ops may be called from any
 * thread: frames submitted outside progress cross an MP ring.
 *
 * node.h binds a device to lib's MR engine and transport (rx handler, poll
 * callback, addresses, counters): what most consumers want.
 */
#ifndef SR_PMD_PMD_H
#define SR_PMD_PMD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/link.h"
#include "config.h"
#include "counters.h"
#include "gid.h"

struct sr_pmd_dev;

/*
 * Open a device from the environment (sr_pmd_config_load: SROCE_CONFIG, or
 * the default memif link).  On failure prints one line "sroce: <reason>" to
 * stderr and returns -errno; *out is set only on success.
 */
int sr_pmd_open(struct sr_pmd_dev **out);

/*
 * Open a device from a configuration: initialises the EAL on first use
 * (later devices hot-plug their vdev), sets up the port and starts it.
 * Returns 0 or -errno with one line in err:
 *   -EINVAL  bad configuration (address, MTU, VLAN, lcore);
 *   -ENODEV  the port did not probe or is not found;
 *   -ENOMEM  no memory for the mbuf pool or the device;
 *   -EIO     the EAL or the port failed to initialise or start;
 *   others   from the capture file or the stats file.
 */
int sr_pmd_dev_create(const struct sr_pmd_config *cfg, int lock_fd,
		      struct sr_pmd_dev **out, char *err, size_t errlen);

/* Stop the engine, the port, close capture and stats.  Accepts NULL. */
void sr_pmd_dev_destroy(struct sr_pmd_dev *dev);

/*
 * The process exits while the device is still in use (a program that
 * never closed its contexts, or whose threads still run): give a memif
 * peer the time to take what was just sent, and leave nothing on the host
 * that outlives the process (a host NIC's XDP program and nftables
 * table), without touching what the threads may still use.
 */
void sr_pmd_dev_exit(struct sr_pmd_dev *dev);

/* The link ops (lib/core/link.h) and the link handle to pass with them. */
const struct sr_link_ops *sr_pmd_link_ops(void);
void *sr_pmd_link(struct sr_pmd_dev *dev);
/* The port's speed in bit/s as DPDK reports it; 0 when it does not know. */
uint64_t sr_pmd_speed_bps(const struct sr_pmd_dev *dev);
/*
 * The line rate for congestion control (sr_dev_config.line_bps): the
 * configuration's line_rate, with *paced true (every QP is paced to it: a
 * link slower than the port), else the port's speed, unpaced (0: unknown).
 */
uint64_t sr_pmd_line_bps(const struct sr_pmd_dev *dev, bool *paced);
/*
 * Payload bytes from which the port takes frames that point at registered
 * memory (sr_dev_config.tx_ref_min); 0: it copies them all.
 */
uint32_t sr_pmd_tx_ref_min(const struct sr_pmd_dev *dev);
/* Lanes the device's rounds run (sr_dev_config.lanes): `engines` in
 * dedicated mode, else 1. */
unsigned int sr_pmd_lanes(const struct sr_pmd_dev *dev);

struct sr_dev_config;
struct sr_gid_table;
/*
 * What a transport device on this port takes from it (pmd/node.c): the
 * link ops, the MAC, the GIDs of gids, ECN and congestion control, the
 * line rate, the trace ring, the requester's window, and on a shared
 * device the daemon's QPN block and peer callback.  The caller adds the
 * MR engine and its async callback.
 */
void sr_pmd_dev_config(struct sr_pmd_dev *dev, const struct sr_gid_table *gids,
		       struct sr_dev_config *dc);

/*
 * Register the handler for received UDP/4791 frames (NULL to remove; such
 * frames are then dropped and counted as drop_no_handler).
 */
/*
 * Stop taking frames from the port (true) or take them again (false): a
 * stopped port's queue fills and holds its sender back (sroced, while a
 * client's frames wait for room at their destination: switch.c).  For the
 * thread that progresses the device.
 */
void sr_pmd_rx_pause(struct sr_pmd_dev *dev, bool pause);

void sr_pmd_set_rx_handler(struct sr_pmd_dev *dev, sr_link_rx_fn fn,
			   void *ctx);

/*
 * One round: apply new fault rules, run handed-over work, receive one burst
 * (to the rx handler, ARP and ND), release held frames, run the poll
 * callbacks, retry neighbour requests, flush the transmit burst.  Returns
 * the number of frames and work items handled (0 = idle), or 0 when another
 * thread is in progress on this device.
 */
int sr_pmd_progress(struct sr_pmd_dev *dev);

/*
 * For a thread that sleeps when idle instead of polling (sroced): the
 * sockets that become readable (POLLIN) when the port has frames to take
 * (AF_XDP, af_packet), at most max in fds; -1 when the port has none
 * (memif, tap, PCI: poll it, or sleep only briefly).  And whether every
 * lane has sent all it staged (false: a full port queue holds frames that
 * the next round retries).
 */
int sr_pmd_rx_fds(const struct sr_pmd_dev *dev, int *fds, int max);
bool sr_pmd_tx_idle(const struct sr_pmd_dev *dev);

/*
 * A client of sroced with nothing to do sleeps until its channel brings
 * frames (the doorbell's other half, sroced/proto.h): it says so in the
 * doorbell page, runs one more round, and, if that found nothing, waits
 * on its eventfd, which the daemon writes after putting frames on the
 * channel while the flag is set — up to max_us.  Only while the daemon
 * serves other clients too (srd_bell.shared).  Returns 1 when the round
 * found work (no sleep), 0 after a sleep, -EAGAIN when the daemon serves
 * this client alone, -ENOTSUP without a doorbell (an embedded device, an
 * old daemon).
 */
int sr_pmd_daemon_sleep(struct sr_pmd_dev *dev, uint32_t max_us);
/* Would sr_pmd_daemon_sleep sleep now (a doorbell, the daemon shared)? */
bool sr_pmd_daemon_shared(const struct sr_pmd_dev *dev);
/* Wake a thread of this process asleep in sr_pmd_daemon_sleep. */
void sr_pmd_daemon_wake(struct sr_pmd_dev *dev);
/* sroced: after a burst to dev's peer, wake it if *asleep (not owned). */
void sr_pmd_set_peer_bell(struct sr_pmd_dev *dev, uint32_t *asleep, int efd);

/*
 * Per-poll callbacks of the transport: return work done, 0 when idle.
 * Every lane's round calls them with its index and the device's lane count
 * (0 and 1 unless dedicated mode runs several engines): the transport does
 * the work of that shard of its QPs (sr_dev_poll_shard()).
 */
typedef int (*sr_pmd_poll_fn)(void *ctx, unsigned int lane,
			      unsigned int nlanes);

/*
 * Add / remove a poll callback.  0, -ENOSPC (16 at most), -ENOENT,
 * -EINVAL (fn NULL), -ENOBUFS (work ring full), -EDEADLK (called from a
 * round of a lane other than 0).  Returns once no lane runs the old list.
 */
int sr_pmd_engine_register(struct sr_pmd_dev *dev, sr_pmd_poll_fn fn,
			   void *ctx);
int sr_pmd_engine_unregister(struct sr_pmd_dev *dev, sr_pmd_poll_fn fn,
			     void *ctx);

/*
 * Run fn(arg) on the progress thread at its next round (lock-free MP ring).
 * Returns 0 or -ENOBUFS when the ring is full.
 */
int sr_pmd_engine_call(struct sr_pmd_dev *dev, void (*fn)(void *arg),
		       void *arg);

/*
 * Wait until a whole progress round has run after this call, so frames
 * submitted before it (link ops from outside progress) are on the wire:
 * what a consumer does before its process may exit (a CM's last DREP).
 * Progresses the device itself meanwhile (inline mode).  Not from a
 * progress round.  0 or -ETIMEDOUT.
 */
int sr_pmd_engine_sync(struct sr_pmd_dev *dev, uint32_t timeout_ms);

/*
 * Dedicated mode: launch the progress loop of each lane on its worker lcore
 * (engine_lcore + lane) / stop them and wait.  0, -EINVAL (inline mode, or
 * an lcore not enabled), -EBUSY (already running or an lcore is busy),
 * -EALREADY (stop: not running).
 */
int sr_pmd_start(struct sr_pmd_dev *dev);
int sr_pmd_stop(struct sr_pmd_dev *dev);

/*
 * A thread of the consumer's that will progress devices (the shim's
 * helper) registers with DPDK: it then has an lcore id, and with it the
 * mbuf pools' per-lcore caches instead of their shared ring on every
 * allocation and free.  0: registered (unregister before the thread
 * ends); 1: it already has an lcore id; -errno: no lcore id left (it
 * still works, slower).
 */
int sr_pmd_thread_register(void);
void sr_pmd_thread_unregister(void);

/*
 * Monotonic nanoseconds (TSC based); the link's now_ns.  Inside a progress
 * round (a poll callback), the time the round began: one read per round.
 */
uint64_t sr_pmd_now_ns(const struct sr_pmd_dev *dev);

/*
 * Wait up to timeout_ms for the port's link to come up (memif: the peer
 * connected), progressing the device meanwhile.  0 or -ETIMEDOUT.
 */
int sr_pmd_link_wait(struct sr_pmd_dev *dev, uint32_t timeout_ms);

/*
 * Resolve a peer's MAC by IP (16 bytes; IPv4 as ::ffff:a.b.c.d), with ARP or
 * ND.  0 with mac filled; -EAGAIN while resolving (a request went out:
 * retry after progress); -EHOSTUNREACH when the peer did not answer its
 * retries.  Call from the progress thread.
 */
int sr_pmd_resolve(struct sr_pmd_dev *dev, const uint8_t ip[16],
		   uint8_t mac[6]);

/*
 * The device's membership of a multicast group (a GID: IPv4-mapped or
 * IPv6) on its port, from any thread: join when the first of its QPs
 * attached, leave when the last one went (verbs-shim's ibv_attach_mcast).
 * The port reports it as a host does (pmd/mcast.c).  0, -EINVAL (not a
 * multicast GID), -ENOENT (leave: not joined), -ENOMEM.
 */
int sr_pmd_mcast(struct sr_pmd_dev *dev, const uint8_t gid[16], bool join);

/*
 * Called on the progress thread (lane 0) after GID table entry index
 * changed (e is its new state; valid 0 when the address went away): a
 * host NIC's addresses are the interface's and follow it (hostnic.h).
 * The hook a verbs consumer turns into IBV_EVENT_GID_CHANGE.  fn NULL
 * removes it.  Set it before traffic starts (it is not synchronised).
 */
typedef void (*sr_pmd_gid_change_fn)(void *ctx, unsigned int index,
				     const struct sr_gid_entry *e);
void sr_pmd_set_gid_change_cb(struct sr_pmd_dev *dev, sr_pmd_gid_change_fn fn,
			      void *ctx);

/*
 * The kernel interface a host NIC port (port = iface:NAME) runs on and how:
 * "af_xdp" or "af_packet"; NULL for other ports.
 */
const char *sr_pmd_host_path(const struct sr_pmd_dev *dev);

/*
 * A device of sroced's (cfg.has_gw): has the daemon gone away since the
 * last call?  True once, the first call (from the progress thread, at
 * most every 10 ms of now_ns, else false) that finds the daemon's end of
 * the attachment closed; the consumer then fails its transport
 * (sr_dev_fatal).  Always false for other devices.
 */
bool sr_pmd_daemon_lost(struct sr_pmd_dev *dev, uint64_t now_ns);

/*
 * A device of sroced's: the transport's peer_cb (core/dev.h) that tells
 * the daemon each RC/UC QP's peer, with dev as its ctx; NULL for other
 * devices (no callback needed).
 */
typedef int (*sr_pmd_peer_fn)(void *ctx, uint32_t qpn, const uint8_t dgid[16],
			      uint32_t dqpn, bool on);
sr_pmd_peer_fn sr_pmd_daemon_peer_cb(const struct sr_pmd_dev *dev);

/* Device facts. */
const struct sr_gid_table *sr_pmd_gids(const struct sr_pmd_dev *dev);
void sr_pmd_mac(const struct sr_pmd_dev *dev, uint8_t mac[6]);
uint32_t sr_pmd_mtu(const struct sr_pmd_dev *dev);        /* IP MTU */
uint32_t sr_pmd_path_mtu_of(const struct sr_pmd_dev *dev); /* 256..4096 */
uint16_t sr_pmd_vlan(const struct sr_pmd_dev *dev);
uint16_t sr_pmd_port_id(const struct sr_pmd_dev *dev);
const struct sr_pmd_config *sr_pmd_config_of(const struct sr_pmd_dev *dev);

/*
 * Counters: the device block (also the stats shared memory file) for the
 * transport to count with sr_stats_add / sr_stats_qp_get.
 */
struct sr_stats_shm *sr_pmd_stats(struct sr_pmd_dev *dev);

/* Replace the fault rules now (the same as the stats tool does). */
void sr_pmd_fault_set(struct sr_pmd_dev *dev, const struct sr_fault_set *set);

#endif /* SR_PMD_PMD_H */
