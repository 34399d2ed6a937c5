/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's ECN setting on every RoCEv2 frame it sends (requests and
 * ACKs), over the simulated wire.
 */
#include "sr_check.h"
#include "harness.h"
#include "wire/cnp.h"

#include <string.h>

struct seen {
	unsigned int frames;
	unsigned int ecn[4];
};

static bool tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct seen *s = ctx;
	struct sr_pkt p;

	(void)from;
	if (sr_parse_eth(frame, *len, 0, &p) == SR_PARSE_OK) {
		s->frames++;
		s->ecn[sr_pkt_ecn(&p)]++;
	}
	return true;
}

static const uint8_t modes[] = { SR_ECN_NOT_ECT, SR_ECN_ECT0, SR_ECN_ECT1 };

START_TEST(every_frame_carries_the_ecn_setting)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	struct seen s = { 0 };

	h_default_opts(&o, SR_QPT_RC);
	o.ecn = modes[_i];
	h_pair_init(&p, &o);
	sim_set_tap(p.net, tap, &s);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 20000, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(h_post_send(&p, 1, SR_WR_RDMA_READ, 2, 0, 8000, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_gt(s.frames, 10);
	/* off: the AV's traffic class (0 here) as given. */
	ck_assert_uint_eq(s.ecn[modes[_i]], s.frames);
	h_pair_fini(&p);
}
END_TEST

START_TEST(ce_is_not_a_setting)
{
	struct sr_dev_config cfg = { 0 };
	struct sim_cfg sc = { .seed = 1 };
	struct sim_net *net = sim_create(&sc);
	struct sr_mr_dev *mrd = sr_mr_dev_create(NULL);

	cfg.link_ops = sim_ops();
	cfg.link = sim_port(net, 0);
	cfg.mr = mrd;
	cfg.gid_count = 1;
	cfg.gid[0][10] = cfg.gid[0][11] = 0xff;
	cfg.ecn = SR_ECN_CE;
	ck_assert_ptr_null(sr_dev_create(&cfg));
	cfg.ecn = SR_ECN_ECT0;
	struct sr_dev *dev = sr_dev_create(&cfg);
	ck_assert_ptr_nonnull(dev);
	sr_dev_destroy(dev);
	sr_mr_dev_destroy(mrd);
	ck_assert_int_eq(sim_destroy(net), 0);
}
END_TEST

static Suite *ecn_suite(void)
{
	Suite *s = suite_create("cc_ecn_tx");
	TCase *tc = tcase_create("ecn");

	tcase_add_loop_test(tc, every_frame_carries_the_ecn_setting, 0, 3);
	tcase_add_test(tc, ce_is_not_a_setting);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(ecn_suite)
