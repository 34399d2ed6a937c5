/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * igmp.c — IGMPv2 and MLDv1 membership messages (igmp.h).
 */
#include <errno.h>
#include <string.h>

#include "igmp.h"

#define SR_IGMP_QUERY     0x11
#define SR_IGMP_V2_REPORT 0x16
#define SR_IGMP_LEAVE     0x17
#define SR_IGMP_LEN       8
#define SR_MLD_REPORT     131
#define SR_MLD_DONE       132
#define SR_MLD_LEN        24
#define SR_HBH_LEN        8     /* hop-by-hop header with router alert */

static const uint8_t sr_v4_prefix[12] = { [10] = 0xff, [11] = 0xff };

/* IPv4 with the router alert option (RFC 2113), TTL 1, to dst. */
static uint32_t sr_igmp_ip4(uint8_t *ip, const uint8_t src[4],
			    const uint8_t dst[4])
{
	ip[0] = 0x46;                       /* 24-byte header */
	ip[1] = 0xc0;                       /* internetwork control, as Linux */
	sr_put_be16(ip + 2, 24 + SR_IGMP_LEN);
	sr_put_be16(ip + 4, 0);
	sr_put_be16(ip + 6, 0);
	ip[8] = 1;
	ip[9] = SR_IPPROTO_IGMP;
	sr_put_be16(ip + 10, 0);
	memcpy(ip + 12, src, 4);
	memcpy(ip + 16, dst, 4);
	ip[20] = 0x94;                      /* router alert, length 4, 0 */
	ip[21] = 0x04;
	ip[22] = 0;
	ip[23] = 0;
	sr_put_be16(ip + 10, sr_csum_fold(sr_csum_add(0, ip, 24)));
	return 24;
}

static int sr_igmp_build4(uint8_t *buf, const struct sr_pmd_addr *self,
			  const uint8_t group[4], bool join)
{
	static const uint8_t all_routers[4] = { 224, 0, 0, 2 };
	const uint8_t *dst = join ? group : all_routers;
	uint8_t mac[6] = { 0x01, 0x00, 0x5e, (uint8_t)(dst[1] & 0x7f),
			   dst[2], dst[3] };
	uint32_t off;
	uint8_t *igmp;

	if (!self->has_ipv4)
		return -EINVAL;
	off = sr_frame_put_eth(buf, mac, self->mac, self->vlan,
			       self->vlan_prio, SR_ETHERTYPE_IPV4);
	off += sr_igmp_ip4(buf + off, self->ipv4, dst);
	igmp = buf + off;
	igmp[0] = join ? SR_IGMP_V2_REPORT : SR_IGMP_LEAVE;
	igmp[1] = 0;
	sr_put_be16(igmp + 2, 0);
	memcpy(igmp + 4, group, 4);
	sr_put_be16(igmp + 2, sr_csum_fold(sr_csum_add(0, igmp, SR_IGMP_LEN)));
	off += SR_IGMP_LEN;
	if (off < 60) {                     /* Ethernet's minimum */
		memset(buf + off, 0, 60 - off);
		off = 60;
	}
	return (int)off;
}

static int sr_mld_build(uint8_t *buf, const struct sr_pmd_addr *self,
			const uint8_t group[16], bool join)
{
	static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 0x02 };
	const uint8_t *dst = join ? group : all_routers;
	uint8_t mac[6] = { 0x33, 0x33, dst[12], dst[13], dst[14], dst[15] };
	uint8_t tail[8] = { 0 };
	uint8_t *ip, *hbh, *mld;
	uint32_t off, sum;

	/* RFC 2710 3: the source is a link-local address (ipv6[0]) */
	if (self->n_ipv6 == 0)
		return -EINVAL;
	off = sr_frame_put_eth(buf, mac, self->mac, self->vlan,
			       self->vlan_prio, SR_ETHERTYPE_IPV6);
	ip = buf + off;
	hbh = ip + SR_IPV6_HLEN;
	mld = hbh + SR_HBH_LEN;
	sr_put_be32(ip, 6u << 28);
	sr_put_be16(ip + 4, SR_HBH_LEN + SR_MLD_LEN);
	ip[6] = 0;                          /* hop-by-hop options */
	ip[7] = 1;
	memcpy(ip + 8, self->ipv6[0], 16);
	memcpy(ip + 24, dst, 16);
	hbh[0] = SR_IPPROTO_ICMPV6;
	hbh[1] = 0;                         /* 8 bytes */
	hbh[2] = 5;                         /* router alert (RFC 2711): MLD */
	hbh[3] = 2;
	hbh[4] = 0;
	hbh[5] = 0;
	hbh[6] = 1;                         /* PadN, 0 bytes */
	hbh[7] = 0;
	memset(mld, 0, SR_MLD_LEN);
	mld[0] = join ? SR_MLD_REPORT : SR_MLD_DONE;
	memcpy(mld + 8, group, 16);
	/* ICMPv6 checksum over the pseudo-header (RFC 8200 8.1) */
	sr_put_be32(tail, SR_MLD_LEN);
	tail[7] = SR_IPPROTO_ICMPV6;
	sum = sr_csum_add(0, ip + 8, 32);
	sum = sr_csum_add(sum, tail, sizeof(tail));
	sum = sr_csum_add(sum, mld, SR_MLD_LEN);
	sr_put_be16(mld + 2, sr_csum_fold(sum));
	return (int)(off + SR_IPV6_HLEN + SR_HBH_LEN + SR_MLD_LEN);
}

int sr_igmp_build(uint8_t *buf, const struct sr_pmd_addr *self,
		  const uint8_t group[16], bool join)
{
	if (memcmp(group, sr_v4_prefix, 12) == 0) {
		if ((group[12] & 0xf0) != 0xe0)
			return -EINVAL;
		return sr_igmp_build4(buf, self, group + 12, join);
	}
	if (group[0] != 0xff)
		return -EINVAL;
	return sr_mld_build(buf, self, group, join);
}

int sr_igmp_query(const uint8_t *frame, uint32_t len, const struct sr_frame *f,
		  uint8_t group[16])
{
	const uint8_t *ip = frame + f->l3;
	const uint8_t *igmp;
	uint32_t ihl, tot;

	if (f->ip_version != 4 || f->proto != SR_IPPROTO_IGMP || f->l4 == 0)
		return -EINVAL;
	ihl = (uint32_t)(ip[0] & 0x0f) * 4;
	tot = sr_get_be16(ip + 2);
	if (tot < ihl + SR_IGMP_LEN || f->l3 + tot > len)
		return -EINVAL;
	igmp = ip + ihl;
	/* v1/v2 queries are 8 bytes, v3 longer: the checksum covers all */
	if (sr_csum_fold(sr_csum_add(0, igmp, tot - ihl)) != 0)
		return -EINVAL;
	if (igmp[0] != SR_IGMP_QUERY)
		return 0;
	memset(group, 0, 16);
	if (sr_get_be32(igmp + 4) == 0)
		return 1;
	memcpy(group, sr_v4_prefix, 12);
	memcpy(group + 12, igmp + 4, 4);
	return 2;
}
