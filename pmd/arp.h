/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arp.h — ARP for the device's IPv4 address: answer requests for it, learn
 * senders, and build requests to resolve peers (retries through neigh.h).
 * Pure C on frame bytes; the device glue (dev.c) supplies buffers.
 */
#ifndef SR_PMD_ARP_H
#define SR_PMD_ARP_H

#include <stdint.h>

#include "frame.h"
#include "neigh.h"

/* Largest frame ARP builds (Ethernet + VLAN + ARP, padded to 60). */
#define SR_ARP_FRAME_MAX 64

/*
 * Build a broadcast ARP request for target (network order) into buf (at
 * least SR_ARP_FRAME_MAX bytes).  Returns the frame length or -EINVAL when
 * self has no IPv4 address.
 */
int sr_arp_build_request(uint8_t *buf, const struct sr_pmd_addr *self,
			 const uint8_t target[4]);

/*
 * Handle a received ARP frame (f from sr_frame_layout): learn the sender
 * into c when it asks for us or answers, and when it is a request for our
 * address write the reply into reply (SR_ARP_FRAME_MAX bytes).  Returns the
 * reply length, 0 when there is nothing to send, or -EINVAL for a
 * malformed or foreign (not Ethernet/IPv4) packet.
 */
int sr_arp_input(struct sr_neigh_cache *c, const struct sr_pmd_addr *self,
		 const uint8_t *frame, uint32_t len, const struct sr_frame *f,
		 uint64_t now_ns, uint8_t *reply);

#endif /* SR_PMD_ARP_H */
