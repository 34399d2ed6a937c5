/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lookup.h — the data path of memory registration: access rights, lookup
 * error classes, the key table's layout and the lock-free lookup.
 *
 * Include "mr/mr.h" rather than this file; it is split out so that what
 * runs per packet is small and visible (DPDK lib/ring style).
 *
 * Keys.  A 32-bit key is (index << 8) | key byte.  The index selects a slot
 * of the device's one table (MRs and MWs together); the key byte changes
 * on every registration and fast-register, so a stale key never matches.
 * Index 0 is never used: key 0 is never valid.
 *
 * Concurrency.  Lookups take no lock and, normally, no atomic read-modify-
 * write.  Each slot carries one 64-bit word (key | generation | kind |
 * state).  A lookup reads the word, snapshots the fields, holds the slot
 * in one of its thread's hazard slots (reader.c) and re-reads the word: if
 * it changed, the snapshot is discarded (a seqlock whose writers are
 * serialised by a per-slot lock).  Writers that free translation storage
 * or hand memory back to the user (dereg, rereg, FRMR re-init) first
 * change the word, then wait until no hazard slot (nor the slot's atomic
 * reference count, the fallback) holds it, so a held reference always
 * points at live memory.  Invalidate and
 * fast-register do not wait: a reference taken before an invalidation
 * may finish its copy, like DMA already in flight on an RNIC.  Slots are
 * never freed while the device lives (type-stable memory), so reading a
 * slot through a stale key is always safe.
 */
#ifndef SR_MR_LOOKUP_H
#define SR_MR_LOOKUP_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mr/limits.h"

#ifndef sr_likely
#define sr_likely(x)   __builtin_expect(!!(x), 1)
#define sr_unlikely(x) __builtin_expect(!!(x), 0)
#endif

/* ---------------------------------------------------------------------
 * Access rights
 * ------------------------------------------------------------------ */

/* X(name, bit, description) */
#define SR_ACCESS_LIST(X)                                                    \
	X(LOCAL_WRITE,   0, "local write")                                   \
	X(REMOTE_READ,   1, "remote read")                                   \
	X(REMOTE_WRITE,  2, "remote write")                                  \
	X(REMOTE_ATOMIC, 3, "remote atomic")                                 \
	X(READ_SINK,     4, "RDMA-read sink")                                \
	X(MW_BIND,       5, "memory-window bind")                            \
	X(ZERO_BASED,    6, "zero-based addressing")

enum sr_access {
#define SR_X(name, bit, desc) SR_ACCESS_##name = 1u << (bit),
	SR_ACCESS_LIST(SR_X)
#undef SR_X
};

#define SR_ACCESS_ALL                                                        \
	(0u SR_ACCESS_LIST(SR_ACCESS_OR_))
#define SR_ACCESS_OR_(name, bit, desc) | SR_ACCESS_##name
#define SR_ACCESS_REMOTE                                                     \
	(SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC)
/* IBTA: remote write or remote atomic requires local write. */
#define SR_ACCESS_NEEDS_LOCAL_WRITE (SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC)

/*
 * On-demand paging (ODP): a registration option, not a right, so it is not
 * in SR_ACCESS_LIST (windows, fast-register and QPs never take it).  The
 * region's memory is reached through the kernel (odp.c), so a page the
 * process has not mapped, or unmapped since, is an error (SR_MR_E_FAULT),
 * never a fault of sroce's thread.
 */
#define SR_ACCESS_ON_DEMAND (1u << 7)
/* Every bit a registration (sr_mr_register, sr_mr_rereg) may carry. */
#define SR_ACCESS_REG_ALL (SR_ACCESS_ALL | SR_ACCESS_ON_DEMAND)

/* Name of one access bit ("remote write"), or NULL if not a single bit. */
const char *sr_access_name(uint32_t bit);

