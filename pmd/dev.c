/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dev.c — the device: create and destroy (EAL, port, addresses, GIDs,
 * counters, capture, faults, engine), neighbour glue and accessors.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_malloc.h>

#include "arp.h"
#include "daemon.h"
#include "dev_priv.h"
#include "hostnic.h"
#include "nd.h"
#include "qp/mcast.h"

#define SR_NEIGH_TICK_NS (10ull * 1000 * 1000)

/* ---- neighbours ---- */

/* Build a frame into a fresh buffer and send it from progress. */
void sr_dev_send_built(struct sr_pmd_dev *dev, const uint8_t *frame,
			      int len, unsigned int ctr)
{
	void *cookie;
	uint8_t *buf;

	if (len <= 0)
		return;
	buf = sr_rxtx_link_ops.tx_alloc(dev, (uint32_t)len, &cookie);
	if (buf == NULL) {
		sr_stats_add(dev->stats, SR_CTR_TX_NOBUF, 1);
		return;
	}
	memcpy(buf, frame, (size_t)len);
	sr_rxtx_link_ops.tx_submit(dev, cookie, (uint32_t)len);
	sr_stats_add(dev->stats, ctr, 1);
}

void sr_dev_arp_input(struct sr_pmd_dev *dev, const uint8_t *frame,
		      uint32_t len, const struct sr_frame *f)
{
	uint8_t reply[SR_ARP_FRAME_MAX];
	int n;

	if (dev->host != NULL)
		return;         /* the kernel answers on a host NIC */
	n = sr_arp_input(&dev->neigh, &dev->addr, frame, len, f,
			 sr_dev_now_ns(dev), reply);
	if (n < 0)
		sr_stats_add(dev->stats, SR_CTR_DROP_NEIGH, 1);
	sr_dev_send_built(dev, reply, n, SR_CTR_ARP_TX);
}

void sr_dev_nd_input(struct sr_pmd_dev *dev, const uint8_t *frame,
		     uint32_t len, const struct sr_frame *f)
{
	uint8_t reply[SR_ND_FRAME_MAX];
	int n;

	if (dev->host != NULL)
		return;         /* the kernel answers on a host NIC */
	n = sr_nd_input(&dev->neigh, &dev->addr, frame, len, f,
			sr_dev_now_ns(dev), reply);
	if (n < 0)
		sr_stats_add(dev->stats, SR_CTR_DROP_NEIGH, 1);
	sr_dev_send_built(dev, reply, n, SR_CTR_ND_TX);
}

static void sr_dev_solicit(void *ctx, const uint8_t ip[16])
{
	struct sr_pmd_dev *dev = ctx;
	uint8_t buf[SR_ND_FRAME_MAX > SR_ARP_FRAME_MAX ? SR_ND_FRAME_MAX :
							 SR_ARP_FRAME_MAX];

	if (dev->host != NULL)
		sr_host_solicit(dev, ip);    /* the kernel asks */
	else if (sr_gid_is_ipv4(ip))
		sr_dev_send_built(dev, buf,
				  sr_arp_build_request(buf, &dev->addr, ip + 12),
				  SR_CTR_ARP_TX);
	else
		sr_dev_send_built(dev, buf, sr_nd_build_ns(buf, &dev->addr, ip),
				  SR_CTR_ND_TX);
}

void sr_dev_neigh_tick(struct sr_pmd_dev *dev, uint64_t now_ns)
{
	dev->neigh_next_ns = now_ns + SR_NEIGH_TICK_NS;
	sr_neigh_tick(&dev->neigh, now_ns, sr_dev_solicit, dev);
}

