/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mw.c — memory windows: the IBTA bind rules as a table for both
 * types, lookups through windows (bounds, rights, PD, the type-2 QP,
 * zero-based), type-1 rebind/unbind, type-2 invalidation, and regions
 * refusing invalidation, deregistration and re-registration while
 * windows are bound.
 */
#include <endian.h>

#include "mr_test.h"

#define P SR_PAGE_SIZE
#define MR_PAGES 16
#define QPN 7

static void mw_setup(void)
{
	struct sr_dev_limits l = sr_dev_limits_default();

	l.max_window_size = 8 * P;
	fx_setup_limits(&l);
}

static const uint32_t MR_ACC = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_MW_BIND | SR_ACCESS_REMOTE_READ;

struct bind_ctx {
	uint8_t *buf;
	struct sr_mr *mr;          /* the usual target */
	struct sr_mw *mw;
	struct sr_pd *other;       /* another PD */
	struct sr_mr *alt;         /* a target a row may choose */
	struct sr_mr_dev *dev2;    /* another device */
	struct sr_pd *pd2;
};

/* A row: tweak the request (and maybe set ctx->alt); expected per type. */
struct bind_case {
	const char *name;
	int rc1, rc2;
	void (*tweak)(struct bind_ctx *c, struct sr_mw_bind *b);
};

static void bt_ok(struct bind_ctx *c, struct sr_mw_bind *b) { (void)c; (void)b; }
static void bt_acc_local(struct bind_ctx *c, struct sr_mw_bind *b)
{
	(void)c;
	b->access |= SR_ACCESS_LOCAL_WRITE;
}
static void bt_acc_bind(struct bind_ctx *c, struct sr_mw_bind *b)
{
	(void)c;
	b->access |= SR_ACCESS_MW_BIND;
}
static void bt_no_mr(struct bind_ctx *c, struct sr_mw_bind *b) { (void)c; b->mr = NULL; }
static void bt_len0(struct bind_ctx *c, struct sr_mw_bind *b) { (void)c; b->length = 0; }
static void bt_zero_based(struct bind_ctx *c, struct sr_mw_bind *b)
{
	(void)c;
	b->access |= SR_ACCESS_ZERO_BASED;
}
static void bt_other_dev(struct bind_ctx *c, struct sr_mw_bind *b)
{
	c->alt = sr_mr_reg_virt(c->pd2, c->buf, P, fx_addr(c->buf), MR_ACC);
	b->mr = c->alt;
}
static void bt_bound(struct bind_ctx *c, struct sr_mw_bind *b)
{
	struct sr_mw_bind first = *b;

	ck_assert_int_eq(sr_mw_bind(c->mw, &first), 0);
	b->key = (sr_mw_rkey(c->mw) & ~0xffu) | ((sr_mw_rkey(c->mw) + 1) & 0xffu);
}
static void bt_key_index(struct bind_ctx *c, struct sr_mw_bind *b) { (void)c; b->key += 0x100; }
static void bt_key_same(struct bind_ctx *c, struct sr_mw_bind *b) { b->key = sr_mw_rkey(c->mw); }
static void bt_qp_pd(struct bind_ctx *c, struct sr_mw_bind *b) { b->pd = c->other; }
static void bt_mr_pd(struct bind_ctx *c, struct sr_mw_bind *b)
{
	c->alt = sr_mr_reg_virt(c->other, c->buf, P, fx_addr(c->buf), MR_ACC);
	b->mr = c->alt;
}
static void bt_mr_free_frmr(struct bind_ctx *c, struct sr_mw_bind *b)
{
	c->alt = sr_mr_create(fx_pd, true);
	ck_assert_int_eq(sr_frmr_init(c->alt, 4, true), 0);
	b->mr = c->alt;
}
static void bt_mr_empty(struct bind_ctx *c, struct sr_mw_bind *b)
{
	c->alt = sr_mr_create(fx_pd, false);
	b->mr = c->alt;
}
static void bt_mr_dma(struct bind_ctx *c, struct sr_mw_bind *b)
{
	c->alt = sr_mr_get_dma(fx_pd, SR_ACCESS_LOCAL_WRITE);
	b->mr = c->alt;
}
static void bt_mr_no_bind(struct bind_ctx *c, struct sr_mw_bind *b)
{
	c->alt = sr_mr_reg_virt(fx_pd, c->buf, MR_PAGES * P, fx_addr(c->buf),
				SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ);
	b->mr = c->alt;
}
static void bt_mr_no_local_write(struct bind_ctx *c, struct sr_mw_bind *b)
{
	c->alt = sr_mr_reg_virt(fx_pd, c->buf, MR_PAGES * P, fx_addr(c->buf),
				SR_ACCESS_MW_BIND | SR_ACCESS_REMOTE_READ);
	b->mr = c->alt;
}
static void bt_mr_no_local_write_ro(struct bind_ctx *c, struct sr_mw_bind *b)
{
	bt_mr_no_local_write(c, b);
	b->access = SR_ACCESS_REMOTE_READ;
}
static void bt_atomic_no_local_write(struct bind_ctx *c, struct sr_mw_bind *b)
{
	bt_mr_no_local_write(c, b);
	b->access = SR_ACCESS_REMOTE_ATOMIC;
}
static void bt_max_window(struct bind_ctx *c, struct sr_mw_bind *b)
{
	(void)c;
	b->addr = fx_addr(c->buf);
	b->length = 8 * P;
}
static void bt_over_window(struct bind_ctx *c, struct sr_mw_bind *b)
{
	b->addr = fx_addr(c->buf);
	b->length = 8 * P + 1;
}
static void bt_before(struct bind_ctx *c, struct sr_mw_bind *b) { b->addr = fx_addr(c->buf) - 1; }
static void bt_past_end(struct bind_ctx *c, struct sr_mw_bind *b)
{
	b->addr = fx_addr(c->buf) + MR_PAGES * P - b->length + 1;
}
static void bt_at_end(struct bind_ctx *c, struct sr_mw_bind *b)
{
	b->addr = fx_addr(c->buf) + MR_PAGES * P - b->length;
}
static void bt_wrap(struct bind_ctx *c, struct sr_mw_bind *b)
{
	(void)c;
	b->addr = UINT64_MAX - 10;
}

