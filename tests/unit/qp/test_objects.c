/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_objects.c — QP state machine, flush on ERR, CQ overflow and
 * notification, SRQ limit, memory-engine work requests, fence, inline
 * and multi-SGE, a QP reset cleaning its CQs, the device's QP table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../transport/harness.h"
#include "qp/qp_priv.h"   /* sr_cq_push: the engine's side of a CQ */
#include "sr_check.h"

START_TEST(test_state_machine)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_qp_attr a = { 0 };
	struct sr_qp *qp;

	h_default_opts(&o, SR_QPT_RC);
	o.no_connect = true;
	h_pair_init(&p, &o);
	qp = p.n[0].qp;
	ck_assert_int_eq(sr_qp_state(qp), SR_QPS_RESET);
	/* RESET -> RTR: not a transition */
	a.qp_state = SR_QPS_RTR;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE), -EINVAL);
	/* RESET -> INIT without its required attributes */
	a.qp_state = SR_QPS_INIT;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE), -EINVAL);
	/* ... or with one it does not allow */
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_PKEY_INDEX |
				      SR_QP_PORT | SR_QP_ACCESS_FLAGS | SR_QP_SQ_PSN),
			 -EINVAL);
	/* posting in RESET/INIT/RTR is refused */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 1, 0, 0), -EINVAL);
	ck_assert_int_eq(h_post_recv(&p, 0, 1, 0, 1), -EINVAL);
	/* out-of-range attributes */
	h_connect(&p, 1);
	a.qp_state = SR_QPS_INIT;
	a.qp_access_flags = SR_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_PKEY_INDEX |
				      SR_QP_PORT | SR_QP_ACCESS_FLAGS), 0);
	ck_assert_int_eq(sr_qp_state(qp), SR_QPS_INIT);
	ck_assert_int_eq(h_post_recv(&p, 0, 1, 0, 1), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTR;
	a.path_mtu = 6;
	a.av = h_av_to(&p, 1);
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU |
				      SR_QP_DEST_QPN | SR_QP_RQ_PSN |
				      SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER),
			 -EINVAL);
	a.path_mtu = SR_MTU_1024;   /* the peer's, or it NAKs */
	a.dest_qp_num = sr_qp_num(p.n[1].qp);
	a.rq_psn = o.psn1;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU |
				      SR_QP_DEST_QPN | SR_QP_RQ_PSN |
				      SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 1, 0, 0), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTS;
	a.retry_cnt = 8;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN | SR_QP_TIMEOUT |
				      SR_QP_RETRY_CNT | SR_QP_RNR_RETRY |
				      SR_QP_MAX_QP_RD_ATOMIC), -EINVAL);
	a.retry_cnt = 7;
	a.sq_psn = o.psn0;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN | SR_QP_TIMEOUT |
				      SR_QP_RETRY_CNT | SR_QP_RNR_RETRY |
				      SR_QP_MAX_QP_RD_ATOMIC), 0);
	/* RTS -> SQD -> RTS; SQE is not an RC state */
	a.qp_state = SR_QPS_SQD;
	a.en_sqd_async_notify = true;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_EN_SQD_ASYNC_NOTIFY), 0);
	h_settle(&p);
	ck_assert_uint_eq(p.n[0].events[SR_EVENT_SQ_DRAINED], 1);
	a.qp_state = SR_QPS_RTS;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE), 0);
	a.qp_state = SR_QPS_SQE;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE), -EINVAL);
	/* the QP works */
	ck_assert_int_eq(h_post_recv(&p, 1, 2, 0, 9000), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 9000, 0, SR_SEND_SIGNALED), 0);
	{
		struct sr_wc wc;

		ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 10000), 1);
		ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	}
	/* any state -> RESET */
	a.qp_state = SR_QPS_RESET;
	ck_assert_int_eq(sr_qp_modify(qp, &a, SR_QP_STATE), 0);
	ck_assert_int_eq(sr_qp_state(qp), SR_QPS_RESET);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_err_flushes)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_qp_attr a = { .qp_state = SR_QPS_ERR };
	struct sr_wc wc[8];
	int n;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_cfg(p.net, &(struct sim_cfg){ .loss_ppm = 1000000, .delay_ns = 1000 });
	ck_assert_int_eq(h_post_recv(&p, 0, 10, 0, 10), 0);
	ck_assert_int_eq(h_post_recv(&p, 0, 11, 0, 10), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 2, 0, 10, 0, 0), 0);
	for (int i = 0; i < 10; i++)
		sim_step_frames(p.net);
	ck_assert_int_eq(sr_qp_modify(p.n[0].qp, &a, SR_QP_STATE), 0);
	sim_step_frames(p.net);
	n = sr_cq_poll(p.n[0].scq, 8, wc);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(wc[0].status, SR_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_int_eq(wc[1].status, SR_WC_WR_FLUSH_ERR);
	n = sr_cq_poll(p.n[0].rcq, 8, wc);
	ck_assert_int_eq(n, 2);
	ck_assert_uint_eq(wc[0].wr_id, 10);
	ck_assert_int_eq(wc[0].status, SR_WC_WR_FLUSH_ERR);
	/* posting in ERR: flushed too */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 3, 0, 10, 0, 0), 0);
	sim_step_frames(p.net);
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, 8, wc), 1);
	ck_assert_int_eq(wc[0].status, SR_WC_WR_FLUSH_ERR);
	h_pair_fini(&p);
}
END_TEST

