/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ring.h — the single-producer/single-consumer ring under every queue.
 *
 * Send queue, receive queue, SRQ and CQ are each one of these: a power of
 * two of fixed-size slots and two free-running 32-bit indices.  The
 * producer writes a slot, then publishes it with a release store of prod;
 * the consumer reads prod with acquire, uses the slot, then frees it with
 * a release store of cons.  Exactly one thread produces and one consumes;
 * no lock, no allocation, no system call.
 *
 *   queue  producer            consumer
 *   SQ     poster (consumer)   engine (frees at completion)
 *   RQ     poster              engine
 *   SRQ    poster              engine
 *   CQ     engine              poller (consumer)
 */
#ifndef SR_QP_RING_H
#define SR_QP_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sr_ring {
	_Alignas(64) _Atomic uint32_t prod;
	_Alignas(64) _Atomic uint32_t cons;
	_Alignas(64) uint32_t mask;     /* slots - 1 */
	uint32_t stride;                /* bytes per slot */
	uint32_t cap;                   /* usable slots (<= mask + 1) */
	uint8_t *slots;
};

/* Make a ring of at least cap slots of stride bytes.  0 or -ENOMEM. */
int sr_ring_init(struct sr_ring *r, uint32_t cap, uint32_t stride);
void sr_ring_fini(struct sr_ring *r);

static inline void *sr_ring_slot(const struct sr_ring *r, uint32_t idx)
{
	return r->slots + (size_t)(idx & r->mask) * r->stride;
}

/* Producer side. */
static inline uint32_t sr_ring_free(const struct sr_ring *r, uint32_t prod)
{
	return r->cap - (prod - atomic_load_explicit(&r->cons,
						     memory_order_acquire));
}

static inline uint32_t sr_ring_prod_peek(const struct sr_ring *r)
{
	return atomic_load_explicit(&r->prod, memory_order_relaxed);
}

static inline void sr_ring_publish(struct sr_ring *r, uint32_t new_prod)
{
	atomic_store_explicit(&r->prod, new_prod, memory_order_release);
}

/* Consumer side: acquire, so the slots up to it are visible. */
static inline uint32_t sr_ring_prod_acquire(const struct sr_ring *r)
{
	return atomic_load_explicit(&r->prod, memory_order_acquire);
}

static inline uint32_t sr_ring_avail(const struct sr_ring *r, uint32_t cons)
{
	return atomic_load_explicit(&r->prod, memory_order_acquire) - cons;
}

static inline uint32_t sr_ring_cons_peek(const struct sr_ring *r)
{
	return atomic_load_explicit(&r->cons, memory_order_relaxed);
}

static inline void sr_ring_release(struct sr_ring *r, uint32_t new_cons)
{
	atomic_store_explicit(&r->cons, new_cons, memory_order_release);
}

#endif /* SR_QP_RING_H */