static const struct bind_case bind_cases[] = {
	{ "good", 0, 0, bt_ok },
	{ "local write in window rights", -EINVAL, -EINVAL, bt_acc_local },
	{ "MW bind in window rights", -EINVAL, -EINVAL, bt_acc_bind },
	{ "no MR (type 1: unbind)", 0, -EINVAL, bt_no_mr },
	{ "length 0 (type 1: unbind)", 0, -EINVAL, bt_len0 },
	{ "zero-based", -EINVAL, 0, bt_zero_based },
	{ "MR of another device", -EINVAL, -EINVAL, bt_other_dev },
	{ "already bound", 0, -EPERM, bt_bound },
	{ "key index not the window's", 0, -EINVAL, bt_key_index },
	{ "key byte unchanged", 0, -EINVAL, bt_key_same },
	{ "QP's PD is not the window's", -EACCES, -EACCES, bt_qp_pd },
	{ "MR's PD is not the QP's", -EACCES, -EACCES, bt_mr_pd },
	{ "MR not valid (free FRMR)", -EPERM, -EPERM, bt_mr_free_frmr },
	{ "MR not registered", -EPERM, -EPERM, bt_mr_empty },
	{ "DMA MR", -EPERM, -EPERM, bt_mr_dma },
	{ "MR without MW_BIND", -EACCES, -EACCES, bt_mr_no_bind },
	{ "remote write over MR without local write", -EACCES, -EACCES, bt_mr_no_local_write },
	{ "remote atomic over MR without local write", -EACCES, -EACCES, bt_atomic_no_local_write },
	{ "remote read over MR without local write", 0, 0, bt_mr_no_local_write_ro },
	{ "MaxWindowSize", 0, 0, bt_max_window },
	{ "over MaxWindowSize", -EINVAL, -EINVAL, bt_over_window },
	{ "starts before the MR", -EINVAL, -EINVAL, bt_before },
	{ "ends past the MR", -EINVAL, -EINVAL, bt_past_end },
	{ "ends at the MR's end", 0, 0, bt_at_end },
	{ "wraps", -EINVAL, -EINVAL, bt_wrap },
};
#define N_BIND (sizeof(bind_cases) / sizeof(bind_cases[0]))

