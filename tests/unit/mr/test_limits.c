/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_limits.c — the device limits: every NDK_ADAPTER_INFO field is
 * there, defaults validate, every field's range is enforced at
 * configuration, each class of limit fails a request with its own errno,
 * and a configured limit is enforced by every engine that owns it.
 */
#include <stddef.h>

#include "mr_test.h"

/* Every NDK_ADAPTER_INFO member, in NDK order. */
static const char *const ndk_fields[] = {
	"Version", "VendorId", "DeviceId", "MaxRegistrationSize", "MaxWindowSize",
	"FRMRPageCount", "MaxInitiatorRequestSge", "MaxReceiveRequestSge",
	"MaxReadRequestSge", "MaxTransferLength", "MaxInlineDataSize",
	"MaxInboundReadLimit", "MaxOutboundReadLimit", "MaxReceiveQueueDepth",
	"MaxInitiatorQueueDepth", "MaxSrqDepth", "MaxCqDepth", "LargeRequestThreshold",
	"MaxCallerData", "MaxCalleeData", "AdapterFlags", "RdmaTechnology",
};

START_TEST(test_every_ndk_field_present)
{
	unsigned n = sizeof(ndk_fields) / sizeof(ndk_fields[0]);

	ck_assert_uint_ge(SR_LIMIT_ID_COUNT, n);
	for (unsigned i = 0; i < n; i++)
		ck_assert_str_eq(sr_limit_info[i].ndk_name, ndk_fields[i]);
	/* SIZE_T fields are 64-bit, ULONG fields 32-bit. */
	ck_assert_uint_eq(sr_limit_info[SR_LIMIT_ID_max_registration_size].size, 8);
	ck_assert_uint_eq(sr_limit_info[SR_LIMIT_ID_max_window_size].size, 8);
	ck_assert_uint_eq(sr_limit_info[SR_LIMIT_ID_frmr_page_count].size, 4);
}
END_TEST

START_TEST(test_defaults_valid)
{
	struct sr_dev_limits l = sr_dev_limits_default();

	ck_assert_int_eq(sr_dev_limits_check(&l, NULL), 0);
	ck_assert_uint_ge(l.frmr_page_count, 16);
	ck_assert_uint_eq(l.rdma_technology, SR_RDMA_TECH_ROCEV2);
	ck_assert(l.adapter_flags & SR_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED);
	for (unsigned id = 0; id < SR_LIMIT_ID_COUNT; id++)
		ck_assert_uint_eq(sr_dev_limit_get(&l, id), sr_limit_info[id].def);
	ck_assert_int_eq(sr_dev_limits_check(NULL, NULL), -EINVAL);
}
END_TEST

/* Every field: its min and max are accepted, one step outside refused. */
START_TEST(test_field_ranges)
{
	for (unsigned id = 0; id < SR_LIMIT_ID_COUNT; id++) {
		const struct sr_limit_info *li = &sr_limit_info[id];
		uint64_t probes[4] = { li->min, li->max, li->min - 1, li->max + 1 };
		bool expect_ok[4] = { true, true, false, false };
		uint64_t type_max = li->size == 8 ? UINT64_MAX : UINT32_MAX;

		for (unsigned p = 0; p < 4; p++) {
			struct sr_dev_limits l = sr_dev_limits_default();
			enum sr_limit_id bad = SR_LIMIT_ID_COUNT;

			if ((p == 2 && li->min == 0) || (p == 3 && li->max == type_max))
				continue;  /* not representable */
			if (li->size == 8)
				memcpy((char *)&l + li->offset, &probes[p], 8);
			else {
				uint32_t v = (uint32_t)probes[p];

				memcpy((char *)&l + li->offset, &v, 4);
			}
			int rc = sr_dev_limits_check(&l, &bad);

			ck_assert_msg((rc == 0) == expect_ok[p], "%s = %llu: rc %d", li->field,
				      (unsigned long long)probes[p], rc);
			if (!expect_ok[p]) {
				ck_assert_int_eq(rc, -EINVAL);
				ck_assert_uint_eq(bad, id);
				errno = 0;
				ck_assert_ptr_null(sr_mr_dev_create(&l));
				ck_assert_int_eq(errno, EINVAL);
			}
		}
	}
}
END_TEST

