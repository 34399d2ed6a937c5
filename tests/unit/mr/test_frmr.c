/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_frmr.c — the fast-register engine as a matrix: MR state x request
 * x access flags x key byte, each cell's result being the first failing
 * rule in the order mr.h documents; successful cells are then looked up,
 * checked and invalidated.  Also the init matrix, the invalidation
 * matrix, and data through scattered pages.
 */
#include "mr_test.h"

#define P SR_PAGE_SIZE
#define CAP 16            /* pages each FRMR is initialised with */
#define MAX_REG (12 * P)  /* MaxRegistrationSize of this device */

static void frmr_setup(void)
{
	struct sr_dev_limits l = sr_dev_limits_default();

	l.max_registration_size = MAX_REG;
	l.frmr_page_count = 32;
	fx_setup_limits(&l);
}

/* ---- the matrix ---- */

enum mr_state { ST_UNINIT, ST_FREE, ST_VALID, ST_INVALIDATED, ST_COUNT };
static const char *const state_names[] = { "UNINIT", "FREE", "VALID", "INVALIDATED" };
static const int state_rc[] = { -EPERM, 0, -EPERM, 0 };

enum key_case { KEY_SAME, KEY_NEXT, KEY_FAR, KEY_OTHER_INDEX, KEY_COUNT };
static const char *const key_names[] = { "same byte", "next byte", "far byte", "other index" };
static const int key_rc[] = { -EINVAL, 0, 0, -EINVAL };

static uint8_t *pool;   /* CAP + 1 real pages */

/* A request variant: how it differs from a good request, and its result. */
struct req_case {
	const char *name;
	int rc;
	void (*tweak)(struct sr_frmr_req *req, uint64_t *pages);
};

static void rq_ok(struct sr_frmr_req *r, uint64_t *pg) { (void)r; (void)pg; }
static void rq_pd(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->pd = NULL; }
static void rq_np0(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->npages = 0; }
static void rq_np_over(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->npages = CAP + 1; }
static void rq_pages_null(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->pages = NULL; }
static void rq_fbo_page(struct sr_frmr_req *r, uint64_t *pg)
{
	(void)pg;
	r->fbo = P;
	r->iova = 5 * P;
}
static void rq_len0(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->length = 0; }
static void rq_len_exact(struct sr_frmr_req *r, uint64_t *pg)
{
	(void)pg;
	r->length = (uint64_t)r->npages * P - r->fbo;
}
static void rq_len_over(struct sr_frmr_req *r, uint64_t *pg)
{
	(void)pg;
	r->length = (uint64_t)r->npages * P - r->fbo + 1;
}
static void rq_len_maxreg(struct sr_frmr_req *r, uint64_t *pg)
{
	(void)pg;
	r->npages = 14;
	r->fbo = 0;
	r->iova = 0x10000000;
	r->length = MAX_REG + 1;
}
static void rq_iova0_fbo0(struct sr_frmr_req *r, uint64_t *pg)
{
	(void)pg;
	r->fbo = 0;
	r->iova = 0;
}
static void rq_iova0_fbo(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->iova = 0; }
static void rq_iova_off(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->iova += 1; }
static void rq_iova_fbo_only(struct sr_frmr_req *r, uint64_t *pg) { (void)pg; r->iova = r->fbo; }
static void rq_iova_high(struct sr_frmr_req *r, uint64_t *pg)
{
	(void)pg;
	r->iova = (UINT64_C(1) << 63) + r->fbo;
}
static void rq_iova_wrap(struct sr_frmr_req *r, uint64_t *pg)
{
	(void)pg;
	r->iova = UINT64_MAX - P + 1 + r->fbo;
}
static void rq_page_mis(struct sr_frmr_req *r, uint64_t *pg) { (void)r; pg[1] += 64; }
static void rq_page_null(struct sr_frmr_req *r, uint64_t *pg) { (void)r; pg[2] = 0; }
static void rq_page_wrap(struct sr_frmr_req *r, uint64_t *pg) { (void)r; pg[0] = UINT64_MAX - P + 1; }

