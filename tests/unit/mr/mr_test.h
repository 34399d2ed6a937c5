/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr_test.h — the fixture every MR test shares: a device with default (or
 * given) limits and one PD; teardown releases the PD and asserts that
 * nothing leaked (no PD, MR, MW, reference or translation byte left).
 */
#ifndef SR_MR_TEST_H
#define SR_MR_TEST_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sr_check.h"
#include "mr/mr.h"

static struct sr_mr_dev *fx_dev;
static struct sr_pd *fx_pd;

static inline void fx_setup_limits(const struct sr_dev_limits *l)
{
	fx_dev = sr_mr_dev_create(l);
	ck_assert_ptr_nonnull(fx_dev);
	fx_pd = sr_pd_alloc(fx_dev);
	ck_assert_ptr_nonnull(fx_pd);
}

static inline void fx_setup(void)
{
	fx_setup_limits(NULL);
}

/* Every teardown: nothing may be left behind. */
static inline void fx_assert_no_leak(struct sr_mr_dev *d)
{
	struct sr_mr_dev_usage u;

	sr_mr_dev_usage(d, &u);
	ck_assert_uint_eq(u.mrs, 0);
	ck_assert_uint_eq(u.mws, 0);
	ck_assert_uint_eq(u.refs, 0);
	ck_assert_uint_eq(u.xlate_bytes, 0);
	ck_assert_uint_eq(u.pds, 0);
	ck_assert_uint_eq(sr_mr_dev_in_use(d), 0);
}

static inline void fx_teardown(void)
{
	ck_assert_int_eq(sr_pd_dealloc(fx_pd), 0);
	fx_assert_no_leak(fx_dev);
	ck_assert_int_eq(sr_mr_dev_destroy(fx_dev), 0);
	fx_dev = NULL;
	fx_pd = NULL;
}

/* A zeroed, page-aligned buffer of n pages. */
static inline uint8_t *fx_pages(size_t n)
{
	uint8_t *p = aligned_alloc(SR_PAGE_SIZE, n * SR_PAGE_SIZE);

	ck_assert_ptr_nonnull(p);
	memset(p, 0, n * SR_PAGE_SIZE);
	return p;
}

static inline uint64_t fx_addr(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* Lookup that must succeed; returns the ref. */
static inline struct sr_mr_ref fx_lookup_ok(uint32_t key, bool remote, uint64_t va, uint64_t len,
					    uint32_t need, const struct sr_pd *pd, uint32_t qpn)
{
	struct sr_mr_ref ref;
	enum sr_mr_err e = sr_mr_lookup(fx_dev, key, remote, va, len, need, pd, qpn, &ref);

	ck_assert_msg(e == SR_MR_OK, "lookup key %#x va %#llx len %llu: %s", key,
		      (unsigned long long)va, (unsigned long long)len, sr_mr_err_name(e));
	return ref;
}

/* Lookup expected to fail with err (and hold nothing). */
static inline void fx_lookup_err(enum sr_mr_err err, uint32_t key, bool remote, uint64_t va,
				 uint64_t len, uint32_t need, const struct sr_pd *pd, uint32_t qpn)
{
	struct sr_mr_ref ref;
	enum sr_mr_err e = sr_mr_lookup(fx_dev, key, remote, va, len, need, pd, qpn, &ref);

	ck_assert_msg(e == err, "lookup key %#x va %#llx len %llu: %s, expected %s", key,
		      (unsigned long long)va, (unsigned long long)len, sr_mr_err_name(e),
		      sr_mr_err_name(err));
	if (e == SR_MR_OK)
		sr_mr_ref_put(&ref);
	ck_assert_ptr_null(ref.slot);
}

#endif /* SR_MR_TEST_H */
