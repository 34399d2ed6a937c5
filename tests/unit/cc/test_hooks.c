/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Notification and reaction point over the simulated wire: a switch (the
 * tap) marks node 0's packets CE; node 1 answers with CNPs, at most one per
 * interval; node 0's DCQCN slows the QP.  Congestion control off: CE only
 * counted, CNPs dropped and counted (as rxe).  CNPs to UD QPs and unknown
 * QPs are dropped and counted.
 */
#include "sr_check.h"
#include "cc/dcqcn.h"
#include "cc/hooks.h"
#include "cc/pacer.h"
#include "harness.h"
#include "wire/cnp.h"
#include "wire/endian.h"

#include <errno.h>
#include <string.h>

struct marker {
	unsigned int marked;    /* frames of node 0 marked CE */
	unsigned int cnps;      /* CNPs seen on the wire, from node 1 */
	bool cnp_ok;            /* every CNP had BECN, PSN 0, Not-ECT */
};

static bool tap(void *ctx, int from, uint8_t *f, uint32_t *len)
{
	struct marker *m = ctx;
	struct sr_pkt p;
	uint8_t *ip;
	uint32_t sum = 0;

	if (sr_parse_eth(f, *len, 0, &p) != SR_PARSE_OK)
		return true;
	if (p.opcode == SR_OPCODE_CNP) {
		const struct sr_bth *bth = sr_pkt_bth(&p);

		m->cnps++;
		if (from != 1 || sr_bth_psn(bth) != 0 ||
		    sr_bth_fecn_becn(bth) != SR_BTH_BECN ||
		    sr_pkt_ecn(&p) != SR_ECN_NOT_ECT)
			m->cnp_ok = false;
		return true;
	}
	if (from != 0 || sr_pkt_ecn(&p) == SR_ECN_NOT_ECT)
		return true;
	ip = f + p.l3;                  /* IPv4: mark and redo the checksum */
	ip[1] |= SR_ECN_CE;
	ip[10] = ip[11] = 0;
	for (int i = 0; i < 20; i += 2)
		sum += sr_get_be16(ip + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sr_put_be16(ip + 10, (uint16_t)~sum);
	m->marked++;
	return true;
}

static uint64_t cnt(struct sr_qp *qp, enum sr_counter c)
{
	uint64_t v[SR_CNT_MAX];

	sr_qp_counters(qp, v);
	return v[c];
}

static void write_len(struct h_pair *p, uint32_t len)
{
	struct sr_wc wc;

	ck_assert_int_eq(h_post_send(p, 0, SR_WR_RDMA_WRITE, 1, 0, len, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(p, p->n[0].scq, &wc, 1, 1000000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_settle(p);
}

static void write_64k(struct h_pair *p)
{
	write_len(p, 65536);
}

static void pair_rate(struct h_pair *p, struct marker *m,
		      const struct sr_dcqcn_params *cc0,
		      const struct sr_dcqcn_params *cc1, uint8_t static_rate)
{
	struct h_opts o;

	h_default_opts(&o, SR_QPT_RC);
	o.static_rate[0] = static_rate;
	o.buflen = 1 << 17;
	o.mtu = SR_MTU_1024;
	o.ecn = SR_ECN_ECT0;
	o.cc[0] = cc0;
	o.cc[1] = cc1;
	h_pair_init(p, &o);
	*m = (struct marker){ .cnp_ok = true };
	sim_set_tap(p->net, tap, m);
}

static void pair(struct h_pair *p, struct marker *m,
		 const struct sr_dcqcn_params *cc0,
		 const struct sr_dcqcn_params *cc1)
{
	pair_rate(p, m, cc0, cc1, 0);
}

/* With a long interval exactly one CNP answers a burst of CE marks. */
START_TEST(one_cnp_per_interval)
{
	struct sr_dcqcn_params cc = SR_DCQCN_PARAMS_DEFAULT;
	struct h_pair p;
	struct marker m;
	struct sr_qp *q0, *q1;

	cc.min_time_between_cnps = 1000000;   /* 1 s */
	pair(&p, &m, &cc, &cc);
	q0 = p.n[0].qp;
	q1 = p.n[1].qp;
	write_64k(&p);
	ck_assert_uint_ge(m.marked, 64);
	ck_assert_uint_eq(cnt(q1, SR_CNT_CE_RCVD), m.marked);
	ck_assert_uint_eq(cnt(q1, SR_CNT_CNP_SENT), 1);
	ck_assert_uint_eq(m.cnps, 1);
	ck_assert(m.cnp_ok);
	ck_assert_uint_eq(cnt(q0, SR_CNT_CNP_RCVD), 1);
	ck_assert_uint_eq(cnt(q0, SR_CNT_CNP_DROP), 0);
	ck_assert_uint_lt(sr_qp_cc_rate(q0), 100000000000ull);
	ck_assert_uint_eq(sr_qp_cc_rate(q1), 100000000000ull);
	h_pair_fini(&p);
}
END_TEST

/* Interval 0: every CE mark is answered, and every CNP reaches DCQCN. */
START_TEST(every_ce_answered_without_interval)
{
	struct sr_dcqcn_params cc = SR_DCQCN_PARAMS_DEFAULT;
	struct h_pair p;
	struct marker m;

	cc.min_time_between_cnps = 0;
	pair(&p, &m, &cc, &cc);
	write_64k(&p);
	ck_assert_uint_eq(cnt(p.n[1].qp, SR_CNT_CNP_SENT), m.marked);
	ck_assert_uint_eq(m.cnps, m.marked);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_RCVD), m.marked);
	ck_assert(m.cnp_ok);
	h_pair_fini(&p);
}
END_TEST

/* Congestion control off at the receiver: CE counted, no CNP.  Off at the
 * sender (an rxe-like peer): CNPs dropped and counted, the rate untouched. */
START_TEST(cc_off)
{
	const struct sr_dcqcn_params cc = SR_DCQCN_PARAMS_DEFAULT;
	struct h_pair p;
	struct marker m;

	pair(&p, &m, &cc, NULL);
	write_64k(&p);
	ck_assert_uint_eq(cnt(p.n[1].qp, SR_CNT_CE_RCVD), m.marked);
	ck_assert_uint_eq(cnt(p.n[1].qp, SR_CNT_CNP_SENT), 0);
	ck_assert_uint_eq(m.cnps, 0);
	h_pair_fini(&p);

	pair(&p, &m, NULL, &cc);
	write_64k(&p);
	ck_assert_uint_gt(m.cnps, 0);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_DROP), m.cnps);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_RCVD), 0);
	ck_assert_uint_eq(sr_qp_cc_rate(p.n[0].qp), 100000000000ull);
	h_pair_fini(&p);
}
END_TEST