static const struct req_case req_cases[] = {
	{ "good", 0, rq_ok },
	{ "wrong PD", -EACCES, rq_pd },
	{ "no pages", -EINVAL, rq_np0 },
	{ "more pages than initialised", -EINVAL, rq_np_over },
	{ "page array NULL", -EINVAL, rq_pages_null },
	{ "FBO a whole page", -EINVAL, rq_fbo_page },
	{ "length 0", -EINVAL, rq_len0 },
	{ "length = pages - FBO", 0, rq_len_exact },
	{ "length > pages - FBO", -EINVAL, rq_len_over },
	{ "length > MaxRegistrationSize", -EINVAL, rq_len_maxreg },
	{ "base 0 with FBO 0", 0, rq_iova0_fbo0 },
	{ "base 0 with FBO != 0", -EINVAL, rq_iova0_fbo },
	{ "base not FBO + n pages", -EINVAL, rq_iova_off },
	{ "base = FBO", 0, rq_iova_fbo_only },
	{ "base = FBO + 2^51 pages", 0, rq_iova_high },
	{ "base + length wraps", -EINVAL, rq_iova_wrap },
	{ "page misaligned", -EINVAL, rq_page_mis },
	{ "page NULL", -EFAULT, rq_page_null },
	{ "page wraps", -EFAULT, rq_page_wrap },
};
#define N_REQ (sizeof(req_cases) / sizeof(req_cases[0]))

