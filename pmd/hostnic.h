/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostnic.h — the host's own NIC, shared with the kernel (port =
 * iface:NAME, pmd/CONFIG.md, docs/host-nic.md).
 *
 * The kernel keeps the interface: its addresses, its neighbours and
 * routes, its traffic.  sroce takes only RoCEv2 (UDP/4791) frames to the
 * host, on one of two paths:
 *   AF_XDP     DPDK's net_af_xdp with sroce's XDP program
 *              (pmd/xdp/roce_redirect.bpf.c): RoCEv2 to the AF_XDP
 *              sockets, everything else to the kernel;
 *   af_packet  DPDK's net_af_packet with a classic BPF socket filter that
 *              takes only UDP/4791 (the kernel still sees those frames:
 *              with iface_nft = yes an nftables rule keeps it from
 *              answering them with ICMP port unreachable).
 * AF_XDP unless it cannot attach or iface_mode says otherwise; the choice
 * is one line on stderr when it was not AF_XDP by request.
 *
 * The device's MAC is the interface's; its GIDs are the interface's
 * addresses (gid.h: sr_gid_table_host), read with rtnetlink and followed
 * while it runs; its MTU is the interface's (followed too, up to what the
 * port was set up for).  Peers resolve through the
 * kernel's routes and neighbour table: sroce answers no ARP or ND here.
 */
#ifndef SR_PMD_HOSTNIC_H
#define SR_PMD_HOSTNIC_H

#include <stdint.h>

struct sr_pmd_dev;

/*
 * Check the interface (exists, up), take its lock, clear what a crashed
 * sroce left on it, set up the port (AF_XDP or af_packet) and the host's
 * addresses.  Called by sr_pmd_dev_create() instead of sr_port_setup().
 * 0, or -errno with one line in err:
 *   -ENODEV    no such interface;  -ENETDOWN  it is down;
 *   -EBUSY     another sroce process uses it, or (iface_mode = af_xdp)
 *              another XDP program is attached;
 *   others     from the port (port.c) or netlink.
 */
int sr_host_open(struct sr_pmd_dev *dev, char *err, size_t errlen);

/* Fill the device's addresses and GID table from the interface. */
int sr_host_addresses(struct sr_pmd_dev *dev);

/*
 * After the port is closed: make sure no program of ours stays attached,
 * remove the nftables table, release the lock.  Accepts a device without
 * a host NIC.
 */
void sr_host_close(struct sr_pmd_dev *dev);

/*
 * The process exits with the device open (sr_pmd_dev_exit): take off the
 * interface what would outlive it, the XDP program and the nftables
 * table; the rest goes with the process.
 */
void sr_host_exit(struct sr_pmd_dev *dev);

/* Lane 0, every few ms: follow address changes (GIDs). */
void sr_host_poll(struct sr_pmd_dev *dev, uint64_t now_ns);

/* Tell the XDP program our addresses and groups again (mcast.c). */
void sr_host_xdp_addrs(struct sr_pmd_dev *dev);

/* The interface's index (multicast memberships, mcast.c). */
int sr_host_ifindex(const struct sr_pmd_dev *dev);

/* sr_pmd_resolve() and the neighbour retries on a host NIC. */
int sr_host_resolve(struct sr_pmd_dev *dev, const uint8_t ip[16],
		    uint8_t mac[6]);
void sr_host_solicit(struct sr_pmd_dev *dev, const uint8_t ip[16]);

#endif /* SR_PMD_HOSTNIC_H */
