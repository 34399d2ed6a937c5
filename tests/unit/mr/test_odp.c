/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_odp.c — on-demand paging in the MR engine: explicit and implicit
 * regions, their lookups and copies, memory unmapped (or made read-only)
 * after registration giving SR_MR_E_FAULT with the process alive, the
 * atomic word, the registration rules, re-registration, and prefetch
 * (sr_mr_advise) with each documented error.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "mr_test.h"

#define P SR_PAGE_SIZE
#define LW SR_ACCESS_LOCAL_WRITE
#define RR SR_ACCESS_REMOTE_READ
#define RW SR_ACCESS_REMOTE_WRITE
#define RA SR_ACCESS_REMOTE_ATOMIC
#define OD SR_ACCESS_ON_DEMAND
#define ALL_ODP (LW | RR | RW | RA | SR_ACCESS_MW_BIND | OD)

/* n fresh anonymous pages, never touched. */
static uint8_t *map_pages(size_t n)
{
	void *p = mmap(NULL, n * P, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(p, MAP_FAILED);
	return p;
}

static void setup(void)
{
	ck_assert_msg(sr_mr_odp_supported(), "process_vm_readv or MADV_POPULATE_WRITE missing");
	fx_setup();
}

/* Explicit ODP: registered, looked up like any region, copies both ways,
 * never mapped to raw segments. */
START_TEST(test_explicit)
{
	uint8_t *buf = map_pages(4), got[16];
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, 4 * P, fx_addr(buf), ALL_ODP);
	struct sr_mr_ref ref;
	struct sr_seg seg;

	ck_assert_ptr_nonnull(mr);
	ck_assert(sr_mr_is_odp(mr));
	ck_assert(!sr_mr_is_implicit(mr));
	ck_assert_uint_eq(sr_mr_access(mr), ALL_ODP);
	ck_assert_uint_eq(sr_mr_rkey(mr), sr_mr_lkey(mr));
	ck_assert_uint_eq(sr_mr_length(mr), 4 * P);

	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(buf) + P, 2 * P, RW, fx_pd, 0);
	ck_assert_uint_eq(ref.xlate, SR_XLATE_ODP);
	/* never touched: the copy faults it in, reads zeros */
	memset(got, 0xaa, sizeof(got));
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(buf) + P, got, 16), SR_MR_OK);
	for (int i = 0; i < 16; i++)
		ck_assert_uint_eq(got[i], 0);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(buf) + 2 * P - 3, "on demand", 9), SR_MR_OK);
	ck_assert_mem_eq(buf + 2 * P - 3, "on demand", 9);
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(buf) + 2 * P - 3, got, 9), SR_MR_OK);
	ck_assert_mem_eq(got, "on demand", 9);
	/* outside the reference (the whole region): nothing copied */
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(buf) + 4 * P - 1, "xy", 2), SR_MR_E_BOUNDS);
	ck_assert_uint_eq(buf[4 * P - 1], 0);
	/* no raw pointer into on-demand memory */
	ck_assert_uint_eq(sr_mr_ref_map(&ref, fx_addr(buf) + P, 8, &seg, 1), 0);
	sr_mr_ref_put(&ref);

	/* the usual lookup rules still hold */
	struct sr_mr *ro = sr_mr_reg_virt(fx_pd, buf, P, fx_addr(buf), RR | OD);

	ck_assert_ptr_nonnull(ro);
	ck_assert_int_eq(sr_mr_lookup(fx_dev, sr_mr_rkey(ro), true, fx_addr(buf), 8, RW, fx_pd,
				      0, &ref), SR_MR_E_ACCESS);
	ck_assert_int_eq(sr_mr_lookup(fx_dev, sr_mr_rkey(ro), true, fx_addr(buf) + P, 1, RR,
				      fx_pd, 0, &ref), SR_MR_E_BOUNDS);
	ck_assert_int_eq(sr_mr_dereg(ro), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	ck_assert_int_eq(munmap(buf, 4 * P), 0);
}
END_TEST

