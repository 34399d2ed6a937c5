/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_xrc.c — XRC end to end on the simulated wire: an initiator on node
 * 0 (XRC_SEND) connected to a target on node 1 (XRC_RECV) of an XRC
 * domain with two SRQs; SEND into the SRQ the WR names, WRITE, READ and
 * atomics, the XRC opcodes on the wire, an XRCETH naming an SRQ of another
 * domain or none, the objects' rules, the target or its SRQ destroyed
 * while traffic flows, READs pipelined into one SRQ or two, a duplicate
 * READ after an SRQ of another PD, packets of the wrong transport or
 * direction.
 */
#include <errno.h>
#include <string.h>

#include "craft.h"
#include "harness.h"
#include "sr_check.h"
#include "qp/xrcd.h"
#include "wire/opcode.h"
#include "wire/parse.h"

/* What the XRC objects add to a harness pair (whose RC QPs stay RESET). */
struct x_env {
	struct h_pair p;
	struct sr_xrcd *xrcd, *other;      /* node 1: the target's, another */
	struct sr_srq *srq[2];             /* node 1, in xrcd */
	struct sr_srq *foreign;            /* node 1, in other */
	struct sr_xrcd *xrcd0;             /* node 0: an unused domain */
	struct sr_qp *ini, *tgt;
	/* the tap's record: transports and XRCETHs seen per direction */
	unsigned int frames[2], non_xrc[2], xrceth[2];
	uint32_t last_srqn;
};

static void fill(uint8_t *p, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 8));
}

static bool x_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct x_env *e = ctx;
	struct sr_pkt pkt;
	const struct sr_xrceth *x;

	if (sr_parse_eth(frame, *len, 0, &pkt) != SR_PARSE_OK)
		return true;
	e->frames[from]++;
	if ((pkt.opcode & SR_TT_MASK) != SR_TT_XRC)
		e->non_xrc[from]++;
	x = sr_pkt_ext(&pkt, SR_EXT_XRCETH);
	if (x != NULL) {
		e->xrceth[from]++;
		e->last_srqn = sr_xrceth_srqn(x);
	}
	return true;
}

static void x_modify(struct sr_qp *qp, struct sr_qp_attr *a, unsigned int m)
{
	ck_assert_int_eq(sr_qp_modify(qp, a, m), 0);
}

/* INIT, RTR, RTS with exactly the attributes each XRC half requires. */
static void x_connect(struct x_env *e)
{
	const struct h_opts *o = &e->p.o;
	struct sr_qp_attr a = { 0 };

	a.qp_state = SR_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE |
			    SR_ACCESS_REMOTE_ATOMIC;
	x_modify(e->ini, &a, SR_QP_STATE | SR_QP_PKEY_INDEX | SR_QP_PORT |
			     SR_QP_ACCESS_FLAGS);
	x_modify(e->tgt, &a, SR_QP_STATE | SR_QP_PKEY_INDEX | SR_QP_PORT |
			     SR_QP_ACCESS_FLAGS);

	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTR;
	a.path_mtu = o->mtu;
	a.av = h_av_to(&e->p, 1);
	a.dest_qp_num = sr_qp_num(e->tgt);
	a.rq_psn = 7;
	/* an initiator receives no request: no responder attributes */
	a.max_dest_rd_atomic = 4;
	ck_assert_int_eq(sr_qp_modify(e->ini, &a, SR_QP_STATE | SR_QP_AV |
				      SR_QP_PATH_MTU | SR_QP_DEST_QPN |
				      SR_QP_RQ_PSN | SR_QP_MAX_DEST_RD_ATOMIC),
			 -EINVAL);
	x_modify(e->ini, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU |
			     SR_QP_DEST_QPN | SR_QP_RQ_PSN);
	a.av = h_av_to(&e->p, 0);
	a.dest_qp_num = sr_qp_num(e->ini);
	a.rq_psn = o->psn0;
	a.min_rnr_timer = o->min_rnr;
	/* a target needs its responder's */
	ck_assert_int_eq(sr_qp_modify(e->tgt, &a, SR_QP_STATE | SR_QP_AV |
				      SR_QP_PATH_MTU | SR_QP_DEST_QPN |
				      SR_QP_RQ_PSN), -EINVAL);
	x_modify(e->tgt, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU |
			     SR_QP_DEST_QPN | SR_QP_RQ_PSN |
			     SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER);

	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTS;
	a.sq_psn = o->psn0;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = o->max_rd;
	x_modify(e->ini, &a, SR_QP_STATE | SR_QP_SQ_PSN | SR_QP_TIMEOUT |
			     SR_QP_RETRY_CNT | SR_QP_RNR_RETRY |
			     SR_QP_MAX_QP_RD_ATOMIC);
	a.sq_psn = 7;
	x_modify(e->tgt, &a, SR_QP_STATE | SR_QP_SQ_PSN | SR_QP_TIMEOUT);
}

