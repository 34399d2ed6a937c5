/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * endian.h — big-endian loads and stores at any alignment.
 *
 * Headers in a frame are only 2-byte aligned (after a 14-byte Ethernet
 * header), so every wire field is read and written through memcpy and a
 * byte swap.  The compiler turns each into one load/store and a bswap.
 */
#ifndef SR_WIRE_ENDIAN_H
#define SR_WIRE_ENDIAN_H

#include <stdint.h>
#include <string.h>

static inline uint16_t sr_get_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return __builtin_bswap16(v);
}

static inline uint32_t sr_get_be24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static inline uint32_t sr_get_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return __builtin_bswap32(v);
}

static inline uint64_t sr_get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return __builtin_bswap64(v);
}

static inline void sr_put_be16(uint8_t *p, uint16_t v)
{
	v = __builtin_bswap16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void sr_put_be24(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 16);
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)v;
}

static inline void sr_put_be32(uint8_t *p, uint32_t v)
{
	v = __builtin_bswap32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void sr_put_be64(uint8_t *p, uint64_t v)
{
	v = __builtin_bswap64(v);
	memcpy(p, &v, sizeof(v));
}

#endif /* SR_WIRE_ENDIAN_H */