/* The burst of a paced QP follows its rate: 0.5 ms of it, one MTU at
 * least, 64 KiB at most (a fixed 64 KiB overran a switch's queue). */
START_TEST(burst_follows_rate)
{
	ck_assert_uint_eq(sr_cc_burst(100000000, 1024), 6250);
	ck_assert_uint_eq(sr_cc_burst(1000000000, 4096), 62500);
	ck_assert_uint_eq(sr_cc_burst(1000000, 1024), 1024);     /* floor */
	ck_assert_uint_eq(sr_cc_burst(1000000, 0), 4096);
	ck_assert_uint_eq(sr_cc_burst(100000000000ull, 1024), 65536);
	ck_assert_uint_eq(sr_cc_burst(SR_PACER_MAX_RATE, 4096), 65536);
}
END_TEST

/* After a CNP the requester sends at DCQCN's rate: one CNP sets 100
 * Mbit/s (rate_to_set_on_first_cnp, no recovery within the test), so 128
 * KiB take at least (128 KiB - the burst at that rate, 6250 bytes) * 8 /
 * 100 Mbit/s of the simulated clock (with the old fixed 64 KiB burst,
 * 5.24 ms); without congestion control far less. */
START_TEST(requester_paced_to_dcqcn_rate)
{
	struct sr_dcqcn_params cc = SR_DCQCN_PARAMS_DEFAULT;
	struct h_pair p;
	struct marker m;
	uint64_t t0, paced, free_run;

	cc.rate_to_set_on_first_cnp = 100;
	cc.rpg_time_reset = 10000000;
	cc.rpg_byte_reset = 1u << 31;
	cc.min_time_between_cnps = 10000000;
	pair(&p, &m, &cc, &cc);
	write_64k(&p);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_RCVD), 1);
	ck_assert_uint_eq(sr_qp_cc_rate(p.n[0].qp), 100000000);
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	paced = sim_now(p.net) - t0;
	ck_assert_uint_eq(cnt(p.n[1].qp, SR_CNT_CNP_SENT), 1);
	/* the stats file's rate: the pacer's, not the line's */
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 100000000);
	h_pair_fini(&p);

	pair(&p, &m, NULL, NULL);
	write_64k(&p);
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 100000000000ull);
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	free_run = sim_now(p.net) - t0;
	h_pair_fini(&p);

	ck_assert_msg(paced >= (131072ull - 6250) * 8 * 10, "paced %llu ns",
		      (unsigned long long)paced);   /* 9.99 ms */
	ck_assert_msg(paced < 131072ull * 8 * 10 * 2, "paced %llu ns",
		      (unsigned long long)paced);
	ck_assert_msg(free_run < 1000000, "free %llu ns",
		      (unsigned long long)free_run);
}
END_TEST