static void x_init(struct x_env *e, const struct h_opts *o0)
{
	struct h_opts o = *o0;
	struct sr_srq_attr sa = { .max_wr = 32, .max_sge = 2 };
	struct sr_qp_init_attr ini = { 0 }, tgt = { 0 };
	struct h_node *n0, *n1;

	memset(e, 0, sizeof(*e));
	o.no_connect = true;
	h_pair_init(&e->p, &o);
	n0 = &e->p.n[0];
	n1 = &e->p.n[1];
	sim_set_tap(e->p.net, x_tap, e);
	e->xrcd = sr_xrcd_alloc(n1->dev);
	e->other = sr_xrcd_alloc(n1->dev);
	e->xrcd0 = sr_xrcd_alloc(n0->dev);
	ck_assert_ptr_nonnull(e->xrcd);
	ck_assert_ptr_nonnull(e->other);
	ck_assert_ptr_nonnull(e->xrcd0);
	for (int i = 0; i < 2; i++) {
		e->srq[i] = sr_srq_create_xrc(n1->dev, n1->pd, e->xrcd,
					      n1->rcq, &sa);
		ck_assert_ptr_nonnull(e->srq[i]);
	}
	e->foreign = sr_srq_create_xrc(n1->dev, n1->pd, e->other, n1->rcq,
				       &sa);
	ck_assert_ptr_nonnull(e->foreign);

	ini.qp_type = SR_QPT_XRC_SEND;
	ini.pd = n0->pd;
	ini.send_cq = n0->scq;
	ini.cap.max_send_wr = 32;
	ini.cap.max_send_sge = 2;
	e->ini = sr_qp_create(n0->dev, &ini);
	ck_assert_ptr_nonnull(e->ini);
	ck_assert_uint_eq(ini.cap.max_recv_wr, 0);
	tgt.qp_type = SR_QPT_XRC_RECV;
	tgt.xrcd = e->xrcd;
	e->tgt = sr_qp_create(n1->dev, &tgt);
	ck_assert_ptr_nonnull(e->tgt);
	ck_assert_uint_eq(tgt.cap.max_send_wr, 0);
	if (!o0->no_connect)
		x_connect(e);
}

static void x_fini(struct x_env *e)
{
	ck_assert_int_eq(sr_qp_destroy(e->ini), 0);
	ck_assert_int_eq(sr_qp_destroy(e->tgt), 0);
	/* a domain goes only after its SRQs and targets */
	ck_assert_int_eq(sr_xrcd_dealloc(e->xrcd), e->srq[0] || e->srq[1]
						   ? -EBUSY : 0);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(sr_srq_destroy(e->srq[i]), 0);
	ck_assert_int_eq(sr_srq_destroy(e->foreign), 0);
	ck_assert_int_eq(sr_xrcd_dealloc(e->xrcd), 0);
	ck_assert_int_eq(sr_xrcd_dealloc(e->other), 0);
	ck_assert_int_eq(sr_xrcd_dealloc(e->xrcd0), 0);
	ck_assert_uint_eq(sr_dev_xrcd_count(e->p.n[0].dev), 0);
	ck_assert_uint_eq(sr_dev_xrcd_count(e->p.n[1].dev), 0);
	h_pair_fini(&e->p);
}

/* One WR from node 0's buffer at off, len bytes, to SRQ srqn. */
static int x_post(struct x_env *e, enum sr_wr_opcode op, uint64_t id,
		  uint32_t off, uint32_t len, uint32_t roff, uint32_t srqn)
{
	struct h_node *n = &e->p.n[0], *r = &e->p.n[1];
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)(n->buf + off),
		.length = len,
		.lkey = sr_mr_lkey(n->mr),
	};
	struct sr_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = SR_SEND_SIGNALED, .xrc_srqn = srqn,
	};
	const struct sr_send_wr *bad;

	if (op == SR_WR_ATOMIC_CMP_AND_SWP || op == SR_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)(r->buf + roff);
		wr.wr.atomic.rkey = sr_mr_rkey(r->mr);
		wr.wr.atomic.compare_add = 2;     /* FETCH_AND_ADD adds 2 */
	} else {
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(r->buf + roff);
		wr.wr.rdma.rkey = sr_mr_rkey(r->mr);
	}
	if (op == SR_WR_SEND_WITH_IMM)
		wr.imm_data = 0xabcd0000u + (uint32_t)id;
	return sr_qp_post_send(e->ini, &wr, &bad);
}

