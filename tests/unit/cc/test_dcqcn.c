/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DCQCN reaction point against the equations of Zhu et al. (SIGCOMM 2015),
 * with a simulated clock (nanoseconds).
 */
#include "sr_check.h"
#include "cc/dcqcn.h"

#include <errno.h>
#include <math.h>

#define US 1000ull
#define MBPS 1000000ull
#define LINE (100000ull * MBPS)   /* 100 Gbit/s */

/* The paper's values where they differ from ConnectX's: K = 55 us, g = 1/256
 * (dce_tcp_g 1020), F = 5; the byte counter out of the way unless a test
 * drives it. */
static struct sr_dcqcn_params paper_params(void)
{
	struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;

	p.dce_tcp_rtt = 55;
	p.dce_tcp_g = 1020;
	p.rpg_threshold = 5;
	p.rpg_time_reset = 1500;
	p.rpg_byte_reset = 1u << 30;
	p.rate_reduce_monitor_period = 50;
	p.rpg_ai_rate = 40;
	p.rpg_hai_rate = 100;
	return p;
}

static void assert_near(uint64_t got, double want)
{
	ck_assert_msg(fabs((double)got - want) <= 2.0 + want * 1e-12,
		      "got %llu, want %.1f", (unsigned long long)got, want);
}

START_TEST(defaults_are_connectx)
{
	const struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	struct sr_dcqcn s;

	ck_assert_int_eq(sr_dcqcn_params_check(&p), 0);
	ck_assert_uint_eq(p.rpg_time_reset, 300);
	ck_assert_uint_eq(p.rpg_byte_reset, 32767);
	ck_assert_uint_eq(p.rpg_gd, 11);
	ck_assert_uint_eq(p.dce_tcp_g, 1019);
	ck_assert_uint_eq(p.initial_alpha_value, 1023);
	ck_assert_uint_eq(p.cnp_dscp, 48);
	ck_assert_int_eq(sr_dcqcn_init(&s, &p, LINE), 0);
	ck_assert(sr_dcqcn_idle(&s));
	ck_assert_uint_eq(sr_dcqcn_rate(&s), LINE);
	/* Idle: timers and bytes change nothing. */
	sr_dcqcn_advance(&s, 10000 * US);
	sr_dcqcn_on_tx(&s, 1u << 30, 10001 * US);
	ck_assert_uint_eq(sr_dcqcn_rate(&s), LINE);
	ck_assert_uint_eq(s.increases, 0);
}
END_TEST

/* Each bad parameter alone is refused, and init leaves the state alone. */
START_TEST(bad_parameters)
{
	static const struct {
		size_t off;
		uint32_t val;
	} bad[] = {
#define B(f, v) { __builtin_offsetof(struct sr_dcqcn_params, f), v }
		B(rpg_time_reset, 0), B(rpg_byte_reset, 0), B(dce_tcp_rtt, 0),
		B(rpg_threshold, 0), B(rpg_threshold, 32), B(rpg_gd, 0),
		B(rpg_gd, 32), B(rpg_min_dec_fac, 0), B(rpg_min_dec_fac, 101),
		B(rpg_min_rate, 0), B(dce_tcp_g, 1024),
		B(initial_alpha_value, 1024), B(cnp_dscp, 64),
		B(cnp_802p_prio, 8),
#undef B
	};
	struct sr_dcqcn s = { .rc_bps = 7 };
	struct sr_dcqcn_params p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		p = (struct sr_dcqcn_params)SR_DCQCN_PARAMS_DEFAULT;
		*(uint32_t *)((char *)&p + bad[i].off) = bad[i].val;
		ck_assert_int_eq(sr_dcqcn_params_check(&p), -EINVAL);
		ck_assert_int_eq(sr_dcqcn_init(&s, &p, LINE), -EINVAL);
		ck_assert_uint_eq(s.rc_bps, 7);
	}
	p = (struct sr_dcqcn_params)SR_DCQCN_PARAMS_DEFAULT;
	p.rpg_min_rate = 100;
	p.rpg_max_rate = 99;
	ck_assert_int_eq(sr_dcqcn_params_check(&p), -EINVAL);
	ck_assert_int_eq(sr_dcqcn_params_check(NULL), -EINVAL);
	p = (struct sr_dcqcn_params)SR_DCQCN_PARAMS_DEFAULT;
	ck_assert_int_eq(sr_dcqcn_init(&s, &p, 0), -EINVAL);
	ck_assert_int_eq(sr_dcqcn_init(NULL, &p, LINE), -EINVAL);
}
END_TEST

