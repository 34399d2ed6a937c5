/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * igmp.h — a host's multicast membership on a port sroce owns: IGMPv2
 * reports and leaves (RFC 2236) for IPv4 groups, MLDv1 reports and
 * dones (RFC 2710) for IPv6 groups, and IGMP queries answered, so that
 * IGMP-snooping switches and multicast routers forward a group's
 * RoCEv2 datagrams to the port whose QPs joined it.  Version 2 / 1: what
 * every querier accepts (RFC 3376 9.1, RFC 3810 8).
 * Pure C on frame bytes, like arp.h; mcast.c sends them.
 */
#ifndef SR_PMD_IGMP_H
#define SR_PMD_IGMP_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "neigh.h"

/* Largest frame built: Ethernet + VLAN + IPv6 + hop-by-hop + MLD. */
#define SR_IGMP_FRAME_MAX 96

#define SR_IPPROTO_IGMP 2

/*
 * Build a membership report (join) or a leave / done (!join) for group
 * (a GID: IPv4-mapped or IPv6) into buf (SR_IGMP_FRAME_MAX bytes).
 * Returns the frame length, or -EINVAL when self has no address of the
 * group's family or the group is not multicast.
 */
int sr_igmp_build(uint8_t *buf, const struct sr_pmd_addr *self,
		  const uint8_t group[16], bool join);

/*
 * A received IGMP frame (f from sr_frame_layout, f->proto IGMP): 1 for a
 * general query (group zeroed), 2 for a query of one group (group set,
 * IPv4-mapped), 0 for any other IGMP message, -EINVAL when malformed
 * (short, bad checksum).
 */
int sr_igmp_query(const uint8_t *frame, uint32_t len, const struct sr_frame *f,
		  uint8_t group[16]);

#endif /* SR_PMD_IGMP_H */
