/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dcqcn.c — the DCQCN reaction point (see dcqcn.h for the equations).
 */
#include "cc/dcqcn.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

#define MBPS 1000000ull
#define US   1000ull

/* Timer expiries one call applies at most, so a very late call stays bounded. */
#define SR_DCQCN_MAX_STEPS 65536u

static const struct {
	const char *name;
	size_t off;
	bool is_bool;
} sr_dcqcn_param_table[] = {
#define P(f) { #f, offsetof(struct sr_dcqcn_params, f), false }
#define PB(f) { #f, offsetof(struct sr_dcqcn_params, f), true }
	P(rpg_time_reset), P(rpg_byte_reset), P(rpg_threshold),
	P(rpg_max_rate), P(rpg_ai_rate), P(rpg_hai_rate), P(rpg_gd),
	P(rpg_min_dec_fac), P(rpg_min_rate), P(rate_to_set_on_first_cnp),
	P(dce_tcp_g), P(dce_tcp_rtt), P(rate_reduce_monitor_period),
	P(initial_alpha_value), PB(clamp_tgt_rate),
	PB(clamp_tgt_rate_after_time_inc), P(min_time_between_cnps),
	P(cnp_dscp), P(cnp_802p_prio),
#undef P
#undef PB
};

int sr_dcqcn_param_set(struct sr_dcqcn_params *p, const char *name,
		       uint64_t value)
{
	for (size_t i = 0; i < sizeof(sr_dcqcn_param_table) /
				   sizeof(sr_dcqcn_param_table[0]); i++) {
		char *field = (char *)p + sr_dcqcn_param_table[i].off;

		if (strcmp(name, sr_dcqcn_param_table[i].name) != 0)
			continue;
		if (sr_dcqcn_param_table[i].is_bool) {
			if (value > 1)
				return -EINVAL;
			*(bool *)field = value != 0;
		} else {
			if (value > UINT32_MAX)
				return -EINVAL;
			*(uint32_t *)field = (uint32_t)value;
		}
		return 0;
	}
	return -ENOENT;
}

int sr_dcqcn_params_check(const struct sr_dcqcn_params *p)
{
	if (p == NULL)
		return -EINVAL;
	if (p->rpg_time_reset == 0 || p->rpg_byte_reset == 0 || p->dce_tcp_rtt == 0)
		return -EINVAL;
	if (p->rpg_threshold < 1 || p->rpg_threshold > 31)
		return -EINVAL;
	if (p->rpg_gd < 1 || p->rpg_gd > 31)
		return -EINVAL;
	if (p->rpg_min_dec_fac < 1 || p->rpg_min_dec_fac > 100)
		return -EINVAL;
	if (p->rpg_min_rate < 1)
		return -EINVAL;
	if (p->rpg_max_rate != 0 && p->rpg_max_rate < p->rpg_min_rate)
		return -EINVAL;
	if (p->dce_tcp_g > 1023 || p->initial_alpha_value > 1023)
		return -EINVAL;
	if (p->cnp_dscp > 63 || p->cnp_802p_prio > 7)
		return -EINVAL;
	return 0;
}

int sr_dcqcn_init(struct sr_dcqcn *s, const struct sr_dcqcn_params *p,
		  uint64_t line_bps)
{
	uint64_t max_bps;

	if (s == NULL || line_bps == 0 || sr_dcqcn_params_check(p) != 0)
		return -EINVAL;
	max_bps = p->rpg_max_rate ? (uint64_t)p->rpg_max_rate * MBPS : line_bps;
	if (max_bps > line_bps)
		max_bps = line_bps;
	memset(s, 0, sizeof(*s));
	s->p = *p;
	s->line_bps = line_bps;
	s->max_bps = max_bps;
	s->alpha_ns = (uint64_t)SR_DCQCN_ALPHA_BYTES * 8000000000ull / line_bps;
	if (s->alpha_ns < (uint64_t)p->dce_tcp_rtt * US)
		s->alpha_ns = (uint64_t)p->dce_tcp_rtt * US;
	s->min_bps = (uint64_t)p->rpg_min_rate * MBPS;
	if (s->min_bps > max_bps)
		s->min_bps = max_bps;
	s->rc_bps = max_bps;
	s->rt_bps = max_bps;
	s->alpha = p->initial_alpha_value / 1024.0;
	s->stage = SR_DCQCN_IDLE;
	return 0;
}

static double gain(const struct sr_dcqcn *s)
{
	return (1024 - s->p.dce_tcp_g) / 1024.0;
}

static uint64_t clamp_rate(const struct sr_dcqcn *s, uint64_t bps)
{
	if (bps > s->max_bps)
		return s->max_bps;
	if (bps < s->min_bps)
		return s->min_bps;
	return bps;
}

/* R_C halfway to R_T, rounded up so that it reaches R_T. */
static uint64_t halfway(uint64_t rc, uint64_t rt)
{
	return rc / 2 + rt / 2 + ((rc & 1) | (rt & 1));
}