static int x_recv(struct x_env *e, struct sr_srq *srq, uint64_t id,
		  uint32_t off, uint32_t len)
{
	struct h_node *n = &e->p.n[1];
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)(n->buf + off),
		.length = len,
		.lkey = sr_mr_lkey(n->mr),
	};
	struct sr_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	const struct sr_recv_wr *bad;

	return sr_srq_post_recv(srq, &wr, &bad);
}

START_TEST(test_xrc_objects)
{
	struct x_env e;
	struct h_opts o;
	struct h_node *n0, *n1;
	struct sr_qp_init_attr a;
	struct sr_qp_init_attr qi;
	struct sr_qp_attr qa;
	struct sr_srq_attr sa = { .max_wr = 4, .max_sge = 1 };
	struct sr_recv_wr rwr = { .wr_id = 1 };
	const struct sr_recv_wr *rbad;
	struct sr_send_wr swr = { .opcode = SR_WR_SEND };
	const struct sr_send_wr *sbad;

	h_default_opts(&o, SR_QPT_RC);
	o.no_connect = true;
	x_init(&e, &o);
	n0 = &e.p.n[0];
	n1 = &e.p.n[1];

	/* SRQ numbers: distinct, never 0, what an XRCETH can carry */
	ck_assert_uint_ne(sr_srq_num(e.srq[0]), 0);
	ck_assert_uint_ne(sr_srq_num(e.srq[0]), sr_srq_num(e.srq[1]));
	ck_assert_uint_le(sr_srq_num(e.foreign), 0xffffff);

	/* an XRC SRQ needs its domain and a CQ of the same device */
	ck_assert_ptr_null(sr_srq_create_xrc(n1->dev, n1->pd, e.xrcd, NULL, &sa));
	ck_assert_ptr_null(sr_srq_create_xrc(n1->dev, n1->pd, NULL, n1->rcq, &sa));
	ck_assert_ptr_null(sr_srq_create_xrc(n1->dev, n1->pd, e.xrcd0, n1->rcq,
					     &sa));
	ck_assert_ptr_null(sr_srq_create_xrc(n1->dev, n1->pd, e.xrcd, n0->rcq,
					     &sa));

	/* an initiator: PD and send CQ, nothing of a receiver */
	memset(&a, 0, sizeof(a));
	a.qp_type = SR_QPT_XRC_SEND;
	a.pd = n0->pd;
	ck_assert_ptr_null(sr_qp_create(n0->dev, &a));      /* no send CQ */
	a.send_cq = n0->scq;
	a.recv_cq = n0->rcq;
	ck_assert_ptr_null(sr_qp_create(n0->dev, &a));      /* a recv CQ */
	a.recv_cq = NULL;
	a.cap.max_recv_wr = 4;
	ck_assert_ptr_null(sr_qp_create(n0->dev, &a));      /* an RQ */
	a.cap.max_recv_wr = 0;
	a.xrcd = e.xrcd0;
	ck_assert_ptr_null(sr_qp_create(n0->dev, &a));      /* a domain */
	a.xrcd = NULL;
	a.pd = NULL;
	ck_assert_ptr_null(sr_qp_create(n0->dev, &a));      /* no PD */

	/* a target: its domain (of this device), nothing else */
	memset(&a, 0, sizeof(a));
	a.qp_type = SR_QPT_XRC_RECV;
	ck_assert_ptr_null(sr_qp_create(n1->dev, &a));      /* no domain */
	a.xrcd = e.xrcd0;
	ck_assert_ptr_null(sr_qp_create(n1->dev, &a));      /* other device */
	a.xrcd = e.xrcd;
	a.pd = n1->pd;
	ck_assert_ptr_null(sr_qp_create(n1->dev, &a));      /* a PD */
	a.pd = NULL;
	a.recv_cq = n1->rcq;
	ck_assert_ptr_null(sr_qp_create(n1->dev, &a));      /* a CQ */
	a.recv_cq = NULL;
	a.cap.max_send_wr = 1;
	ck_assert_ptr_null(sr_qp_create(n1->dev, &a));      /* an SQ */
	/* other types take no domain */
	memset(&a, 0, sizeof(a));
	a.qp_type = SR_QPT_RC;
	a.pd = n1->pd;
	a.send_cq = a.recv_cq = n1->rcq;
	a.xrcd = e.xrcd;
	ck_assert_ptr_null(sr_qp_create(n1->dev, &a));

	/* in use: the domain and the SRQ's CQ stay */
	ck_assert_int_eq(sr_xrcd_dealloc(e.xrcd), -EBUSY);
	ck_assert_uint_eq(sr_xrcd_users(e.xrcd), 3);        /* 2 SRQs, 1 QP */
	ck_assert_int_eq(sr_cq_destroy(n1->rcq), -EBUSY);

	/* no receive queue on either half; no send queue on the target */
	ck_assert_int_eq(sr_qp_post_recv(e.ini, &rwr, &rbad), -EINVAL);
	ck_assert_int_eq(sr_qp_post_recv(e.tgt, &rwr, &rbad), -EINVAL);

	x_connect(&e);
	ck_assert_int_eq(sr_qp_post_send(e.tgt, &swr, &sbad), -EINVAL);
	ck_assert_ptr_eq(sbad, &swr);
	swr.xrc_srqn = 1u << 24;                            /* 25 bits */
	ck_assert_int_eq(sr_qp_post_send(e.ini, &swr, &sbad), -EINVAL);
	ck_assert_int_eq(sr_qp_query(e.tgt, &qa, &qi), 0);
	ck_assert_int_eq(qa.qp_state, SR_QPS_RTS);
	ck_assert_ptr_eq(qi.xrcd, e.xrcd);
	ck_assert_ptr_null(qi.pd);
	ck_assert_ptr_null(qi.srq);
	ck_assert_int_eq(qi.qp_type, SR_QPT_XRC_RECV);
	ck_assert_int_eq(sr_qp_query(e.ini, &qa, &qi), 0);
	ck_assert_ptr_null(qi.recv_cq);
	ck_assert_int_eq(qi.qp_type, SR_QPT_XRC_SEND);
	x_fini(&e);
}
END_TEST

