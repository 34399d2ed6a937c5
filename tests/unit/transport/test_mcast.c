/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mcast.c — UD multicast (qp/mcast.h): a datagram to the multicast
 * QPN reaches every QP attached to the group of its IP destination, each
 * with its own receive and Q_Key; detach, destroy and the limits; what is
 * not for a joined group, or not UD, is dropped and counted.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "qp/mcast.h"
#include "sr_check.h"
#include "wire/icrc.h"
#include "wire/parse.h"

/* A UD QP of node i, in RTS, on the node's CQs. */
static struct sr_qp *ud_qp(struct h_pair *p, int i, uint32_t qkey)
{
	struct sr_qp_init_attr init = { 0 };
	struct sr_qp_attr a = { 0 };
	struct sr_qp *qp;

	init.send_cq = p->n[i].scq;
	init.recv_cq = p->n[i].rcq;
	init.pd = p->n[i].pd;
	init.qp_type = SR_QPT_UD;
	init.cap.max_send_wr = 8;
	init.cap.max_recv_wr = 8;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	qp = sr_qp_create(p->n[i].dev, &init);
	ck_assert_ptr_nonnull(qp);
	a.qp_state = SR_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_PKEY_INDEX |
					      SR_QP_PORT | SR_QP_QKEY), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTR;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE), 0);
	a.qp_state = SR_QPS_RTS;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN), 0);
	return qp;
}

static void post_recv(struct h_pair *p, struct sr_qp *qp, uint64_t id,
		      uint32_t off)
{
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)(p->n[1].buf + off),
		.length = 2048,
		.lkey = sr_mr_lkey(p->n[1].mr),
	};
	struct sr_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	const struct sr_recv_wr *bad;

	ck_assert_int_eq(sr_qp_post_recv(qp, &wr, &bad), 0);
}

