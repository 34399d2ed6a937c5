/* SPDX-License-Identifier: BSD-3-Clause */
#include "qp/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sr_ring_init(struct sr_ring *r, uint32_t cap, uint32_t stride)
{
	uint32_t n = 1;

	while (n < cap)
		n <<= 1;
	stride = (stride + 7u) & ~7u;
	memset(r, 0, sizeof(*r));
	r->slots = calloc(n, stride);
	if (r->slots == NULL)
		return -ENOMEM;
	r->mask = n - 1;
	r->stride = stride;
	r->cap = cap ? n : 0;     /* a zero-sized queue: one slot, never free */
	return 0;
}

void sr_ring_fini(struct sr_ring *r)
{
	free(r->slots);
	r->slots = NULL;
}
