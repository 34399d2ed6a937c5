/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_scfile.c — sroce-conform's scenario files (suites conform and unit:
 * no DPDK, so it also runs under the sanitizers).  Every shipped file reads
 * without an error and holds at least 60 scenarios, each with its
 * reference, title and steps; a file with errors loses only its bad
 * scenarios, each reported at its line; a missing file is an error.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/sr_check.h"
#include "scfile.h"

static struct sc_list shipped;

/* ---- scfile ---- */

START_TEST(shipped_files_read)
{
	ck_assert_uint_eq(shipped.nerrors, 0);
	ck_assert_uint_ge(shipped.n, 60);
	for (size_t i = 0; i < shipped.n; i++) {
		ck_assert_str_ne(shipped.sc[i].ref, "");
		ck_assert_str_ne(shipped.sc[i].title, "");
		ck_assert_uint_gt(shipped.sc[i].nsteps, 0);
	}
}
END_TEST

static const char bad_file[] =
	"scenario ok.one\n"                          /* 1 */
	"area responder\n"
	"ref IBA 9.4.3\n"
	"send WRITE_ONLY psn=0 payload=8 ackreq\n"
	"expect ACKNOWLEDGE psn=0 aeth=ack\n"        /* 5 */
	"end\n"
	"scenario bad.opcode\n"
	"area responder\n"
	"ref x\n"
	"send WRITE_SIDEWAYS psn=0\n"                /* 10 */
	"end\n"
	"scenario bad.key\n"
	"area responder\n"
	"ref x\n"
	"expect ACKNOWLEDGE colour=blue\n"           /* 15 */
	"end\n"
	"scenario ok.one\n"                          /* duplicate name */
	"area responder\n"
	"ref x\n"
	"wait ms=1\n"                                /* 20 */
	"end\n"
	"expect ACKNOWLEDGE\n"                       /* outside */
	"scenario bad.aeth\n"
	"area rnr\n"
	"ref x\n"                                    /* 25 */
	"expect ACKNOWLEDGE aeth=maybe\n"
	"end\n"
	"scenario bad.noend\n"
	"area ud\n"
	"ref x\n"                                    /* 30 */
	"qp ud\n"
	"send SEND_ONLY payload=5000\n";

static bool has_error(const struct sc_list *l, const char *needle)
{
	for (size_t i = 0; i < l->nerrors; i++)
		if (strstr(l->errors[i], needle) != NULL)
			return true;
	return false;
}

START_TEST(bad_file_keeps_the_rest)
{
	struct sc_list l = { 0 };
	FILE *f = fmemopen((void *)bad_file, sizeof(bad_file) - 1, "r");
	int n;

	ck_assert_ptr_nonnull(f);
	n = sc_file_read_stream(&l, f, "bad.sc");
	fclose(f);
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(l.sc[0].name, "ok.one");
	ck_assert_uint_eq(l.sc[0].nsteps, 2);
	ck_assert(has_error(&l, "bad.sc:10:"));
	ck_assert(has_error(&l, "bad.sc:15: unknown key 'colour'"));
	ck_assert(has_error(&l, "bad.sc:17: scenario ok.one: the name is taken"));
	ck_assert(has_error(&l, "bad.sc:22: 'expect' outside a scenario"));
	ck_assert(has_error(&l, "bad.sc:26: aeth=maybe"));
	ck_assert(has_error(&l, "bad.sc:32: payload=5000: out of range"));
	ck_assert(has_error(&l, "has no end"));
	sc_list_free(&l);
}
END_TEST

START_TEST(missing_file_is_an_error)
{
	struct sc_list l = { 0 };

	ck_assert_int_lt(sc_file_read(&l, "/nonexistent/x.sc"), 0);
	ck_assert_uint_eq(l.nerrors, 1);
	ck_assert_uint_eq(l.n, 0);
	sc_list_free(&l);
}
END_TEST

static void shipped_load(void)
{
	sc_dir_read(&shipped, SC_SCENARIO_DIR);
}

static void shipped_free(void)
{
	sc_list_free(&shipped);
}

static Suite *scfile_suite(void)
{
	Suite *s = suite_create("conform_scfile");
	TCase *tc = tcase_create("scfile");

	tcase_add_checked_fixture(tc, shipped_load, shipped_free);
	tcase_add_test(tc, shipped_files_read);
	tcase_add_test(tc, bad_file_keeps_the_rest);
	tcase_add_test(tc, missing_file_is_an_error);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(scfile_suite)