/* An explicit limit paces the same way, with no CNP at all, and the
 * smaller of limit and DCQCN rate wins; 0 lifts it. */
START_TEST(explicit_rate_limit)
{
	struct h_pair p;
	struct marker m;
	uint64_t t0, paced, lifted;

	pair(&p, &m, NULL, NULL);
	sim_set_tap(p.net, NULL, NULL);
	ck_assert_int_eq(sr_qp_set_rate_limit(p.n[0].qp, 100000000), 0);
	write_64k(&p);                         /* empties the burst */
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	paced = sim_now(p.net) - t0;
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 100000000);
	ck_assert_int_eq(sr_qp_set_rate_limit(p.n[0].qp, 0), 0);
	h_settle(&p);
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	lifted = sim_now(p.net) - t0;
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 100000000000ull);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_RCVD), 0);
	ck_assert_int_eq(sr_qp_set_rate_limit(p.n[0].qp, SR_PACER_MAX_RATE + 1), -EINVAL);
	ck_assert_int_eq(sr_qp_set_rate_limit(NULL, 1), -EINVAL);
	h_pair_fini(&p);
	/* 128 KiB at 100 Mbit/s: 10.5 ms (the burst went to the first write). */
	ck_assert_msg(paced >= 131072ull * 8 * 10 * 9 / 10, "paced %llu ns",
		      (unsigned long long)paced);
	ck_assert_msg(lifted < 1000000, "lifted %llu ns", (unsigned long long)lifted);
}
END_TEST

/* A QP paced far below the line still has its packets acknowledged well
 * within the retransmit timeout: at 2 Mbit/s, 64 packets of 1 KiB (the
 * AckReq spacing of an unpaced QP) take 262 ms, four times the 67 ms
 * timeout, and every such stretch timed out and was resent (16 QPs
 * sharing 100 Mbit/s ended in RETRY_EXC that way).  A paced QP asks for
 * an ACK once per burst. */
START_TEST(slow_pace_no_timeout)
{
	struct h_pair p;
	struct marker m;
	uint64_t t0, took;

	pair(&p, &m, NULL, NULL);
	sim_set_tap(p.net, NULL, NULL);
	ck_assert_int_eq(sr_qp_set_rate_limit(p.n[0].qp, 2000000), 0);
	write_len(&p, 4096);                   /* empties the burst */
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	took = sim_now(p.net) - t0;
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_TIMEOUT), 0);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_RETRY), 0);
	h_pair_fini(&p);
	/* 128 KiB at 2 Mbit/s: 524 ms */
	ck_assert_msg(took >= 131072ull * 8 * 500 * 9 / 10, "took %llu ns",
		      (unsigned long long)took);
}
END_TEST

/* The address vector's static rate (IBV_RATE_2_5_GBPS = 2) paces a
 * connected QP as an explicit limit does; with both, the lower wins; the
 * QP's query gives it back. */
