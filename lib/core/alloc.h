/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * alloc.h — zeroed, cache-line aligned allocation for objects that embed
 * rings (struct sr_ring aligns its indices to 64 bytes, so the object
 * holding one must be 64-byte aligned too; calloc only gives 16).
 * Slow path only.  Free with free().
 */
#ifndef SR_CORE_ALLOC_H
#define SR_CORE_ALLOC_H

#include <stdlib.h>
#include <string.h>

#define SR_CACHE_LINE 64

static inline void *sr_zalloc(size_t size)
{
	size_t n = (size + SR_CACHE_LINE - 1) & ~(size_t)(SR_CACHE_LINE - 1);
	void *p = aligned_alloc(SR_CACHE_LINE, n ? n : SR_CACHE_LINE);

	if (p != NULL)
		memset(p, 0, n ? n : SR_CACHE_LINE);
	return p;
}

#endif /* SR_CORE_ALLOC_H */
