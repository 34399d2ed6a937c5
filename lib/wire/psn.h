/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * psn.h — 24-bit packet sequence number arithmetic, the only place it is done.
 *
 * PSNs wrap at 2^24.  A PSN is "after" another when it lies in the half of
 * the circle ahead of it (IBTA 9.7.1): the signed 24-bit distance decides.
 */
#ifndef SR_WIRE_PSN_H
#define SR_WIRE_PSN_H

#include <stdbool.h>
#include <stdint.h>

#define SR_PSN_MASK 0xffffffu

static inline uint32_t sr_psn_add(uint32_t psn, uint32_t n)
{
	return (psn + n) & SR_PSN_MASK;
}

/* Signed distance b - a in [-2^23, 2^23). */
static inline int32_t sr_psn_diff(uint32_t b, uint32_t a)
{
	return (int32_t)((b - a) << 8) >> 8;
}

static inline bool sr_psn_before(uint32_t a, uint32_t b)
{
	return sr_psn_diff(b, a) > 0;
}

#endif /* SR_WIRE_PSN_H */