START_TEST(test_frmr_page_count_at_least_16)
{
	struct sr_dev_limits l = sr_dev_limits_default();
	enum sr_limit_id bad;

	l.frmr_page_count = 15;
	ck_assert_int_eq(sr_dev_limits_check(&l, &bad), -EINVAL);
	ck_assert_uint_eq(bad, SR_LIMIT_ID_frmr_page_count);
	l.frmr_page_count = 16;
	ck_assert_int_eq(sr_dev_limits_check(&l, NULL), 0);
}
END_TEST

/* Over a limit: the class decides the errno; at the limit is fine. */
START_TEST(test_limit_check_classes)
{
	static const int class_errno[] = {
		[SR_LIMIT_INFO] = -EINVAL,
		[SR_LIMIT_PARAM] = -EINVAL,
		[SR_LIMIT_IMPL] = -E2BIG,
		[SR_LIMIT_RES] = -ENOMEM,
	};
	struct sr_dev_limits l = sr_dev_limits_default();

	for (unsigned id = 0; id < SR_LIMIT_ID_COUNT; id++) {
		uint64_t v = sr_dev_limit_get(&l, id);
		unsigned cls = sr_limit_info[id].cls;

		if (cls == SR_LIMIT_INFO) {
			ck_assert_int_eq(sr_dev_limit_check(&l, id, 0), -EINVAL);
			continue;
		}
		ck_assert_int_eq(sr_dev_limit_check(&l, id, v), 0);
		ck_assert_int_eq(sr_dev_limit_check(&l, id, 0), 0);
		ck_assert_int_eq(sr_dev_limit_check(&l, id, v + 1), class_errno[cls]);
		ck_assert_int_eq(sr_dev_limit_check(&l, id, UINT64_MAX), class_errno[cls]);
	}
	ck_assert_int_eq(sr_dev_limit_check(&l, SR_LIMIT_ID_frmr_page_count, 257), -E2BIG);
	ck_assert_int_eq(sr_dev_limit_check(&l, SR_LIMIT_ID_COUNT, 0), -EINVAL);
}
END_TEST

/* A small device: every engine enforces the configured limits. */
static struct sr_dev_limits small_limits(void)
{
	struct sr_dev_limits l = sr_dev_limits_default();

	l.max_registration_size = 8 * SR_PAGE_SIZE;
	l.max_window_size = 2 * SR_PAGE_SIZE;
	l.frmr_page_count = 16;
	l.max_transfer_length = 1000;
	l.max_pd = 2;
	l.max_mr = 3;
	l.max_mw = 1;
	return l;
}

static void small_setup(void)
{
	struct sr_dev_limits l = small_limits();

	fx_setup_limits(&l);
}

