/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine's schedule (lib/core/sched.h), on the simulated wire with the
 * safety sweep off (harness.c): only kicks, busy QPs and due timers get a
 * QP visited, so a QP the schedule forgets hangs these tests.
 *
 *   many_timers  500 connected QP pairs, a WRITE on each with the wire
 *                dropping everything: 500 retransmit timers are due
 *                together; the wire heals and every WRITE completes with
 *                its data in place.
 *   idle_cost    with 500 idle connected QPs, a round of a busy QP has
 *                only that QP on its ready list; once everything is ACKed
 *                and the timers ran out, nothing is scheduled at all.
 *   destroyed_while_scheduled
 *                half of 500 QPs destroyed with their retransmit timers
 *                armed and their kicks pending, new QPs created in their
 *                slots (the same QPNs) while the stale entries are still
 *                in the heaps: the survivors' and the newcomers' WRITEs
 *                all complete with their data, nothing else runs.
 *   busy_take_turns
 *                4 QPs each with a 16-packet WRITE to send, one packet
 *                each per round: every one of them is first on the wire
 *                in some round (a busy QP was first in every round, and
 *                behind a small queue took most of its slots: cc_storm),
 *                and all four WRITEs complete with their data.
 */
#include <string.h>

#include "core/sched.h"
#include "harness.h"
#include "sr_check.h"

#define NQP  500
#define LEN  64

static struct sr_qp *qa[NQP], *qb[NQP];

static struct sr_qp *mk_qp(struct h_pair *p, int i)
{
	struct h_node *n = &p->n[i];
	struct sr_qp_init_attr init = {
		.send_cq = n->scq, .recv_cq = n->rcq, .pd = n->pd,
		.qp_type = SR_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct sr_qp *qp = sr_qp_create(n->dev, &init);

	ck_assert_ptr_nonnull(qp);
	return qp;
}

/* Connect a and b with the harness's h_connect (it works on n[i].qp). */
static void pair_up(struct h_pair *p, struct sr_qp *a, struct sr_qp *b)
{
	struct sr_qp *s0 = p->n[0].qp, *s1 = p->n[1].qp;

	p->n[0].qp = a;
	p->n[1].qp = b;
	h_connect(p, 0);
	h_connect(p, 1);
	p->n[0].qp = s0;
	p->n[1].qp = s1;
}

static void setup_many_max(struct h_pair *p, uint32_t max_qp)
{
	struct h_opts o;

	h_default_opts(&o, SR_QPT_RC);
	o.buflen = 1u << 20;
	o.cqe = 4096;
	o.max_qp[0] = max_qp;
	h_pair_init(p, &o);
	for (int k = 0; k < NQP; k++) {
		qa[k] = mk_qp(p, 0);
		qb[k] = mk_qp(p, 1);
		pair_up(p, qa[k], qb[k]);
	}
}

static void setup_many(struct h_pair *p)
{
	setup_many_max(p, 0);
}

static void teardown_many(struct h_pair *p)
{
	for (int k = 0; k < NQP; k++) {
		ck_assert_int_eq(sr_qp_destroy(qa[k]), 0);
		ck_assert_int_eq(sr_qp_destroy(qb[k]), 0);
	}
	h_pair_fini(p);
}

static void post_write(struct h_pair *p, int k)
{
	struct sr_qp *s0 = p->n[0].qp;

	p->n[0].qp = qa[k];
	ck_assert_int_eq(h_post_send(p, 0, SR_WR_RDMA_WRITE, (uint64_t)k,
				     (uint32_t)k * LEN, LEN, (uint32_t)k * LEN,
				     SR_SEND_SIGNALED), 0);
	p->n[0].qp = s0;
}

/*
 * The wire heals: one successful completion for each QP's WRITE, each
 * once, and every WRITE's bytes at the peer.
 */
static void heal_and_check(struct h_pair *p)
{
	static struct sr_wc wc[NQP];
	bool seen[NQP] = { false };

	sim_set_cfg(p->net, &(struct sim_cfg){ .delay_ns = 1000 });
	ck_assert_int_eq(h_wait_cq(p, p->n[0].scq, wc, NQP, 10000000), NQP);
	for (int i = 0; i < NQP; i++) {
		ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
		ck_assert_uint_lt(wc[i].wr_id, NQP);
		ck_assert(!seen[wc[i].wr_id]);
		seen[wc[i].wr_id] = true;
	}
	ck_assert_mem_eq(p->n[1].buf, p->n[0].buf, NQP * LEN);
}

START_TEST(test_many_timers)
{
	static struct sr_wc wc[NQP];
	struct h_pair p;

	setup_many(&p);
	for (int k = 0; k < NQP; k++)
		memset(p.n[0].buf + k * LEN, 0x40 + k % 64, LEN);
	sim_set_cfg(p.net, &(struct sim_cfg){ .loss_ppm = 1000000, .delay_ns = 1000 });
	for (int k = 0; k < NQP; k++)
		post_write(&p, k);
	for (int i = 0; i < 50; i++)
		sim_step_frames(p.net);
	/* nothing got through; the wire heals; only the timers can help */
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, NQP, wc), 0);
	heal_and_check(&p);
	teardown_many(&p);
}
END_TEST