int sr_pmd_resolve(struct sr_pmd_dev *dev, const uint8_t ip[16],
		   uint8_t mac[6])
{
	int rc;

	/* A multicast group: its MAC is the group's (RFC 1112, 2464). */
	if (sr_gid_is_mcast(ip) && !dev->cfg.has_gw) {
		sr_mcast_mac(ip, mac);
		return 0;
	}
	/* A client of a shared device: the daemon switches every frame. */
	if (dev->cfg.has_gw) {
		memcpy(mac, dev->cfg.gw_mac, 6);
		return 0;
	}
	/* One of our own addresses: frames to it loop back (rxtx.c). */
	for (uint32_t i = 0; i < dev->gids.n; i++) {
		if (dev->gids.entry[i].valid &&
		    memcmp(dev->gids.entry[i].gid, ip, 16) == 0) {
			memcpy(mac, dev->addr.mac, 6);
			return 0;
		}
	}
	if (dev->host != NULL)
		return sr_host_resolve(dev, ip, mac);
	rc = sr_neigh_resolve(&dev->neigh, ip, sr_dev_now_ns(dev), mac);

	if (rc == -EAGAIN) {
		sr_dev_solicit(dev, ip);
	} else if (rc == -EINPROGRESS) {
		rc = -EAGAIN;
	} else if (rc == -EHOSTUNREACH || rc == -ENOSPC) {
		sr_stats_add(dev->stats, SR_CTR_NEIGH_FAIL, 1);
		rc = -EHOSTUNREACH;
	}
	return rc;
}

/* ---- faults ---- */

static void sr_dev_fault_apply(struct sr_pmd_dev *dev,
			       const struct sr_fault_set *set)
{
	sr_wire_lock(dev);
	sr_fault_state_init(&dev->fault_tx, set);
	sr_fault_state_init(&dev->fault_rx, set);
	dev->fault_rx.rng ^= 0x5bd1e995u;    /* independent draws per side */
	dev->fault_on_tx = sr_fault_active(&dev->fault_tx, SR_FAULT_TX);
	dev->fault_on_rx = sr_fault_active(&dev->fault_rx, SR_FAULT_RX);
	sr_wire_unlock(dev);
}

void sr_dev_fault_poll(struct sr_pmd_dev *dev)
{
	struct sr_fault_set set;

	if (sr_stats_fault_poll(dev->stats, &set))
		sr_dev_fault_apply(dev, &set);
}

void sr_pmd_fault_set(struct sr_pmd_dev *dev, const struct sr_fault_set *set)
{
	/* Through the control block: progress picks it up at its next round. */
	sr_stats_fault_publish(dev->stats, set);
}

/* ---- create / destroy ---- */

static void sr_dev_addresses(struct sr_pmd_dev *dev)
{
	const struct sr_pmd_config *cfg = &dev->cfg;
	struct sr_pmd_addr *a = &dev->addr;

	a->vlan = cfg->vlan;
	a->vlan_prio = cfg->vlan_prio;
	a->any_ip = cfg->any_ip;
	a->has_ipv4 = cfg->has_ipv4;
	memcpy(a->ipv4, cfg->ipv4, 4);
	sr_gid_link_local(a->ipv6[0], a->mac);
	for (uint32_t i = 0; i < cfg->n_ipv6; i++)
		memcpy(a->ipv6[1 + i], cfg->ipv6[i], 16);
	a->n_ipv6 = 1 + cfg->n_ipv6;
	sr_gid_table_build(&dev->gids, a->mac, a->has_ipv4 ? a->ipv4 : NULL,
			   (const uint8_t(*)[16])cfg->ipv6, cfg->n_ipv6);
}

static void sr_dev_clock(struct sr_pmd_dev *dev)
{
	uint64_t hz = rte_get_tsc_hz();

	dev->tsc0 = rte_get_tsc_cycles();
	dev->ns_mult = (uint64_t)(((unsigned __int128)1000000000ull << 32) / hz);
}

static int sr_dev_stats(struct sr_pmd_dev *dev, char *err, size_t errlen)
{
	struct sr_stats_shm *s;

	s = sr_stats_create(dev->cfg.stats_dir, (int)getpid(), dev->port_id,
			    dev->stats_path);
	if (s == NULL) {
		int rc = -errno;

		snprintf(err, errlen, "stats file in '%s': %s",
			 dev->cfg.stats_dir, strerror(errno));
		return rc;
	}
	memcpy(s->port, dev->cfg.port,
	       RTE_MIN(strlen(dev->cfg.port), sizeof(s->port) - 1));
	s->mtu = (uint16_t)dev->mtu;
	s->path_mtu = dev->path_mtu;
	memcpy(s->mac, dev->addr.mac, 6);
	memcpy(s->ipv4, dev->addr.ipv4, 4);
	dev->stats = s;
	/* The configured rules, published so the tool shows them. */
	sr_stats_fault_publish(s, &dev->cfg.fault);
	sr_dev_fault_poll(dev);
	return 0;
}

