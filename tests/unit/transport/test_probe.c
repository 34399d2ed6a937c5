/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Probes (lib/transport/comp.c): a QP in loss recovery whose oldest PSN
 * goes unacknowledged for a round trip and four deviations (4 ms at least)
 * goes back N again, spending no retry.  The responder is crafted (node 1
 * never sees node 0's frames; the tests answer for it), the clock is the
 * simulated wire's.  Each test first has one message acknowledged at once,
 * so the QP has measured a (short) round trip and probes after 4 ms (P).
 *
 *   probe_before_timer      after a timeout, the lost resend is sent
 *                           again after P, then 2P more, 4P, 8P, and the
 *                           timer still comes T after the timeout
 *   no_probe_open_window    a QP that never lost waits the whole timer
 *   probe_after_idle        a QP still in recovery whose last message was
 *                           acknowledged probes its next one too
 *   no_probe_after_exc      a late engine visit with the timer and the
 *                           probe both due: RETRY_EXC, and no probe after
 *   rnr_then_probe_later    a probe does not follow an RNR retry at once
 *   probe_without_rtt       a QP that lost its first message (no round
 *                           trip measured) probes after T/8
 *   no_probe_read           a READ at the head: the timer only
 *   no_probe_deep_queue     a round trip of 40 ms (a deep queue on the
 *                           path): the wait would pass T/2, the timer only
 *   read_resend_backoff     a READ never answered while a neighbour QP
 *                           makes progress is resent at the 2nd and 4th
 *                           timeout only, and still fails at the 8th
 *                           (retry_cnt 7), with RETRY_EXC
 *   read_resend_alone       ... and without the neighbour, at every one
 *   read_series_restarts    a response is progress: the next timeouts
 *                           are a new series, resent at its 2nd
 *   read_gap_after_hold     a gap in the responses after a held timeout
 *                           resumes the READ at once (nothing was resent)
 */
#include "craft.h"
#include "sr_check.h"
#include "transport/transport.h"

#define TIMEOUT 14                               /* 67 ms, as perftest */
#define T_NS    (4096ull << TIMEOUT)
#define P_NS    SR_PROBE_MIN_NS                  /* 4 ms */

static void setup(struct h_pair *p, struct cap *cap, uint8_t retry)
{
	struct h_opts o;

	h_default_opts(&o, SR_QPT_RC);
	o.retry = retry;
	o.timeout = TIMEOUT;
	h_pair_init(p, &o);
	cap->swallow = 0;               /* node 0's frames stop at the tap */
	sim_set_tap(p->net, cap_tap, cap);
}

/*
 * One SEND acknowledged after rtt_ns: the QP's round trip measured.  The
 * next message's first PSN is psn0 + 1.
 */
static void warm(struct h_pair *p, struct cap *cap, uint64_t rtt_ns)
{
	struct sr_wc wc;
	int n0 = cap->n;

	ck_assert_int_eq(h_post_send(p, 0, SR_WR_SEND, 100, 0, 10, 0,
				     SR_SEND_SIGNALED), 0);
	while (cap->n == n0)
		ck_assert(sim_step(p->net));
	if (rtt_ns)
		sim_advance(p->net, rtt_ns);
	craft_ack(p, p->o.psn0, SR_AETH_CREDITS_INVALID, 1);
	ck_assert_int_eq(h_wait_cq(p, p->n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	settle(p);
}

/* Run the wire until node 0 sends a frame; the time it went. */
static uint64_t next_frame(struct h_pair *p, struct cap *cap)
{
	int n0 = cap->n;

	while (cap->n == n0)
		ck_assert(sim_step(p->net));
	return sim_now(p->net);
}

/* A SEND (wr_id 1) lost and resent by the timer, which puts the QP in
 * loss recovery; the time of the resend. */
static uint64_t lose_one(struct h_pair *p, struct cap *cap, int flags)
{
	ck_assert_int_eq(h_post_send(p, 0, SR_WR_SEND, 1, 0, 10, 0, flags), 0);
	next_frame(p, cap);
	return next_frame(p, cap);
}

static uint64_t counter(struct h_pair *p, enum sr_counter c)
{
	uint64_t cnt[SR_CNT_MAX];

	sr_qp_counters(p->n[0].qp, cnt);
	return cnt[c];
}

START_TEST(test_probe_before_timer)
{
	struct cap cap = { 0 };
	struct h_pair p;
	uint64_t t0, t[5];

	setup(&p, &cap, 7);
	warm(&p, &cap, 0);
	t0 = lose_one(&p, &cap, 0);              /* the timeout's resend */
	ck_assert_uint_eq(counter(&p, SR_CNT_TIMEOUT), 1);
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 0);
	for (int i = 0; i < 5; i++)
		t[i] = next_frame(&p, &cap) - t0;
	/* probes after P, 2P more, 4P, 8P (15P = 60 ms); 16P more would pass
	 * the timer, which comes T after the timeout: probes did not move it */
	for (int i = 0; i < 4; i++) {
		ck_assert_uint_ge(t[i], ((2ull << i) - 1) * P_NS);
		ck_assert_uint_lt(t[i], ((2ull << i) - 1) * P_NS + 1000000);
	}
	ck_assert_uint_ge(t[4], T_NS);
	ck_assert_uint_lt(t[4], T_NS + 1000000);
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 4);
	ck_assert_uint_eq(counter(&p, SR_CNT_TIMEOUT), 2);
	for (int i = 1; i < cap.n; i++)
		ck_assert_uint_eq(cap.psn[i], (p.o.psn0 + 1) & 0xffffff);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_no_probe_open_window)
{
	struct cap cap = { 0 };
	struct h_pair p;
	uint64_t t0, t1;

	setup(&p, &cap, 7);
	warm(&p, &cap, 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, 0), 0);
	t0 = next_frame(&p, &cap);
	t1 = next_frame(&p, &cap);
	ck_assert_uint_ge(t1 - t0, T_NS);
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 0);
	ck_assert_uint_eq(counter(&p, SR_CNT_TIMEOUT), 1);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_probe_after_idle)
{
	struct cap cap = { 0 };
	struct h_pair p;
	struct sr_wc wc;
	uint64_t t0, t1;

	setup(&p, &cap, 7);
	warm(&p, &cap, 0);
	lose_one(&p, &cap, SR_SEND_SIGNALED);    /* timeout: in recovery */
	craft_ack(&p, p.o.psn0 + 1, SR_AETH_CREDITS_INVALID, 2);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	settle(&p);
	/* nothing outstanding; the next message is lost */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 10, 0, 0), 0);
	t0 = next_frame(&p, &cap);
	t1 = next_frame(&p, &cap);
	ck_assert_uint_lt(t1 - t0, T_NS);        /* a probe, not the timer */
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 1);
	ck_assert_uint_eq(cap.psn[cap.n - 1], (p.o.psn0 + 2) & 0xffffff);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_no_probe_after_exc)
{
	struct cap cap = { 0 };
	struct h_pair p;
	struct sr_wc wc[2];

	setup(&p, &cap, 1);
	warm(&p, &cap, 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 10, 0, 0), 0);
	while (counter(&p, SR_CNT_TIMEOUT) == 0)
		ck_assert(sim_step(p.net));
	/* the engine comes late: the probe and the timer are both due */
	sim_advance(p.net, 2 * T_NS);
	sr_dev_poll(p.n[0].dev, 16);
	ck_assert_int_eq(sr_qp_state(p.n[0].qp), SR_QPS_ERR);
	ck_assert_uint_eq(counter(&p, SR_CNT_RETRY_EXC), 1);
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 0);
	ck_assert_uint_eq(counter(&p, SR_CNT_RETRY), 1);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 2, 1000), 2);
	ck_assert_int_eq(wc[0].status, SR_WC_RETRY_EXC_ERR);
	ck_assert_int_eq(wc[1].status, SR_WC_WR_FLUSH_ERR);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_rnr_then_probe_later)
{
	struct cap cap = { 0 };
	struct h_pair p;
	uint64_t t0, t1;

	setup(&p, &cap, 7);
	warm(&p, &cap, 0);
	lose_one(&p, &cap, 0);                   /* timeout: in recovery */
	/* RNR NAK, 3.84 ms: the RNR retry lands just before the probe was due */
	craft_ack(&p, p.o.psn0 + 1, SR_AETH_RNR_NAK | 17, 1);
	t0 = next_frame(&p, &cap);
	ck_assert_uint_eq(counter(&p, SR_CNT_RNR_RETRY), 1);
	t1 = next_frame(&p, &cap);
	ck_assert_uint_ge(t1 - t0, P_NS);        /* a probe's wait, again */
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_probe_without_rtt)
{
	struct cap cap = { 0 };
	struct h_pair p;
	uint64_t t0, t1;

	setup(&p, &cap, 7);
	t0 = lose_one(&p, &cap, 0);              /* timeout: in recovery */
	t1 = next_frame(&p, &cap);
	ck_assert_uint_ge(t1 - t0, T_NS / 8);
	ck_assert_uint_lt(t1 - t0, T_NS / 8 + 1000000);
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 1);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_no_probe_read)
{
	struct cap cap = { 0 };
	struct h_pair p;
	uint64_t t0, t1;

	setup(&p, &cap, 7);
	warm(&p, &cap, 0);
	lose_one(&p, &cap, 0);                   /* timeout: in recovery */
	craft_ack(&p, p.o.psn0 + 1, SR_AETH_CREDITS_INVALID, 2);
	settle(&p);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 0, 4096, 0, 0), 0);
	t0 = next_frame(&p, &cap);
	t1 = next_frame(&p, &cap);
	ck_assert_uint_ge(t1 - t0, T_NS);        /* the timer, no probe */
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 0);
	ck_assert_uint_eq(cap.op[cap.n - 1], SR_OPCODE(RC, READ_REQUEST));
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_no_probe_deep_queue)
{
	struct cap cap = { 0 };
	struct h_pair p;
	uint64_t t0, t1;

	setup(&p, &cap, 7);
	warm(&p, &cap, 40000000);                /* SRTT 40 ms, RTTVAR 20 */
	t0 = lose_one(&p, &cap, 0);              /* timeout: in recovery */
	t1 = next_frame(&p, &cap);
	ck_assert_uint_ge(t1 - t0, T_NS);
	ck_assert_uint_eq(counter(&p, SR_CNT_PROBE), 0);
	ck_assert_uint_eq(counter(&p, SR_CNT_TIMEOUT), 2);
	h_pair_fini(&p);
}
END_TEST

