/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * port.c — one DPDK port: find or hot-plug it, size the mbuf pool for its
 * MTU, configure one RX and one TX queue with the checksum offloads it has,
 * set the MAC and the MTU, start it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netpacket/packet.h>
#include <sys/socket.h>

#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_memzone.h>
#include <rte_mempool.h>

#include "dev_priv.h"
#include "xdp.h"

#define SR_PORT_MBUF_CACHE 256
#define SR_PORT_MIN_ROOM 2048
#define SR_PORT_CLIENT_WAIT_MS 15000
#define SR_PORT_KEEPALIVE_NS (250ull * 1000 * 1000)
#define SR_PORT_RECONNECT_NS (1000ull * 1000 * 1000)

/* The device name of the port key: a vdev name before ',' or a PCI address. */
static void sr_port_name(const char *port, char *name, size_t len)
{
	size_t n = strcspn(port, ",");

	if (n >= len)
		n = len - 1;
	memcpy(name, port, n);
	name[n] = '\0';
}

static int sr_port_find(struct sr_pmd_dev *dev, char *err, size_t errlen)
{
	uint16_t id;

	sr_port_name(dev->cfg.port, dev->dev_name, sizeof(dev->dev_name));
	if (rte_eth_dev_get_port_by_name(dev->dev_name, &id) != 0) {
		/* The EAL was up before this device: hot-plug it. */
		if (rte_dev_probe(dev->cfg.port) != 0 ||
		    rte_eth_dev_get_port_by_name(dev->dev_name, &id) != 0) {
			snprintf(err, errlen,
				 "port '%s' did not probe (driver missing, bad arguments or device absent)",
				 dev->cfg.port);
			return -ENODEV;
		}
		dev->hotplugged = true;
	}
	dev->port_id = id;
	return 0;
}

/*
 * Software links whose frame size the driver reports but does not enforce:
 * net_memif chains 2 KiB descriptors for any frame, net_ring passes mbufs.
 * On them the configured MTU holds beyond max_rx_pktlen.
 */
static const char *const sr_port_soft_mtu[] = { "net_memif", "net_ring" };

static bool sr_port_is_soft(const struct rte_eth_dev_info *info)
{
	for (size_t i = 0; i < RTE_DIM(sr_port_soft_mtu); i++)
		if (strcmp(info->driver_name, sr_port_soft_mtu[i]) == 0)
			return true;
	return false;
}

/*
 * net_af_packet says 1518 bytes (DPDK 22.11) and ethdev holds it to that,
 * but it carries what its ring slot and the kernel's interface carry; and
 * setting its MTU sets the kernel interface's.  The kernel's MTU is the
 * one that counts, and sroce leaves it alone.
 */
static bool sr_port_mtu_is_kernel(const struct rte_eth_dev_info *info)
{
	/* net_af_xdp's MTU setter is the kernel interface's too */
	return strcmp(info->driver_name, "net_af_packet") == 0 ||
	       strcmp(info->driver_name, "net_af_xdp") == 0;
}

/*
 * The IP MTU the device uses (*mtu) and the one the port is configured
 * with (*port_mtu): the configured MTU within the port's limits, or the
 * port's own.
 */
static void sr_port_pick_mtu(const struct sr_pmd_dev *dev,
			     const struct rte_eth_dev_info *info,
			     uint32_t *mtu, uint32_t *port_mtu)
{
	uint16_t cur = RTE_ETHER_MTU;
	uint32_t want = dev->cfg.mtu, lim = want, cap;
	const char *why;

	if (want == 0) {
		if (rte_eth_dev_get_mtu(dev->port_id, &cur) != 0)
			cur = RTE_ETHER_MTU;
		want = lim = cur;
	}
	if (info->max_mtu && lim > info->max_mtu)
		lim = info->max_mtu;
	if (info->max_rx_pktlen &&
	    lim + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN > info->max_rx_pktlen)
		lim = info->max_rx_pktlen - RTE_ETHER_HDR_LEN -
		      RTE_ETHER_CRC_LEN;
	/* what the ring slot and the kernel's interface carry (config.h) */
	cap = sr_pmd_config_mtu_limit(&dev->cfg, &why);
	if (cap != 0 && lim > cap)
		lim = cap;
	if (lim < info->min_mtu)
		lim = info->min_mtu;
	*port_mtu = lim;
	if (sr_port_is_soft(info))
		*mtu = want;
	else if (sr_port_mtu_is_kernel(info))
		*mtu = cap != 0 && want > cap ? cap : want;
	else
		*mtu = lim;
}