/* ---------------------------------------------------------------------
 * Lookup error classes — what the transport turns into a NAK or a
 * completion status.  Checked in this order.
 * ------------------------------------------------------------------ */

/* X(name, description) */
#define SR_MR_ERR_LIST(X)                                                    \
	X(OK,       "success")                                               \
	X(E_KEY,    "no such key, stale key byte, or an lkey used as rkey "  \
		    "(or the reverse; the DMA MR has no rkey)")              \
	X(E_STATE,  "key matches but the region or window is not valid "    \
		    "(free, invalidated, unbound, being changed)")           \
	X(E_PD,     "protection domain differs, or a type-2 window is "      \
		    "bound to another QP")                                   \
	X(E_ACCESS, "the region or window lacks a required access right")    \
	X(E_LENGTH, "length rule: over MaxTransferLength, or an atomic "     \
		    "that is not 8 bytes")                                   \
	X(E_ALIGN,  "atomic address not 8-byte aligned")                     \
	X(E_BOUNDS, "address range not inside the region or window")        \
	X(E_FAULT,  "on-demand region: the memory is not mapped in the "    \
		    "process (or not writable), found when copying")

enum sr_mr_err {
#define SR_X(name, desc) SR_MR_##name,
	SR_MR_ERR_LIST(SR_X)
#undef SR_X
	SR_MR_ERR_COUNT
};

/* "SR_MR_E_KEY" etc.; "SR_MR_E_?" for an out-of-range value. */
const char *sr_mr_err_name(enum sr_mr_err err);
/* One-line description of the class. */
const char *sr_mr_err_desc(enum sr_mr_err err);

/* ---------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------ */

struct sr_pd;
struct sr_mr;   /* opaque handles: pointers to a struct sr_mr_slot */
struct sr_mw;

enum sr_slot_state {
	SR_SLOT_FREE  = 0,   /* not usable (FRMR free, MW unbound, invalidated) */
	SR_SLOT_VALID = 1,   /* usable by the data path */
	SR_SLOT_BUSY  = 2,   /* a writer is changing the fields */
};

/* How a region's offset becomes a host address. */
enum sr_xlate {
	SR_XLATE_NONE,
	SR_XLATE_LINEAR,   /* host = base + offset */
	SR_XLATE_PAGES,    /* page array + first byte offset */
	SR_XLATE_EXTENTS,  /* sorted extents (scatter/gather registration) */
	SR_XLATE_ODP,      /* host = base + offset, reached through the kernel
			    * (odp.c): unmapped memory is an error */
};

/*
 * Slot kinds.  X(name, lkey, rkey, window, xlate, invalidatable)
 *   lkey/rkey: the key may be used as a local/remote key at all (the DMA
 *   MRs never answer a remote key; windows never answer a local one).
 */
#define SR_SLOT_KIND_LIST(X)                                                 \
	X(NONE,     0, 0, 0, SR_XLATE_NONE,    0)                            \
	X(MR_EMPTY, 1, 1, 0, SR_XLATE_NONE,    0)                            \
	X(MR_VIRT,  1, 1, 0, SR_XLATE_LINEAR,  0)                            \
	X(MR_PAGES, 1, 1, 0, SR_XLATE_PAGES,   0)                            \
	X(MR_SGL,   1, 1, 0, SR_XLATE_EXTENTS, 0)                            \
	X(MR_FRMR,  1, 1, 0, SR_XLATE_PAGES,   1)                            \
	X(MR_DMA,   1, 0, 0, SR_XLATE_LINEAR,  0)                            \
	X(MR_PRIV,  1, 0, 0, SR_XLATE_LINEAR,  0)                            \
	X(MW1,      0, 1, 1, SR_XLATE_NONE,    0)                            \
	X(MW2,      0, 1, 1, SR_XLATE_NONE,    1)                            \
	X(MR_ODP,   1, 1, 0, SR_XLATE_ODP,     0)