START_TEST(test_configured_limits_enforced)
{
	uint8_t *buf = fx_pages(16);
	struct sr_mr *mr, *fr, *mr3;
	struct sr_mw *mw;
	struct sr_pd *pd2;

	ck_assert_uint_eq(sr_mr_dev_limits(fx_dev)->max_mr, 3);

	/* MaxRegistrationSize: at the limit fine, one byte over invalid. */
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, buf, 8 * SR_PAGE_SIZE + 1, fx_addr(buf),
					  SR_ACCESS_LOCAL_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	mr = sr_mr_reg_virt(fx_pd, buf, 8 * SR_PAGE_SIZE, fx_addr(buf),
			    SR_ACCESS_LOCAL_WRITE | SR_ACCESS_MW_BIND | SR_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);

	/* FRMRPageCount: implementation limit. */
	fr = sr_mr_create(fx_pd, true);
	ck_assert_ptr_nonnull(fr);
	ck_assert_int_eq(sr_frmr_init(fr, 17, true), -E2BIG);
	ck_assert_int_eq(sr_frmr_init(fr, 16, true), 0);

	/* MaxMr: insufficient resources. */
	mr3 = sr_mr_create(fx_pd, false);
	ck_assert_ptr_nonnull(mr3);
	errno = 0;
	ck_assert_ptr_null(sr_mr_create(fx_pd, false));
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_ptr_null(sr_mr_get_dma(fx_pd, 0));
	ck_assert_int_eq(errno, ENOMEM);

	/* MaxWindowSize and MaxMw. */
	mw = sr_mw_alloc(fx_pd, SR_MW_TYPE_1);
	ck_assert_ptr_nonnull(mw);
	errno = 0;
	ck_assert_ptr_null(sr_mw_alloc(fx_pd, SR_MW_TYPE_2));
	ck_assert_int_eq(errno, ENOMEM);
	struct sr_mw_bind b = {
		.mr = mr, .pd = fx_pd, .addr = fx_addr(buf),
		.length = 2 * SR_PAGE_SIZE + 1, .access = SR_ACCESS_REMOTE_READ,
	};
	ck_assert_int_eq(sr_mw_bind(mw, &b), -EINVAL);
	b.length = 2 * SR_PAGE_SIZE;
	ck_assert_int_eq(sr_mw_bind(mw, &b), 0);

	/* MaxTransferLength: a lookup over it is a length error. */
	fx_lookup_err(SR_MR_E_LENGTH, sr_mr_lkey(mr), false, fx_addr(buf), 1001, 0, fx_pd, 0);
	struct sr_mr_ref ref = fx_lookup_ok(sr_mr_lkey(mr), false, fx_addr(buf), 1000, 0, fx_pd, 0);

	sr_mr_ref_put(&ref);

	/* MaxPd. */
	pd2 = sr_pd_alloc(fx_dev);
	ck_assert_ptr_nonnull(pd2);
	errno = 0;
	ck_assert_ptr_null(sr_pd_alloc(fx_dev));
	ck_assert_int_eq(errno, ENOMEM);

	ck_assert_int_eq(sr_pd_dealloc(pd2), 0);
	ck_assert_int_eq(sr_mw_dealloc(mw), 0);
	ck_assert_int_eq(sr_mr_dereg(mr3), 0);
	ck_assert_int_eq(sr_mr_dereg(fr), 0);
	ck_assert_int_eq(sr_mr_dereg(mr), 0);
	free(buf);
}
END_TEST

/* Over a limit never crashes: absurd values are refused by class. */
START_TEST(test_absurd_requests)
{
	uint8_t *buf = fx_pages(1);
	struct sr_mr *fr = sr_mr_create(fx_pd, true);

	ck_assert_int_eq(sr_frmr_init(fr, UINT32_MAX, false), -E2BIG);
	errno = 0;
	ck_assert_ptr_null(sr_mr_reg_virt(fx_pd, buf, UINT64_MAX, fx_addr(buf), 0));
	ck_assert_int_eq(errno, EINVAL);
	fx_lookup_err(SR_MR_E_KEY, UINT32_MAX, false, 0, UINT64_MAX, 0, fx_pd, 0);
	fx_lookup_err(SR_MR_E_LENGTH, sr_mr_dev_privileged_lkey(fx_dev), false, 1, UINT64_MAX, 0,
		      fx_pd, 0);
	ck_assert_int_eq(sr_mr_dereg(fr), 0);
	free(buf);
}
END_TEST

static Suite *limits_suite(void)
{
	Suite *s = suite_create("mr_limits");
	TCase *tc = tcase_create("config");
	TCase *te = tcase_create("enforced");

	tcase_add_test(tc, test_every_ndk_field_present);
	tcase_add_test(tc, test_defaults_valid);
	tcase_add_test(tc, test_field_ranges);
	tcase_add_test(tc, test_frmr_page_count_at_least_16);
	tcase_add_test(tc, test_limit_check_classes);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(te, small_setup, fx_teardown);
	tcase_add_test(te, test_configured_limits_enforced);
	tcase_add_test(te, test_absurd_requests);
	suite_add_tcase(s, te);
	return s;
}

SR_CHECK_MAIN(limits_suite)
