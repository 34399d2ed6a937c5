/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-QP token bucket with a simulated clock, and the static rate table.
 */
#include "sr_check.h"
#include "cc/pacer.h"

#include <errno.h>

#define GBPS 1000000000ull

/* Rounds of irregular length (0..3 us, a fixed pseudo-random sequence); each
 * sends 1024-byte packets while the pacer lets it.  Returns bytes sent. */
static uint64_t run(struct sr_pacer *p, uint64_t t0, uint64_t t1, uint64_t *now)
{
	uint32_t x = 12345;
	uint64_t sent = 0, t = t0;

	while (t < t1) {
		while (sr_pacer_take(p, 1024, t))
			sent += 1024;
		x = x * 1103515245u + 12345u;
		t += (x >> 16) % 3001;
	}
	*now = t;
	return sent;
}

/* Over 10 ms the pacer sends rate * time, give or take the burst and one
 * packet: the bucket's own bound, whatever the rounds look like, as long as
 * the burst holds a round's worth of credit (16 KiB: 3 us at 25 Gbit/s is
 * 9.4 kB). */
START_TEST(pacer_accuracy)
{
	static const uint64_t rates[] = { 1 * GBPS, 10 * GBPS, 25 * GBPS, 3333333 };
	struct sr_pacer p;
	uint64_t now, sent;
	double want;

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		ck_assert_int_eq(sr_pacer_init(&p, rates[i], 16384, 0), 0);
		sent = run(&p, 0, 10000000, &now);
		want = (double)rates[i] / 8 * (double)now / 1e9;
		ck_assert_msg((double)sent <= want + 16384 + 1024,
			      "rate %llu: sent %llu, bound %.0f",
			      (unsigned long long)rates[i],
			      (unsigned long long)sent, want + 17408);
		/* No credit was lost to a full bucket: short by one packet at most. */
		ck_assert_msg((double)sent >= want - 1024,
			      "rate %llu: sent %llu, want %.0f",
			      (unsigned long long)rates[i],
			      (unsigned long long)sent, want);
		ck_assert_uint_gt(p.held, 0);
	}
}
END_TEST

START_TEST(pacer_unlimited)
{
	struct sr_pacer p;

	ck_assert_int_eq(sr_pacer_init(&p, 0, 1, 0), 0);
	for (int i = 0; i < 1000; i++)
		ck_assert(sr_pacer_take(&p, 65536, 0));
	ck_assert_uint_eq(sr_pacer_next(&p, 5), 5);
	ck_assert_uint_eq(p.held, 0);
}
END_TEST

/* The burst goes at once; then sr_pacer_next names the exact nanosecond. */
START_TEST(pacer_next)
{
	struct sr_pacer p;
	uint64_t t;

	ck_assert_int_eq(sr_pacer_init(&p, 8 * GBPS, 3000, 1000), 0);  /* 1 B/ns */
	ck_assert(sr_pacer_take(&p, 1000, 1000));
	ck_assert(sr_pacer_take(&p, 1000, 1000));
	ck_assert(sr_pacer_take(&p, 1500, 1000));   /* credit goes to -500 B */
	ck_assert(!sr_pacer_take(&p, 1, 1000));
	t = sr_pacer_next(&p, 1000);
	ck_assert_uint_eq(t, 1501);                 /* 500 B + 1 unit */
	ck_assert(!sr_pacer_take(&p, 1, 1500));
	ck_assert(sr_pacer_take(&p, 1, 1501));
	ck_assert_uint_eq(p.held, 2);
}
END_TEST

START_TEST(pacer_rate_change)
{
	struct sr_pacer p;
	uint64_t now, a, b;

	sr_pacer_init(&p, 10 * GBPS, 8192, 0);
	a = run(&p, 0, 1000000, &now);
	ck_assert_int_eq(sr_pacer_set_rate(&p, 1 * GBPS, now), 0);
	b = run(&p, now, now + 1000000, &now);
	/* 1 ms at 10 Gbit/s is 1.25 MB, at 1 Gbit/s 125 kB. */
	ck_assert_uint_gt(a, 1240000);
	ck_assert_uint_lt(a, 1260000);
	ck_assert_uint_gt(b, 120000);
	ck_assert_uint_lt(b, 130000);
	ck_assert_int_eq(sr_pacer_set_rate(&p, SR_PACER_MAX_RATE + 1, now), -EINVAL);
	ck_assert_uint_eq(p.rate_bps, 1 * GBPS);
}
END_TEST