/* One CNP: R_T = R_C, R_C = R_C (1 - alpha/2), alpha = (1-g) alpha + g. */
START_TEST(one_cnp)
{
	const struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	const double a0 = 1023 / 1024.0, g = 5 / 1024.0;
	struct sr_dcqcn s;

	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 1000 * US);
	ck_assert_int_eq(s.stage, SR_DCQCN_DECREASED);
	assert_near(sr_dcqcn_rate(&s), (double)LINE * (1 - a0 / 2));
	ck_assert_uint_eq(s.rt_bps, LINE);
	ck_assert(fabs(s.alpha - ((1 - g) * a0 + g)) < 1e-12);
	ck_assert_uint_eq(s.decreases, 1);
}
END_TEST

/* A CNP train, one CNP per 50 us: every alpha period (55 us) holds a CNP,
 * so alpha only grows, and each CNP cuts by alpha/2; no increase happens
 * before the rate timer (1500 us). */
START_TEST(cnp_train)
{
	const struct sr_dcqcn_params p = paper_params();
	const double g = 1 / 256.0;
	double alpha = 1023 / 1024.0, rc = (double)LINE;
	struct sr_dcqcn s;
	uint64_t prev = LINE;

	sr_dcqcn_init(&s, &p, LINE);
	for (int n = 0; n < 10; n++) {   /* 100 Gbit/s / 2^10: above the floor */
		sr_dcqcn_on_cnp(&s, (uint64_t)n * 50 * US);
		rc = (double)(uint64_t)(rc * (1 - alpha / 2));
		alpha = (1 - g) * alpha + g;
		assert_near(sr_dcqcn_rate(&s), rc);
		ck_assert(fabs(s.alpha - alpha) < 1e-9);
		ck_assert_uint_lt(sr_dcqcn_rate(&s), prev);
		prev = sr_dcqcn_rate(&s);
	}
	ck_assert_uint_eq(s.decreases, 10);
	ck_assert_uint_eq(s.increases, 0);
	/* clamp_tgt_rate off and no increase between: R_T stays at the line. */
	ck_assert_uint_eq(s.rt_bps, LINE);
}
END_TEST

/* Alpha decays by (1 - g) per K without a CNP; the first tick after a CNP
 * keeps it. */
START_TEST(alpha_decays)
{
	const struct sr_dcqcn_params p = paper_params();
	const double g = 1 / 256.0;
	struct sr_dcqcn s;
	double a;

	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	a = s.alpha;
	sr_dcqcn_advance(&s, 55 * US);          /* tick 1: the CNP's window */
	ck_assert(fabs(s.alpha - a) < 1e-12);
	sr_dcqcn_advance(&s, 10 * 55 * US);     /* ticks 2..10 decay */
	ck_assert(fabs(s.alpha - a * pow(1 - g, 9)) < 1e-12);
}
END_TEST

/* On a slow line alpha's period is at least SR_DCQCN_ALPHA_BYTES at the
 * line rate (500 us at 100 Mbit/s), so that one CNP per packet can hold
 * alpha up: with ConnectX's 1 us period, alpha fell to 0.14 in the 400 us
 * between two packets and a cut took almost nothing.  At 100 Gbit/s the
 * period stays dce_tcp_rtt. */
START_TEST(alpha_period_slow_line)
{
	const struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	const double g = (1024 - p.dce_tcp_g) / 1024.0;
	struct sr_dcqcn s;
	double a;

	sr_dcqcn_init(&s, &p, 100 * MBPS);
	sr_dcqcn_on_cnp(&s, 0);
	a = s.alpha;
	sr_dcqcn_advance(&s, 400 * US);         /* inside the first period */
	ck_assert_msg(fabs(s.alpha - a) < 1e-12, "alpha %f", s.alpha);
	sr_dcqcn_advance(&s, 1500 * US);        /* ticks at 500 (keeps), 1000, 1500 */
	ck_assert(fabs(s.alpha - a * pow(1 - g, 2)) < 1e-12);

	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	a = s.alpha;
	sr_dcqcn_advance(&s, 10 * US);          /* 1 us ticks: 9 decays */
	ck_assert(fabs(s.alpha - a * pow(1 - g, 9)) < 1e-12);
}
END_TEST

