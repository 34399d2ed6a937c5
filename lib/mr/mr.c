/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.c — memory-region objects and normal registrations: create, register
 * (virtual buffer, page list, SG list), the DMA MR, re-registration,
 * deregistration, destroy, and the token accessors.
 *
 * One MR object holds one registration at a time (ND2): register moves an
 * empty object to VALID with a new key byte; deregister moves it back and
 * waits for the data path's references before the memory is given back.
 */
#include <endian.h>
#include <errno.h>

#include "mr/mr_priv.h"

#define SR_KIND_NORMAL_MASK                                                  \
	(SR_KIND_BIT_(MR_VIRT) | SR_KIND_BIT_(MR_PAGES) | SR_KIND_BIT_(MR_SGL) | \
	 SR_KIND_BIT_(MR_ODP))

static bool sr_kind_is_(unsigned kind, uint32_t mask)
{
	return ((1u << kind) & mask) != 0;
}

struct sr_mr *sr_mr_create(struct sr_pd *pd, bool fast_register)
{
	struct sr_mr_slot *s;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	s = sr_slot_alloc(pd->dev, fast_register ? SR_KIND_MR_FRMR : SR_KIND_MR_EMPTY);
	if (s == NULL)
		return NULL;
	sr_pd_get(pd);
	s->owner = pd;
	SR_ST(s->pd, pd);
	return sr_slot_mr_(s);
}

/* -EPERM for objects that never take a normal registration. */
static int sr_mr_check_empty(uint64_t w)
{
	unsigned kind = SR_WORD_KIND(w);

	if (kind == SR_KIND_MR_EMPTY)
		return 0;
	if (sr_kind_is_(kind, SR_KIND_NORMAL_MASK))
		return -EBUSY;
	return -EPERM;
}

int sr_mr_register(struct sr_mr *mr, const struct sr_mr_src *src, uint32_t access)
{
	struct sr_mr_slot *s = sr_mr_slot_(mr);
	struct sr_xlate_built x;
	int rc;

	if (mr == NULL || src == NULL)
		return -EINVAL;
	rc = sr_mr_check_empty(sr_slot_word_(s));
	if (rc != 0)
		return rc;
	rc = sr_xlate_build(s->dev, src, access, &x);
	if (rc != 0)
		return rc;

	sr_slot_lock(s);
	rc = sr_mr_check_empty(sr_slot_word_(s));
	if (rc != 0)
		goto out_unlock_free;
	sr_slot_hide(s);
	sr_xlate_install(s, &x, access);
	sr_slot_set(s, sr_slot_next_key_(s), x.kind, SR_SLOT_VALID);
	sr_slot_unlock(s);
	return 0;

out_unlock_free:
	sr_slot_unlock(s);
	sr_xlate_free(s->dev, x.mem, x.bytes);
	return rc;
}

int sr_mr_register_virt(struct sr_mr *mr, void *addr, uint64_t length, uint64_t iova,
			uint32_t access)
{
	struct sr_mr_src src = {
		.kind = SR_MR_SRC_VIRT,
		.iova = iova,
		.virt = { .addr = addr, .length = length },
	};

	return sr_mr_register(mr, &src, access);
}

int sr_mr_register_pages(struct sr_mr *mr, const struct sr_page_list *pl, uint64_t iova,
			 uint32_t access)
{
	struct sr_mr_src src = { .kind = SR_MR_SRC_PAGES, .iova = iova };

	if (pl == NULL)
		return -EINVAL;
	src.pages = *pl;
	return sr_mr_register(mr, &src, access);
}

int sr_mr_register_sgl(struct sr_mr *mr, const struct sr_sg_elem *elems, uint32_t n,
		       uint64_t iova, uint32_t access)
{
	struct sr_mr_src src = {
		.kind = SR_MR_SRC_SGL,
		.iova = iova,
		.sgl = { .elems = elems, .n = n },
	};

	return sr_mr_register(mr, &src, access);
}

