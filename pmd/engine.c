/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * engine.c — progress: the per-poll round of each lane (inline, or on
 * dedicated lcores, one per lane), the poll callback list, and the work
 * ring through which other threads hand work to lane 0's progress thread.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include "dev_priv.h"
#include "hostnic.h"

#define SR_ENGINE_IDLE_SPINS 1024    /* empty rounds before yielding */
#define SR_ENGINE_WORK_BURST 32
#define SR_LINK_ASK_NS       2000    /* memif link state, asked this often */

int sr_engine_init(struct sr_pmd_dev *dev, char *err, size_t errlen)
{
	struct sr_pmd_engine *e = &dev->engine;
	char name[RTE_RING_NAMESIZE];

	snprintf(name, sizeof(name), "sroce_work_%u", dev->port_id);
	e->work = rte_ring_create(name, SR_RING_SIZE, SOCKET_ID_ANY,
				  RING_F_SC_DEQ);
	snprintf(name, sizeof(name), "sroce_wfree_%u", dev->port_id);
	e->work_free = rte_ring_create(name, SR_RING_SIZE, SOCKET_ID_ANY, 0);
	e->work_pool = rte_calloc("sroce_work", SR_RING_SIZE - 1,
				  sizeof(*e->work_pool), 0);
	if (e->work == NULL || e->work_free == NULL || e->work_pool == NULL) {
		snprintf(err, errlen, "no memory for the engine rings");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < SR_RING_SIZE - 1; i++)
		rte_ring_enqueue(e->work_free, &e->work_pool[i]);
	return 0;
}

void sr_engine_fini(struct sr_pmd_dev *dev)
{
	struct sr_pmd_engine *e = &dev->engine;

	rte_ring_free(e->work);
	rte_ring_free(e->work_free);
	rte_free(e->work_pool);
	e->work = e->work_free = NULL;
	e->work_pool = NULL;
}

int sr_pmd_engine_call(struct sr_pmd_dev *dev, void (*fn)(void *arg),
		       void *arg)
{
	struct sr_pmd_engine *e = &dev->engine;
	struct sr_pmd_work *w;

	if (rte_ring_mc_dequeue(e->work_free, (void **)&w) != 0)
		return -ENOBUFS;
	w->fn = fn;
	w->arg = arg;
	if (rte_ring_mp_enqueue(e->work, w) != 0) {
		rte_ring_mp_enqueue(e->work_free, w);
		return -ENOBUFS;
	}
	return 0;
}

static void sr_engine_mark(void *arg)
{
	__atomic_store_n((bool *)arg, true, __ATOMIC_RELEASE);
}

/* One handed-over call, waited for: 0 or -ETIMEDOUT (the call stays
 * queued and writes *done later: done must outlive it). */
static int sr_engine_call_wait(struct sr_pmd_dev *dev, bool *done,
			       uint64_t deadline)
{
	const struct timespec nap = { .tv_nsec = 20000 };

	while (sr_pmd_engine_call(dev, sr_engine_mark, done) != 0) {
		if (sr_pmd_now_ns(dev) > deadline)
			return -ETIMEDOUT;
		if (sr_pmd_progress(dev) == 0)
			nanosleep(&nap, NULL);
	}
	while (!__atomic_load_n(done, __ATOMIC_ACQUIRE)) {
		if (sr_pmd_now_ns(dev) > deadline)
			return -ETIMEDOUT;
		if (sr_pmd_progress(dev) == 0)
			nanosleep(&nap, NULL);
	}
	return 0;
}

