/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mr.c — PDs and normal registrations: access rules, keys and key
 * bytes, separate local/remote tokens, one registration per object,
 * many registrations of one buffer, bad buffers, the DMA and privileged
 * MRs, re-registration and deregistration.
 */
#include <endian.h>

#include "mr_test.h"

static const uint32_t RW = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE;

START_TEST(test_pd_refcount)
{
	struct sr_pd *pd = sr_pd_alloc(fx_dev);
	uint8_t *buf = fx_pages(1);
	struct sr_mr *mr;
	struct sr_mw *mw;

	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_eq(sr_pd_dev(pd), fx_dev);
	ck_assert_uint_ne(sr_pd_handle(pd), sr_pd_handle(fx_pd));
	mr = sr_mr_reg_virt(pd, buf, 100, fx_addr(buf), 0);
	mw = sr_mw_alloc(pd, SR_MW_TYPE_2);
	ck_assert_uint_eq(sr_pd_users(pd), 2);
	ck_assert_int_eq(sr_pd_dealloc(pd), -EBUSY);
	sr_pd_get(pd);  /* a QP */
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	ck_assert_int_eq(sr_mw_dealloc(mw), 0);
	ck_assert_int_eq(sr_pd_dealloc(pd), -EBUSY);
	sr_pd_put(pd);
	ck_assert_uint_eq(sr_pd_users(pd), 0);
	ck_assert_int_eq(sr_pd_dealloc(pd), 0);
	ck_assert_int_eq(sr_pd_dealloc(NULL), 0);
	errno = 0;
	ck_assert_ptr_null(sr_pd_alloc(NULL));
	ck_assert_int_eq(errno, EINVAL);
	free(buf);
}
END_TEST

/* All 128 access combinations: valid iff remote write/atomic have local
 * write, and ZERO_BASED only with iova 0. */
START_TEST(test_access_rules)
{
	uint8_t *buf = fx_pages(1);

	for (uint32_t acc = 0; acc <= SR_ACCESS_ALL; acc++) {
		bool ok = !((acc & SR_ACCESS_NEEDS_LOCAL_WRITE) && !(acc & SR_ACCESS_LOCAL_WRITE));
		uint64_t iova = (acc & SR_ACCESS_ZERO_BASED) ? 0 : fx_addr(buf);
		struct sr_mr *mr;

		errno = 0;
		mr = sr_mr_reg_virt(fx_pd, buf, SR_PAGE_SIZE, iova, acc);
		ck_assert_msg((mr != NULL) == ok, "access %#x", acc);
		if (!ok) {
			ck_assert_int_eq(errno, EINVAL);
			continue;
		}
		ck_assert_uint_eq(sr_mr_access(mr), acc);
		ck_assert_uint_eq(sr_mr_iova(mr), iova);
		ck_assert_uint_eq(sr_mr_rkey(mr), (acc & SR_ACCESS_REMOTE) ? sr_mr_lkey(mr) : 0);
		ck_assert_int_eq(sr_mr_dereg(mr), 0);
	}
	/* Unknown bits (SR_ACCESS_ALL + 1 is ON_DEMAND: test_odp.c). */
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, buf, 1, fx_addr(buf), SR_ACCESS_REG_ALL + 1));
	ck_assert_int_eq(errno, EINVAL);
	/* Zero-based with a non-zero iova. */
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, buf, 1, 4096, SR_ACCESS_ZERO_BASED));
	ck_assert_int_eq(errno, EINVAL);
	free(buf);
}
END_TEST

START_TEST(test_access_names)
{
	ck_assert_str_eq(sr_access_name(SR_ACCESS_REMOTE_WRITE), "remote write");
	ck_assert_str_eq(sr_access_name(SR_ACCESS_ZERO_BASED), "zero-based addressing");
	ck_assert_ptr_null(sr_access_name(0));
	ck_assert_ptr_null(sr_access_name(3));
	ck_assert_ptr_null(sr_access_name(SR_ACCESS_ALL + 1));
	ck_assert_uint_eq(SR_ACCESS_ALL, 0x7f);
}
END_TEST