static int notified;

static void on_notify(struct sr_cq *cq, void *ctx)
{
	(void)cq;
	(void)ctx;
	notified++;
}

START_TEST(test_cq_notify_and_overflow)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[8];
	struct sr_cq *cq;

	h_default_opts(&o, SR_QPT_RC);
	o.rcq_notify = on_notify;
	h_pair_init(&p, &o);
	cq = sr_cq_create(p.n[0].dev, 2, on_notify, NULL);
	ck_assert_ptr_nonnull(cq);
	ck_assert_uint_eq(sr_cq_depth(cq), 2);
	ck_assert_int_eq(sr_cq_destroy(cq), 0);

	/* solicited-only: an unsolicited receive does not wake */
	notified = 0;
	ck_assert_int_eq(sr_cq_req_notify(p.n[1].rcq, true), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 100), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 2, 0, 100), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc, 1, 1000), 1);
	ck_assert_int_eq(notified, 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 10, 0, SR_SEND_SOLICITED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc, 1, 1000), 1);
	ck_assert_int_eq(notified, 1);
	/* armed for next: any completion wakes, once */
	ck_assert_int_eq(sr_cq_req_notify(p.n[1].rcq, false), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 3, 0, 100), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 4, 0, 100), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 3, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 4, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc, 2, 1000), 2);
	ck_assert_int_eq(notified, 2);

	/* overflow: the CQ of 256 gets 300 signaled completions */
	for (int i = 0; i < 300; i++) {
		ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, (uint64_t)i, 0, 8, 0,
					     SR_SEND_SIGNALED), 0);
		if (i % 32 == 31)
			h_settle(&p);
	}
	h_settle(&p);
	ck_assert(sr_cq_overflowed(p.n[0].scq));
	ck_assert_uint_eq(p.n[0].events[SR_EVENT_CQ_ERR], 1);
	while (sr_cq_poll(p.n[0].scq, 8, wc) > 0)
		;
	h_pair_fini(&p);
}
END_TEST

/*
 * A CQ that stamps (sr_cq_stamp) carries the device clock of the round that
 * made each completion: the wire's clock, between its value before the
 * post and after the completion, later after a pause; one that does not
 * carries 0.  sr_cq_empty follows what polling leaves.
 */
