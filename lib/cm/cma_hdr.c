/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cma_hdr.c — rdma_cm's IP-addressing header in the CM private data.
 */
#include <errno.h>
#include <string.h>

#include "cm/cma_hdr.h"
#include "wire/endian.h"

int sr_cma_hdr_put(uint8_t *out, const struct sr_cma_addr *a)
{
	if (a->ip_version != 4 && a->ip_version != 6)
		return -EINVAL;
	memset(out, 0, SR_CMA_HDR_SIZE);
	out[0] = SR_CMA_VERSION;
	out[1] = (uint8_t)(a->ip_version << 4);
	sr_put_be16(out + 2, a->port);
	if (a->ip_version == 4) {
		memcpy(out + 4 + 12, a->src + 12, 4);
		memcpy(out + 20 + 12, a->dst + 12, 4);
	} else {
		memcpy(out + 4, a->src, 16);
		memcpy(out + 20, a->dst, 16);
	}
	return 0;
}

int sr_cma_hdr_get(const uint8_t *pdata, uint32_t len, struct sr_cma_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (pdata == NULL || len < SR_CMA_HDR_SIZE)
		return -EPROTO;
	if (pdata[0] != SR_CMA_VERSION)
		return -EPROTONOSUPPORT;
	a->ip_version = pdata[1] >> 4;
	if (a->ip_version != 4 && a->ip_version != 6)
		return -EPROTONOSUPPORT;
	a->port = sr_get_be16(pdata + 2);
	if (a->ip_version == 4) {
		memcpy(a->src + 12, pdata + 4 + 12, 4);
		memcpy(a->dst + 12, pdata + 20 + 12, 4);
	} else {
		memcpy(a->src, pdata + 4, 16);
		memcpy(a->dst, pdata + 20, 16);
	}
	return 0;
}

void sr_cma_ipv4_gid(uint8_t gid[16], const uint8_t ip[4])
{
	memset(gid, 0, 10);
	gid[10] = 0xFF;
	gid[11] = 0xFF;
	memcpy(gid + 12, ip, 4);
}
