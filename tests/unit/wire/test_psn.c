/* SPDX-License-Identifier: BSD-3-Clause */
#include "sr_check.h"
#include "wire/psn.h"

START_TEST(psn_wraps_at_24_bits)
{
	ck_assert_uint_eq(sr_psn_add(0xffffff, 1), 0);
	ck_assert_uint_eq(sr_psn_add(0xfffffe, 5), 3);
	ck_assert_int_eq(sr_psn_diff(3, 0xfffffe), 5);
	ck_assert_int_eq(sr_psn_diff(0xfffffe, 3), -5);
	ck_assert(sr_psn_before(0xffffff, 0));
	ck_assert(!sr_psn_before(0, 0xffffff));
	ck_assert(!sr_psn_before(7, 7));
	/* Half the circle ahead is "after", the other half "before". */
	ck_assert_int_eq(sr_psn_diff(0x7fffff, 0), 0x7fffff);
	ck_assert_int_eq(sr_psn_diff(0x800000, 0), -0x800000);
}
END_TEST

static Suite *psn_suite(void)
{
	Suite *s = suite_create("wire_psn");
	TCase *tc = tcase_create("psn");

	tcase_add_test(tc, psn_wraps_at_24_bits);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(psn_suite)
