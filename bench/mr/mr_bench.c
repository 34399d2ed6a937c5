/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr_bench.c — memory-registration figures on one core:
 *   fast-register + invalidate pairs per second (goal >= 10 M/s),
 *   lookups per second, with and without mapping to segments (>= 50 M/s),
 *   registration time of 4 KiB ... 1 GiB virtual buffers (size-independent).
 * Prints; asserts nothing about time.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "mr/mr.h"

static volatile uint64_t sink;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pin_to_one_core(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		printf("(could not pin to CPU 0)\n");
}

static void die(const char *what)
{
	fprintf(stderr, "mr_bench: %s failed\n", what);
	exit(1);
}

/* Fast-register npages then invalidate, n times. */
static void bench_frmr(struct sr_mr_dev *d, struct sr_pd *pd, const uint8_t *pool, uint32_t npages)
{
	const uint64_t n = 10 * 1000 * 1000;
	uint64_t *pages = malloc(npages * sizeof(*pages));
	struct sr_mr *mr = sr_mr_create(pd, true);
	struct sr_frmr_req req = {
		.pd = pd, .pages = pages, .npages = npages, .fbo = 512,
		.length = (uint64_t)npages * SR_PAGE_SIZE - 1024, .iova = 0x7f0000000200,
		.access = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE,
	};
	double t0, t;

	if (pages == NULL || mr == NULL || sr_frmr_init(mr, npages, true) != 0)
		die("frmr setup");
	for (uint32_t i = 0; i < npages; i++)
		pages[i] = (uint64_t)(uintptr_t)pool + (uint64_t)((i * 7) % 256) * SR_PAGE_SIZE;
	req.key = sr_mr_lkey(mr);
	t0 = now_s();
	for (uint64_t i = 0; i < n; i++) {
		req.key = (req.key & ~0xffu) | ((req.key + 1) & 0xffu);
		if (sr_frmr_fast_register(d, mr, &req) != 0 ||
		    sr_mr_invalidate(d, req.key, i & 1, pd) != 0)
			die("fast-register/invalidate");
	}
	t = now_s() - t0;
	printf("  %4u pages: %6.2f M pairs/s  (%5.1f ns per pair)\n", npages, n / t / 1e6,
	       t / n * 1e9);
	sr_mr_dereg(mr);
	free(pages);
}

/* lookup + put (+ map) over nmr regions (a power of 2), round robin. */
static void bench_lookup(struct sr_mr_dev *d, struct sr_pd *pd, uint8_t *buf, unsigned nmr,
			 bool frmr, bool map)
{
	const uint64_t n = 50 * 1000 * 1000;
	struct sr_mr **mr = calloc(nmr, sizeof(*mr));
	uint32_t *keys = calloc(nmr, sizeof(*keys));
	uint64_t pages[16];
	struct sr_seg segs[4];
	uint64_t acc = 0;
	double t0, t;

	for (unsigned i = 0; i < 16; i++)
		pages[i] = (uint64_t)(uintptr_t)buf + (uint64_t)(15 - i) * SR_PAGE_SIZE;
	for (unsigned i = 0; i < nmr; i++) {
		if (!frmr) {
			mr[i] = sr_mr_reg_virt(pd, buf, 16 * SR_PAGE_SIZE, (uint64_t)(uintptr_t)buf,
					       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_WRITE);
			if (mr[i] == NULL)
				die("reg");
			keys[i] = sr_mr_rkey(mr[i]);
			continue;
		}
		mr[i] = sr_mr_create(pd, true);
		if (mr[i] == NULL || sr_frmr_init(mr[i], 16, true) != 0)
			die("frmr");
		uint32_t k = sr_mr_lkey(mr[i]);
		struct sr_frmr_req req = {
			.pd = pd, .pages = pages, .npages = 16, .length = 16 * SR_PAGE_SIZE,
			.iova = (uint64_t)(uintptr_t)buf,
			.access = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_WRITE,
			.key = (k & ~0xffu) | ((k + 1) & 0xffu),
		};

		if (sr_frmr_fast_register(d, mr[i], &req) != 0)
			die("fast-register");
		keys[i] = req.key;
	}
	uint64_t va = (uint64_t)(uintptr_t)buf + 3 * SR_PAGE_SIZE + 100;

	t0 = now_s();
	for (uint64_t i = 0; i < n; i++) {
		struct sr_mr_ref ref;
		uint32_t key = keys[i & (nmr - 1)];

		if (sr_mr_lookup(d, key, true, va, 1024, SR_ACCESS_REMOTE_WRITE, pd, 0, &ref) != SR_MR_OK)
			die("lookup");
		if (map)
			acc += sr_mr_ref_map(&ref, va, 1024, segs, 4) + (uintptr_t)segs[0].addr;
		sr_mr_ref_put(&ref);
	}
	t = now_s() - t0;
	sink = acc;
	printf("  %-8s %5u MR%s %-12s %6.1f M lookups/s  (%5.2f ns each)\n",
	       frmr ? "FRMR" : "virtual", nmr, nmr == 1 ? " " : "s",
	       map ? "+ map" : "", n / t / 1e6, t / n * 1e9);
	for (unsigned i = 0; i < nmr; i++)
		sr_mr_dereg(mr[i]);
	free(mr);
	free(keys);
}

