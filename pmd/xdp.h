/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xdp.h — the XDP side of a host NIC shared with the kernel (port =
 * iface:NAME): where sroce's program (pmd/xdp/roce_redirect.bpf.c) is,
 * what is attached to an interface, removing a stale copy of ours, and
 * telling the program the host's addresses.  DPDK's net_af_xdp loads and
 * attaches the program itself (xdp_prog=) and detaches it when its port
 * closes; these cover the rest.  libbpf only, no DPDK.
 */
#ifndef SR_PMD_XDP_H
#define SR_PMD_XDP_H

#include <stddef.h>
#include <stdint.h>

/* The program's name in the kernel (its function's, 15 characters kept). */
#define SR_XDP_PROG_NAME "sroce_redirect"

/*
 * The compiled program: $SROCE_XDP_PROG, else the build tree's copy, else
 * the installed one.  0 with the path in buf, or -ENOENT.
 */
int sr_xdp_prog_path(char *buf, size_t len);

/*
 * The program attached to ifindex: 0 with *id (0: none) and its name, or
 * -errno when the kernel cannot say (no XDP support, no privilege).
 */
int sr_xdp_query(int ifindex, uint32_t *id, char name[16]);

/*
 * Detach sroce's program from ifindex when one is attached (left by a
 * process that died without stopping; the caller holds the interface's
 * lock, so no live sroce owns it).  0 (nothing there, or detached),
 * -EBUSY when another program is attached (its name in why), -errno.
 */
int sr_xdp_detach_ours(int ifindex, char *why, size_t whylen);

/*
 * Tell the attached program which destination addresses are this host's
 * (16-byte form, IPv4 as ::ffff:a.b.c.d): RoCEv2 frames to others are
 * left to the kernel.  0, or -errno (no program of ours attached).
 */
int sr_xdp_addrs_set(int ifindex, const uint8_t (*ip)[16], uint32_t n);

/* Frames the program redirected to sroce so far, or 0. */
uint64_t sr_xdp_redirected(int ifindex);

/* The kernel's counters of a port's AF_XDP sockets, summed. */
/* (rx_dropped, no fill buffer for a frame, DPDK reports as imissed) */
struct sr_xdp_sock_stats {
	uint64_t rx_ring_full;   /* no room in the receive ring */
	uint64_t rx_invalid;     /* fill descriptors refused */
	uint64_t tx_invalid;     /* send descriptors refused */
};
void sr_xdp_socks_stats(const int *fds, int n, struct sr_xdp_sock_stats *out);

/* Receive queues of the interface (/sys/class/net/NAME/queues), >= 1. */
uint32_t sr_xdp_queues(const char *ifname);

/* libbpf's messages: kept (the last one, for a reason line), not printed. */
void sr_xdp_quiet(void);
const char *sr_xdp_last_msg(void);

#endif /* SR_PMD_XDP_H */