/*
 * Take the registration away: word -> (new_kind, FREE), wait for the
 * references, free the translation.  allowed: kinds this call may undo.
 */
static int sr_mr_unregister(struct sr_mr_slot *s, unsigned new_kind, uint32_t allowed)
{
	uint64_t w;
	void *mem;
	uint64_t bytes;

	sr_slot_lock(s);
	w = sr_slot_word_(s);
	if (!sr_kind_is_(SR_WORD_KIND(w), allowed))
		goto out_unlock_perm;
	if (s->nbound != 0 || SR_WORD_STATE(w) == SR_SLOT_BUSY)
		goto out_unlock_busy;
	sr_slot_set(s, SR_WORD_KEY(w), new_kind, SR_SLOT_FREE);
	mem = s->xlate_mem;
	bytes = s->xlate_bytes;
	s->xlate_mem = NULL;
	s->xlate_bytes = 0;
	s->cap_pages = 0;
	sr_slot_unlock(s);

	sr_slot_wait_idle(s);
	sr_xlate_free(s->dev, mem, bytes);
	return 0;

out_unlock_busy:
	sr_slot_unlock(s);
	return -EBUSY;
out_unlock_perm:
	sr_slot_unlock(s);
	return -EPERM;
}

int sr_mr_deregister(struct sr_mr *mr)
{
	if (mr == NULL)
		return -EINVAL;
	return sr_mr_unregister(sr_mr_slot_(mr), SR_KIND_MR_EMPTY,
				SR_KIND_NORMAL_MASK | SR_KIND_BIT_(MR_EMPTY));
}

int sr_mr_destroy(struct sr_mr *mr)
{
	struct sr_mr_slot *s = sr_mr_slot_(mr);
	struct sr_pd *pd;
	int rc;

	if (mr == NULL)
		return 0;
	rc = sr_mr_unregister(s, SR_KIND_NONE,
			      SR_KIND_NORMAL_MASK | SR_KIND_BIT_(MR_EMPTY) |
			      SR_KIND_BIT_(MR_FRMR) | SR_KIND_BIT_(MR_DMA));
	if (rc != 0)
		return rc;
	pd = s->owner;
	sr_slot_free(s);
	sr_pd_put(pd);
	return 0;
}

int sr_mr_dereg(struct sr_mr *mr)
{
	return sr_mr_destroy(mr);
}

struct sr_mr *sr_mr_reg(struct sr_pd *pd, const struct sr_mr_src *src, uint32_t access)
{
	struct sr_mr *mr = sr_mr_create(pd, false);
	int rc;

	if (mr == NULL)
		return NULL;
	rc = sr_mr_register(mr, src, access);
	if (rc != 0) {
		sr_mr_destroy(mr);
		errno = -rc;
		return NULL;
	}
	return mr;
}

struct sr_mr *sr_mr_reg_virt(struct sr_pd *pd, void *addr, uint64_t length, uint64_t iova,
			     uint32_t access)
{
	struct sr_mr_src src = {
		.kind = SR_MR_SRC_VIRT,
		.iova = iova,
		.virt = { .addr = addr, .length = length },
	};

	return sr_mr_reg(pd, &src, access);
}

struct sr_mr *sr_mr_get_dma(struct sr_pd *pd, uint32_t access)
{
	struct sr_mr_slot *s;