/* The access rules of NdkFastRegister for flags on an MR inited remote or not. */
static int flags_rc(uint32_t acc, bool remote_init, bool *remote_denied)
{
	*remote_denied = false;
	if (acc & SR_ACCESS_ZERO_BASED)
		return -EINVAL;
	if ((acc & SR_ACCESS_NEEDS_LOCAL_WRITE) && !(acc & SR_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if ((acc & SR_ACCESS_REMOTE) && !remote_init) {
		*remote_denied = true;
		return -EACCES;
	}
	return 0;
}

/* The spec's precedence: state, PD, key, flags, remote, request. */
static int expected_rc(enum mr_state st, const struct req_case *rq, enum key_case kc,
		       uint32_t acc, bool remote_init)
{
	bool remote_denied;
	int frc = flags_rc(acc, remote_init, &remote_denied);

	if (state_rc[st])
		return state_rc[st];
	if (rq->tweak == rq_pd)
		return rq->rc;
	if (key_rc[kc])
		return key_rc[kc];
	if (frc)
		return frc;
	return rq->rc;
}

static struct sr_frmr_req good_req(struct sr_mr *mr, uint64_t *pages)
{
	/* Pages out of order, FBO 100, 3 pages minus a little. */
	for (uint32_t i = 0; i < CAP; i++)
		pages[i] = fx_addr(pool) + (uint64_t)((i * 5) % CAP) * P;
	return (struct sr_frmr_req){
		.pd = fx_pd,
		.pages = pages,
		.npages = 4,
		.fbo = 100,
		.length = 3 * P + 50,
		.iova = 0x7000000000 + 100,
		.access = 0,
		.key = sr_mr_lkey(mr),
	};
}

/* An FRMR in the given state. */
static struct sr_mr *make_frmr(enum mr_state st, bool remote_init)
{
	struct sr_mr *mr = sr_mr_create(fx_pd, true);
	uint64_t pages[CAP];

	ck_assert_ptr_nonnull(mr);
	if (st == ST_UNINIT)
		return mr;
	ck_assert_int_eq(sr_frmr_init(mr, CAP, remote_init), 0);
	if (st == ST_FREE)
		return mr;
	struct sr_frmr_req r = good_req(mr, pages);

	r.key = (sr_mr_lkey(mr) & ~0xffu) | ((sr_mr_lkey(mr) + 1) & 0xffu);
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
	if (st == ST_INVALIDATED)
		ck_assert_int_eq(sr_mr_invalidate(fx_dev, sr_mr_lkey(mr), false, fx_pd), 0);
	return mr;
}

static uint32_t key_for(struct sr_mr *mr, enum key_case kc)
{
	uint32_t k = sr_mr_lkey(mr);

	switch (kc) {
	case KEY_SAME:
		return k;
	case KEY_NEXT:
		return (k & ~0xffu) | ((k + 1) & 0xffu);
	case KEY_FAR:
		return (k & ~0xffu) | ((k + 0x80) & 0xffu);
	default:
		return k + 0x100;
	}
}

/* A successful fast-register: check what the data path sees, invalidate. */
static void check_registered(struct sr_mr *mr, const struct sr_frmr_req *r, uint32_t old_key,
			     bool remote_init)
{
	uint32_t key = sr_mr_lkey(mr);

	ck_assert_uint_eq(key, r->key);
	ck_assert(sr_mr_is_valid(mr));
	ck_assert_uint_eq(sr_mr_rkey(mr), remote_init ? key : 0);
	ck_assert_uint_eq(sr_mr_iova(mr), r->iova);
	ck_assert_uint_eq(sr_mr_length(mr), r->length);
	fx_lookup_err(SR_MR_E_KEY, old_key, false, r->iova, 1, 0, fx_pd, 0);

	uint32_t need_l = r->access & (SR_ACCESS_LOCAL_WRITE | SR_ACCESS_READ_SINK);
	struct sr_mr_ref ref = fx_lookup_ok(key, false, r->iova, r->length, need_l, fx_pd, 0);
	struct sr_seg seg;

	ck_assert_uint_ge(sr_mr_ref_map(&ref, r->iova, 1, &seg, 1), 1);
	ck_assert_ptr_eq(seg.addr, (uint8_t *)(uintptr_t)(r->pages[0] + r->fbo));
	sr_mr_ref_put(&ref);
	fx_lookup_err(SR_MR_E_BOUNDS, key, false, r->iova - 1, 1, 0, fx_pd, 0);
	fx_lookup_err(SR_MR_E_BOUNDS, key, false, r->iova, r->length + 1, 0, fx_pd, 0);
	for (uint32_t bit = SR_ACCESS_REMOTE_READ; bit <= SR_ACCESS_REMOTE_ATOMIC; bit <<= 1) {
		uint64_t len = bit == SR_ACCESS_REMOTE_ATOMIC ? 8 : 1;
		uint64_t va = (r->iova + 7) & ~UINT64_C(7);

		if (r->access & bit) {
			ref = fx_lookup_ok(key, true, va, len, bit, fx_pd, 0);
			sr_mr_ref_put(&ref);
		} else {
			fx_lookup_err(SR_MR_E_ACCESS, key, true, va, len, bit, fx_pd, 0);
		}
	}
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, key, false, fx_pd), 0);
	ck_assert(!sr_mr_is_valid(mr));
	fx_lookup_err(SR_MR_E_STATE, key, false, r->iova, 1, 0, fx_pd, 0);
}

