/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_lookup.c — the data path's lookup: one row per way to reach each
 * error class (and the order between classes), mapping to segments,
 * copies, and the error names the transport prints.
 */
#include "mr_test.h"

#define P SR_PAGE_SIZE
#define QPN 42
#define MAX_XFER (1u << 20)

/* The world every row looks into. */
enum obj {
	O_RW,        /* virtual, all rights, iova = address, 4 pages */
	O_RO,        /* virtual, remote read only */
	O_ZB,        /* zero-based, local write + remote read, 4 pages */
	O_PAGES,     /* page list, local write, 2 pages, fbo 16 */
	O_FR_FREE,   /* FRMR initialised, never registered */
	O_FR_INVAL,  /* FRMR registered then invalidated */
	O_EMPTY,     /* MR object without a registration */
	O_MW2,       /* type-2 window on O_RW, remote read, bound to QPN */
	O_PRIV,      /* the privileged MR */
	O_NONE,      /* an index no object uses */
	O_COUNT,
};

static uint8_t *wbuf, *zbuf, *pbuf;
static struct sr_mr *w_mr[O_COUNT];
static struct sr_mw *w_mw;
static uint32_t w_key[O_COUNT];
static uint64_t w_base[O_COUNT];
static struct sr_pd *w_other;

static const uint32_t ALL_RIGHTS = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
				   SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC |
				   SR_ACCESS_MW_BIND;

static void world_setup(void)
{
	struct sr_dev_limits l = sr_dev_limits_default();
	uint64_t pages[4];

	l.max_transfer_length = MAX_XFER;
	fx_setup_limits(&l);
	w_other = sr_pd_alloc(fx_dev);
	wbuf = fx_pages(4);
	zbuf = fx_pages(4);
	pbuf = fx_pages(4);

	w_mr[O_RW] = sr_mr_reg_virt(fx_pd, wbuf, 4 * P, fx_addr(wbuf), ALL_RIGHTS);
	w_mr[O_RO] = sr_mr_reg_virt(fx_pd, wbuf, 4 * P, fx_addr(wbuf), SR_ACCESS_REMOTE_READ);
	w_mr[O_ZB] = sr_mr_reg_virt(fx_pd, zbuf, 4 * P, 0, SR_ACCESS_ZERO_BASED |
				    SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ);
	pages[0] = fx_addr(pbuf) + 2 * P;
	pages[1] = fx_addr(pbuf);
	struct sr_page_list pl = { .pages = pages, .npages = 2, .fbo = 16, .length = 2 * P - 32 };

	w_mr[O_PAGES] = sr_mr_create(fx_pd, false);
	ck_assert_int_eq(sr_mr_register_pages(w_mr[O_PAGES], &pl, 0x40000010, SR_ACCESS_LOCAL_WRITE), 0);
	w_mr[O_FR_FREE] = sr_mr_create(fx_pd, true);
	ck_assert_int_eq(sr_frmr_init(w_mr[O_FR_FREE], 4, true), 0);
	w_mr[O_FR_INVAL] = sr_mr_create(fx_pd, true);
	ck_assert_int_eq(sr_frmr_init(w_mr[O_FR_INVAL], 4, true), 0);
	uint32_t k = sr_mr_lkey(w_mr[O_FR_INVAL]);
	struct sr_frmr_req req = { .pd = fx_pd, .pages = pages, .npages = 1, .length = 100,
				   .iova = 0x1000, .access = SR_ACCESS_REMOTE_READ,
				   .key = (k & ~0xffu) | ((k + 1) & 0xffu) };

	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, w_mr[O_FR_INVAL], &req), 0);
	ck_assert_int_eq(sr_mr_invalidate(fx_dev, req.key, true, fx_pd), 0);
	w_mr[O_EMPTY] = sr_mr_create(fx_pd, false);

	w_mw = sr_mw_alloc(fx_pd, SR_MW_TYPE_2);
	uint32_t wk = sr_mw_rkey(w_mw);
	struct sr_mw_bind b = { .mr = w_mr[O_RW], .pd = fx_pd, .qpn = QPN,
				.key = (wk & ~0xffu) | ((wk + 1) & 0xffu),
				.addr = fx_addr(wbuf) + P, .length = P,
				.access = SR_ACCESS_REMOTE_READ };

	ck_assert_int_eq(sr_mw_bind(w_mw, &b), 0);

	for (unsigned o = 0; o < O_COUNT; o++) {
		if (w_mr[o] != NULL) {
			w_key[o] = sr_mr_lkey(w_mr[o]);
			w_base[o] = sr_mr_iova(w_mr[o]);
		}
	}
	w_key[O_MW2] = sr_mw_rkey(w_mw);
	w_base[O_MW2] = fx_addr(wbuf) + P;
	w_key[O_PRIV] = sr_mr_dev_privileged_lkey(fx_dev);
	w_base[O_PRIV] = fx_addr(wbuf);
	w_key[O_NONE] = (l.max_mr + l.max_mw + 1) << 8 | 1;
}

