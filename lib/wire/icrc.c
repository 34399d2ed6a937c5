/* SPDX-License-Identifier: BSD-3-Clause */
#include "wire/icrc.h"

#include <string.h>

#include "wire/hdr.h"

/* 8 bytes of ones + the largest masked header run: IPv6 + UDP + BTH. */
#define SR_ICRC_PREFIX_MAX \
	(8 + sizeof(struct sr_ipv6) + sizeof(struct sr_udp) + SR_BTH_LEN)

/*
 * Packets up to this many bytes from the IP header on are copied whole and
 * summed in one CRC call: a second call on a short tail costs more than
 * the copy (ISA-L handles short buffers byte by byte).
 */
#define SR_ICRC_SMALL 192

/* Copy the first n bytes from l3 into buf after 8 bytes of ones, masked. */
static void sr_icrc_masked_copy(uint8_t *buf, const uint8_t *l3, bool ipv6,
				size_t n)
{
	size_t ip_len = ipv6 ? sizeof(struct sr_ipv6) : sizeof(struct sr_ipv4);
	uint8_t *ip = buf + 8;
	struct sr_udp *udp = (struct sr_udp *)(ip + ip_len);
	struct sr_bth *bth = (struct sr_bth *)((uint8_t *)udp + sizeof(*udp));

	memset(buf, 0xff, 8);
	memcpy(ip, l3, n);
	if (ipv6) {
		struct sr_ipv6 *h = (struct sr_ipv6 *)ip;

		/* Keep the version nibble; traffic class and flow label to ones. */
		h->ver_tc_fl[0] |= 0x0f;
		memset(&h->ver_tc_fl[1], 0xff, 3);
		h->hop_limit = 0xff;
	} else {
		struct sr_ipv4 *h = (struct sr_ipv4 *)ip;

		h->tos = 0xff;
		h->ttl = 0xff;
		memset(h->csum, 0xff, sizeof(h->csum));
	}
	memset(udp->csum, 0xff, sizeof(udp->csum));
	bth->fecn_becn = 0xff;
}

static size_t sr_icrc_prefix_len(bool ipv6)
{
	return (ipv6 ? sizeof(struct sr_ipv6) : sizeof(struct sr_ipv4)) +
	       sizeof(struct sr_udp) + SR_BTH_LEN;
}

uint32_t sr_icrc_hdr(const uint8_t *l3, bool ipv6)
{
	uint8_t buf[SR_ICRC_PREFIX_MAX];
	size_t n = sr_icrc_prefix_len(ipv6);

	sr_icrc_masked_copy(buf, l3, ipv6, n);
	return sr_icrc_update(0, buf, 8 + n);
}

uint32_t sr_icrc_calc(const uint8_t *l3, bool ipv6, uint32_t len)
{
	size_t pre = sr_icrc_prefix_len(ipv6);
	uint8_t buf[8 + SR_ICRC_SMALL];

	if (len <= SR_ICRC_SMALL) {
		sr_icrc_masked_copy(buf, l3, ipv6, len);
		return sr_icrc_update(0, buf, 8 + (size_t)len);
	}
	return sr_icrc_update(sr_icrc_hdr(l3, ipv6), l3 + pre, len - pre);
}

uint32_t sr_icrc_load(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

void sr_icrc_store(uint8_t *p, uint32_t icrc)
{
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
}
