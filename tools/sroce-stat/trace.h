/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trace.h — sroce-stat --trace (trace.c).
 */
#ifndef SR_STAT_TRACE_H
#define SR_STAT_TRACE_H

#include <stdint.h>

#include "counters.h"

struct stat_trace_opts {
	uint32_t qpn;
	unsigned long count;          /* stop after this many events; 0: no */
	unsigned int timeout_s;       /* stop after this long; 0: no */
};

/*
 * Follow the QP's events until SIGINT, count, timeout or the device's end.
 * The file must be mapped writable.  Returns the exit status: 0, or 1 (no
 * such QP, device not answering, fewer than count events).
 */
int stat_trace(struct sr_stats_shm *s, const struct stat_trace_opts *o);

#endif /* SR_STAT_TRACE_H */