static void world_teardown(void)
{
	ck_assert_int_eq(sr_mw_dealloc(w_mw), 0);
	for (unsigned o = 0; o < O_COUNT; o++) {
		if (w_mr[o] != NULL)
			ck_assert_int_eq(sr_mr_dereg(w_mr[o]), 0);
		w_mr[o] = NULL;
	}
	ck_assert_int_eq(sr_pd_dealloc(w_other), 0);
	free(wbuf);
	free(zbuf);
	free(pbuf);
	fx_teardown();
}

enum key_mut { K_SAME, K_STALE, K_ZERO_INDEX, K_HUGE_INDEX };
enum pd_sel { PD_MINE, PD_OTHER, PD_NULL };

struct lk_case {
	const char *name;
	enum obj obj;
	enum key_mut key;
	bool remote;
	int64_t va_off;      /* from the object's base */
	uint64_t len;
	uint32_t need;
	enum pd_sel pd;
	uint32_t qpn;
	enum sr_mr_err want;
};

#define RR SR_ACCESS_REMOTE_READ
#define RW SR_ACCESS_REMOTE_WRITE
#define RA SR_ACCESS_REMOTE_ATOMIC
#define LW SR_ACCESS_LOCAL_WRITE

static const struct lk_case lk_cases[] = {
	/* success, each translation */
	{ "virtual, local", O_RW, K_SAME, false, 0, 4 * P, LW, PD_MINE, 0, SR_MR_OK },
	{ "virtual, remote all", O_RW, K_SAME, true, 8, 8, RR | RW | RA, PD_MINE, 0, SR_MR_OK },
	{ "zero-based", O_ZB, K_SAME, true, 0, 4 * P, RR, PD_MINE, 0, SR_MR_OK },
	{ "page list", O_PAGES, K_SAME, false, 0, 2 * P - 32, LW, PD_MINE, 0, SR_MR_OK },
	{ "window", O_MW2, K_SAME, true, 0, P, RR, PD_MINE, QPN, SR_MR_OK },
	{ "privileged, other PD", O_PRIV, K_SAME, false, 0, 64, LW, PD_OTHER, 0, SR_MR_OK },
	{ "zero length at the end", O_RW, K_SAME, false, 4 * P, 0, 0, PD_MINE, 0, SR_MR_OK },
	/* E_KEY */
	{ "index past the table", O_RW, K_HUGE_INDEX, false, 0, 1, 0, PD_MINE, 0, SR_MR_E_KEY },
	{ "index 0", O_RW, K_ZERO_INDEX, true, 0, 1, 0, PD_MINE, 0, SR_MR_E_KEY },
	{ "stale key byte", O_RW, K_STALE, false, 0, 1, 0, PD_MINE, 0, SR_MR_E_KEY },
	{ "stale window key", O_MW2, K_STALE, true, 0, 1, RR, PD_MINE, QPN, SR_MR_E_KEY },
	{ "unused index", O_NONE, K_SAME, false, 0, 1, 0, PD_MINE, 0, SR_MR_E_KEY },
	{ "window key as lkey", O_MW2, K_SAME, false, 0, 1, 0, PD_MINE, QPN, SR_MR_E_KEY },
	{ "privileged key as rkey", O_PRIV, K_SAME, true, 0, 1, 0, PD_MINE, 0, SR_MR_E_KEY },
	/* E_STATE */
	{ "FRMR never registered", O_FR_FREE, K_SAME, true, 0, 1, 0, PD_MINE, 0, SR_MR_E_STATE },
	{ "FRMR invalidated", O_FR_INVAL, K_SAME, true, 0, 1, RR, PD_MINE, 0, SR_MR_E_STATE },
	{ "MR not registered", O_EMPTY, K_SAME, false, 0, 1, 0, PD_MINE, 0, SR_MR_E_STATE },
	/* E_PD */
	{ "other PD", O_RW, K_SAME, false, 0, 1, 0, PD_OTHER, 0, SR_MR_E_PD },
	{ "no PD", O_RW, K_SAME, true, 0, 1, RR, PD_NULL, 0, SR_MR_E_PD },
	{ "window, other QP", O_MW2, K_SAME, true, 0, 1, RR, PD_MINE, QPN + 1, SR_MR_E_PD },
	{ "window, other PD", O_MW2, K_SAME, true, 0, 1, RR, PD_OTHER, QPN, SR_MR_E_PD },
	/* E_ACCESS */
	{ "remote write on read-only", O_RO, K_SAME, true, 0, 1, RW, PD_MINE, 0, SR_MR_E_ACCESS },
	{ "local write on read-only", O_RO, K_SAME, false, 0, 1, LW, PD_MINE, 0, SR_MR_E_ACCESS },
	{ "read sink not granted", O_RW, K_SAME, false, 0, 1, SR_ACCESS_READ_SINK, PD_MINE, 0,
	  SR_MR_E_ACCESS },
	{ "window rights, not the MR's", O_MW2, K_SAME, true, 0, 8, RW, PD_MINE, QPN,
	  SR_MR_E_ACCESS },
	/* E_LENGTH */
	{ "over MaxTransferLength", O_PRIV, K_SAME, false, 0, MAX_XFER + 1, 0, PD_MINE, 0,
	  SR_MR_E_LENGTH },
	{ "atomic of 4 bytes", O_RW, K_SAME, true, 8, 4, RA, PD_MINE, 0, SR_MR_E_LENGTH },
	/* E_ALIGN */
	{ "atomic misaligned", O_RW, K_SAME, true, 12, 8, RA, PD_MINE, 0, SR_MR_E_ALIGN },
	/* E_BOUNDS */
	{ "before the start", O_RW, K_SAME, false, -1, 1, 0, PD_MINE, 0, SR_MR_E_BOUNDS },
	{ "past the end", O_RW, K_SAME, false, 4 * P, 1, 0, PD_MINE, 0, SR_MR_E_BOUNDS },
	{ "runs over the end", O_RW, K_SAME, false, 4 * P - 4, 8, 0, PD_MINE, 0, SR_MR_E_BOUNDS },
	{ "zero-based, past the end", O_ZB, K_SAME, true, 4 * P, 1, RR, PD_MINE, 0,
	  SR_MR_E_BOUNDS },
	{ "page list past the end", O_PAGES, K_SAME, false, 2 * P - 32, 1, 0, PD_MINE, 0,
	  SR_MR_E_BOUNDS },
	{ "window, MR bytes outside the window", O_MW2, K_SAME, true, P, 1, RR, PD_MINE, QPN,
	  SR_MR_E_BOUNDS },
	{ "wraps past 2^64", O_ZB, K_SAME, true, -11, 100, RR, PD_MINE, 0, SR_MR_E_BOUNDS },
	/* order between classes */
	{ "state before PD", O_FR_INVAL, K_SAME, true, 0, 1, RR, PD_OTHER, 0, SR_MR_E_STATE },
	{ "PD before access", O_RO, K_SAME, true, 0, 1, RW, PD_OTHER, 0, SR_MR_E_PD },
	{ "access before length", O_RO, K_SAME, true, 0, MAX_XFER + 1, RA, PD_MINE, 0,
	  SR_MR_E_ACCESS },
	{ "length before alignment", O_RW, K_SAME, true, 3, 4, RA, PD_MINE, 0, SR_MR_E_LENGTH },
	{ "alignment before bounds", O_RW, K_SAME, true, -3, 8, RA, PD_MINE, 0, SR_MR_E_ALIGN },
	{ "length before bounds", O_RW, K_SAME, false, -1, MAX_XFER + 1, 0, PD_MINE, 0,
	  SR_MR_E_LENGTH },
};
#define N_LK (sizeof(lk_cases) / sizeof(lk_cases[0]))