enum sr_slot_kind {
#define SR_X(name, lk, rk, win, xl, inv) SR_KIND_##name,
	SR_SLOT_KIND_LIST(SR_X)
#undef SR_X
	SR_KIND_COUNT
};

#define SR_KIND_BIT_(name) (1u << SR_KIND_##name)
#define SR_KIND_LKEY_(name, lk, rk, win, xl, inv) | ((lk) ? SR_KIND_BIT_(name) : 0u)
#define SR_KIND_RKEY_(name, lk, rk, win, xl, inv) | ((rk) ? SR_KIND_BIT_(name) : 0u)
#define SR_KIND_WIN_(name, lk, rk, win, xl, inv)  | ((win) ? SR_KIND_BIT_(name) : 0u)
#define SR_KIND_INV_(name, lk, rk, win, xl, inv)  | ((inv) ? SR_KIND_BIT_(name) : 0u)
#define SR_KIND_LKEY_MASK   (0u SR_SLOT_KIND_LIST(SR_KIND_LKEY_))
#define SR_KIND_RKEY_MASK   (0u SR_SLOT_KIND_LIST(SR_KIND_RKEY_))
#define SR_KIND_WINDOW_MASK (0u SR_SLOT_KIND_LIST(SR_KIND_WIN_))
#define SR_KIND_INVAL_MASK  (0u SR_SLOT_KIND_LIST(SR_KIND_INV_))

/* Per-kind translation, indexed by enum sr_slot_kind. */
extern const uint8_t sr_slot_kind_xlate[SR_KIND_COUNT];
/* "MR_FRMR" etc. */
const char *sr_slot_kind_name(unsigned kind);

/* The slot word: key << 32 | generation << 8 | kind << 4 | state. */
#define SR_WORD_KEY(w)   ((uint32_t)((w) >> 32))
#define SR_WORD_GEN(w)   ((uint32_t)((w) >> 8) & 0xffffffu)
#define SR_WORD_KIND(w)  ((unsigned)((w) >> 4) & 0xfu)
#define SR_WORD_STATE(w) ((unsigned)(w) & 0xfu)
#define SR_WORD(key, gen, kind, state)                                       \
	(((uint64_t)(key) << 32) | ((uint64_t)((gen) & 0xffffffu) << 8) |     \
	 ((uint64_t)((kind) & 0xfu) << 4) | ((uint64_t)(state) & 0xfu))

/*
 * One slot: an MR or an MW.  The first cache line is the data path's view;
 * its fields are atomics read relaxed and validated by .word (seqlock).
 * The second line belongs to the slow paths, under .lock.
 *
 *            MR                                  MW
 *  iova      address of offset 0 (0 zero-based)  window base (0 zero-based)
 *  length    bytes                               bytes
 *  host      LINEAR, ODP: host addr of offset 0  MR offset of the window
 *            (0 for an implicit ODP region);
 *            PAGES: uint64_t page array;
 *            EXTENTS: struct sr_extents *
 *  aux       PAGES: first byte offset            key of the bound MR
 *  qpn       -                                   type 2: the bound QP
 */
struct sr_mr_slot {
	_Atomic uint64_t word;
	_Atomic uint32_t refs;
	_Atomic uint32_t access;
	_Atomic(const struct sr_pd *) pd;
	_Atomic uint64_t iova;
	_Atomic uint64_t length;
	_Atomic uint64_t host;
	_Atomic uint32_t aux;
	_Atomic uint32_t qpn;

	/* slow path */
	alignas(64) _Atomic uint32_t lock;
	uint32_t next_free;      /* free list link (index) */
	uint32_t nbound;         /* MR: windows bound to it */
	uint32_t cap_pages;      /* FRMR: page capacity (0: not initialised) */
	uint32_t frmr_remote;    /* FRMR: initialised for remote access */
	void *xlate_mem;         /* translation storage owned by the slot */
	uint64_t xlate_bytes;    /* its size, for the leak counters */
	struct sr_pd *owner;     /* PD holding a use for this object */
	struct sr_mr_dev *dev;
};