START_TEST(static_rate_paces)
{
	struct h_pair p;
	struct marker m;
	struct sr_qp_attr a;
	uint64_t t0, paced;

	pair_rate(&p, &m, NULL, NULL, 2);
	sim_set_tap(p.net, NULL, NULL);
	ck_assert_int_eq(sr_qp_query(p.n[0].qp, &a, NULL), 0);
	ck_assert_uint_eq(a.av.static_rate, 2);
	write_64k(&p);                         /* empties the burst */
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	paced = sim_now(p.net) - t0;
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 2500000000ull);
	/* 128 KiB at 2.5 Gbit/s: 419 us */
	ck_assert_msg(paced >= 131072ull * 8 * 10 / 25 * 9 / 10, "paced %llu ns",
		      (unsigned long long)paced);
	/* an explicit limit under it wins; over it, the static rate does */
	ck_assert_int_eq(sr_qp_set_rate_limit(p.n[0].qp, 100000000), 0);
	write_len(&p, 4096);
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 100000000);
	ck_assert_int_eq(sr_qp_set_rate_limit(p.n[0].qp, 10000000000ull), 0);
	write_len(&p, 4096);
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 2500000000ull);
	/* the other side, no static rate: the line */
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[1].qp), 100000000000ull);
	h_pair_fini(&p);
}
END_TEST

/* A device set to a link slower than its port (line_paced, the pmd's
 * line_rate) paces every QP to the line with no CNP and no limit; DCQCN
 * cuts from that line; without line_paced the same line_bps only sizes
 * DCQCN and the QP runs free. */
START_TEST(line_rate_paces)
{
	struct sr_dcqcn_params cc = SR_DCQCN_PARAMS_DEFAULT;
	struct h_opts o;
	struct h_pair p;
	uint64_t t0, paced, free_run;

	cc.min_time_between_cnps = 1000000;
	h_default_opts(&o, SR_QPT_RC);
	o.buflen = 1 << 17;
	o.mtu = SR_MTU_1024;
	o.cc[0] = o.cc[1] = &cc;
	o.line_bps[0] = o.line_bps[1] = 100000000;    /* 100 Mbit/s */
	o.line_paced[0] = o.line_paced[1] = true;
	h_pair_init(&p, &o);
	write_64k(&p);                         /* empties the burst */
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	paced = sim_now(p.net) - t0;
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 100000000);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_RCVD), 0);
	h_pair_fini(&p);
	/* 128 KiB at 100 Mbit/s: 10.5 ms, less one burst */
	ck_assert_msg(paced >= (131072ull - 6250) * 8 * 10, "paced %llu ns",
		      (unsigned long long)paced);

	o.line_paced[0] = o.line_paced[1] = false;
	h_pair_init(&p, &o);
	write_64k(&p);
	t0 = sim_now(p.net);
	write_len(&p, 131072);
	free_run = sim_now(p.net) - t0;
	ck_assert_uint_eq(sr_qp_tx_rate(p.n[0].qp), 100000000);  /* the line */
	h_pair_fini(&p);
	ck_assert_msg(free_run < 1000000, "free %llu ns",
		      (unsigned long long)free_run);
}
END_TEST

