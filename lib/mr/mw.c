/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mw.c — memory windows, type 1 (bound by a verb, rebindable) and type 2
 * (bound by a work request to one QP, invalidatable), with the IBTA bind
 * rules: PD ownership, the region's MW_BIND right, remote write/atomic
 * only over local write, bounds inside the region, MaxWindowSize.
 *
 * A bound window counts on its region (nbound), which refuses
 * invalidation, deregistration and re-registration while any remain.
 * Lookups never hold a window: they hold the region, whose key the window
 * recorded at bind time, so unbinding never waits.
 */
#include <endian.h>
#include <errno.h>

#include "mr/mr_priv.h"

#define SR_MW_ACCESS (SR_ACCESS_REMOTE | SR_ACCESS_ZERO_BASED)
#define SR_MW_TARGET_MASK                                                    \
	(SR_KIND_BIT_(MR_VIRT) | SR_KIND_BIT_(MR_PAGES) | SR_KIND_BIT_(MR_SGL) | \
	 SR_KIND_BIT_(MR_FRMR) | SR_KIND_BIT_(MR_ODP))

struct sr_mw *sr_mw_alloc(struct sr_pd *pd, enum sr_mw_type type)
{
	struct sr_mr_slot *s;

	if (pd == NULL || (type != SR_MW_TYPE_1 && type != SR_MW_TYPE_2)) {
		errno = EINVAL;
		return NULL;
	}
	s = sr_slot_alloc(pd->dev, type == SR_MW_TYPE_1 ? SR_KIND_MW1 : SR_KIND_MW2);
	if (s == NULL)
		return NULL;
	sr_pd_get(pd);
	s->owner = pd;
	SR_ST(s->pd, pd);
	return sr_slot_mw_(s);
}

void sr_mr_unbind_window_(struct sr_mr_dev *d, uint32_t mr_key)
{
	struct sr_mr_slot *ms = &d->slots[mr_key >> 8];

	sr_slot_lock(ms);
	ms->nbound--;
	sr_slot_unlock(ms);
}

int sr_mw_invalidate_locked_(struct sr_mr_slot *s, const struct sr_pd *pd, uint32_t qpn)
{
	uint64_t w = sr_slot_word_(s);
	uint32_t mr_key;

	(void)pd;  /* checked by the caller */
	if (SR_WORD_STATE(w) != SR_SLOT_VALID)
		return 0;
	if (qpn != SR_QPN_ANY && SR_LD(s->qpn) != qpn)
		return -EACCES;
	mr_key = SR_LD(s->aux);
	sr_slot_set(s, SR_WORD_KEY(w), SR_KIND_MW2, SR_SLOT_FREE);
	sr_mr_unbind_window_(s->dev, mr_key);
	return 0;
}

int sr_mw_dealloc(struct sr_mw *mw)
{
	struct sr_mr_slot *s = sr_mw_slot_(mw);
	uint32_t bound_key = 0;
	struct sr_pd *pd;
	uint64_t w;

	if (mw == NULL)
		return 0;
	sr_slot_lock(s);
	w = sr_slot_word_(s);
	if (SR_WORD_STATE(w) == SR_SLOT_VALID)
		bound_key = SR_LD(s->aux);
	sr_slot_set(s, SR_WORD_KEY(w), SR_WORD_KIND(w), SR_SLOT_FREE);
	sr_slot_unlock(s);
	if (bound_key != 0)
		sr_mr_unbind_window_(s->dev, bound_key);
	pd = s->owner;
	sr_slot_free(s);
	sr_pd_put(pd);
	return 0;
}

/* Checks that need only the request and the window (slot locked). */
static int sr_mw_bind_check_window(const struct sr_mr_slot *s, uint64_t w,
				   const struct sr_mw_bind *b, bool unbind)
{
	bool type2 = SR_WORD_KIND(w) == SR_KIND_MW2;

	if ((b->access & ~SR_MW_ACCESS) != 0)
		return -EINVAL;
	if (type2 && (b->mr == NULL || b->length == 0))
		return -EINVAL;
	if (!type2 && !unbind && (b->access & SR_ACCESS_ZERO_BASED))
		return -EINVAL;
	if (b->mr != NULL && sr_mr_slot_(b->mr)->dev != s->dev)
		return -EINVAL;
	if (type2 && SR_WORD_STATE(w) != SR_SLOT_FREE)
		return -EPERM;
	if (type2 && ((b->key >> 8) != sr_slot_index_(s) ||
		      ((b->key ^ SR_WORD_KEY(w)) & 0xffu) == 0))
		return -EINVAL;
	if (b->pd != s->owner)
		return -EACCES;
	return 0;
}

