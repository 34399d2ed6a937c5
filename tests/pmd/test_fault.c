/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fault.c — fault rules: parsing, matching, verdicts, hold queue. */
#include <errno.h>
#include <string.h>

#include "fault.h"
#include "frame.h"
#include "sr_check.h"

static uint8_t frame[128];
static uint32_t frame_len;

/* A UDP/4791 frame with BTH opcode and PSN. */
static void make_frame(uint8_t opcode, uint32_t psn)
{
	static const uint8_t a[6] = { 2, 0, 0, 0, 0, 1 }, b[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t ia[4] = { 10, 0, 0, 1 }, ib[4] = { 10, 0, 0, 2 };
	uint32_t off = sr_frame_put_udp4(frame, a, b, 0, ia, ib, 5000, 12 + 32 + 4);

	memset(frame + off, 0, 48);
	frame[off] = opcode;
	sr_put_be32(frame + off + 8, psn);
	frame_len = off + 48;
}

static struct sr_fault_state st;

static void load(const char *const *rules, uint32_t n)
{
	struct sr_fault_set set = { .n = n, .seed = 1 };
	char err[128];

	for (uint32_t i = 0; i < n; i++)
		ck_assert_msg(sr_fault_rule_parse(&set.rule[i], rules[i], err,
						  sizeof(err)) == 0, "%s", err);
	sr_fault_state_init(&st, &set);
}

static unsigned int decide(unsigned int dir)
{
	uint64_t delay = 0;

	return sr_fault_decide(&st, dir, frame, frame_len, &delay);
}

START_TEST(test_parse_format_round_trip)
{
	static const char *const rules[] = {
		"tx drop prob=0.05",
		"rx dup prob=1",
		"both reorder prob=0.5 every=3",
		"tx delay prob=1 us=250",
		"rx corrupt prob=0.25 opcode=4 psn=77",
		"tx drop psn=5 times=1",
		"rx ce every=4",
	};
	struct sr_fault_rule r, r2;
	char err[128], buf[128];

	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		ck_assert_int_eq(sr_fault_rule_parse(&r, rules[i], err, sizeof(err)), 0);
		sr_fault_rule_format(&r, buf, sizeof(buf));
		ck_assert_int_eq(sr_fault_rule_parse(&r2, buf, err, sizeof(err)), 0);
		ck_assert_mem_eq(&r, &r2, sizeof(r));
	}
	ck_assert_str_eq(sr_fault_action_name(SR_FAULT_CORRUPT), "corrupt");
}
END_TEST

START_TEST(test_every_nth)
{
	static const char *const rules[] = { "tx drop every=4" };
	uint32_t drops = 0;

	load(rules, 1);
	make_frame(4, 1);
	for (int i = 1; i <= 40; i++) {
		unsigned int v = decide(SR_FAULT_TX);

		ck_assert_uint_eq(v, i % 4 == 0 ? SR_FAULT_DROP : SR_FAULT_NONE);
		drops += v == SR_FAULT_DROP;
	}
	ck_assert_uint_eq(drops, 10);
	/* The other direction is untouched. */
	ck_assert_uint_eq(decide(SR_FAULT_RX), SR_FAULT_NONE);
}
END_TEST

/* times=1: PSN 5 lost once, its retransmission passes; then the next
 * rule (every other frame of PSN 5 duplicated) takes over. */
START_TEST(test_times)
{
	static const char *const rules[] = { "tx drop psn=5 times=1",
					     "tx dup psn=5 every=2" };

	load(rules, 2);
	make_frame(4, 4);
	ck_assert_uint_eq(decide(SR_FAULT_TX), SR_FAULT_NONE);
	make_frame(4, 5);
	ck_assert_uint_eq(decide(SR_FAULT_TX), SR_FAULT_DROP);
	ck_assert_uint_eq(decide(SR_FAULT_TX), SR_FAULT_NONE);
	ck_assert_uint_eq(decide(SR_FAULT_TX), SR_FAULT_DUP);
	for (int i = 0; i < 10; i++)
		ck_assert_uint_ne(decide(SR_FAULT_TX), SR_FAULT_DROP);
	ck_assert_uint_eq(st.hits[SR_FAULT_DROP], 1);
}
END_TEST

/* ce: an ECT(0) frame becomes CE with a valid IPv4 checksum; a Not-ECT
 * frame is left alone. */
