/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sched.c — which QPs an engine round visits (sched.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/dev_priv.h"
#include "core/sched.h"
#include "qp/qp_priv.h"

/* Mark kick word w as holding kicks (after its bit is set). */
static inline void sr_sched_sum_set(struct sr_dev *dev, uint32_t w)
{
	_Atomic uint64_t *s = &dev->kick_sum[w / 64];
	uint64_t bit = 1ull << (w % 64);

	if (!(atomic_load_explicit(s, memory_order_relaxed) & bit))
		atomic_fetch_or_explicit(s, bit, memory_order_seq_cst);
}

/*
 * The QP's bit, then its word's summary bit, each only when not set (the
 * loads spare the cache lines' ownership when already kicked).
 *
 * The fence first: the caller has just published work (a producer index,
 * a state) and the gatherer clears the bit and then reads that work.
 * Without a full fence the load of the bit may pass the caller's store
 * (x86's store buffer does it): the kicker sees the bit still set from an
 * earlier kick and returns, the gatherer clears it and reads the old
 * index, and the work waits for the safety sweep (a two-thread test of
 * this order lost 21 of every 3000 wake-ups).  The summary bit is set
 * even when the QP's was: the kicker that set that one may not have got
 * to the summary yet.
 */
void sr_sched_kick_locked(struct sr_dev *dev, const struct sr_qp *qp)
{
	uint32_t idx = qp->qpn - dev->qpn_base;
	uint32_t wi = (idx / 64) % SR_SCHED_WORDS;
	_Atomic uint64_t *w = &dev->kick[wi];
	uint64_t bit = 1ull << (idx % 64);

	if (!(atomic_load_explicit(w, memory_order_relaxed) & bit))
		atomic_fetch_or_explicit(w, bit, memory_order_seq_cst);
	sr_sched_sum_set(dev, wi);
}

void sr_sched_kick(struct sr_dev *dev, const struct sr_qp *qp)
{
	atomic_thread_fence(memory_order_seq_cst);
	sr_sched_kick_locked(dev, qp);
}

void sr_sched_kick_all(struct sr_dev *dev)
{
	for (unsigned int i = 0; i < SR_SCHED_SHARDS; i++)
		if (dev->sched[i] != NULL)
			dev->sched[i]->next_sweep = 0;
}

struct sr_sched_shard *sr_sched_shard_get(struct sr_dev *dev,
					  unsigned int shard,
					  unsigned int nshards)
{
	struct sr_sched_shard *sh;

	if (shard >= SR_SCHED_SHARDS || nshards > SR_SCHED_SHARDS)
		return NULL;
	sh = dev->sched[shard];
	if (sh == NULL) {
		sh = calloc(1, sizeof(*sh));
		if (sh == NULL)
			return NULL;
		dev->sched[shard] = sh;
	}
	if (sh->nshards != nshards) {
		for (uint32_t i = 0; i < SR_MAX_QP; i++) {
			uint64_t bit = 1ull << (i % 64);

			if (sr_dev_qpn_shard(dev->qpn_base + i, nshards) == shard)
				sh->mask[i / 64] |= bit;
			else
				sh->mask[i / 64] &= ~bit;
		}
		sh->nshards = nshards;
		sh->next_sweep = 0;       /* take everything once */
	}
	return sh;
}

static void sr_sched_ready(struct sr_dev *dev, struct sr_sched_shard *sh,
			   uint32_t idx)
{
	if (dev->sched_in[idx])
		return;
	dev->sched_in[idx] = 1;
	sh->ready[sh->nready++] = (uint16_t)idx;
}

/* ---- the timer heap: the earliest deadline at heap[0] ---- */

static void sr_heap_swap(struct sr_sched_timer *a, struct sr_sched_timer *b)
{
	struct sr_sched_timer t = *a;

	*a = *b;
	*b = t;
}

static bool sr_heap_push(struct sr_sched_shard *sh, uint64_t at, uint32_t idx)
{
	uint32_t i = sh->nheap;

	if (i == SR_SCHED_HEAP)
		return false;
	sh->heap[sh->nheap++] = (struct sr_sched_timer){ .at = at, .idx = idx };
	while (i > 0 && sh->heap[(i - 1) / 2].at > sh->heap[i].at) {
		sr_heap_swap(&sh->heap[(i - 1) / 2], &sh->heap[i]);
		i = (i - 1) / 2;
	}
	return true;
}

static void sr_heap_pop(struct sr_sched_shard *sh)
{
	uint32_t i = 0;

	sh->heap[0] = sh->heap[--sh->nheap];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < sh->nheap && sh->heap[l].at < sh->heap[m].at)
			m = l;
		if (r < sh->nheap && sh->heap[r].at < sh->heap[m].at)
			m = r;
		if (m == i)
			return;
		sr_heap_swap(&sh->heap[m], &sh->heap[i]);
		i = m;
	}
}