int sr_pmd_engine_sync(struct sr_pmd_dev *dev, uint32_t timeout_ms)
{
	/* Static: a call that times out still writes its flag later. */
	static bool done[2];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	uint64_t deadline = sr_pmd_now_ns(dev) + (uint64_t)timeout_ms * 1000000u;
	int rc = 0;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < 2 && rc == 0; i++) {
		__atomic_store_n(&done[i], false, __ATOMIC_RELEASE);
		rc = sr_engine_call_wait(dev, &done[i], deadline);
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

uint32_t sr_engine_run_work(struct sr_pmd_dev *dev)
{
	struct sr_pmd_engine *e = &dev->engine;
	struct sr_pmd_work *w[SR_ENGINE_WORK_BURST];
	uint32_t n;

	n = rte_ring_sc_dequeue_burst(e->work, (void **)w,
				      SR_ENGINE_WORK_BURST, NULL);
	for (uint32_t i = 0; i < n; i++) {
		void (*fn)(void *) = w[i]->fn;
		void *arg = w[i]->arg;

		rte_ring_mp_enqueue(e->work_free, w[i]);
		fn(arg);
	}
	return n;
}

uint32_t sr_engine_run_callbacks(struct sr_pmd_lane *l)
{
	struct sr_pmd_engine *e = &l->dev->engine;
	uint32_t n = __atomic_load_n(&e->n_cb, __ATOMIC_ACQUIRE), work = 0;

	for (uint32_t i = 0; i < n; i++) {
		int rc = e->cb[i].fn(e->cb[i].ctx, l->id, l->dev->nlanes);

		if (rc > 0)
			work += (uint32_t)rc;
	}
	return work;
}

/*
 * The list changes on lane 0's progress thread only (directly or handed
 * over).  The other lanes read it in their rounds, so they are held out
 * of their rounds (their progress locks) while it changes.  Not from a
 * poll callback of a lane other than 0: -EDEADLK.
 */
struct sr_engine_cb_change {
	struct sr_pmd_dev *dev;
	sr_pmd_poll_fn fn;
	void *ctx;
	bool add;
	volatile int rc;
	volatile bool done;
};

static void sr_engine_cb_apply(void *arg)
{
	struct sr_engine_cb_change *c = arg;
	struct sr_pmd_engine *e = &c->dev->engine;
	uint32_t n = e->n_cb;
	int rc = -ENOENT;

	if (c->add) {
		rc = -ENOSPC;
		if (n < SR_ENGINE_CALLBACKS_MAX) {
			e->cb[n].fn = c->fn;
			e->cb[n].ctx = c->ctx;
			__atomic_store_n(&e->n_cb, n + 1, __ATOMIC_RELEASE);
			rc = 0;
		}
	} else {
		for (uint32_t i = 0; i < n; i++) {
			if (e->cb[i].fn != c->fn || e->cb[i].ctx != c->ctx)
				continue;
			e->cb[i] = e->cb[n - 1];
			__atomic_store_n(&e->n_cb, n - 1, __ATOMIC_RELEASE);
			rc = 0;
			break;
		}
	}
	c->rc = rc;
	__atomic_store_n(&c->done, true, __ATOMIC_RELEASE);
}

static int sr_engine_cb_change(struct sr_pmd_dev *dev, sr_pmd_poll_fn fn,
			       void *ctx, bool add)
{
	struct sr_engine_cb_change c = {
		.dev = dev, .fn = fn, .ctx = ctx, .add = add,
	};
	struct sr_pmd_lane *self = sr_rxtx_lane_of(dev);
	bool running = dev->engine.running;
	uint32_t k;

	if (fn == NULL)
		return -EINVAL;
	if (self != NULL && self->id != 0)
		return -EDEADLK;
	for (k = 1; running && k < dev->nlanes; k++)
		rte_spinlock_lock(&dev->lane[k].progress_lock);
	if (!running || self != NULL) {
		sr_engine_cb_apply(&c);
	} else if (sr_pmd_engine_call(dev, sr_engine_cb_apply, &c) == 0) {
		while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE))
			rte_pause();
	} else {
		c.rc = -ENOBUFS;
	}
	for (k = 1; running && k < dev->nlanes; k++)
		rte_spinlock_unlock(&dev->lane[k].progress_lock);
	return c.rc;
}

int sr_pmd_engine_register(struct sr_pmd_dev *dev, sr_pmd_poll_fn fn,
			   void *ctx)
{
	return sr_engine_cb_change(dev, fn, ctx, true);
}

int sr_pmd_engine_unregister(struct sr_pmd_dev *dev, sr_pmd_poll_fn fn,
			     void *ctx)
{
	return sr_engine_cb_change(dev, fn, ctx, false);
}

