/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr_table.c — the per-device key table: context create/destroy, the
 * slot allocator and its key bytes, the per-slot writer lock, usage
 * counters and the name tables.
 *
 * The table is one array of slots reserved at create (anonymous memory,
 * touched only as slots are used) and never freed while the device
 * lives, so a lookup may always read a slot, however stale its key.
 * Freed slots queue FIFO: a slot is reused as late as possible, which
 * keeps a stale key from meeting a new registration with the same byte.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "mr/mr_priv.h"

/* Index 0 is never used (key 0 is never valid); 1 is the privileged MR. */
#define SR_SLOT_PRIV 1u
#define SR_SLOT_FIRST 2u

const uint8_t sr_slot_kind_xlate[SR_KIND_COUNT] = {
#define SR_X(name, lk, rk, win, xl, inv) [SR_KIND_##name] = xl,
	SR_SLOT_KIND_LIST(SR_X)
#undef SR_X
};

static const char *const sr_slot_kind_names[SR_KIND_COUNT] = {
#define SR_X(name, lk, rk, win, xl, inv) [SR_KIND_##name] = #name,
	SR_SLOT_KIND_LIST(SR_X)
#undef SR_X
};

static const char *const sr_mr_err_names[SR_MR_ERR_COUNT] = {
#define SR_X(name, desc) [SR_MR_##name] = "SR_MR_" #name,
	SR_MR_ERR_LIST(SR_X)
#undef SR_X
};

static const char *const sr_mr_err_descs[SR_MR_ERR_COUNT] = {
#define SR_X(name, desc) [SR_MR_##name] = desc,
	SR_MR_ERR_LIST(SR_X)
#undef SR_X
};

static const char *const sr_access_names[] = {
#define SR_X(name, bit, desc) [bit] = desc,
	SR_ACCESS_LIST(SR_X)
#undef SR_X
};

const char *sr_slot_kind_name(unsigned kind)
{
	return kind < SR_KIND_COUNT ? sr_slot_kind_names[kind] : "?";
}

const char *sr_mr_err_name(enum sr_mr_err err)
{
	return (unsigned)err < SR_MR_ERR_COUNT ? sr_mr_err_names[err] : "SR_MR_E_?";
}

const char *sr_mr_err_desc(enum sr_mr_err err)
{
	return (unsigned)err < SR_MR_ERR_COUNT ? sr_mr_err_descs[err] : "unknown";
}

const char *sr_access_name(uint32_t bit)
{
	if (bit == 0 || (bit & (bit - 1)) != 0 || (bit & ~SR_ACCESS_ALL) != 0)
		return NULL;
	return sr_access_names[__builtin_ctz(bit)];
}

/* ---- waiting ---- */

static inline void sr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void sr_backoff(unsigned *spins)
{
	if (++*spins < 128)
		sr_cpu_relax();
	else
		sched_yield();
}

void sr_slot_lock_slow_(struct sr_mr_slot *s)
{
	unsigned spins = 0;

	do {
		while (atomic_load_explicit(&s->lock, memory_order_relaxed) != 0)
			sr_backoff(&spins);
	} while (atomic_exchange_explicit(&s->lock, 1, memory_order_acquire) != 0);
}

void sr_slot_wait_idle(struct sr_mr_slot *s)
{
	unsigned spins = 0;

	sr_mr_readers_sync_();
	while (atomic_load_explicit(&s->refs, memory_order_seq_cst) != 0 ||
	       sr_mr_hazards_on_(s, s + 1) != 0)
		sr_backoff(&spins);
	atomic_thread_fence(memory_order_acquire);
}

/* ---- translation storage ---- */

void *sr_xlate_alloc(struct sr_mr_dev *d, uint64_t bytes)
{
	void *mem;

	if (bytes == 0 || bytes > SIZE_MAX)
		return NULL;
	mem = malloc((size_t)bytes);
	if (mem != NULL)
		atomic_fetch_add_explicit(&d->xlate_bytes, bytes, memory_order_relaxed);
	return mem;
}

void sr_xlate_free(struct sr_mr_dev *d, void *mem, uint64_t bytes)
{
	if (mem == NULL)
		return;
	free(mem);
	atomic_fetch_sub_explicit(&d->xlate_bytes, bytes, memory_order_relaxed);
}

/* ---- slots ---- */

static void sr_slot_reset(struct sr_mr_slot *s)
{
	SR_ST(s->access, 0);
	SR_ST(s->pd, NULL);
	SR_ST(s->iova, 0);
	SR_ST(s->length, 0);
	SR_ST(s->host, 0);
	SR_ST(s->aux, 0);
	SR_ST(s->qpn, 0);
	s->nbound = 0;
	s->cap_pages = 0;
	s->frmr_remote = 0;
	s->xlate_mem = NULL;
	s->xlate_bytes = 0;
	s->owner = NULL;
}

struct sr_mr_slot *sr_slot_alloc(struct sr_mr_dev *d, unsigned kind)
{
	bool window = ((1u << kind) & SR_KIND_WINDOW_MASK) != 0;
	uint32_t idx = 0;

