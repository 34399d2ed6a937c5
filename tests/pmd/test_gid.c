/* SPDX-License-Identifier: BSD-3-Clause */
/* test_gid.c — the GID table layout. */
#include <errno.h>
#include <string.h>

#include "gid.h"
#include "sr_check.h"

static const uint8_t mac[6] = { 0x02, 0x53, 0x52, 0x00, 0x00, 0x01 };
static const uint8_t ipv4[4] = { 10, 0, 0, 1 };
static const uint8_t ipv6[2][16] = {
	{ 0xfd, 0x00, 0x53, 0x52, [15] = 1 },
	{ 0x20, 0x01, 0x0d, 0xb8, [15] = 7 },
};

START_TEST(test_layout)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, [8] = 0x00, 0x53, 0x52,
					0xff, 0xfe, 0x00, 0x00, 0x01 };
	static const uint8_t mapped[16] = { [10] = 0xff, 0xff, 10, 0, 0, 1 };
	struct sr_gid_table t;
	struct sr_gid_entry e;

	ck_assert_int_eq(sr_gid_table_build(&t, mac, ipv4, ipv6, 2), 0);
	ck_assert_uint_eq(t.n, 4);
	ck_assert_int_eq(sr_gid_query(&t, 0, &e), 0);
	ck_assert_mem_eq(e.gid, ll, 16);   /* U/L bit flipped: 02 -> 00 */
	ck_assert_uint_eq(e.type, SR_GID_TYPE_ROCE_V2);
	ck_assert_int_eq(sr_gid_query(&t, 1, &e), 0);
	ck_assert_mem_eq(e.gid, mapped, 16);
	ck_assert(sr_gid_is_ipv4(e.gid));
	ck_assert_int_eq(sr_gid_query(&t, 2, &e), 0);
	ck_assert_mem_eq(e.gid, ipv6[0], 16);
	ck_assert(!sr_gid_is_ipv4(e.gid));
	ck_assert_int_eq(sr_gid_query(&t, 3, &e), 0);
	ck_assert_mem_eq(e.gid, ipv6[1], 16);
	ck_assert_int_eq(sr_gid_query(&t, 4, &e), -EINVAL);
	for (uint32_t i = 0; i < t.n; i++)
		ck_assert_int_eq(sr_gid_find(&t, t.entry[i].gid), (int)i);
}
END_TEST

START_TEST(test_no_ipv4)
{
	struct sr_gid_table t;
	struct sr_gid_entry e;
	uint8_t g[16];

	ck_assert_int_eq(sr_gid_table_build(&t, mac, NULL, ipv6, 1), 0);
	ck_assert_int_eq(sr_gid_query(&t, 1, &e), -EINVAL);
	ck_assert_int_eq(sr_gid_query(&t, 2, &e), 0);
	sr_gid_from_ipv4(g, ipv4);
	ck_assert_int_eq(sr_gid_find(&t, g), -ENOENT);
	ck_assert_int_eq(sr_gid_table_build(&t, mac, ipv4, ipv6,
					    SR_GID_TABLE_MAX), -E2BIG);
}
END_TEST

/* A host NIC's table (sr_gid_table_host): the kernel's order rearranged. */
START_TEST(test_host_layout)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, [8] = 0x12, [15] = 0x34 };
	static const uint8_t v4a[16] = { [10] = 0xff, 0xff, 10, 1, 0, 1 };
	static const uint8_t v4b[16] = { [10] = 0xff, 0xff, 10, 2, 0, 1 };
	const uint8_t in[5][16] = {
		{ [10] = 0xff, 0xff, 10, 1, 0, 1 },
		{ [10] = 0xff, 0xff, 10, 2, 0, 1 },
		{ 0xfd, 0x00, 0x53, 0x52, [15] = 1 },
		{ 0xfe, 0x80, [8] = 0x12, [15] = 0x34 },
		{ 0x20, 0x01, 0x0d, 0xb8, [15] = 7 },
	};
	uint8_t many[12][16];
	struct sr_gid_table t;
	struct sr_gid_entry e;

	ck_assert_uint_eq(sr_gid_table_host(&t, mac, in, 5), 0);
	ck_assert_uint_eq(t.n, 5);
	ck_assert_int_eq(sr_gid_query(&t, 0, &e), 0);
	ck_assert_mem_eq(e.gid, ll, 16);        /* the kernel's link-local */
	ck_assert_int_eq(sr_gid_query(&t, 1, &e), 0);
	ck_assert_mem_eq(e.gid, v4a, 16);       /* the first IPv4 */
	ck_assert_int_eq(sr_gid_query(&t, 2, &e), 0);
	ck_assert_mem_eq(e.gid, in[2], 16);     /* then IPv6 in order */
	ck_assert_int_eq(sr_gid_query(&t, 3, &e), 0);
	ck_assert_mem_eq(e.gid, in[4], 16);
	ck_assert_int_eq(sr_gid_query(&t, 4, &e), 0);
	ck_assert_mem_eq(e.gid, v4b, 16);       /* then other IPv4 */
	ck_assert_uint_eq(e.type, SR_GID_TYPE_ROCE_V2);

	/* no address at all: the EUI-64 link-local, index 1 a hole */
	ck_assert_uint_eq(sr_gid_table_host(&t, mac, NULL, 0), 0);
	ck_assert_uint_eq(t.n, 2);
	ck_assert_int_eq(sr_gid_query(&t, 0, &e), 0);
	ck_assert_uint_eq(e.gid[0], 0xfe);
	ck_assert_int_eq(sr_gid_query(&t, 1, &e), -EINVAL);

	/* more than fit: counted, the table full */
	for (int i = 0; i < 12; i++) {
		memcpy(many[i], in[4], 16);
		many[i][14] = (uint8_t)i;
	}
	ck_assert_uint_eq(sr_gid_table_host(&t, mac, many, 12), 6);
	ck_assert_uint_eq(t.n, SR_GID_TABLE_MAX);
	ck_assert_int_eq(sr_gid_query(&t, 1, &e), -EINVAL);
}
END_TEST

static Suite *gid_suite(void)
{
	Suite *s = suite_create("pmd/gid");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_layout);
	tcase_add_test(tc, test_no_ipv4);
	tcase_add_test(tc, test_host_layout);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(gid_suite)