_Static_assert(sizeof(struct sr_mr_slot) == 128, "a slot is two cache lines");

/* Scatter/gather registration translation: extents by region offset. */
struct sr_extent {
	uint64_t off;    /* region offset of the first byte */
	uint64_t len;
	uint64_t host;   /* host address of the first byte */
};

struct sr_extents {
	uint32_t n;
	struct sr_extent e[];
};

/* Per-device registration context: limits + the key table. */
struct sr_mr_dev {
	/* read by every lookup */
	struct sr_mr_slot *slots;
	uint32_t nslots;
	uint32_t max_transfer;
	uint32_t priv_key;       /* lkey of the privileged (DMA) MR */

	/* slow paths */
	alignas(64) pthread_mutex_t lock;  /* free list, counters */
	struct sr_dev_limits limits;
	uint32_t free_head;      /* FIFO of freed slots (0: empty) */
	uint32_t free_tail;
	uint32_t next_unused;    /* slots at and above were never used */
	uint32_t n_pd, n_mr, n_mw;
	_Atomic uint64_t xlate_bytes;
	_Atomic uint32_t next_pd_handle;
};

/* ---------------------------------------------------------------------
 * References and segments
 * ------------------------------------------------------------------ */

/* A contiguous host piece of a registered range. */
struct sr_seg {
	uint8_t *addr;
	uint32_t len;
};

/* Largest piece sr_mr_ref_map() emits (fits sr_seg.len). */
#define SR_SEG_MAX (UINT32_C(1) << 31)

/*
 * A held reference: the translation of one looked-up range.  Copy through
 * it with sr_mr_ref_map()/sr_mr_copy_*() until sr_mr_ref_put().  The
 * region's memory and translation stay live while it is held (dereg and
 * rereg wait for it).  The struct may be copied by value, but exactly one
 * copy is put.
 */
struct sr_mr_ref {
	struct sr_mr_slot *slot;  /* MR slot we hold; NULL: none */
	_Atomic(struct sr_mr_slot *) *hazard;  /* where, or NULL: its count */
	uint64_t va;              /* first address usable through this ref */
	uint64_t len;             /* bytes usable from .va */
	uint64_t off;             /* region offset of .va */
	uint64_t host;            /* as struct sr_mr_slot.host */
	uint32_t aux;             /* PAGES: first byte offset */
	uint32_t xlate;           /* enum sr_xlate */
};

/* ---- holding a slot without a read-modify-write (reader.c) ---- */

#define SR_READER_HAZARDS 16   /* references a thread holds without atomics */

#ifndef SR_TLS_MODEL
#define SR_TLS_MODEL __attribute__((tls_model("initial-exec")))
#endif

/* One per thread that looks up: the slots it holds. */
struct sr_mr_reader {
	_Atomic(struct sr_mr_slot *) haz[SR_READER_HAZARDS];
	unsigned next;               /* next hazard slot to try (owner only) */
	struct sr_mr_reader *link;   /* all readers, under reader.c's lock */
};

extern _Thread_local struct sr_mr_reader *sr_mr_reader_tls_ SR_TLS_MODEL;
extern bool sr_mr_reader_fence_;  /* no membarrier: readers fence themselves */
struct sr_mr_reader *sr_mr_reader_attach_(void);
_Atomic(struct sr_mr_slot *) *sr_mr_hazard_slow_(struct sr_mr_reader *r);

/*
 * Hold s: publish it in a hazard slot of this thread (NULL: none free, use
 * the atomic count).  The caller re-reads the word afterwards.
 */
