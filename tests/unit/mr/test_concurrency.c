/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_concurrency.c — lookups and copies on reader threads while other
 * threads deregister, re-register, invalidate, fast-register, bind and
 * destroy.  Every lookup must either succeed on a live registration (its
 * bytes are that registration's: buffers hold their own key, and are
 * poisoned and freed the moment deregistration returns, so ASan catches
 * any late access) or fail cleanly with E_KEY or E_STATE.
 */
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mr_test.h"
#include "mr/mr_priv.h"   /* sr_mr_readers_use_fences_() */

#define NK 4                 /* registrations churned at once */
#define BUF (2 * SR_PAGE_SIZE)
#define READERS 2
#define RUN_NS (400 * 1000 * 1000LL)
#define MIN_ROUNDS 2000
#define SR_WRAP_PUBS 128     /* see reader() */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * What readers look at: pub[i] = key | pattern << 32, published together.
 * Key i answers at iova va(i); a lookup that succeeds must read pattern
 * (0: any bytes, for the FRMR pool).
 */
struct hammer {
	_Atomic uint64_t pub[NK];
	_Atomic uint64_t pubs;         /* publications, every index */
	_Atomic bool stop;
	_Atomic uint64_t ok, failed, bad, odd_err, wrapped;
	bool remote;
	uint32_t need;
	uint32_t qpn;
	uint64_t len;                  /* bytes each reader copies */
	uint64_t win;                  /* bytes addressable from va(i) */
};

static struct hammer H;

static uint64_t va_of(unsigned i)
{
	return UINT64_C(0x10000000) * (i + 1);
}

static void *reader(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg * 7919u + 1;
	uint32_t tmp[BUF / 4];

	while (!atomic_load(&H.stop)) {
		unsigned i = (seed = seed * 1103515245u + 12345u) >> 16 & (NK - 1);
		uint64_t pubs = atomic_load(&H.pubs);
		uint64_t pub = atomic_load(&H.pub[i]);
		uint32_t key = (uint32_t)pub, pat = (uint32_t)(pub >> 32);
		uint64_t off = ((seed >> 8) % (H.win - H.len + 1)) & ~UINT64_C(3);
		struct sr_mr_ref ref;
		enum sr_mr_err e = sr_mr_lookup(fx_dev, key, H.remote, va_of(i) + off, H.len,
						H.need, fx_pd, H.qpn, &ref);

		if (e != SR_MR_OK) {
			if (e != SR_MR_E_KEY && e != SR_MR_E_STATE)
				atomic_fetch_add(&H.odd_err, 1);
			atomic_fetch_add_explicit(&H.failed, 1, memory_order_relaxed);
			continue;
		}
		sr_mr_copy_from(&ref, va_of(i) + off, tmp, H.len);
		if (i & 1)  /* writers also go through refs */
			sr_mr_copy_to(&ref, va_of(i) + off, tmp, H.len);
		/* The bytes are those of the registration the key reached. */
		if (pat != 0) {
			for (uint64_t w = 0; w < H.len / 4; w++) {
				if (tmp[w] == pat)
					continue;
				/*
				 * A reader descheduled long enough holds a key
				 * whose 8-bit key byte has come round again:
				 * that key is valid (as on an RNIC).  A slot's
				 * byte moves on each create and registration
				 * (at most 2 per publication), of whichever
				 * index holds the slot then (destroyed objects'
				 * slots are reused), so it comes round after
				 * 128 publications at the least, counted over
				 * every index.  Anything sooner is bad.
				 */
				if (atomic_load(&H.pubs) - pubs >= SR_WRAP_PUBS)
					atomic_fetch_add(&H.wrapped, 1);
				else
					atomic_fetch_add(&H.bad, 1);
				break;
			}
		}
		sr_mr_ref_put(&ref);
		atomic_fetch_add_explicit(&H.ok, 1, memory_order_relaxed);
	}
	return NULL;
}

static void hammer_start(pthread_t *th, bool remote, uint32_t need, uint32_t qpn,
			 uint64_t len, uint64_t win)
{
	memset(&H, 0, sizeof(H));
	H.remote = remote;
	H.need = need;
	H.qpn = qpn;
	H.len = len;
	H.win = win;
	for (uintptr_t t = 0; t < READERS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, reader, (void *)t), 0);
}

