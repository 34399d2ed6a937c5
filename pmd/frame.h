/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frame.h — the Ethernet / VLAN / IPv4 / IPv6 / UDP layout of a frame, found
 * once, for classification, fault rules and address handling in pmd/.
 *
 * Pure C and inline: it runs per packet.  The RoCE headers above UDP are
 * lib/wire's business: their structs, constants and accessors come from
 * wire/hdr.h; pmd only reads the BTH opcode and PSN for fault rules
 * (sr_frame_bth), through lib/wire's accessors.
 */
#ifndef SR_PMD_FRAME_H
#define SR_PMD_FRAME_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "wire/endian.h"
#include "wire/hdr.h"

/*
 * Header lengths, from lib/wire's header structs (wire/hdr.h also owns the
 * EtherTypes, SR_IPPROTO_UDP, SR_ROCE_PORT, SR_BTH_LEN and SR_ICRC_LEN).
 */
#define SR_ETH_HLEN  ((uint32_t)sizeof(struct sr_eth))
#define SR_VLAN_HLEN ((uint32_t)sizeof(struct sr_vlan))
#define SR_IPV4_HLEN ((uint32_t)sizeof(struct sr_ipv4))
#define SR_IPV6_HLEN ((uint32_t)sizeof(struct sr_ipv6))
#define SR_UDP_HLEN  ((uint32_t)sizeof(struct sr_udp))

/* Only the pmd speaks ICMPv6 (neighbour discovery). */
#define SR_IPPROTO_ICMPV6 58

/* Where the layers of one frame start; 0 = absent. */
struct sr_frame {
	uint16_t ethertype;   /* after any VLAN tag */
	uint16_t vlan;        /* VLAN id, 0 = untagged */
	uint16_t l3;          /* offset of the IP / ARP header */
	uint16_t l4;          /* offset of the UDP / ICMPv6 header */
	uint8_t proto;        /* IP protocol / IPv6 next header */
	uint8_t ip_version;   /* 4, 6 or 0 */
	uint16_t l4_len;      /* UDP length / ICMPv6 payload length */
};

/*
 * Find the layers.  Returns false when the frame is too short for the
 * headers it announces (then *f holds what was found).
 */
static inline bool sr_frame_layout(const uint8_t *p, uint32_t len,
				   struct sr_frame *f)
{
	uint32_t off = SR_ETH_HLEN;

	memset(f, 0, sizeof(*f));
	if (len < SR_ETH_HLEN)
		return false;
	f->ethertype = sr_get_be16(p + 12);
	if (f->ethertype == SR_ETHERTYPE_VLAN) {
		if (len < SR_ETH_HLEN + SR_VLAN_HLEN)
			return false;
		f->vlan = sr_get_be16(p + 14) & 0x0fff;
		f->ethertype = sr_get_be16(p + 16);
		off += SR_VLAN_HLEN;
	}
	f->l3 = (uint16_t)off;
	if (f->ethertype == SR_ETHERTYPE_IPV4) {
		uint32_t ihl;

		if (len < off + SR_IPV4_HLEN || (p[off] >> 4) != 4)
			return false;
		ihl = (uint32_t)(p[off] & 0x0f) * 4;
		if (ihl < SR_IPV4_HLEN || len < off + ihl)
			return false;
		f->ip_version = 4;
		f->proto = p[off + 9];
		/* Fragments carry no UDP header we could use. */
		if (sr_get_be16(p + off + 6) & 0x3fff)
			return true;
		off += ihl;
	} else if (f->ethertype == SR_ETHERTYPE_IPV6) {
		if (len < off + SR_IPV6_HLEN || (p[off] >> 4) != 6)
			return false;
		f->ip_version = 6;
		f->proto = p[off + 6];
		f->l4_len = sr_get_be16(p + off + 4);
		off += SR_IPV6_HLEN;
	} else {
		return true;
	}
	if (f->proto == SR_IPPROTO_UDP) {
		if (len < off + SR_UDP_HLEN)
			return false;
		f->l4_len = sr_get_be16(p + off + 4);
		if (f->l4_len < SR_UDP_HLEN || len < off + f->l4_len)
			return false;
	} else if (f->proto == SR_IPPROTO_ICMPV6) {
		if (len < off + f->l4_len || f->l4_len < 4)
			return false;
	}
	f->l4 = (uint16_t)off;
	return true;
}