/*
 * The device advertises only what its port carries (sr_port_pick_mtu):
 * one that advertised path MTU 4096 on a 1500-byte veth sent nothing and
 * dropped rxe's 4 KiB WRITEs.  One line says when the configured MTU was
 * not had, and why.
 */
static void sr_port_say_mtu(const struct sr_pmd_dev *dev)
{
	const char *why = "the port's limit";
	uint32_t cap = sr_pmd_config_mtu_limit(&dev->cfg, &why);

	if (cap == 0 || cap > dev->mtu)
		why = "the port's limit";
	if (dev->cfg.mtu != 0 && dev->mtu < dev->cfg.mtu)
		fprintf(stderr,
			"sroce: port '%s' carries an IP MTU of %u (%s), not the %u configured\n",
			dev->dev_name, dev->mtu, why, dev->cfg.mtu);
}

/* The kernel puts a received frame this far into its chunk (uapi/bpf.h's
 * XDP_PACKET_HEADROOM), after the headroom DPDK asks for. */
#define SR_XDP_HEADROOM 256u

static void sr_port_xdp_pool_free(struct rte_mempool_memhdr *mh, void *mz)
{
	(void)mh;
	rte_memzone_free(mz);
}

/*
 * net_af_xdp makes the pool's memory its UMEM, sized as if the mbufs lay
 * back to back (DPDK 22.11: count x object size from the first chunk's
 * page).  A pool made the usual way keeps each object inside one page;
 * with 4 KiB pages (--no-huge) that is one 2.3 KiB mbuf per page, so the
 * upper 40 % of the pool lay beyond the UMEM.  The kernel refused every
 * frame sent from such an mbuf (tx_invalid_descs) and every fill entry,
 * silently: a DREP sent from one was never on the wire, and qperf's
 * rc_bi_bw hung at its end one run in two.
 *
 * So the objects here are 2 or 4 KiB exactly (header, mbuf, room and the
 * kernel's XDP headroom: 4 KiB for a 1500-byte MTU), back to back from a
 * memzone aligned to that size: they tile every page (4 KiB or huge),
 * none crosses one (a zero-copy NIC could not take it), and count x size
 * is the whole of the memory.
 */
static struct rte_mempool *sr_port_xdp_pool(const char *name, uint32_t n,
					    uint32_t room, int socket)
{
	const unsigned int flags = RTE_MEMPOOL_F_NO_SPREAD;
	struct rte_pktmbuf_pool_private priv = { 0 };
	struct rte_mempool_objsz sz;
	const struct rte_memzone *mz;
	struct rte_mempool *mp;
	char mzname[RTE_MEMZONE_NAMESIZE];
	uint32_t obj, elt = 0;

	(void)rte_mempool_calc_obj_size(RTE_CACHE_LINE_SIZE, flags, &sz);
	for (obj = 2048; obj <= 4096; obj *= 2) {
		elt = obj - sz.header_size;
		if (elt >= sizeof(struct rte_mbuf) + room + SR_XDP_HEADROOM &&
		    rte_mempool_calc_obj_size(elt, flags, NULL) == obj)
			break;
	}
	if (obj > 4096) {
		rte_errno = EINVAL;      /* frames larger than a page */
		return NULL;
	}
	priv.mbuf_data_room_size = (uint16_t)(elt - sizeof(struct rte_mbuf));
	snprintf(mzname, sizeof(mzname), "%s_umem", name);
	mz = rte_memzone_reserve_aligned(mzname, (size_t)n * obj, socket, 0,
					 obj);
	if (mz == NULL)
		return NULL;
	mp = rte_mempool_create_empty(name, n, elt, SR_PORT_MBUF_CACHE,
				      sizeof(priv), socket, flags);
	if (mp == NULL) {
		rte_memzone_free(mz);
		return NULL;
	}
	if (rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(),
				       NULL) != 0)
		goto fail;
	rte_pktmbuf_pool_init(mp, &priv);
	if (rte_mempool_populate_iova(mp, mz->addr, mz->iova, mz->len,
				      sr_port_xdp_pool_free,
				      (void *)(uintptr_t)mz) != (int)n) {
		rte_errno = ENOMEM;
		goto fail;            /* frees mz with the chunk, if it took it */
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
fail:
	if (mp->nb_mem_chunks == 0)
		rte_memzone_free(mz);
	rte_mempool_free(mp);
	return NULL;
}

