/* SPDX-License-Identifier: BSD-3-Clause */
#include "harness.h"

#include "wire/parse.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void h_async(void *ctx, const struct sr_async_event *ev)
{
	struct h_node *n = ctx;

	if ((unsigned int)ev->type < 32)
		n->events[ev->type]++;
}

void h_default_opts(struct h_opts *o, enum sr_qp_type type)
{
	memset(o, 0, sizeof(*o));
	o->type = type;
	o->mtu = SR_MTU_1024;
	o->buflen = 1u << 16;
	o->sq = 64;
	o->rq = 64;
	o->cqe = 256;
	o->timeout = 14;        /* 67 ms */
	o->retry = 7;
	o->rnr_retry = 7;
	o->min_rnr = 1;         /* 10 us */
	o->max_rd = 4;
	o->max_dest_rd = 4;
	o->psn0 = 0xfffff0;     /* wrap early */
	o->psn1 = 100;
	o->max_inline = 64;
	o->sim.seed = 1;
	o->sim.delay_ns = 2000;
}

struct sr_av h_av_to(const struct h_pair *p, int to)
{
	struct sr_av av = { .hop_limit = 64, .sgid_index = 0 };

	memcpy(av.dmac, p->n[to].mac, 6);
	memcpy(av.dgid, p->n[to].gid, 16);
	return av;
}

static void h_node_init(struct h_pair *p, int i)
{
	struct h_node *n = &p->n[i];
	const struct h_opts *o = &p->o;
	struct sr_dev_config cfg = { 0 };
	struct sr_qp_init_attr init = { 0 };

	n->mac[0] = 0x02;
	n->mac[5] = (uint8_t)(i + 1);
	memset(n->gid, 0, 16);
	if (o->ipv6) {
		n->gid[0] = 0xfe;
		n->gid[1] = 0x80;
		n->gid[15] = (uint8_t)(i + 1);
	} else {
		n->gid[10] = 0xff;
		n->gid[11] = 0xff;
		n->gid[12] = 10;
		n->gid[15] = (uint8_t)(i + 1);
	}
	n->mrd = sr_mr_dev_create(NULL);
	ck_assert_ptr_nonnull(n->mrd);
	cfg.link_ops = sim_ops();
	cfg.link = sim_port(p->net, i);
	cfg.mr = n->mrd;
	memcpy(cfg.mac, n->mac, 6);
	memcpy(cfg.gid[0], n->gid, 16);
	cfg.gid_count = 1;
	cfg.async_cb = h_async;
	cfg.async_ctx = n;
	cfg.ecn = o->ecn;
	cfg.cc = o->cc[i];
	cfg.line_bps = o->line_bps[i];
	cfg.line_paced = o->line_paced[i];
	cfg.trace = o->trace[i];
	cfg.qpn_base = o->qpn_base[i];
	cfg.max_qp = o->max_qp[i];
	cfg.window = o->window[i];
	cfg.tx_ref_min = o->tx_ref_min[i];
	/* no safety sweep: a QP the engine's schedule forgets (a missing
	 * kick, core/sched.h) hangs the test instead of costing 10 ms */
	cfg.sched_sweep_ns = UINT64_MAX;
	n->dev = sr_dev_create(&cfg);
	ck_assert_ptr_nonnull(n->dev);
	sim_attach(p->net, i, n->dev);
	n->pd = sr_pd_alloc(n->mrd);
	ck_assert_ptr_nonnull(n->pd);
	n->buf = aligned_alloc(4096, (o->buflen + 4095) & ~4095u);
	ck_assert_ptr_nonnull(n->buf);
	memset(n->buf, 0, o->buflen);
	n->mr = sr_mr_reg_virt(n->pd, n->buf, o->buflen,
			       (uint64_t)(uintptr_t)n->buf,
			       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
			       SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC |
			       SR_ACCESS_MW_BIND);
	ck_assert_ptr_nonnull(n->mr);
	n->scq = sr_cq_create(n->dev, o->cqe, o->scq_notify, n);
	n->rcq = sr_cq_create(n->dev, o->cqe, o->rcq_notify, n);
	ck_assert_ptr_nonnull(n->scq);
	ck_assert_ptr_nonnull(n->rcq);
	if (o->srq) {
		struct sr_srq_attr sa = { .max_wr = o->rq, .max_sge = 4 };

		n->srq = sr_srq_create(n->dev, n->pd, &sa);
		ck_assert_ptr_nonnull(n->srq);
	}
	init.send_cq = n->scq;
	init.recv_cq = n->rcq;
	init.srq = n->srq;
	init.pd = n->pd;
	init.qp_type = o->type;
	init.cap.max_send_wr = o->sq;
	init.cap.max_recv_wr = o->srq ? 0 : o->rq;
	init.cap.max_send_sge = 4;
	init.cap.max_recv_sge = 4;
	init.cap.max_inline_data = o->max_inline;
	n->qp = sr_qp_create(n->dev, &init);
	ck_assert_ptr_nonnull(n->qp);
}

