/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcqcn.h — the DCQCN reaction point of one QP, a pure state machine.
 *
 * The algorithm is the one of Zhu et al., "Congestion Control for
 * Large-Scale RDMA Deployments" (SIGCOMM 2015), section 3; parameter names,
 * units and defaults are those of ConnectX (mlxconfig / mlx5 "roce
 * congestion" parameters, ConnectX-4 Lx firmware defaults):
 *
 *   on a CNP (at most one decrease per rate_reduce_monitor_period):
 *       R_T = R_C                      (see the clamp_* parameters)
 *       R_C = R_C * (1 - alpha * 1024 / 2^rpg_gd)    (rpg_gd 11: alpha / 2)
 *       alpha = (1 - g) * alpha + g    g = (1024 - dce_tcp_g) / 1024
 *   every dce_tcp_rtt without a CNP:  alpha = (1 - g) * alpha
 *   an increase event is the rate timer expiring (rpg_time_reset) or
 *   rpg_byte_reset bytes sent (the byte counter), T resp. BC counting them
 *   since the last decrease, this one included, F = rpg_threshold:
 *       max(T, BC) <= F           fast recovery    R_C = (R_T + R_C) / 2
 *       T > F and BC > F          hyper increase   R_T += i * rpg_hai_rate,
 *                                                  i = min(T, BC) - F
 *       otherwise                 additive incr.   R_T += rpg_ai_rate
 *                                                  R_C = (R_T + R_C) / 2
 *   rpg_min_rate <= R_C <= rpg_max_rate (0: the line rate).
 *
 * The state machine reads no clock: every call passes `now` in nanoseconds
 * (any monotonic origin).  A QP that never saw a CNP is idle at the line
 * rate and costs nothing; it returns to idle once R_C is back at the maximum.
 */
#ifndef SR_CC_DCQCN_H
#define SR_CC_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

/* The parameters, ConnectX names.  Rates in Mbit/s, times in microseconds. */
struct sr_dcqcn_params {
	/* reaction point */
	uint32_t rpg_time_reset;     /* rate increase timer period, us */
	uint32_t rpg_byte_reset;     /* byte counter period, bytes */
	uint32_t rpg_threshold;      /* F: increase events before AI (1..31) */
	uint32_t rpg_max_rate;       /* Mbit/s, 0 = line rate */
	uint32_t rpg_ai_rate;        /* additive increase step, Mbit/s */
	uint32_t rpg_hai_rate;       /* hyper increase step, Mbit/s */
	uint32_t rpg_gd;             /* decrease: R_C *= 1 - alpha*1024/2^gd (1..31) */
	uint32_t rpg_min_dec_fac;    /* largest cut of one decrease, % (1..100) */
	uint32_t rpg_min_rate;       /* Mbit/s, floor of R_C (>= 1) */
	uint32_t rate_to_set_on_first_cnp; /* Mbit/s, 0 = decrease as usual */
	uint32_t dce_tcp_g;          /* 1024 * (1 - g), 0..1023 */
	uint32_t dce_tcp_rtt;        /* alpha update period, us */
	uint32_t rate_reduce_monitor_period; /* at most one decrease per, us */
	uint32_t initial_alpha_value; /* alpha * 1024 at the first CNP, 0..1023 */
	bool clamp_tgt_rate;         /* R_T = R_C on every decrease */
	bool clamp_tgt_rate_after_time_inc; /* ... also after a timer increase */
	/* notification point */
	uint32_t min_time_between_cnps; /* us, per QP */
	uint32_t cnp_dscp;           /* DSCP of CNPs, 0..63 */
	uint32_t cnp_802p_prio;      /* PCP of CNPs on a VLAN, 0..7 */
};

/* ConnectX-4 Lx firmware defaults (mlxconfig). */
#define SR_DCQCN_PARAMS_DEFAULT {                   \
	.rpg_time_reset = 300,                      \
	.rpg_byte_reset = 32767,                    \
	.rpg_threshold = 1,                         \
	.rpg_max_rate = 0,                          \
	.rpg_ai_rate = 5,                           \
	.rpg_hai_rate = 50,                         \
	.rpg_gd = 11,                               \
	.rpg_min_dec_fac = 50,                      \
	.rpg_min_rate = 1,                          \
	.rate_to_set_on_first_cnp = 0,              \
	.dce_tcp_g = 1019,                          \
	.dce_tcp_rtt = 1,                           \
	.rate_reduce_monitor_period = 4,            \
	.initial_alpha_value = 1023,                \
	.clamp_tgt_rate = false,                    \
	.clamp_tgt_rate_after_time_inc = true,      \
	.min_time_between_cnps = 4,                 \
	.cnp_dscp = 48,                             \
	.cnp_802p_prio = 6,                         \
}

