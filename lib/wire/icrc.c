/* SPDX-License-Identifier: BSD-3-Clause */
#include "wire/icrc.h"

#include <string.h>

#include "wire/hdr.h"

/*
 * ISA-L's CRC folds 256 bytes and more on parallel lanes; a shorter buffer
 * goes 16 bytes at a time, one dependent step after another, and costs
 * more than 256 bytes do (this VM: 128 bytes 27 ns, 232 bytes 44 ns, 256
 * bytes 19 ns).  A packet whose ICRC input (8 bytes of ones, then from the
 * IP header on) is shorter than that is therefore summed as 256 bytes:
 * the CRC's state after the first four 0xFF bytes is zero (they cancel
 * the initial all-ones state), and zero bytes fed to a zero state leave it
 * zero, so zeros put in front of the rest do not change the result.  Up
 * to SR_ICRC_PAD_FROM bytes one call over the buffer is cheaper still.
 */
#define SR_ICRC_FOLD     256
#define SR_ICRC_PAD_FROM 64

/* Copy the first n bytes from l3 into ip, masked (IP, UDP and BTH). */
static void sr_icrc_masked_copy(uint8_t *ip, const uint8_t *l3, bool ipv6,
				size_t n)
{
	size_t ip_len = ipv6 ? sizeof(struct sr_ipv6) : sizeof(struct sr_ipv4);
	struct sr_udp *udp = (struct sr_udp *)(ip + ip_len);
	struct sr_bth *bth = (struct sr_bth *)((uint8_t *)udp + sizeof(*udp));

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
	return sr_icrc_hdrs(l3, ipv6, (uint32_t)sr_icrc_prefix_len(ipv6));
}

uint32_t sr_icrc_hdrs(const uint8_t *l3, bool ipv6, uint32_t n)
{
	uint8_t buf[8 + SR_ICRC_HDRS_MAX];
	size_t pre = sr_icrc_prefix_len(ipv6);

	if (n > SR_ICRC_HDRS_MAX)      /* more than headers: the rest in place */
		return sr_icrc_update(sr_icrc_hdrs(l3, ipv6, (uint32_t)pre),
				      l3 + pre, n - pre);
	memset(buf, 0xff, 8);
	sr_icrc_masked_copy(buf + 8, l3, ipv6, n);
	return sr_icrc_update(0, buf, 8 + (size_t)n);
}

/* A short packet's ICRC: 8 + len < SR_ICRC_FOLD. */
static uint32_t sr_icrc_short(const uint8_t *l3, bool ipv6, uint32_t len)
{
	uint8_t buf[SR_ICRC_FOLD];
	size_t start;

	if (8 + (size_t)len <= SR_ICRC_PAD_FROM) {
		memset(buf, 0xff, 8);
		sr_icrc_masked_copy(buf + 8, l3, ipv6, len);
		return sr_icrc_update(0, buf, 8 + (size_t)len);
	}
	/* zeros, then the last four of the eight 0xFF bytes, then the
	 * packet, ending at the buffer's end; from a zero state */
	start = SR_ICRC_FOLD - 4 - (size_t)len;
	memset(buf, 0, start);
	memset(buf + start, 0xff, 4);
	sr_icrc_masked_copy(buf + start + 4, l3, ipv6, len);
	return sr_icrc_update(0xffffffffu, buf, SR_ICRC_FOLD);
}

uint32_t sr_icrc_calc(const uint8_t *l3, bool ipv6, uint32_t len)
{
	size_t pre = sr_icrc_prefix_len(ipv6);

	if (8 + (size_t)len < SR_ICRC_FOLD)
		return sr_icrc_short(l3, ipv6, len);
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