START_TEST(test_xrc_traffic)
{
	struct x_env e;
	struct h_opts o;
	struct sr_wc wc;
	struct h_node *n0, *n1;
	uint64_t v = 40, got;
	uint32_t srqn[2];

	h_default_opts(&o, SR_QPT_RC);
	x_init(&e, &o);
	n0 = &e.p.n[0];
	n1 = &e.p.n[1];
	srqn[0] = sr_srq_num(e.srq[0]);
	srqn[1] = sr_srq_num(e.srq[1]);

	/* SEND of 5 packets into SRQ 1, then one with immediate into SRQ 0 */
	fill(n0->buf, 5000, 1);
	ck_assert_int_eq(x_recv(&e, e.srq[0], 100, 10000, 6000), 0);
	ck_assert_int_eq(x_recv(&e, e.srq[1], 200, 20000, 6000), 0);
	ck_assert_int_eq(x_post(&e, SR_WR_SEND, 1, 0, 5000, 0, srqn[1]), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_SEND);
	ck_assert_int_eq(h_wait_cq(&e.p, n1->rcq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_RECV);
	ck_assert_uint_eq(wc.wr_id, 200);
	ck_assert_uint_eq(wc.byte_len, 5000);
	ck_assert_uint_eq(wc.qp_num, sr_qp_num(e.tgt));
	ck_assert_mem_eq(n1->buf + 20000, n0->buf, 5000);
	ck_assert_uint_eq(e.last_srqn, srqn[1]);

	ck_assert_int_eq(x_post(&e, SR_WR_SEND_WITH_IMM, 2, 100, 64, 0,
				srqn[0]), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n1->rcq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 100);
	ck_assert_uint_eq(wc.byte_len, 64);
	ck_assert_uint_ne(wc.wc_flags & SR_WC_WITH_IMM, 0);
	ck_assert_uint_eq(wc.imm_data, 0xabcd0002u);
	ck_assert_mem_eq(n1->buf + 10000, n0->buf + 100, 64);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);

	/* WRITE and READ of several packets; the SRQ gives the PD */
	fill(n0->buf + 30000, 5000, 2);
	ck_assert_int_eq(x_post(&e, SR_WR_RDMA_WRITE, 3, 30000, 5000, 40000,
				srqn[0]), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_RDMA_WRITE);
	ck_assert_mem_eq(n1->buf + 40000, n0->buf + 30000, 5000);
	fill(n1->buf + 50000, 7000, 3);
	ck_assert_int_eq(x_post(&e, SR_WR_RDMA_READ, 4, 50000, 7000, 50000,
				srqn[1]), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_RDMA_READ);
	ck_assert_uint_eq(wc.byte_len, 7000);
	ck_assert_mem_eq(n0->buf + 50000, n1->buf + 50000, 7000);

	/* atomics */
	memcpy(n1->buf + 64, &v, 8);
	ck_assert_int_eq(x_post(&e, SR_WR_ATOMIC_FETCH_AND_ADD, 5, 0, 8, 64,
				srqn[0]), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_FETCH_ADD);
	memcpy(&got, n0->buf, 8);
	ck_assert_uint_eq(got, 40);
	memcpy(&got, n1->buf + 64, 8);
	ck_assert_uint_eq(got, 42);

	/* nothing but XRC on the wire; every request with its XRCETH, no
	 * response with one */
	h_settle(&e.p);
	ck_assert_uint_gt(e.frames[0], 0);
	ck_assert_uint_gt(e.frames[1], 0);
	ck_assert_uint_eq(e.non_xrc[0], 0);
	ck_assert_uint_eq(e.non_xrc[1], 0);
	ck_assert_uint_eq(e.xrceth[0], e.frames[0]);
	ck_assert_uint_eq(e.xrceth[1], 0);
	ck_assert_uint_eq(sr_cq_poll(n1->rcq, 1, &wc), 0);
	x_fini(&e);
}
END_TEST

