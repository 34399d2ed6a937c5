/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config.h — the sroce device configuration: one key = value file named by
 * the environment variable SROCE_CONFIG (format in pmd/CONFIG.md), or, with
 * no file, a default virtual link (net_memif) on which two sroce processes
 * on one machine reach each other with no setup.
 *
 * Pure C (no DPDK): parsing and defaults are unit-tested without an EAL.
 * Every error carries one line of text for the user in err.
 */
#ifndef SR_PMD_CONFIG_H
#define SR_PMD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cc/dcqcn.h"
#include "fault.h"

#define SR_CONFIG_IPV6_MAX 4
#define SR_CONFIG_STR_MAX 256
#define SR_CONFIG_EAL_MAX 1024
#define SR_CONFIG_ERR_MAX 256
#define SR_CONFIG_BURST_MAX 64
#define SR_CONFIG_TX_REF_MIN 4096   /* tx_ref_min's default (bytes) */
#define SR_PMD_ENGINES_MAX  4   /* engine lcores (lanes) per device */

/* How a host NIC (port = iface:NAME) carries sroce's frames. */
enum sr_pmd_iface_mode {
	SR_PMD_IFACE_AUTO = 0,    /* AF_XDP, else af_packet (one line why) */
	SR_PMD_IFACE_XDP,         /* AF_XDP only: fail when it cannot attach */
	SR_PMD_IFACE_PACKET,      /* af_packet with a socket filter */
};

/* Where a device's progress runs. */
enum sr_pmd_mode {
	SR_PMD_MODE_INLINE = 0,   /* the consumer calls sr_pmd_progress() */
	SR_PMD_MODE_DEDICATED,    /* a poll loop on its own lcore */
};

struct sr_pmd_config {
	char eal[SR_CONFIG_EAL_MAX];      /* extra EAL arguments */
	char port[SR_CONFIG_STR_MAX];     /* vdev spec or PCI address */
	char run_dir[SR_CONFIG_STR_MAX];  /* default link: memif socket/lock */
	char capture[SR_CONFIG_STR_MAX];  /* pcap file, "" = off */
	char stats_dir[SR_CONFIG_STR_MAX];/* stats shared memory folder */
	char lcores[SR_CONFIG_STR_MAX];   /* EAL --lcores, "" = derived */
	char iface[16];                   /* port = iface:NAME, "" = other */
	enum sr_pmd_iface_mode iface_mode;
	bool iface_nft;                   /* af_packet: nftables drop rule */
	uint8_t mac[6];
	bool has_mac;                     /* else the port's own MAC */
	bool default_link;                /* port = default (net_memif) */
	bool no_huge;                     /* run the EAL without hugepages */
	uint8_t ipv4[4];
	uint8_t ipv4_prefix;
	bool has_ipv4;
	uint8_t ipv6[SR_CONFIG_IPV6_MAX][16];
	uint8_t ipv6_prefix[SR_CONFIG_IPV6_MAX];
	uint32_t n_ipv6;
	uint32_t mtu;                     /* 0 = keep the port's MTU */
	uint16_t vlan;                    /* 0 = untagged */
	uint8_t vlan_prio;
	int node;                         /* default link node, -1 = choose */
	enum sr_pmd_mode mode;
	uint32_t engine_lcore;            /* dedicated mode: first worker lcore */
	uint32_t engines;                 /* dedicated mode: lcores (lanes) */
	uint32_t mbufs;                   /* mbufs in the pool */
	uint32_t rx_desc, tx_desc;
	uint32_t burst;                   /* RX / TX burst size */
	struct sr_fault_set fault;
	uint8_t ecn;                      /* sent ECN: 0 off, 2 ECT(0), 1 ECT(1) */
	bool cc;                          /* DCQCN on (docs/congestion.md) */
	struct sr_dcqcn_params dcqcn;
	uint32_t line_rate;               /* Mbit/s: DCQCN's line rate and the
					   * most a QP sends; 0 = the port's
					   * speed, unpaced */
	uint32_t window;                  /* a requester's PSNs in flight
					   * (sr_dev_config.window); 0 = the
					   * default: 128, or 512 as a client
					   * of sroced (daemon.c) */
	uint32_t tx_ref_min;              /* payloads of this many bytes and
					   * more go by reference where the
					   * port copies at transmit
					   * (rxtx.c); 0 = off */
	/*
	 * Set by code, not by keys: a port to a shared device's daemon
	 * (pmd/sroced) sends every frame to the daemon's MAC gw_mac, and the
	 * daemon's port towards a client takes UDP/4791 to any address.
	 */
	uint8_t gw_mac[6];
	bool has_gw;                      /* every neighbour is gw_mac */
	bool any_ip;                      /* RoCEv2 to any destination IP */
	int daemon_fd;                    /* with has_gw: the attachment to
					   * sroced, closed with the device */
	int bell_fd, bell_efd;            /* with has_gw: the channel's
					   * doorbell (sroced/proto.h), or -1;
					   * the device takes them */
	int wake_efd;                     /* and the eventfd that wakes us */
	uint32_t qpn_base;                /* with has_gw: sroced's QPN block */
	uint32_t max_qp;                  /* with has_gw: the block's size */
};

/* Defaults for every key (no port, no addresses). */
void sr_pmd_config_init(struct sr_pmd_config *cfg);

