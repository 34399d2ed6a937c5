/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_slowstart.c — the requester after a loss (issue 20, point 5): a
 * timeout or a sequence NAK restarts the QP with SR_CWND_RESTART PSNs in
 * flight, and the window grows again as ACKs return.  Before, every loss
 * resent the whole 128-PSN window at once; behind a small queue that lost
 * it again at every timeout until retry_cnt ran out.
 */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "sr_check.h"
#include "transport/transport.h"
#include "wire/parse.h"
#include "wire/psn.h"

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

/*
 * What the requester sends between a retransmission and the next answer
 * from the responder: the burst a loss causes.
 */
struct burst_log {
	uint32_t psn0;
	uint32_t max_next;        /* one past the highest request PSN seen */
	bool seen;
	uint32_t sent;            /* request packets (first sends) */
	uint32_t drop_from;       /* drop first sends from this index ... */
	uint32_t drop_to;         /* ... up to (not incl.) this one */
	int phase;                /* 0 before a resend, 1 in it, 2 after */
	uint32_t burst;           /* requests from the resend to the answer */
	uint32_t max_ahead_after; /* most PSNs in flight after the answer */
	uint32_t acked;           /* one past the last ACKed PSN */
};

static bool burst_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct burst_log *l = ctx;
	struct sr_pkt pkt;
	uint32_t psn;

	ck_assert_int_eq(sr_parse_eth(frame, *len, 0, &pkt), SR_PARSE_OK);
	psn = sr_bth_psn(sr_pkt_bth(&pkt));
	if (from == 1) {
		if (l->phase == 1)
			l->phase = 2;
		if (pkt.opcode == SR_OPCODE(RC, ACKNOWLEDGE))
			l->acked = sr_psn_add(psn, 1);
		return true;
	}
	if (l->seen && sr_psn_before(psn, l->max_next)) {
		if (l->phase == 0)
			l->phase = 1;       /* the first retransmission */
	} else {
		l->max_next = sr_psn_add(psn, 1);
		l->seen = true;
		l->sent++;
		if (l->sent > l->drop_from && l->sent <= l->drop_to)
			return false;
	}
	if (l->phase == 1)
		l->burst++;
	if (l->phase == 2) {
		uint32_t ahead = (uint32_t)sr_psn_diff(psn, l->acked) + 1;

		if (ahead > l->max_ahead_after)
			l->max_ahead_after = ahead;
	}
	return true;
}

static void burst_case(uint32_t drop_from, uint32_t drop_to,
		       unsigned int want)
{
	const uint32_t len = 1u << 20;     /* 1024 packets at MTU 1024 */
	struct burst_log l = { 0 };
	uint64_t cnt[SR_CNT_MAX];
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.buflen = 2 * len;
	o.timeout = 10;                     /* 4 ms */
	h_pair_init(&p, &o);
	l.psn0 = o.psn0;
	l.acked = o.psn0;
	l.drop_from = drop_from;
	l.drop_to = drop_to;
	sim_set_tap(p.net, burst_tap, &l);
	fill(p.n[0].buf, len, 5);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, len, len,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 10000000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf + len, p.n[0].buf, len);
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_gt(cnt[want], 0);
	/* the resend was SR_CWND_RESTART packets, not the window (128) */
	ck_assert_int_eq(l.phase, 2);
	ck_assert_uint_ge(l.burst, 1);
	ck_assert_uint_le(l.burst, SR_CWND_RESTART);
	/* ... and the window opened again as ACKs came back */
	ck_assert_uint_gt(l.max_ahead_after, 4 * SR_CWND_RESTART);
	h_settle(&p);
	h_pair_fini(&p);
}

/* a whole window lost: the timeout resends 4 packets, not 128 */
START_TEST(test_timeout_restarts_small)
{
	burst_case(16, 16 + SR_MAX_UNACKED, SR_CNT_TIMEOUT);
}
END_TEST

/* one packet lost: the sequence NAK restarts small too */
START_TEST(test_seq_nak_restarts_small)
{
	burst_case(200, 201, SR_CNT_SEQ_NAK_RCVD);
}
END_TEST

/*
 * A bottleneck in front of the responder: a FIFO of q_max frames drained
 * one frame per drain_ns of simulated time, tail drop.  The tap decides
 * at arrival (the frame itself is not delayed; only the drops matter).
 */
struct queue_tap {
	struct sim_net *net;
	uint64_t drain_ns;
	uint32_t q_max;
	uint64_t last_depart;
	uint64_t drops, passed;
};

static bool queue_tap_fn(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct queue_tap *t = ctx;
	uint64_t now = sim_now(t->net), start;

	(void)frame;
	(void)len;
	if (from != 0)
		return true;
	if (t->last_depart > now &&
	    (t->last_depart - now) / t->drain_ns >= t->q_max) {
		t->drops++;
		return false;
	}
	start = t->last_depart > now ? t->last_depart : now;
	t->last_depart = start + t->drain_ns;
	t->passed++;
	return true;
}

/*
 * A 4 MiB WRITE behind a 16-frame queue with retry_cnt 7.  Before slow
 * start each loss sent the 128-packet window into the queue again, most
 * of it was dropped again, and the tail of every burst (with the AckReq)
 * was lost, so recovery waited for timeouts.
 */