START_TEST(test_xrc_cmp_swap)
{
	struct x_env e;
	struct h_opts o;
	struct sr_wc wc;
	struct h_node *n0, *n1;
	uint64_t v = 42, got;
	struct sr_sge sge;
	struct sr_send_wr wr = { 0 };
	const struct sr_send_wr *bad;

	h_default_opts(&o, SR_QPT_RC);
	x_init(&e, &o);
	n0 = &e.p.n[0];
	n1 = &e.p.n[1];
	memcpy(n1->buf + 128, &v, 8);
	sge.addr = (uint64_t)(uintptr_t)n0->buf;
	sge.length = 8;
	sge.lkey = sr_mr_lkey(n0->mr);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = SR_SEND_SIGNALED;
	wr.opcode = SR_WR_ATOMIC_CMP_AND_SWP;
	wr.xrc_srqn = sr_srq_num(e.srq[1]);
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)(n1->buf + 128);
	wr.wr.atomic.rkey = sr_mr_rkey(n1->mr);
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 9;
	ck_assert_int_eq(sr_qp_post_send(e.ini, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_COMP_SWAP);
	memcpy(&got, n0->buf, 8);
	ck_assert_uint_eq(got, 42);
	memcpy(&got, n1->buf + 128, 8);
	ck_assert_uint_eq(got, 9);
	h_settle(&e.p);
	x_fini(&e);
}
END_TEST

/*
 * _i 0: an XRCETH naming an SRQ of another domain; 1: naming no SRQ; 2:
 * naming a basic SRQ.  NAKed invalid request, counted, the target in ERR,
 * the initiator's WR failed with REM_INV_REQ; the SRQ untouched.
 */