/* Keys: index in the upper 24 bits, key byte changes every registration,
 * the remote token in network order, stale keys never match. */
START_TEST(test_keys)
{
	uint8_t *buf = fx_pages(1);
	struct sr_mr *mr = sr_mr_create(fx_pd, false);
	uint32_t prev = sr_mr_lkey(mr), idx = prev >> 8;

	ck_assert_uint_ne(idx, 0);
	ck_assert(!sr_mr_is_valid(mr));
	ck_assert_uint_eq(sr_mr_rkey(mr), 0);
	fx_lookup_err(SR_MR_E_STATE, prev, false, fx_addr(buf), 1, 0, fx_pd, 0);
	for (int i = 0; i < 600; i++) {
		ck_assert_int_eq(sr_mr_register_virt(mr, buf, SR_PAGE_SIZE, fx_addr(buf), RW), 0);
		uint32_t key = sr_mr_lkey(mr);

		ck_assert_uint_eq(key >> 8, idx);
		ck_assert_uint_ne(key, prev);
		ck_assert_uint_eq(sr_mr_rkey(mr), key);
		ck_assert_uint_eq(sr_mr_rkey_be(mr), htobe32(key));
		ck_assert(sr_mr_is_valid(mr));
		/* The previous key is stale. */
		fx_lookup_err(SR_MR_E_KEY, prev, false, fx_addr(buf), 1, 0, fx_pd, 0);
		struct sr_mr_ref r = fx_lookup_ok(key, true, fx_addr(buf), 1,
						  SR_ACCESS_REMOTE_WRITE, fx_pd, 0);

		sr_mr_ref_put(&r);
		ck_assert_int_eq(sr_mr_deregister(mr), 0);
		ck_assert(!sr_mr_is_valid(mr));
		fx_lookup_err(SR_MR_E_STATE, key, false, fx_addr(buf), 1, 0, fx_pd, 0);
		prev = key;
	}
	ck_assert_int_eq(sr_mr_destroy(mr), 0);
	/* After destroy the key matches nothing. */
	fx_lookup_err(SR_MR_E_KEY, prev, false, fx_addr(buf), 1, 0, fx_pd, 0);
	fx_lookup_err(SR_MR_E_KEY, 0, false, 0, 1, 0, fx_pd, 0);
	free(buf);
}
END_TEST

/* Slot reuse: a new object in a freed slot never gets the old key. */
START_TEST(test_slot_reuse_new_key)
{
	uint8_t *buf = fx_pages(1);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, 64, fx_addr(buf), 0);
	uint32_t old = sr_mr_lkey(mr);

	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	for (int i = 0; i < 50; i++) {
		struct sr_mr *n = sr_mr_reg_virt(fx_pd, buf, 64, fx_addr(buf), 0);

		ck_assert_uint_ne(sr_mr_lkey(n), old);
		fx_lookup_err(SR_MR_E_KEY, old, false, fx_addr(buf), 1, 0, fx_pd, 0);
		ck_assert_int_eq(sr_mr_dereg(n), 0);
	}
	free(buf);
}
END_TEST

