/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nd.c — Neighbor Solicitation / Advertisement.
 */
#include <errno.h>
#include <string.h>

#include "nd.h"

#define SR_ND_LEN 24             /* type..target */
#define SR_ND_OPT_SLLA 1
#define SR_ND_OPT_TLLA 2
#define SR_ND_NA_ROUTER 0x80
#define SR_ND_NA_SOLICITED 0x40
#define SR_ND_NA_OVERRIDE 0x20

static const uint8_t sr_all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };

uint16_t sr_nd_icmp6_csum(const uint8_t *ip6, uint32_t icmp_len)
{
	uint8_t tail[8] = { 0 };
	uint32_t sum;

	sr_put_be32(tail, icmp_len);
	tail[7] = SR_IPPROTO_ICMPV6;
	sum = sr_csum_add(0, ip6 + 8, 32);          /* src, dst */
	sum = sr_csum_add(sum, tail, sizeof(tail));
	sum = sr_csum_add(sum, ip6 + SR_IPV6_HLEN, icmp_len);
	return sr_csum_fold(sum);
}

static bool sr_nd_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* Ethernet + IPv6 + NS/NA with one link-layer address option. */
static int sr_nd_build(uint8_t *buf, const struct sr_pmd_addr *self,
		       const uint8_t eth_dst[6], const uint8_t src[16],
		       const uint8_t dst[16], uint8_t type, uint8_t flags,
		       const uint8_t target[16])
{
	uint32_t off = sr_frame_put_eth(buf, eth_dst, self->mac, self->vlan,
					self->vlan_prio, SR_ETHERTYPE_IPV6);
	uint8_t *ip = buf + off, *icmp = ip + SR_IPV6_HLEN;
	const uint32_t icmp_len = SR_ND_LEN + 8;

	sr_put_be32(ip, 6u << 28);
	sr_put_be16(ip + 4, (uint16_t)icmp_len);
	ip[6] = SR_IPPROTO_ICMPV6;
	ip[7] = 255;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	memset(icmp, 0, icmp_len);
	icmp[0] = type;
	icmp[4] = flags;
	memcpy(icmp + 8, target, 16);
	icmp[24] = type == SR_ICMPV6_NS ? SR_ND_OPT_SLLA : SR_ND_OPT_TLLA;
	icmp[25] = 1;                                /* 8 octets */
	memcpy(icmp + 26, self->mac, 6);
	sr_put_be16(icmp + 2, sr_nd_icmp6_csum(ip, icmp_len));
	return (int)(off + SR_IPV6_HLEN + icmp_len);
}

int sr_nd_build_ns(uint8_t *buf, const struct sr_pmd_addr *self,
		   const uint8_t target[16])
{
	uint8_t dst[16] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	uint8_t mac[6] = { 0x33, 0x33, 0xff };
	const uint8_t *src;

	if (self->n_ipv6 == 0)
		return -EINVAL;
	src = self->ipv6[0];
	if (!sr_nd_link_local(target) && self->n_ipv6 > 1)
		src = self->ipv6[1];
	/* Solicited-node group ff02::1:ffXX:XXXX and its MAC 33:33:ff:XX:XX:XX. */
	memcpy(dst + 13, target + 13, 3);
	memcpy(mac + 3, target + 13, 3);
	return sr_nd_build(buf, self, mac, src, dst, SR_ICMPV6_NS, 0, target);
}

/* The link-layer address option of type want, or NULL. */
static const uint8_t *sr_nd_option(const uint8_t *opt, uint32_t len,
				   uint8_t want)
{
	while (len >= 8) {
		uint32_t olen = (uint32_t)opt[1] * 8;

		if (olen == 0 || olen > len)
			return NULL;
		if (opt[0] == want && olen >= 8)
			return opt + 2;
		opt += olen;
		len -= olen;
	}
	return NULL;
}

int sr_nd_input(struct sr_neigh_cache *c, const struct sr_pmd_addr *self,
		const uint8_t *frame, uint32_t len, const struct sr_frame *f,
		uint64_t now_ns, uint8_t *reply)
{
	const uint8_t *ip = frame + f->l3, *icmp = frame + f->l4;
	const uint8_t *src = ip + 8, *target = icmp + 8, *lla;
	uint32_t icmp_len = f->l4_len;
	static const uint8_t unspec[16];
	bool from_unspec;
	uint8_t type;

	(void)len;   /* sr_frame_layout checked l4_len against it */
	if (f->l4 == 0 || f->proto != SR_IPPROTO_ICMPV6)
		return -EINVAL;
	type = icmp[0];
	if (type != SR_ICMPV6_NS && type != SR_ICMPV6_NA)
		return 0;
	if (icmp_len < SR_ND_LEN || ip[7] != 255 || icmp[1] != 0 ||
	    sr_nd_icmp6_csum(ip, icmp_len) != 0 || target[0] == 0xff)
		return -EINVAL;
	from_unspec = memcmp(src, unspec, 16) == 0;

	if (type == SR_ICMPV6_NA) {
		lla = sr_nd_option(icmp + SR_ND_LEN, icmp_len - SR_ND_LEN,
				   SR_ND_OPT_TLLA);
		if (lla == NULL)
			lla = frame + 6;             /* Ethernet source */
		if ((icmp[4] & SR_ND_NA_SOLICITED) ||
		    sr_neigh_lookup(c, target))
			sr_neigh_update(c, target, lla, now_ns);
		return 0;
	}

	if (!sr_pmd_addr_has_ipv6(self, target))
		return 0;
	lla = sr_nd_option(icmp + SR_ND_LEN, icmp_len - SR_ND_LEN,
			   SR_ND_OPT_SLLA);
	if (from_unspec) {
		/* Duplicate address detection: defend, to all nodes. */
		static const uint8_t mac_all[6] = { 0x33, 0x33, 0, 0, 0, 1 };

		return sr_nd_build(reply, self, mac_all, target, sr_all_nodes,
				   SR_ICMPV6_NA, SR_ND_NA_OVERRIDE, target);
	}
	if (lla == NULL)
		lla = frame + 6;
	sr_neigh_update(c, src, lla, now_ns);
	return sr_nd_build(reply, self, lla, target, src, SR_ICMPV6_NA,
			   SR_ND_NA_SOLICITED | SR_ND_NA_OVERRIDE, target);
}
