/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lookup.c — the data path's out-of-line parts: lookups through memory
 * windows, mapping page-list and SG translations to host segments, and
 * the copies (an on-demand region's through odp.c).  The common case (a
 * region with a linear translation: lookup, map, copy) is inline in
 * lookup.h.
 */
#include "mr/mr_priv.h"

enum sr_mr_err sr_mr_lookup_mw_(struct sr_mr_dev *d, struct sr_mr_slot *s, uint64_t w,
				uint64_t va, uint64_t len, uint32_t need,
				const struct sr_pd *pd, uint32_t qpn, struct sr_mr_ref *ref)
{
	const uint64_t key_bits = w & ~UINT64_C(0xffffffff);
	uint64_t base, size, mr_off;
	uint32_t mr_key;
	enum sr_mr_err err;
	unsigned tries = 0;

	/* The window: a validated snapshot, no reference. */
	for (;;) {
		if (SR_WORD_STATE(w) != SR_SLOT_VALID)
			return SR_MR_E_STATE;

		const struct sr_pd *spd = SR_LD(s->pd);
		uint32_t acc = SR_LD(s->access);
		uint32_t bound_qpn = SR_LD(s->qpn);

		base = SR_LD(s->iova);
		size = SR_LD(s->length);
		mr_off = SR_LD(s->host);
		mr_key = SR_LD(s->aux);
		if (spd != pd || (SR_WORD_KIND(w) == SR_KIND_MW2 && bound_qpn != qpn))
			err = SR_MR_E_PD;
		else
			err = sr_mr_check_(d, acc, need, va, len, base, size);
		atomic_thread_fence(memory_order_acquire);

		uint64_t w2 = atomic_load_explicit(&s->word, memory_order_acquire);

		if (sr_likely(w2 == w))
			break;
		if ((w2 & ~UINT64_C(0xffffffff)) != key_bits ||
		    SR_WORD_KIND(w2) != SR_WORD_KIND(w))
			return SR_MR_E_KEY;
		if (++tries >= SR_LOOKUP_RETRIES)
			return SR_MR_E_STATE;
		w = w2;
	}
	if (err != SR_MR_OK)
		return err;

	/* The region it is bound to: it cannot change while the window is
	 * bound, so a different word means the window went away meanwhile. */
	if ((mr_key >> 8) == 0 || (mr_key >> 8) >= d->nslots)
		return SR_MR_E_STATE;

	struct sr_mr_slot *ms = &d->slots[mr_key >> 8];
	uint64_t mw = atomic_load_explicit(&ms->word, memory_order_acquire);

	if (SR_WORD_KEY(mw) != mr_key || SR_WORD_STATE(mw) != SR_SLOT_VALID)
		return SR_MR_E_STATE;

	uint64_t host = SR_LD(ms->host);
	uint32_t aux = SR_LD(ms->aux);

	_Atomic(struct sr_mr_slot *) *hp = sr_mr_hold_(ms);

	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&ms->word, memory_order_seq_cst) != mw) {
		sr_mr_unhold_(ms, hp);
		return SR_MR_E_STATE;
	}
	ref->slot = ms;
	ref->hazard = hp;
	ref->va = base;
	ref->len = size;
	ref->off = mr_off;
	ref->host = host;
	ref->aux = aux;
	ref->xlate = sr_slot_kind_xlate[SR_WORD_KIND(mw)];
	return SR_MR_OK;
}

/* ---- mapping ---- */

/* Appends pieces, merging host-contiguous ones up to SR_SEG_MAX. */
struct sr_seg_out {
	struct sr_seg *segs;
	unsigned max;
	unsigned n;        /* pieces emitted (may exceed max) */
	bool stop;         /* stop once max pieces are full */
	uint64_t addr;     /* the open piece */
	uint64_t len;
	uint64_t done;     /* bytes in closed pieces that fit in segs */
};

static void sr_seg_close(struct sr_seg_out *o)
{
	if (o->len == 0)
		return;
	if (o->n < o->max) {
		o->segs[o->n].addr = (uint8_t *)(uintptr_t)o->addr;
		o->segs[o->n].len = (uint32_t)o->len;
		o->done += o->len;
	}
	o->n++;
	o->len = 0;
}

/* Add [addr, addr + len); false once the caller may stop. */
static bool sr_seg_add(struct sr_seg_out *o, uint64_t addr, uint64_t len)
{
	while (len > 0) {
		if (o->len != 0 && o->addr + o->len == addr && o->len < SR_SEG_MAX) {
			uint64_t take = SR_SEG_MAX - o->len;

			if (take > len)
				take = len;
			o->len += take;
			addr += take;
			len -= take;
			continue;
		}
		sr_seg_close(o);
		if (o->stop && o->n >= o->max)
			return false;
		o->addr = addr;
		o->len = len < SR_SEG_MAX ? len : SR_SEG_MAX;
		addr += o->len;
		len -= o->len;
	}
	return true;
}