/*
 * A second QP pair on the same devices (the neighbour, on node 0's lane),
 * for the READ tests: node 0's frames never reach node 1, so its SENDs
 * are acknowledged by hand (nb_step).
 */
struct nb {
	struct sr_qp *a0, *a1;       /* the pair under test */
	struct sr_qp *b0, *b1;       /* the neighbour */
	uint32_t psn, msn;           /* its next SEND's PSN, its ACK's MSN */
	bool pending;                /* its SEND not yet acknowledged */
	int seen;                    /* cap entries looked at */
	int nread;
	uint64_t read_at[16];        /* when node 0 sent a READ request */
};

static void nb_init(struct h_pair *p, struct nb *nb)
{
	nb->a0 = p->n[0].qp;
	nb->a1 = p->n[1].qp;
	for (int i = 0; i < 2; i++) {
		struct sr_qp_init_attr init = {
			.send_cq = p->n[i].scq, .recv_cq = p->n[i].rcq,
			.pd = p->n[i].pd, .qp_type = SR_QPT_RC,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		p->n[i].qp = sr_qp_create(p->n[i].dev, &init);
		ck_assert_ptr_nonnull(p->n[i].qp);
	}
	h_connect(p, 0);
	h_connect(p, 1);
	nb->b0 = p->n[0].qp;
	nb->b1 = p->n[1].qp;
	nb->psn = p->o.psn0;
	p->n[0].qp = nb->a0;
	p->n[1].qp = nb->a1;
}

static void nb_fini(struct h_pair *p, struct nb *nb)
{
	ck_assert_int_eq(sr_qp_destroy(nb->b0), 0);
	ck_assert_int_eq(sr_qp_destroy(nb->b1), 0);
	(void)p;
}

/* The neighbour sends a SEND; nb_step acknowledges it once it is out. */
static void nb_send(struct h_pair *p, struct nb *nb)
{
	if (nb->pending)
		return;
	nb->pending = true;
	p->n[0].qp = nb->b0;
	ck_assert_int_eq(h_post_send(p, 0, SR_WR_SEND, 50, 0, 10, 0, 0), 0);
	p->n[0].qp = nb->a0;
}

/* One step of the wire; READ requests timed, the neighbour's SENDs acked. */
static void nb_step(struct h_pair *p, struct cap *cap, struct nb *nb)
{
	ck_assert(sim_step(p->net));
	for (; nb->seen < cap->n; nb->seen++) {
		uint8_t op = cap->op[nb->seen];

		if (op == SR_OPCODE(RC, READ_REQUEST)) {
			ck_assert_int_lt(nb->nread, 16);
			nb->read_at[nb->nread++] = sim_now(p->net);
		} else if (op == SR_OPCODE(RC, SEND_ONLY)) {
			p->n[0].qp = nb->b0;
			craft_ack(p, nb->psn++, SR_AETH_CREDITS_INVALID,
				  ++nb->msn);
			nb->pending = false;
			p->n[0].qp = nb->a0;
		}
	}
}

/* nb_step; after a timeout of the QP under test, a busy neighbour sends. */
static void nb_tick(struct h_pair *p, struct cap *cap, struct nb *nb,
		    bool busy)
{
	uint64_t t = counter(p, SR_CNT_TIMEOUT);

	nb_step(p, cap, nb);
	if (busy && counter(p, SR_CNT_TIMEOUT) != t)
		nb_send(p, nb);
}

/*
 * A READ never answered, with or without a neighbour that makes progress
 * all along (a SEND acknowledged at the start and after each of the READ's
 * timeouts): the READ requests sent, and when it failed.
 */
static void read_never_answered(bool neighbour, struct nb *nb)
{
	struct cap cap = { 0 };
	struct h_pair p;
	struct sr_wc wc;

	setup(&p, &cap, 7);
	nb_init(&p, nb);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 0, 4096, 0,
				     SR_SEND_SIGNALED), 0);
	if (neighbour)
		nb_send(&p, nb);
	while (counter(&p, SR_CNT_RETRY_EXC) == 0)
		nb_tick(&p, &cap, nb, neighbour);
	ck_assert_uint_ge(sim_now(p.net) - nb->read_at[0], 8 * T_NS);
	ck_assert_uint_lt(sim_now(p.net) - nb->read_at[0], 8 * T_NS + 1000000);
	ck_assert_uint_eq(counter(&p, SR_CNT_TIMEOUT), 8);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_RETRY_EXC_ERR);
	for (int i = 0; i < cap.n; i++)
		if (cap.op[i] == SR_OPCODE(RC, READ_REQUEST))
			ck_assert_uint_eq(cap.psn[i], p.o.psn0);
	ck_assert_uint_eq(counter(&p, SR_CNT_RETRY_HELD),
			  neighbour ? 5 : 0);
	nb_fini(&p, nb);
	h_pair_fini(&p);
}

