/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * align.c — WORKAROUND until lib/ allocates its 64-byte-aligned objects
 * (struct sr_qp / sr_cq / sr_srq hold _Alignas(64) rings) with
 * aligned_alloc: every consumer of sroce_ndk_core_dep links with
 * -Wl,--wrap=calloc, so calloc in lib/ (and here) returns 64-byte-aligned
 * blocks; free() accepts them.  See tests/pmd/xport_bug_qp_misaligned.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	if (n * size < 64)
		return __real_calloc(n, size);
	if (posix_memalign(&p, 64, n * size)) {
		errno = ENOMEM;
		return NULL;
	}
	memset(p, 0, n * size);
	return p;
}