/* engines > 1: dedicated mode, lcores within EAL's range. */
static int sr_dev_lanes_check(const struct sr_pmd_config *cfg, char *err,
			      size_t errlen)
{
	if (cfg->engines <= 1)
		return 0;
	if (cfg->mode != SR_PMD_MODE_DEDICATED) {
		snprintf(err, errlen,
			 "engines = %u needs mode = dedicated (inline progress runs one lane)",
			 cfg->engines);
		return -EINVAL;
	}
	if (cfg->engine_lcore + cfg->engines - 1 >= RTE_MAX_LCORE) {
		snprintf(err, errlen,
			 "engine lcores %u..%u: lcore ids stop at %u",
			 cfg->engine_lcore,
			 cfg->engine_lcore + cfg->engines - 1,
			 RTE_MAX_LCORE - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * Each lane's scratch buffer; lane 0's ring of frames submitted outside
 * progress; with several lanes, each lane's ring of frames steered to it.
 */
static int sr_dev_lanes_init(struct sr_pmd_dev *dev)
{
	char name[RTE_RING_NAMESIZE];

	for (uint32_t k = 0; k < dev->nlanes; k++) {
		struct sr_pmd_lane *l = &dev->lane[k];

		l->scratch = rte_malloc("sroce_scratch", dev->max_frame, 64);
		if (l->scratch == NULL)
			return -ENOMEM;
		if (k == 0) {
			snprintf(name, sizeof(name), "sroce_tx_%u",
				 dev->port_id);
			l->tx_ring = rte_ring_create(name, SR_RING_SIZE,
						     SOCKET_ID_ANY,
						     RING_F_SC_DEQ);
			if (l->tx_ring == NULL)
				return -ENOMEM;
		}
		if (dev->nlanes > 1) {
			snprintf(name, sizeof(name), "sroce_steer_%u_%u",
				 dev->port_id, k);
			l->rx_ring = rte_ring_create(name, SR_RING_SIZE,
						     SOCKET_ID_ANY,
						     RING_F_SC_DEQ);
			if (l->rx_ring == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

static void sr_dev_lanes_fini(struct sr_pmd_dev *dev)
{
	for (uint32_t k = 0; k < dev->nlanes; k++) {
		struct sr_pmd_lane *l = &dev->lane[k];

		rte_ring_free(l->tx_ring);
		rte_ring_free(l->rx_ring);
		rte_free(l->scratch);
		l->tx_ring = l->rx_ring = NULL;
		l->scratch = NULL;
	}
}

int sr_pmd_dev_create(const struct sr_pmd_config *cfg, int lock_fd,
		      struct sr_pmd_dev **out, char *err, size_t errlen)
{
	char name[RTE_RING_NAMESIZE];
	struct sr_pmd_dev *dev;
	int rc;

	if (cfg->port[0] == '\0') {
		snprintf(err, errlen, "no port configured");
		return -EINVAL;
	}
	/* cache-line aligned: the lanes are (dev_priv.h), one line apart */
	dev = aligned_alloc(RTE_CACHE_LINE_SIZE,
			    RTE_ALIGN_CEIL(sizeof(*dev), RTE_CACHE_LINE_SIZE));
	if (dev == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memset(dev, 0, sizeof(*dev));
	dev->cfg = *cfg;
	dev->lock_fd = lock_fd;
	dev->n_rx_fd = -1;
	dev->bell_efd = -1;
	dev->wake_efd = -1;
	dev->ring_efd = -1;
	if (cfg->has_gw && cfg->bell_fd >= 0 && cfg->bell_efd >= 0) {
		dev->bell = sr_pmd_daemon_bell_map(cfg->bell_fd);
		dev->cfg.bell_fd = -1;
		if (dev->bell != NULL) {
			dev->bell_efd = cfg->bell_efd;
			dev->ring_flag = &dev->bell->daemon_asleep;
			dev->ring_efd = dev->bell_efd;
		} else {
			close(cfg->bell_efd);
		}
	}
	if (cfg->has_gw && cfg->wake_efd >= 0) {
		dev->cfg.wake_efd = -1;
		if (dev->bell != NULL)
			dev->wake_efd = cfg->wake_efd;
		else
			close(cfg->wake_efd);
	}
	rc = sr_dev_lanes_check(cfg, err, errlen);
	if (rc) {
		free(dev);
		return rc;
	}
	dev->nlanes = cfg->mode == SR_PMD_MODE_DEDICATED ? cfg->engines : 1;
	for (uint32_t k = 0; k < dev->nlanes; k++) {
		dev->lane[k].dev = dev;
		dev->lane[k].id = (uint16_t)k;
		dev->lane[k].lcore = cfg->engine_lcore + k;
		rte_spinlock_init(&dev->lane[k].progress_lock);
	}
	rte_spinlock_init(&dev->wire_lock);
	rte_spinlock_init(&dev->mc_lock);
	sr_neigh_init(&dev->neigh);
	/* The default link's server owns the socket path: clear a stale one. */
	if (cfg->default_link && cfg->node == 0) {
		char sock[SR_CONFIG_STR_MAX + 16];

		snprintf(sock, sizeof(sock), "%s/memif.sock", cfg->run_dir);
		unlink(sock);
	}
	rc = sr_eal_init(cfg, err, errlen);
	if (rc)
		goto out_free;
	sr_dev_clock(dev);
	rc = cfg->iface[0] ? sr_host_open(dev, err, errlen) :
			     sr_port_setup(dev, err, errlen);
	if (rc)
		goto out_port;
	snprintf(name, sizeof(name), "sroce_loop_%u", dev->port_id);
	dev->loop_ring = rte_ring_create(name, SR_RING_SIZE, SOCKET_ID_ANY,
					 RING_F_SC_DEQ);
	rc = sr_dev_lanes_init(dev);
	if (rc || dev->loop_ring == NULL) {
		rc = -ENOMEM;
		snprintf(err, errlen, "no memory for the lanes' rings");
		goto out_port;
	}
	if (dev->host != NULL) {
		rc = sr_host_addresses(dev);
		if (rc) {
			snprintf(err, errlen,
				 "interface '%s': cannot read its addresses (%s)",
				 cfg->iface, strerror(-rc));
			goto out_port;
		}
	} else {
		sr_dev_addresses(dev);
	}
	rc = sr_engine_init(dev, err, errlen);
	if (rc)
		goto out_engine;
	rc = sr_dev_stats(dev, err, errlen);
	if (rc)
		goto out_engine;
	if (cfg->capture[0]) {
		dev->cap = sr_capture_open(cfg->capture, dev->max_frame, err,
					   errlen);
		if (dev->cap == NULL) {
			rc = -EIO;
			goto out_stats;
		}
	}
	dev->neigh_next_ns = sr_dev_now_ns(dev);
	dev->link_ok = true;
	*out = dev;
	return 0;
out_stats:
	sr_stats_destroy(dev->stats, dev->stats_path);
out_engine:
	sr_engine_fini(dev);
out_port:
	rte_ring_free(dev->loop_ring);
	sr_dev_lanes_fini(dev);
	sr_port_teardown(dev);
	sr_host_close(dev);
out_free:
	free(dev);
	return rc;
}

void sr_pmd_dev_destroy(struct sr_pmd_dev *dev)
{
	if (dev == NULL)
		return;
	if (dev->engine.running)
		sr_pmd_stop(dev);
	/* Send what is queued, then let go of what the faults hold. */
	sr_pmd_progress(dev);
	sr_rxtx_release_all(dev);
	sr_capture_close(dev->cap);
	sr_dev_mcast_fini(dev);
	sr_port_teardown(dev);
	sr_host_close(dev);
	sr_engine_fini(dev);
	rte_ring_free(dev->loop_ring);
	sr_dev_lanes_fini(dev);
	sr_stats_destroy(dev->stats, dev->stats_path);
	if (dev->lock_fd >= 0)
		close(dev->lock_fd);
	if (dev->cfg.has_gw && dev->cfg.daemon_fd >= 0)
		close(dev->cfg.daemon_fd);     /* detach from sroced */
	sr_pmd_daemon_bell_unmap(dev->bell);
	if (dev->bell_efd >= 0)
		close(dev->bell_efd);
	if (dev->wake_efd >= 0)
		close(dev->wake_efd);
	free(dev);
}

void sr_pmd_dev_exit(struct sr_pmd_dev *dev)
{
	if (dev == NULL)
		return;
	/*
	 * A memif peer gets the time to take what was sent.  No progress
	 * round here: the process's other threads may still run, and
	 * destructors may have freed what a round's callbacks reach (what
	 * must go out went at the destroys: QPs and CM ids flush).
	 */
	sr_port_memif_drain(dev);
	sr_host_exit(dev);
}

static int sr_pmd_daemon_peer(void *ctx, uint32_t qpn, const uint8_t dgid[16],
			      uint32_t dqpn, bool on)
{
	struct sr_pmd_dev *dev = ctx;

	return sr_pmd_daemon_qp_peer(dev->cfg.daemon_fd, qpn, dgid, dqpn, on);
}

sr_pmd_peer_fn sr_pmd_daemon_peer_cb(const struct sr_pmd_dev *dev)
{
	return dev->cfg.has_gw && dev->cfg.daemon_fd >= 0 ? sr_pmd_daemon_peer
							  : NULL;
}

bool sr_pmd_daemon_lost(struct sr_pmd_dev *dev, uint64_t now_ns)
{
	if (!dev->cfg.has_gw || dev->daemon_lost || now_ns < dev->daemon_check_ns)
		return false;
	dev->daemon_check_ns = now_ns + 10000000;   /* every 10 ms */
	if (dev->cfg.daemon_fd >= 0 && sr_pmd_daemon_alive(dev->cfg.daemon_fd))
		return false;
	dev->daemon_lost = true;
	return true;
}

int sr_pmd_open(struct sr_pmd_dev **out)
{
	char err[SR_CONFIG_ERR_MAX] = "";
	struct sr_pmd_config *cfg;
	int lock_fd = -1, rc;

	cfg = malloc(sizeof(*cfg));
	if (cfg == NULL) {
		fprintf(stderr, "sroce: out of memory\n");
		return -ENOMEM;
	}
	rc = sr_pmd_config_load(cfg, &lock_fd, err, sizeof(err));
	if (rc == 0)
		rc = sr_pmd_dev_create(cfg, lock_fd, out, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sroce: %s\n", err);
		if (lock_fd >= 0)
			close(lock_fd);
	}
	free(cfg);
	return rc;
}

/* ---- accessors ---- */

const struct sr_link_ops *sr_pmd_link_ops(void)
{
	return &sr_rxtx_link_ops;
}

void *sr_pmd_link(struct sr_pmd_dev *dev)
{
	return dev;
}

void sr_pmd_rx_pause(struct sr_pmd_dev *dev, bool pause)
{
	dev->rx_paused = pause;
}

void sr_pmd_set_rx_handler(struct sr_pmd_dev *dev, sr_link_rx_fn fn,
			   void *ctx)
{
	dev->rx_ctx = ctx;
	__atomic_store_n(&dev->rx_fn, fn, __ATOMIC_RELEASE);
}

uint64_t sr_pmd_now_ns(const struct sr_pmd_dev *dev)
{
	const struct sr_pmd_lane *l = sr_rxtx_lane_of(dev);

	return l != NULL ? l->round_ns : sr_dev_now_ns(dev);
}

int sr_pmd_rx_fds(const struct sr_pmd_dev *dev, int *fds, int max)
{
	int n = 0;

	if (dev->n_rx_fd < 0)
		return -1;
	for (; n < dev->n_rx_fd && n < max; n++)
		fds[n] = dev->rx_fd[n];
	return n;
}

bool sr_pmd_daemon_shared(const struct sr_pmd_dev *dev)
{
	return dev->bell != NULL && dev->wake_efd >= 0 &&
	       __atomic_load_n(&dev->bell->shared, __ATOMIC_RELAXED);
}

void sr_pmd_daemon_wake(struct sr_pmd_dev *dev)
{
	uint64_t one = 1;

	if (dev->wake_efd >= 0)
		(void)!write(dev->wake_efd, &one, sizeof(one));
}

int sr_pmd_daemon_sleep(struct sr_pmd_dev *dev, uint32_t max_us)
{
	struct pollfd pfd = { .fd = dev->wake_efd, .events = POLLIN };
	struct timespec ts = { .tv_sec = max_us / 1000000,
			       .tv_nsec = (long)(max_us % 1000000) * 1000 };
	uint32_t *asleep;
	uint64_t v;

	if (dev->bell == NULL || dev->wake_efd < 0)
		return -ENOTSUP;
	if (!__atomic_load_n(&dev->bell->shared, __ATOMIC_RELAXED))
		return -EAGAIN;
	asleep = &dev->bell->client_asleep;
	__atomic_store_n(asleep, 1, __ATOMIC_RELAXED);
	/* the flag's store before the round's look at the channel */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (sr_pmd_progress(dev) > 0) {
		__atomic_store_n(asleep, 0, __ATOMIC_RELAXED);
		return 1;
	}
	(void)ppoll(&pfd, 1, &ts, NULL);
	__atomic_store_n(asleep, 0, __ATOMIC_RELAXED);
	(void)!read(dev->wake_efd, &v, sizeof(v));   /* non-blocking */
	sr_stats_add(dev->stats, SR_CTR_SW_CLIENT_SLEEPS, 1);
	return 0;
}

void sr_pmd_set_peer_bell(struct sr_pmd_dev *dev, uint32_t *asleep, int efd)
{
	dev->ring_efd = efd;
	__atomic_store_n(&dev->ring_flag, asleep, __ATOMIC_RELEASE);
}

bool sr_pmd_tx_idle(const struct sr_pmd_dev *dev)
{
	for (uint32_t k = 0; k < dev->nlanes; k++) {
		const struct sr_pmd_lane *l = &dev->lane[k];

		if (l->n_tx_out || l->n_tx_pend || l->hold_tx.count ||
		    (l->tx_ring != NULL && rte_ring_count(l->tx_ring) != 0))
			return false;
	}
	return true;
}

int sr_pmd_link_wait(struct sr_pmd_dev *dev, uint32_t timeout_ms)
{
	uint64_t end = sr_dev_now_ns(dev) + (uint64_t)timeout_ms * 1000000;
	const struct timespec nap = { .tv_nsec = 1000000 };

	while (!sr_port_link_up(dev)) {
		if (sr_dev_now_ns(dev) >= end)
			return -ETIMEDOUT;
		if (!dev->engine.running)
			sr_pmd_progress(dev);
		nanosleep(&nap, NULL);
	}
	return 0;
}

void sr_pmd_set_gid_change_cb(struct sr_pmd_dev *dev, sr_pmd_gid_change_fn fn,
			      void *ctx)
{
	dev->gid_ctx = ctx;
	dev->gid_cb = fn;
}

const char *sr_pmd_host_path(const struct sr_pmd_dev *dev)
{
	if (dev->host == NULL)
		return NULL;
	return strncmp(dev->cfg.port, "net_af_xdp", 10) == 0 ? "af_xdp" :
							       "af_packet";
}

const struct sr_gid_table *sr_pmd_gids(const struct sr_pmd_dev *dev)
{
	return &dev->gids;
}

void sr_pmd_mac(const struct sr_pmd_dev *dev, uint8_t mac[6])
{
	memcpy(mac, dev->addr.mac, 6);
}

uint32_t sr_pmd_mtu(const struct sr_pmd_dev *dev)
{
	return dev->mtu;
}

uint32_t sr_pmd_path_mtu_of(const struct sr_pmd_dev *dev)
{
	return dev->path_mtu;
}

uint16_t sr_pmd_vlan(const struct sr_pmd_dev *dev)
{
	return dev->cfg.vlan;
}

uint16_t sr_pmd_port_id(const struct sr_pmd_dev *dev)
{
	return dev->port_id;
}

const struct sr_pmd_config *sr_pmd_config_of(const struct sr_pmd_dev *dev)
{
	return &dev->cfg;
}

struct sr_stats_shm *sr_pmd_stats(struct sr_pmd_dev *dev)
{
	return dev->stats;
}