START_TEST(test_lookup_classes)
{
	const struct lk_case *c = &lk_cases[_i];
	uint32_t key = w_key[c->obj];
	const struct sr_pd *pds[] = { fx_pd, w_other, NULL };
	struct sr_mr_ref ref = { .slot = (void *)1 };

	switch (c->key) {
	case K_STALE:
		key ^= 0x80;
		break;
	case K_ZERO_INDEX:
		key &= 0xff;
		break;
	case K_HUGE_INDEX:
		key |= 0xffffff00u;
		break;
	default:
		break;
	}
	uint64_t va = w_base[c->obj] + (uint64_t)c->va_off;
	enum sr_mr_err e = sr_mr_lookup(fx_dev, key, c->remote, va, c->len, c->need,
					pds[c->pd], c->qpn, &ref);

	ck_assert_msg(e == c->want, "%s: %s, expected %s", c->name, sr_mr_err_name(e),
		      sr_mr_err_name(c->want));
	if (e != SR_MR_OK) {
		ck_assert_ptr_null(ref.slot);
		return;
	}
	ck_assert_ptr_nonnull(ref.slot);
	struct sr_mr_dev_usage u;

	sr_mr_dev_usage(fx_dev, &u);
	ck_assert_uint_eq(u.refs, 1);
	if (c->len > 0 && c->len <= 4 * P) {
		/* The mapped pieces cover exactly len bytes. */
		struct sr_seg segs[4];
		unsigned n = sr_mr_ref_map(&ref, va, c->len, segs, 4);
		uint64_t sum = 0;

		ck_assert_uint_ge(n, 1);
		ck_assert_uint_le(n, 4);
		for (unsigned i = 0; i < n; i++)
			sum += segs[i].len;
		ck_assert_uint_eq(sum, c->len);
	}
	sr_mr_ref_put(&ref);
	ck_assert_ptr_null(ref.slot);
}
END_TEST