	pthread_mutex_lock(&d->lock);
	if (window ? d->n_mw >= d->limits.max_mw : d->n_mr >= d->limits.max_mr)
		goto out_full;
	if (d->free_head != 0) {
		idx = d->free_head;
		d->free_head = d->slots[idx].next_free;
		if (d->free_head == 0)
			d->free_tail = 0;
	} else if (d->next_unused < d->nslots) {
		idx = d->next_unused++;
	} else {
		goto out_full;
	}
	if (window)
		d->n_mw++;
	else
		d->n_mr++;
	pthread_mutex_unlock(&d->lock);

	struct sr_mr_slot *s = &d->slots[idx];

	s->dev = d;
	s->next_free = 0;
	sr_slot_reset(s);
	/* First use: word is 0, key byte becomes 1; reuse: previous byte + 1. */
	uint32_t key = (idx << 8) |
		       ((SR_WORD_KEY(atomic_load_explicit(&s->word, memory_order_relaxed)) + 1) & 0xffu);
	sr_slot_set(s, key, kind, SR_SLOT_FREE);
	return s;

out_full:
	pthread_mutex_unlock(&d->lock);
	errno = ENOMEM;
	return NULL;
}

void sr_slot_free(struct sr_mr_slot *s)
{
	struct sr_mr_dev *d = s->dev;
	uint64_t w = atomic_load_explicit(&s->word, memory_order_relaxed);
	bool window = ((1u << SR_WORD_KIND(w)) & SR_KIND_WINDOW_MASK) != 0;
	uint32_t idx = sr_slot_index_(s);

	sr_slot_set(s, SR_WORD_KEY(w), SR_KIND_NONE, SR_SLOT_FREE);
	sr_slot_reset(s);

	pthread_mutex_lock(&d->lock);
	s->next_free = 0;
	if (d->free_tail != 0)
		d->slots[d->free_tail].next_free = idx;
	else
		d->free_head = idx;
	d->free_tail = idx;
	if (window)
		d->n_mw--;
	else
		d->n_mr--;
	pthread_mutex_unlock(&d->lock);
}

/* ---- the device ---- */

struct sr_mr_dev *sr_mr_dev_create(const struct sr_dev_limits *limits)
{
	struct sr_dev_limits l = limits != NULL ? *limits : sr_dev_limits_default();
	struct sr_mr_dev *d;
	size_t bytes;

	if (sr_dev_limits_check(&l, NULL) != 0) {
		errno = EINVAL;
		return NULL;
	}
	d = aligned_alloc(64, (sizeof(*d) + 63) & ~(size_t)63);
	if (d == NULL)
		goto out;
	memset(d, 0, sizeof(*d));
	d->limits = l;
	d->max_transfer = l.max_transfer_length;
	d->nslots = SR_SLOT_FIRST + l.max_mr + l.max_mw;
	bytes = (size_t)d->nslots * sizeof(struct sr_mr_slot);
	d->slots = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->slots == MAP_FAILED)
		goto out_free_dev;
	if (pthread_mutex_init(&d->lock, NULL) != 0)
		goto out_unmap;
	d->next_unused = SR_SLOT_FIRST;

	/* The privileged MR: whole address space, local only, any PD. */
	struct sr_mr_slot *p = &d->slots[SR_SLOT_PRIV];

	p->dev = d;
	SR_ST(p->access, SR_ACCESS_LOCAL_WRITE | SR_ACCESS_READ_SINK);
	SR_ST(p->length, UINT64_MAX);
	d->priv_key = (SR_SLOT_PRIV << 8) | 1u;
	sr_slot_set(p, d->priv_key, SR_KIND_MR_PRIV, SR_SLOT_VALID);
	return d;

out_unmap:
	munmap(d->slots, bytes);
out_free_dev:
	free(d);
out:
	errno = ENOMEM;
	return NULL;
}

int sr_mr_dev_destroy(struct sr_mr_dev *d)
{
	if (d == NULL)
		return 0;
	if (sr_mr_dev_in_use(d) != 0)
		return -EBUSY;
	pthread_mutex_destroy(&d->lock);
	munmap(d->slots, (size_t)d->nslots * sizeof(struct sr_mr_slot));
	free(d);
	return 0;
}

const struct sr_dev_limits *sr_mr_dev_limits(const struct sr_mr_dev *d)
{
	return &d->limits;
}

uint32_t sr_mr_dev_privileged_lkey(const struct sr_mr_dev *d)
{
	return d->priv_key;
}

void sr_mr_dev_usage(const struct sr_mr_dev *d, struct sr_mr_dev_usage *u)
{
	struct sr_mr_dev *md = (struct sr_mr_dev *)(uintptr_t)d;
	uint32_t used;

	pthread_mutex_lock(&md->lock);
	u->pds = d->n_pd;
	u->mrs = d->n_mr;
	u->mws = d->n_mw;
	used = d->next_unused;
	pthread_mutex_unlock(&md->lock);

	u->refs = sr_mr_hazards_on_(d->slots, d->slots + d->nslots);
	for (uint32_t i = 1; i < used; i++)
		u->refs += atomic_load_explicit(&d->slots[i].refs, memory_order_relaxed);
	u->xlate_bytes = atomic_load_explicit(&d->xlate_bytes, memory_order_relaxed);
}

unsigned sr_mr_dev_in_use(const struct sr_mr_dev *d)
{
	struct sr_mr_dev_usage u;

	sr_mr_dev_usage(d, &u);
	return u.pds + u.mrs + u.mws + u.refs + (u.xlate_bytes != 0);
}
