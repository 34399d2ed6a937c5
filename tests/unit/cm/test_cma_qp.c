/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cma_qp.c — sr_cma_qp_connect: two lib QPs taken to RTS with the
 * attributes a CM exchange gives (a REQ built by sr_cma_req, its REP by
 * sr_cma_rep), then traffic between them on the simulated wire: the PSNs
 * meet, a SEND arrives, and the remote rights follow the negotiated
 * responder resources (no resources granted: a READ is refused).
 */
#include <errno.h>
#include <string.h>

#include "../transport/harness.h"
#include "cm/cma.h"
#include "sr_check.h"

/* A REQ from node 0 (qpn0) and its REP by node 1 (qpn1): the QP
 * attributes of both sides.  res1: responder resources node 1 grants. */
static void exchange(struct h_pair *p, uint8_t res1, struct sr_cma_qp_attr *a0,
		     struct sr_cma_qp_attr *a1)
{
	struct sr_cma_route r = { .ip_version = 4, .sport = 40000, .dport = 7471,
				  .path_mtu = SR_MTU_1024 };
	struct sr_cma_conn c0 = { .transport = SR_CM_TRANSPORT_RC, .psn = 0x123456,
				  .responder_resources = 4, .initiator_depth = 4,
				  .retry_count = 7, .rnr_retry_count = 7 };
	struct sr_cma_conn c1 = { .transport = SR_CM_TRANSPORT_RC, .psn = 0xabcdef,
				  .responder_resources = res1, .initiator_depth = 4,
				  .rnr_retry_count = 7 };
	struct sr_cm_req_param req;
	struct sr_cm_rep_param rep;
	struct sr_cm_msg reqm = { .attr = SR_CM_ATTR_REQ }, repm = { .attr = SR_CM_ATTR_REP };
	uint8_t buf[92];

	memcpy(r.sgid, p->n[0].gid, 16);
	memcpy(r.dgid, p->n[1].gid, 16);
	c0.qpn = sr_qp_num(p->n[0].qp);
	c1.qpn = sr_qp_num(p->n[1].qp);
	ck_assert_int_eq(sr_cma_req(&req, buf, &r, SR_RDMA_PS_TCP, &c0), 0);
	ck_assert_int_eq(sr_cma_rep(&rep, &c1), 0);
	/* what each side reads of the other's message */
	reqm.qpn = req.qpn;
	reqm.psn = req.psn;
	reqm.path_mtu = req.path_mtu;
	reqm.responder_resources = req.responder_resources;
	reqm.initiator_depth = req.initiator_depth;
	reqm.retry_count = req.retry_count;
	reqm.rnr_retry_count = req.rnr_retry_count;
	reqm.pri.ack_timeout = req.path.ack_timeout;
	repm.qpn = rep.qpn;
	repm.psn = rep.psn;
	repm.responder_resources = rep.responder_resources;
	repm.initiator_depth = rep.initiator_depth;
	repm.target_ack_delay = rep.target_ack_delay;
	repm.rnr_retry_count = rep.rnr_retry_count;
	sr_cma_qp_attr_active(a0, &req, &repm);
	sr_cma_qp_attr_passive(a1, &reqm, &rep, SR_MTU_1024);
}

static void connect_both(struct h_pair *p, uint8_t res1)
{
	struct sr_cma_qp_attr a0, a1;
	struct sr_av av0 = h_av_to(p, 1), av1 = h_av_to(p, 0);
	struct sr_qp_attr q;
	struct sr_qp_init_attr init;

	exchange(p, res1, &a0, &a1);
	ck_assert_int_eq(sr_cma_qp_connect(p->n[1].qp, &a1, &av1), 0);
	ck_assert_int_eq(sr_cma_qp_connect(p->n[0].qp, &a0, &av0), 0);
	ck_assert_int_eq(sr_qp_query(p->n[0].qp, &q, &init), 0);
	ck_assert_int_eq(q.qp_state, SR_QPS_RTS);
	ck_assert_uint_eq(q.dest_qp_num, sr_qp_num(p->n[1].qp));
	/* Linux's PSN convention: the REQ's PSN is what the active side receives */
	ck_assert_uint_eq(q.rq_psn, 0x123456);
	ck_assert_uint_eq(q.sq_psn, 0xabcdef);
	ck_assert_uint_eq(q.timeout, a0.timeout);
	ck_assert_uint_eq(q.max_rd_atomic, res1);
	ck_assert_int_eq(sr_qp_query(p->n[1].qp, &q, &init), 0);
	ck_assert_int_eq(q.qp_state, SR_QPS_RTS);
	ck_assert_uint_eq(q.rq_psn, 0xabcdef);
	ck_assert_uint_eq(q.sq_psn, 0x123456);
	ck_assert_uint_eq(q.max_dest_rd_atomic, res1);
	ck_assert_uint_eq(!!(q.qp_access_flags & SR_ACCESS_REMOTE_READ), res1 > 0);
	ck_assert(q.qp_access_flags & SR_ACCESS_REMOTE_WRITE);
}

START_TEST(test_connected_by_the_cm_attributes)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.no_connect = true;
	h_pair_init(&p, &o);
	connect_both(&p, 2);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 4096), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 3000, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 3000);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 3, 0, 512, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_no_resources_no_read)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	o.no_connect = true;
	h_pair_init(&p, &o);
	connect_both(&p, 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 256, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	/* node 1 granted no responder resources: no remote READ on it */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 0, 256, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_ne(wc.status, SR_WC_SUCCESS);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_refused)
{
	struct sr_cma_qp_attr a = { 0 };
	struct sr_av av = { 0 };

	ck_assert_int_eq(sr_cma_qp_connect(NULL, &a, &av), -EINVAL);
}
END_TEST

static Suite *cma_qp_suite(void)
{
	Suite *s = suite_create("cm_cma_qp");
	TCase *tc = tcase_create("qp");

	tcase_add_test(tc, test_connected_by_the_cm_attributes);
	tcase_add_test(tc, test_no_resources_no_read);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(cma_qp_suite)
