/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h — what the drop-in's C test programs (misuse.c, extended.c,
 * rdmacore.c, odp.c) share: one "ok"/"FAIL" line per check, the count of
 * failures for the exit status, and a monotonic clock for their waits.
 * Each program includes it once.
 */
#ifndef SR_TESTS_VERBS_REPORT_H
#define SR_TESTS_VERBS_REPORT_H

#include <stdio.h>
#include <time.h>

static int failures;

static inline void report(const char *name, int ok, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name, detail ? ": " : "",
	       detail ? detail : "");
	failures += !ok;
}

static inline double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

#endif