static void decrease(struct sr_dcqcn *s, uint64_t now)
{
	double frac, cap;
	const bool first = s->stage == SR_DCQCN_IDLE;

	if (first || s->p.clamp_tgt_rate || s->inc_by_bytes ||
	    (s->p.clamp_tgt_rate_after_time_inc && s->inc_by_timer))
		s->rt_bps = s->rc_bps;
	if (first && s->p.rate_to_set_on_first_cnp != 0) {
		s->rc_bps = clamp_rate(s, (uint64_t)s->p.rate_to_set_on_first_cnp * MBPS);
	} else {
		frac = s->alpha * 1024.0 / (double)(1ull << s->p.rpg_gd);
		cap = s->p.rpg_min_dec_fac / 100.0;
		if (frac > cap)
			frac = cap;
		s->rc_bps = clamp_rate(s, (uint64_t)((double)s->rc_bps * (1.0 - frac)));
	}
	s->alpha = (1.0 - gain(s)) * s->alpha + gain(s);
	s->stage = SR_DCQCN_DECREASED;
	s->cnp_pending = false;
	s->inc_by_bytes = false;
	s->inc_by_timer = false;
	s->t = 0;
	s->bc = 0;
	s->bytes = 0;
	s->next_rate_ns = now + s->p.rpg_time_reset * US;
	s->last_dec_ns = now;
	s->decreases++;
}

void sr_dcqcn_on_cnp(struct sr_dcqcn *s, uint64_t now)
{
	s->cnps++;
	s->cnp_since_alpha = true;
	if (s->stage == SR_DCQCN_IDLE) {
		s->alpha = s->p.initial_alpha_value / 1024.0;
		s->next_alpha_ns = now + s->alpha_ns;
		decrease(s, now);
		return;
	}
	sr_dcqcn_advance(s, now);
	if (now - s->last_dec_ns >= s->p.rate_reduce_monitor_period * US)
		decrease(s, now);
	else
		s->cnp_pending = true;
}

static void increase(struct sr_dcqcn *s, bool by_timer)
{
	const uint32_t f = s->p.rpg_threshold;
	uint32_t hi, lo;

	if (by_timer) {
		s->t++;
		s->inc_by_timer = true;
	} else {
		s->bc++;
		s->inc_by_bytes = true;
	}
	hi = s->t > s->bc ? s->t : s->bc;
	lo = s->t > s->bc ? s->bc : s->t;
	if (hi <= f) {
		s->stage = SR_DCQCN_FAST_RECOVERY;
	} else if (lo > f) {
		s->stage = SR_DCQCN_HYPER;
		s->rt_bps += (uint64_t)(lo - f) * s->p.rpg_hai_rate * MBPS;
	} else {
		s->stage = SR_DCQCN_ADDITIVE;
		s->rt_bps += (uint64_t)s->p.rpg_ai_rate * MBPS;
	}
	if (s->rt_bps > s->max_bps)
		s->rt_bps = s->max_bps;
	s->rc_bps = clamp_rate(s, halfway(s->rc_bps, s->rt_bps));
	s->increases++;
	if (s->rc_bps == s->max_bps && s->rt_bps == s->max_bps)
		s->stage = SR_DCQCN_IDLE;
}

/* Alpha ticks up to `until`: the first after a CNP keeps alpha, the rest decay it. */
static void run_alpha(struct sr_dcqcn *s, uint64_t until)
{
	const uint64_t k = s->alpha_ns;
	const double keep = 1.0 - gain(s);
	uint32_t n = 0;

	while (s->next_alpha_ns <= until && n < SR_DCQCN_MAX_STEPS) {
		if (s->cnp_since_alpha)
			s->cnp_since_alpha = false;
		else
			s->alpha *= keep;
		s->next_alpha_ns += k;
		n++;
	}
	if (s->next_alpha_ns <= until)   /* too late by far: skip, alpha ~ 0 */
		s->next_alpha_ns = until + k;
}

static void run_rate_timer(struct sr_dcqcn *s, uint64_t until)
{
	uint32_t n = 0;

	while (s->stage != SR_DCQCN_IDLE && s->next_rate_ns <= until &&
	       n++ < SR_DCQCN_MAX_STEPS) {
		s->next_rate_ns += s->p.rpg_time_reset * US;
		increase(s, true);
	}
	if (s->stage != SR_DCQCN_IDLE && s->next_rate_ns <= until)
		s->next_rate_ns = until + s->p.rpg_time_reset * US;
}

void sr_dcqcn_advance(struct sr_dcqcn *s, uint64_t now)
{
	uint64_t t_dec;

	if (s->stage == SR_DCQCN_IDLE && !s->cnp_pending)
		return;
	if (s->cnp_pending) {
		t_dec = s->last_dec_ns + s->p.rate_reduce_monitor_period * US;
		if (t_dec <= now) {
			run_alpha(s, t_dec);
			run_rate_timer(s, t_dec);
			decrease(s, t_dec);
		}
	}
	run_alpha(s, now);
	run_rate_timer(s, now);
}

void sr_dcqcn_on_tx(struct sr_dcqcn *s, uint64_t bytes, uint64_t now)
{
	if (s->stage == SR_DCQCN_IDLE)
		return;
	sr_dcqcn_advance(s, now);
	s->bytes += bytes;
	while (s->stage != SR_DCQCN_IDLE && s->bytes >= s->p.rpg_byte_reset) {
		s->bytes -= s->p.rpg_byte_reset;
		increase(s, false);
	}
}