/* CNPs inside rate_reduce_monitor_period coalesce into one decrease at the
 * end of the period. */
START_TEST(monitor_period_coalesces)
{
	struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	struct sr_dcqcn s;
	uint64_t r1;

	p.rate_reduce_monitor_period = 50;
	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	r1 = sr_dcqcn_rate(&s);
	sr_dcqcn_on_cnp(&s, 10 * US);
	sr_dcqcn_on_cnp(&s, 20 * US);
	ck_assert_uint_eq(s.decreases, 1);
	ck_assert_uint_eq(sr_dcqcn_rate(&s), r1);
	ck_assert_uint_eq(s.cnps, 3);
	sr_dcqcn_advance(&s, 49 * US);
	ck_assert_uint_eq(s.decreases, 1);
	sr_dcqcn_advance(&s, 51 * US);
	ck_assert_uint_eq(s.decreases, 2);
	ck_assert_uint_eq(s.last_dec_ns, 50 * US);
	ck_assert_uint_lt(sr_dcqcn_rate(&s), r1);
	sr_dcqcn_advance(&s, 500 * US);          /* nothing more pending */
	ck_assert_uint_eq(s.decreases, 2);
}
END_TEST

/* After the CNPs stop: F fast-recovery steps halve the distance to R_T,
 * then additive increase raises R_T by R_AI per step, up to the line rate,
 * where the QP goes idle. */
START_TEST(recovery_to_line_rate)
{
	struct sr_dcqcn_params p = paper_params();
	struct sr_dcqcn s;
	double rt, rc;
	uint64_t t;

	p.clamp_tgt_rate = true;      /* the paper: R_T = R_C on every CNP */
	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	sr_dcqcn_on_cnp(&s, 100 * US);
	rt = (double)s.rt_bps;
	rc = (double)s.rc_bps;
	ck_assert(rt < (double)LINE);
	for (int k = 1; k <= 5; k++) {
		t = 100 * US + (uint64_t)k * 1500 * US;
		sr_dcqcn_advance(&s, t);
		ck_assert_int_eq(s.stage, SR_DCQCN_FAST_RECOVERY);
		rc = (rt + rc) / 2;
		ck_assert_uint_eq(s.rt_bps, (uint64_t)rt);
		assert_near(s.rc_bps, rc);
	}
	for (int k = 6; k <= 10; k++) {
		sr_dcqcn_advance(&s, 100 * US + (uint64_t)k * 1500 * US);
		ck_assert_int_eq(s.stage, SR_DCQCN_ADDITIVE);
		rt += 40.0 * MBPS;
		rc = (rt + rc) / 2;
		assert_near(s.rt_bps, rt);
		assert_near(s.rc_bps, rc);
	}
	/* Long enough at R_AI per 1.5 ms to climb back: idle at the line rate. */
	sr_dcqcn_advance(&s, 5000000000ull);
	ck_assert(sr_dcqcn_idle(&s));
	ck_assert_uint_eq(sr_dcqcn_rate(&s), LINE);
	ck_assert_uint_eq(s.rt_bps, LINE);
}
END_TEST

/* Timer and byte counter together: hyper increase once both pass F, by
 * i * R_HAI with i = min(T, BC) - F. */
