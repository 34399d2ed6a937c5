/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * arp.c — ARP (RFC 826) for Ethernet / IPv4.
 */
#include <errno.h>
#include <string.h>

#include "arp.h"

#define SR_ARP_LEN 28
#define SR_ARP_HTYPE_ETH 1
#define SR_ARP_OP_REQUEST 1
#define SR_ARP_OP_REPLY 2
#define SR_ETH_MIN_FRAME 60

static const uint8_t sr_bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* Ethernet header + ARP body; pads to the Ethernet minimum. */
static int sr_arp_build(uint8_t *buf, const struct sr_pmd_addr *self,
			const uint8_t eth_dst[6], uint16_t op,
			const uint8_t tha[6], const uint8_t tpa[4])
{
	uint32_t off = sr_frame_put_eth(buf, eth_dst, self->mac, self->vlan,
					self->vlan_prio, SR_ETHERTYPE_ARP);
	uint8_t *a = buf + off;

	sr_put_be16(a, SR_ARP_HTYPE_ETH);
	sr_put_be16(a + 2, SR_ETHERTYPE_IPV4);
	a[4] = 6;
	a[5] = 4;
	sr_put_be16(a + 6, op);
	memcpy(a + 8, self->mac, 6);
	memcpy(a + 14, self->ipv4, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, tpa, 4);
	off += SR_ARP_LEN;
	if (off < SR_ETH_MIN_FRAME) {
		memset(buf + off, 0, SR_ETH_MIN_FRAME - off);
		off = SR_ETH_MIN_FRAME;
	}
	return (int)off;
}

int sr_arp_build_request(uint8_t *buf, const struct sr_pmd_addr *self,
			 const uint8_t target[4])
{
	static const uint8_t zero[6];

	if (!self->has_ipv4)
		return -EINVAL;
	return sr_arp_build(buf, self, sr_bcast, SR_ARP_OP_REQUEST, zero,
			    target);
}

int sr_arp_input(struct sr_neigh_cache *c, const struct sr_pmd_addr *self,
		 const uint8_t *frame, uint32_t len, const struct sr_frame *f,
		 uint64_t now_ns, uint8_t *reply)
{
	const uint8_t *a = frame + f->l3;
	const uint8_t *sha, *spa, *tpa;
	uint8_t key[16];
	uint16_t op;
	bool for_us;

	if (len < (uint32_t)f->l3 + SR_ARP_LEN ||
	    sr_get_be16(a) != SR_ARP_HTYPE_ETH ||
	    sr_get_be16(a + 2) != SR_ETHERTYPE_IPV4 || a[4] != 6 || a[5] != 4)
		return -EINVAL;
	op = sr_get_be16(a + 6);
	sha = a + 8;
	spa = a + 14;
	tpa = a + 24;
	if (sha[0] & 1)
		return -EINVAL;     /* a multicast sender is bogus */
	for_us = self->has_ipv4 && memcmp(tpa, self->ipv4, 4) == 0;

	/* Learn the sender when it talks to us, or refresh what we know. */
	sr_neigh_ipv4_key(key, spa);
	if ((for_us || sr_neigh_lookup(c, key)) &&
	    !(spa[0] == 0 && spa[1] == 0 && spa[2] == 0 && spa[3] == 0))
		sr_neigh_update(c, key, sha, now_ns);

	if (op != SR_ARP_OP_REQUEST || !for_us)
		return 0;
	return sr_arp_build(reply, self, sha, SR_ARP_OP_REPLY, sha, spa);
}