/* Node 0 sends len bytes to a group, to the multicast QPN. */
static void send_group(struct h_pair *p, const uint8_t gid[16], uint32_t qkey,
		       uint32_t len, uint64_t id)
{
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)p->n[0].buf,
		.length = len,
		.lkey = sr_mr_lkey(p->n[0].mr),
	};
	struct sr_send_wr wr = { 0 };
	const struct sr_send_wr *bad;
	struct sr_av av = h_av_to(p, 1);
	struct sr_wc wc;

	memcpy(av.dgid, gid, 16);
	sr_mcast_mac(gid, av.dmac);
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = SR_WR_SEND_WITH_IMM;
	wr.imm_data = (uint32_t)id;
	wr.send_flags = SR_SEND_SIGNALED;
	wr.wr.ud.av = &av;
	wr.wr.ud.remote_qpn = SR_MCAST_QPN;
	wr.wr.ud.remote_qkey = qkey;
	ck_assert_int_eq(sr_qp_post_send(p->n[0].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(p, p->n[0].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_settle(p);
}

static uint64_t dev_count(struct h_pair *p, int i, enum sr_counter c)
{
	uint64_t cnt[SR_CNT_MAX];

	sr_dev_counters(p->n[i].dev, cnt);
	return cnt[c];
}

static void group_gid(uint8_t gid[16], bool ipv6, uint8_t last)
{
	memset(gid, 0, 16);
	if (ipv6) {
		gid[0] = 0xff;
		gid[1] = 0x0e;
	} else {
		gid[10] = gid[11] = 0xff;
		gid[12] = 239;
		gid[13] = 0x81;     /* bit 7 is not in the MAC */
	}
	gid[15] = last;
}

START_TEST(test_mcast_two_qps)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_qp *q2, *q3;
	struct sr_wc wc[4];
	uint8_t g[16], other[16];

	h_default_opts(&o, SR_QPT_UD);
	o.ipv6 = _i == 1;
	h_pair_init(&p, &o);
	group_gid(g, o.ipv6, 7);
	group_gid(other, o.ipv6, 8);
	for (int i = 0; i < 1024; i++)
		p.n[0].buf[i] = (uint8_t)(i * 7 + 1);
	q2 = ud_qp(&p, 1, 0x11111111);
	q3 = ud_qp(&p, 1, 0x11111111);
	/* the harness's QP and q2 join; q3 stays out */
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, g), 1);
	ck_assert_int_eq(sr_mcast_attach(q2, g), 0);
	ck_assert_int_eq(sr_mcast_attach(q2, g), 0);   /* twice: still once */
	post_recv(&p, p.n[1].qp, 1, 0);
	post_recv(&p, q2, 2, 4096);
	post_recv(&p, q3, 3, 8192);
	send_group(&p, g, 0x11111111, 1000, 0x55);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 4, wc), 2);
	for (int i = 0; i < 2; i++) {
		uint32_t off = wc[i].wr_id == 1 ? 0 : 4096;

		ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
		ck_assert_uint_eq(wc[i].qp_num, wc[i].wr_id == 1 ?
				  sr_qp_num(p.n[1].qp) : sr_qp_num(q2));
		ck_assert_uint_eq(wc[i].byte_len, 1000 + 40);
		ck_assert_uint_eq(wc[i].imm_data, 0x55);
		ck_assert_uint_eq(wc[i].src_qp, sr_qp_num(p.n[0].qp));
		ck_assert_mem_eq(p.n[1].buf + off + 40, p.n[0].buf, 1000);
		/* the GRH's destination is the group */
		if (o.ipv6)
			ck_assert_mem_eq(p.n[1].buf + off + 24, g, 16);
		else
			ck_assert_mem_eq(p.n[1].buf + off + 36, g + 12, 4);
	}
	ck_assert_uint_eq(dev_count(&p, 1, SR_CNT_MCAST_RCVD), 1);
	/* a group nobody here joined: dropped, counted */
	send_group(&p, other, 0x11111111, 100, 0x56);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 4, wc), 0);
	ck_assert_uint_eq(dev_count(&p, 1, SR_CNT_MCAST_DROP), 1);
	/* the wrong Q_Key: each attached QP drops it */
	post_recv(&p, p.n[1].qp, 4, 0);
	post_recv(&p, q2, 5, 4096);
	send_group(&p, g, 0x22222222, 100, 0x57);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 4, wc), 0);
	ck_assert_uint_eq(dev_count(&p, 1, SR_CNT_UD_QKEY_DROP), 2);
	/* q2 leaves: only the first QP takes the next one */
	ck_assert_int_eq(sr_mcast_detach(q2, g), 0);
	ck_assert_int_eq(sr_mcast_detach(q2, g), -EINVAL);
	ck_assert_int_eq(sr_mcast_detach(q3, g), -EINVAL);
	send_group(&p, g, 0x11111111, 10, 0x58);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 4, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 4);
	/* the last one leaves: the device left the group */
	ck_assert_int_eq(sr_mcast_detach(p.n[1].qp, g), 1);
	send_group(&p, g, 0x11111111, 10, 0x59);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 4, wc), 0);
	ck_assert_uint_eq(dev_count(&p, 1, SR_CNT_MCAST_DROP), 2);
	ck_assert_int_eq(sr_qp_destroy(q2), 0);
	ck_assert_int_eq(sr_qp_destroy(q3), 0);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_mcast_destroy_attached)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_qp *q2;
	struct sr_wc wc[2];
	uint8_t g[16];

	h_default_opts(&o, SR_QPT_UD);
	h_pair_init(&p, &o);
	group_gid(g, false, 1);
	q2 = ud_qp(&p, 1, 0x11111111);
	ck_assert_int_eq(sr_mcast_attach(q2, g), 1);
	post_recv(&p, q2, 1, 0);
	/* destroyed while attached: it leaves the group (as uverbs does) */
	ck_assert_int_eq(sr_qp_destroy(q2), 0);
	send_group(&p, g, 0x11111111, 64, 1);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 2, wc), 0);
	ck_assert_uint_eq(dev_count(&p, 1, SR_CNT_MCAST_DROP), 1);
	/* and the next QP to join is the group's first again */
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, g), 1);
	h_pair_fini(&p);   /* destroys the harness's QP, attached */
}
END_TEST

