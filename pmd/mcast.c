/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcast.c — the device's multicast membership on its port: the groups
 * its UD QPs joined (lib/qp/mcast.h decides which QP gets a datagram;
 * this decides that the network sends the group's datagrams here).
 *
 *   a port sroce owns       IGMPv2 / MLDv1 reports when the first QP joins,
 *                           leaves when the last one goes, and IGMP queries
 *                           answered (igmp.h), as a host's kernel does;
 *   a host NIC (iface:)     the kernel is the host: one socket per group
 *                           holds the membership (IP_ADD_MEMBERSHIP,
 *                           IPV6_JOIN_GROUP), so the kernel reports it,
 *                           answers the queries and opens the NIC's filter;
 *   the default memif link  point to point: nothing to tell;
 *   a client of sroced      the daemon owns the port: it is told
 *                           (SRD_MCAST), switches the group's datagrams
 *                           to its member clients and keeps the port's
 *                           membership while any client is one.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "daemon.h"
#include "dev_priv.h"
#include "hostnic.h"
#include "igmp.h"
#include "pmd.h"
#include "qp/mcast.h"

#define SR_PMD_MC_MAX SR_MAX_MCAST_GRP
#define SR_MCAST_LEAVE_SYNC_MS 100

struct sr_pmd_mc {
	uint8_t gid[16];
	int fd;                       /* host NIC: the socket that holds it */
};

/* The kernel's membership on the host NIC's interface: a socket held. */
static int sr_mcast_kernel_join(struct sr_pmd_dev *dev, const uint8_t gid[16])
{
	int ifindex = sr_host_ifindex(dev);
	bool v4 = gid[0] != 0xff;
	int fd, rc;

	fd = socket(v4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (v4) {
		struct ip_mreqn mr = { .imr_ifindex = ifindex };

		memcpy(&mr.imr_multiaddr, gid + 12, 4);
		rc = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr,
				sizeof(mr));
	} else {
		struct ipv6_mreq mr = { .ipv6mr_interface = (unsigned)ifindex };

		memcpy(&mr.ipv6mr_multiaddr, gid, 16);
		rc = setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr,
				sizeof(mr));
	}
	if (rc != 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

static void sr_mcast_xdp_cb(void *arg)
{
	sr_host_xdp_addrs(arg);
}

/* A host NIC's XDP program learns the groups on lane 0, where the GID
 * table it also reads changes. */
static void sr_mcast_xdp_update(struct sr_pmd_dev *dev)
{
	if (dev->host == NULL)
		return;
	if (sr_pmd_engine_call(dev, sr_mcast_xdp_cb, dev) != 0)
		sr_host_xdp_addrs(dev);
	else
		(void)sr_pmd_engine_sync(dev, SR_MCAST_LEAVE_SYNC_MS);
}

static bool sr_mcast_reports(const struct sr_pmd_dev *dev)
{
	return dev->host == NULL && !dev->memif && !dev->cfg.has_gw;
}

static void sr_mcast_report(struct sr_pmd_dev *dev, const uint8_t gid[16],
			    bool join)
{
	uint8_t buf[SR_IGMP_FRAME_MAX];

	sr_dev_send_built(dev, buf, sr_igmp_build(buf, &dev->addr, gid, join),
			  SR_CTR_IGMP_TX);
}

/* The slot of gid, or dev->n_mc.  Caller holds mc_lock. */
static uint32_t sr_mcast_find(const struct sr_pmd_dev *dev,
			      const uint8_t gid[16])
{
	uint32_t i;

	for (i = 0; i < dev->n_mc; i++)
		if (memcmp(dev->mc[i].gid, gid, 16) == 0)
			break;
	return i;
}

/* Take gid out of the table; its kernel socket, if any, is closed. */
static void sr_mcast_forget(struct sr_pmd_dev *dev, const uint8_t gid[16])
{
	int fd = -1;
	uint32_t i;

	rte_spinlock_lock(&dev->mc_lock);
	i = sr_mcast_find(dev, gid);
	if (i < dev->n_mc) {
		fd = dev->mc[i].fd;
		dev->mc[i] = dev->mc[--dev->n_mc];
	}
	rte_spinlock_unlock(&dev->mc_lock);
	if (fd >= 0)
		close(fd);               /* the kernel leaves the group */
}

static int sr_mcast_leave(struct sr_pmd_dev *dev, const uint8_t gid[16])
{
	sr_mcast_forget(dev, gid);
	if (dev->cfg.has_gw)
		return sr_pmd_daemon_mcast(dev->cfg.daemon_fd, gid, false);
	sr_mcast_xdp_update(dev);
	if (sr_mcast_reports(dev)) {
		sr_mcast_report(dev, gid, false);
		/* a program leaves right before it exits (mckey) */
		(void)sr_pmd_engine_sync(dev, SR_MCAST_LEAVE_SYNC_MS);
	}
	return 0;
}

static int sr_mcast_join(struct sr_pmd_dev *dev, const uint8_t gid[16])
{
	uint32_t i;
	int fd, rc;

	if (dev->cfg.has_gw) {
		/* the daemon owns the port: it switches the group to us */
		rc = sr_pmd_daemon_mcast(dev->cfg.daemon_fd, gid, true);
		if (rc)
			sr_mcast_forget(dev, gid);
		return rc;
	}
	if (dev->host != NULL) {
		fd = sr_mcast_kernel_join(dev, gid);
		if (fd < 0) {
			/* the QPs stay attached; the network may not deliver */
			sr_stats_add(dev->stats, SR_CTR_MCAST_JOIN_ERR, 1);
		} else {
			rte_spinlock_lock(&dev->mc_lock);
			i = sr_mcast_find(dev, gid);
			if (i < dev->n_mc) {
				dev->mc[i].fd = fd;
				fd = -1;
			}
			rte_spinlock_unlock(&dev->mc_lock);
			if (fd >= 0)
				close(fd);       /* left meanwhile */
		}
		sr_mcast_xdp_update(dev);   /* the XDP program lets it in */
	}
	if (sr_mcast_reports(dev))
		sr_mcast_report(dev, gid, true);
	return 0;
}

int sr_pmd_mcast(struct sr_pmd_dev *dev, const uint8_t gid[16], bool join)
{
	struct sr_pmd_mc *mc;
	uint32_t i;

	if (dev == NULL || gid == NULL || !sr_gid_is_mcast(gid))
		return -EINVAL;
	rte_spinlock_lock(&dev->mc_lock);
	if (dev->mc == NULL) {
		dev->mc = calloc(SR_PMD_MC_MAX, sizeof(*dev->mc));
		if (dev->mc == NULL) {
			rte_spinlock_unlock(&dev->mc_lock);
			return -ENOMEM;
		}
	}
	i = sr_mcast_find(dev, gid);
	if (!join) {
		rte_spinlock_unlock(&dev->mc_lock);
		return i < dev->n_mc ? sr_mcast_leave(dev, gid) : -ENOENT;
	}
	if (i < dev->n_mc || dev->n_mc == SR_PMD_MC_MAX) {
		rte_spinlock_unlock(&dev->mc_lock);
		return i < dev->n_mc ? 0 : -ENOMEM;
	}
	mc = &dev->mc[dev->n_mc++];
	memcpy(mc->gid, gid, 16);
	mc->fd = -1;
	rte_spinlock_unlock(&dev->mc_lock);
	return sr_mcast_join(dev, gid);
}

void sr_dev_igmp_input(struct sr_pmd_dev *dev, const uint8_t *frame,
		       uint32_t len, const struct sr_frame *f)
{
	uint8_t group[16], (*answer)[16];
	uint32_t n = 0;
	int q;

	if (!sr_mcast_reports(dev))
		return;             /* the kernel's, or nobody's to answer */
	q = sr_igmp_query(frame, len, f, group);
	if (q < 0) {
		sr_stats_add(dev->stats, SR_CTR_DROP_NEIGH, 1);
		return;
	}
	if (q == 0 || dev->n_mc == 0)
		return;             /* another host's report, or no groups */
	answer = malloc(SR_PMD_MC_MAX * sizeof(*answer));
	if (answer == NULL)
		return;
	rte_spinlock_lock(&dev->mc_lock);
	for (uint32_t i = 0; i < dev->n_mc; i++) {
		const uint8_t *g = dev->mc[i].gid;

		if (g[0] == 0xff)
			continue;   /* IPv6 groups: MLD's business */
		if (q == 1 || memcmp(g, group, 16) == 0)
			memcpy(answer[n++], g, 16);
	}
	rte_spinlock_unlock(&dev->mc_lock);
	/* RFC 2236 asks for a random delay up to the query's maximum; with
	 * a few groups per host, answering at once is what matters */
	for (uint32_t i = 0; i < n; i++)
		sr_mcast_report(dev, answer[i], true);
	free(answer);
}

uint32_t sr_dev_mcast_groups(struct sr_pmd_dev *dev, uint8_t (*gid)[16],
			     uint32_t max)
{
	uint32_t n = 0;

	rte_spinlock_lock(&dev->mc_lock);
	for (; n < dev->n_mc && n < max; n++)
		memcpy(gid[n], dev->mc[n].gid, 16);
	rte_spinlock_unlock(&dev->mc_lock);
	return n;
}

bool sr_dev_mcast_joined(struct sr_pmd_dev *dev, const uint8_t *frame,
			 uint32_t len)
{
	uint8_t gid[16] = { [10] = 0xff, [11] = 0xff };
	struct sr_frame f;
	bool found = false;

	if (!sr_frame_layout(frame, len, &f) || !sr_frame_is_roce(frame, &f))
		return false;
	if (f.ip_version == 6)
		memcpy(gid, frame + f.l3 + 24, 16);
	else
		memcpy(gid + 12, frame + f.l3 + 16, 4);
	rte_spinlock_lock(&dev->mc_lock);
	for (uint32_t i = 0; i < dev->n_mc && !found; i++)
		found = memcmp(dev->mc[i].gid, gid, 16) == 0;
	rte_spinlock_unlock(&dev->mc_lock);
	return found;
}

void sr_dev_mcast_fini(struct sr_pmd_dev *dev)
{
	if (dev->mc == NULL)
		return;
	for (uint32_t i = 0; i < dev->n_mc; i++)
		if (dev->mc[i].fd >= 0)
			close(dev->mc[i].fd);
	free(dev->mc);
	dev->mc = NULL;
	dev->n_mc = 0;
}
