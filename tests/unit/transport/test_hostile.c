/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hostile.c — a hostile peer on the segment: frames with another
 * source or destination address than the QP's path, duplicate READs that
 * name more or other memory than the READ they repeat, and DMA lengths
 * above 2^31.  Each is dropped or NAKed as IBA and rxe do, and counted.
 */
#include <string.h>

#include "craft.h"
#include "sr_check.h"

/* The address a third party on the segment sends from. */
static void spoof_source(struct sr_build *b)
{
	b->sgid[15] ^= 0x40;
}

/* RC and UC: a WRITE from the peer's QPN and PSN but another address. */
START_TEST(test_write_from_another_address)
{
	static const enum sr_qp_type types[] = { SR_QPT_RC, SR_QPT_UC };
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint8_t pl[64];
	uint64_t cnt[SR_CNT_MAX];
	struct h_node *n1;
	int i;

	h_default_opts(&o, types[_i % 2]);
	o.ipv6 = _i >= 2;
	h_pair_init(&p, &o);
	n1 = &p.n[1];
	sim_set_tap(p.net, cap_tap, &cap);
	memset(n1->buf, 0, 256);
	memset(pl, 0xee, sizeof(pl));
	for (i = 0; i < 2; i++) {
		craft_init(&p, 0, &b, o.type == SR_QPT_RC ?
			   SR_OPCODE(RC, WRITE_ONLY) : SR_OPCODE(UC, WRITE_ONLY),
			   o.psn0);
		b.ackreq = true;
		b.reth_va = (uint64_t)(uintptr_t)n1->buf;
		b.reth_rkey = sr_mr_rkey(n1->mr);
		b.reth_len = sizeof(pl);
		if (i == 0)
			spoof_source(&b);
		else    /* from the peer, but to another of our addresses */
			b.dgid[15] ^= 0x40;
		craft_send(&p, 0, &b, pl, sizeof(pl));
		settle(&p);
	}
	ck_assert_int_eq(cap.n, 0);                  /* no ACK, no NAK */
	for (i = 0; i < 64; i++)
		ck_assert_uint_eq(n1->buf[i], 0);    /* memory untouched */
	ck_assert_int_eq(sr_qp_state(n1->qp), SR_QPS_RTS);
	sr_qp_counters(n1->qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_ADDR_DROP], 2);
	sr_dev_counters(n1->dev, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_ADDR_DROP], 2);

	/* the same WRITE from the peer's own address is executed */
	craft_init(&p, 0, &b, o.type == SR_QPT_RC ? SR_OPCODE(RC, WRITE_ONLY) :
		   SR_OPCODE(UC, WRITE_ONLY), o.psn0);
	b.ackreq = true;
	b.reth_va = (uint64_t)(uintptr_t)n1->buf;
	b.reth_rkey = sr_mr_rkey(n1->mr);
	b.reth_len = sizeof(pl);
	craft_send(&p, 0, &b, pl, sizeof(pl));
	settle(&p);
	ck_assert_uint_eq(n1->buf[0], 0xee);
	ck_assert_uint_eq(n1->buf[63], 0xee);
	h_pair_fini(&p);
}
END_TEST

/* A READ from another address must not aim responses at the real peer. */
START_TEST(test_read_from_another_address)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint64_t cnt[SR_CNT_MAX];

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	craft_init(&p, 0, &b, SR_OPCODE(RC, READ_REQUEST), o.psn0);
	b.reth_va = (uint64_t)(uintptr_t)p.n[1].buf;
	b.reth_rkey = sr_mr_rkey(p.n[1].mr);
	b.reth_len = 4096;
	spoof_source(&b);
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 0);
	sr_qp_counters(p.n[1].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_ADDR_DROP], 1);
	ck_assert_uint_eq(cnt[SR_CNT_TX_PKTS], 0);
	h_pair_fini(&p);
}
END_TEST