/* Pages unmapped after registration: an error, the process goes on. */
START_TEST(test_unmapped_after_registration)
{
	uint8_t *buf = map_pages(4), got[32];
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, 4 * P, fx_addr(buf), LW | RR | RW | OD);
	struct sr_mr_ref ref;

	ck_assert_ptr_nonnull(mr);
	memset(buf, 0x5a, 4 * P);
	ck_assert_int_eq(munmap(buf + 2 * P, P), 0);

	/* the lookup knows only the registration: it succeeds */
	ref = fx_lookup_ok(sr_mr_lkey(mr), false, fx_addr(buf), 4 * P, LW, fx_pd, 0);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(buf) + 2 * P + 100, "lost", 4),
			 SR_MR_E_FAULT);
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(buf) + 2 * P, got, 8), SR_MR_E_FAULT);
	/* a range that starts mapped and runs into the hole */
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(buf) + 2 * P - 16, got, 32),
			 SR_MR_E_FAULT);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(buf) + 2 * P - 16, got, 32),
			 SR_MR_E_FAULT);
	/* the pages around it still work */
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(buf) + P, got, 32), SR_MR_OK);
	ck_assert_uint_eq(got[31], 0x5a);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(buf) + 3 * P, "still here", 10), SR_MR_OK);
	ck_assert_mem_eq(buf + 3 * P, "still here", 10);
	sr_mr_ref_put(&ref);

	/* read-only memory: reads work, writes are refused */
	ck_assert_int_eq(mprotect(buf, P, PROT_READ), 0);
	ref = fx_lookup_ok(sr_mr_lkey(mr), false, fx_addr(buf), P, LW, fx_pd, 0);
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(buf), got, 8), SR_MR_OK);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(buf), "no", 2), SR_MR_E_FAULT);
	ck_assert_uint_eq(buf[0], 0x5a);
	sr_mr_ref_put(&ref);

	/* all of it gone, after the region was made and used */
	ck_assert_int_eq(munmap(buf, 4 * P), 0);
	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(buf), 4 * P, RW, fx_pd, 0);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(buf) + 7, got, 16), SR_MR_E_FAULT);
	sr_mr_ref_put(&ref);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
}
END_TEST

/* The atomic word: faulted in writable, else an error. */
START_TEST(test_atomic_word)
{
	uint8_t *buf = map_pages(2);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, 2 * P, fx_addr(buf), LW | RA | OD);
	struct sr_mr_ref ref;
	uint64_t *w = NULL;

	ck_assert_ptr_nonnull(mr);
	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(buf) + P + 64, 8, RA, fx_pd, 0);
	ck_assert_int_eq(sr_mr_ref_word(&ref, fx_addr(buf) + P + 64, &w), SR_MR_OK);
	ck_assert_ptr_eq(w, buf + P + 64);
	ck_assert_uint_eq(__atomic_fetch_add(w, 5, __ATOMIC_SEQ_CST), 0);
	ck_assert_uint_eq(*w, 5);
	sr_mr_ref_put(&ref);

	ck_assert_int_eq(mprotect(buf, P, PROT_READ), 0);
	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(buf) + 8, 8, RA, fx_pd, 0);
	ck_assert_int_eq(sr_mr_ref_word(&ref, fx_addr(buf) + 8, &w), SR_MR_E_FAULT);
	sr_mr_ref_put(&ref);
	ck_assert_int_eq(munmap(buf + P, P), 0);
	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(buf) + P + 64, 8, RA, fx_pd, 0);
	ck_assert_int_eq(sr_mr_ref_word(&ref, fx_addr(buf) + P + 64, &w), SR_MR_E_FAULT);
	sr_mr_ref_put(&ref);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	ck_assert_int_eq(munmap(buf, P), 0);

	/* a normal region's word is its address, as before */
	uint8_t *nb = fx_pages(1);
	struct sr_mr *nm = sr_mr_reg_virt(fx_pd, nb, P, fx_addr(nb), LW | RA);

	ref = fx_lookup_ok(sr_mr_rkey(nm), true, fx_addr(nb) + 16, 8, RA, fx_pd, 0);
	ck_assert_int_eq(sr_mr_ref_word(&ref, fx_addr(nb) + 16, &w), SR_MR_OK);
	ck_assert_ptr_eq(w, nb + 16);
	sr_mr_ref_put(&ref);
	ck_assert_int_eq(sr_mr_dereg(nm), 0);
	free(nb);
}
END_TEST