START_TEST(test_idle_cost)
{
	struct h_pair p;
	struct sr_wc wc;
	uint32_t ready, timers;

	setup_many(&p);
	h_settle(&p);                  /* the connects' kicks are consumed */
	sr_dev_sched_stats(p.n[0].dev, &ready, &timers);
	ck_assert_uint_eq(ready, 0);
	ck_assert_uint_eq(timers, 0);
	/* one busy QP among 500 idle ones: it alone is scheduled */
	post_write(&p, 7);
	sr_dev_poll(p.n[0].dev, 16);
	sr_dev_sched_stats(p.n[0].dev, &ready, &timers);
	ck_assert_uint_le(ready, 1);
	ck_assert_uint_le(timers, 1);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 7);
	h_settle(&p);
	sr_dev_sched_stats(p.n[0].dev, &ready, &timers);
	ck_assert_uint_eq(ready, 0);
	sr_dev_sched_stats(p.n[1].dev, &ready, &timers);
	ck_assert_uint_eq(ready, 0);
	teardown_many(&p);
}
END_TEST

START_TEST(test_destroyed_while_scheduled)
{
	static struct sr_wc wc[NQP];
	struct h_pair p;
	uint32_t ready, timers, qpn[NQP];

	/* node 0 holds exactly its QPs: a new one must take a freed slot */
	setup_many_max(&p, NQP + 1);
	for (int k = 0; k < NQP; k++) {
		memset(p.n[0].buf + k * LEN, 0x40 + k % 64, LEN);
		qpn[k] = sr_qp_num(qa[k]);
	}
	sim_set_cfg(p.net, &(struct sim_cfg){ .loss_ppm = 1000000, .delay_ns = 1000 });
	for (int k = 0; k < NQP; k++)
		post_write(&p, k);
	for (int i = 0; i < 50; i++)
		sim_step_frames(p.net);
	sr_dev_sched_stats(p.n[0].dev, &ready, &timers);
	ck_assert_uint_ge(ready + timers, NQP);     /* all of them pending */
	for (int k = 0; k < NQP; k += 2) {
		ck_assert_int_eq(sr_qp_destroy(qa[k]), 0);
		qa[k] = NULL;
	}
	sr_dev_poll(p.n[0].dev, 16);                /* meets stale entries */
	for (int k = 0; k < NQP; k += 2) {
		struct sr_qp *s1 = p.n[1].qp, *s0 = p.n[0].qp;

		qa[k] = mk_qp(&p, 0);
		ck_assert_uint_eq(sr_qp_num(qa[k]), qpn[k]);   /* its slot */
		p.n[0].qp = qa[k];                  /* towards the old peer */
		p.n[1].qp = qb[k];
		h_connect(&p, 0);
		p.n[0].qp = s0;
		p.n[1].qp = s1;
		memset(p.n[0].buf + k * LEN, 0x80 + k % 64, LEN);
		post_write(&p, k);
	}
	heal_and_check(&p);
	h_settle(&p);
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, NQP, wc), 0);  /* no more */
	sr_dev_sched_stats(p.n[0].dev, &ready, &timers);
	ck_assert_uint_eq(ready, 0);
	teardown_many(&p);
}
END_TEST

/* The destination QPN of each request frame node 0 sends, in order. */
struct order_log {
	uint32_t qpn[256];
	unsigned int n;
};

static bool order_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct order_log *l = ctx;
	struct sr_pkt pkt;

	if (from == 0 && l->n < 256 &&
	    sr_parse_eth(frame, *len, 0, &pkt) == SR_PARSE_OK)
		l->qpn[l->n++] = sr_bth_dqpn(sr_pkt_bth(&pkt));
	return true;
}

START_TEST(test_busy_take_turns)
{
	enum { NB = 4, WLEN = 16 * 1024, ROUNDS = 8 };
	static struct sr_wc wc[NB];
	static struct order_log log;
	unsigned int firsts[NB] = { 0 };
	struct h_pair p;

	setup_many(&p);
	h_settle(&p);
	log.n = 0;
	sim_set_tap(p.net, order_tap, &log);
	for (int k = 0; k < NB; k++) {
		struct sr_qp *s0 = p.n[0].qp;

		memset(p.n[0].buf + k * WLEN, 0x21 + k, WLEN);
		p.n[0].qp = qa[k];
		ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, (uint64_t)k,
					     (uint32_t)k * WLEN, WLEN,
					     (uint32_t)k * WLEN,
					     SR_SEND_SIGNALED), 0);
		p.n[0].qp = s0;
	}
	/* rounds of node 0 alone: one packet per QP each, no ACK back yet */
	for (int r = 0; r < ROUNDS; r++) {
		unsigned int before = log.n;

		sr_dev_poll(p.n[0].dev, 1);
		ck_assert_uint_eq(log.n, before + NB);
		for (int k = 0; k < NB; k++)
			if (log.qpn[before] == sr_qp_num(qb[k]))
				firsts[k]++;
	}
	for (int k = 0; k < NB; k++)
		ck_assert_msg(firsts[k] > 0, "QP %d never first in %d rounds",
			      k, ROUNDS);
	sim_set_tap(p.net, NULL, NULL);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, NB, 1000000), NB);
	for (int i = 0; i < NB; i++)
		ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf, p.n[0].buf, NB * WLEN);
	teardown_many(&p);
}
END_TEST

static Suite *sched_suite(void)
{
	Suite *s = suite_create("transport_sched");
	TCase *tc = tcase_create("sched");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_many_timers);
	tcase_add_test(tc, test_idle_cost);
	tcase_add_test(tc, test_destroyed_while_scheduled);
	tcase_add_test(tc, test_busy_take_turns);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(sched_suite)