void sr_sched_gather(struct sr_dev *dev, struct sr_sched_shard *sh,
		     unsigned int shard, uint64_t now)
{
	(void)shard;
	/* the kicked QPs of this shard, from the words the summary names; a
	 * word that keeps other shards' kicks is named again for them */
	for (uint32_t s = 0; s < SR_SCHED_SUM_WORDS; s++) {
		uint64_t words;

		if (atomic_load_explicit(&dev->kick_sum[s], memory_order_relaxed) == 0)
			continue;
		words = atomic_exchange_explicit(&dev->kick_sum[s], 0,
						 memory_order_seq_cst);
		while (words) {
			uint32_t w = s * 64 + (uint32_t)__builtin_ctzll(words);
			uint64_t old, bits;

			words &= words - 1;
			old = atomic_fetch_and_explicit(&dev->kick[w], ~sh->mask[w],
							memory_order_seq_cst);
			if (old & ~sh->mask[w])
				sr_sched_sum_set(dev, w);
			for (bits = old & sh->mask[w]; bits; bits &= bits - 1)
				sr_sched_ready(dev, sh, w * 64 +
					       (uint32_t)__builtin_ctzll(bits));
		}
	}
	if (now >= sh->next_sweep) {
		/* the safety net: every QP of the shard */
		for (uint32_t i = 0, seen = 0; i < SR_MAX_QP && seen < dev->nqp; i++) {
			if (dev->qps[i] == NULL)
				continue;
			seen++;
			if (sh->mask[i / 64] & 1ull << (i % 64))
				sr_sched_ready(dev, sh, i);
		}
		sh->next_sweep = dev->sched_sweep_ns == UINT64_MAX ? UINT64_MAX
				 : now + dev->sched_sweep_ns;
	}
	while (sh->nheap > 0 && sh->heap[0].at <= now) {
		struct sr_sched_timer t = sh->heap[0];
		struct sr_qp *qp = dev->qps[t.idx];

		sr_heap_pop(sh);
		if (qp != NULL && qp->sched_at == t.at) {
			qp->sched_at = 0;
			sr_sched_ready(dev, sh, t.idx);
		}
	}
}

void sr_sched_done(struct sr_dev *dev, struct sr_sched_shard *sh,
		   struct sr_qp *qp, bool busy, uint64_t now, uint64_t delay)
{
	uint32_t idx = qp->qpn - dev->qpn_base;
	uint64_t at;

	if (!busy && delay != UINT64_MAX) {
		at = now + (delay ? delay : 1);
		if (qp->sched_at != 0 && qp->sched_at <= at)
			return;           /* an earlier entry is in the heap */
		if (sr_heap_push(sh, at, idx)) {
			qp->sched_at = at;
			return;
		}
		busy = true;              /* heap full: stay ready */
	}
	if (busy)
		sr_sched_ready(dev, sh, idx);
}

void sr_dev_sched_stats(struct sr_dev *dev, uint32_t *ready, uint32_t *timers)
{
	*ready = *timers = 0;
	sr_dev_lock_all(dev);
	for (unsigned int i = 0; i < SR_SCHED_SHARDS; i++)
		if (dev->sched[i] != NULL) {
			*ready += dev->sched[i]->nready;
			*timers += dev->sched[i]->nheap;
		}
	sr_dev_unlock_all(dev);
}