static inline _Atomic(struct sr_mr_slot *) *sr_mr_hold_(struct sr_mr_slot *s)
{
	struct sr_mr_reader *r = sr_mr_reader_tls_;
	_Atomic(struct sr_mr_slot *) *hp;

	if (sr_unlikely(r == NULL) && (r = sr_mr_reader_attach_()) == NULL)
		goto out_count;
	hp = &r->haz[r->next];
	if (sr_likely(atomic_load_explicit(hp, memory_order_relaxed) == NULL))
		r->next = (r->next + 1) & (SR_READER_HAZARDS - 1);
	else if ((hp = sr_mr_hazard_slow_(r)) == NULL)
		goto out_count;
	atomic_store_explicit(hp, s, memory_order_relaxed);
	if (sr_unlikely(sr_mr_reader_fence_))
		atomic_thread_fence(memory_order_seq_cst);
	else
		atomic_signal_fence(memory_order_seq_cst);  /* membarrier orders it */
	return hp;

out_count:
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_seq_cst);
	return NULL;
}

/* Drop what sr_mr_hold_() took. */
static inline void sr_mr_unhold_(struct sr_mr_slot *s, _Atomic(struct sr_mr_slot *) *hp)
{
	if (sr_likely(hp != NULL))
		atomic_store_explicit(hp, NULL, memory_order_release);
	else
		atomic_fetch_sub_explicit(&s->refs, 1, memory_order_release);
}

/* Lookup for windows: out of line (lookup.c). */
enum sr_mr_err sr_mr_lookup_mw_(struct sr_mr_dev *d, struct sr_mr_slot *s, uint64_t w,
				uint64_t va, uint64_t len, uint32_t need,
				const struct sr_pd *pd, uint32_t qpn, struct sr_mr_ref *ref);
unsigned sr_mr_ref_map_slow_(const struct sr_mr_ref *ref, uint64_t off, uint64_t len,
			     struct sr_seg *segs, unsigned max);

#define SR_LD(p)    atomic_load_explicit(&(p), memory_order_relaxed)
#define SR_ST(p, v) atomic_store_explicit(&(p), (v), memory_order_relaxed)

/* Retries when a writer changes a slot under a lookup, before E_STATE. */
#define SR_LOOKUP_RETRIES 8

/*
 * Checks shared by regions and windows, on a snapshot (not yet validated):
 * PD, rights, length rules, bounds of [va, va + len) in [base, base + size].
 */
static inline enum sr_mr_err
sr_mr_check_(const struct sr_mr_dev *d, uint32_t acc, uint32_t need, uint64_t va,
	     uint64_t len, uint64_t base, uint64_t size)
{
	if (sr_unlikely((acc & need) != need))
		return SR_MR_E_ACCESS;
	if (sr_unlikely(len > d->max_transfer))
		return SR_MR_E_LENGTH;
	if (sr_unlikely(need & SR_ACCESS_REMOTE_ATOMIC)) {
		if (len != 8)
			return SR_MR_E_LENGTH;
		if (va & 7)
			return SR_MR_E_ALIGN;
	}
	if (sr_unlikely(va < base || va - base > size || len > size - (va - base)))
		return SR_MR_E_BOUNDS;
	return SR_MR_OK;
}

/*
 * Look up a key for an access of len bytes at va.
 *   remote  true: key is an rkey (regions and windows; the DMA MRs never
 *           match); false: an lkey (regions only).
 *   need    SR_ACCESS_* rights the access requires (0 for a local read).
 *   pd      the PD of the QP doing the access; qpn its number (type-2
 *           windows only answer the QP they are bound to).
 * On SR_MR_OK, *ref holds a reference covering [va, va + len); put it
 * with sr_mr_ref_put().  On any error *ref holds nothing (ref->slot NULL).
 * Zero-based regions and windows take va as an offset from 0.  Checks, in
 * order: E_KEY, E_STATE, E_PD, E_ACCESS, E_LENGTH, E_ALIGN, E_BOUNDS.
 * (IBTA skips the R_Key check of a zero-length RDMA; the transport does
 * not call this for those.)
 */