START_TEST(test_read_resend_backoff)
{
	struct nb nb = { 0 };
	uint64_t t0;

	read_never_answered(true, &nb);
	/* the 2nd and 4th timeouts resent; the 8th failed it */
	ck_assert_int_eq(nb.nread, 3);
	t0 = nb.read_at[0];
	for (int i = 1; i < 3; i++) {
		uint64_t want = (1ull << i) * T_NS;

		ck_assert_uint_ge(nb.read_at[i] - t0, want);
		ck_assert_uint_lt(nb.read_at[i] - t0, want + 1000000);
	}
}
END_TEST

START_TEST(test_read_resend_alone)
{
	struct nb nb = { 0 };

	read_never_answered(false, &nb);
	/* no neighbour progressed: every timeout resent */
	ck_assert_int_eq(nb.nread, 8);
	for (int i = 1; i < 8; i++) {
		ck_assert_uint_ge(nb.read_at[i] - nb.read_at[0], i * T_NS);
		ck_assert_uint_lt(nb.read_at[i] - nb.read_at[0],
				  i * T_NS + 1000000);
	}
}
END_TEST

START_TEST(test_read_series_restarts)
{
	static uint8_t data[4096];
	struct cap cap = { 0 };
	struct nb nb = { 0 };
	struct h_pair p;
	struct sr_build b;
	uint32_t mtu;
	uint64_t t0;

	setup(&p, &cap, 7);
	nb_init(&p, &nb);
	mtu = sr_mtu_bytes(p.o.mtu);
	/* two packets of response: the first arrives after 3 timeouts, and
	 * the neighbour's SENDs are acknowledged meanwhile */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 0, 2 * mtu, 0,
				     SR_SEND_SIGNALED), 0);
	nb_send(&p, &nb);
	while (counter(&p, SR_CNT_TIMEOUT) < 3)
		nb_tick(&p, &cap, &nb, true);
	ck_assert_int_eq(nb.nread, 2);             /* the 2nd resent */
	ck_assert_uint_eq(counter(&p, SR_CNT_RETRY_HELD), 2);
	t0 = sim_now(p.net);
	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_FIRST), p.o.psn0);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	craft_send(&p, 1, &b, data, mtu);
	nb_send(&p, &nb);
	/* progress: the next timeouts are a new series, resent at its 2nd */
	while (nb.nread == 2)
		nb_tick(&p, &cap, &nb, true);
	ck_assert_uint_ge(nb.read_at[2] - t0, 2 * T_NS);
	ck_assert_uint_lt(nb.read_at[2] - t0, 2 * T_NS + 1000000);
	ck_assert_uint_eq(cap.psn[nb.seen - 1], (p.o.psn0 + 1) & 0xffffff);
	ck_assert_uint_eq(counter(&p, SR_CNT_RETRY_HELD), 3);
	nb_fini(&p, &nb);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_read_gap_after_hold)
{
	static uint8_t data[4096];
	struct cap cap = { 0 };
	struct nb nb = { 0 };
	struct h_pair p;
	struct sr_build b;
	uint32_t mtu;
	uint64_t t;

	setup(&p, &cap, 7);
	nb_init(&p, &nb);
	mtu = sr_mtu_bytes(p.o.mtu);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 0, 3 * mtu, 0,
				     SR_SEND_SIGNALED), 0);
	nb_send(&p, &nb);
	while (counter(&p, SR_CNT_TIMEOUT) < 1)
		nb_step(&p, &cap, &nb);
	ck_assert_uint_eq(counter(&p, SR_CNT_RETRY_HELD), 1);
	ck_assert_int_eq(nb.nread, 1);
	/* the READ's 2nd response packet, its 1st lost: resumed at once */
	t = sim_now(p.net);
	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_MIDDLE),
		   p.o.psn0 + 1);
	craft_send(&p, 1, &b, data, mtu);
	while (nb.nread == 1)
		nb_step(&p, &cap, &nb);
	ck_assert_uint_lt(nb.read_at[1] - t, 1000000);
	ck_assert_uint_eq(cap.psn[nb.seen - 1], p.o.psn0);
	ck_assert_uint_eq(counter(&p, SR_CNT_READ_RESUME), 1);
	nb_fini(&p, &nb);
	h_pair_fini(&p);
}
END_TEST

static Suite *probe_suite(void)
{
	Suite *s = suite_create("transport_probe");
	TCase *tc = tcase_create("probe");

	tcase_add_test(tc, test_probe_before_timer);
	tcase_add_test(tc, test_no_probe_open_window);
	tcase_add_test(tc, test_probe_after_idle);
	tcase_add_test(tc, test_no_probe_after_exc);
	tcase_add_test(tc, test_rnr_then_probe_later);
	tcase_add_test(tc, test_probe_without_rtt);
	tcase_add_test(tc, test_no_probe_read);
	tcase_add_test(tc, test_no_probe_deep_queue);
	tcase_add_test(tc, test_read_resend_backoff);
	tcase_add_test(tc, test_read_resend_alone);
	tcase_add_test(tc, test_read_series_restarts);
	tcase_add_test(tc, test_read_gap_after_hold);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(probe_suite)