/* One loop iteration per (state, remote_init): all requests x flags x keys. */
START_TEST(test_fast_register_matrix)
{
	enum mr_state st = (enum mr_state)(_i / 2);
	bool remote_init = _i % 2;
	unsigned cells = 0, oks = 0;

	pool = fx_pages(CAP + 1);
	for (unsigned q = 0; q < N_REQ; q++) {
		for (uint32_t acc = 0; acc <= SR_ACCESS_ALL; acc++) {
			for (unsigned kc = 0; kc < KEY_COUNT; kc++) {
				struct sr_mr *mr = make_frmr(st, remote_init);
				uint64_t pages[CAP];
				struct sr_frmr_req r = good_req(mr, pages);
				uint32_t old_key = sr_mr_lkey(mr);
				int want = expected_rc(st, &req_cases[q], kc, acc, remote_init);

				r.access = acc;
				r.key = key_for(mr, kc);
				req_cases[q].tweak(&r, pages);
				if (r.pd == NULL)
					r.pd = (const struct sr_pd *)pool;  /* some other PD */

				int rc = sr_frmr_fast_register(fx_dev, mr, &r);

				ck_assert_msg(rc == want,
					      "%s remote_init=%d, %s, access %#x, key %s: %d, expected %d",
					      state_names[st], remote_init, req_cases[q].name, acc,
					      key_names[kc], rc, want);
				if (rc == 0) {
					check_registered(mr, &r, old_key, remote_init);
					oks++;
				} else {
					ck_assert_uint_eq(sr_mr_lkey(mr), old_key);
					ck_assert_uint_eq(sr_mr_is_valid(mr), st == ST_VALID);
				}
				ck_assert_int_eq(sr_mr_dereg(mr), 0);
				cells++;
			}
		}
	}
	ck_assert_uint_eq(cells, N_REQ * (SR_ACCESS_ALL + 1) * KEY_COUNT);
	if (state_rc[st] == 0)
		ck_assert_uint_gt(oks, 0);
	free(pool);
}
END_TEST

/* ---- init ---- */

START_TEST(test_init_matrix)
{
	static const struct {
		uint32_t count;
		int rc;
	} counts[] = {
		{ 0, -EINVAL }, { 1, 0 }, { 16, 0 }, { 32, 0 }, { 33, -E2BIG }, { UINT32_MAX, -E2BIG },
	};
	uint8_t *buf = fx_pages(1);

	for (unsigned c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		struct sr_mr *fr = sr_mr_create(fx_pd, true);
		struct sr_mr *nm = sr_mr_reg_virt(fx_pd, buf, 8, fx_addr(buf), 0);
		struct sr_mr *dma = sr_mr_get_dma(fx_pd, 0);
		int perm = counts[c].rc ? counts[c].rc : -EPERM;

		ck_assert_int_eq(sr_frmr_init(fr, counts[c].count, c & 1), counts[c].rc);
		ck_assert_int_eq(sr_frmr_init(nm, counts[c].count, false), perm);
		ck_assert_int_eq(sr_frmr_init(dma, counts[c].count, false), perm);
		ck_assert_int_eq(sr_mr_dereg(fr), 0);
		ck_assert_int_eq(sr_mr_dereg(nm), 0);
		ck_assert_int_eq(sr_mr_dereg(dma), 0);
	}
	ck_assert_int_eq(sr_frmr_init(NULL, 1, false), -EINVAL);
	free(buf);
}
END_TEST

/* Re-init while FREE changes capacity and remote access; VALID refuses. */
START_TEST(test_reinit)
{
	uint64_t pages[CAP];
	struct sr_mr *mr;
	struct sr_frmr_req r;

	pool = fx_pages(CAP + 1);
	mr = make_frmr(ST_FREE, false);
	r = good_req(mr, pages);
	r.key = key_for(mr, KEY_NEXT);
	r.access = SR_ACCESS_REMOTE_READ;
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), -EACCES);
	ck_assert_int_eq(sr_frmr_init(mr, 8, true), 0);
	ck_assert_int_eq(sr_frmr_init(mr, 8, true), 0);  /* same size: no realloc */
	r.npages = 9;
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), -EINVAL);
	r.npages = 4;
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
	ck_assert_int_eq(sr_frmr_init(mr, 16, true), -EPERM);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, r.key, true, fx_pd), 0);
	ck_assert_int_eq(sr_frmr_init(mr, 16, false), 0);
	ck_assert_uint_eq(sr_mr_rkey(mr), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(pool);
}
END_TEST