START_TEST(test_cq_timestamps)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[2];
	uint64_t before, t1;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sr_cq_stamp(p.n[0].scq, true);
	ck_assert(sr_cq_empty(p.n[0].scq));
	sim_advance(p.net, 5000000);
	before = sim_now(p.net);
	ck_assert_uint_eq(sr_cq_clock_ns(p.n[0].scq), before);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 8, 0,
				     SR_SEND_SIGNALED), 0);
	h_settle(&p);
	ck_assert(!sr_cq_empty(p.n[0].scq));
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, 2, wc), 1);
	ck_assert(sr_cq_empty(p.n[0].scq));
	ck_assert_uint_ge(wc[0].timestamp, before);
	ck_assert_uint_le(wc[0].timestamp, sim_now(p.net));
	t1 = wc[0].timestamp;
	sim_advance(p.net, 20000000);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 2, 0, 8, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 1000), 1);
	ck_assert_uint_ge(wc[0].timestamp, t1 + 20000000);
	/* off: nothing stamped */
	sr_cq_stamp(p.n[0].scq, false);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 3, 0, 8, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 1000), 1);
	ck_assert_uint_eq(wc[0].timestamp, 0);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_srq_limit)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_srq_attr sa = { .srq_limit = 3 };
	struct sr_wc wc[8];

	h_default_opts(&o, SR_QPT_RC);
	o.srq = true;
	o.rq = 8;
	h_pair_init(&p, &o);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(h_post_recv(&p, 1, (uint64_t)i, (uint32_t)i * 100, 100), 0);
	ck_assert_int_eq(sr_srq_modify(p.n[1].srq, &sa, SR_SRQ_LIMIT), 0);
	ck_assert_int_eq(h_post_recv(&p, 0, 0, 0, 1), 0); /* QP 0 has an SRQ too */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 50, 0, 0), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc, 1, 1000), 1);
	ck_assert_uint_eq(p.n[1].events[SR_EVENT_SRQ_LIMIT_REACHED], 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 50, 0, 0), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 3, 0, 50, 0, 0), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc, 2, 1000), 2);
	ck_assert_uint_eq(p.n[1].events[SR_EVENT_SRQ_LIMIT_REACHED], 1);
	ck_assert_int_eq(sr_srq_query(p.n[1].srq, &sa), 0);
	ck_assert_uint_eq(sa.srq_limit, 0);       /* disarmed */
	ck_assert_uint_eq(wc[1].wr_id, 2);
	h_settle(&p);
	h_pair_fini(&p);
}
END_TEST