START_TEST(test_small_queue_completes)
{
	const uint32_t len = 4u << 20;
	struct queue_tap t = { 0 };
	uint64_t cnt[SR_CNT_MAX];
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.buflen = 2 * len;
	o.timeout = 10;
	o.retry = 7;
	o.sim.delay_ns = 10000;
	h_pair_init(&p, &o);
	t.net = p.net;
	t.drain_ns = 2000;
	t.q_max = 16;
	sim_set_tap(p.net, queue_tap_fn, &t);
	fill(p.n[0].buf, len, 11);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, len, len,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 50000000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf + len, p.n[0].buf, len);
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_RETRY_EXC], 0);
	ck_assert_uint_gt(t.drops, 0);      /* the queue did overflow */
	/*
	 * Go-back-N's waste stays small: at most a quarter more frames
	 * through the queue than the 4096 needed, and losses are found by
	 * sequence NAKs, not timeouts.  Before slow start (same seed): 7163
	 * frames passed, 51898 dropped, 161 timeouts, 685 ms simulated; with
	 * it 4523 passed, 308 dropped, 1 timeout, 15 ms.
	 */
	ck_assert_uint_le(t.passed, len / 1024 + len / 4096);
	ck_assert_uint_le(cnt[SR_CNT_TIMEOUT], 4);
	ck_assert_uint_gt(cnt[SR_CNT_SEQ_NAK_RCVD], 0);
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

/*
 * Sixteen QPs, 64 KiB WRITE each, behind the same 16-frame queue, with
 * retry_cnt 7 (cc_storm on the simulated wire).  A QP recovering from a
 * loss has one packet in flight; while the others keep the queue full it
 * is mostly dropped, and with only the 4.2 ms timer to find that out, a QP
 * lost its resend 8 times running and failed with RETRY_EXC.  Probes
 * (comp.c) resend it sooner without spending retry_cnt, and every round
 * lets another QP go first (core/dev.c).
 */
#define NQ 16
START_TEST(test_many_qps_small_queue)
{
	const uint32_t len = 64 * 1024;
	struct queue_tap t = { 0 };
	struct sr_qp *qa[NQ], *qb[NQ];
	uint64_t cnt[SR_CNT_MAX], probes = 0, timeouts = 0;
	struct sr_wc wc[NQ];
	bool seen[NQ] = { false };
	struct h_pair p;
	struct h_opts o;

	h_default_opts(&o, SR_QPT_RC);
	o.buflen = 2 * NQ * len;
	o.cqe = 4 * NQ;
	o.timeout = 14;                     /* 67 ms, as perftest */
	o.retry = 7;
	o.sim.delay_ns = 10000;
	h_pair_init(&p, &o);
	for (int k = 0; k < NQ; k++) {
		struct sr_qp *s0 = p.n[0].qp, *s1 = p.n[1].qp;

		for (int i = 0; i < 2; i++) {
			struct sr_qp_init_attr init = {
				.send_cq = p.n[i].scq, .recv_cq = p.n[i].rcq,
				.pd = p.n[i].pd, .qp_type = SR_QPT_RC,
				.cap = { .max_send_wr = 4, .max_recv_wr = 4,
					 .max_send_sge = 1, .max_recv_sge = 1 },
			};

			p.n[i].qp = sr_qp_create(p.n[i].dev, &init);
			ck_assert_ptr_nonnull(p.n[i].qp);
		}
		qa[k] = p.n[0].qp;
		qb[k] = p.n[1].qp;
		h_connect(&p, 0);
		h_connect(&p, 1);
		p.n[0].qp = s0;
		p.n[1].qp = s1;
	}
	h_settle(&p);
	t.net = p.net;
	t.drain_ns = 2000;
	t.q_max = 16;
	sim_set_tap(p.net, queue_tap_fn, &t);
	fill(p.n[0].buf, NQ * len, 23);
	for (int k = 0; k < NQ; k++) {
		struct sr_qp *s0 = p.n[0].qp;

		p.n[0].qp = qa[k];
		ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, (uint64_t)k,
					     (uint32_t)k * len, len,
					     NQ * len + (uint32_t)k * len,
					     SR_SEND_SIGNALED), 0);
		p.n[0].qp = s0;
	}
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, NQ, 50000000), NQ);
	for (int k = 0; k < NQ; k++) {
		ck_assert_int_eq(wc[k].status, SR_WC_SUCCESS);
		ck_assert(!seen[wc[k].wr_id]);
		seen[wc[k].wr_id] = true;
		sr_qp_counters(qa[k], cnt);
		ck_assert_uint_eq(cnt[SR_CNT_RETRY_EXC], 0);
		probes += cnt[SR_CNT_PROBE];
		timeouts += cnt[SR_CNT_TIMEOUT];
	}
	printf("many_qps_small_queue: %llu passed, %llu dropped, "
	       "%llu timeouts, %llu probes, %.1f ms simulated\n",
	       (unsigned long long)t.passed, (unsigned long long)t.drops,
	       (unsigned long long)timeouts, (unsigned long long)probes,
	       (double)sim_now(p.net) / 1e6);
	fflush(stdout);
	ck_assert_mem_eq(p.n[1].buf + NQ * len, p.n[0].buf, NQ * len);
	ck_assert_uint_gt(t.drops, 0);      /* the queue did overflow */
	ck_assert_uint_gt(probes, 0);       /* and QPs recovered by probes */
	sim_set_tap(p.net, NULL, NULL);
	h_settle(&p);
	for (int k = 0; k < NQ; k++) {
		ck_assert_int_eq(sr_qp_destroy(qa[k]), 0);
		ck_assert_int_eq(sr_qp_destroy(qb[k]), 0);
	}
	h_pair_fini(&p);
}
END_TEST

static Suite *slowstart_suite(void)
{
	Suite *s = suite_create("transport_slowstart");
	TCase *tc = tcase_create("slowstart");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_timeout_restarts_small);
	tcase_add_test(tc, test_seq_nak_restarts_small);
	tcase_add_test(tc, test_small_queue_completes);
	tcase_add_test(tc, test_many_qps_small_queue);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(slowstart_suite)
