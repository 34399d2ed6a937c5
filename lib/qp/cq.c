/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq.c — completion queues: the engine pushes, one consumer polls.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "mr/mr.h"
#include "qp/qp_priv.h"

/* What ibv_query_device and NDK_ADAPTER_INFO advertise is the limit. */
static bool sr_cq_size_ok(const struct sr_dev *dev, uint32_t cqe)
{
	return cqe != 0 && cqe <= sr_mr_dev_limits(sr_dev_mr(dev))->max_cq_depth;
}

struct sr_cq *sr_cq_create(struct sr_dev *dev, uint32_t cqe,
			   sr_cq_notify_fn notify, void *notify_ctx)
{
	struct sr_cq *cq;

	if (dev == NULL || !sr_cq_size_ok(dev, cqe))
		return NULL;
	cq = sr_zalloc(sizeof(*cq));
	if (cq == NULL)
		return NULL;
	if (sr_ring_init(&cq->ring, cqe, sizeof(struct sr_wc)) != 0) {
		free(cq);
		return NULL;
	}
	cq->dev = dev;
	cq->notify = notify;
	cq->notify_ctx = notify_ctx;
	sr_dev_lock_all(dev);
	dev->ncq++;
	sr_dev_unlock_all(dev);
	return cq;
}

int sr_cq_destroy(struct sr_cq *cq)
{
	struct sr_dev *dev;

	if (cq == NULL)
		return 0;
	dev = cq->dev;
	sr_dev_lock_all(dev);
	if (cq->users != 0) {
		sr_dev_unlock_all(dev);
		return -EBUSY;
	}
	dev->ncq--;
	sr_dev_unlock_all(dev);
	sr_ring_fini(&cq->ring);
	free(cq);
	return 0;
}

bool sr_cq_in_use(struct sr_cq *cq)
{
	bool busy;

	sr_dev_lock_all(cq->dev);
	busy = cq->users != 0;
	sr_dev_unlock_all(cq->dev);
	return busy;
}