START_TEST(test_xrc_bad_srq)
{
	struct x_env e;
	struct h_opts o;
	struct sr_wc wc;
	struct h_node *n0, *n1;
	struct sr_srq *basic = NULL;
	struct sr_srq_attr sa = { .max_wr = 4, .max_sge = 1 };
	uint64_t cnt[SR_CNT_MAX];
	uint32_t srqn;

	h_default_opts(&o, SR_QPT_RC);
	x_init(&e, &o);
	n0 = &e.p.n[0];
	n1 = &e.p.n[1];
	if (_i == 0) {
		srqn = sr_srq_num(e.foreign);
	} else if (_i == 1) {
		srqn = 4000;
	} else {
		basic = sr_srq_create(n1->dev, n1->pd, &sa);
		ck_assert_ptr_nonnull(basic);
		srqn = sr_srq_num(basic);
	}
	ck_assert_int_eq(x_recv(&e, e.foreign, 1, 0, 100), 0);
	ck_assert_int_eq(x_recv(&e, e.srq[0], 2, 100, 100), 0);
	ck_assert_int_eq(x_post(&e, SR_WR_SEND, 9, 0, 50, 0, srqn), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_REM_INV_REQ_ERR);
	ck_assert_uint_eq(wc.wr_id, 9);
	sr_qp_counters(e.tgt, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_XRC_SRQ_NAK], 1);
	ck_assert_uint_eq(cnt[SR_CNT_ERR_NAK_SENT], 1);
	ck_assert_int_eq(sr_qp_state(e.tgt), SR_QPS_ERR);
	ck_assert_int_eq(sr_qp_state(e.ini), SR_QPS_ERR);
	ck_assert_uint_eq(n1->events[SR_EVENT_QP_REQ_ERR], 1);
	h_settle(&e.p);
	/* neither SRQ gave its WQE away */
	ck_assert_int_eq(sr_cq_poll(n1->rcq, 1, &wc), 0);
	ck_assert_int_eq(sr_srq_destroy(basic), 0);
	x_fini(&e);
}
END_TEST

/*
 * Traffic in flight when the target goes (_i 0) or, mid-message, the SRQ
 * it places into (_i 1): nothing crashes or leaks; the initiator's first
 * WR ends in an error (retries into a QP that is gone; the NAK of a
 * message whose SRQ went) and the rest are flushed; the domain's other
 * SRQ stays usable.
 */
START_TEST(test_xrc_destroy_in_flight)
{
	struct x_env e;
	struct h_opts o;
	struct sr_wc wc[8];
	struct h_node *n0, *n1;
	uint64_t cnt[SR_CNT_MAX];
	uint32_t srqn = 0;
	int i, got;

	h_default_opts(&o, SR_QPT_RC);
	o.retry = 2;
	o.timeout = 8;           /* ~1 ms */
	o.sim.delay_ns = 20000;
	o.sim.budget = 1;        /* one packet per poll: stop mid-message */
	x_init(&e, &o);
	n0 = &e.p.n[0];
	n1 = &e.p.n[1];
	srqn = sr_srq_num(e.srq[0]);
	fill(n0->buf, 16000, 5);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(x_recv(&e, e.srq[0], 10 + i, 16000 * i,
					16000), 0);
	for (i = 0; i < 4; i++)
		ck_assert_int_eq(x_post(&e, i % 2 ? SR_WR_RDMA_WRITE
						  : SR_WR_SEND,
					20 + i, 0, 12000, 0, srqn), 0);
	/* until the first message is in progress at the target */
	for (i = 0; i < 100000; i++) {
		sr_qp_counters(e.tgt, cnt);
		if (cnt[SR_CNT_RX_PKTS] >= 3)
			break;
		sim_step(e.p.net);
	}
	ck_assert_uint_ge(cnt[SR_CNT_RX_PKTS], 3);
	if (_i == 0) {
		ck_assert_int_eq(sr_qp_destroy(e.tgt), 0);
		e.tgt = NULL;
	} else {
		ck_assert_int_eq(sr_srq_destroy(e.srq[0]), 0);
		e.srq[0] = NULL;
	}
	got = h_wait_cq(&e.p, n0->scq, wc, 4, 10000000);
	ck_assert_int_eq(got, 4);
	ck_assert_int_eq(wc[0].status, _i == 0 ? SR_WC_RETRY_EXC_ERR
					       : SR_WC_REM_INV_REQ_ERR);
	for (i = 1; i < 4; i++)
		ck_assert_int_eq(wc[i].status, SR_WC_WR_FLUSH_ERR);
	if (_i == 1) {
		sr_qp_counters(e.tgt, cnt);
		ck_assert_uint_eq(cnt[SR_CNT_XRC_SRQ_NAK], 1);
		/* the WQE it was placing into went with its SRQ and CQ's
		 * completions stay whole: nothing half-done was pushed */
		ck_assert_int_eq(sr_cq_poll(n1->rcq, 8, wc), 0);
		/* the other SRQ of the domain stays usable */
		ck_assert_int_eq(x_recv(&e, e.srq[1], 1, 0, 10), 0);
	}
	h_settle(&e.p);
	x_fini(&e);
}
END_TEST

/*
 * READs back to back, each longer than what the responder sends at once:
 * the later ones arrive while the earlier one's responses go out, naming
 * the same SRQ (_i 0: queued behind it) or the domain's two SRQs in turn
 * (_i 1: taken once the earlier responses are out).  Every READ returns
 * its own bytes, in order.
 */