/* A CNP to a UD QP is dropped and counted; to no QP, an unknown-QP drop. */
START_TEST(cnp_bad_targets)
{
	const struct sr_dcqcn_params cc = SR_DCQCN_PARAMS_DEFAULT;
	static const uint8_t zeros[SR_CNP_PAYLOAD];
	struct h_opts o;
	struct h_pair p;
	struct sr_build b;
	uint8_t f[256];
	uint64_t before[SR_CNT_MAX], after[SR_CNT_MAX];
	int n;

	h_default_opts(&o, SR_QPT_UD);
	o.cc[0] = o.cc[1] = &cc;
	h_pair_init(&p, &o);
	memset(&b, 0, sizeof(b));
	memcpy(b.dmac, p.n[1].mac, 6);
	memcpy(b.smac, p.n[0].mac, 6);
	memcpy(b.sgid, p.n[0].gid, 16);
	memcpy(b.dgid, p.n[1].gid, 16);
	b.hop_limit = 64;
	b.opcode = SR_OPCODE_CNP;
	b.pkey = 0xffff;
	b.fecn_becn = SR_BTH_BECN;
	b.dqpn = sr_qp_num(p.n[1].qp);
	n = sr_build_frame(f, sizeof(f), &b, zeros, sizeof(zeros));
	ck_assert_int_gt(n, 0);
	sr_dev_rx(p.n[1].dev, f, (uint32_t)n);
	ck_assert_uint_eq(cnt(p.n[1].qp, SR_CNT_CNP_DROP), 1);
	ck_assert_uint_eq(cnt(p.n[1].qp, SR_CNT_CNP_RCVD), 0);

	sr_dev_counters(p.n[1].dev, before);
	b.dqpn = 0x7777;
	n = sr_build_frame(f, sizeof(f), &b, zeros, sizeof(zeros));
	sr_dev_rx(p.n[1].dev, f, (uint32_t)n);
	sr_dev_counters(p.n[1].dev, after);
	ck_assert_uint_eq(after[SR_CNT_UNKNOWN_QP], before[SR_CNT_UNKNOWN_QP] + 1);
	ck_assert_uint_eq(after[SR_CNT_CNP_DROP], before[SR_CNT_CNP_DROP]);
	h_pair_fini(&p);
}
END_TEST

/* A CNP from an address that is not the QP's peer is an address drop: a
 * third party cannot slow a QP down. */
START_TEST(forged_cnp)
{
	const struct sr_dcqcn_params cc = SR_DCQCN_PARAMS_DEFAULT;
	static const uint8_t zeros[SR_CNP_PAYLOAD];
	struct h_pair p;
	struct marker m;
	struct sr_build b;
	uint8_t f[256];
	int n;

	pair(&p, &m, &cc, &cc);
	memset(&b, 0, sizeof(b));
	memcpy(b.dmac, p.n[0].mac, 6);
	memcpy(b.smac, p.n[1].mac, 6);
	memcpy(b.sgid, p.n[1].gid, 16);
	b.sgid[15] = 99;                        /* not node 1 */
	memcpy(b.dgid, p.n[0].gid, 16);
	b.hop_limit = 64;
	b.opcode = SR_OPCODE_CNP;
	b.pkey = 0xffff;
	b.fecn_becn = SR_BTH_BECN;
	b.dqpn = sr_qp_num(p.n[0].qp);
	n = sr_build_frame(f, sizeof(f), &b, zeros, sizeof(zeros));
	ck_assert_int_gt(n, 0);
	sr_dev_rx(p.n[0].dev, f, (uint32_t)n);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_ADDR_DROP), 1);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_RCVD), 0);
	ck_assert_uint_eq(sr_qp_cc_rate(p.n[0].qp), 100000000000ull);
	/* The same CNP from the peer's address slows it. */
	b.sgid[15] = p.n[1].gid[15];
	n = sr_build_frame(f, sizeof(f), &b, zeros, sizeof(zeros));
	sr_dev_rx(p.n[0].dev, f, (uint32_t)n);
	ck_assert_uint_eq(cnt(p.n[0].qp, SR_CNT_CNP_RCVD), 1);
	ck_assert_uint_lt(sr_qp_cc_rate(p.n[0].qp), 100000000000ull);
	h_pair_fini(&p);
}
END_TEST

static Suite *hooks_suite(void)
{
	Suite *s = suite_create("cc_hooks");
	TCase *tc = tcase_create("hooks");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, one_cnp_per_interval);
	tcase_add_test(tc, every_ce_answered_without_interval);
	tcase_add_test(tc, cc_off);
	tcase_add_test(tc, burst_follows_rate);
	tcase_add_test(tc, requester_paced_to_dcqcn_rate);
	tcase_add_test(tc, line_rate_paces);
	tcase_add_test(tc, explicit_rate_limit);
	tcase_add_test(tc, slow_pace_no_timeout);
	tcase_add_test(tc, static_rate_paces);
	tcase_add_test(tc, forged_cnp);
	tcase_add_test(tc, cnp_bad_targets);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(hooks_suite)