int sr_cq_resize(struct sr_cq *cq, uint32_t cqe)
{
	struct sr_ring nr, old;
	uint32_t cons, n, i;

	if (cq == NULL || !sr_cq_size_ok(cq->dev, cqe))
		return -EINVAL;
	if (sr_ring_init(&nr, cqe, cq->ring.stride) != 0)
		return -ENOMEM;
	/* the engine pushes under a lane lock: hold every lane off meanwhile */
	sr_dev_lock_all(cq->dev);
	cons = atomic_load_explicit(&cq->ring.cons, memory_order_relaxed);
	n = atomic_load_explicit(&cq->ring.prod, memory_order_acquire) - cons;
	if (n > nr.cap) {
		sr_dev_unlock_all(cq->dev);
		sr_ring_fini(&nr);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		memcpy(sr_ring_slot(&nr, i), sr_ring_slot(&cq->ring, cons + i),
		       cq->ring.stride);
	old = cq->ring;
	cq->ring.slots = nr.slots;
	cq->ring.mask = nr.mask;
	cq->ring.cap = nr.cap;
	atomic_store_explicit(&cq->ring.cons, 0, memory_order_relaxed);
	atomic_store_explicit(&cq->ring.prod, n, memory_order_release);
	sr_dev_unlock_all(cq->dev);
	sr_ring_fini(&old);
	return 0;
}

void *sr_cq_context(const struct sr_cq *cq)
{
	return cq->notify_ctx;
}

/*
 * The ring has one producer: with several lanes, QPs of two lanes may feed
 * one CQ, so their pushes take its push lock (one lane: no lock, no cost).
 */
void sr_cq_push(struct sr_cq *cq, const struct sr_wc *wc, bool solicited)
{
	bool shared = cq->dev->nlanes > 1;
	uint32_t prod;
	int armed;

	if (shared)
		sr_lock_acquire(&cq->push_lock);
	prod = sr_ring_prod_peek(&cq->ring);
	if (sr_ring_free(&cq->ring, prod) == 0) {
		if (shared)
			sr_lock_release(&cq->push_lock);
		sr_dev_count(cq->dev, SR_CNT_CQ_OVERFLOW, 1);
		if (!atomic_exchange_explicit(&cq->overflow, true,
					      memory_order_relaxed))
			sr_dev_event(cq->dev, SR_EVENT_CQ_ERR, cq);
		return;
	}
	memcpy(sr_ring_slot(&cq->ring, prod), wc, sizeof(*wc));
	if (cq->stamp)
		((struct sr_wc *)sr_ring_slot(&cq->ring, prod))->timestamp =
			sr_dev_clock(cq->dev);
	sr_ring_publish(&cq->ring, prod + 1);
	if (shared)
		sr_lock_release(&cq->push_lock);

	/*
	 * The consumer arms, then looks at the ring (sr_cq_empty); here the
	 * completion is published, then the arm looked at.  Without a full
	 * fence each side could read the other's old value (a store followed
	 * by a load, x86 included): the consumer sees nothing and sleeps,
	 * the engine sees no arm and signals nothing.
	 */
	atomic_thread_fence(memory_order_seq_cst);
	armed = atomic_load_explicit(&cq->armed, memory_order_acquire);
	if (armed == SR_CQ_ARM_NEXT ||
	    (armed == SR_CQ_ARM_SOLICITED && solicited)) {
		if (atomic_compare_exchange_strong(&cq->armed, &armed,
						   SR_CQ_ARM_NONE) &&
		    cq->notify != NULL)
			cq->notify(cq, cq->notify_ctx);
	}
}

/*
 * A slot sr_cq_clean removed: its qp_num says so (QPNs are 24 bits).  The
 * store is one aligned 32-bit word, so a poller reading the slot at the
 * same time sees the old number or this one.
 */
#define SR_WC_QPN_REMOVED UINT32_MAX

unsigned int sr_cq_clean(struct sr_cq *cq, uint32_t qpn)
{
	uint32_t cons, prod, i;
	unsigned int n = 0;

	if (cq == NULL)
		return 0;
	cons = atomic_load_explicit(&cq->ring.cons, memory_order_acquire);
	prod = sr_ring_prod_peek(&cq->ring);
	for (i = cons; i != prod; i++) {
		struct sr_wc *wc = sr_ring_slot(&cq->ring, i);

		if (wc->qp_num == qpn) {
			atomic_store_explicit((_Atomic uint32_t *)&wc->qp_num,
					      SR_WC_QPN_REMOVED,
					      memory_order_relaxed);
			n++;
		}
	}
	return n;
}

int sr_cq_poll(struct sr_cq *cq, int n, struct sr_wc *wc)
{
	uint32_t cons = sr_ring_cons_peek(&cq->ring);
	uint32_t avail = sr_ring_avail(&cq->ring, cons);
	uint32_t i;
	int got = 0;

	if (n <= 0)
		return 0;
	/* removed slots (sr_cq_clean) are freed and skipped */
	for (i = 0; i < avail && got < n; i++) {
		memcpy(&wc[got], sr_ring_slot(&cq->ring, cons + i), sizeof(*wc));
		if (wc[got].qp_num != SR_WC_QPN_REMOVED)
			got++;
	}
	sr_ring_release(&cq->ring, cons + i);
	return got;
}

int sr_cq_req_notify(struct sr_cq *cq, bool solicited_only)
{
	int want = solicited_only ? SR_CQ_ARM_SOLICITED : SR_CQ_ARM_NEXT;
	int cur = atomic_load_explicit(&cq->armed, memory_order_relaxed);

	/* arming for "next" is stronger than for "solicited" */
	while (cur < want &&
	       !atomic_compare_exchange_weak(&cq->armed, &cur, want))
		;
	return 0;
}

void sr_cq_stamp(struct sr_cq *cq, bool on)
{
	cq->stamp = on;
}

uint64_t sr_cq_clock_ns(const struct sr_cq *cq)
{
	return sr_dev_clock(cq->dev);
}

bool sr_cq_empty(const struct sr_cq *cq)
{
	uint32_t cons = atomic_load_explicit(&cq->ring.cons,
					     memory_order_seq_cst);

	return atomic_load_explicit(&cq->ring.prod, memory_order_seq_cst) ==
	       cons;
}

bool sr_cq_overflowed(const struct sr_cq *cq)
{
	return atomic_load_explicit(&cq->overflow, memory_order_relaxed);
}

uint32_t sr_cq_depth(const struct sr_cq *cq)
{
	return cq->ring.cap;
}