START_TEST(test_xrc_reads_pipelined)
{
	struct x_env e;
	struct h_opts o;
	struct sr_wc wc[6];
	struct h_node *n0, *n1;
	uint32_t srqn[2];
	uint64_t cnt[SR_CNT_MAX];
	int i;

	h_default_opts(&o, SR_QPT_RC);
	o.buflen = 1u << 17;
	x_init(&e, &o);
	n0 = &e.p.n[0];
	n1 = &e.p.n[1];
	srqn[0] = sr_srq_num(e.srq[0]);
	srqn[1] = sr_srq_num(e.srq[1]);
	fill(n1->buf, 6 * 12000, 11);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(x_post(&e, SR_WR_RDMA_READ, 30 + i,
					12000 * (uint32_t)i, 12000,
					12000 * (uint32_t)i,
					srqn[_i == 0 ? 0 : i % 2]), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, n0->scq, wc, 6, 1000000), 6);
	for (i = 0; i < 6; i++) {
		ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
		ck_assert_uint_eq(wc[i].wr_id, 30 + (uint64_t)i);
		ck_assert_uint_eq(wc[i].byte_len, 12000);
	}
	ck_assert_mem_eq(n0->buf, n1->buf, 6 * 12000);
	sr_qp_counters(e.tgt, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_XRC_SRQ_NAK], 0);
	ck_assert_uint_eq(cnt[SR_CNT_ERR_NAK_SENT], 0);
	h_settle(&e.p);
	x_fini(&e);
}
END_TEST

/*
 * Each XRC half takes only its side of the XRC transport: RC requests and
 * XRC responses to a target, XRC requests to an initiator or to an RC QP
 * are dropped and counted (no NAK); then a crafted XRC SEND is taken.
 */
START_TEST(test_xrc_wrong_transport)
{
	struct x_env e;
	struct h_opts o;
	struct sr_build b;
	struct sr_wc wc;
	struct h_node *n1;
	uint64_t cnt[SR_CNT_MAX];
	uint8_t data[32];

	h_default_opts(&o, SR_QPT_RC);
	x_init(&e, &o);
	n1 = &e.p.n[1];
	memset(data, 0x6b, sizeof(data));
	ck_assert_int_eq(x_recv(&e, e.srq[0], 77, 0, 100), 0);

	/* to the target: an RC SEND, an XRC ACK */
	craft_init(&e.p, 0, &b, SR_OPCODE(RC, SEND_ONLY), o.psn0);
	b.dqpn = sr_qp_num(e.tgt);
	craft_send(&e.p, 0, &b, data, sizeof(data));
	craft_init(&e.p, 0, &b, SR_OPCODE(XRC, ACKNOWLEDGE), o.psn0);
	b.dqpn = sr_qp_num(e.tgt);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	craft_send(&e.p, 0, &b, NULL, 0);
	/* an XRC request to the initiator, and to node 1's RC QP */
	craft_init(&e.p, 1, &b, SR_OPCODE(XRC, SEND_ONLY), 7);
	b.dqpn = sr_qp_num(e.ini);
	b.xrc_srqn = 1;
	craft_send(&e.p, 1, &b, data, sizeof(data));
	craft_init(&e.p, 0, &b, SR_OPCODE(XRC, SEND_ONLY), o.psn0);
	b.xrc_srqn = sr_srq_num(e.srq[0]);
	craft_send(&e.p, 0, &b, data, sizeof(data));   /* to n1->qp (RC) */
	settle(&e.p);
	sr_qp_counters(e.tgt, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_OPCODE_DROP], 2);
	ck_assert_uint_eq(cnt[SR_CNT_ERR_NAK_SENT], 0);
	sr_qp_counters(e.ini, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_OPCODE_DROP], 1);
	sr_qp_counters(n1->qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_OPCODE_DROP], 1);
	ck_assert_int_eq(sr_cq_poll(n1->rcq, 1, &wc), 0);

	/* the right one: placed into SRQ 0, completed as the target's */
	craft_init(&e.p, 0, &b, SR_OPCODE(XRC, SEND_ONLY), o.psn0);
	b.dqpn = sr_qp_num(e.tgt);
	b.xrc_srqn = sr_srq_num(e.srq[0]);
	b.ackreq = true;
	craft_send(&e.p, 0, &b, data, sizeof(data));
	settle(&e.p);
	ck_assert_int_eq(sr_cq_poll(n1->rcq, 1, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 77);
	ck_assert_uint_eq(wc.byte_len, sizeof(data));
	ck_assert_uint_eq(wc.qp_num, sr_qp_num(e.tgt));
	ck_assert_mem_eq(n1->buf, data, sizeof(data));
	sr_qp_counters(e.tgt, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_ACK_SENT], 1);
	h_settle(&e.p);
	x_fini(&e);
}
END_TEST