/* Fast-register, SEND_WITH_INV, LOCAL_INV and BIND_MW through lib/mr. */
START_TEST(test_mem_ops)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	struct sr_mr *fr;
	struct sr_mw *mw;
	uint64_t pages[2];
	struct sr_send_wr wr = { 0 };
	const struct sr_send_wr *bad;
	uint32_t key;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	/* node 1 fast-registers 2 pages of its buffer */
	fr = sr_mr_create(p.n[1].pd, true);
	ck_assert_ptr_nonnull(fr);
	ck_assert_int_eq(sr_frmr_init(fr, 4, true), 0);
	pages[0] = (uint64_t)(uintptr_t)p.n[1].buf + 8192;
	pages[1] = pages[0] + 4096;
	key = (sr_mr_lkey(fr) & ~0xffu) | ((sr_mr_lkey(fr) + 1) & 0xff);
	wr.opcode = SR_WR_REG_MR;
	wr.send_flags = SR_SEND_SIGNALED;
	wr.wr.reg.mr = fr;
	wr.wr.reg.pages = pages;
	wr.wr.reg.npages = 2;
	wr.wr.reg.length = 8192;
	wr.wr.reg.iova = 0x10000;
	wr.wr.reg.access = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_WRITE;
	wr.wr.reg.key = key;
	ck_assert_int_eq(sr_qp_post_send(p.n[1].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_REG_MR);
	ck_assert(sr_mr_is_valid(fr));
	/* node 0 writes through it, then sends with invalidate */
	{
		struct sr_sge sge = { .addr = (uint64_t)(uintptr_t)p.n[0].buf,
				      .length = 100, .lkey = sr_mr_lkey(p.n[0].mr) };

		memset(p.n[0].buf, 0x77, 100);
		memset(&wr, 0, sizeof(wr));
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = SR_WR_RDMA_WRITE;
		wr.send_flags = SR_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = 0x10000 + 4000;
		wr.wr.rdma.rkey = key;
		ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
		ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000), 1);
		ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
		ck_assert_mem_eq(p.n[1].buf + 8192 + 4000, p.n[0].buf, 100);
		ck_assert_int_eq(h_post_recv(&p, 1, 5, 0, 64), 0);
		sge.length = 8;
		wr.opcode = SR_WR_SEND_WITH_INV;
		wr.invalidate_rkey = key;
		ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
		ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, &wc, 1, 1000), 1);
		ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
		ck_assert(wc.wc_flags & SR_WC_WITH_INV);
		ck_assert_uint_eq(wc.invalidated_rkey, key);
		ck_assert(!sr_mr_is_valid(fr));
		ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000), 1);
		/* now the key is dead for the responder's lookup */
		{
			struct sr_mr_ref ref;

			ck_assert_int_eq(sr_mr_lookup(p.n[1].mrd, key, true, 0x10000, 8,
						      SR_ACCESS_REMOTE_WRITE,
						      p.n[1].pd, sr_qp_num(p.n[1].qp),
						      &ref), SR_MR_E_STATE);
		}
	}
	/* node 1: type-2 window bound by a WR, then locally invalidated */
	mw = sr_mw_alloc(p.n[1].pd, SR_MW_TYPE_2);
	ck_assert_ptr_nonnull(mw);
	key = (sr_mw_rkey(mw) & ~0xffu) | ((sr_mw_rkey(mw) + 1) & 0xff);
	memset(&wr, 0, sizeof(wr));
	wr.opcode = SR_WR_BIND_MW;
	wr.send_flags = SR_SEND_SIGNALED;
	wr.wr.bind_mw.mw = mw;
	wr.wr.bind_mw.rkey = key;
	wr.wr.bind_mw.mr = p.n[1].mr;
	wr.wr.bind_mw.addr = (uint64_t)(uintptr_t)p.n[1].buf;
	wr.wr.bind_mw.length = 4096;
	wr.wr.bind_mw.access = SR_ACCESS_REMOTE_READ;
	ck_assert_int_eq(sr_qp_post_send(p.n[1].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_BIND_MW);
	ck_assert(sr_mw_is_bound(mw));
	memset(&wr, 0, sizeof(wr));
	wr.opcode = SR_WR_LOCAL_INV;
	wr.send_flags = SR_SEND_SIGNALED;
	wr.invalidate_rkey = key;
	ck_assert_int_eq(sr_qp_post_send(p.n[1].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, SR_WC_OP_LOCAL_INV);
	ck_assert(!sr_mw_is_bound(mw));
	/* invalidating it again with a stale key: MW_BIND_ERR, QP to ERR */
	wr.invalidate_rkey = key ^ 0x80;
	ck_assert_int_eq(sr_qp_post_send(p.n[1].qp, &wr, &bad), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_MW_BIND_ERR);
	ck_assert_int_eq(sr_qp_state(p.n[1].qp), SR_QPS_ERR);
	h_settle(&p);
	ck_assert_int_eq(sr_mw_dealloc(mw), 0);
	ck_assert_int_eq(sr_mr_destroy(fr), 0);
	h_pair_fini(&p);
}
END_TEST

/* Inline, multi-SGE gather and scatter, unsignaled, fence. */
START_TEST(test_inline_sge_fence)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[4];
	struct sr_sge s[3], r[3];
	struct sr_send_wr wr = { 0 };
	struct sr_recv_wr rw = { 0 };
	const struct sr_send_wr *bad;
	const struct sr_recv_wr *rbad;
	uint8_t inl[40];

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_256;
	h_pair_init(&p, &o);
	for (int i = 0; i < 3000; i++)
		p.n[0].buf[i] = (uint8_t)(i * 11);
	for (int i = 0; i < 3; i++) {
		s[i].addr = (uint64_t)(uintptr_t)p.n[0].buf + (uint64_t)i * 1000;
		s[i].length = 300 + (uint32_t)i * 50;
		s[i].lkey = sr_mr_lkey(p.n[0].mr);
		r[i].addr = (uint64_t)(uintptr_t)p.n[1].buf + 5000 + (uint64_t)i * 2000;
		r[i].length = 400;
		r[i].lkey = sr_mr_lkey(p.n[1].mr);
	}
	rw.sg_list = r;
	rw.num_sge = 3;
	ck_assert_int_eq(sr_qp_post_recv(p.n[1].qp, &rw, &rbad), 0);
	wr.sg_list = s;
	wr.num_sge = 3;
	wr.opcode = SR_WR_SEND;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);  /* unsignaled */
	ck_assert_int_eq(h_wait_cq(&p, p.n[1].rcq, wc, 1, 1000), 1);
	ck_assert_uint_eq(wc[0].byte_len, 300 + 350 + 400);
	{
		uint8_t want[1050], got[1050];

		memcpy(want, p.n[0].buf, 300);
		memcpy(want + 300, p.n[0].buf + 1000, 350);
		memcpy(want + 650, p.n[0].buf + 2000, 400);
		memcpy(got, p.n[1].buf + 5000, 400);
		memcpy(got + 400, p.n[1].buf + 7000, 400);
		memcpy(got + 800, p.n[1].buf + 9000, 250);
		ck_assert_mem_eq(got, want, 1050);
	}
	/* inline: the user buffer may change right after posting */
	memset(inl, 0x3c, sizeof(inl));
	s[0].addr = (uint64_t)(uintptr_t)inl;
	s[0].length = sizeof(inl);
	s[0].lkey = 0;                    /* not looked up */
	wr.num_sge = 1;
	wr.opcode = SR_WR_RDMA_WRITE;
	wr.send_flags = SR_SEND_INLINE | SR_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)p.n[1].buf + 20000;
	wr.wr.rdma.rkey = sr_mr_rkey(p.n[1].mr);
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), 0);
	memset(inl, 0, sizeof(inl));
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 1000), 1);
	ck_assert_int_eq(wc[0].status, SR_WC_SUCCESS);
	ck_assert_uint_eq(p.n[1].buf[20000], 0x3c);
	ck_assert_uint_eq(p.n[1].buf[20039], 0x3c);
	/* too much inline */
	s[0].length = 65;
	ck_assert_int_eq(sr_qp_post_send(p.n[0].qp, &wr, &bad), -EINVAL);
	/* fence: the WRITE waits for the READ before it */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 1, 30000, 2000, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 2, 30000, 2000, 40000,
				     SR_SEND_SIGNALED | SR_SEND_FENCE), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 2, 10000), 2);
	ck_assert_mem_eq(p.n[1].buf + 40000, p.n[1].buf, 2000);
	h_pair_fini(&p);
}
END_TEST