/* ND2: one registration per object; many registrations of one buffer. */
START_TEST(test_one_registration_per_object)
{
	uint8_t *buf = fx_pages(2);
	struct sr_mr *mr = sr_mr_create(fx_pd, false);
	struct sr_mr *ro, *rw, *lo;

	ck_assert_int_eq(sr_mr_register_virt(mr, buf, 100, fx_addr(buf), 0), 0);
	ck_assert_int_eq(sr_mr_register_virt(mr, buf, 100, fx_addr(buf), 0), -EBUSY);
	ck_assert_int_eq(sr_mr_deregister(mr), 0);
	ck_assert_int_eq(sr_mr_deregister(mr), 0);  /* empty: nothing to do */
	ck_assert_int_eq(sr_mr_register_virt(mr, buf, 100, fx_addr(buf), 0), 0);
	ck_assert_int_eq(sr_mr_destroy(mr), 0);     /* implicit deregister */

	ro = sr_mr_reg_virt(fx_pd, buf, 2 * SR_PAGE_SIZE, fx_addr(buf), SR_ACCESS_REMOTE_READ);
	rw = sr_mr_reg_virt(fx_pd, buf, 2 * SR_PAGE_SIZE, fx_addr(buf), RW);
	lo = sr_mr_reg_virt(fx_pd, buf + 100, 50, fx_addr(buf) + 100, 0);
	ck_assert_uint_ne(sr_mr_lkey(ro), sr_mr_lkey(rw));
	fx_lookup_err(SR_MR_E_ACCESS, sr_mr_rkey(ro), true, fx_addr(buf), 8,
		      SR_ACCESS_REMOTE_WRITE, fx_pd, 0);
	struct sr_mr_ref r = fx_lookup_ok(sr_mr_rkey(rw), true, fx_addr(buf), 8,
					  SR_ACCESS_REMOTE_WRITE, fx_pd, 0);

	sr_mr_ref_put(&r);
	ck_assert_uint_eq(sr_mr_rkey(lo), 0);
	fx_lookup_err(SR_MR_E_ACCESS, sr_mr_lkey(lo), true, fx_addr(buf) + 100, 8,
		      SR_ACCESS_REMOTE_READ, fx_pd, 0);
	fx_lookup_err(SR_MR_E_BOUNDS, sr_mr_lkey(lo), false, fx_addr(buf) + 99, 8, 0, fx_pd, 0);
	ck_assert_int_eq(sr_mr_dereg(ro), 0);
	ck_assert_int_eq(sr_mr_dereg(rw), 0);
	ck_assert_int_eq(sr_mr_dereg(lo), 0);
	free(buf);
}
END_TEST

