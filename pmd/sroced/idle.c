/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * idle.c — what sroced does when a round found nothing (sroced.h): spin a
 * little, keep polling a while with the CPU yielded between rounds, then
 * sleep until a frame or a request comes — on its ports' sockets, its
 * control connections and its clients' doorbells (sroced/proto.h, struct
 * srd_bell) — or, where something has no descriptor to wait on, nap on a
 * timer.
 */
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sroced.h"

/*
 * The spin after the last work, the rounds that yield the CPU after it,
 * and the nap where the daemon cannot sleep until woken.
 *
 * Spinning: with 4 or more CPUs, a client's next frame is best met
 * spinning (50 us, then 10 us naps).  With fewer, the clients' own
 * polling threads (and on a two-host test, another daemon) take the
 * cores, and every microsecond the daemon spins is taken from a client
 * that has frames to send: on 2 CPUs, ib_write_lat through two daemons
 * measured 92-224 us typical with 50/10 and 26-108 us with 5/50,
 * ib_write_bw 64 B 0.043-0.049 against 0.19 M msg/s (docs/sroced.md).
 *
 * Yielding: then, for idle_yield_ns, each idle round ends in
 * sched_yield() instead of a sleep.  The daemon stays runnable, so a
 * client's frame needs no wake-up: a thread that sleeps is woken by an
 * interrupt to its CPU, and on a VM that is the dearest step of all
 * (sroce-bench-c2c --wake: 40 us to a busy virtual CPU, 100-180 us to an
 * idle one on the nested VM sroce is measured on, against 4 us to hand
 * the CPU over on the same one).  Yielding gives the CPU to whatever else
 * wants it (a client that polls its CQ yields too), so it takes nothing
 * from the clients that spinning took; where nothing else wants the
 * CPU it is a spin.  On 2 CPUs through two daemons, 5 runs each:
 * ib_write_lat 64 B 43-61 -> 20-38 us typical, ib_write_bw 64 B
 * 0.093-0.106 -> 0.148-0.208 M msg/s, 64 KiB 1.02-1.32 -> 1.16-1.65
 * Gbit/s (docs/performance.md).  After it the daemon sleeps, so an idle
 * device costs no CPU.
 *
 * --idle-spin-us, --idle-yield-us and --idle-nap-us set them.
 */
void srd_idle_defaults(struct sroced *d)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		n = CPU_COUNT(&set);
	if (n >= 4) {
		d->idle_spin_ns = 50000;
		d->idle_nap_ns = 10000;
	} else {
		d->idle_spin_ns = 5000;
		d->idle_nap_ns = 50000;
	}
	d->idle_yield_ns = SRD_IDLE_YIELD_NS;
}

/* What a sleep watches: the ports' sockets, the doorbells, the control
 * socket and every client's connection. */
#define SRD_POLL_MAX (SRD_DEVS_MAX * 16 + 2 * SRD_CLIENTS_MAX + 1)

/* The idle policy in words, for the start's log line. */
const char *srd_idle_how(const struct sroced *d)
{
	static char how[96];
	int fds[16];

	for (unsigned int i = 0; !d->no_sleep && i < d->ndevs; i++)
		if (sr_pmd_rx_fds(d->dev[i].pmd, fds, 16) < 0)
			goto nap;
	if (!d->no_sleep)
		return "sleeps until a frame or a request comes";
nap:
	snprintf(how, sizeof(how), "naps %llu us (%s)",
		 (unsigned long long)(d->idle_nap_ns / 1000),
		 d->no_sleep ? "--no-sleep" : "a port without a socket to wait on");
	return how;
}

/* What each descriptor of a sleep is (for the wake-up's accounting). */
struct srd_sleep {
	struct pollfd pf[SRD_POLL_MAX];
	struct srd_client *bell_of[SRD_POLL_MAX];   /* a doorbell's client */
	unsigned int n;
	unsigned int nctl;                          /* the first nctl: control */
};

static void srd_sleep_add(struct srd_sleep *s, int fd, struct srd_client *c)
{
	if (s->n < SRD_POLL_MAX) {
		s->pf[s->n] = (struct pollfd){ .fd = fd, .events = POLLIN };
		s->bell_of[s->n++] = c;
	}
}