START_TEST(hyper_increase)
{
	struct sr_dcqcn_params p = paper_params();
	struct sr_dcqcn s;
	uint64_t rt;
	const uint64_t ai = 40 * MBPS, hai = 100 * MBPS;

	p.rpg_threshold = 1;
	p.rpg_time_reset = 100;
	p.rpg_byte_reset = 10000;
	p.clamp_tgt_rate = true;
	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	sr_dcqcn_on_cnp(&s, 50 * US);       /* R_T = R_C < line, timer at 150 */
	rt = s.rt_bps;
	sr_dcqcn_on_tx(&s, 10000, 51 * US);  /* BC 1, T 0: fast recovery */
	ck_assert_int_eq(s.stage, SR_DCQCN_FAST_RECOVERY);
	ck_assert_uint_eq(s.rt_bps, rt);
	sr_dcqcn_on_tx(&s, 10000, 52 * US);  /* BC 2, T 0: additive */
	ck_assert_int_eq(s.stage, SR_DCQCN_ADDITIVE);
	ck_assert_uint_eq(s.rt_bps, rt += ai);
	sr_dcqcn_advance(&s, 150 * US);      /* T 1, BC 2: additive */
	ck_assert_int_eq(s.stage, SR_DCQCN_ADDITIVE);
	ck_assert_uint_eq(s.rt_bps, rt += ai);
	sr_dcqcn_advance(&s, 250 * US);      /* T 2, BC 2: hyper, i = 1 */
	ck_assert_int_eq(s.stage, SR_DCQCN_HYPER);
	ck_assert_uint_eq(s.rt_bps, rt += hai);
	sr_dcqcn_on_tx(&s, 10000, 251 * US); /* BC 3, T 2: hyper, i = 1 */
	ck_assert_uint_eq(s.rt_bps, rt += hai);
	sr_dcqcn_advance(&s, 350 * US);      /* T 3, BC 3: hyper, i = 2 */
	ck_assert_uint_eq(s.rt_bps, rt += 2 * hai);
	ck_assert_uint_eq(s.t, 3);
	ck_assert_uint_eq(s.bc, 3);
	/* Bytes below one period do not count yet. */
	sr_dcqcn_on_tx(&s, 9999, 351 * US);
	ck_assert_uint_eq(s.bc, 3);
}
END_TEST

START_TEST(floor_at_min_rate)
{
	struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	struct sr_dcqcn s;

	p.rate_reduce_monitor_period = 0;   /* every CNP decreases */
	p.rpg_min_rate = 100;
	sr_dcqcn_init(&s, &p, LINE);
	for (int n = 0; n < 100; n++) {
		sr_dcqcn_on_cnp(&s, (uint64_t)n);
		ck_assert_uint_ge(sr_dcqcn_rate(&s), 100 * MBPS);
	}
	ck_assert_uint_eq(sr_dcqcn_rate(&s), 100 * MBPS);
	ck_assert_uint_eq(s.decreases, 100);
}
END_TEST

START_TEST(max_rate_and_first_cnp_rate)
{
	struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	struct sr_dcqcn s;

	p.rpg_max_rate = 40000;
	p.rate_to_set_on_first_cnp = 1000;
	sr_dcqcn_init(&s, &p, LINE);
	ck_assert_uint_eq(sr_dcqcn_rate(&s), 40000 * MBPS);
	sr_dcqcn_on_cnp(&s, 0);
	ck_assert_uint_eq(sr_dcqcn_rate(&s), 1000 * MBPS);
	ck_assert_uint_eq(s.rt_bps, 40000 * MBPS);
	/* The next CNP is an ordinary cut. */
	sr_dcqcn_on_cnp(&s, 10 * US);
	ck_assert_uint_lt(sr_dcqcn_rate(&s), 1000 * MBPS);
	ck_assert_uint_gt(sr_dcqcn_rate(&s), 499 * MBPS);
	/* A max rate above the line is the line. */
	p.rpg_max_rate = 400000;
	sr_dcqcn_init(&s, &p, LINE);
	ck_assert_uint_eq(sr_dcqcn_rate(&s), LINE);
}
END_TEST

/* rpg_gd 10 would cut by alpha (~100 %); rpg_min_dec_fac caps one cut. */
START_TEST(min_dec_fac_caps_a_cut)
{
	struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	struct sr_dcqcn s;

	p.rpg_gd = 10;
	p.rpg_min_dec_fac = 30;
	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	assert_near(sr_dcqcn_rate(&s), (double)LINE * 0.7);
	/* rpg_gd 12: a quarter of alpha, under the cap. */
	p.rpg_gd = 12;
	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	assert_near(sr_dcqcn_rate(&s), (double)LINE * (1 - 1023 / 4096.0));
}
END_TEST

