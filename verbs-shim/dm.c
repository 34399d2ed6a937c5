/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dm.c — device memory: ibv_alloc_dm, ibv_memcpy_to_dm / ibv_memcpy_from_dm,
 * ibv_reg_dm_mr, ibv_free_dm.
 *
 * On an RNIC, device memory is memory on the adapter (mlx5's MEMIC) that
 * the consumer reaches only through copies and through MRs registered on
 * it.  sroce's adapter is the process itself, so its device memory is
 * memory the device owns: SR_IBV_DM_MAX bytes per device (what
 * ibv_query_device_ex reports as max_dm_size), zeroed when handed out.
 * The rules are mlx5's, so that programs written for it run unchanged:
 *   - alloc: length 1..what is left (ENOMEM beyond), comp_mask 0 and an
 *     alignment of at most a page (EINVAL);
 *   - copies: inside the allocation (EFAULT), offset and length
 *     multiples of 4 (EINVAL);
 *   - reg_dm_mr: a range of the allocation (EINVAL outside it), local and
 *     remote access and ZERO_BASED (address 0 is the MR's first byte;
 *     without it, a WR names the byte by its offset in the allocation).
 *     A length of 0 is an MR with no bytes: a key every access fails;
 *   - free: EBUSY while an MR is registered on it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mr/mr.h"
#include "shim.h"

struct sr_ibv_dm {
	struct ibv_dm ibdm;
	struct sr_ibv_rt *rt;
	uint8_t *mem;
	size_t length;
	size_t charged;                   /* against the device's SR_IBV_DM_MAX */
	atomic_uint mrs;                  /* MRs registered on it */
};

#define SR_IBV_DM_LOG_ALIGN_MAX 12

#define SR_IBV_DM_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
			  IBV_ACCESS_ZERO_BASED)

static struct sr_ibv_dm *sr_dm_of(struct ibv_dm *dm)
{
	return sr_container_of(dm, struct sr_ibv_dm, ibdm);
}

/* 0, or the errno for a copy of length bytes at offset. */
static int sr_ibv_dm_range(const struct sr_ibv_dm *d, uint64_t offset,
			   size_t length)
{
	if (offset > d->length || length > d->length - offset)
		return EFAULT;
	if ((offset & 3) || (length & 3))
		return EINVAL;
	return 0;
}

static int sr_ibv_memcpy_to_dm(struct ibv_dm *dm, uint64_t offset,
			       const void *host, size_t length)
{
	struct sr_ibv_dm *d = sr_dm_of(dm);
	int rc = sr_ibv_dm_range(d, offset, length);

	if (rc == 0 && length)
		memcpy(d->mem + offset, host, length);
	return rc;
}

static int sr_ibv_memcpy_from_dm(void *host, struct ibv_dm *dm,
				 uint64_t offset, size_t length)
{
	struct sr_ibv_dm *d = sr_dm_of(dm);
	int rc = sr_ibv_dm_range(d, offset, length);

	if (rc == 0 && length)
		memcpy(host, d->mem + offset, length);
	return rc;
}

struct ibv_dm *sr_ibv_alloc_dm(struct ibv_context *c,
			       struct ibv_alloc_dm_attr *attr)
{
	struct sr_ibv_rt *rt = sr_ctx(c)->rt;
	struct sr_ibv_dm *d;
	size_t align, size, used;

	if (attr == NULL || attr->comp_mask != 0 || attr->length == 0 ||
	    attr->log_align_req > SR_IBV_DM_LOG_ALIGN_MAX) {
		errno = EINVAL;
		return NULL;
	}
	align = (size_t)1 << (attr->log_align_req > 6 ? attr->log_align_req : 6);
	if (attr->length > SR_IBV_DM_MAX) {
		errno = ENOMEM;
		return NULL;
	}
	size = (attr->length + align - 1) & ~(align - 1);
	used = atomic_fetch_add(&rt->dm_used, size);
	if (used + size > SR_IBV_DM_MAX) {
		atomic_fetch_sub(&rt->dm_used, size);
		errno = ENOMEM;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (d != NULL)
		d->mem = aligned_alloc(align, size);
	if (d == NULL || d->mem == NULL) {
		atomic_fetch_sub(&rt->dm_used, size);
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	memset(d->mem, 0, size);
	d->rt = rt;
	d->length = attr->length;
	d->charged = size;
	d->ibdm.context = c;
	d->ibdm.memcpy_to_dm = sr_ibv_memcpy_to_dm;
	d->ibdm.memcpy_from_dm = sr_ibv_memcpy_from_dm;
	return &d->ibdm;
}

int sr_ibv_free_dm(struct ibv_dm *dm)
{
	struct sr_ibv_dm *d;

	if (dm == NULL)
		return EINVAL;
	d = sr_dm_of(dm);
	if (atomic_load(&d->mrs) != 0)
		return EBUSY;
	atomic_fetch_sub(&d->rt->dm_used, d->charged);
	free(d->mem);
	free(d);
	return 0;
}

struct ibv_mr *sr_ibv_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm,
				uint64_t offset, size_t length,
				unsigned int access)
{
	bool zero = access & IBV_ACCESS_ZERO_BASED;
	struct sr_ibv_dm *d;
	struct ibv_mr *mr;
	struct sr_ibv_mr *m;

	if (pd == NULL || dm == NULL || (access & ~SR_IBV_DM_ACCESS) ||
	    dm->context != pd->context) {
		errno = EINVAL;
		return NULL;
	}
	d = sr_dm_of(dm);
	if (offset > d->length || length > d->length - offset) {
		errno = EINVAL;
		return NULL;
	}
	if (length == 0) {
		mr = sr_ibv_mr_empty(pd);
	} else {
		mr = ibv_reg_mr_iova2(pd, d->mem + offset, length,
				      zero ? 0 : offset, access);
	}
	if (mr == NULL)
		return NULL;
	m = sr_container_of(mr, struct sr_ibv_mr, ibmr);
	m->dm = d;
	mr->addr = (void *)(uintptr_t)(zero ? 0 : offset);
	atomic_fetch_add(&d->mrs, 1);
	return mr;
}

void sr_ibv_dm_mr_gone(struct sr_ibv_dm *d)
{
	atomic_fetch_sub(&d->mrs, 1);
}