/*
 * A duplicate READ answered again after a request named an SRQ with
 * another PD: the responses still read through the PD of the SRQ the
 * READ named (no NAK, the target stays in RTS); destroying that other
 * SRQ and its PD afterwards leaves nothing behind.
 */
START_TEST(test_xrc_dup_read_other_pd)
{
	struct x_env e;
	struct h_opts o;
	struct sr_wc wc;
	struct h_node *n1;
	struct sr_pd *pd2;
	struct sr_srq *srq2;
	struct sr_srq_attr sa = { .max_wr = 4, .max_sge = 1 };
	struct sr_recv_wr rwr = { .wr_id = 99 };
	const struct sr_recv_wr *rbad;
	struct sr_build b;
	uint64_t cnt[SR_CNT_MAX];
	uint32_t srqn0;

	h_default_opts(&o, SR_QPT_RC);
	x_init(&e, &o);
	n1 = &e.p.n[1];
	srqn0 = sr_srq_num(e.srq[0]);
	pd2 = sr_pd_alloc(n1->mrd);
	ck_assert_ptr_nonnull(pd2);
	srq2 = sr_srq_create_xrc(n1->dev, pd2, e.xrcd, n1->rcq, &sa);
	ck_assert_ptr_nonnull(srq2);
	fill(n1->buf + 1000, 3000, 4);

	ck_assert_int_eq(x_post(&e, SR_WR_RDMA_READ, 40, 0, 3000, 1000,
				srqn0), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, e.p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	/* an empty SEND into the SRQ of the other PD */
	ck_assert_int_eq(sr_srq_post_recv(srq2, &rwr, &rbad), 0);
	ck_assert_int_eq(x_post(&e, SR_WR_SEND, 41, 0, 0, 0,
				sr_srq_num(srq2)), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, e.p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(h_wait_cq(&e.p, n1->rcq, &wc, 1, 100000), 1);
	ck_assert_uint_eq(wc.wr_id, 99);

	/* the READ again, as a requester resending it would */
	craft_init(&e.p, 0, &b, SR_OPCODE(XRC, READ_REQUEST), o.psn0);
	b.dqpn = sr_qp_num(e.tgt);
	b.xrc_srqn = srqn0;
	b.reth_va = (uint64_t)(uintptr_t)(n1->buf + 1000);
	b.reth_rkey = sr_mr_rkey(n1->mr);
	b.reth_len = 3000;
	craft_send(&e.p, 0, &b, NULL, 0);
	settle(&e.p);
	sr_qp_counters(e.tgt, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_REQ_DUP], 1);
	ck_assert_uint_eq(cnt[SR_CNT_ERR_NAK_SENT], 0);
	ck_assert_int_eq(sr_qp_state(e.tgt), SR_QPS_RTS);

	/* the SRQ the target last used goes, then its PD */
	ck_assert_int_eq(sr_srq_destroy(srq2), 0);
	ck_assert_int_eq(sr_pd_dealloc(pd2), 0);
	ck_assert_int_eq(x_post(&e, SR_WR_RDMA_WRITE, 42, 0, 100, 2000,
				srqn0), 0);
	ck_assert_int_eq(h_wait_cq(&e.p, e.p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_settle(&e.p);
	x_fini(&e);
}
END_TEST

static Suite *xrc_suite(void)
{
	Suite *s = suite_create("transport_xrc");
	TCase *tc = tcase_create("xrc");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_xrc_objects);
	tcase_add_test(tc, test_xrc_traffic);
	tcase_add_test(tc, test_xrc_cmp_swap);
	tcase_add_loop_test(tc, test_xrc_bad_srq, 0, 3);
	tcase_add_loop_test(tc, test_xrc_destroy_in_flight, 0, 2);
	tcase_add_loop_test(tc, test_xrc_reads_pipelined, 0, 2);
	tcase_add_test(tc, test_xrc_wrong_transport);
	tcase_add_test(tc, test_xrc_dup_read_other_pd);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(xrc_suite)