/* R_T follows R_C on a CNP only after an increase (clamp_tgt_rate off);
 * clamp_tgt_rate_after_time_inc decides whether a timer increase counts. */
START_TEST(target_clamping)
{
	struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	struct sr_dcqcn s;
	uint64_t rc;

	p.rate_reduce_monitor_period = 0;
	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	sr_dcqcn_advance(&s, 300 * US);      /* one timer increase */
	rc = s.rc_bps;
	sr_dcqcn_on_cnp(&s, 301 * US);
	ck_assert_uint_eq(s.rt_bps, rc);     /* after_time_inc on */

	p.clamp_tgt_rate_after_time_inc = false;
	sr_dcqcn_init(&s, &p, LINE);
	sr_dcqcn_on_cnp(&s, 0);
	sr_dcqcn_advance(&s, 300 * US);
	sr_dcqcn_on_cnp(&s, 301 * US);
	ck_assert_uint_eq(s.rt_bps, LINE);   /* a timer increase does not count */
	sr_dcqcn_on_tx(&s, 32767, 302 * US); /* a byte-counter increase does */
	rc = s.rc_bps;
	sr_dcqcn_on_cnp(&s, 303 * US);
	ck_assert_uint_eq(s.rt_bps, rc);
}
END_TEST

/* A call very late (10 s) stays bounded and lands at the line rate. */
START_TEST(late_advance)
{
	const struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;
	struct sr_dcqcn s;

	sr_dcqcn_init(&s, &p, LINE);
	for (int n = 0; n < 50; n++)
		sr_dcqcn_on_cnp(&s, (uint64_t)n * 10 * US);
	ck_assert_uint_lt(sr_dcqcn_rate(&s), LINE / 1000);
	sr_dcqcn_advance(&s, 10000000000ull);
	ck_assert(sr_dcqcn_idle(&s));
	ck_assert_uint_eq(sr_dcqcn_rate(&s), LINE);
	/* A new CNP starts over from the initial alpha. */
	sr_dcqcn_on_cnp(&s, 10000000001ull);
	assert_near(sr_dcqcn_rate(&s), (double)LINE * (1 - 1023 / 2048.0));
}
END_TEST

START_TEST(param_by_name)
{
	struct sr_dcqcn_params p = SR_DCQCN_PARAMS_DEFAULT;

	ck_assert_int_eq(sr_dcqcn_param_set(&p, "rpg_ai_rate", 40), 0);
	ck_assert_uint_eq(p.rpg_ai_rate, 40);
	ck_assert_int_eq(sr_dcqcn_param_set(&p, "clamp_tgt_rate", 1), 0);
	ck_assert(p.clamp_tgt_rate);
	ck_assert_int_eq(sr_dcqcn_param_set(&p, "clamp_tgt_rate", 2), -EINVAL);
	ck_assert_int_eq(sr_dcqcn_param_set(&p, "rpg_ai_rate", 1ull << 32), -EINVAL);
	ck_assert_uint_eq(p.rpg_ai_rate, 40);
	ck_assert_int_eq(sr_dcqcn_param_set(&p, "rpg_ai", 1), -ENOENT);
	ck_assert_int_eq(sr_dcqcn_param_set(&p, "", 1), -ENOENT);
}
END_TEST

static Suite *dcqcn_suite(void)
{
	Suite *s = suite_create("cc_dcqcn");
	TCase *tc = tcase_create("dcqcn");

	tcase_add_test(tc, defaults_are_connectx);
	tcase_add_test(tc, bad_parameters);
	tcase_add_test(tc, one_cnp);
	tcase_add_test(tc, cnp_train);
	tcase_add_test(tc, alpha_decays);
	tcase_add_test(tc, alpha_period_slow_line);
	tcase_add_test(tc, monitor_period_coalesces);
	tcase_add_test(tc, recovery_to_line_rate);
	tcase_add_test(tc, hyper_increase);
	tcase_add_test(tc, floor_at_min_rate);
	tcase_add_test(tc, max_rate_and_first_cnp_rate);
	tcase_add_test(tc, min_dec_fac_caps_a_cut);
	tcase_add_test(tc, target_clamping);
	tcase_add_test(tc, late_advance);
	tcase_add_test(tc, param_by_name);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(dcqcn_suite)