static void hammer_stop(pthread_t *th)
{
	atomic_store(&H.stop, true);
	for (int t = 0; t < READERS; t++)
		pthread_join(th[t], NULL);
	ck_assert_uint_eq(atomic_load(&H.bad), 0);
	ck_assert_uint_eq(atomic_load(&H.odd_err), 0);
	ck_assert_uint_gt(atomic_load(&H.ok), 0);
	ck_assert_uint_gt(atomic_load(&H.failed), 0);
}

static void publish(unsigned i, uint32_t key, uint32_t pattern)
{
	atomic_store(&H.pub[i], key | (uint64_t)pattern << 32);
	atomic_fetch_add(&H.pubs, 1);
}

/*
 * Churn for RUN_NS and MIN_ROUNDS at least, and until the readers have
 * both succeeded and failed a few times (on a loaded machine they may get
 * little CPU); give up after MAX_NS and let hammer_stop() report it.
 */
#define MAX_NS (20 * 1000 * 1000 * 1000LL)
#define MIN_READS 200

static bool keep_going(uint64_t t0, unsigned rounds)
{
	uint64_t dt = now_ns() - t0;

	if (rounds < MIN_ROUNDS || dt < (uint64_t)RUN_NS)
		return true;
	if (atomic_load(&H.ok) >= MIN_READS && atomic_load(&H.failed) >= MIN_READS)
		return false;
	return dt < (uint64_t)MAX_NS;
}

/* A fresh buffer holding its registration's key everywhere. */
static void fill(uint8_t *buf, uint32_t key)
{
	for (size_t w = 0; w < BUF / 4; w++)
		memcpy(buf + 4 * w, &key, 4);
}

/* Poison and free: any access after this is a bug ASan reports. */
static void poison_free(uint8_t *buf)
{
	memset(buf, 0xdd, BUF);
	free(buf);
}

/* Loop index 0: membarrier mode; 1: fence mode (before any lookup). */
static void mode_setup(int mode)
{
	if (mode == 1)
		ck_assert_int_eq(sr_mr_readers_use_fences_(), 0);
}

static const uint32_t ACC = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
			    SR_ACCESS_REMOTE_WRITE | SR_ACCESS_MW_BIND;

/* Deregister (ND2 style, same object) and destroy/create (slot reuse). */
START_TEST(test_dereg_vs_lookups)
{
	pthread_t th[READERS];
	struct sr_mr *mr[NK];
	uint8_t *buf[NK];
	unsigned rounds = 0;
	uint64_t t0 = now_ns();

	mode_setup(_i);
	hammer_start(th, true, SR_ACCESS_REMOTE_READ, 0, 64, BUF);
	for (unsigned i = 0; i < NK; i++) {
		mr[i] = sr_mr_create(fx_pd, false);
		buf[i] = NULL;
	}
	while (keep_going(t0, rounds)) {
		unsigned i = rounds++ % NK;

		if (buf[i] != NULL) {
			if (rounds % 3 == 0) {
				ck_assert_int_eq(sr_mr_dereg(mr[i]), 0);
				mr[i] = sr_mr_create(fx_pd, false);
				ck_assert_ptr_nonnull(mr[i]);
			} else {
				ck_assert_int_eq(sr_mr_deregister(mr[i]), 0);
			}
			poison_free(buf[i]);
		}
		buf[i] = malloc(BUF);
		ck_assert_int_eq(sr_mr_register_virt(mr[i], buf[i], BUF, va_of(i), ACC), 0);
		fill(buf[i], sr_mr_lkey(mr[i]));
		publish(i, sr_mr_lkey(mr[i]), sr_mr_lkey(mr[i]));
	}
	hammer_stop(th);
	for (unsigned i = 0; i < NK; i++) {
		ck_assert_int_eq(sr_mr_dereg(mr[i]), 0);
		poison_free(buf[i]);
	}
}
END_TEST

