/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr_priv.h — what the files of lib/mr share and nobody else sees: the PD
 * object, handle <-> slot conversions, the per-slot writer protocol, the
 * slot allocator and the translation builder.
 *
 * Writer protocol (every change of a slot a lookup may be reading):
 *   sr_slot_lock()      serialise writers of this slot
 *   sr_slot_hide()      word := BUSY if VALID, then a release fence, so a
 *                       lookup that reads any new field also sees the word
 *                       change and drops its snapshot
 *   SR_ST(field, v)...  relaxed stores of the fields
 *   sr_slot_set()       publish the new word (generation + 1)
 *   sr_slot_unlock()
 * Writers that free storage or give memory back also sr_slot_wait_idle()
 * after the word changed and before freeing.  Lock order: a window's
 * slot before its region's; never two regions.
 */
#ifndef SR_MR_PRIV_H
#define SR_MR_PRIV_H

#include <errno.h>
#include <stdint.h>

#include "mr/mr.h"

struct sr_pd {
	struct sr_mr_dev *dev;
	_Atomic uint32_t users;  /* MRs, MWs and QPs using it */
	uint32_t handle;
};

/* users value of a PD being freed. */
#define SR_PD_DEAD UINT32_MAX

/* Handles are slot pointers under another name. */
static inline struct sr_mr_slot *sr_mr_slot_(const struct sr_mr *mr)
{
	return (struct sr_mr_slot *)(uintptr_t)mr;
}

static inline struct sr_mr_slot *sr_mw_slot_(const struct sr_mw *mw)
{
	return (struct sr_mr_slot *)(uintptr_t)mw;
}

static inline struct sr_mr *sr_slot_mr_(struct sr_mr_slot *s)
{
	return (struct sr_mr *)(void *)s;
}

static inline struct sr_mw *sr_slot_mw_(struct sr_mr_slot *s)
{
	return (struct sr_mw *)(void *)s;
}

static inline uint32_t sr_slot_index_(const struct sr_mr_slot *s)
{
	return (uint32_t)(s - s->dev->slots);
}

static inline uint64_t sr_slot_word_(const struct sr_mr_slot *s)
{
	return atomic_load_explicit(&s->word, memory_order_acquire);
}

/* ---- per-slot writer lock (contended part in mr_table.c) ---- */
void sr_slot_lock_slow_(struct sr_mr_slot *s);

static inline void sr_slot_lock(struct sr_mr_slot *s)
{
	if (sr_unlikely(atomic_exchange_explicit(&s->lock, 1, memory_order_acquire) != 0))
		sr_slot_lock_slow_(s);
}

static inline void sr_slot_unlock(struct sr_mr_slot *s)
{
	atomic_store_explicit(&s->lock, 0, memory_order_release);
}

/* Publish key/kind/state with the next generation (seq_cst: pairs with
 * the lookup's reference increment). */
static inline void sr_slot_set(struct sr_mr_slot *s, uint32_t key, unsigned kind, unsigned state)
{
	uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);

	atomic_store_explicit(&s->word, SR_WORD(key, SR_WORD_GEN(w) + 1, kind, state),
			      memory_order_seq_cst);
}

/* Make the fields safe to rewrite under concurrent lookups. */
static inline void sr_slot_hide(struct sr_mr_slot *s)
{
	uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);

	if (SR_WORD_STATE(w) == SR_SLOT_VALID)
		sr_slot_set(s, SR_WORD_KEY(w), SR_WORD_KIND(w), SR_SLOT_BUSY);
	atomic_thread_fence(memory_order_release);
}

/* Wait until no lookup holds a reference on the slot. */
void sr_slot_wait_idle(struct sr_mr_slot *s);

/* ---- readers (reader.c) ---- */

/* Make all readers' hazard stores visible (membarrier). */
void sr_mr_readers_sync_(void);

/*
 * Tests: run readers in the fallback mode (each lookup fences itself)
 * even where membarrier exists.  Only before the process's first lookup;
 * -EBUSY after.
 */
int sr_mr_readers_use_fences_(void);

/* Hazard slots holding a slot in [first, end). */
unsigned sr_mr_hazards_on_(const struct sr_mr_slot *first, const struct sr_mr_slot *end);

/* ---- the table (mr_table.c) ---- */

/*
 * Allocate a slot of the given kind, state FREE, with a key byte unlike
 * the slot's previous one.  Counts an MR or MW.  NULL with errno ENOMEM.
 */
struct sr_mr_slot *sr_slot_alloc(struct sr_mr_dev *d, unsigned kind);

/* Give a slot back (word kind NONE, so its keys stop matching). */
void sr_slot_free(struct sr_mr_slot *s);

/* The next key byte for a new registration of this slot. */
static inline uint32_t sr_slot_next_key_(const struct sr_mr_slot *s)
{
	uint32_t key = SR_WORD_KEY(atomic_load_explicit(&s->word, memory_order_relaxed));

	return (key & ~UINT32_C(0xff)) | ((key + 1) & 0xffu);
}

/* Translation storage, counted in the device's xlate_bytes. */
void *sr_xlate_alloc(struct sr_mr_dev *d, uint64_t bytes);
void sr_xlate_free(struct sr_mr_dev *d, void *mem, uint64_t bytes);

/* ---- registrations (xlate.c) ---- */

/* A translation built from a source, not yet installed in a slot. */
struct sr_xlate_built {
	unsigned kind;       /* SR_KIND_MR_VIRT / _PAGES / _SGL */
	uint64_t iova;
	uint64_t length;
	uint64_t host;
	uint32_t aux;
	void *mem;           /* storage to own (may be NULL) */
	uint64_t bytes;
};

/* Registration access flags: -EINVAL for unknown bits or the IBTA rule. */
int sr_access_check_reg(uint32_t access);

/*
 * Validate src for access and build its translation.  Errors as
 * sr_mr_register() (-EINVAL, -EFAULT, -ENOMEM).
 */
int sr_xlate_build(struct sr_mr_dev *d, const struct sr_mr_src *src, uint32_t access,
		   struct sr_xlate_built *out);

/* Install a built translation into a hidden slot (fields only). */
void sr_xlate_install(struct sr_mr_slot *s, const struct sr_xlate_built *x, uint32_t access);

/* ---- on-demand paging (odp.c) ---- */

/*
 * Copy len bytes between buf and the process memory at host through the
 * kernel (process_vm_readv / process_vm_writev on the own process):
 * SR_MR_OK, or SR_MR_E_FAULT where the memory is not mapped (or, to_mr,
 * not writable).
 */
enum sr_mr_err sr_odp_copy_(uint64_t host, uint8_t *buf, uint64_t len, bool to_mr);

/* An implicit ODP region: the whole address space, host 0 (xlate.c). */
static inline bool sr_odp_is_implicit_(uint64_t host, uint64_t length)
{
	return host == 0 && length == UINT64_MAX;
}

/* ---- windows (mw.c) ---- */

/* Drop one window binding from the MR whose key is mr_key. */
void sr_mr_unbind_window_(struct sr_mr_dev *d, uint32_t mr_key);

/* Invalidate a type-2 window, slot locked by the caller; 0 or -errno. */
int sr_mw_invalidate_locked_(struct sr_mr_slot *s, const struct sr_pd *pd, uint32_t qpn);

#endif /* SR_MR_PRIV_H */