/* An ACK from another address completes nothing; the peer's does. */
START_TEST(test_ack_from_another_address)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 0 };
	struct sr_build b;
	struct sr_wc wc;
	uint64_t cnt[SR_CNT_MAX];

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0,
				     SR_SEND_SIGNALED), 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 1);
	craft_init(&p, 1, &b, SR_OPCODE(RC, ACKNOWLEDGE), o.psn0);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	b.aeth_msn = 1;
	spoof_source(&b);
	craft_send(&p, 1, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, 1, &wc), 0);
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_ADDR_DROP], 1);
	craft_init(&p, 1, &b, SR_OPCODE(RC, ACKNOWLEDGE), o.psn0);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	b.aeth_msn = 1;
	craft_send(&p, 1, &b, NULL, 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);
	h_pair_fini(&p);
}
END_TEST

/*
 * Duplicates of a 64-byte READ: only what lies within it is answered
 * again; one that names 8 KiB, another R_Key, memory before or after it,
 * or a VA that does not match its PSN is dropped — 2001 of them cost no
 * response at all.
 */
START_TEST(test_duplicate_read_within_original)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint64_t cnt[SR_CNT_MAX], base;
	struct h_node *n1;
	uint32_t psn;
	int i;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_256;
	h_pair_init(&p, &o);
	n1 = &p.n[1];
	sim_set_tap(p.net, cap_tap, &cap);
	psn = o.psn0;
	base = (uint64_t)(uintptr_t)n1->buf + 4096;
	/* the original: 64 B, one response */
	craft_init(&p, 0, &b, SR_OPCODE(RC, READ_REQUEST), psn);
	b.reth_va = base;
	b.reth_rkey = sr_mr_rkey(n1->mr);
	b.reth_len = 64;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 1);
	ck_assert_uint_eq(cap.op[0], SR_OPCODE(RC, READ_RESPONSE_ONLY));

	/* 2001 duplicates asking 8 KiB from the same place */
	cap.n = 0;
	b.reth_len = 8192;
	for (i = 0; i < 2001; i++) {
		craft_send(&p, 0, &b, NULL, 0);
		settle(&p);
	}
	ck_assert_int_eq(cap.n, 0);
	/* another R_Key, memory before, memory after */
	b.reth_len = 64;
	b.reth_rkey ^= 0x55;
	craft_send(&p, 0, &b, NULL, 0);
	b.reth_rkey = sr_mr_rkey(n1->mr);
	b.reth_va = base - 8;
	craft_send(&p, 0, &b, NULL, 0);
	b.reth_va = base + 8;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 0);
	sr_qp_counters(n1->qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_REQ_DUP_DROP], 2004);

	/* the duplicate itself, and a tail of it, are answered again */
	b.reth_va = base;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	b.reth_va = base + 16;
	b.reth_len = 48;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 2);
	ck_assert_uint_eq(cap.psn[0], psn & 0xffffff);
	ck_assert_uint_eq(cap.plen[0], 64);
	ck_assert_uint_eq(cap.plen[1], 48);
	ck_assert_int_eq(sr_qp_state(n1->qp), SR_QPS_RTS);
	h_pair_fini(&p);
}
END_TEST

/*
 * A 1000-byte READ (4 responses at MTU 256) resumed from its third PSN
 * names the VA two MTUs in and is answered from there; a resumption whose
 * responses would run past the original's last PSN is dropped.
 */
START_TEST(test_duplicate_read_resume_rules)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint64_t base;
	uint32_t psn;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_256;
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	psn = o.psn0;
	base = (uint64_t)(uintptr_t)p.n[1].buf;
	craft_read(&p, psn, 0, 1000);
	settle(&p);
	ck_assert_int_eq(cap.n, 4);
	cap.n = 0;
	craft_init(&p, 0, &b, SR_OPCODE(RC, READ_REQUEST), psn + 2);
	b.reth_rkey = sr_mr_rkey(p.n[1].mr);
	b.reth_va = base + 256;           /* 3 responses from the 3rd PSN */
	b.reth_len = 1000 - 256;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 0);
	b.reth_va = base + 512;           /* right, answered: 2 responses */
	b.reth_len = 1000 - 512;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 2);
	ck_assert_uint_eq(cap.op[0], SR_OPCODE(RC, READ_RESPONSE_FIRST));
	ck_assert_uint_eq(cap.psn[0], (psn + 2) & 0xffffff);
	ck_assert_uint_eq(cap.op[1], SR_OPCODE(RC, READ_RESPONSE_LAST));
	ck_assert_uint_eq(cap.psn[1], (psn + 3) & 0xffffff);
	ck_assert_uint_eq(cap.plen[1], 1000 - 768);
	h_pair_fini(&p);
}
END_TEST