/*
 * Parse configuration text on top of what cfg holds.  Returns 0, or -EINVAL
 * for an unknown key, a bad value or a line without '=', with
 * "<origin>:<line>: <reason>" in err.
 */
int sr_pmd_config_parse(struct sr_pmd_config *cfg, const char *text,
			const char *origin, char *err, size_t errlen);

/* Read and parse a file.  Returns 0, -errno of open/read, or -EINVAL. */
int sr_pmd_config_parse_file(struct sr_pmd_config *cfg, const char *path,
			     char *err, size_t errlen);

/*
 * Fill what the default link needs for node 0 or 1: the net_memif port
 * (node 0 server, node 1 client) on <run_dir>/memif.sock, MAC
 * 02:53:52:00:00:0<node+1>, 10.0.0.<node+1>/24, fd00:5352::<node+1>/64 and
 * MTU 9000 — each only where the configuration set nothing.  Returns 0 or
 * -EINVAL for a node other than 0 or 1.
 */
int sr_pmd_config_default_link(struct sr_pmd_config *cfg, int node,
			       char *err, size_t errlen);

/*
 * Decide the default link's node when neither SROCE_NODE nor the node key
 * chose one: the first process to take an exclusive lock on
 * <run_dir>/memif.lock is node 0 (server) and keeps the lock open in
 * *lock_fd until it closes the device; the next one is node 1.  Creates
 * run_dir.  Returns the node, or -errno.
 */
int sr_pmd_config_claim_node(const char *run_dir, int *lock_fd);

/*
 * The whole start-up path: SROCE_CONFIG names a file (or is unset: the
 * default link), SROCE_NODE picks the default link's node, SROCE_RUN_DIR
 * its folder; then checks that a port and an IPv4 address are known.
 * *lock_fd gets the node lock (or -1); the caller closes it at the end.
 * Returns 0 or -errno with one line in err.
 */
int sr_pmd_config_load(struct sr_pmd_config *cfg, int *lock_fd, char *err,
		       size_t errlen);

/*
 * The same from the file at path instead of SROCE_CONFIG (NULL or "": the
 * default link), for a consumer with several devices, one file each.
 */
int sr_pmd_config_load_path(struct sr_pmd_config *cfg, const char *path,
			    int *lock_fd, char *err, size_t errlen);

/*
 * Ports whose buffers have a size of their own get one that carries the
 * MTU's frames, unless the port string sets it:
 * - net_memif carries each frame in one buffer of bsize bytes; longer
 *   frames would be chained over several descriptors, which DPDK 22.11's
 *   memif corrupts under load (its rings replay stale descriptors): bsize=
 *   the frame rounded up to 1 KiB.
 * - net_af_packet copies each frame into a ring slot of framesz bytes
 *   (2048 by default, 32 of them its own header) and drops longer ones:
 *   framesz= and blocksz= the next power of two that holds the frame (so
 *   mtu = 9000 takes 16 KiB slots).  A port string with a smaller framesz
 *   gets its MTU clamped instead (port.c).
 * Called by sr_pmd_config_load().  0 or -EINVAL (the port string would
 * not fit).
 */
int sr_pmd_config_port_buffers(struct sr_pmd_config *cfg, char *err,
			       size_t errlen);

/*
 * The largest IP MTU the configured port can carry, 0 when it sets none:
 * an af_packet port's ring slot (framesz), and the kernel's MTU of the
 * interface a port names with iface= (af_packet, tap, af_xdp).  *why says
 * which, for a message.  The shim reports it before the port is up.
 */
uint32_t sr_pmd_config_mtu_limit(const struct sr_pmd_config *cfg,
				 const char **why);
/* The value of a numeric devarg ("framesz") of a port string, or def. */
uint32_t sr_pmd_config_devarg(const char *port, const char *key, uint32_t def);

#define SR_PMD_MEMIF_BSIZE_DEFAULT 2048
/* net_af_packet's default ring slot and the part of it that is its header
 * (TPACKET2_HDRLEN less the sockaddr_ll it leaves to data). */
#define SR_PMD_AF_PACKET_FRAMESZ 2048
#define SR_PMD_AF_PACKET_HDR 32
/*
 * The default link's ring: 512 slots of a jumbo frame (4.6 MiB) rather
 * than memif's 1024 (9.2 MiB).  The sender's copy into the ring is most of
 * a 4 KiB frame's cost and goes to lines the receiver last read; a ring
 * half the size keeps them nearer: WRITE 64 KiB, 1 QP 55-59 -> 63-64
 * Gbit/s, 4 KiB 59 -> 68 (alternating 2-second runs).  A full ring holds
 * the sender back (rxtx.c), it drops nothing.
 */
#define SR_PMD_MEMIF_LOG2_RING 9
/* Ethernet + 802.1Q + FCS room above the IP MTU. */
#define SR_PMD_L2_OVERHEAD (14 + 4 + 4)

/* True when the system has enough free 2 MiB hugepages for a device. */
bool sr_pmd_config_hugepages_free(void);

/* Largest IB path MTU (256..4096) whose RoCEv2 frame fits an IP MTU, or 0. */
uint32_t sr_pmd_path_mtu(uint32_t ip_mtu);

/* Bytes of a RoCEv2 frame above the IP MTU's payload for the path MTU. */
#define SR_PMD_ROCE_OVERHEAD (40 + 8 + 12 + 20 + 4) /* IPv6 UDP BTH RETH+ImmDt ICRC */

#endif /* SR_PMD_CONFIG_H */