START_TEST(test_fast_register_args)
{
	uint64_t pages[CAP];
	struct sr_mr *mr;
	struct sr_frmr_req r;
	struct sr_mr_dev *d2 = sr_mr_dev_create(NULL);

	pool = fx_pages(CAP + 1);
	mr = make_frmr(ST_FREE, true);
	r = good_req(mr, pages);
	r.key = key_for(mr, KEY_NEXT);
	ck_assert_int_eq(sr_frmr_fast_register(NULL, mr, &r), -EINVAL);
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, NULL, &r), -EINVAL);
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, NULL), -EINVAL);
	ck_assert_int_eq(sr_frmr_fast_register(d2, mr, &r), -EINVAL);
	ck_assert_int_eq(sr_mr_dev_destroy(d2), 0);
	/* A normal MR is not fast-registrable. */
	struct sr_mr *nm = sr_mr_reg_virt(fx_pd, pool, 8, fx_addr(pool), 0);

	r.key = key_for(nm, KEY_NEXT);
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, nm, &r), -EPERM);
	ck_assert_int_eq(sr_mr_dereg(nm), 0);
	/* Destroying a VALID FRMR is allowed. */
	r.key = key_for(mr, KEY_NEXT);
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(pool);
}
END_TEST

/* Every page position of every array length: a bad page anywhere is found,
 * misaligned (-EINVAL) before NULL or wrapping (-EFAULT). */
START_TEST(test_page_positions)
{
	static const uint32_t lens[] = { 1, 7, 8, 9, 15, 16, 17, 31, 32 };
	static const struct {
		uint64_t page;
		int rc;
	} bad[] = {
		{ 0, -EFAULT }, { UINT64_MAX - P + 1, -EFAULT }, { P + 8, -EINVAL }, { 1, -EINVAL },
	};
	uint64_t pages[32];
	struct sr_mr *mr;

	pool = fx_pages(CAP + 1);
	mr = sr_mr_create(fx_pd, true);
	ck_assert_int_eq(sr_frmr_init(mr, 32, true), 0);
	for (unsigned l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		uint32_t n = lens[l];
		struct sr_frmr_req r = {
			.pd = fx_pd, .pages = pages, .npages = n, .fbo = 0,
			.length = P, .iova = 0x100000,  /* only a page used, all checked */
		};

		for (uint32_t k = 0; k < n; k++)
			pages[k] = fx_addr(pool) + (uint64_t)(k % CAP) * P;
		for (uint32_t at = 0; at < n; at++) {
			for (unsigned b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
				uint64_t keep = pages[at];

				pages[at] = bad[b].page;
				r.key = key_for(mr, KEY_NEXT);
				ck_assert_msg(sr_frmr_fast_register(fx_dev, mr, &r) == bad[b].rc,
					      "n %u, bad page %u at %u", n, b, at);
				pages[at] = keep;
			}
		}
		/* A NULL page and a misaligned one: misaligned wins. */
		if (n > 1) {
			uint64_t k0 = pages[0], k1 = pages[n - 1];

			pages[0] = 0;
			pages[n - 1] += 16;
			r.key = key_for(mr, KEY_NEXT);
			ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), -EINVAL);
			pages[0] = k0;
			pages[n - 1] = k1;
		}
		r.key = key_for(mr, KEY_NEXT);
		ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
		ck_assert_int_eq(sr_mr_invalidate(fx_dev, r.key, false, fx_pd), 0);
	}
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(pool);
}
END_TEST

