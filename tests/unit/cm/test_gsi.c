/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QP1: two GSIs exchange real RoCEv2 frames (lib/wire builds and parses
 * them); a connection is made and torn down through them, and the GSI's
 * receive checks drop what IBA 13.5.1 says it must.
 */
#include <string.h>

#include "cm/cma_hdr.h"
#include "cm/gsi.h"
#include "core/dev.h"
#include "mr/mr.h"
#include "sr_check.h"
#include "wire/build.h"

struct wire_frame {
	int to;
	uint32_t len;
	uint8_t data[512];
};

static struct sr_gsi *G[2];
static struct wire_frame fq[64];
static unsigned int fn;
static int events[2][SR_CM_EVENT_COUNT];
static int who[2] = { 0, 1 };
static uint8_t mac[2][6] = { { 2, 0, 0, 0, 0, 0x11 }, { 2, 0, 0, 0, 0, 0x12 } };

static int tx(void *ctx, const uint8_t *frame, uint32_t len)
{
	int from = *(int *)ctx;

	ck_assert_uint_lt(fn, 64);
	ck_assert_uint_le(len, sizeof(fq[0].data));
	fq[fn].to = !from;
	fq[fn].len = len;
	memcpy(fq[fn].data, frame, len);
	fn++;
	return 0;
}

static void on_event(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	int side = *(int *)ctx;

	events[side][ev->type]++;
	if (ev->type == SR_CM_EVENT_REQ_RCVD) {
		struct sr_cm_rep_param p = { .qpn = 0x22 };

		ck_assert_int_eq(sr_cm_accept(id, 0, &p), 0);
	} else if (ev->type == SR_CM_EVENT_REP_RCVD) {
		ck_assert_int_eq(sr_cm_rtu(id, 0, NULL, 0), 0);
	} else if (ev->type == SR_CM_EVENT_DREQ_RCVD) {
		ck_assert_int_eq(sr_cm_drep(id, 0, NULL, 0), 0);
	}
}

static void gid_of(int i, uint8_t gid[16])
{
	sr_cma_ipv4_gid(gid, (uint8_t[]){ 10, 77, 0, (uint8_t)(11 + i) });
}

static void setup(void)
{
	memset(events, 0, sizeof(events));
	fn = 0;
	for (int i = 0; i < 2; i++) {
		struct sr_gsi_cfg cfg = {
			.pkey = 0xFFFF, .tx = tx, .tx_ctx = &who[i],
			.cm = { .ops = { .event = on_event, .ctx = &who[i] },
				.max_ids = 8 },
		};

		gid_of(i, cfg.gid);
		memcpy(cfg.mac, mac[i], 6);
		G[i] = sr_gsi_create(&cfg);
		ck_assert_ptr_nonnull(G[i]);
	}
}

static void teardown(void)
{
	sr_gsi_destroy(G[0]);
	sr_gsi_destroy(G[1]);
}

static void deliver(void)
{
	for (unsigned int i = 0; i < fn; i++) {
		struct sr_pkt pkt;

		ck_assert_int_eq(sr_parse_eth(fq[i].data, fq[i].len, 0, &pkt), SR_PARSE_OK);
		ck_assert_uint_eq(sr_bth_dqpn(sr_pkt_bth(&pkt)), SR_GSI_QPN);
		/* Addressed to the peer's MAC, learnt from the frame it sent. */
		ck_assert_mem_eq(fq[i].data, mac[fq[i].to], 6);
		sr_gsi_rx(G[fq[i].to], 0, &pkt);
	}
	fn = 0;
}

START_TEST(test_connect_over_frames)
{
	struct sr_cm_id *l, *a;
	struct sr_cm_req_param p = { .service_id = 0x0000000001061C06ull,
				     .qpn = 0x11, .max_cm_retries = 2,
				     .remote_cm_timeout = 10 };

	ck_assert_int_eq(sr_cm_listen(sr_gsi_cm(G[1]), p.service_id, NULL, &l), 0);
	gid_of(1, p.peer.gid);
	p.peer.pkey = 0xFFFF;
	memcpy(p.peer.mac, mac[1], 6);
	ck_assert_int_eq(sr_cm_connect(sr_gsi_cm(G[0]), 0, &p, NULL, &a), 0);
	for (int round = 0; round < 4 && fn > 0; round++)
		deliver();
	ck_assert_int_eq(events[1][SR_CM_EVENT_REQ_RCVD], 1);
	ck_assert_int_eq(events[1][SR_CM_EVENT_ESTABLISHED], 1);
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_ESTABLISHED);
	ck_assert_int_eq(sr_cm_disconnect(a, 0, NULL, 0), 0);
	for (int round = 0; round < 4 && fn > 0; round++)
		deliver();
	ck_assert_int_eq(events[0][SR_CM_EVENT_DISCONNECTED], 1);
	ck_assert_uint_eq(sr_gsi_counters(G[0])->tx, 3);   /* REQ, RTU, DREQ */
	ck_assert_uint_eq(sr_gsi_counters(G[1])->tx, 2);   /* REP, DREP */
}
END_TEST