/* Implicit ODP: one key for the whole address space. */
START_TEST(test_implicit)
{
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, NULL, UINT64_MAX, 0, LW | RR | RW | RA | OD);
	uint8_t *heap = fx_pages(1), *gone = map_pages(1), got[8];
	uint64_t stack_word = 0x1122334455667788ull;
	struct sr_mr_ref ref;
	uint64_t *w;

	ck_assert_ptr_nonnull(mr);
	ck_assert(sr_mr_is_odp(mr));
	ck_assert(sr_mr_is_implicit(mr));
	ck_assert_uint_eq(sr_mr_iova(mr), 0);
	ck_assert_uint_eq(sr_mr_length(mr), UINT64_MAX);
	ck_assert_uint_ne(sr_mr_rkey(mr), 0);

	/* any address, as itself: heap, stack, remote and local */
	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(heap) + 10, 20, RW, fx_pd, 0);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(heap) + 10, "implicit", 8), SR_MR_OK);
	ck_assert_mem_eq(heap + 10, "implicit", 8);
	sr_mr_ref_put(&ref);
	ref = fx_lookup_ok(sr_mr_lkey(mr), false, fx_addr(&stack_word), 8, 0, fx_pd, 0);
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(&stack_word), got, 8), SR_MR_OK);
	ck_assert_mem_eq(got, &stack_word, 8);
	sr_mr_ref_put(&ref);
	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(heap) + 64, 8, RA, fx_pd, 0);
	ck_assert_int_eq(sr_mr_ref_word(&ref, fx_addr(heap) + 64, &w), SR_MR_OK);
	ck_assert_ptr_eq(w, heap + 64);
	sr_mr_ref_put(&ref);

	/* an address nothing maps */
	ck_assert_int_eq(munmap(gone, P), 0);
	ref = fx_lookup_ok(sr_mr_rkey(mr), true, fx_addr(gone), 8, RW, fx_pd, 0);
	ck_assert_int_eq(sr_mr_copy_to(&ref, fx_addr(gone), "x", 1), SR_MR_E_FAULT);
	ck_assert_int_eq(sr_mr_copy_from(&ref, fx_addr(gone), got, 8), SR_MR_E_FAULT);
	sr_mr_ref_put(&ref);
	ref = fx_lookup_ok(sr_mr_lkey(mr), false, 16, 8, 0, fx_pd, 0);   /* page 0 */
	ck_assert_int_eq(sr_mr_copy_from(&ref, 16, got, 8), SR_MR_E_FAULT);
	sr_mr_ref_put(&ref);

	/* still checked: wrap, PD, rights */
	ck_assert_int_eq(sr_mr_lookup(fx_dev, sr_mr_lkey(mr), false, UINT64_MAX - 3, 8, 0, fx_pd,
				      0, &ref), SR_MR_E_BOUNDS);
	struct sr_pd *other = sr_pd_alloc(fx_dev);

	ck_assert_int_eq(sr_mr_lookup(fx_dev, sr_mr_lkey(mr), false, fx_addr(heap), 8, 0, other,
				      0, &ref), SR_MR_E_PD);
	ck_assert_int_eq(sr_pd_dealloc(other), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);

	/* implicit needs iova 0, and ON_DEMAND (else it is over the size) */
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, NULL, UINT64_MAX, 4096, LW | OD));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, NULL, UINT64_MAX, 0, LW));
	ck_assert_int_eq(errno, EINVAL);
	/* explicit ODP keeps MaxRegistrationSize and the buffer rules */
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, NULL, P, 0, LW | OD));
	ck_assert_int_eq(errno, EFAULT);
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, heap, UINT64_MAX - 1, 0, LW | OD | SR_ACCESS_ZERO_BASED));
	ck_assert_int_eq(errno, EINVAL);
	free(heap);
}
END_TEST