/* Data through a fast-registered region: scattered pages, FBO, base. */
START_TEST(test_fast_register_data)
{
	uint64_t pages[CAP];
	struct sr_mr *mr;
	struct sr_frmr_req r;
	uint8_t src[3 * P + 50], back[3 * P + 50];

	pool = fx_pages(CAP + 1);
	mr = make_frmr(ST_FREE, true);
	r = good_req(mr, pages);
	r.key = key_for(mr, KEY_NEXT);
	r.access = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_READ;
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 13);
	struct sr_mr_ref ref = fx_lookup_ok(r.key, true, r.iova, r.length, SR_ACCESS_REMOTE_WRITE,
					    fx_pd, 0);

	sr_mr_copy_to(&ref, r.iova, src, r.length);
	for (uint64_t i = 0; i < r.length; i++) {
		uint64_t at = r.fbo + i;

		ck_assert_uint_eq(((uint8_t *)(uintptr_t)pages[at / P])[at % P], src[i]);
	}
	struct sr_seg segs[8];

	ck_assert_uint_eq(sr_mr_ref_map(&ref, r.iova, r.length, segs, 8), 4);
	ck_assert_uint_eq(segs[0].len, P - 100);
	ck_assert_uint_eq(segs[3].len, r.length - (P - 100) - 2 * P);
	ck_assert_uint_eq(sr_mr_ref_map(&ref, r.iova, r.length, segs, 2), 4);  /* too short */
	memset(back, 0, sizeof(back));
	sr_mr_copy_from(&ref, r.iova + 5000, back, 3000);
	ck_assert_int_eq(memcmp(back, src + 5000, 3000), 0);
	sr_mr_ref_put(&ref);

	/* Invalidate remotely, register other pages, old key is stale. */
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, r.key, true, fx_pd), 0);
	uint32_t old = r.key;

	for (uint32_t i = 0; i < 4; i++)
		pages[i] = fx_addr(pool) + (uint64_t)(i + 10) * P;  /* contiguous */
	r.key = key_for(mr, KEY_NEXT);
	r.fbo = 0;
	r.iova = 0;
	r.length = 4 * P;
	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
	fx_lookup_err(SR_MR_E_KEY, old, true, 0, 1, 0, fx_pd, 0);
	ref = fx_lookup_ok(r.key, false, 0, 4 * P, 0, fx_pd, 0);
	ck_assert_uint_eq(sr_mr_ref_map(&ref, 0, 4 * P, segs, 8), 1);  /* merged */
	ck_assert_ptr_eq(segs[0].addr, pool + 10 * P);
	sr_mr_ref_put(&ref);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(pool);
}
END_TEST

/* Thousands of cycles: every new key works, every previous one is stale. */
START_TEST(test_key_cycles)
{
	uint64_t pages[CAP];
	struct sr_mr *mr;
	struct sr_frmr_req r;

	pool = fx_pages(CAP + 1);
	mr = make_frmr(ST_FREE, true);
	r = good_req(mr, pages);
	for (int i = 0; i < 3000; i++) {
		uint32_t old = sr_mr_lkey(mr);

		r.key = key_for(mr, (i & 1) ? KEY_NEXT : KEY_FAR);
		ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
		fx_lookup_err(SR_MR_E_KEY, old, false, r.iova, 1, 0, fx_pd, 0);
		struct sr_mr_ref ref = fx_lookup_ok(r.key, false, r.iova, 1, 0, fx_pd, 0);

		sr_mr_ref_put(&ref);
		ck_assert_int_eq(sr_mr_invalidate(fx_dev, r.key, i & 1, fx_pd), 0);
	}
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(pool);
}
END_TEST

/* ---- invalidation ---- */

enum inv_key { IK_RIGHT, IK_STALE, IK_OTHER_INDEX, IK_ZERO, IK_HUGE, IK_COUNT };