/* Register + deregister a virtual buffer of each size. */
static void bench_reg_sizes(struct sr_pd *pd)
{
	const uint64_t gib = UINT64_C(1) << 30;
	const unsigned n = 200000;
	/* Address space only: registration never touches the pages. */
	uint8_t *va = mmap(NULL, gib, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (va == MAP_FAILED)
		die("mmap 1 GiB");
	for (uint64_t size = 4096; size <= gib; size *= 4) {
		double reg = 0, dereg = 0;

		for (unsigned i = 0; i < n; i++) {
			double t0 = now_s();
			struct sr_mr *mr = sr_mr_reg_virt(pd, va, size, (uint64_t)(uintptr_t)va,
							  SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ);
			double t1 = now_s();

			if (mr == NULL)
				die("reg_virt");
			sr_mr_dereg(mr);
			reg += t1 - t0;
			dereg += now_s() - t1;
		}
		printf("  %10llu KiB: register %6.3f us, deregister %6.3f us\n",
		       (unsigned long long)(size >> 10), reg / n * 1e6, dereg / n * 1e6);
	}
	munmap(va, gib);
}

int main(void)
{
	struct sr_mr_dev *d = sr_mr_dev_create(NULL);
	struct sr_pd *pd = d != NULL ? sr_pd_alloc(d) : NULL;
	uint8_t *pool = aligned_alloc(SR_PAGE_SIZE, 256 * SR_PAGE_SIZE);

	if (pd == NULL || pool == NULL)
		die("setup");
	pin_to_one_core();
	printf("sroce memory registration, one core\n");

	printf("fast-register + invalidate (goal >= 10 M pairs/s):\n");
	bench_frmr(d, pd, pool, 1);
	bench_frmr(d, pd, pool, 16);
	bench_frmr(d, pd, pool, 256);

	printf("lookup + put (rkey, 1 KiB, remote write; goal >= 50 M/s):\n");
	bench_lookup(d, pd, pool, 1, false, false);
	bench_lookup(d, pd, pool, 1, false, true);
	bench_lookup(d, pd, pool, 1024, false, false);
	bench_lookup(d, pd, pool, 1024, false, true);
	bench_lookup(d, pd, pool, 1, true, false);
	bench_lookup(d, pd, pool, 1, true, true);
	bench_lookup(d, pd, pool, 1024, true, true);

	printf("virtual-buffer registration (goal: independent of size):\n");
	bench_reg_sizes(pd);

	sr_pd_dealloc(pd);
	if (sr_mr_dev_in_use(d) != 0)
		die("leak check");
	sr_mr_dev_destroy(d);
	free(pool);
	return 0;
}
