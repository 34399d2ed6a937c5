/* SPDX-License-Identifier: BSD-3-Clause */
#include "wire/parse.h"

#include <string.h>

#include "wire/icrc.h"

static const struct {
	const char *name;
	const char *text;
	bool roce;
} sr_parse_results[SR_PARSE_MAX] = {
#define SR_X_INFO(n, is_roce, txt) \
	[SR_PARSE_##n] = { .name = #n, .text = txt, .roce = is_roce },
	SR_PARSE_RESULTS(SR_X_INFO)
#undef SR_X_INFO
};

const char *sr_parse_result_name(enum sr_parse_result r)
{
	return (unsigned int)r < SR_PARSE_MAX ? sr_parse_results[r].name : "?";
}

const char *sr_parse_result_text(enum sr_parse_result r)
{
	return (unsigned int)r < SR_PARSE_MAX ? sr_parse_results[r].text : "?";
}

bool sr_parse_result_is_roce(enum sr_parse_result r)
{
	return (unsigned int)r < SR_PARSE_MAX && sr_parse_results[r].roce;
}

/* One's-complement sum of an IPv4 header; 0xffff when the checksum holds. */
static uint16_t sr_ipv4_sum(const uint8_t *h, unsigned int len)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += sr_get_be16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* IPv6 extension headers that may stand between IPv6 and UDP. */
static bool sr_ipv6_is_ext(uint8_t next)
{
	return next == 0 || next == 43 || next == 44 || next == 60;
}

/*
 * Skip IPv6 extension headers to learn whether a packet is UDP/4791 at
 * all: such a packet is RoCE (and malformed), any other is not RoCE.
 */
static enum sr_parse_result sr_ipv6_ext_class(const uint8_t *p, uint32_t len,
					      uint8_t next)
{
	uint32_t at = 0;
	int hops;

	for (hops = 0; hops < 8 && sr_ipv6_is_ext(next); hops++) {
		uint32_t hlen;

		if (at + 8 > len)
			return SR_PARSE_NOT_UDP;
		hlen = next == 44 ? 8 : ((uint32_t)p[at + 1] + 1) * 8;
		next = p[at];
		at += hlen;
	}
	if (next != SR_IPPROTO_UDP)
		return SR_PARSE_NOT_UDP;
	if (at + sizeof(struct sr_udp) > len ||
	    sr_get_be16(p + at + 2) != SR_ROCE_PORT)
		return SR_PARSE_NOT_ROCE_PORT;
	return SR_PARSE_IPV6_EXT;
}

/* IPv4 up to UDP: sets pkt->l4 and *udp_len (the IP payload length). */
static enum sr_parse_result sr_parse_ipv4(const uint8_t *f, uint32_t len,
					  struct sr_pkt *pkt, uint32_t *ip_plen)
{
	const uint8_t *ip = f + pkt->l3;
	uint32_t avail = len - pkt->l3;
	uint32_t ihl, tot;

	if (avail < sizeof(struct sr_ipv4))
		return SR_PARSE_RUNT;
	if (ip[0] >> 4 != 4)
		return SR_PARSE_IP_VERSION;
	ihl = (uint32_t)(ip[0] & 0xf) * 4;
	if (ihl < sizeof(struct sr_ipv4))
		return SR_PARSE_IPV4_LEN;
	if (ip[9] != SR_IPPROTO_UDP)
		return SR_PARSE_NOT_UDP;
	if (avail < ihl + sizeof(struct sr_udp))
		return SR_PARSE_RUNT;
	if (sr_get_be16(ip + ihl + 2) != SR_ROCE_PORT)
		return SR_PARSE_NOT_ROCE_PORT;
	if (ihl != sizeof(struct sr_ipv4))
		return SR_PARSE_IPV4_OPTIONS;
	if (sr_get_be16(ip + 6) & 0x3fff)
		return SR_PARSE_IPV4_FRAGMENT;
	tot = sr_get_be16(ip + 2);
	if (tot < ihl + sizeof(struct sr_udp))
		return SR_PARSE_IPV4_LEN;
	if (tot > avail)
		return SR_PARSE_RUNT;
	if (sr_ipv4_sum(ip, ihl) != 0xffff)
		return SR_PARSE_IPV4_CSUM;
	pkt->ipv6 = false;
	pkt->l4 = (uint16_t)(pkt->l3 + ihl);
	*ip_plen = tot - ihl;
	return SR_PARSE_OK;
}

static enum sr_parse_result sr_parse_ipv6(const uint8_t *f, uint32_t len,
					  struct sr_pkt *pkt, uint32_t *ip_plen)
{
	const uint8_t *ip = f + pkt->l3;
	uint32_t avail = len - pkt->l3;
	uint32_t plen;

	if (avail < sizeof(struct sr_ipv6))
		return SR_PARSE_RUNT;
	if (ip[0] >> 4 != 6)
		return SR_PARSE_IP_VERSION;
	if (sr_ipv6_is_ext(ip[6]))
		return sr_ipv6_ext_class(ip + sizeof(struct sr_ipv6),
					 avail - sizeof(struct sr_ipv6), ip[6]);
	if (ip[6] != SR_IPPROTO_UDP)
		return SR_PARSE_NOT_UDP;
	if (avail < sizeof(struct sr_ipv6) + sizeof(struct sr_udp))
		return SR_PARSE_RUNT;
	if (sr_get_be16(ip + sizeof(struct sr_ipv6) + 2) != SR_ROCE_PORT)
		return SR_PARSE_NOT_ROCE_PORT;
	plen = sr_get_be16(ip + 4);
	if (plen < sizeof(struct sr_udp))
		return SR_PARSE_IPV6_LEN;
	if (plen > avail - sizeof(struct sr_ipv6))
		return SR_PARSE_RUNT;
	/*
	 * A GID ::ffff:a.b.c.d stands for an IPv4 address, which RoCEv2
	 * carries in IPv4 (IBA Annex A17): such a packet over IPv6 names a
	 * peer that an answer would reach over IPv4, from an address it was
	 * not sent to.  No RNIC sends it; refused like any framing fault.
	 */
	if (sr_gid_is_v4(ip + 8) || sr_gid_is_v4(ip + 24))
		return SR_PARSE_IPV6_MAPPED;
	pkt->ipv6 = true;
	pkt->l4 = (uint16_t)(pkt->l3 + sizeof(struct sr_ipv6));
	*ip_plen = plen;
	return SR_PARSE_OK;
}

/* From UDP on: the transport headers, pad and ICRC. */
static enum sr_parse_result sr_parse_transport(const uint8_t *f,
					       uint32_t ip_plen,
					       unsigned int flags,
					       struct sr_pkt *pkt)
{
	const uint8_t *udp = f + pkt->l4;
	uint32_t udp_len = sr_get_be16(udp + 4);
	const struct sr_bth *bth;
	const struct sr_opcode_info *op;
	uint32_t roce_len, rest;

	if (udp_len != ip_plen)
		return SR_PARSE_UDP_LEN;
	roce_len = udp_len - (uint32_t)sizeof(struct sr_udp);
	if (roce_len < SR_BTH_LEN + SR_ICRC_LEN)
		return SR_PARSE_RUNT;
	pkt->bth = (uint16_t)(pkt->l4 + sizeof(struct sr_udp));
	pkt->end = pkt->bth + roce_len - SR_ICRC_LEN;
	bth = (const struct sr_bth *)(f + pkt->bth);
	if (sr_bth_tver(bth) != SR_BTH_TVER)
		return SR_PARSE_TVER;
	op = sr_opcode_info(sr_bth_opcode(bth));
	if (op == NULL)
		return SR_PARSE_OPCODE;
	if ((sr_bth_pkey(bth) & 0x7fff) == 0)
		return SR_PARSE_PKEY;
	if ((uint32_t)op->hdr_len + SR_ICRC_LEN > roce_len)
		return SR_PARSE_HDR_TRUNC;
	rest = roce_len - op->hdr_len - SR_ICRC_LEN; /* payload and pad */
	pkt->pad = sr_bth_pad(bth);
	if (pkt->pad > rest)
		return SR_PARSE_PAD;
	pkt->payload_len = rest - pkt->pad;
	if (!(op->flags & SR_OPF_PAYLOAD) && rest != 0)
		return SR_PARSE_PAYLOAD_LEN;
	if (op->kind == SR_KIND_ATOMIC_WRITE && pkt->payload_len != 8)
		return SR_PARSE_PAYLOAD_LEN;
	if (op->kind == SR_KIND_CNP && pkt->payload_len != SR_CNP_PAYLOAD)
		return SR_PARSE_PAYLOAD_LEN;
	if (pkt->payload_len > SR_MAX_PAYLOAD)
		return SR_PARSE_OVERSIZE;
	pkt->opcode = sr_bth_opcode(bth);
	pkt->op = op;
	pkt->payload = (uint16_t)(pkt->bth + op->hdr_len);
	memcpy(pkt->ext, op->ext, SR_EXT_MAX);
	if (!(flags & SR_PARSE_NO_ICRC) &&
	    sr_pkt_icrc_calc(pkt) != sr_pkt_icrc_stored(pkt))
		return SR_PARSE_ICRC;
	return SR_PARSE_OK;
}

static enum sr_parse_result sr_parse_from_l3(const uint8_t *f, uint32_t len,
					     uint16_t ethertype,
					     unsigned int flags,
					     struct sr_pkt *pkt)
{
	enum sr_parse_result r;
	uint32_t ip_plen = 0;

	if (ethertype == SR_ETHERTYPE_IPV4)
		r = sr_parse_ipv4(f, len, pkt, &ip_plen);
	else if (ethertype == SR_ETHERTYPE_IPV6)
		r = sr_parse_ipv6(f, len, pkt, &ip_plen);
	else
		return SR_PARSE_NOT_IP;
	if (r != SR_PARSE_OK)
		return r;
	return sr_parse_transport(f, ip_plen, flags, pkt);
}

enum sr_parse_result sr_parse_eth(const uint8_t *frame, uint32_t len,
				  unsigned int flags, struct sr_pkt *pkt)
{
	uint16_t type;

	memset(pkt, 0, sizeof(*pkt));
	pkt->frame = frame;
	pkt->frame_len = len;
	if (len < sizeof(struct sr_eth))
		return SR_PARSE_RUNT;
	type = sr_get_be16(frame + 12);
	pkt->l3 = sizeof(struct sr_eth);
	if (type == SR_ETHERTYPE_VLAN) {
		if (len < sizeof(struct sr_eth) + sizeof(struct sr_vlan))
			return SR_PARSE_RUNT;
		pkt->has_vlan = true;
		pkt->vlan_tci = sr_get_be16(frame + 14);
		type = sr_get_be16(frame + 16);
		pkt->l3 += sizeof(struct sr_vlan);
	}
	return sr_parse_from_l3(frame, len, type, flags, pkt);
}

enum sr_parse_result sr_parse_ip(const uint8_t *packet, uint32_t len,
				 unsigned int flags, struct sr_pkt *pkt)
{
	uint16_t type;

	memset(pkt, 0, sizeof(*pkt));
	pkt->frame = packet;
	pkt->frame_len = len;
	if (len < 1)
		return SR_PARSE_RUNT;
	switch (packet[0] >> 4) {
	case 4:
		type = SR_ETHERTYPE_IPV4;
		break;
	case 6:
		type = SR_ETHERTYPE_IPV6;
		break;
	default:
		return SR_PARSE_NOT_IP;
	}
	return sr_parse_from_l3(packet, len, type, flags, pkt);
}

uint32_t sr_pkt_icrc_stored(const struct sr_pkt *p)
{
	return sr_icrc_load(p->frame + p->end);
}

uint32_t sr_pkt_icrc_calc(const struct sr_pkt *p)
{
	return sr_icrc_calc(p->frame + p->l3, p->ipv6, p->end - p->l3);
}

static void sr_pkt_gid(const struct sr_pkt *p, unsigned int v4_off,
		       unsigned int v6_off, uint8_t gid[16])
{
	const uint8_t *ip = p->frame + p->l3;

	if (p->ipv6) {
		memcpy(gid, ip + v6_off, 16);
		return;
	}
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, ip + v4_off, 4);
}

void sr_pkt_sgid(const struct sr_pkt *p, uint8_t gid[16])
{
	sr_pkt_gid(p, 12, 8, gid);
}

void sr_pkt_dgid(const struct sr_pkt *p, uint8_t gid[16])
{
	sr_pkt_gid(p, 16, 24, gid);
}
