/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_sroced_peers.c — a client's connected peers (pmd/sroced/peers.h):
 * set, change, clear, two QPs to one peer, 4096 QPs to 4096 peers, and
 * churn well past the table's size (tombstones rebuilt away).
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sr_check.h"
#include "sroced/peers.h"

static void gid_of(uint8_t gid[16], uint32_t n)
{
	memset(gid, 0, 16);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = 10;
	gid[13] = (uint8_t)(n >> 16);
	gid[14] = (uint8_t)(n >> 8);
	gid[15] = (uint8_t)n;
}

START_TEST(test_basic)
{
	struct srd_peers *p = calloc(1, sizeof(*p));
	uint8_t a[16], b[16];

	ck_assert_ptr_nonnull(p);
	gid_of(a, 1);
	gid_of(b, 2);
	ck_assert(!srd_peers_has(p, a, 0x1000));
	ck_assert_int_eq(srd_peers_set(p, 5, a, 0x1000, true), 0);
	ck_assert(srd_peers_has(p, a, 0x1000));
	ck_assert(!srd_peers_has(p, a, 0x1001));
	ck_assert(!srd_peers_has(p, b, 0x1000));
	/* a second QP to the same peer; the first moves elsewhere */
	ck_assert_int_eq(srd_peers_set(p, 6, a, 0x1000, true), 0);
	ck_assert_int_eq(srd_peers_set(p, 5, b, 0x2000, true), 0);
	ck_assert(srd_peers_has(p, a, 0x1000));
	ck_assert(srd_peers_has(p, b, 0x2000));
	ck_assert_int_eq(srd_peers_set(p, 6, a, 0x1000, false), 0);
	ck_assert(!srd_peers_has(p, a, 0x1000));
	ck_assert(srd_peers_has(p, b, 0x2000));
	ck_assert_int_eq(srd_peers_set(p, SRD_QPN_BLOCK, a, 1, true), -EINVAL);
	free(p);
}
END_TEST

START_TEST(test_many_and_churn)
{
	struct srd_peers *p = calloc(1, sizeof(*p));
	uint8_t g[16];

	ck_assert_ptr_nonnull(p);
	for (uint32_t i = 0; i < SRD_QPN_BLOCK; i++) {
		gid_of(g, i);
		ck_assert_int_eq(srd_peers_set(p, i, g, 0x100000 + i, true), 0);
	}
	for (uint32_t i = 0; i < SRD_QPN_BLOCK; i++) {
		gid_of(g, i);
		ck_assert(srd_peers_has(p, g, 0x100000 + i));
		ck_assert(!srd_peers_has(p, g, 0x200000 + i));
	}
	/* 20 generations of new peers on every QP */
	for (uint32_t gen = 1; gen <= 20; gen++)
		for (uint32_t i = 0; i < SRD_QPN_BLOCK; i++) {
			gid_of(g, i + gen * SRD_QPN_BLOCK);
			ck_assert_int_eq(srd_peers_set(p, i, g, gen, true), 0);
		}
	for (uint32_t i = 0; i < SRD_QPN_BLOCK; i++) {
		gid_of(g, i + 20 * SRD_QPN_BLOCK);
		ck_assert(srd_peers_has(p, g, 20));
		gid_of(g, i + 19 * SRD_QPN_BLOCK);
		ck_assert(!srd_peers_has(p, g, 19));
	}
	ck_assert_uint_le(p->used, SRD_PEER_SLOTS);
	free(p);
}
END_TEST

static Suite *peers_suite(void)
{
	Suite *s = suite_create("sroced_peers");
	TCase *tc = tcase_create("peers");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_many_and_churn);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(peers_suite)