START_TEST(test_mcast_limits_and_errors)
{
	struct h_pair p, rc;
	struct h_opts o;
	struct sr_qp *q[SR_MAX_MCAST_QP_ATTACH];
	uint8_t g[16], not_mc[16];

	h_default_opts(&o, SR_QPT_UD);
	o.cqe = 256;
	h_pair_init(&p, &o);
	group_gid(g, false, 1);
	/* unicast GIDs, IPv4-mapped and IPv6 */
	memcpy(not_mc, p.n[0].gid, 16);
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, not_mc), -EINVAL);
	memset(not_mc, 0, 16);
	not_mc[0] = 0xfe;
	not_mc[1] = 0x80;
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, not_mc), -EINVAL);
	ck_assert_int_eq(sr_mcast_attach(NULL, g), -EINVAL);
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, NULL), -EINVAL);
	ck_assert_int_eq(sr_mcast_detach(NULL, g), -EINVAL);
	/* a group takes SR_MAX_MCAST_QP_ATTACH QPs */
	for (unsigned int i = 0; i < SR_MAX_MCAST_QP_ATTACH; i++) {
		q[i] = ud_qp(&p, 1, 0x11111111);
		ck_assert_int_eq(sr_mcast_attach(q[i], g), i == 0 ? 1 : 0);
	}
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, g), -ENOMEM);
	/* a device takes SR_MAX_MCAST_GRP groups */
	for (unsigned int i = 1; i < SR_MAX_MCAST_GRP; i++) {
		group_gid(g, true, 0);
		g[14] = (uint8_t)(i >> 8);
		g[15] = (uint8_t)i;
		ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, g), 1);
	}
	g[13] = 1;
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, g), -ENOMEM);
	for (unsigned int i = 0; i < SR_MAX_MCAST_QP_ATTACH; i++)
		ck_assert_int_eq(sr_qp_destroy(q[i]), 0);
	/* the first group went with its QPs: room for one more */
	ck_assert_int_eq(sr_mcast_attach(p.n[1].qp, g), 1);
	h_pair_fini(&p);
	/* only UD QPs join */
	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&rc, &o);
	group_gid(g, false, 1);
	ck_assert_int_eq(sr_mcast_attach(rc.n[1].qp, g), -EINVAL);
	h_pair_fini(&rc);
}
END_TEST

/*
 * Hostile: an RC request to the multicast QPN and a joined group's address
 * is no datagram.  The tap rewrites node 0's frames as a forger would
 * (DestQP, IP destination, IPv4 checksum and ICRC all made consistent).
 */
static uint8_t hostile_group[16];

static bool to_mcast_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct sr_pkt pkt;

	(void)ctx;
	if (from == 0 && sr_parse_eth(frame, *len, 0, &pkt) == SR_PARSE_OK) {
		uint8_t *b = (uint8_t *)sr_pkt_bth(&pkt);
		uint8_t *ip = frame + pkt.l3;
		uint32_t sum = 0;

		b[5] = b[6] = b[7] = 0xff;   /* DestQP: the multicast QPN */
		memcpy(ip + 16, hostile_group + 12, 4);
		ip[10] = ip[11] = 0;
		for (int i = 0; i < 20; i += 2)
			sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		ip[10] = (uint8_t)(~sum >> 8);
		ip[11] = (uint8_t)~sum;
		sr_icrc_store(frame + *len - 4,
			      sr_icrc_calc(ip, false, *len - 4 - pkt.l3));
	}
	return true;
}

START_TEST(test_mcast_rc_opcode_dropped)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_qp *ud;
	struct sr_wc wc;
	uint64_t cnt[SR_CNT_MAX];

	h_default_opts(&o, SR_QPT_RC);
	o.retry = 1;
	o.timeout = 1;
	h_pair_init(&p, &o);
	group_gid(hostile_group, false, 3);
	ud = ud_qp(&p, 1, 0x11111111);
	ck_assert_int_eq(sr_mcast_attach(ud, hostile_group), 1);
	post_recv(&p, ud, 1, 0);
	sim_set_tap(p.net, to_mcast_tap, NULL);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 64, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_ne(wc.status, SR_WC_SUCCESS);
	/* dropped before any QP saw it */
	ck_assert_uint_ge(dev_count(&p, 1, SR_CNT_MCAST_DROP), 1);
	ck_assert_uint_eq(dev_count(&p, 1, SR_CNT_MCAST_RCVD), 0);
	sr_qp_counters(ud, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_RX_PKTS], 0);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 1, &wc), 0);
	ck_assert_int_eq(sr_qp_destroy(ud), 0);
	h_pair_fini(&p);
}
END_TEST

static Suite *mcast_suite(void)
{
	Suite *s = suite_create("transport_mcast");
	TCase *tc = tcase_create("mcast");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_mcast_two_qps, 0, 2);
	tcase_add_test(tc, test_mcast_destroy_attached);
	tcase_add_test(tc, test_mcast_limits_and_errors);
	tcase_add_test(tc, test_mcast_rc_opcode_dropped);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(mcast_suite)