/*
 * DMA lengths above 2^31 are Invalid Request; exactly 2^31 is a legal
 * length that this small region cannot give: Remote Access Error.
 */
static const struct {
	uint8_t opcode;
	uint32_t len;
	uint8_t want;
} big_cases[] = {
	{ SR_OPCODE(RC, READ_REQUEST), 0x80000001u, NAK(INVALID_REQ) },
	{ SR_OPCODE(RC, READ_REQUEST), 0xffffffffu, NAK(INVALID_REQ) },
	{ SR_OPCODE(RC, WRITE_FIRST), 0x80000001u, NAK(INVALID_REQ) },
	{ SR_OPCODE(RC, READ_REQUEST), 0x80000000u, NAK(REMOTE_ACCESS) },
	{ SR_OPCODE(RC, WRITE_FIRST), 0x80000000u, NAK(REMOTE_ACCESS) },
};

START_TEST(test_dma_length_above_2g)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint8_t pl[1024] = { 0 };

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_1024;
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	craft_init(&p, 0, &b, big_cases[_i].opcode, o.psn0);
	b.ackreq = true;
	b.reth_va = (uint64_t)(uintptr_t)p.n[1].buf;
	b.reth_rkey = sr_mr_rkey(p.n[1].mr);
	b.reth_len = big_cases[_i].len;
	craft_send(&p, 0, &b, pl,
		   big_cases[_i].opcode == SR_OPCODE(RC, WRITE_FIRST) ? 1024 : 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 1);
	ck_assert_uint_eq(cap.syn[0], big_cases[_i].want);
	ck_assert_int_eq(sr_qp_state(p.n[1].qp), SR_QPS_ERR);
	h_pair_fini(&p);
}
END_TEST

/*
 * A link that never takes the requester's frames (down, or frames larger
 * than it carries): the retransmit timer runs anyway and the WR ends in
 * RETRY_EXC, the QP in ERR — not a requester that waits forever.
 */
START_TEST(test_requester_times_out_on_a_refusing_link)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	uint64_t cnt[SR_CNT_MAX];

	h_default_opts(&o, SR_QPT_RC);
	o.retry = 2;
	o.timeout = 10;    /* 4.19 ms */
	h_pair_init(&p, &o);
	sim_set_tx_room(p.net, 0, 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 64, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_RETRY_EXC_ERR);
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_TX_PKTS], 0);
	ck_assert_uint_eq(cnt[SR_CNT_TIMEOUT], 3);
	ck_assert_uint_eq(cnt[SR_CNT_RETRY_EXC], 1);
	ck_assert_int_eq(sr_qp_state(p.n[0].qp), SR_QPS_ERR);
	sim_set_tx_room(p.net, 0, -1);
	h_pair_fini(&p);
}
END_TEST

Suite *transport_hostile_suite(void);
Suite *transport_hostile_suite(void)
{
	Suite *s = suite_create("transport_hostile");
	TCase *t = tcase_create("hostile");

	tcase_add_loop_test(t, test_write_from_another_address, 0, 4);
	tcase_add_test(t, test_read_from_another_address);
	tcase_add_test(t, test_ack_from_another_address);
	tcase_add_test(t, test_duplicate_read_within_original);
	tcase_add_test(t, test_duplicate_read_resume_rules);
	tcase_add_test(t, test_requester_times_out_on_a_refusing_link);
	tcase_add_loop_test(t, test_dma_length_above_2g, 0,
			    sizeof(big_cases) / sizeof(big_cases[0]));
	suite_add_tcase(s, t);
	return s;
}

SR_CHECK_MAIN(transport_hostile_suite)