/*
 * Zero-sized queues are legal (qperf asks for them): a QP with no receive
 * queue takes WRITEs, one with no send queue receives; posting to the
 * empty side is "queue full", and the caps say 0.
 */
START_TEST(test_zero_sized_queues)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;
	struct sr_qp_attr a;
	struct sr_qp_init_attr ia;

	h_default_opts(&o, SR_QPT_RC);
	o.rq = 0;
	h_pair_init(&p, &o);
	ck_assert_int_eq(sr_qp_query(p.n[1].qp, &a, &ia), 0);
	ck_assert_uint_eq(ia.cap.max_recv_wr, 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 64), -ENOMEM);
	memset(p.n[0].buf, 0x5e, 256);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 7, 0, 256, 1024,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 10000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(p.n[1].buf[1024 + 255], 0x5e);
	h_pair_fini(&p);

	h_default_opts(&o, SR_QPT_UD);
	o.sq = 0;
	h_pair_init(&p, &o);
	ck_assert_int_eq(sr_qp_query(p.n[0].qp, &a, &ia), 0);
	ck_assert_uint_eq(ia.cap.max_send_wr, 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 16, 0, 0), -ENOMEM);
	ck_assert_int_eq(h_post_recv(&p, 0, 1, 0, 64), 0);
	h_pair_fini(&p);
}
END_TEST

/*
 * A CQ is at most the max_cq_depth the device advertises; resizing keeps
 * the completions it holds, in order, and will not go below their number.
 */