/* Loop index: row * 2 + (type - 1). */
START_TEST(test_bind_rules)
{
	const struct bind_case *bc = &bind_cases[_i / 2];
	enum sr_mw_type type = (enum sr_mw_type)(_i % 2 + 1);
	struct bind_ctx c = { .buf = fx_pages(MR_PAGES) };
	int want = type == SR_MW_TYPE_1 ? bc->rc1 : bc->rc2;

	c.other = sr_pd_alloc(fx_dev);
	c.dev2 = sr_mr_dev_create(NULL);
	c.pd2 = sr_pd_alloc(c.dev2);
	c.mr = sr_mr_reg_virt(fx_pd, c.buf, MR_PAGES * P, fx_addr(c.buf), MR_ACC);
	c.mw = sr_mw_alloc(fx_pd, type);
	ck_assert_ptr_nonnull(c.mw);
	ck_assert_uint_eq(sr_mw_type(c.mw), type);
	ck_assert_ptr_eq(sr_mw_pd(c.mw), fx_pd);

	uint32_t k0 = sr_mw_rkey(c.mw);
	struct sr_mw_bind b = {
		.mr = c.mr, .pd = fx_pd, .qpn = QPN,
		.key = (k0 & ~0xffu) | ((k0 + 1) & 0xffu),
		.addr = fx_addr(c.buf) + 100, .length = 1000,
		.access = SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE,
	};

	bc->tweak(&c, &b);
	uint32_t before = sr_mw_rkey(c.mw);
	bool was_bound = sr_mw_is_bound(c.mw);
	int rc = sr_mw_bind(c.mw, &b);

	ck_assert_msg(rc == want, "type %d, %s: %d, expected %d", type, bc->name, rc, want);
	if (rc == 0) {
		bool unbind = b.mr == NULL || b.length == 0;

		ck_assert_uint_ne(sr_mw_rkey(c.mw), before);
		ck_assert_uint_eq(sr_mw_rkey(c.mw) >> 8, before >> 8);
		if (type == SR_MW_TYPE_2)
			ck_assert_uint_eq(sr_mw_rkey(c.mw), b.key);
		ck_assert_uint_eq(sr_mw_is_bound(c.mw), !unbind);
		ck_assert_uint_eq(sr_mw_rkey_be(c.mw), htobe32(sr_mw_rkey(c.mw)));
		if (!unbind) {
			uint64_t va = (b.access & SR_ACCESS_ZERO_BASED) ? 0 : b.addr;
			struct sr_mr_ref r = fx_lookup_ok(sr_mw_rkey(c.mw), true, va, b.length,
							  SR_ACCESS_REMOTE_READ, fx_pd, QPN);

			sr_mr_ref_put(&r);
			ck_assert_uint_eq(sr_mr_windows(b.mr), 1);
		}
	} else {
		ck_assert_uint_eq(sr_mw_rkey(c.mw), before);
		ck_assert_uint_eq(sr_mw_is_bound(c.mw), was_bound);
	}
	ck_assert_int_eq(sr_mw_dealloc(c.mw), 0);
	ck_assert_uint_eq(sr_mr_windows(c.mr), 0);
	if (c.alt != NULL)
		ck_assert_int_eq(sr_mr_dereg(c.alt), 0);
	ck_assert_int_eq(sr_mr_dereg(c.mr), 0);
	ck_assert_int_eq(sr_pd_dealloc(c.other), 0);
	ck_assert_int_eq(sr_pd_dealloc(c.pd2), 0);
	ck_assert_int_eq(sr_mr_dev_destroy(c.dev2), 0);
	free(c.buf);
}
END_TEST

START_TEST(test_alloc_args)
{
	errno = 0;
	ck_assert_ptr_null(sr_mw_alloc(NULL, SR_MW_TYPE_1));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(sr_mw_alloc(fx_pd, (enum sr_mw_type)3));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(sr_mw_dealloc(NULL), 0);
	struct sr_mw *mw = sr_mw_alloc(fx_pd, SR_MW_TYPE_2);

	ck_assert_int_eq(sr_mw_bind(mw, NULL), -EINVAL);
	ck_assert_int_eq(sr_mw_bind(NULL, NULL), -EINVAL);
	ck_assert(!sr_mw_is_bound(mw));
	/* A fresh window answers nothing. */
	fx_lookup_err(SR_MR_E_STATE, sr_mw_rkey(mw), true, 0, 1, 0, fx_pd, QPN);
	fx_lookup_err(SR_MR_E_KEY, sr_mw_rkey(mw), false, 0, 1, 0, fx_pd, QPN);
	ck_assert_int_eq(sr_mw_dealloc(mw), 0);
}
END_TEST