/* Re-registration flips translations under readers. */
START_TEST(test_rereg_vs_lookups)
{
	pthread_t th[READERS];
	struct sr_mr *mr[NK];
	uint8_t *buf[NK];
	unsigned rounds = 0;
	uint64_t t0 = now_ns();

	mode_setup(_i);
	hammer_start(th, false, SR_ACCESS_LOCAL_WRITE, 0, 128, BUF);
	for (unsigned i = 0; i < NK; i++) {
		buf[i] = malloc(BUF);
		mr[i] = sr_mr_reg_virt(fx_pd, buf[i], BUF, va_of(i), ACC);
		fill(buf[i], sr_mr_lkey(mr[i]));
		publish(i, sr_mr_lkey(mr[i]), sr_mr_lkey(mr[i]));
	}
	while (keep_going(t0, rounds)) {
		unsigned i = rounds++ % NK;
		uint8_t *nb = malloc(BUF);
		struct sr_mr_src src = { .kind = SR_MR_SRC_VIRT, .iova = va_of(i),
					 .virt = { .addr = nb, .length = BUF } };
		uint32_t flags = SR_REREG_TRANS | (rounds % 2 ? SR_REREG_ACCESS : 0);

		ck_assert_int_eq(sr_mr_rereg(mr[i], flags, NULL, &src, ACC), 0);
		poison_free(buf[i]);   /* rereg returned: the old buffer is ours */
		buf[i] = nb;
		fill(nb, sr_mr_lkey(mr[i]));
		publish(i, sr_mr_lkey(mr[i]), sr_mr_lkey(mr[i]));
	}
	hammer_stop(th);
	for (unsigned i = 0; i < NK; i++) {
		ck_assert_int_eq(sr_mr_dereg(mr[i]), 0);
		poison_free(buf[i]);
	}
}
END_TEST

/* Fast-register / invalidate (local and remote) / destroy under readers. */
START_TEST(test_frmr_vs_lookups)
{
	pthread_t th[READERS];
	struct sr_mr *mr[NK];
	uint8_t *pool = fx_pages(16);
	uint64_t pages[4];
	unsigned rounds = 0;
	uint64_t t0 = now_ns();

	mode_setup(_i);
	memset(pool, 0x5a, 16 * SR_PAGE_SIZE);
	hammer_start(th, true, SR_ACCESS_REMOTE_WRITE, 0, 256, 3 * SR_PAGE_SIZE);
	for (unsigned i = 0; i < NK; i++) {
		mr[i] = sr_mr_create(fx_pd, true);
		ck_assert_int_eq(sr_frmr_init(mr[i], 4, true), 0);
	}
	while (keep_going(t0, rounds)) {
		unsigned i = rounds++ % NK;
		uint32_t k = sr_mr_lkey(mr[i]);

		if (sr_mr_is_valid(mr[i]))
			ck_assert_int_eq(sr_mr_invalidate(fx_dev, k, rounds & 1, fx_pd), 0);
		if (rounds % 7 == 0) {
			/* Destroy frees the page array: must wait for readers. */
			ck_assert_int_eq(sr_mr_dereg(mr[i]), 0);
			mr[i] = sr_mr_create(fx_pd, true);
			ck_assert_int_eq(sr_frmr_init(mr[i], 4 + rounds % 3, true), 0);
			k = sr_mr_lkey(mr[i]);
		} else if (rounds % 11 == 0) {
			ck_assert_int_eq(sr_frmr_init(mr[i], 4 + rounds % 5, true), 0);
		}
		for (unsigned p = 0; p < 4; p++)
			pages[p] = fx_addr(pool) + (uint64_t)((rounds + p * 3) % 16) * SR_PAGE_SIZE;
		struct sr_frmr_req req = {
			.pd = fx_pd, .pages = pages, .npages = 4, .fbo = 0,
			.length = 3 * SR_PAGE_SIZE, .iova = va_of(i),
			.access = ACC, .key = (k & ~0xffu) | ((k + 1 + rounds % 200) & 0xffu),
		};

		if ((req.key & 0xff) == (k & 0xff))
			req.key ^= 1;
		ck_assert_int_eq(sr_frmr_fast_register(fx_dev, mr[i], &req), 0);
		publish(i, req.key, 0);
	}
	hammer_stop(th);
	for (unsigned i = 0; i < NK; i++)
		ck_assert_int_eq(sr_mr_dereg(mr[i]), 0);
	/* Readers only ever wrote what they read from the pool. */
	for (size_t b = 0; b < 16 * SR_PAGE_SIZE; b++)
		ck_assert_uint_eq(pool[b], 0x5a);
	free(pool);
}
END_TEST

