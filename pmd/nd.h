/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nd.h — IPv6 neighbour discovery (RFC 4861) for the device's addresses,
 * link-local included: answer Neighbor Solicitations with Neighbor
 * Advertisements, learn from both, and build solicitations to resolve peers
 * (retries through neigh.h).  Pure C on frame bytes.
 */
#ifndef SR_PMD_ND_H
#define SR_PMD_ND_H

#include <stdint.h>

#include "frame.h"
#include "neigh.h"

/* Largest frame ND builds: Ethernet + VLAN + IPv6 + NS/NA with option. */
#define SR_ND_FRAME_MAX (SR_ETH_HLEN + SR_VLAN_HLEN + SR_IPV6_HLEN + 32)

#define SR_ICMPV6_NS 135
#define SR_ICMPV6_NA 136

/*
 * Build a Neighbor Solicitation for target to its solicited-node multicast
 * group, from our link-local address when target is link-local, else from
 * our first other address.  Returns the frame length or -EINVAL when self
 * has no IPv6 address.
 */
int sr_nd_build_ns(uint8_t *buf, const struct sr_pmd_addr *self,
		   const uint8_t target[16]);

/*
 * Handle a received ICMPv6 frame (f from sr_frame_layout): NS for one of
 * our addresses -> NA into reply (SR_ND_FRAME_MAX bytes) and learn the
 * solicitor; NA -> learn the target.  Returns the reply length, 0 when
 * there is nothing to send (other ICMPv6 types too), or -EINVAL for a
 * malformed NS/NA (length, hop limit, checksum).
 */
int sr_nd_input(struct sr_neigh_cache *c, const struct sr_pmd_addr *self,
		const uint8_t *frame, uint32_t len, const struct sr_frame *f,
		uint64_t now_ns, uint8_t *reply);

/* The ICMPv6 checksum of the packet at ip6 (IPv6 header first). */
uint16_t sr_nd_icmp6_csum(const uint8_t *ip6, uint32_t icmp_len);

#endif /* SR_PMD_ND_H */