/* Every class is reachable, names are distinct and stable. */
START_TEST(test_err_names)
{
	bool seen[SR_MR_ERR_COUNT] = { false };

	for (unsigned i = 0; i < N_LK; i++)
		seen[lk_cases[i].want] = true;
	/* a copy's class (on-demand regions), not a lookup's: test_odp.c */
	ck_assert(!seen[SR_MR_E_FAULT]);
	seen[SR_MR_E_FAULT] = true;
	for (unsigned e = 0; e < SR_MR_ERR_COUNT; e++) {
		ck_assert_msg(seen[e], "%s never tested", sr_mr_err_name(e));
		ck_assert_int_eq(strncmp(sr_mr_err_name(e), "SR_MR_", 6), 0);
		ck_assert_uint_gt(strlen(sr_mr_err_desc(e)), 5);
		for (unsigned f = 0; f < e; f++)
			ck_assert_str_ne(sr_mr_err_name(e), sr_mr_err_name(f));
	}
	ck_assert_str_eq(sr_mr_err_name(SR_MR_E_KEY), "SR_MR_E_KEY");
	ck_assert_str_eq(sr_mr_err_name(SR_MR_E_STATE), "SR_MR_E_STATE");
	ck_assert_str_eq(sr_mr_err_name(SR_MR_E_PD), "SR_MR_E_PD");
	ck_assert_str_eq(sr_mr_err_name(SR_MR_E_ACCESS), "SR_MR_E_ACCESS");
	ck_assert_str_eq(sr_mr_err_name(SR_MR_E_BOUNDS), "SR_MR_E_BOUNDS");
	ck_assert_str_eq(sr_mr_err_name(SR_MR_E_LENGTH), "SR_MR_E_LENGTH");
	ck_assert_str_eq(sr_mr_err_name((enum sr_mr_err)99), "SR_MR_E_?");
	ck_assert_str_eq(sr_mr_err_desc((enum sr_mr_err)99), "unknown");
	ck_assert_str_eq(sr_slot_kind_name(SR_KIND_MR_FRMR), "MR_FRMR");
	ck_assert_str_eq(sr_slot_kind_name(99), "?");
}
END_TEST

