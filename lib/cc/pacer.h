/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pacer.h — a token bucket per QP: the requester sends only while it has
 * credit.  One pacer serves DCQCN (its current rate), the explicit limits
 * (ibv_modify_qp_rate_limit, IBV_QP_RATE_LIMIT) and the address handle's
 * static rate: the caller sets the smallest of them.
 *
 * No clock is read here: the engine passes the time of its round (`now`,
 * nanoseconds, any monotonic origin).  Credit is kept exactly, in bit *
 * nanoseconds (a byte is 8e9 units; one nanosecond at R bit/s adds R), so
 * the long-run rate is exact whatever the round length.  A packet may be
 * sent while the credit is positive and may take it negative (a deficit
 * bucket), so packets larger than the burst still pass, at the set rate.
 * Size the burst to at least rate * the longest round: credit beyond the
 * burst is lost, and with it rate.
 */
#ifndef SR_CC_PACER_H
#define SR_CC_PACER_H

#include <stdbool.h>
#include <stdint.h>

struct sr_pacer {
	uint64_t rate_bps;   /* 0: unlimited */
	int64_t credit;      /* bit * ns */
	int64_t burst;       /* largest credit, bit * ns */
	uint64_t last_ns;    /* time of the last refill */
	uint64_t held;       /* times sr_pacer_take said no (a counter) */
};

/* Largest burst and packet accepted (256 MiB), so the credit arithmetic cannot overflow. */
#define SR_PACER_MAX_BURST (1u << 28)
/* Largest rate accepted (10 Tbit/s). */
#define SR_PACER_MAX_RATE 10000000000000ull

/*
 * rate_bps 0 = unlimited; burst_bytes >= 1.  The bucket starts full.
 * Returns 0, or -EINVAL (rate or burst out of range; p untouched).
 */
int sr_pacer_init(struct sr_pacer *p, uint64_t rate_bps, uint32_t burst_bytes,
		  uint64_t now);

/* New rate from `now` on (credit earned so far kept).  0 or -EINVAL. */
int sr_pacer_set_rate(struct sr_pacer *p, uint64_t rate_bps, uint64_t now);

/* May `bytes` go now?  If so the credit is taken and true returned. */
bool sr_pacer_take(struct sr_pacer *p, uint32_t bytes, uint64_t now);

/* Has the bucket credit at `now`?  (Takes nothing.) */
bool sr_pacer_ready(struct sr_pacer *p, uint64_t now);

/*
 * New burst from now on (1 .. SR_PACER_MAX_BURST bytes): credit above it
 * is lost, debt below minus it forgiven.  0 or -EINVAL (p untouched).
 */
int sr_pacer_set_burst(struct sr_pacer *p, uint32_t burst_bytes);

/* Take `bytes` already sent, whatever the credit (it may go negative). */
void sr_pacer_charge(struct sr_pacer *p, uint64_t bytes);

/* Whole bytes of credit at the last refill (0 when none). */
static inline uint64_t sr_pacer_credit_bytes(const struct sr_pacer *p)
{
	return p->credit > 0 ? (uint64_t)p->credit / 8000000000ull : 0;
}

/* The earliest time at or after `now` at which sr_pacer_take can succeed. */
uint64_t sr_pacer_next(struct sr_pacer *p, uint64_t now);

/*
 * IBA / ibverbs static rate encoding (enum ibv_rate: IBV_RATE_MAX = 0,
 * IBV_RATE_2_5_GBPS = 2, ... IBV_RATE_1200_GBPS = 24) to bit/s; 0 for
 * IBV_RATE_MAX (no limit) and for values that encode no rate.
 */
uint64_t sr_static_rate_bps(uint32_t ibv_rate);

/* ibv_modify_qp_rate_limit's rate_limit is in kbit/s; 0 = no limit. */
static inline uint64_t sr_rate_limit_kbps_to_bps(uint32_t kbps)
{
	return (uint64_t)kbps * 1000u;
}

#endif /* SR_CC_PACER_H */