/* Where ON_DEMAND is taken and where it is not. */
START_TEST(test_rules)
{
	uint8_t *buf = fx_pages(2);
	uint64_t pages[1] = { fx_addr(buf) };
	struct sr_page_list pl = { .pages = pages, .npages = 1, .length = P };
	struct sr_sg_elem sg = { .addr = fx_addr(buf), .len = P };
	struct sr_mr *mr = sr_mr_create(fx_pd, false);

	/* a page list or SG list is never on demand */
	ck_assert_int_eq(sr_mr_register_pages(mr, &pl, fx_addr(buf), LW | OD), -EINVAL);
	ck_assert_int_eq(sr_mr_register_sgl(mr, &sg, 1, fx_addr(buf), LW | OD), -EINVAL);
	/* remote write still needs local write */
	ck_assert_int_eq(sr_mr_register_virt(mr, buf, P, fx_addr(buf), RW | OD), -EINVAL);
	/* zero-based on demand */
	ck_assert_int_eq(sr_mr_register_virt(mr, buf, 2 * P, 0,
					     LW | RR | OD | SR_ACCESS_ZERO_BASED | SR_ACCESS_MW_BIND),
			 0);
	ck_assert(sr_mr_is_odp(mr));
	struct sr_mr_ref ref = fx_lookup_ok(sr_mr_rkey(mr), true, P + 5, 4, RR, fx_pd, 0);

	memcpy(buf + P + 5, "zero", 4);
	char got[4];

	ck_assert_int_eq(sr_mr_copy_from(&ref, P + 5, got, 4), SR_MR_OK);
	ck_assert_mem_eq(got, "zero", 4);
	sr_mr_ref_put(&ref);

	/* a window over an on-demand region reaches it through the kernel too */
	struct sr_mw *mw = sr_mw_alloc(fx_pd, SR_MW_TYPE_1);
	struct sr_mw_bind b = { .mr = mr, .pd = fx_pd, .addr = 0, .length = P, .access = RR };

	ck_assert_int_eq(sr_mw_bind(mw, &b), 0);
	ref = fx_lookup_ok(sr_mw_rkey(mw), true, 0, 8, RR, fx_pd, 0);
	ck_assert_uint_eq(ref.xlate, SR_XLATE_ODP);
	sr_mr_ref_put(&ref);
	/* ON_DEMAND is no window right */
	b.access = RR | OD;
	ck_assert_int_eq(sr_mw_bind(mw, &b), -EINVAL);
	ck_assert_int_eq(sr_mw_dealloc(mw), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);

	/* nor a fast-register or DMA MR's */
	struct sr_mr *fr = sr_mr_create(fx_pd, true);

	ck_assert_int_eq(sr_frmr_init(fr, 1, true), 0);
	uint32_t k = sr_mr_lkey(fr);
	struct sr_frmr_req req = { .pd = fx_pd, .pages = pages, .npages = 1, .length = P,
				   .iova = fx_addr(buf), .access = LW | OD,
				   .key = (k & ~0xffu) | ((k + 1) & 0xffu) };

	ck_assert_int_eq(sr_frmr_fast_register(fx_dev, fr, &req), -EINVAL);
	ck_assert_int_eq(sr_mr_dereg(fr), 0);
	errno = 0;
	ck_assert_ptr_null(sr_mr_get_dma(fx_pd, LW | OD));
	ck_assert_int_eq(errno, EINVAL);
	free(buf);
}
END_TEST

