/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xlate.c — validating what a normal registration describes and building
 * its translation: a virtual buffer becomes a linear map (no storage, so
 * registering 1 GiB costs what 4 KiB costs), on demand (SR_ACCESS_ON_DEMAND)
 * the same map reached through the kernel (odp.c), a page list a page
 * array, a scatter/gather list a table of extents.
 *
 * Shapes.  A page list or an SG list must describe one virtually
 * contiguous region: only the first piece may start mid-page and only the
 * last may end mid-page.  Everything else is refused (-EINVAL), before
 * any storage is allocated.
 */
#include <errno.h>

#include "mr/mr_priv.h"

int sr_access_check_reg(uint32_t access)
{
	if ((access & ~SR_ACCESS_REG_ALL) != 0)
		return -EINVAL;
	if ((access & SR_ACCESS_NEEDS_LOCAL_WRITE) && !(access & SR_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if ((access & SR_ACCESS_ON_DEMAND) && !sr_mr_odp_supported())
		return -EOPNOTSUPP;
	return 0;
}

/* Size of a registration against MaxRegistrationSize; 0 is invalid too. */
static int sr_xlate_check_size(const struct sr_mr_dev *d, uint64_t length)
{
	if (length == 0)
		return -EINVAL;
	return sr_dev_limit_check(&d->limits, SR_LIMIT_ID_max_registration_size, length);
}

/*
 * The region's own address range: zero-based starts at 0 (iova must be
 * 0); otherwise [iova, iova + length) must not wrap and iova's page offset
 * must be first_off (UINT32_MAX: any).
 */
static int sr_xlate_check_iova(uint64_t iova, uint64_t length, uint32_t access, uint32_t first_off)
{
	if (access & SR_ACCESS_ZERO_BASED)
		return iova == 0 ? 0 : -EINVAL;
	if (length > UINT64_MAX - iova)
		return -EINVAL;
	if (first_off != UINT32_MAX && (iova & SR_PAGE_MASK) != first_off)
		return -EINVAL;
	return 0;
}

/* A host buffer: non-NULL and not wrapping. */
static int sr_xlate_check_buffer(uint64_t addr, uint64_t length)
{
	if (addr == 0 || length > UINT64_MAX - addr)
		return -EFAULT;
	return 0;
}

static int sr_xlate_virt(struct sr_mr_dev *d, const struct sr_mr_src *src, uint32_t access,
			 struct sr_xlate_built *x)
{
	uint64_t addr = (uint64_t)(uintptr_t)src->virt.addr;
	uint64_t length = src->virt.length;
	bool odp = (access & SR_ACCESS_ON_DEMAND) != 0;
	int rc;

	if (odp && sr_odp_is_implicit_(addr, length)) {
		/* Implicit ODP: every address of the process, as itself. */
		if (src->iova != 0)
			return -EINVAL;
		*x = (struct sr_xlate_built){
			.kind = SR_KIND_MR_ODP,
			.iova = 0,
			.length = UINT64_MAX,
			.host = 0,
		};
		return 0;
	}
	rc = sr_xlate_check_size(d, length);
	if (rc == 0)
		rc = sr_xlate_check_buffer(addr, length);
	if (rc == 0)
		rc = sr_xlate_check_iova(src->iova, length, access, UINT32_MAX);
	if (rc != 0)
		return rc;
	*x = (struct sr_xlate_built){
		.kind = odp ? SR_KIND_MR_ODP : SR_KIND_MR_VIRT,
		.iova = (access & SR_ACCESS_ZERO_BASED) ? 0 : src->iova,
		.length = length,
		.host = addr,
	};
	return 0;
}

static int sr_xlate_pages(struct sr_mr_dev *d, const struct sr_mr_src *src, uint32_t access,
			  struct sr_xlate_built *x)
{
	const struct sr_page_list *pl = &src->pages;
	_Atomic uint64_t *arr;
	uint64_t bytes;
	int rc;

	if (pl->npages == 0 || pl->pages == NULL || pl->fbo >= SR_PAGE_SIZE)
		return -EINVAL;
	rc = sr_xlate_check_size(d, pl->length);
	if (rc != 0)
		return rc;
	/* Exactly the pages fbo + length touches: whole interior pages. */
	if (((pl->fbo + pl->length + SR_PAGE_MASK) >> SR_PAGE_SHIFT) != pl->npages)
		return -EINVAL;
	for (uint32_t i = 0; i < pl->npages; i++) {
		if (pl->pages[i] & SR_PAGE_MASK)
			return -EINVAL;
		rc = sr_xlate_check_buffer(pl->pages[i], SR_PAGE_SIZE);
		if (rc != 0)
			return rc;
	}
	rc = sr_xlate_check_iova(src->iova, pl->length, access, pl->fbo);
	if (rc != 0)
		return rc;

	bytes = (uint64_t)pl->npages * sizeof(*arr);
	arr = sr_xlate_alloc(d, bytes);
	if (arr == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < pl->npages; i++)
		SR_ST(arr[i], pl->pages[i]);
	*x = (struct sr_xlate_built){
		.kind = SR_KIND_MR_PAGES,
		.iova = (access & SR_ACCESS_ZERO_BASED) ? 0 : src->iova,
		.length = pl->length,
		.host = (uint64_t)(uintptr_t)arr,
		.aux = pl->fbo,
		.mem = arr,
		.bytes = bytes,
	};
	return 0;
}

static int sr_xlate_sgl(struct sr_mr_dev *d, const struct sr_mr_src *src, uint32_t access,
			struct sr_xlate_built *x)
{
	const struct sr_sg_elem *sg = src->sgl.elems;
	uint32_t n = src->sgl.n;
	struct sr_extents *ext;
	uint64_t total = 0, bytes;
	uint32_t ne = 0;
	int rc;

	if (sg == NULL || n == 0)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++) {
		if (sg[i].len == 0)
			return -EINVAL;
		rc = sr_xlate_check_buffer(sg[i].addr, sg[i].len);
		if (rc != 0)
			return rc;
		if (i > 0 && (sg[i].addr & SR_PAGE_MASK) != 0)
			return -EINVAL;  /* only the first may start mid-page */
		if (i + 1 < n && ((sg[i].addr + sg[i].len) & SR_PAGE_MASK) != 0)
			return -EINVAL;  /* only the last may end mid-page */
		if (sg[i].len > UINT64_MAX - total)
			return -EINVAL;
		total += sg[i].len;
	}
	rc = sr_xlate_check_size(d, total);
	if (rc == 0)
		rc = sr_xlate_check_iova(src->iova, total, access,
					 (uint32_t)(sg[0].addr & SR_PAGE_MASK));
	if (rc != 0)
		return rc;

	bytes = sizeof(*ext) + (uint64_t)n * sizeof(ext->e[0]);
	ext = sr_xlate_alloc(d, bytes);
	if (ext == NULL)
		return -ENOMEM;
	/* One extent per run of host-contiguous elements. */
	total = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct sr_extent *prev = ne > 0 ? &ext->e[ne - 1] : NULL;

		if (prev != NULL && prev->host + prev->len == sg[i].addr) {
			prev->len += sg[i].len;
		} else {
			ext->e[ne++] = (struct sr_extent){
				.off = total,
				.len = sg[i].len,
				.host = sg[i].addr,
			};
		}
		total += sg[i].len;
	}
	ext->n = ne;
	*x = (struct sr_xlate_built){
		.kind = SR_KIND_MR_SGL,
		.iova = (access & SR_ACCESS_ZERO_BASED) ? 0 : src->iova,
		.length = total,
		.host = (uint64_t)(uintptr_t)ext,
		.mem = ext,
		.bytes = bytes,
	};
	return 0;
}

int sr_xlate_build(struct sr_mr_dev *d, const struct sr_mr_src *src, uint32_t access,
		   struct sr_xlate_built *out)
{
	int rc = sr_access_check_reg(access);

	if (rc != 0)
		return rc;
	/* On demand: a virtual buffer only (what ibv_reg_mr describes). */
	if ((access & SR_ACCESS_ON_DEMAND) && src->kind != SR_MR_SRC_VIRT)
		return -EINVAL;
	switch (src->kind) {
	case SR_MR_SRC_VIRT:
		return sr_xlate_virt(d, src, access, out);
	case SR_MR_SRC_PAGES:
		return sr_xlate_pages(d, src, access, out);
	case SR_MR_SRC_SGL:
		return sr_xlate_sgl(d, src, access, out);
	}
	return -EINVAL;
}

void sr_xlate_install(struct sr_mr_slot *s, const struct sr_xlate_built *x, uint32_t access)
{
	SR_ST(s->access, access);
	SR_ST(s->iova, x->iova);
	SR_ST(s->length, x->length);
	SR_ST(s->host, x->host);
	SR_ST(s->aux, x->aux);
	s->xlate_mem = x->mem;
	s->xlate_bytes = x->bytes;
}
