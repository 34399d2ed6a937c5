/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pagelist.c — page-list (MDL chain) and scatter/gather-list
 * registrations: every valid shape translates exactly, every invalid
 * shape is refused with its errno before anything is allocated.
 */
#include "mr_test.h"

#define P SR_PAGE_SIZE

/* Page lists over a pool of real pages, given as pool indices. */
struct pl_case {
	const char *name;
	uint32_t npages;
	int32_t page[4];      /* pool index; -1: NULL; -2: wrapping page */
	uint32_t mis;         /* bytes added to page[mis_at] (misalign) */
	int32_t mis_at;       /* -1: none */
	uint32_t fbo;
	uint64_t length;
	int64_t iova_delta;   /* iova = first page address + fbo + delta */
	uint32_t access;
	int rc;
};

static const struct pl_case pl_cases[] = {
	{ "one page, mid start, mid end", 1, { 0 }, 0, -1, 100, 200, 0, 0, 0 },
	{ "one whole page", 1, { 0 }, 0, -1, 0, P, 0, 0, 0 },
	{ "three, mid start, mid end", 3, { 3, 1, 5 }, 0, -1, 4000, 2 * P, 0, 0, 0 },
	{ "four, mid end", 4, { 2, 0, 4, 6 }, 0, -1, 0, 3 * P + 10, 0, 0, 0 },
	{ "zero-based", 2, { 1, 2 }, 0, -1, 7, P, 0, SR_ACCESS_ZERO_BASED, 0 },
	{ "iova page offset differs", 1, { 0 }, 0, -1, 100, 10, 1, 0, -EINVAL },
	{ "npages 0", 0, { 0 }, 0, -1, 0, 1, 0, 0, -EINVAL },
	{ "fbo a whole page", 1, { 0 }, 0, -1, P, 1, 0, 0, -EINVAL },
	{ "length 0", 1, { 0 }, 0, -1, 0, 0, 0, 0, -EINVAL },
	{ "too few pages", 1, { 0 }, 0, -1, 100, P, 0, 0, -EINVAL },
	{ "extra page at the end", 3, { 0, 1, 2 }, 0, -1, 0, 2 * P, 0, 0, -EINVAL },
	{ "extra page, length ends on a boundary", 2, { 0, 1 }, 0, -1, 100, P - 100, 0, 0, -EINVAL },
	{ "first page misaligned", 2, { 0, 1 }, 8, 0, 0, 2 * P, 0, 0, -EINVAL },
	{ "interior page misaligned", 3, { 0, 1, 2 }, 512, 1, 0, 3 * P, 0, 0, -EINVAL },
	{ "last page misaligned", 2, { 0, 1 }, 1, 1, 0, P + 1, 0, 0, -EINVAL },
	{ "NULL page", 2, { 0, -1 }, 0, -1, 0, 2 * P, 0, 0, -EFAULT },
	{ "page wraps", 2, { 0, -2 }, 0, -1, 0, 2 * P, 0, 0, -EFAULT },
	{ "remote write without local", 1, { 0 }, 0, -1, 0, 10, 0, SR_ACCESS_REMOTE_WRITE, -EINVAL },
	{ "over MaxRegistrationSize", 4, { 0, 1, 2, 3 }, 0, -1, 0, 4 * P, 0, 0, -EINVAL },
};

static void pl_setup(void)
{
	struct sr_dev_limits l = sr_dev_limits_default();

	l.max_registration_size = 4 * P - 1;
	fx_setup_limits(&l);
}