/* Re-registration turns a virtual region on demand and back. */
START_TEST(test_rereg)
{
	uint8_t *buf = fx_pages(2);
	uint64_t pages[1] = { fx_addr(buf) };
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, P, fx_addr(buf), LW | RR);
	uint32_t key = sr_mr_lkey(mr);
	struct sr_mr_ref ref;

	ck_assert(!sr_mr_is_odp(mr));
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS | SR_REREG_KEEP_KEYS, NULL, NULL,
				     LW | RR | OD), 0);
	ck_assert(sr_mr_is_odp(mr));
	ck_assert_uint_eq(sr_mr_lkey(mr), key);
	ref = fx_lookup_ok(key, true, fx_addr(buf), P, RR, fx_pd, 0);
	ck_assert_uint_eq(ref.xlate, SR_XLATE_ODP);
	sr_mr_ref_put(&ref);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS | SR_REREG_KEEP_KEYS, NULL, NULL,
				     LW | RR), 0);
	ck_assert(!sr_mr_is_odp(mr));
	ref = fx_lookup_ok(key, true, fx_addr(buf), P, RR, fx_pd, 0);
	ck_assert_uint_eq(ref.xlate, SR_XLATE_LINEAR);
	sr_mr_ref_put(&ref);

	/* to implicit with a new translation, and not back by access alone */
	struct sr_mr_src imp = { .kind = SR_MR_SRC_VIRT, .iova = 0,
				 .virt = { .addr = NULL, .length = UINT64_MAX } };

	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_TRANS | SR_REREG_ACCESS, NULL, &imp,
				     LW | OD), 0);
	ck_assert(sr_mr_is_implicit(mr));
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS, NULL, NULL, LW), -EINVAL);
	ck_assert(sr_mr_is_implicit(mr));
	ck_assert_int_eq(sr_mr_dereg(mr), 0);

	/* a page list cannot become on demand */
	struct sr_page_list pl = { .pages = pages, .npages = 1, .length = P };

	mr = sr_mr_create(fx_pd, false);
	ck_assert_int_eq(sr_mr_register_pages(mr, &pl, fx_addr(buf), LW), 0);
	ck_assert_int_eq(sr_mr_rereg(mr, SR_REREG_ACCESS, NULL, NULL, LW | OD), -EINVAL);
	ck_assert(!sr_mr_is_odp(mr));
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(buf);
}
END_TEST

/* Is each page of [p, p + n pages) resident? */
static unsigned resident(const uint8_t *p, size_t n)
{
	unsigned char v[16];
	unsigned in = 0;

	ck_assert_uint_le(n, sizeof(v));
	ck_assert_int_eq(mincore((void *)(uintptr_t)p, n * P, v), 0);
	for (size_t i = 0; i < n; i++)
		in += v[i] & 1;
	return in;
}