static inline enum sr_mr_err
sr_mr_lookup(struct sr_mr_dev *d, uint32_t key, bool remote, uint64_t va, uint64_t len,
	     uint32_t need, const struct sr_pd *pd, uint32_t qpn, struct sr_mr_ref *ref)
{
	uint32_t idx = key >> 8;
	unsigned tries = 0;

	ref->slot = NULL;
	if (sr_unlikely(idx >= d->nslots))
		return SR_MR_E_KEY;

	struct sr_mr_slot *s = &d->slots[idx];

retry:;
	uint64_t w = atomic_load_explicit(&s->word, memory_order_acquire);
	unsigned kind = SR_WORD_KIND(w);
	uint32_t mask = remote ? SR_KIND_RKEY_MASK : SR_KIND_LKEY_MASK;

	if (sr_unlikely(SR_WORD_KEY(w) != key || !(mask & (1u << kind))))
		return SR_MR_E_KEY;
	if (sr_unlikely((1u << kind) & SR_KIND_WINDOW_MASK))
		return sr_mr_lookup_mw_(d, s, w, va, len, need, pd, qpn, ref);
	if (sr_unlikely(SR_WORD_STATE(w) != SR_SLOT_VALID))
		return SR_MR_E_STATE;

	const struct sr_pd *spd = SR_LD(s->pd);
	uint32_t acc = SR_LD(s->access);
	uint64_t iova = SR_LD(s->iova);
	uint64_t size = SR_LD(s->length);
	uint64_t host = SR_LD(s->host);
	uint32_t aux = SR_LD(s->aux);
	enum sr_mr_err err;

	if (sr_unlikely(spd != pd) && kind != SR_KIND_MR_PRIV)
		err = SR_MR_E_PD;
	else
		err = sr_mr_check_(d, acc, need, va, len, iova, size);
	if (sr_unlikely(err != SR_MR_OK)) {
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->word, memory_order_relaxed) != w &&
		    ++tries < SR_LOOKUP_RETRIES)
			goto retry;
		return err;
	}

	_Atomic(struct sr_mr_slot *) *hp = sr_mr_hold_(s);

	atomic_thread_fence(memory_order_acquire);
	if (sr_unlikely(atomic_load_explicit(&s->word, memory_order_seq_cst) != w)) {
		sr_mr_unhold_(s, hp);
		if (++tries < SR_LOOKUP_RETRIES)
			goto retry;
		return SR_MR_E_STATE;
	}

	ref->slot = s;
	ref->hazard = hp;
	ref->va = iova;
	ref->len = size;
	ref->off = 0;
	ref->host = host;
	ref->aux = aux;
	ref->xlate = sr_slot_kind_xlate[kind];
	return SR_MR_OK;
}

/* Drop a reference taken by sr_mr_lookup().  Accepts an empty ref. */
static inline void sr_mr_ref_put(struct sr_mr_ref *ref)
{
	if (ref->slot != NULL) {
		sr_mr_unhold_(ref->slot, ref->hazard);
		ref->slot = NULL;
	}
}

/*
 * The host pieces covering [va, va + len) of a held reference, in order.
 * Fills at most max segments and returns how many the range needs (so a
 * return > max means segs was too short).  Returns 0 for an empty range
 * or one outside the reference, and for an on-demand (ODP) region, whose
 * memory is only reached through sr_mr_copy_*() and sr_mr_ref_word().
 * Adjacent pages are merged.
 */
static inline unsigned sr_mr_ref_map(const struct sr_mr_ref *ref, uint64_t va, uint64_t len,
				     struct sr_seg *segs, unsigned max)
{
	if (sr_unlikely(ref->slot == NULL || len == 0 || va < ref->va ||
			va - ref->va > ref->len || len > ref->len - (va - ref->va)))
		return 0;

	uint64_t off = ref->off + (va - ref->va);

	uint64_t host;