static void sr_map_pages(const struct sr_mr_ref *ref, uint64_t off, uint64_t len,
			 struct sr_seg_out *o)
{
	const _Atomic uint64_t *pages = (const _Atomic uint64_t *)(uintptr_t)ref->host;
	uint64_t idx = ref->aux + off;
	uint64_t pg = idx >> SR_PAGE_SHIFT;
	uint64_t in = idx & SR_PAGE_MASK;

	while (len > 0) {
		uint64_t take = SR_PAGE_SIZE - in;

		if (take > len)
			take = len;
		if (!sr_seg_add(o, SR_LD(pages[pg]) + in, take))
			return;
		len -= take;
		pg++;
		in = 0;
	}
}

static void sr_map_extents(const struct sr_mr_ref *ref, uint64_t off, uint64_t len,
			   struct sr_seg_out *o)
{
	const struct sr_extents *x = (const struct sr_extents *)(uintptr_t)ref->host;
	uint32_t lo = 0, hi = x->n;

	/* The last extent starting at or before off. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (x->e[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	for (uint32_t i = lo; i < x->n && len > 0; i++) {
		uint64_t in = off - x->e[i].off;
		uint64_t take = x->e[i].len - in;

		if (take > len)
			take = len;
		if (!sr_seg_add(o, x->e[i].host + in, take))
			return;
		off += take;
		len -= take;
	}
}

static void sr_map(const struct sr_mr_ref *ref, uint64_t off, uint64_t len, struct sr_seg_out *o)
{
	switch (ref->xlate) {
	case SR_XLATE_LINEAR:
		sr_seg_add(o, ref->host + off, len);
		break;
	case SR_XLATE_PAGES:
		sr_map_pages(ref, off, len, o);
		break;
	case SR_XLATE_EXTENTS:
		sr_map_extents(ref, off, len, o);
		break;
	default:
		break;
	}
	if (!o->stop || o->n < o->max)
		sr_seg_close(o);
}

unsigned sr_mr_ref_map_slow_(const struct sr_mr_ref *ref, uint64_t off, uint64_t len,
			     struct sr_seg *segs, unsigned max)
{
	struct sr_seg_out o = { .segs = segs, .max = max };

	sr_map(ref, off, len, &o);
	return o.n;
}

/* ---- copies ---- */

#define SR_COPY_SEGS 16

/* Visit the pieces of [va, va + len) in order, a batch at a time. */
static enum sr_mr_err sr_copy(const struct sr_mr_ref *ref, uint64_t va, uint8_t *buf,
			      uint64_t len, bool to_mr)
{
	if (len == 0)
		return SR_MR_OK;
	if (ref->slot == NULL || va < ref->va || va - ref->va > ref->len ||
	    len > ref->len - (va - ref->va))
		return SR_MR_E_BOUNDS;

	uint64_t off = ref->off + (va - ref->va);

	if (sr_likely(ref->xlate == SR_XLATE_LINEAR)) {
		uint8_t *host = (uint8_t *)(uintptr_t)(ref->host + off);

		if (to_mr)
			memcpy(host, buf, len);
		else
			memcpy(buf, host, len);
		return SR_MR_OK;
	}
	if (ref->xlate == SR_XLATE_ODP)
		return sr_odp_copy_(ref->host + off, buf, len, to_mr);
	while (len > 0) {
		struct sr_seg segs[SR_COPY_SEGS];
		struct sr_seg_out o = { .segs = segs, .max = SR_COPY_SEGS, .stop = true };
		unsigned n;

		sr_map(ref, off, len, &o);
		n = o.n < SR_COPY_SEGS ? o.n : SR_COPY_SEGS;
		if (o.done == 0)
			return SR_MR_E_BOUNDS;
		for (unsigned i = 0; i < n; i++) {
			if (to_mr)
				memcpy(segs[i].addr, buf, segs[i].len);
			else
				memcpy(buf, segs[i].addr, segs[i].len);
			buf += segs[i].len;
		}
		off += o.done;
		len -= o.done;
	}
	return SR_MR_OK;
}

enum sr_mr_err sr_mr_copy_slow_(const struct sr_mr_ref *ref, uint64_t va, uint8_t *buf,
				uint64_t len, bool to_mr)
{
	return sr_copy(ref, va, buf, len, to_mr);
}