void h_connect(struct h_pair *p, int i)
{
	struct sr_av av = h_av_to(p, 1 - i);

	h_connect_av(p, i, &av);
}

void h_connect_av(struct h_pair *p, int i, const struct sr_av *av)
{
	const struct h_opts *o = &p->o;
	struct sr_qp *qp = p->n[i].qp;
	struct sr_qp_attr a = { 0 };
	unsigned int mask;

	a.qp_state = SR_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = o->access ? o->access
				      : SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE |
					SR_ACCESS_REMOTE_ATOMIC;
	mask = SR_QP_STATE | SR_QP_PKEY_INDEX | SR_QP_PORT |
	       (o->type == SR_QPT_UD ? SR_QP_QKEY : SR_QP_ACCESS_FLAGS);
	ck_assert_int_eq(sr_qp_modify(qp, &a, mask), 0);

	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTR;
	a.path_mtu = o->mtu;
	if (o->type == SR_QPT_UD) {
		mask = SR_QP_STATE | SR_QP_PATH_MTU;
	} else {
		a.av = *av;
		a.av.static_rate = o->static_rate[i];
		a.dest_qp_num = sr_qp_num(p->n[1 - i].qp);
		a.rq_psn = i == 0 ? o->psn1 : o->psn0;
		a.max_dest_rd_atomic = o->max_dest_rd;
		a.min_rnr_timer = o->min_rnr;
		mask = SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU | SR_QP_DEST_QPN |
		       SR_QP_RQ_PSN;
		if (o->type == SR_QPT_RC)
			mask |= SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER;
	}
	ck_assert_int_eq(sr_qp_modify(qp, &a, mask), 0);

	memset(&a, 0, sizeof(a));
	a.qp_state = SR_QPS_RTS;
	a.sq_psn = i == 0 ? o->psn0 : o->psn1;
	a.timeout = o->timeout;
	a.retry_cnt = o->retry;
	a.rnr_retry = o->rnr_retry;
	a.max_rd_atomic = o->max_rd;
	mask = SR_QP_STATE | SR_QP_SQ_PSN;
	if (o->type == SR_QPT_RC)
		mask |= SR_QP_TIMEOUT | SR_QP_RETRY_CNT | SR_QP_RNR_RETRY |
			SR_QP_MAX_QP_RD_ATOMIC;
	ck_assert_int_eq(sr_qp_modify(qp, &a, mask), 0);
}

/* SR_TEST_TRACE=1: print every frame put on the wire. */
static bool h_trace_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct h_pair *p = ctx;
	struct sr_pkt pkt;
	const struct sr_aeth *a;
	const struct sr_reth *r;

	if (sr_parse_eth(frame, *len, 0, &pkt) != SR_PARSE_OK) {
		printf("%llu %d> unparsable\n",
		       (unsigned long long)sim_now(p->net), from);
		return true;
	}
	a = sr_pkt_ext(&pkt, SR_EXT_AETH);
	r = sr_pkt_ext(&pkt, SR_EXT_RETH);
	printf("%llu %d> %s psn=%u%s len=%u", (unsigned long long)sim_now(p->net),
	       from, pkt.op->name, sr_bth_psn(sr_pkt_bth(&pkt)),
	       sr_bth_ackreq(sr_pkt_bth(&pkt)) ? " A" : "", pkt.payload_len);
	if (a)
		printf(" aeth=%02x msn=%u", sr_aeth_syndrome(a), sr_aeth_msn(a));
	if (r)
		printf(" reth len=%u", sr_reth_len(r));
	printf("\n");
	return true;
}