static int sr_port_pool(struct sr_pmd_dev *dev, const char *driver,
			char *err, size_t errlen)
{
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t room = dev->max_frame;

	/* af_packet refuses an RX queue whose slot would not fit an mbuf */
	if (strcmp(driver, "net_af_packet") == 0) {
		uint32_t slot = sr_pmd_config_devarg(dev->cfg.port, "framesz",
						     SR_PMD_AF_PACKET_FRAMESZ);

		if (slot > SR_PMD_AF_PACKET_HDR &&
		    room < slot - SR_PMD_AF_PACKET_HDR)
			room = slot - SR_PMD_AF_PACKET_HDR;
	}

	if (room < SR_PORT_MIN_ROOM)
		room = SR_PORT_MIN_ROOM;
	room = RTE_ALIGN_CEIL(room, 64) + RTE_PKTMBUF_HEADROOM;
	/*
	 * Several lanes: each pins its queues' descriptors and a round's
	 * worth of staged frames; keep as much again free.
	 */
	if (dev->nlanes > 1) {
		uint32_t need = dev->nlanes * (dev->cfg.rx_desc +
					       dev->cfg.tx_desc +
					       SR_TX_PEND_MAX) * 2;

		if (dev->cfg.mbufs < need)
			dev->cfg.mbufs = need;
	}
	snprintf(name, sizeof(name), "sroce_pool_%u", dev->port_id);
	if (strcmp(driver, "net_af_xdp") == 0)
		dev->pool = sr_port_xdp_pool(name, dev->cfg.mbufs, room,
					     rte_eth_dev_socket_id(dev->port_id));
	else
		dev->pool = rte_pktmbuf_pool_create(name, dev->cfg.mbufs,
					SR_PORT_MBUF_CACHE, 0, (uint16_t)room,
					rte_eth_dev_socket_id(dev->port_id));
	if (dev->pool == NULL) {
		snprintf(err, errlen,
			 "no memory for %u mbufs of %u bytes (%s); lower mbufs or mtu",
			 dev->cfg.mbufs, room, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/*
 * The process's sockets of a family (AF_XDP, AF_PACKET), at most max of
 * them; with ifindex not 0 only the af_packet sockets bound to that
 * interface.  DPDK's drivers open them and keep them to themselves: a
 * port's AF_XDP sockets are those that appear while its queues are set up
 * (their counters, sr_port_stats), its af_packet sockets those on its
 * interface.  Returns n.
 */
static int sr_port_socks(int family, int ifindex, int *fds, int max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while (n < max && (e = readdir(d)) != NULL) {
		struct sockaddr_ll ll;
		socklen_t len = sizeof(int);
		int fd = atoi(e->d_name), dom = 0;

		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) ||
		    getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) != 0 ||
		    dom != family)
			continue;
		len = sizeof(ll);
		if (ifindex != 0 &&
		    (getsockname(fd, (struct sockaddr *)&ll, &len) != 0 ||
		     ll.sll_ifindex != ifindex))
			continue;
		fds[n++] = fd;
	}
	closedir(d);
	return n;
}

