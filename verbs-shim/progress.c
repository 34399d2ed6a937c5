/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * progress.c — who runs the device engine.
 *
 * Inline (the default): every post and poll calls sr_pmd_progress(), so a
 * busy-polling consumer drives its own device.  But a consumer is often
 * elsewhere — blocked in ibv_get_cq_event() or poll() on a channel fd, or
 * in its own TCP exchange while the peer resolves its MAC and sends the
 * first packets — and its device must still answer ARP, ACK and time
 * out.  So once the device is up a helper thread progresses it too: it
 * spins while a completion channel is armed (a consumer waits for an
 * event), and otherwise progresses in the background: it keeps polling
 * while traffic flows (a passive peer, like perftest's READ server, is
 * served at the link's pace) and naps once the device has been idle a
 * while.
 * sr_pmd_progress() lets one thread in at a time (the others return at
 * once), so the helper and the consumer never run the engine together;
 * and the helper stays out while the consumer progresses itself, so it
 * is never preempted holding the engine that a polling consumer needs.
 * In dedicated mode the pmd's own lcore progresses and there is no helper.
 */
#include <errno.h>
#include <sched.h>
#include <sys/prctl.h>
#include <time.h>

#include "pmd.h"
#include "shim.h"

/* With a waiter: idle rounds before the helper naps, and the nap. */
#define SR_HELPER_SPIN   2048
#define SR_HELPER_NAP_NS 20000
/* Without: the background nap between idle rounds. */
#define SR_HELPER_BG_NAP_NS 200000
/* Posts to a busy send queue between two runs of the engine, at most. */
#define SR_POST_KICK_EVERY  16
/* The consumer progresses itself: the helper looks again this much later, */
#define SR_HELPER_DEFER_NS  1000000
/*
 * ... or this much later while a consumer sleeps on the daemon's doorbell
 * (sr_ibv_poll_after): frames wake it, and it wakes by itself within
 * SR_POLL_SLEEP_US, so the helper has nothing to do for it.
 */
#define SR_HELPER_DEFER_BELL_NS 4000000
/*
 * ... or this much later when the helper itself found work lately (within
 * SR_HELPER_LEFT_NS): a consumer that posts and then waits by polling
 * memory, not its CQ (perftest's ib_write_lat), leaves the rest of a long
 * message, and the ACKs its peer waits for, to the helper.
 */
#define SR_HELPER_DEFER_SHORT_NS 50000
#define SR_HELPER_LEFT_NS   10000000
/*
 * The consumer ran the engine this recently: it is likely spinning on its
 * core, and the helper's waits are short sleeps, not yields.  A thread
 * that yields in a loop spends its share of the CPU, and the scheduler
 * (EEVDF) lets it back past a spinning thread only at the next tick
 * (4 ms); one that slept wakes with credit and runs at once (ib_write_lat
 * 1 MiB: 4 ms -> 0.7-1.0 ms).  With the consumer away (a passive server),
 * yielding keeps the helper on the CPU at the link's pace.
 */
#define SR_HELPER_SHARED_NS 2000000
#define SR_HELPER_HOT_NAP_NS 10000
/* The helper's sleeps are this precise (the default slack is 50 us). */
#define SR_HELPER_SLACK_NS  1000
/*
 * The helper did work this recently: keep polling, do not nap.  A passive
 * peer (perftest's READ and bandwidth servers make no verbs calls) is
 * served at the link's pace instead of one request per nap.
 */
#define SR_HELPER_HOT_NS    200000

int sr_ibv_progress_work(struct sr_ibv_rt *rt)
{
	if (rt->pmd && rt->cfg.mode == SR_PMD_MODE_INLINE) {
		/* "it changed" is all the helper asks: no atomic add */
		atomic_store_explicit(&rt->inline_rounds,
			atomic_load_explicit(&rt->inline_rounds,
					     memory_order_relaxed) + 1,
			memory_order_relaxed);
		return sr_pmd_progress(rt->pmd);
	}
	return 0;
}

void sr_ibv_progress(struct sr_ibv_rt *rt)
{
	(void)sr_ibv_progress_work(rt);
}

/*
 * A client of sroced that polls its CQ in a loop and finds nothing is
 * waiting for frames that only the daemon can bring, and on a machine
 * with fewer CPUs than polling threads the daemon waits for this very
 * CPU.  Every SR_POLL_YIELD_EVERY-th empty poll in a row yields it: the
 * daemon (woken by a doorbell or its port) runs at once instead of at
 * the end of the poller's time slice; with nothing else to run the yield
 * returns at once.  On 2 CPUs, ib_write_bw 64 KiB through two daemons,
 * 8 pairs at once: 0.35 -> 1.22 Gbit/s aggregate (docs/sroced.md).  The
 * embedded device does not yield: its peer needs no third thread.
 * When the daemon serves other clients too, the poll sleeps instead
 * (SR_POLL_SLEEP_US at most), until the daemon brings frames: a polling
 * client then takes CPU the daemon needs for the others (8 pairs: 1.65
 * -> 1.85 Gbit/s, medians of 5).  A lone client keeps polling: its wait
 * is a round trip, and a wake-up would double it (ib_write_lat through
 * two daemons: 26 -> 50 us).
 * The sleep's bound is only for the engine's own timers (it is the next
 * one's, if sooner): any frame rings the bell.  A bound of
 * 200 us woke each of 8 senders 2000 times a second for nothing, and
 * the helper, seeing its consumer gone, polled in its place; on a VM
 * every such switch costs microseconds the daemon needed (8 pairs
 * through two daemons: 0.83 / 0.87 / 1.03 -> 1.15 / 1.15 / 1.17 Gbit/s,
 * docs/performance.md).
 */
#define SR_POLL_YIELD_EVERY 16
#define SR_POLL_SLEEP_US    2000

/*
 * Sleep on the daemon's doorbell, bounded by the engine's next timer (a
 * congestion-control pacer or an RNR wait may be due in microseconds):
 * true if it slept.  One thread at a time: the doorbell has one flag and
 * one eventfd, and the first thread it woke would leave the others asleep
 * to the bound; another poller yields instead.  The helper stays away
 * meanwhile (sr_ibv_helper).
 */
static bool sr_ibv_bell_sleep(struct sr_ibv_rt *rt)
{
	uint64_t due = sr_dev_next_timer_ns(rt->dev) / 1000;
	uint32_t us = due < SR_POLL_SLEEP_US ? (uint32_t)due : SR_POLL_SLEEP_US;
	unsigned int none = 0;

	if (us == 0 ||
	    !atomic_compare_exchange_strong(&rt->bell_sleepers, &none, 1))
		return false;
	(void)sr_pmd_daemon_sleep(rt->pmd, us);
	atomic_store(&rt->bell_sleepers, 0);
	return true;
}

/*
 * Give the daemon this CPU: sleep on its doorbell when it serves other
 * clients too (and the engine runs inline: an engine lcore would fill
 * the CQ meanwhile), else yield.
 */
static void sr_ibv_cede(struct sr_ibv_rt *rt)
{
	if (rt->cfg.mode != SR_PMD_MODE_INLINE ||
	    !sr_pmd_daemon_shared(rt->pmd) || !sr_ibv_bell_sleep(rt))
		sched_yield();
}

void sr_ibv_poll_after(struct sr_ibv_rt *rt, bool idle)
{
	if (rt->daemon_fd < 0)
		return;         /* no write to rt per poll of the embedded device */
	if (!idle) {
		if (rt->empty_polls != 0)
			rt->empty_polls = 0;
		return;
	}
	if (++rt->empty_polls >= SR_POLL_YIELD_EVERY) {
		rt->empty_polls = 0;
		sr_ibv_cede(rt);
	}
}

/*
 * A post to a send queue with nothing outstanding — a ping-pong, a
 * request — goes out at once: the post runs the engine.  A post behind
 * others is a stream: the consumer will poll its CQ to reap them, and
 * that poll's round sends the posts since the last one in one burst,
 * instead of one round and one one-frame burst per post (ib_write_bw
 * 64 B: 1.2 -> 3.8 M msg/s).  Every SR_POST_KICK_EVERY-th post runs the
 * engine anyway, so a burst of posts never waits for more than that.
 */
void sr_ibv_progress_post(struct sr_ibv_qp *w, uint32_t outstanding)
{
	/* posters of one QP may race here: a lost count is harmless */
	unsigned int n = atomic_load_explicit(&w->posts_unsent,
					      memory_order_relaxed) + 1;

	bool bell = atomic_load_explicit(&w->rt->bell_sleepers,
					 memory_order_relaxed) != 0;

	if (outstanding == 0 || n >= SR_POST_KICK_EVERY || bell) {
		atomic_store_explicit(&w->posts_unsent, 0,
				      memory_order_relaxed);
		sr_ibv_progress(w->rt);
		/*
		 * Another thread sleeps on the doorbell and will not send
		 * it soon; if it held the engine (its last round before
		 * the sleep), ours found the engine taken: wake it.
		 */
		if (bell)
			sr_pmd_daemon_wake(w->rt->pmd);
	} else {
		atomic_store_explicit(&w->posts_unsent, n,
				      memory_order_relaxed);
	}
}

static void *sr_ibv_helper(void *arg)
{
	struct sr_ibv_rt *rt = arg;
	const struct timespec nap = { .tv_nsec = SR_HELPER_NAP_NS };
	const struct timespec bg_nap = { .tv_nsec = SR_HELPER_BG_NAP_NS };
	const struct timespec defer = { .tv_nsec = SR_HELPER_DEFER_NS };
	const struct timespec defer_short = { .tv_nsec = SR_HELPER_DEFER_SHORT_NS };
	const struct timespec defer_bell = { .tv_nsec = SR_HELPER_DEFER_BELL_NS };
	const struct timespec hot_nap = { .tv_nsec = SR_HELPER_HOT_NAP_NS };
	uint64_t hot_until = 0, seen = 0, left = 0, active = 0;
	unsigned int idle = 0;
	bool registered = sr_pmd_thread_register() == 0;

	(void)prctl(PR_SET_TIMERSLACK, SR_HELPER_SLACK_NS, 0, 0, 0);

	while (!atomic_load(&rt->helper_stop)) {
		uint64_t rounds = atomic_load_explicit(&rt->inline_rounds,
						       memory_order_relaxed);
		uint64_t now = sr_pmd_now_ns(rt->pmd);

		bool bell = atomic_load_explicit(&rt->bell_sleepers,
						 memory_order_relaxed) != 0;

		if (rounds != seen || bell) {
			/*
			 * The consumer progressed since the last look: it is
			 * polling; look again a window later.  Each wake-up
			 * preempts it on its core, and costs ~20 us on a
			 * virtual machine.
			 */
			seen = rounds;
			active = now;
			if (atomic_load(&rt->waiters))
				nanosleep(&nap, NULL);
			else if (bell)
				nanosleep(&defer_bell, NULL);
			else if (left != 0 && now - left < SR_HELPER_LEFT_NS)
				nanosleep(&defer_short, NULL);
			else
				nanosleep(&defer, NULL);
			idle = 0;
			continue;
		}
		if (sr_pmd_progress(rt->pmd) > 0) {
			hot_until = now + SR_HELPER_HOT_NS;
			left = now;
			idle = 0;
		} else if ((int64_t)(hot_until - now) > 0) {
			/*
			 * Traffic just flowed: more is coming, poll on — but
			 * let a consumer thread on this core run first: it
			 * may be about to answer what was just delivered.
			 */
			if (active != 0 && now - active < SR_HELPER_SHARED_NS)
				nanosleep(&hot_nap, NULL);
			else
				sched_yield();
		} else if (atomic_load(&rt->waiters) == 0) {
			nanosleep(&bg_nap, NULL);
		} else if (rt->daemon_fd >= 0) {
			/*
			 * A consumer waits for an event that only the daemon's
			 * frames can bring: as a polling consumer does
			 * (sr_ibv_poll_after), give the daemon this CPU now
			 * and then, or sleep on its doorbell when it serves
			 * others.  Spinning SR_HELPER_SPIN rounds kept it off
			 * the CPU: qperf rc_lat (event mode) through two
			 * daemons took 350-600 us.
			 */
			if (++idle % SR_POLL_YIELD_EVERY == 0)
				sr_ibv_cede(rt);
		} else if (++idle > SR_HELPER_SPIN) {
			nanosleep(&nap, NULL);
		}
	}
	if (registered)
		sr_pmd_thread_unregister();
	return NULL;
}

int sr_ibv_helper_start(struct sr_ibv_rt *rt)
{
	int rc = 0;

	if (rt->pmd == NULL || rt->cfg.mode != SR_PMD_MODE_INLINE)
		return 0;
	pthread_mutex_lock(&rt->wait_lock);
	if (!rt->helper_started) {
		atomic_store(&rt->helper_stop, false);
		rc = pthread_create(&rt->helper, NULL, sr_ibv_helper, rt);
		if (rc == 0) {
			pthread_setname_np(rt->helper, "sroce-progress");
			rt->helper_started = true;
		}
	}
	pthread_mutex_unlock(&rt->wait_lock);
	return -rc;
}

int sr_ibv_waiter_add(struct sr_ibv_rt *rt)
{
	atomic_fetch_add(&rt->waiters, 1);
	return 0;
}

void sr_ibv_waiter_del(struct sr_ibv_rt *rt)
{
	unsigned int n = atomic_load(&rt->waiters);

	while (n > 0 && !atomic_compare_exchange_weak(&rt->waiters, &n, n - 1))
		;
}

void sr_ibv_helper_stop(struct sr_ibv_rt *rt)
{
	pthread_mutex_lock(&rt->wait_lock);
	if (!rt->helper_started) {
		pthread_mutex_unlock(&rt->wait_lock);
		return;
	}
	atomic_store(&rt->helper_stop, true);
	pthread_mutex_unlock(&rt->wait_lock);
	pthread_join(rt->helper, NULL);
	rt->helper_started = false;
	atomic_store(&rt->waiters, 0);
}