void h_pair_init(struct h_pair *p, const struct h_opts *o)
{
	memset(p, 0, sizeof(*p));
	p->o = *o;
	p->net = sim_create(&o->sim);
	if (getenv("SR_TEST_TRACE") != NULL)
		sim_set_tap(p->net, h_trace_tap, p);
	h_node_init(p, 0);
	h_node_init(p, 1);
	if (!o->no_connect) {
		h_connect(p, 0);
		h_connect(p, 1);
	}
}

void h_pair_fini(struct h_pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct h_node *n = &p->n[i];

		ck_assert_int_eq(sr_qp_destroy(n->qp), 0);
		ck_assert_int_eq(sr_srq_destroy(n->srq), 0);
		ck_assert_int_eq(sr_cq_destroy(n->scq), 0);
		ck_assert_int_eq(sr_cq_destroy(n->rcq), 0);
		ck_assert_uint_eq(sr_dev_qp_count(n->dev), 0);
		ck_assert_uint_eq(sr_dev_cq_count(n->dev), 0);
		ck_assert_uint_eq(sr_dev_srq_count(n->dev), 0);
		ck_assert_int_eq(sr_mr_dereg(n->mr), 0);
		ck_assert_int_eq(sr_pd_dealloc(n->pd), 0);
		ck_assert_uint_eq(sr_mr_dev_in_use(n->mrd), 0);
		ck_assert_int_eq(sr_mr_dev_destroy(n->mrd), 0);
		sr_dev_destroy(n->dev);
		free(n->buf);
	}
	ck_assert_int_eq(sim_destroy(p->net), 0);
}

bool h_run(struct h_pair *p, bool (*done)(struct h_pair *, void *),
	   void *ctx, uint64_t max_steps)
{
	uint64_t i;

	for (i = 0; i < max_steps; i++) {
		if (done != NULL && done(p, ctx))
			return true;
		if (!sim_step(p->net))
			break;
	}
	return done != NULL && done(p, ctx);
}

void h_settle(struct h_pair *p)
{
	h_run(p, NULL, NULL, 1000000);
}

int h_wait_cq(struct h_pair *p, struct sr_cq *cq, struct sr_wc *wc, int n,
	      uint64_t max_steps)
{
	int got = 0;
	uint64_t i;

	for (i = 0; i < max_steps && got < n; i++) {
		got += sr_cq_poll(cq, n - got, wc + got);
		if (got >= n)
			break;
		if (!sim_step(p->net))
			break;
	}
	if (got < n)
		got += sr_cq_poll(cq, n - got, wc + got);
	return got;
}

int h_post_send(struct h_pair *p, int i, enum sr_wr_opcode op, uint64_t id,
		uint32_t off, uint32_t len, uint32_t roff, unsigned int flags)
{
	struct h_node *n = &p->n[i], *r = &p->n[1 - i];
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)(n->buf + off),
		.length = len,
		.lkey = sr_mr_lkey(n->mr),
	};
	struct sr_send_wr wr = {
		.wr_id = id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = op,
		.send_flags = flags,
	};
	const struct sr_send_wr *bad;
	struct sr_av av = h_av_to(p, 1 - i);

	if (op == SR_WR_ATOMIC_CMP_AND_SWP || op == SR_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)(r->buf + roff);
		wr.wr.atomic.rkey = sr_mr_rkey(r->mr);
	} else {
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(r->buf + roff);
		wr.wr.rdma.rkey = sr_mr_rkey(r->mr);
	}
	if (p->o.type == SR_QPT_UD) {
		wr.wr.ud.av = &av;
		wr.wr.ud.remote_qpn = sr_qp_num(r->qp);
		wr.wr.ud.remote_qkey = 0x11111111;
	}
	return sr_qp_post_send(n->qp, &wr, &bad);
}

int h_post_recv(struct h_pair *p, int i, uint64_t id, uint32_t off,
		uint32_t len)
{
	struct h_node *n = &p->n[i];
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)(n->buf + off),
		.length = len,
		.lkey = sr_mr_lkey(n->mr),
	};
	struct sr_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	const struct sr_recv_wr *bad;

	if (n->srq != NULL)
		return sr_srq_post_recv(n->srq, &wr, &bad);
	return sr_qp_post_recv(n->qp, &wr, &bad);
}
