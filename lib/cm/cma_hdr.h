/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cma_hdr.h — what Linux's rdma_cm adds on top of the IB CM.
 *
 * Service IDs: 0x0000000001000000 | port space << 16 | port (16 bits).
 * The REQ's (and SIDR_REQ's) private data starts with a 36-byte header:
 *   byte 0   cma version (0x00)
 *   byte 1   IP version in the high nibble (4 or 6), low nibble 0
 *   byte 2-3 source port, big-endian
 *   byte 4   source address, 16 bytes (IPv4: bytes 16..19 of it, the rest 0)
 *   byte 20  destination address, 16 bytes, the same way
 * and the consumer's private data follows (at most 92 - 36 = 56 bytes in a
 * REQ, 216 - 36 = 180 in a SIDR_REQ).  REP, REJ, RTU, DREQ, DREP carry
 * the consumer's private data alone.
 *
 * For RoCE the REQ's primary path carries the GIDs (the IPv4-mapped
 * ::ffff:a.b.c.d form for IPv4) and, when the route's hop limit is above
 * 1, the permissive LID 0xFFFF in both LID fields (cm_format_req's
 * "work-around until there's a way to obtain remote LID info").
 */
#ifndef SR_CM_CMA_HDR_H
#define SR_CM_CMA_HDR_H

#include <stdbool.h>
#include <stdint.h>

#define SR_RDMA_PS_TCP  0x0106u
#define SR_RDMA_PS_UDP  0x0111u
#define SR_RDMA_PS_IB   0x013Fu
#define SR_RDMA_PS_IPOIB 0x0002u

#define SR_CMA_SID_BASE      0x0000000001000000ull
#define SR_CMA_SID_MASK      0xFFFFFFFFFF000000ull
#define SR_CMA_HDR_SIZE      36u
#define SR_CMA_VERSION       0x00u
#define SR_CM_LID_PERMISSIVE 0xFFFFu

/* Defaults of Linux's rdma_cm (cma.c). */
#define SR_CMA_CM_RESPONSE_TIMEOUT 20u
#define SR_CMA_MAX_CM_RETRIES      15u

struct sr_cma_addr {
	uint8_t ip_version;   /* 4 or 6 */
	uint16_t port;        /* host order */
	uint8_t src[16];      /* IPv4: src[12..15] */
	uint8_t dst[16];
};

static inline uint64_t sr_cma_service_id(uint16_t ps, uint16_t port)
{
	return SR_CMA_SID_BASE | (uint64_t)ps << 16 | port;
}

/* The port space of an rdma_cm service ID, or 0 if it is not one. */
static inline uint16_t sr_cma_service_ps(uint64_t sid)
{
	if ((sid & SR_CMA_SID_MASK) != SR_CMA_SID_BASE)
		return 0;
	return (uint16_t)(sid >> 16);
}

static inline uint16_t sr_cma_service_port(uint64_t sid)
{
	return (uint16_t)sid;
}

/* Write the 36-byte header into out.  -EINVAL for an IP version not 4/6. */
int sr_cma_hdr_put(uint8_t *out, const struct sr_cma_addr *a);

/* Read the header from len bytes of private data.  -EPROTO if shorter
 * than 36 bytes, -EPROTONOSUPPORT for a cma version not 0 or an IP
 * version not 4/6. */
int sr_cma_hdr_get(const uint8_t *pdata, uint32_t len, struct sr_cma_addr *a);

/* An IPv4 address (network order bytes) as a RoCE GID (::ffff:a.b.c.d). */
void sr_cma_ipv4_gid(uint8_t gid[16], const uint8_t ip[4]);

#endif /* SR_CM_CMA_HDR_H */
