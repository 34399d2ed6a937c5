/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * frmr.c — the FREE <-> VALID engine: fast-register MR initialisation
 * (NdkInitializeFastRegisterMr), fast-register (NdkFastRegister,
 * IB_WR_REG_MR) and invalidation, local and remote, of fast-register MRs
 * and type-2 windows.
 *
 * Fast-register and invalidate run on the transport thread per work
 * request, so neither allocates nor waits: the page array is allocated
 * once by init and rewritten in place, and the slot word flips between
 * FREE and VALID under the slot lock.  A lookup that took its reference
 * before an invalidation may finish its copy (as DMA in flight would);
 * it can never reach freed memory, because only init and destroy free the
 * array and both wait for references first.
 */
#include <errno.h>
#include <string.h>

#include "mr/mr_priv.h"

/* Allowed in a fast-register request: everything but zero-based. */
#define SR_FRMR_ACCESS (SR_ACCESS_ALL & ~SR_ACCESS_ZERO_BASED)

uint32_t sr_frmr_max_pages(const struct sr_dev_limits *l)
{
	uint64_t span = (l->max_registration_size >> SR_PAGE_SHIFT) + 1;
	uint64_t n = span > l->frmr_page_count ? span : l->frmr_page_count;

	return n < SR_FRMR_MAX_PAGES ? (uint32_t)n : SR_FRMR_MAX_PAGES;
}

int sr_frmr_init(struct sr_mr *mr, uint32_t page_count, bool remote_access)
{
	struct sr_mr_slot *s = sr_mr_slot_(mr);
	_Atomic uint64_t *arr, *old;
	uint64_t bytes, old_bytes, w;

	if (mr == NULL || page_count == 0)
		return -EINVAL;
	if (page_count > sr_frmr_max_pages(&s->dev->limits))
		return -E2BIG;

	bytes = (uint64_t)page_count * sizeof(*arr);
	sr_slot_lock(s);
	w = sr_slot_word_(s);
	if (SR_WORD_KIND(w) != SR_KIND_MR_FRMR || SR_WORD_STATE(w) == SR_SLOT_VALID)
		goto out_unlock_perm;
	if (SR_WORD_STATE(w) == SR_SLOT_BUSY)
		goto out_unlock_busy;
	if (s->cap_pages == page_count) {
		s->frmr_remote = remote_access;
		sr_slot_unlock(s);
		return 0;
	}
	/* Keep writers out while stale references drain from the old array. */
	sr_slot_set(s, SR_WORD_KEY(w), SR_KIND_MR_FRMR, SR_SLOT_BUSY);
	sr_slot_unlock(s);

	arr = sr_xlate_alloc(s->dev, bytes);
	sr_slot_wait_idle(s);

	sr_slot_lock(s);
	w = sr_slot_word_(s);
	if (arr != NULL) {
		old = s->xlate_mem;
		old_bytes = s->xlate_bytes;
		s->xlate_mem = arr;
		s->xlate_bytes = bytes;
		s->cap_pages = page_count;
		s->frmr_remote = remote_access;
		SR_ST(s->host, (uint64_t)(uintptr_t)arr);
	}
	sr_slot_set(s, SR_WORD_KEY(w), SR_KIND_MR_FRMR, SR_SLOT_FREE);
	sr_slot_unlock(s);
	if (arr == NULL)
		return -ENOMEM;
	sr_xlate_free(s->dev, old, old_bytes);
	return 0;

out_unlock_busy:
	sr_slot_unlock(s);
	return -EBUSY;
out_unlock_perm:
	sr_slot_unlock(s);
	return -EPERM;
}

/*
 * The page array, branch-free: any misaligned page is -EINVAL, else any
 * NULL or wrapping one -EFAULT (p - 1 >= UINT64_MAX - SR_PAGE_SIZE catches
 * both).  Eight independent lanes, so that -O2 vectorises it too.
 */
static int sr_frmr_check_pages(const uint64_t *pages, uint32_t n)
{
	uint64_t mis[8] = { 0 }, bad[8] = { 0 }, m = 0, b = 0;
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		for (unsigned j = 0; j < 8; j++) {
			mis[j] |= pages[i + j];
			bad[j] |= (uint64_t)(pages[i + j] - 1 >= UINT64_MAX - SR_PAGE_SIZE);
		}
	}
	for (unsigned j = 0; j < 8; j++) {
		m |= mis[j];
		b |= bad[j];
	}
	for (; i < n; i++) {
		m |= pages[i];
		b |= (uint64_t)(pages[i] - 1 >= UINT64_MAX - SR_PAGE_SIZE);
	}
	if (m & SR_PAGE_MASK)
		return -EINVAL;
	return b ? -EFAULT : 0;
}

/* The checks of the request's own parameters (sr_frmr_check_params). */
static int sr_frmr_check_req(const struct sr_mr_slot *s, const struct sr_frmr_req *req)
{
	uint64_t room;

	if ((req->access & ~SR_FRMR_ACCESS) != 0 ||
	    ((req->access & SR_ACCESS_NEEDS_LOCAL_WRITE) && !(req->access & SR_ACCESS_LOCAL_WRITE)))
		return -EINVAL;
	if ((req->access & SR_ACCESS_REMOTE) && !s->frmr_remote)
		return -EACCES;
	if (req->npages == 0 || req->npages > s->cap_pages || req->pages == NULL ||
	    req->fbo >= SR_PAGE_SIZE)
		return -EINVAL;
	room = ((uint64_t)req->npages << SR_PAGE_SHIFT) - req->fbo;
	if (req->length == 0 || req->length > room ||
	    req->length > s->dev->limits.max_registration_size)
		return -EINVAL;
	if ((req->iova & SR_PAGE_MASK) != req->fbo || req->length > UINT64_MAX - req->iova)
		return -EINVAL;
	return sr_frmr_check_pages(req->pages, req->npages);
}