START_TEST(test_page_list_shapes)
{
	const struct pl_case *c = &pl_cases[_i];
	uint8_t *pool = fx_pages(8);
	uint64_t pages[4];
	struct sr_page_list pl;
	struct sr_mr *mr = sr_mr_create(fx_pd, false);
	int rc;

	for (uint32_t i = 0; i < 4; i++) {
		int32_t pi = c->page[i];

		pages[i] = pi == -1 ? 0 : pi == -2 ? UINT64_MAX - P + 1 : fx_addr(pool) + (uint64_t)pi * P;
		if ((int32_t)i == c->mis_at)
			pages[i] += c->mis;
	}
	pl = (struct sr_page_list){ .pages = pages, .npages = c->npages, .fbo = c->fbo,
				    .length = c->length };
	uint64_t iova = (c->access & SR_ACCESS_ZERO_BASED) ? 0 : pages[0] + c->fbo + (uint64_t)c->iova_delta;

	/* Local write (for the copies below) unless the row tests its absence. */
	uint32_t acc = (c->access & SR_ACCESS_NEEDS_LOCAL_WRITE) ? c->access
								: c->access | SR_ACCESS_LOCAL_WRITE;

	rc = sr_mr_register_pages(mr, &pl, iova, acc);
	ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d", c->name, rc, c->rc);
	if (rc != 0) {
		struct sr_mr_dev_usage u;

		sr_mr_dev_usage(fx_dev, &u);
		ck_assert_uint_eq(u.xlate_bytes, 0);  /* nothing allocated */
		ck_assert(!sr_mr_is_valid(mr));
		goto out;
	}

	/* Valid: every byte of the region lands on the right page. */
	uint8_t *src = malloc(c->length), *back = malloc(c->length);
	uint64_t base = sr_mr_iova(mr);

	for (uint64_t i = 0; i < c->length; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	struct sr_mr_ref r = fx_lookup_ok(sr_mr_lkey(mr), false, base, c->length,
					  SR_ACCESS_LOCAL_WRITE, fx_pd, 0);

	sr_mr_copy_to(&r, base, src, c->length);
	for (uint64_t i = 0; i < c->length; i++) {
		uint64_t at = c->fbo + i;
		uint8_t *host = (uint8_t *)(uintptr_t)pages[at / P] + at % P;

		ck_assert_uint_eq(*host, src[i]);
	}
	memset(back, 0, c->length);
	sr_mr_copy_from(&r, base, back, c->length);
	ck_assert_int_eq(memcmp(src, back, c->length), 0);
	/* One segment per discontiguity. */
	struct sr_seg segs[8];
	unsigned n = sr_mr_ref_map(&r, base, c->length, segs, 8), expect = 1;

	for (uint32_t i = 1; i < c->npages; i++)
		expect += pages[i] != pages[i - 1] + P;
	ck_assert_uint_eq(n, expect);
	sr_mr_ref_put(&r);
	fx_lookup_err(SR_MR_E_BOUNDS, sr_mr_lkey(mr), false, base, c->length + 1, 0, fx_pd, 0);
	free(src);
	free(back);
out:
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(pool);
}
END_TEST

START_TEST(test_page_list_args)
{
	struct sr_mr *mr = sr_mr_create(fx_pd, false);
	struct sr_page_list pl = { .pages = NULL, .npages = 1, .fbo = 0, .length = 1 };

	ck_assert_int_eq(sr_mr_register_pages(mr, NULL, 0, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_register_pages(mr, &pl, 0, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
}
END_TEST

/* SG lists over a pool: element = (pool page index, offset, length). */
struct sg_case {
	const char *name;
	uint32_t n;
	struct { int32_t page; uint32_t off; uint64_t len; } e[4];
	int64_t iova_delta;
	int rc;
};

static const struct sg_case sg_cases[] = {
	{ "single, anywhere", 1, { { 0, 123, 456 } }, 0, 0 },
	{ "first mid-page, last mid-page", 3, { { 0, 100, P - 100 }, { 3, 0, 2 * P }, { 1, 0, 10 } }, 0, 0 },
	{ "whole pages", 2, { { 2, 0, P }, { 6, 0, P } }, 0, 0 },
	{ "contiguous elements merge", 3, { { 0, 0, P }, { 1, 0, P }, { 2, 0, 5 } }, 0, 0 },
	{ "n 0", 0, { { 0, 0, 1 } }, 0, -EINVAL },
	{ "zero-length element", 2, { { 0, 0, P }, { 1, 0, 0 } }, 0, -EINVAL },
	{ "first ends mid-page", 2, { { 0, 0, 100 }, { 1, 0, P } }, 0, -EINVAL },
	{ "interior starts mid-page", 3, { { 0, 0, P }, { 2, 8, P - 8 }, { 4, 0, 1 } }, 0, -EINVAL },
	{ "interior ends mid-page", 3, { { 0, 0, P }, { 2, 0, P - 8 }, { 4, 0, 1 } }, 0, -EINVAL },
	{ "last starts mid-page", 2, { { 0, 0, P }, { 1, 4, 10 } }, 0, -EINVAL },
	{ "NULL element", 2, { { 0, 0, P }, { -1, 0, 10 } }, 0, -EFAULT },
	{ "element wraps", 2, { { 0, 0, P }, { -2, 0, 2 * P } }, 0, -EFAULT },
	{ "iova page offset differs", 1, { { 0, 100, 10 } }, 5, -EINVAL },
	{ "over MaxRegistrationSize", 2, { { 0, 0, 3 * P }, { 4, 0, P } }, 0, -EINVAL },
};

START_TEST(test_sg_list_shapes)
{
	const struct sg_case *c = &sg_cases[_i];
	uint8_t *pool = fx_pages(8);
	struct sr_sg_elem sg[4];
	struct sr_mr *mr = sr_mr_create(fx_pd, false);
	uint64_t total = 0;
	int rc;

	for (uint32_t i = 0; i < 4; i++) {
		int32_t pi = c->e[i].page;
		uint64_t a = pi == -1 ? 0 : pi == -2 ? UINT64_MAX - P + 1 : fx_addr(pool) + (uint64_t)pi * P;

		sg[i] = (struct sr_sg_elem){ .addr = a + c->e[i].off, .len = c->e[i].len };
		if (i < c->n)
			total += c->e[i].len;
	}
	rc = sr_mr_register_sgl(mr, sg, c->n, sg[0].addr + (uint64_t)c->iova_delta,
				SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ);
	ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d", c->name, rc, c->rc);
	if (rc != 0) {
		struct sr_mr_dev_usage u;

		sr_mr_dev_usage(fx_dev, &u);
		ck_assert_uint_eq(u.xlate_bytes, 0);
		goto out;
	}
	ck_assert_uint_eq(sr_mr_length(mr), total);

	/* Copy through the whole region and from every element boundary. */
	uint8_t *src = malloc(total), *back = calloc(1, total);
	uint64_t base = sr_mr_iova(mr);

	for (uint64_t i = 0; i < total; i++)
		src[i] = (uint8_t)(i ^ (i >> 8));
	struct sr_mr_ref r = fx_lookup_ok(sr_mr_rkey(mr), true, base, total, SR_ACCESS_REMOTE_READ,
					  fx_pd, 0);

	sr_mr_copy_to(&r, base, src, total);
	uint64_t at = 0;

	for (uint32_t i = 0; i < c->n; i++) {
		ck_assert_int_eq(memcmp((void *)(uintptr_t)sg[i].addr, src + at, sg[i].len), 0);
		at += sg[i].len;
	}
	for (uint64_t off = 0; off < total; off += 997) {
		uint64_t len = total - off < 3000 ? total - off : 3000;

		memset(back, 0, total);
		sr_mr_copy_from(&r, base + off, back, len);
		ck_assert_int_eq(memcmp(back, src + off, len), 0);
	}
	sr_mr_ref_put(&r);
	free(src);
	free(back);
out:
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(pool);
}
END_TEST

START_TEST(test_sg_list_args)
{
	struct sr_mr *mr = sr_mr_create(fx_pd, false);

	ck_assert_int_eq(sr_mr_register_sgl(mr, NULL, 1, 0, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	/* ibverbs-style one call, refused: nothing left behind. */
	struct sr_sg_elem e = { .addr = 0, .len = 1 };
	struct sr_mr_src src = { .kind = SR_MR_SRC_SGL, .sgl = { .elems = &e, .n = 1 } };

	errno = 0;
	ck_assert_ptr_null(sr_mr_reg(fx_pd, &src, 0));
	ck_assert_int_eq(errno, EFAULT);
}
END_TEST

static Suite *pagelist_suite(void)
{
	Suite *s = suite_create("mr_pagelist");
	TCase *tc = tcase_create("shapes");

	tcase_add_checked_fixture(tc, pl_setup, fx_teardown);
	tcase_add_loop_test(tc, test_page_list_shapes, 0, sizeof(pl_cases) / sizeof(pl_cases[0]));
	tcase_add_test(tc, test_page_list_args);
	tcase_add_loop_test(tc, test_sg_list_shapes, 0, sizeof(sg_cases) / sizeof(sg_cases[0]));
	tcase_add_test(tc, test_sg_list_args);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(pagelist_suite)
