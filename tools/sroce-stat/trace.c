/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trace.c — sroce-stat --trace QPN: follow one QP of a running device, one
 * line per event (lib/core/trace.h), until SIGINT, --count events or
 * --timeout seconds, or the device's process ends; then the QP's trace is
 * turned off again.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/trace.h"
#include "counters.h"
#include "trace.h"

static volatile sig_atomic_t stat_trace_stop;

static void stat_trace_signal(int sig)
{
	(void)sig;
	stat_trace_stop = 1;
}

static uint64_t stat_trace_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool stat_trace_alive(int pid)
{
	return kill(pid, 0) == 0 || errno != ESRCH;
}

/* Print the ring's new events of qpn.  Returns how many were printed. */
static unsigned long stat_trace_drain(struct sr_trace_ring *r, uint32_t qpn,
				      uint64_t *t0, unsigned long max)
{
	struct sr_trace_rec e[256];
	unsigned long printed = 0;
	unsigned int n;
	char line[256];

	while (printed < max && (n = sr_trace_get(r, e, 256)) > 0) {
		for (unsigned int i = 0; i < n && printed < max; i++) {
			if (e[i].qpn != qpn && e[i].kind != SR_TRACE_LOST)
				continue;           /* another tracer's QP */
			if (*t0 == 0)
				*t0 = e[i].t_ns;
			if (e[i].kind == SR_TRACE_LOST) {
				printf("... %u events lost\n", e[i].a);
				continue;
			}
			sr_trace_format(&e[i], *t0, line, sizeof(line));
			puts(line);
			printed++;
		}
	}
	fflush(stdout);
	return printed;
}

int stat_trace(struct sr_stats_shm *s, const struct stat_trace_opts *o)
{
	const struct timespec nap = { .tv_nsec = 1000 * 1000 };
	struct sr_trace_ring *r = &s->trace.ring;
	uint64_t start = stat_trace_now_ms(), t0 = 0, lost0;
	unsigned long count = 0, max = o->count ? o->count : (unsigned long)-1;
	struct sigaction sa = { .sa_handler = stat_trace_signal };
	const char *end = "interrupted";
	int rc;

	if (!stat_trace_alive(s->pid)) {
		fprintf(stderr, "sroce-stat: no running sroce device: process %d is gone\n",
			s->pid);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	sr_trace_skip(r);                   /* what an earlier tracer left */
	lost0 = __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
	rc = sr_stats_trace_request(s, o->qpn, true, 1000);
	if (rc) {
		fprintf(stderr, "sroce-stat: --trace %#x: %s\n", o->qpn,
			rc == -ENOENT ? "no such QP on this device (see sroce-stat -q)" :
			rc == -ENOTSUP ? "this device has no trace ring" :
			"the device did not answer within 1 s (not progressing?)");
		return 1;
	}
	fprintf(stderr, "sroce-stat: tracing QP %#x of pid %d (Ctrl-C stops)\n",
		o->qpn, s->pid);
	for (;;) {
		unsigned long n = stat_trace_drain(r, o->qpn, &t0, max - count);

		count += n;
		if (count >= max) {
			end = "count reached";
			break;
		}
		if (stat_trace_stop)
			break;
		if (o->timeout_s &&
		    stat_trace_now_ms() - start >= o->timeout_s * 1000ull) {
			end = "timeout";
			break;
		}
		if (!stat_trace_alive(s->pid)) {
			count += stat_trace_drain(r, o->qpn, &t0, max - count);
			end = "the device's process ended";
			break;
		}
		if (n == 0)
			nanosleep(&nap, NULL);
	}
	if (stat_trace_alive(s->pid))
		(void)sr_stats_trace_request(s, o->qpn, false, 1000);
	fprintf(stderr, "sroce-stat: %lu events, %llu lost (%s)\n", count,
		(unsigned long long)(__atomic_load_n(&r->lost, __ATOMIC_RELAXED) -
				     lost0), end);
	return o->count && count < o->count ? 1 : 0;
}