/* Prefetch: pages really faulted in, and every documented error. */
START_TEST(test_advise)
{
	uint8_t *buf = map_pages(8), *plain = fx_pages(1);
	struct sr_mr *mr = sr_mr_reg_virt(fx_pd, buf, 8 * P, fx_addr(buf), LW | RR | OD);
	struct sr_mr *ro = sr_mr_reg_virt(fx_pd, buf, 8 * P, fx_addr(buf), RR | OD);
	struct sr_mr *nm = sr_mr_reg_virt(fx_pd, plain, P, fx_addr(plain), LW);
	struct sr_mr *imp = sr_mr_reg_virt(fx_pd, NULL, UINT64_MAX, 0, LW | OD);
	struct sr_mw *mw = sr_mw_alloc(fx_pd, SR_MW_TYPE_1);
	struct sr_pd *other = sr_pd_alloc(fx_dev);
	struct sr_mr_advise_sge sg[2] = {
		{ .addr = fx_addr(buf), .length = 2 * P, .lkey = sr_mr_lkey(mr) },
		{ .addr = fx_addr(buf) + 4 * P + 1, .length = 10, .lkey = sr_mr_lkey(mr) },
	};
	const unsigned F = SR_ADVISE_FLAG_FLUSH;

	ck_assert_ptr_nonnull(imp);
	/* NO_FAULT makes nothing resident */
	ck_assert_uint_eq(resident(buf, 8), 0);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH_NO_FAULT, F, sg, 2), 0);
	ck_assert_uint_eq(resident(buf, 8), 0);
	/* PREFETCH_WRITE faults in exactly the pages the ranges touch */
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH_WRITE, F, sg, 2), 0);
	ck_assert_uint_eq(resident(buf, 8), 3);
	ck_assert_uint_eq(resident(buf + 4 * P, 1), 1);
	ck_assert_uint_eq(resident(buf + 2 * P, 2), 0);
	/* asynchronous and read-only prefetch, an implicit region, 0 bytes */
	sg[0] = (struct sr_mr_advise_sge){ .addr = fx_addr(buf) + 6 * P, .length = P,
					   .lkey = sr_mr_lkey(imp) };
	sg[1] = (struct sr_mr_advise_sge){ .addr = fx_addr(buf), .length = 0,
					   .lkey = sr_mr_lkey(ro) };
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, 0, sg, 2), 0);
	ck_assert_uint_eq(resident(buf + 6 * P, 1), 1);

	/* errors, each alone */
	sg[0] = (struct sr_mr_advise_sge){ .addr = fx_addr(buf), .length = 8,
					   .lkey = sr_mr_lkey(mr) };
	ck_assert_int_eq(sr_mr_advise(fx_pd, 3, F, sg, 1), -EOPNOTSUPP);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, 2, sg, 1), -EINVAL);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 0), -EINVAL);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, NULL, 1), -EINVAL);
	ck_assert_int_eq(sr_mr_advise(NULL, SR_ADVISE_PREFETCH, F, sg, 1), -EINVAL);
	ck_assert_int_eq(sr_mr_advise(other, SR_ADVISE_PREFETCH, F, sg, 1), -EINVAL);
	sg[1] = sg[0];
	sg[1].lkey ^= 0x80;                       /* stale key byte */
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 2), -EINVAL);
	sg[1].lkey = 0xffffff00u;                 /* past the table */
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 2), -EINVAL);
	sg[1].lkey = sr_mr_lkey(nm);              /* not on demand */
	sg[1].addr = fx_addr(plain);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 2), -EINVAL);
	sg[1].lkey = sr_mw_rkey(mw);              /* a window */
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 2), -EINVAL);
	sg[1] = sg[0];
	sg[1].lkey = sr_mr_lkey(ro);              /* write advice, no local write */
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH_WRITE, F, sg, 2), -EPERM);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 2), 0);
	sg[1] = sg[0];
	sg[1].addr = fx_addr(buf) + 8 * P - 4;    /* runs past the region */
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, 0, sg, 2), -EFAULT);
	sg[1].addr = fx_addr(buf) - 1;            /* starts before it */
	sg[1].length = 1;
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH_NO_FAULT, 0, sg, 2), -EFAULT);
	/* a bad range after a good one: the good one is not prefetched */
	sg[0] = (struct sr_mr_advise_sge){ .addr = fx_addr(buf) + 7 * P, .length = P,
					   .lkey = sr_mr_lkey(mr) };
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH_WRITE, F, sg, 2), -EFAULT);
	ck_assert_uint_eq(resident(buf + 7 * P, 1), 0);

	/* memory unmapped: an error with FLUSH, best effort without */
	ck_assert_int_eq(munmap(buf + 5 * P, P), 0);
	sg[0] = (struct sr_mr_advise_sge){ .addr = fx_addr(buf) + 4 * P, .length = 2 * P,
					   .lkey = sr_mr_lkey(mr) };
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 1), -EFAULT);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH_WRITE, 0, sg, 1), 0);
	/* read-only memory: read prefetch yes, write prefetch no */
	ck_assert_int_eq(mprotect(buf + 3 * P, P, PROT_READ), 0);
	sg[0].addr = fx_addr(buf) + 3 * P;
	sg[0].length = P;
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH, F, sg, 1), 0);
	ck_assert_int_eq(sr_mr_advise(fx_pd, SR_ADVISE_PREFETCH_WRITE, F, sg, 1), -EFAULT);

	ck_assert_int_eq(sr_pd_dealloc(other), 0);
	ck_assert_int_eq(sr_mw_dealloc(mw), 0);
	ck_assert_int_eq(sr_mr_dereg(imp), 0);
	ck_assert_int_eq(sr_mr_dereg(nm), 0);
	ck_assert_int_eq(sr_mr_dereg(ro), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	ck_assert_int_eq(munmap(buf, 5 * P), 0);
	ck_assert_int_eq(munmap(buf + 6 * P, 2 * P), 0);
	free(plain);
}
END_TEST

static Suite *odp_suite(void)
{
	Suite *s = suite_create("mr_odp");
	TCase *tc = tcase_create("odp");

	tcase_add_checked_fixture(tc, setup, fx_teardown);
	tcase_add_test(tc, test_explicit);
	tcase_add_test(tc, test_unmapped_after_registration);
	tcase_add_test(tc, test_atomic_word);
	tcase_add_test(tc, test_implicit);
	tcase_add_test(tc, test_rules);
	tcase_add_test(tc, test_rereg);
	tcase_add_test(tc, test_advise);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(odp_suite)