/* The request's checks, slot locked, in the order mr.h documents. */
static int sr_frmr_check(const struct sr_mr_slot *s, uint64_t w, const struct sr_frmr_req *req)
{
	uint32_t idx = sr_slot_index_(s);

	if (SR_WORD_KIND(w) != SR_KIND_MR_FRMR || s->cap_pages == 0 ||
	    SR_WORD_STATE(w) == SR_SLOT_VALID)
		return -EPERM;
	if (SR_WORD_STATE(w) == SR_SLOT_BUSY)
		return -EBUSY;
	if (req->pd != s->owner)
		return -EACCES;
	if ((req->key >> 8) != idx || ((req->key ^ SR_WORD_KEY(w)) & 0xffu) == 0)
		return -EINVAL;
	return sr_frmr_check_req(s, req);
}

int sr_frmr_check_params(const struct sr_mr *mr, const struct sr_frmr_req *req)
{
	const struct sr_mr_slot *s;

	if (mr == NULL || req == NULL)
		return -EINVAL;
	s = sr_mr_slot_(mr);
	if (SR_WORD_KIND(sr_slot_word_(s)) != SR_KIND_MR_FRMR || s->cap_pages == 0)
		return -EPERM;
	if (req->pd != s->owner)
		return -EACCES;
	return sr_frmr_check_req(s, req);
}

int sr_frmr_fast_register(struct sr_mr_dev *d, struct sr_mr *mr, const struct sr_frmr_req *req)
{
	struct sr_mr_slot *s = sr_mr_slot_(mr);
	_Atomic uint64_t *arr;
	uint64_t w;
	int rc;

	if (d == NULL || mr == NULL || req == NULL || s->dev != d)
		return -EINVAL;

	sr_slot_lock(s);
	w = sr_slot_word_(s);
	rc = sr_frmr_check(s, w, req);
	if (rc != 0) {
		sr_slot_unlock(s);
		return rc;
	}
	/* FREE: no new lookup reads these fields; order them after the
	 * invalidation for lookups that raced it (seqlock release). */
	atomic_thread_fence(memory_order_release);
	arr = s->xlate_mem;
	/*
	 * The one plain write to data the data path reads atomically: a
	 * vector copy is 6x faster than element stores at 256 pages.  Only a
	 * reference taken before the invalidation (an operation left in
	 * flight across invalidate + fast-register, undefined by IBTA) can
	 * read the array now, and it reads whole aligned 8-byte entries of
	 * either registration, never memory that was freed.
	 */
	memcpy((void *)arr, req->pages, (size_t)req->npages * sizeof(*arr));
	SR_ST(s->access, req->access);
	SR_ST(s->iova, req->iova);
	SR_ST(s->length, req->length);
	SR_ST(s->aux, req->fbo);
	atomic_store_explicit(&s->word,
			      SR_WORD(req->key, SR_WORD_GEN(w) + 1, SR_KIND_MR_FRMR, SR_SLOT_VALID),
			      memory_order_release);
	sr_slot_unlock(s);
	return 0;
}

/* The invalidation's checks for an MR or window slot, slot locked. */
static int sr_inval_check(const struct sr_mr_slot *s, uint64_t w, uint32_t key, bool remote,
			  const struct sr_pd *pd)
{
	unsigned kind = SR_WORD_KIND(w);
	uint32_t bit = 1u << kind;

	if (SR_WORD_KEY(w) != key || kind == SR_KIND_NONE)
		return -EINVAL;
	if (remote && (!(bit & SR_KIND_RKEY_MASK) ||
		       (kind == SR_KIND_MR_FRMR && !s->frmr_remote)))
		return -EINVAL;
	if (!(bit & SR_KIND_INVAL_MASK))
		return -EPERM;
	if (pd != s->owner)
		return -EACCES;
	return 0;
}

int sr_mr_invalidate_qp(struct sr_mr_dev *d, uint32_t key, bool remote,
			const struct sr_pd *pd, uint32_t qpn)
{
	uint32_t idx = key >> 8;
	struct sr_mr_slot *s;
	uint64_t w;
	int rc;

	if (d == NULL || pd == NULL || idx == 0 || idx >= d->nslots)
		return -EINVAL;
	s = &d->slots[idx];

	sr_slot_lock(s);
	w = sr_slot_word_(s);
	rc = sr_inval_check(s, w, key, remote, pd);
	if (rc != 0)
		goto out_unlock;
	if (SR_WORD_KIND(w) == SR_KIND_MW2) {
		rc = sr_mw_invalidate_locked_(s, pd, qpn);
		goto out_unlock;
	}
	if (SR_WORD_STATE(w) == SR_SLOT_BUSY || s->nbound != 0) {
		rc = -EBUSY;
		goto out_unlock;
	}
	if (SR_WORD_STATE(w) == SR_SLOT_VALID)
		atomic_store_explicit(&s->word,
				      SR_WORD(key, SR_WORD_GEN(w) + 1, SR_KIND_MR_FRMR, SR_SLOT_FREE),
				      memory_order_release);
out_unlock:
	sr_slot_unlock(s);
	return rc;
}

int sr_mr_invalidate(struct sr_mr_dev *d, uint32_t key, bool remote, const struct sr_pd *pd)
{
	return sr_mr_invalidate_qp(d, key, remote, pd, SR_QPN_ANY);
}
