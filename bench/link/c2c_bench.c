/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-bench-c2c — how long one cache line takes to go from one CPU to
 * another: two threads, each pinned to one of two CPUs, hand a counter
 * back and forth; half of the mean round trip is printed.
 *
 * Every frame between two processes on one host crosses cores this way
 * (a memif ring's descriptors, its buffers, its head and tail), so a raw
 * link's round trip is a few of these, and so is most of a small RDMA
 * message's.  On a VM whose virtual CPUs the host moves, the figure can
 * change from one minute to the next (on the VMs sroce is measured on:
 * about 55 ns or about 215 ns), and every latency and small-message
 * figure moves with it: scripts/bench.sh prints it beside each pair of
 * runs it compares (docs/performance.md, "Paired runs").
 *
 * With --wake it measures a wake-up instead: the two threads block on an
 * eventfd each and hand a token back and forth, so every hop is a
 * write() that wakes a sleeping thread on the other CPU (or, with the
 * same CPU twice, on this one).  That is the hop a frame pays through
 * sroced whenever the daemon or the client it goes to is asleep, and on
 * a VM it can cost a hundred times the cache line (docs/performance.md,
 * "Why a hop through the daemon costs what it does").
 *
 *   sroce-bench-c2c [--cpus A,B] [--trips N] [--wake]
 *
 * Default CPUs: the first two this process may run on.  Prints a line and
 * one JSON record; asserts nothing.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

struct c2c {
	_Alignas(64) volatile uint64_t line;   /* the line that travels */
	_Alignas(64) uint64_t trips;
	volatile int failed;                   /* the answering side's pin */
	int cpu[2];
	int efd[2];                            /* --wake: to each side */
};

static int pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The answering side: odd values in, the next even value back. */
static void *c2c_answer(void *arg)
{
	struct c2c *c = arg;

	if (pin(c->cpu[1]) != 0) {
		c->failed = 1;
		return NULL;
	}
	for (uint64_t i = 1; i <= c->trips; i++) {
		while (c->line != 2 * i - 1)
			relax();
		c->line = 2 * i;
	}
	return NULL;
}

/* --wake: the answering side sleeps on its eventfd, then wakes the other. */
static void *wake_answer(void *arg)
{
	struct c2c *c = arg;
	uint64_t v;

	if (pin(c->cpu[1]) != 0)
		c->failed = 1;
	for (uint64_t i = 1; i <= c->trips; i++) {
		if (read(c->efd[1], &v, sizeof(v)) != sizeof(v))
			c->failed = 1;
		v = 1;
		if (c->failed || write(c->efd[0], &v, sizeof(v)) != sizeof(v)) {
			c->failed = 1;
			v = 1;     /* let the other side out of its read */
			(void)!write(c->efd[0], &v, sizeof(v));
			return NULL;
		}
	}
	return NULL;
}

/* Round trip i from the first side, by cache line; false on failure. */
static bool line_trip(struct c2c *c, uint64_t i)
{
	c->line = 2 * i - 1;
	while (c->line != 2 * i && !c->failed)
		relax();
	return !c->failed;
}

/* Round trip i of --wake from the first side; false on failure. */
static bool wake_trip(struct c2c *c, uint64_t i)
{
	uint64_t v = 1;

	(void)i;
	return write(c->efd[1], &v, sizeof(v)) == sizeof(v) &&
	       read(c->efd[0], &v, sizeof(v)) == sizeof(v) && !c->failed;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The first two CPUs this process may use; -1 when fewer than two. */
static int allowed_pair(int cpu[2])
{
	cpu_set_t s;
	int n = 0;

	if (sched_getaffinity(0, sizeof(s), &s) != 0)
		return -1;
	for (int i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &s))
			cpu[n++] = i;
	return n == 2 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "trips", required_argument, NULL, 'n' },
		{ "wake", no_argument, NULL, 'w' },
		{ 0 },
	};
	static struct c2c c = { .trips = 0 };
	bool wake = false;
	bool (*trip)(struct c2c *, uint64_t);
	pthread_t t;
	double t0, t1;
	int o;

	if (allowed_pair(c.cpu) != 0) {
		fprintf(stderr, "sroce-bench-c2c: needs two CPUs\n");
		return 77;
	}
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			if (sscanf(optarg, "%d,%d", &c.cpu[0], &c.cpu[1]) != 2)
				goto usage;
			break;
		case 'w':
			wake = true;
			break;
		case 'n':
			c.trips = strtoull(optarg, NULL, 0);
			if (c.trips == 0 || c.trips > 100000000)
				goto usage;
			break;
		default:
			goto usage;
		}
	}
	if (c.cpu[0] == c.cpu[1] && !wake)    /* a line needs two CPUs */
		goto usage;
	if (c.trips == 0)
		c.trips = wake ? 20000 : 200000;
	if (pin(c.cpu[0]) != 0) {
		fprintf(stderr, "sroce-bench-c2c: cannot run on CPU %d\n",
			c.cpu[0]);
		return 1;
	}
	if (wake) {
		c.efd[0] = eventfd(0, 0);
		c.efd[1] = eventfd(0, 0);
		if (c.efd[0] < 0 || c.efd[1] < 0)
			return 1;
	}
	if (pthread_create(&t, NULL, wake ? wake_answer : c2c_answer, &c) != 0)
		return 1;
	trip = wake ? wake_trip : line_trip;
	t0 = now_ns();
	for (uint64_t i = 1; i <= c.trips && trip(&c, i); i++)
		;
	t1 = now_ns();
	if (pthread_join(t, NULL) != 0 || c.failed) {
		fprintf(stderr, "sroce-bench-c2c: cannot run on CPU %d\n",
			c.cpu[1]);
		return 1;
	}
	printf("%s CPU %d -> CPU %d: %.1f ns one way (%llu round trips)\n",
	       wake ? "wake-up" : "cache line", c.cpu[0], c.cpu[1],
	       (t1 - t0) / (double)c.trips / 2, (unsigned long long)c.trips);
	printf("{\"bench\":\"%s\",\"cpus\":[%d,%d],\"one_way_ns\":%.1f}\n",
	       wake ? "wake" : "c2c", c.cpu[0], c.cpu[1],
	       (t1 - t0) / (double)c.trips / 2);
	return 0;
usage:
	fprintf(stderr,
		"usage: sroce-bench-c2c [--cpus A,B] [--trips N] [--wake]\n");
	return 2;
}