/*
 * Everything the daemon serves, with a descriptor that wakes it: false
 * when something has none (a memif or PCI port, a client without a
 * doorbell) or still holds frames to send — then it naps instead.
 */
static bool srd_sleep_set(struct sroced *d, struct srd_sleep *s)
{
	int fds[16];

	s->n = 0;
	srd_sleep_add(s, d->listen_fd, NULL);
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++)
		if (d->client[i] != NULL)
			srd_sleep_add(s, d->client[i]->fd, NULL);
	s->nctl = s->n;
	for (unsigned int i = 0; i < d->ndevs; i++) {
		int k = sr_pmd_rx_fds(d->dev[i].pmd, fds, 16);

		if (k < 0 || !sr_pmd_tx_idle(d->dev[i].pmd))
			return false;
		for (int j = 0; j < k; j++)
			srd_sleep_add(s, fds[j], NULL);
	}
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++) {
		struct srd_client *c = d->client[i];

		if (c == NULL || c->port == NULL)
			continue;
		if (c->bell == NULL || !sr_pmd_tx_idle(c->port))
			return false;
		srd_sleep_add(s, c->bell_efd, c);
	}
	return s->n < SRD_POLL_MAX;
}

static void srd_bells(struct sroced *d, uint32_t v)
{
	for (unsigned int i = 0; i < SRD_CLIENTS_MAX; i++)
		if (d->client[i] != NULL && d->client[i]->bell != NULL)
			__atomic_store_n(&d->client[i]->bell->daemon_asleep, v,
					 __ATOMIC_SEQ_CST);
}

/*
 * Sleep until a frame or a request comes, or timeout_ns: the doorbells
 * are set (proto.h), every ring looked at once more, then ppoll().
 * Returns true when the control socket has something to read.
 */
static bool srd_sleep(struct sroced *d, struct srd_sleep *s,
		      uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000ull),
			       (long)(timeout_ns % 1000000000ull) };
	bool ctl = false;
	int rc;

	srd_bells(d, 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (srd_round(d) > 0) {
		srd_bells(d, 0);
		return false;
	}
	rc = ppoll(s->pf, s->n, &ts, NULL);
	srd_bells(d, 0);
	for (unsigned int i = 0; rc > 0 && i < s->n; i++) {
		uint64_t v;

		if (s->pf[i].revents == 0)
			continue;
		if (i < s->nctl) {
			ctl = true;
		} else if (s->bell_of[i] != NULL) {
			if (read(s->pf[i].fd, &v, sizeof(v)) == sizeof(v))
				sr_stats_add(sr_pmd_stats(s->bell_of[i]->port),
					     SR_CTR_SW_BELL_WAKEUPS, 1);
		}
	}
	return ctl;
}

/*
 * After a round that found nothing, by how long the daemon has been idle:
 * spin idle_spin_ns; yield the CPU after each round for idle_yield_ns;
 * then sleep until a frame or a request wakes it
 * (srd_sleep, 1 ms at most: the ports' timers) when every port and client
 * has a descriptor for that; else nap idle_nap_ns at a time (timer slack
 * 1 us, main), 200 us after 50 ms idle, 1 ms after a second.  Returns
 * true when the control socket has something to read.
 */
bool srd_idle(struct sroced *d, uint64_t idle_ns)
{
	static struct srd_sleep s;
	struct timespec ts = { 0, (long)d->idle_nap_ns };

	if (idle_ns < d->idle_spin_ns)
		return false;
	if (idle_ns < d->idle_spin_ns + d->idle_yield_ns) {
		sched_yield();
		return false;
	}
	if (!d->no_sleep && srd_sleep_set(d, &s))
		return srd_sleep(d, &s, 1000000);
	if (idle_ns >= 1000000000ull && ts.tv_nsec < 1000000)
		ts.tv_nsec = 1000000;
	else if (idle_ns >= 50000000ull && ts.tv_nsec < 200000)
		ts.tv_nsec = 200000;
	nanosleep(&ts, NULL);
	return false;
}
