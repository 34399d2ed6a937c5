/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * classify.h — what a received frame is for: the transport (UDP/4791 to
 * one of our addresses), ARP, IPv6 ND, or a drop with its counter.  Pure C
 * and inline: it runs per packet.
 */
#ifndef SR_PMD_CLASSIFY_H
#define SR_PMD_CLASSIFY_H

#include <stdint.h>
#include <string.h>

#include "counters.h"
#include "frame.h"
#include "neigh.h"

enum sr_rx_class {
	SR_RX_ROCE,
	SR_RX_ARP,
	SR_RX_ND,
	SR_RX_IGMP,         /* queries a host with groups answers (igmp.h) */
	SR_RX_DROP,
};

/* Classify; for SR_RX_DROP *reason is the enum sr_dev_counter to count. */
static inline enum sr_rx_class sr_rx_classify(const struct sr_pmd_addr *self,
					      const uint8_t *p, uint32_t len,
					      struct sr_frame *f,
					      unsigned int *reason)
{
	if (!sr_frame_layout(p, len, f)) {
		*reason = SR_CTR_DROP_SHORT;
		return SR_RX_DROP;
	}
	if (f->vlan != self->vlan) {
		*reason = SR_CTR_DROP_VLAN;
		return SR_RX_DROP;
	}
	/* Ours, or broadcast / multicast (ARP requests, ND). */
	if (!(p[0] & 1) && memcmp(p, self->mac, 6) != 0) {
		*reason = SR_CTR_DROP_MAC;
		return SR_RX_DROP;
	}
	switch (f->ethertype) {
	case SR_ETHERTYPE_ARP:
		return SR_RX_ARP;
	case SR_ETHERTYPE_IPV4:
		/* a multicast group's datagrams: the transport knows which
		 * groups its QPs joined (lib/qp/mcast.h) */
		if (!self->any_ip && (p[f->l3 + 16] & 0xf0) != 0xe0 &&
		    (!self->has_ipv4 || memcmp(p + f->l3 + 16, self->ipv4, 4))) {
			*reason = SR_CTR_DROP_IP;
			return SR_RX_DROP;
		}
		break;
	case SR_ETHERTYPE_IPV6:
		if (f->proto == SR_IPPROTO_ICMPV6 && f->l4)
			return SR_RX_ND;
		if (!self->any_ip && p[f->l3 + 24] != 0xff &&
		    !sr_pmd_addr_has_ipv6(self, p + f->l3 + 24)) {
			*reason = SR_CTR_DROP_IP;
			return SR_RX_DROP;
		}
		break;
	default:
		*reason = SR_CTR_DROP_ETHERTYPE;
		return SR_RX_DROP;
	}
	if (f->ip_version == 4 && f->proto == 2 && f->l4)
		return SR_RX_IGMP;
	if (f->proto != SR_IPPROTO_UDP || f->l4 == 0) {
		*reason = SR_CTR_DROP_PROTO;
		return SR_RX_DROP;
	}
	if (sr_get_be16(p + f->l4 + 2) != SR_ROCE_PORT) {
		*reason = SR_CTR_DROP_PORT;
		return SR_RX_DROP;
	}
	if (!sr_frame_is_roce(p, f)) {
		*reason = SR_CTR_DROP_SHORT;
		return SR_RX_DROP;
	}
	return SR_RX_ROCE;
}

#endif /* SR_PMD_CLASSIFY_H */
