/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pacer.c — the token bucket (see pacer.h) and the static rate table.
 */
#include "cc/pacer.h"

#include <errno.h>
#include <stddef.h>

#define UNITS_PER_BYTE 8000000000ll   /* 8 bit * 1e9 ns/s */

int sr_pacer_init(struct sr_pacer *p, uint64_t rate_bps, uint32_t burst_bytes,
		  uint64_t now)
{
	if (p == NULL || rate_bps > SR_PACER_MAX_RATE || burst_bytes == 0 ||
	    burst_bytes > SR_PACER_MAX_BURST)
		return -EINVAL;
	p->rate_bps = rate_bps;
	p->burst = (int64_t)burst_bytes * UNITS_PER_BYTE;
	p->credit = p->burst;
	p->last_ns = now;
	p->held = 0;
	return 0;
}

static void refill(struct sr_pacer *p, uint64_t now)
{
	uint64_t dt, need;

	if (now <= p->last_ns)
		return;              /* the clock of a round never runs back */
	dt = now - p->last_ns;
	p->last_ns = now;
	if (p->rate_bps == 0) {
		p->credit = p->burst;
		return;
	}
	need = (uint64_t)(p->burst - p->credit);   /* >= 0, < 2^63 */
	if (dt >= need / p->rate_bps + 1)
		p->credit = p->burst;
	else
		p->credit += (int64_t)(dt * p->rate_bps);
	if (p->credit > p->burst)
		p->credit = p->burst;
}

int sr_pacer_set_rate(struct sr_pacer *p, uint64_t rate_bps, uint64_t now)
{
	if (p == NULL || rate_bps > SR_PACER_MAX_RATE)
		return -EINVAL;
	refill(p, now);
	p->rate_bps = rate_bps;
	return 0;
}

int sr_pacer_set_burst(struct sr_pacer *p, uint32_t burst_bytes)
{
	if (p == NULL || burst_bytes == 0 || burst_bytes > SR_PACER_MAX_BURST)
		return -EINVAL;
	p->burst = (int64_t)burst_bytes * UNITS_PER_BYTE;
	if (p->credit > p->burst)
		p->credit = p->burst;
	if (p->credit < -p->burst)
		p->credit = -p->burst;
	return 0;
}

bool sr_pacer_take(struct sr_pacer *p, uint32_t bytes, uint64_t now)
{
	if (p->rate_bps == 0)
		return true;
	refill(p, now);
	if (p->credit <= 0) {
		p->held++;
		return false;
	}
	if (bytes > SR_PACER_MAX_BURST)
		bytes = SR_PACER_MAX_BURST;
	p->credit -= (int64_t)bytes * UNITS_PER_BYTE;
	return true;
}

bool sr_pacer_ready(struct sr_pacer *p, uint64_t now)
{
	if (p->rate_bps == 0)
		return true;
	refill(p, now);
	return p->credit > 0;
}

void sr_pacer_charge(struct sr_pacer *p, uint64_t bytes)
{
	if (p->rate_bps == 0)
		return;
	if (bytes > SR_PACER_MAX_BURST)
		bytes = SR_PACER_MAX_BURST;
	p->credit -= (int64_t)bytes * UNITS_PER_BYTE;
	if (p->credit < -p->burst)
		p->credit = -p->burst;    /* one burst of debt at most */
}

uint64_t sr_pacer_next(struct sr_pacer *p, uint64_t now)
{
	uint64_t need;

	if (p->rate_bps == 0)
		return now;
	refill(p, now);
	if (p->credit > 0)
		return now;
	need = (uint64_t)(-p->credit) + 1;
	return now + (need + p->rate_bps - 1) / p->rate_bps;
}

/* enum ibv_rate (the IBA static rate encoding) in Mbit/s. */
static const uint32_t static_rate_mbps[] = {
	[2] = 2500,    [3] = 10000,   [4] = 30000,   [5] = 5000,
	[6] = 20000,   [7] = 40000,   [8] = 60000,   [9] = 80000,
	[10] = 120000, [11] = 14000,  [12] = 56000,  [13] = 112000,
	[14] = 168000, [15] = 25000,  [16] = 100000, [17] = 200000,
	[18] = 300000, [19] = 28000,  [20] = 50000,  [21] = 400000,
	[22] = 600000, [23] = 800000, [24] = 1200000,
};

uint64_t sr_static_rate_bps(uint32_t ibv_rate)
{
	if (ibv_rate >= sizeof(static_rate_mbps) / sizeof(static_rate_mbps[0]))
		return 0;
	return (uint64_t)static_rate_mbps[ibv_rate] * 1000000u;
}