/* Bad buffers and bad lengths: classes of errno. */
START_TEST(test_bad_buffers)
{
	struct sr_mr *mr = sr_mr_create(fx_pd, false);
	static const struct {
		uint64_t addr, len, iova;
		uint32_t access;
		int rc;
	} cases[] = {
		{ 0, 100, 0, 0, -EFAULT },                          /* NULL */
		{ UINT64_MAX - 10, 100, 4096, 0, -EFAULT },         /* wraps */
		{ 4096, 0, 4096, 0, -EINVAL },                      /* empty */
		{ 4096, 100, UINT64_MAX - 10, 0, -EINVAL },         /* iova wraps */
		{ 4096, 100, 7, SR_ACCESS_ZERO_BASED, -EINVAL },    /* zero-based iova */
		{ 4096, 100, 0, SR_ACCESS_REMOTE_WRITE, -EINVAL },  /* IBTA rule */
		{ 4096, 100, 123, 0, 0 },                           /* any iova */
		{ 4096, 100, 0, SR_ACCESS_ZERO_BASED, 0 },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = sr_mr_register_virt(mr, (void *)(uintptr_t)cases[i].addr, cases[i].len,
					     cases[i].iova, cases[i].access);

		ck_assert_msg(rc == cases[i].rc, "case %u: %d", i, rc);
		ck_assert_int_eq(sr_mr_deregister(mr), 0);
	}
	ck_assert_int_eq(sr_mr_register(NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_register(mr, NULL, 0), -EINVAL);
	struct sr_mr_src bad = { .kind = (enum sr_mr_src_kind)7 };

	ck_assert_int_eq(sr_mr_register(mr, &bad, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_destroy(mr), 0);
	ck_assert_int_eq(sr_mr_destroy(NULL), 0);
	errno = 0;
	ck_assert_ptr_null(sr_mr_create(NULL, false));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

/* Registration does not touch memory: 1 GiB of never-mapped addresses. */
START_TEST(test_size_independent)
{
	uint64_t base = UINT64_C(0x100000000000);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, (void *)(uintptr_t)base, UINT64_C(1) << 30, base,
					  SR_ACCESS_LOCAL_WRITE);

	ck_assert_ptr_nonnull(mr);
	ck_assert_uint_eq(sr_mr_length(mr), UINT64_C(1) << 30);
	struct sr_mr_ref r = fx_lookup_ok(sr_mr_lkey(mr), false, base + (UINT64_C(1) << 30) - 8, 8,
					  SR_ACCESS_LOCAL_WRITE, fx_pd, 0);
	struct sr_seg seg;

	ck_assert_uint_eq(sr_mr_ref_map(&r, base + (UINT64_C(1) << 30) - 8, 8, &seg, 1), 1);
	ck_assert_ptr_eq(seg.addr, (uint8_t *)(uintptr_t)(base + (UINT64_C(1) << 30) - 8));
	sr_mr_ref_put(&r);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
}
END_TEST

/* The wrong object kinds for each operation. */
START_TEST(test_kind_rules)
{
	uint8_t *buf = fx_pages(1);
	struct sr_mr *fr = sr_mr_create(fx_pd, true);
	struct sr_mr *nm = sr_mr_reg_virt(fx_pd, buf, 10, fx_addr(buf), 0);
	struct sr_mr *dma = sr_mr_get_dma(fx_pd, SR_ACCESS_LOCAL_WRITE);

	ck_assert(sr_mr_is_fast_register(fr));
	ck_assert(!sr_mr_is_fast_register(nm));
	ck_assert_int_eq(sr_mr_register_virt(fr, buf, 10, fx_addr(buf), 0), -EPERM);
	ck_assert_int_eq(sr_mr_register_virt(dma, buf, 10, fx_addr(buf), 0), -EPERM);
	ck_assert_int_eq(sr_frmr_init(nm, 16, false), -EPERM);
	ck_assert_int_eq(sr_frmr_init(dma, 16, false), -EPERM);
	ck_assert_int_eq(sr_mr_deregister(fr), -EPERM);
	ck_assert_int_eq(sr_mr_deregister(dma), -EPERM);
	ck_assert_int_eq(sr_mr_dereg(fr), 0);
	ck_assert_int_eq(sr_mr_dereg(nm), 0);
	ck_assert_int_eq(sr_mr_dereg(dma), 0);
	free(buf);
}
END_TEST

/* DMA MR: whole address space, local only; never answers a remote key. */
START_TEST(test_dma_mr)
{
	uint8_t *buf = fx_pages(1);
	struct sr_pd *other = sr_pd_alloc(fx_dev);
	struct sr_mr *dma = sr_mr_get_dma(fx_pd, SR_ACCESS_LOCAL_WRITE);
	uint32_t key = sr_mr_lkey(dma);

	ck_assert_ptr_nonnull(dma);
	ck_assert_uint_eq(sr_mr_rkey(dma), 0);
	struct sr_mr_ref r = fx_lookup_ok(key, false, fx_addr(buf), 16, SR_ACCESS_LOCAL_WRITE,
					  fx_pd, 0);

	sr_mr_copy_to(&r, fx_addr(buf), "dma!", 4);
	ck_assert_int_eq(memcmp(buf, "dma!", 4), 0);
	sr_mr_ref_put(&r);
	r = fx_lookup_ok(key, false, UINT64_MAX - 100, 100, 0, fx_pd, 0);
	sr_mr_ref_put(&r);
	/* The remote side can never reach it, whatever it asks. */
	for (uint32_t need = 0; need <= SR_ACCESS_ALL; need++)
		fx_lookup_err(SR_MR_E_KEY, key, true, fx_addr(buf), 8, need, fx_pd, 0);
	fx_lookup_err(SR_MR_E_PD, key, false, fx_addr(buf), 8, 0, other, 0);
	fx_lookup_err(SR_MR_E_ACCESS, key, false, fx_addr(buf), 8, SR_ACCESS_REMOTE_READ, fx_pd, 0);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, key, true, fx_pd), -EINVAL);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, key, false, fx_pd), -EPERM);
	/* Only local rights. */
	for (uint32_t acc = 0; acc <= SR_ACCESS_ALL; acc++) {
		bool ok = (acc & ~(SR_ACCESS_LOCAL_WRITE | SR_ACCESS_READ_SINK)) == 0;
		struct sr_mr *m = sr_mr_get_dma(fx_pd, acc);

		ck_assert_msg((m != NULL) == ok, "dma access %#x", acc);
		if (m != NULL)
			ck_assert_int_eq(sr_mr_dereg(m), 0);
		else
			ck_assert_int_eq(errno, EINVAL);
	}
	errno = 0;
	ck_assert_ptr_null(sr_mr_get_dma(NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(sr_mr_dereg(dma), 0);
	ck_assert_int_eq(sr_pd_dealloc(other), 0);
	free(buf);
}
END_TEST

/* The privileged MR: any PD, local only. */
START_TEST(test_privileged_mr)
{
	uint8_t *buf = fx_pages(1);
	struct sr_pd *other = sr_pd_alloc(fx_dev);
	uint32_t key = sr_mr_dev_privileged_lkey(fx_dev);
	struct sr_mr_ref r;

	ck_assert_uint_ne(key, 0);
	r = fx_lookup_ok(key, false, fx_addr(buf), 8, SR_ACCESS_LOCAL_WRITE, fx_pd, 0);
	sr_mr_ref_put(&r);
	r = fx_lookup_ok(key, false, fx_addr(buf), 8, SR_ACCESS_READ_SINK, other, 0);
	sr_mr_ref_put(&r);
	for (uint32_t need = 0; need <= SR_ACCESS_ALL; need++)
		fx_lookup_err(SR_MR_E_KEY, key, true, fx_addr(buf), 8, need, fx_pd, 0);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, key, true, fx_pd), -EINVAL);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, key, false, fx_pd), -EPERM);
	ck_assert_int_eq(sr_pd_dealloc(other), 0);
	free(buf);
}
END_TEST

