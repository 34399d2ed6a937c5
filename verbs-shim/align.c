/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * align.c — WORKAROUND, to remove when lib/ allocates its over-aligned
 * objects with aligned_alloc: struct sr_ring has _Alignas(64) members, so
 * struct sr_qp / sr_cq / sr_srq need 64-byte alignment, but lib/qp gets
 * them from calloc (16 bytes); gcc then uses aligned AVX loads on them
 * and the process faults (ibv_query_qp of ibv_uc_pingpong).  The shim is
 * linked with -Wl,--wrap=calloc, so every calloc inside libibverbs.so.1
 * (lib/ included, DPDK not) comes here and gets 64-byte alignment;
 * free() and realloc() accept such blocks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SR_CALLOC_ALIGN 64

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
	size_t len;
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	len = n * size;
	if (len < SR_CALLOC_ALIGN)
		return __real_calloc(n, size);
	if (posix_memalign(&p, SR_CALLOC_ALIGN, len)) {
		errno = ENOMEM;
		return NULL;
	}
	memset(p, 0, len);
	return p;
}