	if (sr_likely(ref->xlate == SR_XLATE_LINEAR && len <= SR_SEG_MAX)) {
		host = ref->host + off;
	} else if (ref->xlate == SR_XLATE_PAGES &&
		   len <= SR_PAGE_SIZE - ((ref->aux + off) & SR_PAGE_MASK)) {
		/* Within one page of a page list or fast-register MR. */
		const _Atomic uint64_t *pages = (const _Atomic uint64_t *)(uintptr_t)ref->host;
		uint64_t at = ref->aux + off;

		host = SR_LD(pages[at >> SR_PAGE_SHIFT]) + (at & SR_PAGE_MASK);
	} else {
		return sr_mr_ref_map_slow_(ref, off, len, segs, max);
	}
	if (max > 0) {
		segs[0].addr = (uint8_t *)(uintptr_t)host;
		segs[0].len = (uint32_t)len;
	}
	return 1;
}

/*
 * Copy len bytes to / from [va, va + len) of a held reference.  The range
 * must lie inside the reference (the lookup checked it); a range outside
 * copies nothing and is SR_MR_E_BOUNDS.  Only an on-demand region can
 * fail otherwise: SR_MR_E_FAULT when part of the range is not mapped (or,
 * copying to it, not writable); the bytes before that part may have been
 * copied.
 */
enum sr_mr_err sr_mr_copy_slow_(const struct sr_mr_ref *ref, uint64_t va, uint8_t *buf,
				uint64_t len, bool to_mr);

/* The linear case inline (a memcpy); the rest in lookup.c. */
static inline enum sr_mr_err sr_mr_copy_(const struct sr_mr_ref *ref, uint64_t va, uint8_t *buf,
					 uint64_t len, bool to_mr)
{
	if (sr_likely(ref->xlate == SR_XLATE_LINEAR && ref->slot != NULL && va >= ref->va &&
		      va - ref->va <= ref->len && len <= ref->len - (va - ref->va))) {
		uint8_t *host = (uint8_t *)(uintptr_t)(ref->host + ref->off + (va - ref->va));

		if (to_mr)
			memcpy(host, buf, len);
		else
			memcpy(buf, host, len);
		return SR_MR_OK;
	}
	return sr_mr_copy_slow_(ref, va, buf, len, to_mr);
}

static inline enum sr_mr_err sr_mr_copy_to(const struct sr_mr_ref *ref, uint64_t va,
					   const void *src, uint64_t len)
{
	return sr_mr_copy_(ref, va, (uint8_t *)(uintptr_t)src, len, true);
}

static inline enum sr_mr_err sr_mr_copy_from(const struct sr_mr_ref *ref, uint64_t va,
					     void *dst, uint64_t len)
{
	return sr_mr_copy_(ref, va, dst, len, false);
}

enum sr_mr_err sr_mr_ref_word_odp_(const struct sr_mr_ref *ref, uint64_t va, uint64_t **word);

/*
 * The aligned 8-byte word at va of a held reference, for an atomic
 * operation in place: SR_MR_E_BOUNDS when [va, va + 8) is not one piece
 * inside the reference; for an on-demand region, SR_MR_E_FAULT when its
 * page is not mapped writable (the page is faulted in writable first, so
 * the operation finds it; an application that unmaps it meanwhile, from
 * another thread, races with its own in-flight atomic, see odp.c).
 */
static inline enum sr_mr_err sr_mr_ref_word(const struct sr_mr_ref *ref, uint64_t va,
					    uint64_t **word)
{
	struct sr_seg seg;

	if (sr_unlikely(ref->xlate == SR_XLATE_ODP))
		return sr_mr_ref_word_odp_(ref, va, word);
	if (sr_mr_ref_map(ref, va, 8, &seg, 1) != 1 || seg.len != 8)
		return SR_MR_E_BOUNDS;
	*word = (uint64_t *)(void *)seg.addr;
	return SR_MR_OK;
}

#endif /* SR_MR_LOOKUP_H */