/*
 * Re-registration keeping its keys (ibv_rereg_mr): the same lkey reaches
 * the new translation; the old range is gone.
 */
START_TEST(test_rereg_keep_keys)
{
	uint8_t *a = fx_pages(2), *b = fx_pages(2);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, a, SR_PAGE_SIZE, fx_addr(a), SR_ACCESS_LOCAL_WRITE);
	uint32_t k0 = sr_mr_lkey(mr);
	struct sr_mr_src src = {
		.kind = SR_MR_SRC_VIRT, .iova = fx_addr(b), .virt = { .addr = b, .length = 2 * SR_PAGE_SIZE },
	};
	struct sr_mr_ref r;

	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_KEEP_KEYS, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_TRANS | SR_REREG_KEEP_KEYS, NULL, &src, 0), 0);
	ck_assert_uint_eq(sr_mr_lkey(mr), k0);
	r = fx_lookup_ok(k0, false, fx_addr(b) + SR_PAGE_SIZE, 8, SR_ACCESS_LOCAL_WRITE, fx_pd, 0);
	sr_mr_ref_put(&r);
	fx_lookup_err(SR_MR_E_BOUNDS, k0, false, fx_addr(a), 8, 0, fx_pd, 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(a);
	free(b);
}
END_TEST

/* Re-registration: translation, PD, access; failures change nothing. */
START_TEST(test_rereg)
{
	uint8_t *a = fx_pages(2), *b = fx_pages(2);
	struct sr_pd *pd2 = sr_pd_alloc(fx_dev);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, a, SR_PAGE_SIZE, fx_addr(a), SR_ACCESS_LOCAL_WRITE);
	uint32_t k0 = sr_mr_lkey(mr), k;
	struct sr_mr_src src = {
		.kind = SR_MR_SRC_VIRT, .iova = fx_addr(b), .virt = { .addr = b, .length = 2 * SR_PAGE_SIZE },
	};
	struct sr_mr_ref r;

	/* Translation. */
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_TRANS, NULL, &src, 0), 0);
	k = sr_mr_lkey(mr);
	ck_assert_uint_ne(k, k0);
	ck_assert_uint_eq(k >> 8, k0 >> 8);
	fx_lookup_err(SR_MR_E_KEY, k0, false, fx_addr(a), 8, 0, fx_pd, 0);
	r = fx_lookup_ok(k, false, fx_addr(b) + SR_PAGE_SIZE, 8, SR_ACCESS_LOCAL_WRITE, fx_pd, 0);
	sr_mr_copy_to(&r, fx_addr(b) + SR_PAGE_SIZE, "new", 3);
	sr_mr_ref_put(&r);
	ck_assert_int_eq(memcmp(b + SR_PAGE_SIZE, "new", 3), 0);

	/* PD. */
	ck_assert_uint_eq(sr_pd_users(pd2), 0);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_PD, pd2, NULL, 0), 0);
	ck_assert_ptr_eq(sr_mr_pd(mr), pd2);
	ck_assert_uint_eq(sr_pd_users(pd2), 1);
	fx_lookup_err(SR_MR_E_PD, sr_mr_lkey(mr), false, fx_addr(b), 8, 0, fx_pd, 0);
	r = fx_lookup_ok(sr_mr_lkey(mr), false, fx_addr(b), 8, 0, pd2, 0);
	sr_mr_ref_put(&r);

	/* Access. */
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS, NULL, NULL, RW), 0);
	ck_assert_uint_eq(sr_mr_access(mr), RW);
	ck_assert_uint_eq(sr_mr_rkey(mr), sr_mr_lkey(mr));
	r = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(b), 8, SR_ACCESS_REMOTE_WRITE, pd2, 0);
	sr_mr_ref_put(&r);

	/* Everything at once, into a page list, zero-based, back to fx_pd. */
	uint64_t pages[2] = { fx_addr(a), fx_addr(a) + SR_PAGE_SIZE };
	struct sr_mr_src pl = {
		.kind = SR_MR_SRC_PAGES,
		.pages = { .pages = pages, .npages = 2, .fbo = 0, .length = 2 * SR_PAGE_SIZE },
	};

	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_TRANS | SR_REREG_PD | SR_REREG_ACCESS, fx_pd, &pl,
				     SR_ACCESS_ZERO_BASED | SR_ACCESS_LOCAL_WRITE), 0);
	ck_assert_uint_eq(sr_pd_users(pd2), 0);
	ck_assert_uint_eq(sr_mr_iova(mr), 0);
	r = fx_lookup_ok(sr_mr_lkey(mr), false, SR_PAGE_SIZE, 3, 0, fx_pd, 0);
	char got[4] = { 0 };

	memcpy(a + SR_PAGE_SIZE, "pl!", 3);
	sr_mr_copy_from(&r, SR_PAGE_SIZE, got, 3);
	ck_assert_str_eq(got, "pl!");
	sr_mr_ref_put(&r);

	/* Failures leave the registration as it was. */
	k = sr_mr_lkey(mr);
	struct sr_mr_src badsrc = { .kind = SR_MR_SRC_VIRT, .virt = { .addr = NULL, .length = 1 } };

	ck_assert_int_eq(sr_mr_rereg(mr, 0, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_rereg(mr, 8, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_rereg(NULL, SR_REREG_ACCESS, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_TRANS, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_TRANS, NULL, &badsrc, 0), -EFAULT);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_PD, NULL, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS, NULL, NULL, SR_ACCESS_REMOTE_WRITE),
			 -EINVAL);
	/* Dropping ZERO_BASED needs a new translation. */
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS, NULL, NULL, SR_ACCESS_LOCAL_WRITE),
			 -EINVAL);
	ck_assert_uint_eq(sr_mr_lkey(mr), k);
	r = fx_lookup_ok(k, false, SR_PAGE_SIZE, 3, SR_ACCESS_LOCAL_WRITE, fx_pd, 0);
	sr_mr_ref_put(&r);

	/* A PD of another device. */
	struct sr_mr_dev *d2 = sr_mr_dev_create(NULL);
	struct sr_pd *foreign = sr_pd_alloc(d2);

	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_PD, foreign, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_pd_dealloc(foreign), 0);
	ck_assert_int_eq(sr_mr_dev_destroy(d2), 0);

	/* Not a registered normal MR. */
	struct sr_mr *empty = sr_mr_create(fx_pd, false);
	struct sr_mr *fr = sr_mr_create(fx_pd, true);
	struct sr_mr *dma = sr_mr_get_dma(fx_pd, 0);

	ck_assert_int_eq(sr_mr_rereg(empty, SR_REREG_ACCESS, NULL, NULL, 0), -EPERM);
	ck_assert_int_eq(sr_mr_rereg(fr, SR_REREG_ACCESS, NULL, NULL, 0), -EPERM);
	ck_assert_int_eq(sr_mr_rereg(dma, SR_REREG_ACCESS, NULL, NULL, 0), -EPERM);
	ck_assert_int_eq(sr_mr_dereg(empty), 0);
	ck_assert_int_eq(sr_mr_dereg(fr), 0);
	ck_assert_int_eq(sr_mr_dereg(dma), 0);

	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	ck_assert_int_eq(sr_pd_dealloc(pd2), 0);
	free(a);
	free(b);
}
END_TEST

