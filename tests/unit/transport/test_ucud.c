/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_ucud.c — UC (no ACKs, a lost packet drops the rest of its message,
 * the next starts clean) and UD (DETH, Q_Key, one MTU, GRH), clean and
 * under loss.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sr_check.h"
#include "wire/parse.h"

static int acks_seen;
static int drop_index = -1, frame_index;

static bool uc_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct sr_pkt pkt;

	(void)ctx;
	(void)from;
	ck_assert_int_eq(sr_parse_eth(frame, *len, 0, &pkt), SR_PARSE_OK);
	if (pkt.op->kind == SR_KIND_ACK || sr_bth_ackreq(sr_pkt_bth(&pkt)))
		acks_seen++;
	return frame_index++ != drop_index;
}

START_TEST(test_uc_no_acks_and_clean_restart)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[4];
	uint64_t cnt[SR_CNT_MAX];

	h_default_opts(&o, SR_QPT_UC);
	h_pair_init(&p, &o);
	acks_seen = 0;
	frame_index = 0;
	drop_index = 1;                 /* the MIDDLE of the first message */
	sim_set_tap(p.net, uc_tap, NULL);
	for (int i = 0; i < 8192; i++)
		p.n[0].buf[i] = (uint8_t)(i * 3);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 20000, 4096), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 2, 30000, 4096), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 3000, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 4000, 2500, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 3, 100, 2000, 40000,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 3, 10000), 3);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
	h_settle(&p);
	ck_assert_int_eq(acks_seen, 0);
	/* the first message is gone; the second took the first receive */
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 4, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_uint_eq(wc[0].byte_len, 2500);
	ck_assert_mem_eq(p.n[1].buf + 20000, p.n[0].buf + 4000, 2500);
	ck_assert_mem_eq(p.n[1].buf + 40000, p.n[0].buf + 100, 2000);
	sr_qp_counters(p.n[1].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_UC_MSG_DROP], 1);
	h_pair_fini(&p);
}
END_TEST

/* UC under 10 % loss: what arrives is whole, in order, never twice. */
START_TEST(test_uc_lossy)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[64];
	int got = 0, last = -1, n, sent = 0;

	h_default_opts(&o, SR_QPT_UC);
	o.sim.seed = 77 + (uint64_t)_i;
	o.sim.loss_ppm = 100000;
	o.sim.dup_ppm = 50000;
	o.mtu = SR_MTU_256;
	h_pair_init(&p, &o);
	for (int i = 0; i < 60000; i++)
		p.n[0].buf[i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < 60; i++)
		ck_assert_int_eq(h_post_recv(&p, 1, (uint64_t)i, 61440, 1), 0);
	/* receives all point at scratch; data is checked by immediate */
	for (int i = 0; i < 40; i++) {
		struct sr_sge sge = {
			.addr = (uint64_t)(uintptr_t)(p.n[0].buf + i * 1000),
			.length = 1 + (uint32_t)(i * 37) % 900,
			.lkey = sr_mr_lkey(p.n[0].mr),
		};
		struct sr_send_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
			.opcode = SR_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = SR_SEND_SIGNALED, .imm_data = (uint32_t)i,
		};
		const struct sr_send_wr *bad;

		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(p.n[1].buf + i * 1000);
		wr.wr.rdma.rkey = sr_mr_rkey(p.n[1].mr);
		ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
		sent++;
	}
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 40, 100000), 40);
	h_settle(&p);
	while ((n = sr_cq_poll(p.n[1].rcq, 64, wc)) > 0) {
		for (int k = 0; k < n; k++, got++) {
			int i = (int)wc[k].imm_data;

			ck_assert_int_eq(wc[k].status, SR_WC_SUCCESS);
			ck_assert_int_gt(i, last);     /* in order, once */
			last = i;
			ck_assert_uint_eq(wc[k].byte_len, 1 + (uint32_t)(i * 37) % 900);
			ck_assert_mem_eq(p.n[1].buf + i * 1000, p.n[0].buf + i * 1000,
					 wc[k].byte_len);
		}
	}
	ck_assert_int_gt(got, 0);
	ck_assert_int_le(got, sent);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_ud_send_grh_qkey)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	uint64_t cnt[SR_CNT_MAX];
	struct sr_sge sge;
	struct sr_send_wr wr = { 0 };
	const struct sr_send_wr *bad;
	struct sr_av av;

	h_default_opts(&o, SR_QPT_UD);
	o.ipv6 = _i == 1;
	h_pair_init(&p, &o);
	for (int i = 0; i < 1024; i++)
		p.n[0].buf[i] = (uint8_t)(i ^ 0x5a);
	ck_assert_int_eq(h_post_recv(&p, 1, 5, 4096, 2000), 0);
	av = h_av_to(&p, 1);
	sge.addr = (uint64_t)(uintptr_t)p.n[0].buf;
	sge.length = 1024;
	sge.lkey = sr_mr_lkey(p.n[0].mr);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = SR_WR_SEND_WITH_IMM;
	wr.imm_data = 0xabcd;
	wr.send_flags = SR_SEND_SIGNALED;
	wr.wr.ud.av = &av;
	wr.wr.ud.remote_qpn = sr_qp_num(p.n[1].qp);
	wr.wr.ud.remote_qkey = 0x11111111;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 1024 + 40);
	ck_assert_uint_eq(wc.src_qp, sr_qp_num(p.n[0].qp));
	ck_assert(wc.wc_flags & SR_WC_GRH);
	ck_assert(wc.wc_flags & SR_WC_WITH_IMM);
	ck_assert_uint_eq(wc.imm_data, 0xabcd);
	ck_assert_mem_eq(p.n[1].buf + 4096 + 40, p.n[0].buf, 1024);
	/* the network header type in sl, as mlx5 (UCX reads it) */
	ck_assert_uint_eq(wc.sl, o.ipv6 ? 0x9 : 0xa);
	if (o.ipv6) {
		ck_assert_uint_eq(p.n[1].buf[4096] >> 4, 6);
		ck_assert_mem_eq(p.n[1].buf + 4096 + 8, p.n[0].gid, 16);
	} else {
		ck_assert_uint_eq(p.n[1].buf[4096 + 20], 0x45);
		ck_assert_mem_eq(p.n[1].buf + 4096 + 20 + 12, p.n[0].gid + 12, 4);
	}
	/* wrong Q_Key: dropped; longer than the MTU: refused at post */
	wr.wr.ud.remote_qkey = 0x22222222;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
	h_settle(&p);
	sr_qp_counters(p.n[1].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_UD_QKEY_DROP], 1);
	sge.length = 1025;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), -EINVAL);
	/* no receive posted: dropped */
	sge.length = 10;
	wr.wr.ud.remote_qkey = 0x11111111;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
	h_settle(&p);
	sr_qp_counters(p.n[1].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_UD_NO_RECV_DROP], 1);
	h_pair_fini(&p);
}
END_TEST