	if (pd == NULL || (access & ~(SR_ACCESS_LOCAL_WRITE | SR_ACCESS_READ_SINK)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	s = sr_slot_alloc(pd->dev, SR_KIND_MR_DMA);
	if (s == NULL)
		return NULL;
	sr_pd_get(pd);
	s->owner = pd;
	SR_ST(s->pd, pd);
	SR_ST(s->access, access);
	SR_ST(s->length, UINT64_MAX);
	sr_slot_set(s, sr_slot_next_key_(s), SR_KIND_MR_DMA, SR_SLOT_VALID);
	return sr_slot_mr_(s);
}

/* ---- re-registration ---- */

/* Under the slot lock: may this MR be re-registered now? */
static int sr_mr_rereg_allowed(const struct sr_mr_slot *s, uint64_t w)
{
	if (!sr_kind_is_(SR_WORD_KIND(w), SR_KIND_NORMAL_MASK) || SR_WORD_STATE(w) == SR_SLOT_FREE)
		return -EPERM;
	if (s->nbound != 0 || SR_WORD_STATE(w) == SR_SLOT_BUSY)
		return -EBUSY;
	return 0;
}

/*
 * The kind a registration of this kind becomes when only its access
 * changes: a virtual buffer turns on-demand and back; a page list or SG
 * list cannot be on demand, nor can an implicit region become a normal
 * one (it would be a map of every address, pinned to nothing).  -1: not
 * allowed.
 */
static int sr_mr_rereg_kind(const struct sr_mr_slot *s, unsigned kind, uint32_t access)
{
	bool odp = (access & SR_ACCESS_ON_DEMAND) != 0;

	if (kind == SR_KIND_MR_VIRT || kind == SR_KIND_MR_ODP) {
		if (!odp && kind == SR_KIND_MR_ODP &&
		    sr_odp_is_implicit_(SR_LD(s->host), SR_LD(s->length)))
			return -1;
		return odp ? SR_KIND_MR_ODP : SR_KIND_MR_VIRT;
	}
	return odp ? -1 : (int)kind;
}

int sr_mr_rereg(struct sr_mr *mr, uint32_t flags, struct sr_pd *pd,
		const struct sr_mr_src *src, uint32_t access)
{
	const uint32_t all = SR_REREG_TRANS | SR_REREG_PD | SR_REREG_ACCESS |
			     SR_REREG_KEEP_KEYS;
	struct sr_mr_slot *s = sr_mr_slot_(mr);
	struct sr_xlate_built x = { .mem = NULL };
	struct sr_pd *old_pd;
	uint32_t old_access;
	void *old_mem;
	uint64_t old_bytes, w;
	unsigned kind;
	int rc;

	if (mr == NULL || (flags & ~SR_REREG_KEEP_KEYS) == 0 ||
	    (flags & ~all) != 0)
		return -EINVAL;

	sr_slot_lock(s);
	w = sr_slot_word_(s);
	rc = sr_mr_rereg_allowed(s, w);
	old_access = SR_LD(s->access);
	old_pd = s->owner;
	sr_slot_unlock(s);
	if (rc != 0)
		return rc;

	if (!(flags & SR_REREG_PD))
		pd = old_pd;
	else if (pd == NULL || pd->dev != s->dev)
		return -EINVAL;
	if (!(flags & SR_REREG_ACCESS))
		access = old_access;
	rc = sr_access_check_reg(access);
	if (rc != 0)
		return rc;
	if (flags & SR_REREG_TRANS) {
		if (src == NULL)
			return -EINVAL;
		rc = sr_xlate_build(s->dev, src, access, &x);
		if (rc != 0)
			return rc;
	} else if ((access ^ old_access) & SR_ACCESS_ZERO_BASED) {
		return -EINVAL;
	}

	/* Hide the registration, let the references drain, then swap. */
	sr_slot_lock(s);
	w = sr_slot_word_(s);
	rc = sr_mr_rereg_allowed(s, w);
	if (rc == 0 && !(flags & SR_REREG_TRANS) &&
	    sr_mr_rereg_kind(s, SR_WORD_KIND(w), access) < 0)
		rc = -EINVAL;
	if (rc != 0)
		goto out_unlock_free;
	sr_slot_set(s, SR_WORD_KEY(w), SR_WORD_KIND(w), SR_SLOT_BUSY);
	sr_slot_unlock(s);
	sr_slot_wait_idle(s);

	sr_slot_lock(s);
	atomic_thread_fence(memory_order_release);
	old_mem = NULL;
	old_bytes = 0;
	kind = SR_WORD_KIND(w);
	if (flags & SR_REREG_TRANS) {
		old_mem = s->xlate_mem;
		old_bytes = s->xlate_bytes;
		sr_xlate_install(s, &x, access);
		kind = x.kind;
	} else {
		SR_ST(s->access, access);
		kind = (unsigned)sr_mr_rereg_kind(s, kind, access);
	}
	if (pd != old_pd) {
		sr_pd_get(pd);
		s->owner = pd;
		SR_ST(s->pd, pd);
	}
	sr_slot_set(s, (flags & SR_REREG_KEEP_KEYS) ? SR_WORD_KEY(w) :
		    sr_slot_next_key_(s), kind, SR_SLOT_VALID);
	sr_slot_unlock(s);

	if (pd != old_pd)
		sr_pd_put(old_pd);
	sr_xlate_free(s->dev, old_mem, old_bytes);
	return 0;

out_unlock_free:
	sr_slot_unlock(s);
	sr_xlate_free(s->dev, x.mem, x.bytes);
	return rc;
}

/* ---- accessors ---- */

uint32_t sr_mr_lkey(const struct sr_mr *mr)
{
	return SR_WORD_KEY(sr_slot_word_(sr_mr_slot_(mr)));
}

uint32_t sr_mr_rkey(const struct sr_mr *mr)
{
	const struct sr_mr_slot *s = sr_mr_slot_(mr);
	uint64_t w = sr_slot_word_(s);
	unsigned kind = SR_WORD_KIND(w);

	if (kind == SR_KIND_MR_FRMR)
		return s->frmr_remote ? SR_WORD_KEY(w) : 0;
	if (sr_kind_is_(kind, SR_KIND_NORMAL_MASK) && (SR_LD(s->access) & SR_ACCESS_REMOTE))
		return SR_WORD_KEY(w);
	return 0;
}

uint32_t sr_mr_rkey_be(const struct sr_mr *mr)
{
	return htobe32(sr_mr_rkey(mr));
}

uint32_t sr_mr_access(const struct sr_mr *mr)
{
	return SR_LD(sr_mr_slot_(mr)->access);
}

uint64_t sr_mr_iova(const struct sr_mr *mr)
{
	return SR_LD(sr_mr_slot_(mr)->iova);
}

uint64_t sr_mr_length(const struct sr_mr *mr)
{
	return SR_LD(sr_mr_slot_(mr)->length);
}

struct sr_pd *sr_mr_pd(const struct sr_mr *mr)
{
	return sr_mr_slot_(mr)->owner;
}

bool sr_mr_is_valid(const struct sr_mr *mr)
{
	return SR_WORD_STATE(sr_slot_word_(sr_mr_slot_(mr))) == SR_SLOT_VALID;
}

bool sr_mr_is_odp(const struct sr_mr *mr)
{
	return SR_WORD_KIND(sr_slot_word_(sr_mr_slot_(mr))) == SR_KIND_MR_ODP;
}

bool sr_mr_is_implicit(const struct sr_mr *mr)
{
	const struct sr_mr_slot *s = sr_mr_slot_(mr);

	return sr_mr_is_odp(mr) && sr_odp_is_implicit_(SR_LD(s->host), SR_LD(s->length));
}

bool sr_mr_is_fast_register(const struct sr_mr *mr)
{
	return SR_WORD_KIND(sr_slot_word_(sr_mr_slot_(mr))) == SR_KIND_MR_FRMR;
}

uint32_t sr_mr_windows(const struct sr_mr *mr)
{
	struct sr_mr_slot *s = sr_mr_slot_(mr);
	uint32_t n;

	sr_slot_lock(s);
	n = s->nbound;
	sr_slot_unlock(s);
	return n;
}

bool sr_mr_idle(const struct sr_mr *mr)
{
	const struct sr_mr_slot *s = sr_mr_slot_(mr);

	return atomic_load_explicit(&s->refs, memory_order_acquire) == 0 &&
	       sr_mr_hazards_on_(s, s + 1) == 0;
}