/* Lane 0's share of a round: the device's housekeeping. */
static uint32_t sr_engine_housekeeping(struct sr_pmd_dev *dev, uint64_t now)
{
	uint32_t work;

	sr_dev_fault_poll(dev);
	work = sr_engine_run_work(dev);
	/*
	 * memif unmaps the peer's regions from its control thread when the
	 * peer leaves; a burst then would touch them.  Burst only while up
	 * (memif's own bursts test its connected flag too).  Asking costs as
	 * much as a small frame's processing: ask every SR_LINK_ASK_NS.
	 */
	if (dev->memif && now - dev->link_asked_ns >= SR_LINK_ASK_NS) {
		dev->link_asked_ns = now;
		__atomic_store_n(&dev->link_ok, sr_port_link_up(dev),
				 __ATOMIC_RELAXED);
	} else if (!dev->memif) {
		dev->link_ok = true;
	}
	return work;
}

int sr_engine_lane_round(struct sr_pmd_lane *l)
{
	struct sr_pmd_dev *dev = l->dev;
	uint32_t work = 0;
	uint64_t now;

	if (!rte_spinlock_trylock(&l->progress_lock))
		return 0;
	sr_rxtx_current = l;
	now = sr_dev_now_ns(dev);
	l->round_ns = now;
	if (l->id == 0)
		work += sr_engine_housekeeping(dev, now);
	work += sr_rxtx_rx(l);    /* the port only while link_ok */
	work += sr_engine_run_callbacks(l);
	if (l->id == 0) {
		if ((int64_t)(now - dev->neigh_next_ns) >= 0)
			sr_dev_neigh_tick(dev, now);
		if ((int64_t)(now - dev->link_check_ns) >= 0)
			sr_port_keepalive(dev, now);
		if (dev->host != NULL &&
		    (int64_t)(now - dev->host_next_ns) >= 0)
			sr_host_poll(dev, now);
	}
	work += sr_rxtx_flush(l);
	if (work == 0 && dev->cap && l->id == 0) {
		sr_wire_lock(dev);
		sr_capture_flush(dev->cap);
		sr_wire_unlock(dev);
	}
	sr_rxtx_current = NULL;
	rte_spinlock_unlock(&l->progress_lock);
	return (int)work;
}

int sr_pmd_progress(struct sr_pmd_dev *dev)
{
	int work = sr_engine_lane_round(&dev->lane[0]);

	for (uint32_t k = 1; k < dev->nlanes; k++)
		work += sr_engine_lane_round(&dev->lane[k]);
	return work;
}

int sr_pmd_thread_register(void)
{
	if (rte_lcore_id() != LCORE_ID_ANY)
		return 1;
	return rte_thread_register() == 0 ? 0 : -rte_errno;
}

void sr_pmd_thread_unregister(void)
{
	rte_thread_unregister();
}

static int sr_engine_loop(void *arg)
{
	struct sr_pmd_lane *l = arg;
	uint32_t idle = 0;

	while (!l->dev->engine.stop) {
		if (sr_engine_lane_round(l) > 0) {
			idle = 0;
		} else if (++idle >= SR_ENGINE_IDLE_SPINS) {
			/* Share the core when there is nothing to do. */
			idle = 0;
			sched_yield();
		} else {
			rte_pause();
		}
	}
	return 0;
}

int sr_pmd_start(struct sr_pmd_dev *dev)
{
	struct sr_pmd_engine *e = &dev->engine;
	uint32_t k;

	if (dev->cfg.mode != SR_PMD_MODE_DEDICATED)
		return -EINVAL;
	if (e->running)
		return -EBUSY;
	for (k = 0; k < dev->nlanes; k++) {
		uint32_t lc = dev->lane[k].lcore;

		if (!rte_lcore_is_enabled(lc) || lc == rte_get_main_lcore())
			return -EINVAL;
	}
	e->stop = false;
	for (k = 0; k < dev->nlanes; k++) {
		if (rte_eal_remote_launch(sr_engine_loop, &dev->lane[k],
					  dev->lane[k].lcore) != 0)
			break;
	}
	if (k < dev->nlanes) {          /* undo the lanes that started */
		e->stop = true;
		while (k-- > 0)
			rte_eal_wait_lcore(dev->lane[k].lcore);
		return -EBUSY;
	}
	e->running = true;
	return 0;
}

int sr_pmd_stop(struct sr_pmd_dev *dev)
{
	struct sr_pmd_engine *e = &dev->engine;

	if (!e->running)
		return -EALREADY;
	e->stop = true;
	for (uint32_t k = 0; k < dev->nlanes; k++)
		rte_eal_wait_lcore(dev->lane[k].lcore);
	e->running = false;
	return 0;
}