START_TEST(test_cq_limits_and_resize)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[4];
	uint32_t max;
	struct sr_cq *cq;

	h_default_opts(&o, SR_QPT_RC);
	o.cqe = 4;
	h_pair_init(&p, &o);
	max = sr_mr_dev_limits(sr_dev_mr(p.n[0].dev))->max_cq_depth;
	ck_assert_ptr_null(sr_cq_create(p.n[0].dev, max + 1, NULL, NULL));
	cq = sr_cq_create(p.n[0].dev, max, NULL, NULL);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(sr_cq_resize(cq, max + 1), -EINVAL);
	ck_assert_int_eq(sr_cq_resize(cq, 0), -EINVAL);
	ck_assert_int_eq(sr_cq_destroy(cq), 0);

	for (uint64_t id = 1; id <= 3; id++)
		ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, id, 0, 8,
					     64, SR_SEND_SIGNALED), 0);
	h_settle(&p);
	ck_assert_int_eq(sr_cq_resize(p.n[0].scq, 2), -EINVAL);
	ck_assert_int_eq(sr_cq_resize(p.n[0].scq, 100), 0);
	ck_assert_uint_ge(sr_cq_depth(p.n[0].scq), 100);
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, 4, wc), 3);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(wc[i].wr_id, (uint64_t)i + 1);
		ck_assert_int_eq(wc[i].status, SR_WC_SUCCESS);
	}
	/* shrink an empty CQ, and it still works */
	ck_assert_int_eq(sr_cq_resize(p.n[0].scq, 2), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 9, 0, 8, 64,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 10000), 1);
	ck_assert_uint_eq(wc[0].wr_id, 9);
	h_pair_fini(&p);
}
END_TEST

/*
 * A QP moved to RESET leaves no completion in its CQs (sr_cq_clean), and a
 * removed entry between others is skipped by the poll.
 */