/* Map: empty, outside, too few segments, and splitting at SR_SEG_MAX. */
START_TEST(test_map_edges)
{
	struct sr_mr_ref ref = fx_lookup_ok(w_key[O_RW], false, fx_addr(wbuf), 4 * P, 0, fx_pd, 0);
	struct sr_seg segs[4];

	ck_assert_uint_eq(sr_mr_ref_map(&ref, fx_addr(wbuf), 0, segs, 4), 0);
	ck_assert_uint_eq(sr_mr_ref_map(&ref, fx_addr(wbuf) - 1, 2, segs, 4), 0);
	ck_assert_uint_eq(sr_mr_ref_map(&ref, fx_addr(wbuf) + 4 * P, 1, segs, 4), 0);
	ck_assert_uint_eq(sr_mr_ref_map(&ref, fx_addr(wbuf), 8, segs, 0), 1);
	ck_assert_uint_eq(sr_mr_ref_map(&ref, fx_addr(wbuf) + 5, 8, segs, 4), 1);
	ck_assert_ptr_eq(segs[0].addr, wbuf + 5);
	ck_assert_uint_eq(segs[0].len, 8);
	sr_mr_ref_put(&ref);
	ck_assert_uint_eq(sr_mr_ref_map(&ref, fx_addr(wbuf), 8, segs, 4), 0);  /* put ref */
	/* The privileged MR spans everything but never wraps. */
	fx_lookup_err(SR_MR_E_BOUNDS, w_key[O_PRIV], false, UINT64_MAX - 10, 100, 0, fx_pd, 0);
	ref = fx_lookup_ok(w_key[O_PRIV], false, UINT64_MAX - 100, 100, 0, fx_pd, 0);
	sr_mr_ref_put(&ref);

	/* 8 GiB of addresses never touched: 5 GiB maps to 2 GiB pieces. */
	uint64_t base = UINT64_C(0x200000000000), five = UINT64_C(5) << 30;
	struct sr_mr *big = sr_mr_reg_virt(fx_pd, (void *)(uintptr_t)base, UINT64_C(8) << 30, base, 0);

	ck_assert_ptr_nonnull(big);
	struct sr_dev_limits l = *sr_mr_dev_limits(fx_dev);

	ck_assert_uint_eq(l.max_transfer_length, MAX_XFER);
	/* Over this device's MaxTransferLength: a length error. */
	fx_lookup_err(SR_MR_E_LENGTH, sr_mr_lkey(big), false, base, five, 0, fx_pd, 0);
	ref = fx_lookup_ok(sr_mr_lkey(big), false, base, MAX_XFER, 0, fx_pd, 0);
	/* A ref covers its whole region: map beyond the looked-up length. */
	ck_assert_uint_eq(sr_mr_ref_map(&ref, base + 1, five, segs, 4), 3);
	ck_assert_ptr_eq(segs[0].addr, (uint8_t *)(uintptr_t)(base + 1));
	ck_assert_uint_eq(segs[0].len, SR_SEG_MAX);
	ck_assert_uint_eq(segs[1].len, SR_SEG_MAX);
	ck_assert_uint_eq(segs[2].len, five - 2 * (uint64_t)SR_SEG_MAX);
	ck_assert_ptr_eq(segs[2].addr, (uint8_t *)(uintptr_t)(base + 1 + 2 * (uint64_t)SR_SEG_MAX));
	ck_assert_uint_eq(sr_mr_ref_map(&ref, base, five, segs, 1), 3);
	sr_mr_ref_put(&ref);
	ck_assert_int_eq(sr_mr_dereg(big), 0);
}
END_TEST