/* True for a UDP frame to the RoCEv2 port with room for a BTH and ICRC. */
static inline bool sr_frame_is_roce(const uint8_t *p, const struct sr_frame *f)
{
	return f->l4 && f->proto == SR_IPPROTO_UDP &&
	       sr_get_be16(p + f->l4 + 2) == SR_ROCE_PORT &&
	       f->l4_len >= SR_UDP_HLEN + SR_BTH_LEN + SR_ICRC_LEN;
}

/*
 * The BTH of a frame sr_frame_is_roce() accepted: it follows the UDP
 * header.  Read it with lib/wire's sr_bth_* accessors (byte struct, any
 * alignment).
 */
static inline const struct sr_bth *sr_frame_bth(const uint8_t *p,
						const struct sr_frame *f)
{
	return (const struct sr_bth *)(p + f->l4 + SR_UDP_HLEN);
}

/* Write an Ethernet header (with an 802.1Q tag when vlan != 0). */
static inline uint32_t sr_frame_put_eth(uint8_t *p, const uint8_t dst[6],
					const uint8_t src[6], uint16_t vlan,
					uint8_t prio, uint16_t ethertype)
{
	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	if (vlan == 0) {
		sr_put_be16(p + 12, ethertype);
		return SR_ETH_HLEN;
	}
	sr_put_be16(p + 12, SR_ETHERTYPE_VLAN);
	sr_put_be16(p + 14, (uint16_t)((uint16_t)prio << 13 | (vlan & 0x0fff)));
	sr_put_be16(p + 16, ethertype);
	return SR_ETH_HLEN + SR_VLAN_HLEN;
}

/* One's-complement sum of len bytes (big-endian 16-bit words) onto sum. */
static inline uint32_t sr_csum_add(uint32_t sum, const uint8_t *p,
				   uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += sr_get_be16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* Fold a sum into the 16-bit checksum field value. */
static inline uint16_t sr_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Build an IPv4 UDP frame to port 4791 (headers plus len payload bytes
 * already at the returned payload offset are the caller's).  Writes the
 * headers with a full IPv4 checksum and a zero UDP checksum (RoCEv2 allows
 * it over IPv4).  Returns the header length.
 */
static inline uint32_t sr_frame_put_udp4(uint8_t *p, const uint8_t dst_mac[6],
					 const uint8_t src_mac[6], uint16_t vlan,
					 const uint8_t src_ip[4],
					 const uint8_t dst_ip[4],
					 uint16_t src_port, uint32_t payload_len)
{
	uint32_t off = sr_frame_put_eth(p, dst_mac, src_mac, vlan, 0,
					SR_ETHERTYPE_IPV4);
	uint8_t *ip = p + off, *udp = ip + SR_IPV4_HLEN;

	ip[0] = 0x45;
	ip[1] = 0;
	sr_put_be16(ip + 2, (uint16_t)(SR_IPV4_HLEN + SR_UDP_HLEN + payload_len));
	sr_put_be16(ip + 4, 0);
	sr_put_be16(ip + 6, 0x4000);          /* don't fragment */
	ip[8] = 64;
	ip[9] = SR_IPPROTO_UDP;
	sr_put_be16(ip + 10, 0);
	memcpy(ip + 12, src_ip, 4);
	memcpy(ip + 16, dst_ip, 4);
	sr_put_be16(ip + 10, sr_csum_fold(sr_csum_add(0, ip, SR_IPV4_HLEN)));
	sr_put_be16(udp, src_port);
	sr_put_be16(udp + 2, SR_ROCE_PORT);
	sr_put_be16(udp + 4, (uint16_t)(SR_UDP_HLEN + payload_len));
	sr_put_be16(udp + 6, 0);
	return off + SR_IPV4_HLEN + SR_UDP_HLEN;
}

#endif /* SR_PMD_FRAME_H */
