/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * netlink.h — what sroce asks the kernel about a host NIC it shares with
 * it (port = iface:NAME): the interface's addresses (RTM_GETADDR), the next
 * hop towards a peer (RTM_GETROUTE), the peer's or gateway's MAC
 * (RTM_GETNEIGH), a nudge to resolve one (RTM_NEWNEIGH with NTF_USE), and
 * address and MTU changes while it runs (RTNLGRP_IPV4_IFADDR /
 * IPV6_IFADDR, RTNLGRP_LINK).
 *
 * Pure C, no DPDK.  Addresses are 16 bytes, IPv4 as ::ffff:a.b.c.d (as
 * GIDs are).  Requests are answered synchronously by the kernel (the reply
 * is queued before send() returns), so a request socket never waits long;
 * the event socket is nonblocking and polled.  Functions return 0 or
 * -errno unless said otherwise.  The sr_nl_parse_* functions read one
 * message and are what the unit tests cover.
 */
#ifndef SR_PMD_NETLINK_H
#define SR_PMD_NETLINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nlmsghdr;

struct sr_nl {
	int fd;
	uint32_t seq;
	uint8_t *buf;            /* SR_NL_BUF bytes for what is received */
};

/* One address of an interface. */
struct sr_nl_addr {
	uint8_t ip[16];
	uint8_t prefix;
	uint8_t family;          /* AF_INET or AF_INET6 */
	uint32_t flags;          /* IFA_F_* */
	int ifindex;
};

/* The route the kernel would take to a destination. */
struct sr_nl_route {
	uint8_t gw[16];
	bool has_gw;             /* else the destination is on the link */
	int oif;                 /* output interface, 0 when none given */
};

/* NUD_* states in which a neighbour's MAC may be used. */
#define SR_NL_NUD_VALID 0xde     /* REACHABLE STALE DELAY PROBE NOARP PERMANENT */

struct sr_nl_neigh {
	uint8_t ip[16];
	uint8_t mac[6];
	bool has_mac;
	uint16_t state;          /* NUD_* */
	int ifindex;
};

/*
 * Open a NETLINK_ROUTE socket.  groups: RTMGRP_* bits to subscribe to (0
 * for a request socket).  nonblock: the event socket's mode.
 */
int sr_nl_open(struct sr_nl *nl, uint32_t groups, bool nonblock);
void sr_nl_close(struct sr_nl *nl);

/*
 * Parse one RTM_NEWADDR / RTM_DELADDR message.  Returns 1 with *out filled,
 * 0 when the message is of another kind or family, -EINVAL when it is
 * malformed.  IFA_LOCAL wins over IFA_ADDRESS (they differ on
 * point-to-point links, where IFA_ADDRESS is the peer's).
 */
int sr_nl_parse_addr(const struct nlmsghdr *h, size_t len,
		     struct sr_nl_addr *out);

/*
 * Parse one RTM_NEWLINK message: its interface and MTU (0 when it carries
 * no IFLA_MTU).  1, 0 (other kind), -EINVAL.
 */
int sr_nl_parse_link(const struct nlmsghdr *h, size_t len, int *ifindex,
		     uint32_t *mtu);

/* Parse one RTM_NEWROUTE reply.  1, 0 (other kind), -EINVAL. */
int sr_nl_parse_route(const struct nlmsghdr *h, size_t len,
		      struct sr_nl_route *out);

/* Parse one RTM_NEWNEIGH message.  1, 0 (other kind), -EINVAL. */
int sr_nl_parse_neigh(const struct nlmsghdr *h, size_t len,
		      struct sr_nl_neigh *out);

/*
 * The addresses of interface ifindex (IPv4 and IPv6, tentative and
 * DAD-failed ones left out), at most max.  Returns how many, or -errno.
 */
int sr_nl_addrs(struct sr_nl *nl, int ifindex, struct sr_nl_addr *out,
		uint32_t max);

/*
 * The route to ip (oif: the interface it must leave by, 0 for any; needed
 * for link-local IPv6).  -ENETUNREACH / -EHOSTUNREACH when the kernel has
 * none.
 */
int sr_nl_route_get(struct sr_nl *nl, const uint8_t ip[16], int oif,
		    struct sr_nl_route *out);

/* The kernel's neighbour entry of ip on ifindex; -ENOENT when it has none. */
int sr_nl_neigh_get(struct sr_nl *nl, int ifindex, const uint8_t ip[16],
		    struct sr_nl_neigh *out);

/*
 * Ask the kernel to resolve ip on ifindex (ARP or ND from the kernel, as
 * if it had a packet for it: NTF_USE); the answer lands in its neighbour
 * table.
 */
int sr_nl_neigh_probe(struct sr_nl *nl, int ifindex, const uint8_t ip[16]);

/*
 * Read what the event socket has (never waits).  Returns the number of
 * address messages about ifindex (0 when none or nothing to read), or
 * -ENOBUFS when the kernel dropped messages (the caller reads the
 * addresses again), or another -errno.  *mtu: the MTU of the last
 * RTM_NEWLINK about ifindex read (left as it was when none came).
 */
int sr_nl_events(struct sr_nl *nl, int ifindex, uint32_t *mtu);

#endif /* SR_PMD_NETLINK_H */