START_TEST(test_reset_cleans_cq)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_qp_attr a = { .qp_state = SR_QPS_ERR };
	struct sr_wc wc[8];
	struct sr_cq *cq;
	uint32_t qpn;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	qpn = sr_qp_num(p.n[0].qp);
	for (uint64_t id = 10; id < 13; id++)
		ck_assert_int_eq(h_post_recv(&p, 0, id, 0, 10), 0);
	ck_assert_int_eq(sr_qp_modify(p.n[0].qp, &a, SR_QP_STATE), 0);
	sim_step_frames(p.net);
	ck_assert_int_eq(sr_cq_poll(p.n[0].rcq, 1, wc), 1);
	ck_assert_int_eq(wc[0].status, SR_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(sr_cq_clean(p.n[0].rcq, qpn + 1), 0);
	a.qp_state = SR_QPS_RESET;
	ck_assert_int_eq(sr_qp_modify(p.n[0].qp, &a, SR_QP_STATE), 0);
	sim_step_frames(p.net);
	ck_assert_int_eq(sr_cq_poll(p.n[0].rcq, 8, wc), 0);
	ck_assert_uint_eq(sr_cq_clean(p.n[0].rcq, qpn), 0);

	/* QPs 1 and 2 interleaved; 2's removed, 1's polled in order */
	cq = sr_cq_create(p.n[0].dev, 8, NULL, NULL);
	ck_assert_ptr_nonnull(cq);
	for (uint64_t id = 0; id < 6; id++) {
		struct sr_wc w = { .wr_id = id, .qp_num = 1 + (id & 1) };

		sr_cq_push(cq, &w, false);
	}
	ck_assert_uint_eq(sr_cq_clean(cq, 2), 3);
	ck_assert_int_eq(sr_cq_poll(cq, 2, wc), 2);
	ck_assert_uint_eq(wc[0].wr_id, 0);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_int_eq(sr_cq_poll(cq, 8, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 4);
	ck_assert_int_eq(sr_cq_poll(cq, 8, wc), 0);
	/* the freed slots are usable again: 8 fit */
	for (uint64_t id = 0; id < 8; id++) {
		struct sr_wc w = { .wr_id = id, .qp_num = 1 };

		sr_cq_push(cq, &w, false);
	}
	ck_assert(!sr_cq_overflowed(cq));
	ck_assert_int_eq(sr_cq_poll(cq, 8, wc), 8);
	ck_assert_int_eq(sr_cq_destroy(cq), 0);
	h_pair_fini(&p);
}
END_TEST

/*
 * Fill node n's device with QPs beside the harness's one: it holds exactly
 * its max_qp, each with its own QPN in [qpn_base, qpn_base + max_qp), each
 * found by its QPN; one more is refused; a freed slot is taken again.
 */
static void fill_qp_table(struct h_pair *p, int n, uint32_t base,
			  uint32_t max)
{
	struct h_node *nd = &p->n[n];
	struct sr_qp_init_attr init = {
		.send_cq = nd->scq, .recv_cq = nd->rcq, .pd = nd->pd,
		.qp_type = SR_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct sr_qp **qp = calloc(max, sizeof(*qp));
	uint8_t *seen = calloc(max, 1);
	uint32_t i, qpn;

	ck_assert_ptr_nonnull(qp);
	ck_assert_ptr_nonnull(seen);
	ck_assert_uint_eq(sr_dev_max_qp(nd->dev), max);
	seen[sr_qp_num(nd->qp) - base] = 1;
	for (i = 1; i < max; i++) {
		qp[i] = sr_qp_create(nd->dev, &init);
		ck_assert_msg(qp[i] != NULL, "QP %u of %u refused", i, max);
		qpn = sr_qp_num(qp[i]);
		ck_assert_uint_ge(qpn, base);
		ck_assert_uint_lt(qpn, base + max);
		ck_assert_uint_eq(seen[qpn - base], 0);
		seen[qpn - base] = 1;
		ck_assert_ptr_eq(sr_dev_qp_lookup(nd->dev, qpn), qp[i]);
	}
	ck_assert_uint_eq(sr_dev_qp_count(nd->dev), max);
	ck_assert_ptr_null(sr_qp_create(nd->dev, &init));
	ck_assert_ptr_null(sr_dev_qp_lookup(nd->dev, base + max));
	/* free one in the middle: the next QP takes its number */
	qpn = sr_qp_num(qp[max / 2]);
	ck_assert_int_eq(sr_qp_destroy(qp[max / 2]), 0);
	ck_assert_ptr_null(sr_dev_qp_lookup(nd->dev, qpn));
	qp[max / 2] = sr_qp_create(nd->dev, &init);
	ck_assert_ptr_nonnull(qp[max / 2]);
	ck_assert_uint_eq(sr_qp_num(qp[max / 2]), qpn);
	ck_assert_ptr_null(sr_qp_create(nd->dev, &init));
	for (i = 1; i < max; i++)
		ck_assert_int_eq(sr_qp_destroy(qp[i]), 0);
	ck_assert_uint_eq(sr_dev_qp_count(nd->dev), 1);
	free(seen);
	free(qp);
}

START_TEST(test_qp_table)
{
	struct h_pair p;
	struct h_opts o;

	/* a device of its own: SR_MAX_QP (16384) QPs from QPN 2 */
	h_default_opts(&o, SR_QPT_RC);
	o.sq = 1;
	o.rq = 1;
	h_pair_init(&p, &o);
	fill_qp_table(&p, 0, 2, SR_MAX_QP);
	h_pair_fini(&p);

	/* a client of sroced: its block of 4096 QPNs, the last one */
	h_default_opts(&o, SR_QPT_RC);
	o.sq = 1;
	o.rq = 1;
	o.qpn_base[1] = 0xfff000;
	o.max_qp[1] = 4096;
	h_pair_init(&p, &o);
	fill_qp_table(&p, 1, 0xfff000, 4096);
	h_pair_fini(&p);
}
END_TEST

static Suite *objects_suite(void)
{
	Suite *s = suite_create("qp_objects");
	TCase *tc = tcase_create("objects");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_state_machine);
	tcase_add_test(tc, test_err_flushes);
	tcase_add_test(tc, test_cq_notify_and_overflow);
	tcase_add_test(tc, test_cq_timestamps);
	tcase_add_test(tc, test_srq_limit);
	tcase_add_test(tc, test_mem_ops);
	tcase_add_test(tc, test_inline_sge_fence);
	tcase_add_test(tc, test_zero_sized_queues);
	tcase_add_test(tc, test_cq_limits_and_resize);
	tcase_add_test(tc, test_reset_cleans_cq);
	tcase_add_test(tc, test_qp_table);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(objects_suite)