START_TEST(test_invalidate_matrix)
{
	struct sr_pd *other = sr_pd_alloc(fx_dev);

	pool = fx_pages(CAP + 1);
	/* state (FREE, VALID, VALID + window) x key x remote x remote_init x pd */
	for (unsigned st = 0; st < 3; st++)
	for (unsigned ik = 0; ik < IK_COUNT; ik++)
	for (unsigned remote = 0; remote < 2; remote++)
	for (unsigned rinit = 0; rinit < 2; rinit++)
	for (unsigned pdc = 0; pdc < 3; pdc++) {
		struct sr_mr *mr = make_frmr(ST_FREE, rinit);
		uint64_t pages[CAP];
		struct sr_frmr_req r = good_req(mr, pages);
		struct sr_mw *mw = NULL;

		r.key = key_for(mr, KEY_NEXT);
		r.access = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_MW_BIND;
		if (st >= 1)
			ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr, &r), 0);
		if (st == 2) {
			struct sr_mw_bind b = { .mr = mr, .pd = fx_pd, .addr = r.iova, .length = 10,
						.access = SR_ACCESS_REMOTE_READ };

			mw = sr_mw_alloc(fx_pd, SR_MW_TYPE_1);
			ck_assert_int_eq(sr_mw_bind(mw, &b), 0);
		}
		uint32_t key = sr_mr_lkey(mr);
		/* An index no object uses: the last slot of the table. */
		uint32_t unused = (sr_mr_dev_limits(fx_dev)->max_mr + sr_mr_dev_limits(fx_dev)->max_mw + 1) << 8;
		uint32_t keys[IK_COUNT] = {
			key, key ^ 0x01, unused | (key & 0xff), 0, UINT32_MAX,
		};
		const struct sr_pd *pds[3] = { fx_pd, other, NULL };
		int want;

		if (pdc == 2 || ik == IK_ZERO || ik == IK_HUGE)
			want = -EINVAL;
		else if (ik != IK_RIGHT)
			want = -EINVAL;
		else if (remote && !rinit)
			want = -EINVAL;
		else if (pdc == 1)
			want = -EACCES;
		else if (st == 2)
			want = -EBUSY;
		else
			want = 0;
		int rc = sr_mr_invalidate(fx_dev, keys[ik], remote, pds[pdc]);

		ck_assert_msg(rc == want, "state %u key %u remote %u rinit %u pd %u: %d, want %d",
			      st, ik, remote, rinit, pdc, rc, want);
		ck_assert_uint_eq(sr_mr_is_valid(mr), st >= 1 && rc != 0);
		if (mw != NULL) {
			ck_assert_int_eq(sr_mr_dereg(mr), -EBUSY);
			ck_assert_int_eq(sr_mw_dealloc(mw), 0);
			ck_assert_int_eq(sr_mr_invalidate(fx_dev, key, false, fx_pd), 0);
		}
		ck_assert_int_eq(sr_mr_dereg(mr), 0);
	}
	ck_assert_int_eq(sr_mr_invalidate(NULL, 0x100, false, fx_pd), -EINVAL);
	ck_assert_int_eq(sr_pd_dealloc(other), 0);
	free(pool);
}
END_TEST

/* Normal MRs are not invalidatable; a free slot's key is no key. */
START_TEST(test_invalidate_kinds)
{
	uint8_t *buf = fx_pages(1);
	struct sr_mr *nm = sr_mr_reg_virt(fx_pd, buf, 8, fx_addr(buf), SR_ACCESS_REMOTE_READ);
	struct sr_mr *empty = sr_mr_create(fx_pd, false);
	uint32_t k = sr_mr_lkey(nm);

	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k, false, fx_pd), -EPERM);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k, true, fx_pd), -EPERM);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, sr_mr_lkey(empty), false, fx_pd), -EPERM);
	ck_assert(sr_mr_is_valid(nm));
	ck_assert_int_eq(sr_mr_dereg(nm), 0);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, k, false, fx_pd), -EINVAL);
	ck_assert_int_eq(sr_mr_dereg(empty), 0);
	free(buf);
}
END_TEST

static Suite *frmr_suite(void)
{
	Suite *s = suite_create("mr_frmr");
	TCase *tm = tcase_create("matrix");
	TCase *tc = tcase_create("engine");

	tcase_add_checked_fixture(tm, frmr_setup, fx_teardown);
	tcase_set_timeout(tm, 60);
	tcase_add_loop_test(tm, test_fast_register_matrix, 0, ST_COUNT * 2);
	suite_add_tcase(s, tm);

	tcase_add_checked_fixture(tc, frmr_setup, fx_teardown);
	tcase_add_test(tc, test_init_matrix);
	tcase_add_test(tc, test_reinit);
	tcase_add_test(tc, test_fast_register_args);
	tcase_add_test(tc, test_page_positions);
	tcase_add_test(tc, test_fast_register_data);
	tcase_add_test(tc, test_key_cycles);
	tcase_add_test(tc, test_invalidate_matrix);
	tcase_add_test(tc, test_invalidate_kinds);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(frmr_suite)