/* Lookups through windows: window bounds and rights, not the MR's. */
START_TEST(test_lookup_through_windows)
{
	uint8_t *buf = fx_pages(MR_PAGES);
	struct sr_pd *other = sr_pd_alloc(fx_dev);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, MR_PAGES * P, 0x5000000,
					  MR_ACC | SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC);
	struct sr_mw *w1 = sr_mw_alloc(fx_pd, SR_MW_TYPE_1);
	struct sr_mw *w2 = sr_mw_alloc(fx_pd, SR_MW_TYPE_2);
	struct sr_mw_bind b1 = { .mr = mr, .pd = fx_pd, .addr = 0x5000000 + 2 * P, .length = P,
				 .access = SR_ACCESS_REMOTE_READ };
	struct sr_mw_bind b2 = { .mr = mr, .pd = fx_pd, .qpn = QPN,
				 .key = (sr_mw_rkey(w2) & ~0xffu) | ((sr_mw_rkey(w2) + 9) & 0xffu),
				 .addr = 0x5000000 + 5 * P + 8, .length = 64,
				 .access = SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC |
					   SR_ACCESS_ZERO_BASED };
	struct sr_mr_ref r;

	ck_assert_int_eq(sr_mw_bind(w1, &b1), 0);
	ck_assert_int_eq(sr_mw_bind(w2, &b2), 0);
	ck_assert_uint_eq(sr_mr_windows(mr), 2);
	uint32_t k1 = sr_mw_rkey(w1), k2 = sr_mw_rkey(w2);

	/* Type 1: any QP of the PD; window bounds; window rights. */
	r = fx_lookup_ok(k1, true, b1.addr, P, SR_ACCESS_REMOTE_READ, fx_pd, 1234);
	memcpy(buf + 2 * P, "window-1", 8);
	char got[9] = { 0 };

	sr_mr_copy_from(&r, b1.addr, got, 8);
	ck_assert_str_eq(got, "window-1");
	sr_mr_ref_put(&r);
	fx_lookup_err(SR_MR_E_BOUNDS, k1, true, b1.addr - 1, 1, SR_ACCESS_REMOTE_READ, fx_pd, 0);
	fx_lookup_err(SR_MR_E_BOUNDS, k1, true, b1.addr + 1, P, SR_ACCESS_REMOTE_READ, fx_pd, 0);
	fx_lookup_err(SR_MR_E_ACCESS, k1, true, b1.addr, 8, SR_ACCESS_REMOTE_WRITE, fx_pd, 0);
	fx_lookup_err(SR_MR_E_PD, k1, true, b1.addr, 8, SR_ACCESS_REMOTE_READ, other, 0);
	fx_lookup_err(SR_MR_E_KEY, k1, false, b1.addr, 8, 0, fx_pd, 0);

	/* Type 2: zero-based, its QP only, atomics aligned. */
	r = fx_lookup_ok(k2, true, 0, 64, SR_ACCESS_REMOTE_WRITE, fx_pd, QPN);
	sr_mr_copy_to(&r, 16, "window-2", 8);
	ck_assert_int_eq(memcmp(buf + 5 * P + 8 + 16, "window-2", 8), 0);
	struct sr_seg seg;

	ck_assert_uint_eq(sr_mr_ref_map(&r, 0, 64, &seg, 1), 1);
	ck_assert_ptr_eq(seg.addr, buf + 5 * P + 8);
	sr_mr_ref_put(&r);
	r = fx_lookup_ok(k2, true, 8, 8, SR_ACCESS_REMOTE_ATOMIC, fx_pd, QPN);
	sr_mr_ref_put(&r);
	fx_lookup_err(SR_MR_E_ALIGN, k2, true, 4, 8, SR_ACCESS_REMOTE_ATOMIC, fx_pd, QPN);
	fx_lookup_err(SR_MR_E_LENGTH, k2, true, 8, 16, SR_ACCESS_REMOTE_ATOMIC, fx_pd, QPN);
	fx_lookup_err(SR_MR_E_PD, k2, true, 0, 8, SR_ACCESS_REMOTE_WRITE, fx_pd, QPN + 1);
	fx_lookup_err(SR_MR_E_PD, k2, true, 0, 8, SR_ACCESS_REMOTE_WRITE, other, QPN);
	fx_lookup_err(SR_MR_E_ACCESS, k2, true, 0, 8, SR_ACCESS_REMOTE_READ, fx_pd, QPN);
	fx_lookup_err(SR_MR_E_BOUNDS, k2, true, 60, 8, SR_ACCESS_REMOTE_WRITE, fx_pd, QPN);
	fx_lookup_err(SR_MR_E_BOUNDS, k2, true, b2.addr, 8, SR_ACCESS_REMOTE_WRITE, fx_pd, QPN);

	/* The MR refuses everything that would pull memory from under them. */
	struct sr_mr_src src = { .kind = SR_MR_SRC_VIRT, .iova = 0x5000000,
				 .virt = { .addr = buf, .length = P } };

	ck_assert_int_eq(sr_mr_dereg(mr), -EBUSY);
	ck_assert_int_eq(sr_mr_deregister(mr), -EBUSY);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_TRANS, NULL, &src, 0), -EBUSY);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS, NULL, NULL, MR_ACC), -EBUSY);

	/* Type-2 invalidation: wrong QP, wrong PD, then remote with its QP. */
	ck_assert_int_eq(sr_mr_invalidate_qp(fx_dev, k2, true, fx_pd, QPN + 1), -EACCES);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k2, true, other), -EACCES);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k2 ^ 1, true, fx_pd), -EINVAL);
	ck_assert_int_eq(sr_mr_invalidate_qp(fx_dev, k2, true, fx_pd, QPN), 0);
	ck_assert(!sr_mw_is_bound(w2));
	ck_assert_uint_eq(sr_mr_windows(mr), 1);
	fx_lookup_err(SR_MR_E_STATE, k2, true, 0, 8, SR_ACCESS_REMOTE_WRITE, fx_pd, QPN);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k2, false, fx_pd), 0);  /* already free */
	/* Rebinding needs a new key byte. */
	ck_assert_int_eq(sr_mw_bind(w2, &b2), -EINVAL);
	b2.key = (k2 & ~0xffu) | ((k2 + 1) & 0xffu);
	ck_assert_int_eq(sr_mw_bind(w2, &b2), 0);
	fx_lookup_err(SR_MR_E_KEY, k2, true, 0, 8, SR_ACCESS_REMOTE_WRITE, fx_pd, QPN);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, b2.key, false, fx_pd), 0);

	/* Type 1: not invalidatable; rebind moves it and changes the key. */
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k1, false, fx_pd), -EPERM);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k1, true, fx_pd), -EPERM);
	b1.addr += P;
	ck_assert_int_eq(sr_mw_bind(w1, &b1), 0);
	ck_assert_uint_ne(sr_mw_rkey(w1), k1);
	ck_assert_uint_eq(sr_mr_windows(mr), 1);
	fx_lookup_err(SR_MR_E_KEY, k1, true, b1.addr, 8, SR_ACCESS_REMOTE_READ, fx_pd, 0);
	k1 = sr_mw_rkey(w1);
	r = fx_lookup_ok(k1, true, b1.addr, 8, SR_ACCESS_REMOTE_READ, fx_pd, 0);
	sr_mr_ref_put(&r);
	/* Unbind: the window answers nothing, the MR is free again. */
	struct sr_mw_bind un = { .pd = fx_pd };

	ck_assert_int_eq(sr_mw_bind(w1, &un), 0);
	ck_assert(!sr_mw_is_bound(w1));
	ck_assert_uint_eq(sr_mr_windows(mr), 0);
	fx_lookup_err(SR_MR_E_KEY, k1, true, b1.addr, 8, SR_ACCESS_REMOTE_READ, fx_pd, 0);
	fx_lookup_err(SR_MR_E_STATE, sr_mw_rkey(w1), true, b1.addr, 8, SR_ACCESS_REMOTE_READ,
		      fx_pd, 0);
	ck_assert_int_eq(sr_mw_bind(w1, &un), 0);  /* unbinding twice is fine */

	ck_assert_int_eq(sr_mw_dealloc(w1), 0);
	ck_assert_int_eq(sr_mw_dealloc(w2), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	ck_assert_int_eq(sr_pd_dealloc(other), 0);
	free(buf);
}
END_TEST