/* One frame of each kind the GSI must drop, each counted by its reason. */
START_TEST(test_rx_checks)
{
	static const struct { uint8_t opcode; uint32_t qkey; uint16_t pkey;
			      uint32_t len; size_t cnt; } bad[] = {
		{ SR_OPCODE(RC, SEND_ONLY), 0, 0xFFFF, 256,
		  offsetof(struct sr_gsi_counters, rx_opcode) },
		{ SR_OPCODE(UD, SEND_ONLY), 0x80010001u, 0xFFFF, 256,
		  offsetof(struct sr_gsi_counters, rx_qkey) },
		{ SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, 0x8001, 256,
		  offsetof(struct sr_gsi_counters, rx_pkey) },
		{ SR_OPCODE(UD, SEND_ONLY), SR_GSI_QKEY, 0xFFFF, 200,
		  offsetof(struct sr_gsi_counters, rx_short) },
	};
	uint8_t mad[SR_MAD_SIZE] = { 1, 7, 2, 3 }, frame[512];

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sr_build b = {
			.opcode = bad[i].opcode, .pkey = bad[i].pkey,
			.dqpn = SR_GSI_QPN, .deth_qkey = bad[i].qkey,
			.deth_sqpn = 1, .hop_limit = 64,
		};
		const struct sr_gsi_counters *c = sr_gsi_counters(G[1]);
		uint64_t before;
		struct sr_pkt pkt;
		int n;

		memcpy(&before, (const uint8_t *)c + bad[i].cnt, 8);
		gid_of(0, b.sgid);
		gid_of(1, b.dgid);
		n = sr_build_frame(frame, sizeof(frame), &b, mad, bad[i].len);
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(sr_parse_eth(frame, (uint32_t)n, 0, &pkt), SR_PARSE_OK);
		sr_gsi_rx(G[1], 0, &pkt);
		{
			uint64_t after;

			memcpy(&after, (const uint8_t *)c + bad[i].cnt, 8);
			ck_assert_uint_eq(after, before + 1);
		}
		ck_assert_uint_eq(sr_cm_counters(sr_gsi_cm(G[1]))->rx, 0);
	}
	ck_assert_uint_eq(fn, 0);
}
END_TEST

static uint8_t *no_tx_alloc(void *link, uint32_t len, void **cookie)
{
	(void)link;
	(void)len;
	(void)cookie;
	return NULL;
}

static void no_tx_submit(void *link, void *cookie, uint32_t len)
{
	(void)link;
	(void)cookie;
	(void)len;
}

static void no_tx_abort(void *link, void *cookie)
{
	(void)link;
	(void)cookie;
}

static uint64_t zero_now(void *link)
{
	(void)link;
	return 0;
}

static void dev_to_gsi(void *ctx, const struct sr_pkt *pkt)
{
	sr_gsi_rx(ctx, 0, pkt);
}

/* The device hands frames for QPN 1 to the GSI hook, and drops them as an
 * unknown QPN without one. */
START_TEST(test_device_hook)
{
	static const struct sr_link_ops ops = {
		.tx_alloc = no_tx_alloc, .tx_submit = no_tx_submit,
		.tx_abort = no_tx_abort, .now_ns = zero_now,
	};
	struct sr_dev_config cfg = { .link_ops = &ops, .gid_count = 1 };
	uint64_t cnt[SR_CNT_MAX];
	struct sr_cm_id *l, *a;
	struct sr_cm_req_param p = { .service_id = 7, .qpn = 0x11 };
	struct sr_dev *dev;

	cfg.mr = sr_mr_dev_create(NULL);
	ck_assert_ptr_nonnull(cfg.mr);
	gid_of(1, cfg.gid[0]);
	memcpy(cfg.mac, mac[1], 6);
	dev = sr_dev_create(&cfg);
	ck_assert_ptr_nonnull(dev);
	ck_assert_int_eq(sr_cm_listen(sr_gsi_cm(G[1]), 7, NULL, &l), 0);
	gid_of(1, p.peer.gid);
	p.peer.pkey = 0xFFFF;
	memcpy(p.peer.mac, mac[1], 6);
	ck_assert_int_eq(sr_cm_connect(sr_gsi_cm(G[0]), 0, &p, NULL, &a), 0);
	ck_assert_uint_eq(fn, 1);
	sr_dev_rx(dev, fq[0].data, fq[0].len);
	sr_dev_counters(dev, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_MGMT_QP_DROP], 1);
	ck_assert_int_eq(events[1][SR_CM_EVENT_REQ_RCVD], 0);
	sr_dev_set_gsi(dev, dev_to_gsi, G[1]);
	sr_dev_rx(dev, fq[0].data, fq[0].len);
	sr_dev_counters(dev, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_MGMT_QP_DROP], 1);
	ck_assert_int_eq(events[1][SR_CM_EVENT_REQ_RCVD], 1);
	sr_dev_destroy(dev);
	sr_mr_dev_destroy(cfg.mr);
}
END_TEST

START_TEST(test_create_refuses)
{
	struct sr_gsi_cfg cfg = { .pkey = 0xFFFF };

	ck_assert_ptr_null(sr_gsi_create(NULL));
	ck_assert_ptr_null(sr_gsi_create(&cfg));
	cfg.tx = tx;
	ck_assert_ptr_null(sr_gsi_create(&cfg));
	sr_gsi_destroy(NULL);
}
END_TEST

static Suite *cm_gsi_suite(void)
{
	Suite *s = suite_create("cm_gsi");
	TCase *tc = tcase_create("gsi");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_connect_over_frames);
	tcase_add_test(tc, test_rx_checks);
	tcase_add_test(tc, test_device_hook);
	tcase_add_test(tc, test_create_refuses);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(cm_gsi_suite)