/* A smaller burst cuts the credit (and the debt) to it at once. */
START_TEST(pacer_burst_change)
{
	struct sr_pacer p;

	ck_assert_int_eq(sr_pacer_init(&p, 1 * GBPS, 65536, 0), 0);
	ck_assert_uint_eq(sr_pacer_credit_bytes(&p), 65536);
	ck_assert_int_eq(sr_pacer_set_burst(&p, 4096), 0);
	ck_assert_uint_eq(sr_pacer_credit_bytes(&p), 4096);
	sr_pacer_charge(&p, 1 << 20);
	ck_assert_int_eq(p.credit, -4096ll * 8000000000ll);
	/* 4096 bytes of debt at 1 Gbit/s: 32.768 us to pay back */
	ck_assert_uint_eq(sr_pacer_next(&p, 0), 32769);
	ck_assert_int_eq(sr_pacer_set_burst(&p, 0), -EINVAL);
	ck_assert_int_eq(sr_pacer_set_burst(&p, SR_PACER_MAX_BURST + 1), -EINVAL);
	ck_assert_int_eq(sr_pacer_set_burst(NULL, 1), -EINVAL);
}
END_TEST

/* Long idle, a clock that runs back, and the largest values do not overflow. */
START_TEST(pacer_edges)
{
	struct sr_pacer p;

	ck_assert_int_eq(sr_pacer_init(&p, 1, 1, 0), 0);
	ck_assert_int_eq(sr_pacer_init(NULL, 1, 1, 0), -EINVAL);
	ck_assert_int_eq(sr_pacer_init(&p, 1, 0, 0), -EINVAL);
	ck_assert_int_eq(sr_pacer_init(&p, 1, SR_PACER_MAX_BURST + 1, 0), -EINVAL);
	ck_assert_int_eq(sr_pacer_init(&p, SR_PACER_MAX_RATE + 1, 1, 0), -EINVAL);

	ck_assert_int_eq(sr_pacer_init(&p, SR_PACER_MAX_RATE, SR_PACER_MAX_BURST, 0), 0);
	ck_assert(sr_pacer_take(&p, UINT32_MAX, 0));   /* counted as the max */
	ck_assert_int_eq(p.credit, 0);
	ck_assert(!sr_pacer_take(&p, 1, 0));
	ck_assert(sr_pacer_take(&p, 1, UINT64_MAX / 2));
	ck_assert_int_eq(p.credit, p.burst - 8000000000ll);

	ck_assert_int_eq(sr_pacer_init(&p, 1, 1, 1000000), 0);   /* 1 bit/s */
	ck_assert(sr_pacer_take(&p, 1, 1000000));
	ck_assert(!sr_pacer_take(&p, 1, 5));          /* clock ran back: no credit */
	ck_assert_uint_eq(p.last_ns, 1000000);
	ck_assert_uint_eq(sr_pacer_next(&p, 1000000), 1000001);   /* one unit short */
}
END_TEST

START_TEST(static_rate_table)
{
	static const struct { uint32_t code; uint64_t gbps10; } t[] = {
		{ 2, 25 }, { 3, 100 }, { 4, 300 }, { 5, 50 }, { 6, 200 },
		{ 7, 400 }, { 8, 600 }, { 9, 800 }, { 10, 1200 }, { 11, 140 },
		{ 12, 560 }, { 13, 1120 }, { 14, 1680 }, { 15, 250 },
		{ 16, 1000 }, { 17, 2000 }, { 18, 3000 }, { 19, 280 },
		{ 20, 500 }, { 21, 4000 }, { 22, 6000 }, { 23, 8000 },
		{ 24, 12000 },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_uint_eq(sr_static_rate_bps(t[i].code), t[i].gbps10 * 100000000ull);
	ck_assert_uint_eq(sr_static_rate_bps(0), 0);   /* IBV_RATE_MAX */
	ck_assert_uint_eq(sr_static_rate_bps(1), 0);
	ck_assert_uint_eq(sr_static_rate_bps(25), 0);
	ck_assert_uint_eq(sr_static_rate_bps(UINT32_MAX), 0);
	ck_assert_uint_eq(sr_rate_limit_kbps_to_bps(1000), 1000000);
}
END_TEST

static Suite *pacer_suite(void)
{
	Suite *s = suite_create("cc_pacer");
	TCase *tc = tcase_create("pacer");

	tcase_add_test(tc, pacer_accuracy);
	tcase_add_test(tc, pacer_unlimited);
	tcase_add_test(tc, pacer_next);
	tcase_add_test(tc, pacer_rate_change);
	tcase_add_test(tc, pacer_burst_change);
	tcase_add_test(tc, pacer_edges);
	tcase_add_test(tc, static_rate_table);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(pacer_suite)