/* Copies: every translation, every offset class, and out of range. */
START_TEST(test_copies)
{
	uint8_t src[2 * P], dst[2 * P];
	struct sr_mr_ref ref;

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 31 + 7);

	/* Page list: pages reversed, fbo 16. */
	ref = fx_lookup_ok(w_key[O_PAGES], false, w_base[O_PAGES], 2 * P - 32, LW, fx_pd, 0);
	sr_mr_copy_to(&ref, w_base[O_PAGES], src, 2 * P - 32);
	ck_assert_int_eq(memcmp(pbuf + 2 * P + 16, src, P - 16), 0);
	ck_assert_int_eq(memcmp(pbuf, src + P - 16, P - 16), 0);
	for (uint64_t off = 0; off < 2 * P - 32; off += 333) {
		uint64_t len = 2 * P - 32 - off;

		memset(dst, 0, sizeof(dst));
		sr_mr_copy_from(&ref, w_base[O_PAGES] + off, dst, len);
		ck_assert_int_eq(memcmp(dst, src + off, len), 0);
	}
	/* Out of range: nothing copied, nothing written. */
	memset(dst, 0xee, sizeof(dst));
	sr_mr_copy_from(&ref, w_base[O_PAGES] + 1, dst, 2 * P - 32);
	sr_mr_copy_from(&ref, w_base[O_PAGES] - 1, dst, 1);
	sr_mr_copy_to(&ref, w_base[O_PAGES] + 2 * P, src, 1);
	ck_assert_uint_eq(dst[0], 0xee);
	ck_assert_uint_eq(pbuf[2 * P + 15], 0);
	sr_mr_ref_put(&ref);
	sr_mr_copy_to(&ref, w_base[O_PAGES], src, 1);  /* put ref: no-op */

	/* Zero-based and a window at an offset of its MR. */
	ref = fx_lookup_ok(w_key[O_ZB], true, 100, 200, RR, fx_pd, 0);
	sr_mr_copy_to(&ref, 100, src, 200);
	ck_assert_int_eq(memcmp(zbuf + 100, src, 200), 0);
	sr_mr_ref_put(&ref);
	ref = fx_lookup_ok(w_key[O_MW2], true, w_base[O_MW2] + 10, 20, RR, fx_pd, QPN);
	memcpy(wbuf + P + 10, "through the window!!", 20);
	memset(dst, 0, 21);
	sr_mr_copy_from(&ref, w_base[O_MW2] + 10, dst, 20);
	ck_assert_str_eq((char *)dst, "through the window!!");
	sr_mr_ref_put(&ref);
}
END_TEST

/* Many refs on one region count up and down. */
START_TEST(test_ref_counting)
{
	struct sr_mr_ref refs[100];
	struct sr_mr_dev_usage u;

	for (int i = 0; i < 100; i++)
		refs[i] = fx_lookup_ok(w_key[O_RW], true, fx_addr(wbuf), 8, RR, fx_pd, 0);
	sr_mr_dev_usage(fx_dev, &u);
	ck_assert_uint_eq(u.refs, 100);
	ck_assert(!sr_mr_idle(w_mr[O_RW]));
	for (int i = 0; i < 100; i++)
		sr_mr_ref_put(&refs[i]);
	ck_assert(sr_mr_idle(w_mr[O_RW]));
}
END_TEST

static Suite *lookup_suite(void)
{
	Suite *s = suite_create("mr_lookup");
	TCase *tc = tcase_create("lookup");

	tcase_add_checked_fixture(tc, world_setup, world_teardown);
	tcase_add_loop_test(tc, test_lookup_classes, 0, N_LK);
	tcase_add_test(tc, test_err_names);
	tcase_add_test(tc, test_map_edges);
	tcase_add_test(tc, test_copies);
	tcase_add_test(tc, test_ref_counting);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(lookup_suite)
