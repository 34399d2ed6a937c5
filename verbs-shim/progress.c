/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * progress.c — who runs the device engine.
 *
 * Inline (the default): every post and poll calls sr_pmd_progress(), so a
 * busy-polling consumer drives its own device.  A consumer that blocks —
 * in ibv_get_cq_event(), in poll() on a completion channel's fd, or in
 * ibv_get_async_event() — cannot: while at least one completion channel
 * is armed or a consumer waits for an async event, a helper thread
 * progresses the device, and sleeps on a condition variable otherwise.
 * sr_pmd_progress() lets one thread in at a time, so the helper and the
 * consumer never run the engine together.  In dedicated mode the pmd's
 * own lcore progresses and both calls return at once.
 */
#include <errno.h>
#include <time.h>

#include "pmd.h"
#include "shim.h"

/* Idle rounds before the helper starts to nap, and the nap. */
#define SR_HELPER_SPIN   2048
#define SR_HELPER_NAP_NS 20000

void sr_ibv_progress(struct sr_ibv_rt *rt)
{
	if (rt->pmd && rt->cfg.mode == SR_PMD_MODE_INLINE)
		sr_pmd_progress(rt->pmd);
}

static void *sr_ibv_helper(void *arg)
{
	struct sr_ibv_rt *rt = arg;
	const struct timespec nap = { .tv_nsec = SR_HELPER_NAP_NS };
	unsigned int idle = 0;

	while (!atomic_load(&rt->helper_stop)) {
		if (atomic_load(&rt->waiters) == 0) {
			pthread_mutex_lock(&rt->wait_lock);
			while (atomic_load(&rt->waiters) == 0 &&
			       !atomic_load(&rt->helper_stop))
				pthread_cond_wait(&rt->wait_cond,
						  &rt->wait_lock);
			pthread_mutex_unlock(&rt->wait_lock);
			idle = 0;
			continue;
		}
		if (sr_pmd_progress(rt->pmd) > 0) {
			idle = 0;
		} else if (++idle > SR_HELPER_SPIN) {
			nanosleep(&nap, NULL);
		}
	}
	return NULL;
}

int sr_ibv_waiter_add(struct sr_ibv_rt *rt)
{
	int rc = 0;

	if (rt->pmd == NULL || rt->cfg.mode != SR_PMD_MODE_INLINE)
		return 0;
	pthread_mutex_lock(&rt->wait_lock);
	if (!rt->helper_started) {
		atomic_store(&rt->helper_stop, false);
		rc = pthread_create(&rt->helper, NULL, sr_ibv_helper, rt);
		if (rc) {
			pthread_mutex_unlock(&rt->wait_lock);
			return -rc;
		}
		pthread_setname_np(rt->helper, "sroce-progress");
		rt->helper_started = true;
	}
	atomic_fetch_add(&rt->waiters, 1);
	pthread_cond_signal(&rt->wait_cond);
	pthread_mutex_unlock(&rt->wait_lock);
	return 0;
}

void sr_ibv_waiter_del(struct sr_ibv_rt *rt)
{
	if (rt->pmd == NULL || rt->cfg.mode != SR_PMD_MODE_INLINE)
		return;
	if (atomic_load(&rt->waiters) > 0)
		atomic_fetch_sub(&rt->waiters, 1);
}

void sr_ibv_helper_stop(struct sr_ibv_rt *rt)
{
	pthread_mutex_lock(&rt->wait_lock);
	if (!rt->helper_started) {
		pthread_mutex_unlock(&rt->wait_lock);
		return;
	}
	atomic_store(&rt->helper_stop, true);
	pthread_cond_signal(&rt->wait_cond);
	pthread_mutex_unlock(&rt->wait_lock);
	pthread_join(rt->helper, NULL);
	rt->helper_started = false;
	atomic_store(&rt->waiters, 0);
}