/*
 * Set one parameter by its ConnectX name ("rpg_ai_rate"; booleans take 0
 * or 1).  0, -ENOENT for an unknown name, -EINVAL for a value that does
 * not fit (ranges are checked by sr_dcqcn_params_check()).
 */
int sr_dcqcn_param_set(struct sr_dcqcn_params *p, const char *name,
		       uint64_t value);

/* 0, or -EINVAL when a parameter is out of its range (see the comments). */
int sr_dcqcn_params_check(const struct sr_dcqcn_params *p);

/* Which rule made the last increase (for tests and counters). */
enum sr_dcqcn_stage {
	SR_DCQCN_IDLE,          /* never decreased, or recovered to the maximum */
	SR_DCQCN_DECREASED,     /* last event was a decrease */
	SR_DCQCN_FAST_RECOVERY,
	SR_DCQCN_ADDITIVE,
	SR_DCQCN_HYPER,
};

/*
 * Alpha's period is at least the time SR_DCQCN_ALPHA_BYTES take at the line
 * rate (sroce's rule; ConnectX's period is dce_tcp_rtt alone).  The NP
 * sends at most one CNP per marked packet, so alpha = the fraction of
 * periods that saw a CNP can only reach 1 when a period holds packets: at
 * 100 Mbit/s a 1 KiB packet takes 82 us, and with a 1 us period alpha
 * decayed to nothing between two CNPs and a cut took almost nothing (the
 * DCQCN paper asks for a period longer than the CNP interval).  6250 bytes
 * is 500 us at 100 Mbit/s (the value tried on the bottleneck benchmark,
 * docs/congestion.md) and under 1 us
 * from 50 Gbit/s up, where ConnectX's 1 us holds unchanged.
 */
#define SR_DCQCN_ALPHA_BYTES 6250u

struct sr_dcqcn {
	struct sr_dcqcn_params p;
	uint64_t line_bps;       /* the link's rate */
	uint64_t max_bps;        /* rpg_max_rate or the line rate */
	uint64_t min_bps;
	uint64_t rc_bps;         /* R_C, current rate */
	uint64_t rt_bps;         /* R_T, target rate */
	double alpha;            /* 0..1 */
	enum sr_dcqcn_stage stage;
	bool cnp_pending;        /* a CNP inside the monitor period, not yet applied */
	bool cnp_since_alpha;    /* a CNP since the last alpha tick */
	bool inc_by_bytes;       /* increased by the byte counter since the decrease */
	bool inc_by_timer;       /* increased by the timer since the decrease */
	uint32_t t;              /* T: timer increase events since the decrease */
	uint32_t bc;             /* BC: byte counter events since the decrease */
	uint64_t bytes;          /* bytes counted toward the next BC event */
	uint64_t next_rate_ns;   /* next rate timer expiry */
	uint64_t next_alpha_ns;  /* next alpha timer expiry */
	uint64_t alpha_ns;       /* alpha's period: dce_tcp_rtt, at least
				  * SR_DCQCN_ALPHA_BYTES at the line rate */
	uint64_t last_dec_ns;    /* time of the last decrease */
	/* counters */
	uint64_t cnps;           /* CNPs handed to the state machine */
	uint64_t decreases;      /* decreases applied */
	uint64_t increases;      /* increase events */
};

/*
 * Start at the line rate, idle.  line_bps > 0.  Returns 0, or -EINVAL for
 * bad parameters or a zero line rate (the state is then untouched).
 */
int sr_dcqcn_init(struct sr_dcqcn *s, const struct sr_dcqcn_params *p,
		  uint64_t line_bps);

/* A CNP for this QP arrived at `now`. */
void sr_dcqcn_on_cnp(struct sr_dcqcn *s, uint64_t now);

/* The QP sent `bytes` (wire payload) at `now`: drives the byte counter. */
void sr_dcqcn_on_tx(struct sr_dcqcn *s, uint64_t bytes, uint64_t now);

/*
 * Run the timers up to `now`: alpha updates, rate increase events, a
 * pending decrease whose monitor period ended.  Call it once per round;
 * expiries missed by a late call are applied one by one in time order.
 */
void sr_dcqcn_advance(struct sr_dcqcn *s, uint64_t now);

/* The current rate R_C in bit/s. */
static inline uint64_t sr_dcqcn_rate(const struct sr_dcqcn *s)
{
	return s->rc_bps;
}

static inline bool sr_dcqcn_idle(const struct sr_dcqcn *s)
{
	return s->stage == SR_DCQCN_IDLE;
}

#endif /* SR_CC_DCQCN_H */