START_TEST(test_mark_ce)
{
	static const char *const rules[] = { "rx ce" };
	uint8_t *ip;
	uint32_t sum = 0;

	load(rules, 1);
	make_frame(10, 7);
	ip = frame + 14;
	ck_assert_uint_eq(decide(SR_FAULT_RX), SR_FAULT_CE);
	ck_assert(!sr_fault_mark_ce(frame, frame_len));      /* Not-ECT */
	ck_assert_uint_eq(ip[1] & 3, 0);
	ip[1] |= 0x02;                                       /* ECT(0) */
	sr_put_be16(ip + 10, 0);
	for (int i = 0; i < 20; i += 2)
		sum += sr_get_be16(ip + i);
	sum = (sum & 0xffff) + (sum >> 16);
	sr_put_be16(ip + 10, (uint16_t)~sum);
	ck_assert(sr_fault_mark_ce(frame, frame_len));
	ck_assert_uint_eq(ip[1] & 3, 3);
	sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += sr_get_be16(ip + i);
	sum = (sum & 0xffff) + (sum >> 16);
	ck_assert_uint_eq(sum, 0xffff);                      /* checksum ok */
}
END_TEST

START_TEST(test_probability)
{
	static const char *const rules[] = { "both drop prob=5%" };
	uint32_t drops = 0;

	load(rules, 1);
	make_frame(4, 1);
	for (int i = 0; i < 100000; i++)
		drops += decide(SR_FAULT_TX) == SR_FAULT_DROP;
	ck_assert_uint_gt(drops, 4500);
	ck_assert_uint_lt(drops, 5500);
}
END_TEST

START_TEST(test_opcode_psn_match_first_rule_wins)
{
	static const char *const rules[] = {
		"rx corrupt opcode=10 psn=100",
		"rx delay psn=100 us=5",
		"rx dup opcode=10",
	};
	uint64_t delay = 0;

	load(rules, 3);
	make_frame(10, 100);
	ck_assert_uint_eq(decide(SR_FAULT_RX), SR_FAULT_CORRUPT);
	make_frame(4, 100);
	ck_assert_uint_eq(sr_fault_decide(&st, SR_FAULT_RX, frame, frame_len,
					  &delay), SR_FAULT_DELAY);
	ck_assert_uint_eq(delay, 5000);
	make_frame(10, 101);
	ck_assert_uint_eq(decide(SR_FAULT_RX), SR_FAULT_DUP);
	make_frame(11, 101);
	ck_assert_uint_eq(decide(SR_FAULT_RX), SR_FAULT_NONE);
	ck_assert_uint_eq(st.hits[SR_FAULT_CORRUPT], 1);
}
END_TEST

START_TEST(test_non_roce_untouched)
{
	static const char *const rules[] = { "both drop" };

	load(rules, 1);
	make_frame(4, 1);
	sr_put_be16(frame + 14 + 20 + 2, 53);     /* not port 4791 */
	ck_assert_uint_eq(decide(SR_FAULT_TX), SR_FAULT_NONE);
}
END_TEST

START_TEST(test_corrupt_flips_icrc_only)
{
	uint8_t before[128];

	make_frame(4, 9);
	memcpy(before, frame, sizeof(before));
	sr_fault_corrupt(frame, frame_len);
	for (uint32_t i = 0; i < frame_len; i++)
		if (i == frame_len - 1)
			ck_assert_uint_eq(frame[i], before[i] ^ 1);
		else
			ck_assert_uint_eq(frame[i], before[i]);
}
END_TEST

START_TEST(test_hold_queue)
{
	struct sr_fault_hold h = { 0 };
	void *out[8];
	int a, b, c;

	ck_assert_int_eq(sr_fault_hold_push(&h, &a, 100), 0);
	ck_assert_int_eq(sr_fault_hold_push(&h, &b, UINT64_MAX), 0);
	ck_assert_int_eq(sr_fault_hold_push(&h, &c, 50), 0);
	ck_assert_uint_eq(sr_fault_hold_pop(&h, 10, false, out, 8), 0);
	ck_assert_uint_eq(sr_fault_hold_pop(&h, 60, false, out, 8), 1);
	ck_assert_ptr_eq(out[0], &c);
	ck_assert_uint_eq(sr_fault_hold_pop(&h, 60, true, out, 8), 1);
	ck_assert_ptr_eq(out[0], &b);
	ck_assert_uint_eq(sr_fault_hold_drain(&h, out, 8), 1);
	ck_assert_ptr_eq(out[0], &a);
	ck_assert_uint_eq(h.count, 0);
	for (int i = 0; i < SR_FAULT_HOLD_MAX; i++)
		ck_assert_int_eq(sr_fault_hold_push(&h, &a, 1), 0);
	ck_assert_int_eq(sr_fault_hold_push(&h, &a, 1), -ENOSPC);
}
END_TEST

static Suite *fault_suite(void)
{
	Suite *s = suite_create("pmd/fault");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_parse_format_round_trip);
	tcase_add_test(tc, test_every_nth);
	tcase_add_test(tc, test_times);
	tcase_add_test(tc, test_mark_ce);
	tcase_add_test(tc, test_probability);
	tcase_add_test(tc, test_opcode_psn_match_first_rule_wins);
	tcase_add_test(tc, test_non_roce_untouched);
	tcase_add_test(tc, test_corrupt_flips_icrc_only);
	tcase_add_test(tc, test_hold_queue);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(fault_suite)