/* Windows bound, invalidated, rebound and their MR replaced under readers. */
START_TEST(test_windows_vs_lookups)
{
	pthread_t th[READERS];
	struct sr_mr *mr[NK];
	struct sr_mw *mw[NK];
	uint8_t *buf[NK];
	unsigned rounds = 0;
	uint64_t t0 = now_ns();
	const uint32_t qpn = 9;

	mode_setup(_i);
	hammer_start(th, true, SR_ACCESS_REMOTE_READ, qpn, 64, 1024);
	for (unsigned i = 0; i < NK; i++) {
		buf[i] = NULL;
		mr[i] = NULL;
		mw[i] = sr_mw_alloc(fx_pd, SR_MW_TYPE_2);
	}
	while (keep_going(t0, rounds)) {
		unsigned i = rounds++ % NK;
		uint32_t wk = sr_mw_rkey(mw[i]);

		if (sr_mw_is_bound(mw[i]))
			ck_assert_int_eq(sr_mr_invalidate_qp(fx_dev, wk, true, fx_pd, qpn), 0);
		if (rounds % 5 == 0 && mr[i] != NULL) {
			/* With the window unbound the MR may go; its buffer too. */
			ck_assert_int_eq(sr_mr_dereg(mr[i]), 0);
			poison_free(buf[i]);
			mr[i] = NULL;
		}
		if (rounds % 13 == 0) {
			ck_assert_int_eq(sr_mw_dealloc(mw[i]), 0);
			mw[i] = sr_mw_alloc(fx_pd, SR_MW_TYPE_2);
			wk = sr_mw_rkey(mw[i]);
		}
		if (mr[i] == NULL) {
			/* A new MR: its buffer holds its lkey until it is freed. */
			buf[i] = malloc(BUF);
			mr[i] = sr_mr_reg_virt(fx_pd, buf[i], BUF, va_of(i), ACC);
			fill(buf[i], sr_mr_lkey(mr[i]));
		}
		struct sr_mw_bind b = {
			.mr = mr[i], .pd = fx_pd, .qpn = qpn,
			.key = (wk & ~0xffu) | ((wk + 1) & 0xffu),
			.addr = va_of(i), .length = 1024,
			.access = SR_ACCESS_REMOTE_READ,
		};

		ck_assert_int_eq(sr_mw_bind(mw[i], &b), 0);
		publish(i, b.key, sr_mr_lkey(mr[i]));
	}
	hammer_stop(th);
	for (unsigned i = 0; i < NK; i++) {
		ck_assert_int_eq(sr_mw_dealloc(mw[i]), 0);
		ck_assert_int_eq(sr_mr_dereg(mr[i]), 0);
		poison_free(buf[i]);
	}
}
END_TEST

/*
 * The process registered for the expedited barrier when the library was
 * loaded: registering at a thread's first lookup waits for an RCU grace
 * period when other threads run, which took seconds on a loaded machine,
 * inside the engine's round (lib/mr/reader.c).  An unregistered process
 * gets EPERM from the barrier itself.
 */
START_TEST(test_registered_at_load)
{
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds <= 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;         /* no expedited barrier: readers fence */
	ck_assert_int_eq(syscall(__NR_membarrier,
				 MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0), 0);
}
END_TEST

static Suite *concurrency_suite(void)
{
	Suite *s = suite_create("mr_concurrency");
	TCase *tc = tcase_create("threads");

	tcase_add_checked_fixture(tc, fx_setup, fx_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_dereg_vs_lookups, 0, 2);
	tcase_add_loop_test(tc, test_rereg_vs_lookups, 0, 2);
	tcase_add_loop_test(tc, test_frmr_vs_lookups, 0, 2);
	tcase_add_loop_test(tc, test_windows_vs_lookups, 0, 2);
	tcase_add_test(tc, test_registered_at_load);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(concurrency_suite)