/* Checks against the region (its slot locked). */
static int sr_mw_bind_check_mr(const struct sr_mr_dev *d, const struct sr_mr_slot *ms,
			       uint64_t mw_word, const struct sr_mw_bind *b)
{
	uint32_t acc = SR_LD(ms->access);
	uint64_t base = SR_LD(ms->iova), size = SR_LD(ms->length);

	if (ms->owner != b->pd)
		return -EACCES;
	if (SR_WORD_STATE(mw_word) != SR_SLOT_VALID ||
	    !((1u << SR_WORD_KIND(mw_word)) & SR_MW_TARGET_MASK))
		return -EPERM;
	if (!(acc & SR_ACCESS_MW_BIND))
		return -EACCES;
	if ((b->access & SR_ACCESS_NEEDS_LOCAL_WRITE) && !(acc & SR_ACCESS_LOCAL_WRITE))
		return -EACCES;
	if (sr_dev_limit_check(&d->limits, SR_LIMIT_ID_max_window_size, b->length) != 0)
		return -EINVAL;
	if (b->length > UINT64_MAX - b->addr || b->addr < base || b->addr - base > size ||
	    b->length > size - (b->addr - base))
		return -EINVAL;
	return 0;
}

int sr_mw_bind_check_params(const struct sr_mw *mw, const struct sr_mw_bind *b)
{
	const struct sr_mr_slot *s, *ms;
	uint64_t mw_word;
	int rc;

	if (mw == NULL || b == NULL)
		return -EINVAL;
	if (b->mr == NULL || b->length == 0)
		return 0;                       /* an unbind */
	s = sr_mw_slot_(mw);
	if ((b->access & ~SR_MW_ACCESS) != 0 ||
	    sr_mr_slot_(b->mr)->dev != s->dev)
		return -EINVAL;
	ms = sr_mr_slot_(b->mr);
	sr_slot_lock((struct sr_mr_slot *)ms);
	mw_word = sr_slot_word_(ms);
	rc = sr_mw_bind_check_mr(s->dev, ms, mw_word, b);
	sr_slot_unlock((struct sr_mr_slot *)ms);
	return rc;
}

int sr_mw_bind(struct sr_mw *mw, const struct sr_mw_bind *b)
{
	struct sr_mr_slot *s = sr_mw_slot_(mw);
	struct sr_mr_slot *ms;
	uint32_t old_key = 0, mr_key, key;
	uint64_t w, mw_word, mr_base;
	bool unbind;
	int rc;

	if (mw == NULL || b == NULL)
		return -EINVAL;
	unbind = b->mr == NULL || b->length == 0;

	sr_slot_lock(s);
	w = sr_slot_word_(s);
	rc = sr_mw_bind_check_window(s, w, b, unbind);
	if (rc != 0)
		goto out_unlock;
	if (SR_WORD_STATE(w) == SR_SLOT_VALID)
		old_key = SR_LD(s->aux);   /* type 1 rebind: drop the old one */

	if (unbind) {
		sr_slot_set(s, sr_slot_next_key_(s), SR_KIND_MW1, SR_SLOT_FREE);
		goto out_unlock_unbind;
	}

	ms = sr_mr_slot_(b->mr);
	sr_slot_lock(ms);
	mw_word = sr_slot_word_(ms);
	rc = sr_mw_bind_check_mr(s->dev, ms, mw_word, b);
	if (rc != 0) {
		sr_slot_unlock(ms);
		goto out_unlock;
	}
	ms->nbound++;
	mr_key = SR_WORD_KEY(mw_word);
	mr_base = SR_LD(ms->iova);
	sr_slot_unlock(ms);

	key = SR_WORD_KIND(w) == SR_KIND_MW2 ? b->key : sr_slot_next_key_(s);
	sr_slot_hide(s);
	SR_ST(s->access, b->access);
	SR_ST(s->iova, (b->access & SR_ACCESS_ZERO_BASED) ? 0 : b->addr);
	SR_ST(s->length, b->length);
	SR_ST(s->host, b->addr - mr_base);
	SR_ST(s->aux, mr_key);
	SR_ST(s->qpn, SR_WORD_KIND(w) == SR_KIND_MW2 ? b->qpn : 0);
	sr_slot_set(s, key, SR_WORD_KIND(w), SR_SLOT_VALID);

out_unlock_unbind:
	sr_slot_unlock(s);
	if (old_key != 0)
		sr_mr_unbind_window_(s->dev, old_key);
	return 0;

out_unlock:
	sr_slot_unlock(s);
	return rc;
}

uint32_t sr_mw_rkey(const struct sr_mw *mw)
{
	return SR_WORD_KEY(sr_slot_word_(sr_mw_slot_(mw)));
}

uint32_t sr_mw_rkey_be(const struct sr_mw *mw)
{
	return htobe32(sr_mw_rkey(mw));
}

enum sr_mw_type sr_mw_type(const struct sr_mw *mw)
{
	return SR_WORD_KIND(sr_slot_word_(sr_mw_slot_(mw))) == SR_KIND_MW2 ? SR_MW_TYPE_2
									   : SR_MW_TYPE_1;
}

bool sr_mw_is_bound(const struct sr_mw *mw)
{
	return SR_WORD_STATE(sr_slot_word_(sr_mw_slot_(mw))) == SR_SLOT_VALID;
}

struct sr_pd *sr_mw_pd(const struct sr_mw *mw)
{
	return sr_mw_slot_(mw)->owner;
}