/* Dereg, deregister and rereg wait for held references. */
START_TEST(test_wait_for_refs_uncontended)
{
	uint8_t *buf = fx_pages(1);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, 64, fx_addr(buf), 0);
	struct sr_mr_ref r = fx_lookup_ok(sr_mr_lkey(mr), false, fx_addr(buf), 8, 0, fx_pd, 0);
	struct sr_mr_dev_usage u;

	ck_assert(!sr_mr_idle(mr));
	sr_mr_dev_usage(fx_dev, &u);
	ck_assert_uint_eq(u.refs, 1);
	ck_assert_int_eq(sr_mr_dev_destroy(fx_dev), -EBUSY);
	sr_mr_ref_put(&r);
	sr_mr_ref_put(&r);  /* an empty ref is fine */
	ck_assert(sr_mr_idle(mr));
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(buf);
}
END_TEST

START_TEST(test_dev_destroy_busy)
{
	struct sr_mr_dev *d = sr_mr_dev_create(NULL);
	struct sr_pd *pd = sr_pd_alloc(d);

	ck_assert_int_eq(sr_mr_dev_destroy(d), -EBUSY);
	ck_assert_uint_eq(sr_mr_dev_in_use(d), 1);
	ck_assert_int_eq(sr_pd_dealloc(pd), 0);
	ck_assert_int_eq(sr_mr_dev_destroy(d), 0);
	ck_assert_int_eq(sr_mr_dev_destroy(NULL), 0);
}
END_TEST

static Suite *mr_suite(void)
{
	Suite *s = suite_create("mr_mr");
	TCase *tc = tcase_create("mr");

	tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
	tcase_add_test(tc, test_pd_refcount);
	tcase_add_test(tc, test_access_rules);
	tcase_add_test(tc, test_access_names);
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_slot_reuse_new_key);
	tcase_add_test(tc, test_one_registration_per_object);
	tcase_add_test(tc, test_bad_buffers);
	tcase_add_test(tc, test_size_independent);
	tcase_add_test(tc, test_kind_rules);
	tcase_add_test(tc, test_dma_mr);
	tcase_add_test(tc, test_privileged_mr);
	tcase_add_test(tc, test_rereg);
	tcase_add_test(tc, test_rereg_keep_keys);
	tcase_add_test(tc, test_wait_for_refs_uncontended);
	tcase_add_test(tc, test_dev_destroy_busy);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(mr_suite)