/* Windows over an FRMR, a page list, and a zero-based MR. */
START_TEST(test_windows_on_other_kinds)
{
	uint8_t *pool = fx_pages(8);
	uint64_t pages[3] = { fx_addr(pool) + 4 * P, fx_addr(pool), fx_addr(pool) + 6 * P };
	struct sr_mr *fr = sr_mr_create(fx_pd, true);
	struct sr_mw *mw = sr_mw_alloc(fx_pd, SR_MW_TYPE_2);
	struct sr_frmr_req req = {
		.pd = fx_pd, .pages = pages, .npages = 3, .fbo = 0, .length = 3 * P,
		.iova = 0x9000000, .access = MR_ACC,
		.key = (sr_mr_lkey(fr) & ~0xffu) | ((sr_mr_lkey(fr) + 1) & 0xffu),
	};
	struct sr_mr_ref r;

	ck_assert_int_eq(sr_frmr_init(fr, 16, true), 0);
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, fr, &req), 0);
	uint32_t wk = sr_mw_rkey(mw);
	struct sr_mw_bind b = { .mr = fr, .pd = fx_pd, .qpn = QPN,
				.key = (wk & ~0xffu) | ((wk + 1) & 0xffu),
				.addr = 0x9000000 + P - 4, .length = 8, .access = SR_ACCESS_REMOTE_WRITE };

	ck_assert_int_eq(sr_mw_bind(mw, &b), 0);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, req.key, false, fx_pd), -EBUSY);
	r = fx_lookup_ok(sr_mw_rkey(mw), true, b.addr, 8, SR_ACCESS_REMOTE_WRITE, fx_pd, QPN);
	sr_mr_copy_to(&r, b.addr, "ABCDEFGH", 8);
	ck_assert_int_eq(memcmp(pool + 4 * P + P - 4, "ABCD", 4), 0);
	ck_assert_int_eq(memcmp(pool, "EFGH", 4), 0);
	sr_mr_ref_put(&r);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, sr_mw_rkey(mw), false, fx_pd), 0);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, req.key, false, fx_pd), 0);

	/* Zero-based MR: window addresses are offsets into it. */
	struct sr_mr *zb = sr_mr_reg_virt(fx_pd, pool, 8 * P, 0, MR_ACC | SR_ACCESS_ZERO_BASED);
	struct sr_mw *w1 = sr_mw_alloc(fx_pd, SR_MW_TYPE_1);
	struct sr_mw_bind b1 = { .mr = zb, .pd = fx_pd, .addr = 3 * P, .length = P,
				 .access = SR_ACCESS_REMOTE_READ };

	ck_assert_int_eq(sr_mw_bind(w1, &b1), 0);
	memcpy(pool + 3 * P + 10, "zb", 2);
	r = fx_lookup_ok(sr_mw_rkey(w1), true, 3 * P + 10, 2, SR_ACCESS_REMOTE_READ, fx_pd, 0);
	char got[3] = { 0 };

	sr_mr_copy_from(&r, 3 * P + 10, got, 2);
	ck_assert_str_eq(got, "zb");
	sr_mr_ref_put(&r);

	ck_assert_int_eq(sr_mw_dealloc(w1), 0);   /* dealloc unbinds */
	ck_assert_int_eq(sr_mr_dereg(zb), 0);
	ck_assert_int_eq(sr_mw_dealloc(mw), 0);
	ck_assert_int_eq(sr_mr_dereg(fr), 0);
	free(pool);
}
END_TEST

static Suite *mw_suite(void)
{
	Suite *s = suite_create("mr_mw");
	TCase *tc = tcase_create("mw");

	tcase_add_checked_fixture(tc, mw_setup, fx_teardown);
	tcase_add_loop_test(tc, test_bind_rules, 0, N_BIND * 2);
	tcase_add_test(tc, test_alloc_args);
	tcase_add_test(tc, test_lookup_through_windows);
	tcase_add_test(tc, test_windows_on_other_kinds);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(mw_suite)