static void sr_port_new_socks(struct sr_pmd_dev *dev, const int *before,
			      int n_before)
{
	int now[SR_PMD_XSK_MAX * 4];
	int n = sr_port_socks(AF_XDP, 0, now, SR_PMD_XSK_MAX * 4);

	dev->n_xsk = 0;
	for (int i = 0; i < n && dev->n_xsk < SR_PMD_XSK_MAX; i++) {
		bool old = false;

		for (int j = 0; j < n_before && !old; j++)
			old = before[j] == now[i];
		if (!old)
			dev->xsk_fd[dev->n_xsk++] = now[i];
	}
}

static int sr_port_queues(struct sr_pmd_dev *dev,
			  const struct rte_eth_dev_info *info,
			  uint32_t port_mtu, char *err, size_t errlen)
{
	bool xdp = strcmp(info->driver_name, "net_af_xdp") == 0;
	int before[SR_PMD_XSK_MAX * 4], n_before = 0;
	uint16_t nb_rxd = (uint16_t)dev->cfg.rx_desc;
	uint16_t nb_txd = (uint16_t)dev->cfg.tx_desc;
	uint64_t want = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
			RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	struct rte_eth_conf conf = {
		.rxmode = { .mtu = port_mtu },
		.txmode = { .offloads = info->tx_offload_capa & want },
	};
	struct rte_eth_txconf txconf = info->default_txconf;
	int socket = rte_eth_dev_socket_id(dev->port_id);
	int rc;

	dev->tx_ip_cksum = conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	dev->tx_udp_cksum = conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	dev->tx_multi_seg = conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	/* One queue pair per lane: each engine bursts its own. */
	if (dev->nlanes > info->max_rx_queues ||
	    dev->nlanes > info->max_tx_queues) {
		snprintf(err, errlen,
			 "port '%s' has %u RX / %u TX queues; engines = %u needs as many (af_packet: qpairs=%u)",
			 dev->dev_name, info->max_rx_queues,
			 info->max_tx_queues, dev->nlanes, dev->nlanes);
		return -EINVAL;
	}
	rc = rte_eth_dev_configure(dev->port_id, (uint16_t)dev->nlanes,
				   (uint16_t)dev->nlanes, &conf);
	if (rc) {
		snprintf(err, errlen, "port '%s': configure failed (%s)",
			 dev->dev_name, rte_strerror(-rc));
		return -EIO;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(dev->port_id, &nb_rxd, &nb_txd);
	txconf.offloads = conf.txmode.offloads;
	if (xdp)
		n_before = sr_port_socks(AF_XDP, 0, before,
					 SR_PMD_XSK_MAX * 4);
	for (uint16_t q = 0; rc == 0 && q < dev->nlanes; q++) {
		rc = rte_eth_rx_queue_setup(dev->port_id, q, nb_rxd,
					    (unsigned int)socket, NULL,
					    dev->pool);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(dev->port_id, q, nb_txd,
						    (unsigned int)socket,
						    &txconf);
	}
	if (rc) {
		snprintf(err, errlen, "port '%s': queue setup failed (%s)",
			 dev->dev_name, rte_strerror(-rc));
		return -EIO;
	}
	/* The sockets the queues opened: their kernel counters are ours. */
	if (xdp)
		sr_port_new_socks(dev, before, n_before);
	return 0;
}

/*
 * The sockets that become readable when the port has frames to take, for
 * a thread that would rather sleep than poll (sroced): AF_XDP's (its rx
 * ring not empty) and af_packet's (poll() says POLLIN while a frame of
 * its ring is the process's).  Other ports have none (n_rx_fd -1):
 * memif's interrupts are not DPDK's to give in 22.11, a PCI NIC's would
 * need VFIO interrupts set up.
 */
static void sr_port_rx_fds(struct sr_pmd_dev *dev,
			   const struct rte_eth_dev_info *info)
{
	dev->n_rx_fd = -1;
	if (strcmp(info->driver_name, "net_af_xdp") == 0 && dev->n_xsk > 0) {
		memcpy(dev->rx_fd, dev->xsk_fd, sizeof(int) * (size_t)dev->n_xsk);
		dev->n_rx_fd = dev->n_xsk;
	} else if (strcmp(info->driver_name, "net_af_packet") == 0 &&
		   info->if_index != 0) {
		dev->n_rx_fd = sr_port_socks(AF_PACKET, (int)info->if_index,
					     dev->rx_fd, SR_PMD_XSK_MAX);
		if (dev->n_rx_fd == 0)
			dev->n_rx_fd = -1;
	}
}

/* Our MAC on the port; where the port cannot take it, listen promiscuous. */
static void sr_port_mac(struct sr_pmd_dev *dev)
{
	struct rte_ether_addr mac;

	if (dev->cfg.has_mac) {
		memcpy(mac.addr_bytes, dev->cfg.mac, 6);
		if (rte_eth_dev_default_mac_addr_set(dev->port_id, &mac) != 0)
			rte_eth_promiscuous_enable(dev->port_id);
		memcpy(dev->addr.mac, dev->cfg.mac, 6);
	} else {
		rte_eth_macaddr_get(dev->port_id, &mac);
		memcpy(dev->addr.mac, mac.addr_bytes, 6);
	}
	/* IPv6 ND goes to solicited-node multicast groups. */
	rte_eth_allmulticast_enable(dev->port_id);
}

/*
 * Start the port.  A memif client cannot start before its server has made
 * the socket, so it retries for SR_PORT_CLIENT_WAIT_MS: two processes may
 * start in either order.
 */
static int sr_port_start(struct sr_pmd_dev *dev,
			 const struct rte_eth_dev_info *info)
{
	const struct timespec nap = { .tv_nsec = 50 * 1000 * 1000 };
	int rc;

	dev->memif = strcmp(info->driver_name, "net_memif") == 0;
	dev->memif_client = dev->memif &&
			    strstr(dev->cfg.port, "role=client") != NULL;
	for (uint32_t waited = 0;; waited += 50) {
		rc = rte_eth_dev_start(dev->port_id);
		if (rc == 0 || !dev->memif_client ||
		    waited >= SR_PORT_CLIENT_WAIT_MS)
			return rc;
		nanosleep(&nap, NULL);
	}
}

/*
 * What the port itself lost, from its driver (rte_eth_stats): frames its
 * ring had no room for (af_packet's tp_drops, AF_XDP's rx_dropped, a NIC's
 * missed), receive errors, no mbuf for a frame, send errors.  Totals since
 * the port started: copied, not added.
 */
static void sr_port_stats(struct sr_pmd_dev *dev)
{
	struct sr_xdp_sock_stats xs = { 0 };
	struct rte_eth_stats es;

	if (dev->stats == NULL || rte_eth_stats_get(dev->port_id, &es) != 0)
		return;
	/*
	 * net_af_xdp reports only part of what its sockets lose (rx_dropped,
	 * not a full ring) and nothing of what the kernel refuses: those
	 * come from the sockets themselves.
	 */
	if (dev->n_xsk > 0)
		sr_xdp_socks_stats(dev->xsk_fd, dev->n_xsk, &xs);
	sr_stats_set(&dev->stats->dev[SR_CTR_PORT_RX_MISSED],
		     es.imissed + xs.rx_ring_full);
	sr_stats_set(&dev->stats->dev[SR_CTR_PORT_RX_ERRORS],
		     es.ierrors + xs.rx_invalid);
	sr_stats_set(&dev->stats->dev[SR_CTR_PORT_RX_NOMBUF], es.rx_nombuf);
	sr_stats_set(&dev->stats->dev[SR_CTR_PORT_TX_ERRORS],
		     es.oerrors + xs.tx_invalid);
}

/*
 * A memif client does not reconnect by itself: when its server went away
 * or refused an early connection, restart the port (once per call).
 */
void sr_port_keepalive(struct sr_pmd_dev *dev, uint64_t now_ns)
{
	dev->link_check_ns = now_ns + SR_PORT_KEEPALIVE_NS;
	sr_port_stats(dev);
	if (!dev->memif_client)
		return;
	if (sr_port_link_up(dev)) {
		dev->link_down_since_ns = 0;
		return;
	}
	if (dev->link_down_since_ns == 0) {
		dev->link_down_since_ns = now_ns;
		return;
	}
	if (now_ns - dev->link_down_since_ns < SR_PORT_RECONNECT_NS)
		return;
	dev->link_down_since_ns = 0;
	rte_eth_dev_stop(dev->port_id);
	if (rte_eth_dev_start(dev->port_id) != 0)
		dev->link_down_since_ns = now_ns;   /* try again later */
	sr_stats_add(dev->stats, SR_CTR_LINK_DOWNED, 1);
}

/*
 * Whether the transport may point a frame's payload at registered memory
 * (rxtx.c, tx_alloc_ref): only on ports whose transmit burst copies the
 * frame and lets it go, so the region's reference comes back in the round.
 * A NIC would read it later, by DMA; memif in zero-copy mode sends its own
 * buffers only; net_ring and AF_XDP's copy mode take no chained frames.
 */
static uint32_t sr_port_tx_ref_min(const struct sr_pmd_dev *dev,
				   const struct rte_eth_dev_info *info)
{
	const char *d = info->driver_name;
	bool copies = strcmp(d, "net_af_packet") == 0 ||
		      strcmp(d, "net_tap") == 0 ||
		      (strcmp(d, "net_memif") == 0 &&
		       strstr(dev->cfg.port, "zero-copy=yes") == NULL);

	return copies && dev->tx_multi_seg ? dev->cfg.tx_ref_min : 0;
}

int sr_port_setup(struct sr_pmd_dev *dev, char *err, size_t errlen)
{
	struct rte_eth_dev_info info;
	uint32_t port_mtu;
	uint16_t mtu;
	int rc;

	rc = sr_port_find(dev, err, errlen);
	if (rc)
		return rc;
	rc = rte_eth_dev_info_get(dev->port_id, &info);
	if (rc) {
		snprintf(err, errlen, "port '%s': no device info (%s)",
			 dev->dev_name, rte_strerror(-rc));
		return -ENODEV;
	}
	sr_port_pick_mtu(dev, &info, &dev->mtu, &port_mtu);
	dev->max_frame = dev->mtu + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
	rc = sr_port_pool(dev, info.driver_name, err, errlen);
	if (rc)
		return rc;
	rc = sr_port_queues(dev, &info, port_mtu, err, errlen);
	if (rc)
		return rc;
	dev->tx_ref_min = sr_port_tx_ref_min(dev, &info);
	/* Not every PMD applies rxmode.mtu; ask again, then believe the port. */
	if (!sr_port_mtu_is_kernel(&info))
		rte_eth_dev_set_mtu(dev->port_id, (uint16_t)port_mtu);
	if (!sr_port_is_soft(&info) && !sr_port_mtu_is_kernel(&info) &&
	    rte_eth_dev_get_mtu(dev->port_id, &mtu) == 0 && mtu &&
	    mtu < dev->mtu)
		dev->mtu = mtu;
	sr_port_say_mtu(dev);
	dev->path_mtu = sr_pmd_path_mtu(dev->mtu);
	sr_port_mac(dev);
	rc = sr_port_start(dev, &info);
	if (rc && dev->memif_client) {
		snprintf(err, errlen,
			 "port '%s': no memif server answered within %u s (start node 0 first, or together)",
			 dev->dev_name, SR_PORT_CLIENT_WAIT_MS / 1000);
		return -EIO;
	}
	if (rc) {
		snprintf(err, errlen, "port '%s': start failed (%s)",
			 dev->dev_name, rte_strerror(-rc));
		return -EIO;
	}
	dev->port_started = true;
	/* The port may only take the MAC once started. */
	sr_port_mac(dev);
	sr_port_rx_fds(dev, &info);
	return 0;
}

/*
 * net_memif (DPDK 22.11) frees its shared regions from two threads without
 * a lock: its control thread when the peer leaves, and rte_eth_dev_close().
 * When both happen at once a region is freed twice ("EAL: Error: Invalid
 * memory").  So a memif server lets a connected client leave first (up to
 * SR_PORT_MEMIF_LEAVE_NS), and any memif port whose link just went down
 * lets the control thread finish before closing.  A connected client
 * closes after SR_PORT_MEMIF_SETTLE_NS: the server keeps reading what the
 * last flush sent (say, an owed ACK) only while the client's shared memory
 * is there.  A port that sent within SR_PORT_MEMIF_DRAIN_NS (a program
 * that posts UD datagrams and exits, as mckey's sender does) gives the
 * peer that long since its last frame (sr_port_memif_drain): on two busy
 * CPUs the peer may not run for tens of milliseconds, and what is still
 * in the rings when one side goes is lost.
 */
#define SR_PORT_MEMIF_DRAIN_NS  (200ull * 1000 * 1000)
#define SR_PORT_MEMIF_LEAVE_NS  (200ull * 1000 * 1000)
#define SR_PORT_MEMIF_SETTLE_NS (20ull * 1000 * 1000)

static void sr_port_memif_quiesce(struct sr_pmd_dev *dev)
{
	const struct timespec tick = { .tv_nsec = 1000000 };
	const struct timespec settle = { .tv_nsec = SR_PORT_MEMIF_SETTLE_NS };
	uint64_t end = sr_dev_now_ns(dev) + SR_PORT_MEMIF_LEAVE_NS;
	bool was_up = sr_port_link_up(dev);

	if (!dev->memif)
		return;
	while (was_up && !dev->memif_client && sr_port_link_up(dev) &&
	       sr_dev_now_ns(dev) < end)
		nanosleep(&tick, NULL);
	if (!sr_port_link_up(dev) || dev->memif_client)
		nanosleep(&settle, NULL);
	sr_port_memif_drain(dev);
}

void sr_port_memif_drain(struct sr_pmd_dev *dev)
{
	const struct timespec tick = { .tv_nsec = 1000000 };

	while (dev->memif && dev->port_started && sr_port_link_up(dev) &&
	       sr_dev_now_ns(dev) < dev->last_tx_ns + SR_PORT_MEMIF_DRAIN_NS)
		nanosleep(&tick, NULL);
}

void sr_port_teardown(struct sr_pmd_dev *dev)
{
	if (dev->port_started)
		sr_port_memif_quiesce(dev);
	if (dev->port_started) {
		rte_eth_dev_stop(dev->port_id);
		dev->port_started = false;
	}
	if (dev->pool || dev->hotplugged)
		rte_eth_dev_close(dev->port_id);
	if (dev->hotplugged) {
		rte_eal_hotplug_remove(strncmp(dev->dev_name, "net_", 4) == 0 ?
				       "vdev" : "pci", dev->dev_name);
		dev->hotplugged = false;
	}
	rte_mempool_free(dev->pool);
	dev->pool = NULL;
}

uint64_t sr_pmd_speed_bps(const struct sr_pmd_dev *dev)
{
	struct rte_eth_link link;

	if (rte_eth_link_get_nowait(dev->port_id, &link) != 0 ||
	    link.link_speed == RTE_ETH_SPEED_NUM_NONE ||
	    link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN)
		return 0;
	return (uint64_t)link.link_speed * 1000000u;
}

uint32_t sr_pmd_tx_ref_min(const struct sr_pmd_dev *dev)
{
	return dev->tx_ref_min;
}

unsigned int sr_pmd_lanes(const struct sr_pmd_dev *dev)
{
	return dev->nlanes;
}

uint64_t sr_pmd_line_bps(const struct sr_pmd_dev *dev, bool *paced)
{
	uint32_t mbps = dev->cfg.line_rate;

	*paced = mbps != 0;
	return mbps ? (uint64_t)mbps * 1000000u : sr_pmd_speed_bps(dev);
}

bool sr_port_link_up(const struct sr_pmd_dev *dev)
{
	struct rte_eth_link link;

	if (rte_eth_link_get_nowait(dev->port_id, &link) != 0)
		return false;
	return link.link_status == RTE_ETH_LINK_UP;
}
