/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lock.h — the device's locks (one per lane, dev_priv.h; a CQ's and an
 * SRQ's when lanes share them): a test-and-test-and-set spinlock.
 *
 * The engine takes it twice per progress round (the receive burst, then
 * the transport's run), so its uncontended cost is a per-packet cost when
 * rounds carry a packet or two: one atomic exchange to take, one plain
 * release store to give back — about half of a pthread mutex's pair.
 * Holders do not block for long: the engine holds it for one round (its
 * callbacks may take a consumer-side mutex or write an event fd), the slow
 * path (create, modify, destroy) for one update.  A waiter that spins long
 * (its holder was preempted) yields its core.
 */
#ifndef SR_CORE_LOCK_H
#define SR_CORE_LOCK_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

#define SR_LOCK_SPINS 1024    /* tries before a waiter yields */

struct sr_lock {
	atomic_bool held;
};

static inline void sr_lock_init(struct sr_lock *l)
{
	atomic_init(&l->held, false);
}

static inline void sr_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline void sr_lock_acquire(struct sr_lock *l)
{
	unsigned int spins = 0;

	while (atomic_exchange_explicit(&l->held, true, memory_order_acquire)) {
		while (atomic_load_explicit(&l->held, memory_order_relaxed)) {
			if (++spins < SR_LOCK_SPINS) {
				sr_cpu_relax();
			} else {
				spins = 0;
				sched_yield();
			}
		}
	}
}

static inline void sr_lock_release(struct sr_lock *l)
{
	atomic_store_explicit(&l->held, false, memory_order_release);
}

#endif /* SR_CORE_LOCK_H */