/*
 * Engines that share a device by shard: sr_dev_poll_shard() runs only the
 * QPs of its shard (QPN % nshards), and every shard together does what
 * sr_dev_poll() does.
 */
START_TEST(test_poll_shard)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[2];
	uint64_t cnt[SR_CNT_MAX];
	uint32_t qpn;
	unsigned int mine, other;

	h_default_opts(&o, SR_QPT_UC);
	h_pair_init(&p, &o);
	qpn = sr_qp_num(p.n[0].qp);
	mine = sr_dev_qpn_shard(qpn, 2);
	other = 1 - mine;
	ck_assert_uint_eq(sr_dev_qpn_shard(qpn, 1), 0);
	ck_assert_uint_eq(sr_dev_qpn_shard(qpn + 1, 2), other);
	/* each shard's first round sweeps every QP of its own: take them
	 * now, so that below only the kick brings our QP (the sweep is off) */
	(void)sr_dev_poll_shard(p.n[0].dev, 64, other, 2);
	(void)sr_dev_poll_shard(p.n[0].dev, 64, mine, 2);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 20000, 4096), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 3000, 0,
				     SR_SEND_SIGNALED), 0);
	/* the other shard's engine leaves our QP alone, and leaves its kick
	 * (which shares a kick word, and its summary bit, with its own QPs)
	 * for ours */
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(sr_dev_poll_shard(p.n[0].dev, 64, other, 2), 0);
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_TX_PKTS], 0);
	/* ours sends it */
	ck_assert_uint_gt(sr_dev_poll_shard(p.n[0].dev, 64, mine, 2), 0);
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_gt(cnt[SR_CNT_TX_PKTS], 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc, 1, 10000), 1);
	ck_assert_int_eq(wc[0].status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc[0].byte_len, 3000);
	ck_assert_mem_eq(p.n[1].buf + 20000, p.n[0].buf, 3000);
	h_pair_fini(&p);
}
END_TEST

static Suite *ucud_suite(void)
{
	Suite *s = suite_create("transport_ucud");
	TCase *tc = tcase_create("ucud");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_uc_no_acks_and_clean_restart);
	tcase_add_loop_test(tc, test_uc_lossy, 0, 20);
	tcase_add_loop_test(tc, test_ud_send_grh_qkey, 0, 2);
	tcase_add_test(tc, test_poll_shard);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(ucud_suite)
