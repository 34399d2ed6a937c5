/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * misuse.c — misuse gives errors, not crashes; plus same-process loopback.
 *
 * One process, linked against the drop-in libibverbs, on its own default
 * link (no peer needed: every check below is decided locally):
 *   wrong_lkey        a send whose SGE names no MR completes LOC_PROT_ERR
 *   sge_past_mr       a send whose SGE runs past its MR: LOC_PROT_ERR
 *   bad_access        ibv_reg_mr(REMOTE_WRITE without LOCAL_WRITE): EINVAL,
 *                     RELAXED_ORDERING accepted
 *   full_sq           posting more than max_send_wr: ENOMEM and bad_wr
 *   cq_overrun        a 1-entry CQ fed 16 completions: IBV_EVENT_CQ_ERR
 *   dead_peer         RC to a destroyed QP's number: an error completion
 *   loopback          two RC QPs of one context: a SEND arrives (the pmd
 *                     loops frames to the device's own MAC back)
 *   posts_unpolled    WRITEs posted behind others land while the consumer
 *                     makes no verbs call (the shim's helper sends them)
 *   two_contexts      the same between QPs of two contexts of one device
 *   mcast             ibv_attach_mcast/ibv_detach_mcast: the device's
 *                     limits, the documented errors, and a datagram to a
 *                     group one of the context's QPs joined arrives there
 *                     (a device's own members get its multicast, as on
 *                     an RNIC)
 * Exit 0 when all pass; each check prints one line.
 */
#include <errno.h>
#include <signal.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "report.h"

#define GID_INDEX 1
#define BUF_LEN 4096

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

/* Forward: the QP table check below needs make_qp. */
static struct ibv_qp *make_qp(struct env *e, enum ibv_qp_type type,
			      struct ibv_cq *cq, uint32_t sq);

/* Poll one completion for up to secs; 1 when got. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now_s() + secs;

	while (now_s() < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return 0;
		if (n == 1)
			return 1;
	}
	return 0;
}

static struct ibv_qp *make_qp(struct env *e, enum ibv_qp_type type,
			      struct ibv_cq *cq, uint32_t sq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = type,
		.cap = { .max_send_wr = sq, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};

	return ibv_create_qp(e->pd, &ia);
}

static int to_init(struct ibv_qp *qp, enum ibv_qp_type type)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = 0x11111111,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | (type == IBV_QPT_UD ? IBV_QP_QKEY :
					    IBV_QP_ACCESS_FLAGS));
}

/* UD to RTS. */
static int ud_up(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTR };

	if (to_init(qp, IBV_QPT_UD) || ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* RC to RTS towards our own GID and QP number dqpn. */
static int rc_up(struct env *e, struct ibv_qp *qp, uint32_t dqpn,
		 uint8_t timeout, uint8_t retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = 1, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = e->gid, .sgid_index = GID_INDEX,
				      .hop_limit = 64 } },
	};

	if (to_init(qp, IBV_QPT_RC) ||
	    ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = timeout;
	a.retry_cnt = retry;
	a.rnr_retry = retry;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

static int ud_send(struct ibv_qp *qp, struct ibv_ah *ah, uint64_t addr,
		   uint32_t len, uint32_t lkey, uint64_t id)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = 0xffffff & 0x123,
			   .remote_qkey = 0x11111111 },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Destroy what a check made; NULLs are skipped. */
static void drop(struct ibv_ah *ah, struct ibv_qp *qa, struct ibv_qp *qb,
		 struct ibv_cq *cq)
{
	if (ah)
		ibv_destroy_ah(ah);
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (cq)
		ibv_destroy_cq(cq);
}

/* Two RC QPs of e's context on one CQ, connected to each other. */
struct rc_pair {
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
};

static int rc_pair_up(struct env *e, struct rc_pair *p, uint32_t sq)
{
	p->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	p->a = p->cq ? make_qp(e, IBV_QPT_RC, p->cq, sq) : NULL;
	p->b = p->cq ? make_qp(e, IBV_QPT_RC, p->cq, sq) : NULL;
	if (!p->a || !p->b || rc_up(e, p->a, p->b->qp_num, 14, 7) ||
	    rc_up(e, p->b, p->a->qp_num, 14, 7))
		return -1;
	return 0;
}

static void rc_pair_down(struct rc_pair *p)
{
	drop(NULL, p->a, p->b, p->cq);
}

static void check_local_errors(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(e, IBV_QPT_UD, cq, 16) : NULL;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .dgid = e->gid,
					   .sgid_index = GID_INDEX,
					   .hop_limit = 64 } };
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	char msg[96];
	int rc;

	if (!qp || ud_up(qp) || !(ah = ibv_create_ah(e->pd, &aa))) {
		report("wrong_lkey", 0, "setup failed");
		report("sge_past_mr", 0, "setup failed");
		goto out;
	}
	rc = ud_send(qp, ah, (uintptr_t)e->buf, 64, e->mr->lkey ^ 0x5500, 1);
	if (rc == 0 && poll_one(cq, &wc, 5)) {
		snprintf(msg, sizeof(msg), "post 0, completion %s",
			 ibv_wc_status_str(wc.status));
		report("wrong_lkey", wc.status == IBV_WC_LOC_PROT_ERR, msg);
	} else {
		snprintf(msg, sizeof(msg), "post %d (an error at post time is fine)", rc);
		report("wrong_lkey", rc != 0, msg);
	}
	ibv_destroy_qp(qp);
	qp = make_qp(e, IBV_QPT_UD, cq, 16);
	if (!qp || ud_up(qp)) {
		report("sge_past_mr", 0, "setup failed");
		goto out;
	}
	rc = ud_send(qp, ah, (uintptr_t)e->buf + BUF_LEN - 16, 64,
		     e->mr->lkey, 2);
	if (rc == 0 && poll_one(cq, &wc, 5)) {
		snprintf(msg, sizeof(msg), "post 0, completion %s",
			 ibv_wc_status_str(wc.status));
		report("sge_past_mr", wc.status == IBV_WC_LOC_PROT_ERR ||
				      wc.status == IBV_WC_LOC_LEN_ERR, msg);
	} else {
		snprintf(msg, sizeof(msg), "post %d", rc);
		report("sge_past_mr", rc != 0, msg);
	}
out:
	drop(ah, qp, NULL, cq);
}

static void check_bad_access(struct env *e)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, e->buf, BUF_LEN,
				       IBV_ACCESS_REMOTE_WRITE);
	struct ibv_mr *ro;
	int err = errno;

	report("bad_access", mr == NULL && err == EINVAL,
	       mr ? "registered" : strerror(err));
	if (mr)
		ibv_dereg_mr(mr);
	ro = ibv_reg_mr(e->pd, e->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_RELAXED_ORDERING);
	report("relaxed_ordering", ro != NULL, ro ? NULL : strerror(errno));
	if (ro)
		ibv_dereg_mr(ro);
}

static void check_full_sq(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(e, IBV_QPT_RC, cq, 4) : NULL;
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 8,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr[64], *bad = NULL;
	char msg[96];
	int rc, i;

	/* A peer QP number nobody has: nothing is ever acknowledged. */
	if (!qp || rc_up(e, qp, 0xabcde, 20, 7)) {
		report("full_sq", 0, "setup failed");
		goto out;
	}
	for (i = 0; i < 64; i++)
		wr[i] = (struct ibv_send_wr){
			.wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
			.next = i + 1 < 64 ? &wr[i + 1] : NULL,
		};
	rc = ibv_post_send(qp, wr, &bad);
	snprintf(msg, sizeof(msg), "rc %d, bad_wr #%ld", rc,
		 bad ? (long)(bad - wr) : -1L);
	report("full_sq", rc == ENOMEM && bad != NULL && bad != wr, msg);
out:
	drop(NULL, qp, NULL, cq);
}

static void check_cq_overrun(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 1, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(e, IBV_QPT_UD, cq, 32) : NULL;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .dgid = e->gid,
					   .sgid_index = GID_INDEX,
					   .hop_limit = 64 } };
	struct ibv_ah *ah = NULL;
	struct ibv_async_event ev;
	struct pollfd p = { .fd = e->ctx->async_fd, .events = POLLIN };
	char msg[96];
	int got = 0;

	if (!qp || ud_up(qp) || !(ah = ibv_create_ah(e->pd, &aa))) {
		report("cq_overrun", 0, "setup failed");
		goto out;
	}
	for (int i = 0; i < 16; i++)
		ud_send(qp, ah, (uintptr_t)e->buf, 8, e->mr->lkey, (uint64_t)i);
	/* progress runs in the background; the event must come (the QP's
	 * QP_FATAL may come first: the overrun takes its QPs to ERR) */
	snprintf(msg, sizeof(msg), "no async event");
	for (double end = now_s() + 5; !got && now_s() < end;) {
		if (poll(&p, 1, 100) != 1 ||
		    ibv_get_async_event(e->ctx, &ev) != 0)
			continue;
		got = ev.event_type == IBV_EVENT_CQ_ERR &&
		      ev.element.cq == cq;
		snprintf(msg, sizeof(msg), "async event %s",
			 ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
	report("cq_overrun", got, msg);
out:
	drop(ah, qp, NULL, cq);
}

static void check_dead_peer(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(e, IBV_QPT_RC, cq, 4) : NULL;
	struct ibv_qp *dead = cq ? make_qp(e, IBV_QPT_RC, cq, 4) : NULL;
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 8,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;
	uint32_t dqpn;
	char msg[96];

	if (!qp || !dead) {
		report("dead_peer", 0, "setup failed");
		goto out;
	}
	dqpn = dead->qp_num;
	ibv_destroy_qp(dead);
	dead = NULL;
	/* timeout 4 (65 us) x (1 + 1 retry) */
	if (rc_up(e, qp, dqpn, 4, 1) || ibv_post_send(qp, &wr, &bad)) {
		report("dead_peer", 0, "setup or post failed");
		goto out;
	}
	if (poll_one(cq, &wc, 10)) {
		snprintf(msg, sizeof(msg), "completion %s",
			 ibv_wc_status_str(wc.status));
		report("dead_peer", wc.status != IBV_WC_SUCCESS, msg);
	} else {
		report("dead_peer", 0, "no completion");
	}
out:
	drop(NULL, dead, qp, cq);
}

static void check_loopback(struct env *e)
{
	struct rc_pair p;
	struct ibv_sge ss = { .addr = (uintptr_t)e->buf, .length = 32,
			      .lkey = e->mr->lkey };
	struct ibv_sge rs = { .addr = (uintptr_t)e->buf + 1024, .length = 64,
			      .lkey = e->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &rs, .num_sge = 1 },
			   *rbad;
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &ss, .num_sge = 1,
				   .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_wc wc;
	int recvd = 0, sent = 0;

	if (rc_pair_up(e, &p, 4) || ibv_post_recv(p.b, &rwr, &rbad)) {
		report("loopback", 0, "setup failed");
		goto out;
	}
	snprintf((char *)e->buf, 32, "same-process loopback, one ctx");
	if (ibv_post_send(p.a, &swr, &sbad)) {
		report("loopback", 0, "post failed");
		goto out;
	}
	while ((!recvd || !sent) && poll_one(p.cq, &wc, 5)) {
		if (wc.status != IBV_WC_SUCCESS)
			break;
		recvd |= wc.wr_id == 2;
		sent |= wc.wr_id == 1;
	}
	report("loopback", recvd && sent &&
			   memcmp(e->buf + 1024, e->buf, 32) == 0,
	       recvd ? NULL : "the SEND did not arrive");
out:
	rc_pair_down(&p);
}

/* IBV_QP_RATE_LIMIT (kbit/s; every 32-bit value is a rate the pacer
 * takes) on an RC QP is accepted, and 0 lifts it; so does
 * ibv_modify_qp_rate_limit (a verbs_context op: EOPNOTSUPP without it),
 * which refuses a comp_mask it does not know. */
/* The device's QPs all taken: one more is refused with ENOMEM ("not
 * enough resources"), as many as ibv_query_device's max_qp fit, and a
 * freed one can be had again. */
static void check_qp_table_full(struct env *e)
{
	struct ibv_device_attr da;
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	struct ibv_qp **qp = NULL, *extra = NULL;
	int n = 0, err = 0, again = 0;
	char msg[128];

	if (cq == NULL || ibv_query_device(e->ctx, &da) ||
	    (qp = calloc((size_t)da.max_qp + 1, sizeof(*qp))) == NULL) {
		report("qp_table_full", 0, "setup failed");
		goto out;
	}
	while (n <= da.max_qp && (qp[n] = make_qp(e, IBV_QPT_RC, cq, 1)) != NULL)
		n++;
	err = errno;
	if (n > 0) {
		ibv_destroy_qp(qp[--n]);
		extra = make_qp(e, IBV_QPT_RC, cq, 1);
		again = extra != NULL;
	}
	/* the process's other QPs are gone by now: all max_qp were ours */
	snprintf(msg, sizeof(msg), "%d of max_qp %d, then errno %d (want ENOMEM), a freed one again: %d",
		 n + 1, da.max_qp, err, again);
	report("qp_table_full", n + 1 == da.max_qp && err == ENOMEM && again, msg);
out:
	if (extra)
		ibv_destroy_qp(extra);
	while (qp != NULL && n > 0)
		ibv_destroy_qp(qp[--n]);
	free(qp);
	if (cq)
		ibv_destroy_cq(cq);
}

static void check_rate_limit(struct env *e)
{
	struct rc_pair p;
	struct ibv_qp_attr a = { .rate_limit = 1000000 };   /* 1 Gbit/s */
	struct ibv_qp_attr big = { .rate_limit = UINT32_MAX };
	int ok;

	if (rc_pair_up(e, &p, 4)) {
		report("rate limit", 0, "setup failed");
		rc_pair_down(&p);
		return;
	}
	ok = ibv_modify_qp(p.a, &a, IBV_QP_RATE_LIMIT) == 0 &&
	     ibv_modify_qp(p.a, &big, IBV_QP_RATE_LIMIT) == 0;   /* 4.3 Tbit/s */
	a.rate_limit = 0;
	ok = ok && ibv_modify_qp(p.a, &a, IBV_QP_RATE_LIMIT) == 0;
	{
		struct ibv_qp_rate_limit_attr rl = { .rate_limit = 2000000,
						     .max_burst_sz = 65536,
						     .typical_pkt_sz = 4096 };
		int r1 = ibv_modify_qp_rate_limit(p.a, &rl), r2, r3;

		rl.rate_limit = 0;
		r2 = ibv_modify_qp_rate_limit(p.a, &rl);
		rl.comp_mask = 1;
		r3 = ibv_modify_qp_rate_limit(p.a, &rl);
		if (r1 != 0 || r2 != 0 || r3 != EINVAL) {
			printf("  ibv_modify_qp_rate_limit: %d %d %d (want 0 0 EINVAL)\n",
			       r1, r2, r3);
			ok = 0;
		}
	}
	rc_pair_down(&p);
	report("rate limit", ok, ok ? NULL : "IBV_QP_RATE_LIMIT refused");
}

/*
 * Posts behind outstanding ones are left to the consumer's next poll
 * (verbs-shim/progress.c); a consumer that never polls — it watches
 * memory — must still see every WRITE land (the helper sends them).
 */
static void check_posts_unpolled(struct env *e)
{
	struct rc_pair p;
	uint8_t *dst = e->buf + 2048;
	struct ibv_wc wc;
	int landed = 0, n = 0;
	double end;

	if (rc_pair_up(e, &p, 8)) {
		report("posts_unpolled", 0, "setup failed");
		goto out;
	}
	memset(dst, 0, 3 * 64);
	for (int i = 0; i < 3; i++) {
		struct ibv_sge sg = { .addr = (uintptr_t)e->buf + 3072 + 64 * i,
				      .length = 64, .lkey = e->mr->lkey };
		struct ibv_send_wr wr = { .wr_id = (uint64_t)i, .sg_list = &sg,
					  .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		memset(e->buf + 3072 + 64 * i, 0xa0 + i, 64);
		wr.wr.rdma.remote_addr = (uintptr_t)dst + 64 * i;
		wr.wr.rdma.rkey = e->mr->rkey;
		if (ibv_post_send(p.a, &wr, &bad)) {
			report("posts_unpolled", 0, "post failed");
			goto out;
		}
	}
	for (end = now_s() + 5; !landed && now_s() < end;) {
		struct timespec ms = { .tv_nsec = 1000000 };

		landed = 1;
		for (int i = 0; i < 3; i++)
			landed &= ((volatile uint8_t *)dst)[64 * i + 63] ==
				  (uint8_t)(0xa0 + i);
		nanosleep(&ms, NULL);    /* no verbs call meanwhile */
	}
	while (n < 3 && poll_one(p.cq, &wc, 5) && wc.status == IBV_WC_SUCCESS)
		n++;
	report("posts_unpolled", landed && n == 3,
	       !landed ? "a WRITE never left" :
	       n < 3 ? "completions missing" : NULL);
out:
	rc_pair_down(&p);
}

/* Two contexts of one device in one process: a QP of each talks to the other. */
static void check_two_contexts(struct env *e, struct ibv_device *dev)
{
	struct env e2 = { .buf = e->buf, .gid = e->gid };
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0), *cq2 = NULL;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_wc wc;
	int ok = 0;

	e2.ctx = ibv_open_device(dev);
	e2.pd = e2.ctx ? ibv_alloc_pd(e2.ctx) : NULL;
	e2.mr = e2.pd ? ibv_reg_mr(e2.pd, e->buf, BUF_LEN,
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	cq2 = e2.ctx ? ibv_create_cq(e2.ctx, 16, NULL, NULL, 0) : NULL;
	a = cq ? make_qp(e, IBV_QPT_RC, cq, 4) : NULL;
	b = (cq2 && e2.mr) ? make_qp(&e2, IBV_QPT_RC, cq2, 4) : NULL;
	if (a && b && !rc_up(e, a, b->qp_num, 14, 7) &&
	    !rc_up(&e2, b, a->qp_num, 14, 7)) {
		struct ibv_sge ss = { .addr = (uintptr_t)e->buf + 2048, .length = 24,
				      .lkey = e->mr->lkey };
		struct ibv_sge rs = { .addr = (uintptr_t)e->buf + 3072, .length = 64,
				      .lkey = e2.mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 4, .sg_list = &rs, .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = { .wr_id = 3, .sg_list = &ss, .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED }, *sbad;

		snprintf((char *)e->buf + 2048, 24, "from context one");
		if (!ibv_post_recv(b, &rwr, &rbad) && !ibv_post_send(a, &swr, &sbad) &&
		    poll_one(cq2, &wc, 5) && wc.status == IBV_WC_SUCCESS &&
		    wc.wr_id == 4 && poll_one(cq, &wc, 5) &&
		    wc.status == IBV_WC_SUCCESS)
			ok = memcmp(e->buf + 3072, e->buf + 2048, 24) == 0;
	}
	report("two_contexts", ok, ok ? NULL : "the SEND did not arrive");
	drop(NULL, a, b, cq);
	drop(NULL, NULL, NULL, cq2);
	if (e2.mr)
		ibv_dereg_mr(e2.mr);
	if (e2.pd)
		ibv_dealloc_pd(e2.pd);
	if (e2.ctx)
		ibv_close_device(e2.ctx);
}

/* QPs with zero-sized queues exist; posting to the empty side is ENOMEM. */
static void check_zero_sized_queues(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 0, .max_recv_wr = 0 },
	};
	struct ibv_qp *qp = cq ? ibv_create_qp(e->pd, &ia) : NULL;
	struct ibv_sge sg = { .addr = (uintptr_t)e->buf, .length = 8,
			      .lkey = e->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sg, .num_sge = 1 }, *rbad;
	struct ibv_send_wr swr = { .sg_list = &sg, .num_sge = 1,
				   .opcode = IBV_WR_SEND }, *sbad;
	int ok = qp != NULL && ia.cap.max_send_wr == 0 &&
		 ia.cap.max_recv_wr == 0 && to_init(qp, IBV_QPT_RC) == 0 &&
		 ibv_post_recv(qp, &rwr, &rbad) == ENOMEM &&
		 ibv_post_send(qp, &swr, &sbad) != 0;

	report("zero_sized_queues", ok, ok ? NULL : qp ? "wrong caps or posts" :
	       "ibv_create_qp refused max_send_wr = max_recv_wr = 0");
	drop(NULL, qp, NULL, cq);
}

/* CQ sizes: max_cqe + 1 refused; a CQ grows and shrinks (ibv_resize_cq). */
static void check_cq_sizes(struct env *e)
{
	struct ibv_device_attr da;
	struct ibv_cq *big = NULL, *cq = NULL;
	int ok = ibv_query_device(e->ctx, &da) == 0;

	if (ok) {
		big = ibv_create_cq(e->ctx, da.max_cqe + 1, NULL, NULL, 0);
		ok = big == NULL && errno == EINVAL;
		cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	}
	ok = ok && cq && ibv_resize_cq(cq, 1000) == 0 && cq->cqe >= 1000 &&
	     ibv_resize_cq(cq, 8) == 0 && cq->cqe >= 8 &&
	     ibv_resize_cq(cq, da.max_cqe + 1) == EINVAL;
	report("cq_sizes", ok, ok ? NULL : "max_cqe + 1 accepted or resize failed");
	if (big)
		ibv_destroy_cq(big);
	if (cq)
		ibv_destroy_cq(cq);
}

/*
 * Close the last context and open the device again, three times, with a
 * loopback SEND each time: a process that closed its device could not
 * open it again (ENODEV, "did not probe").
 */
static volatile sig_atomic_t alarms;

/* The first alarm interrupts; a second one (5 s later) means the call
 * ignored it: end the process, the test fails instead of hanging. */
static void on_alarm(int sig)
{
	if (++alarms > 1) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
}

/*
 * A signal interrupts a blocking ibv_get_cq_event with EINTR, as a read of
 * the kernel's channel fd does (qperf stops its event-mode loops with
 * SIGALRM, without SA_RESTART).  A second alarm ends the process if the
 * call is not interrupted: the test fails rather than hangs.
 */
static void check_cq_event_eintr(struct env *e)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(e->ctx);
	struct ibv_cq *cq = ch ? ibv_create_cq(e->ctx, 4, NULL, ch, 0) : NULL;
	struct itimerval it = { .it_value = { .tv_usec = 200000 },
				.it_interval = { .tv_sec = 5 } };
	struct itimerval off = { 0 };
	struct ibv_cq *got;
	void *ctx;
	int rc, err;

	if (cq == NULL || ibv_req_notify_cq(cq, 0)) {
		report("cq_event_eintr", 0, "setup failed");
		return;
	}
	sigemptyset(&sa.sa_mask);
	alarms = 0;
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	rc = ibv_get_cq_event(ch, &got, &ctx);
	err = errno;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	report("cq_event_eintr", rc == -1 && err == EINTR,
	       "ibv_get_cq_event was not interrupted by the signal");
	ibv_destroy_cq(cq);
	ibv_destroy_comp_channel(ch);
}

static void check_mcast(struct env *e)
{
	union ibv_gid g = { .raw = { [10] = 0xff, [11] = 0xff, 239, 1, 2, 3 } };
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1,
				  .grh = { .dgid = g, .sgid_index = GID_INDEX,
					   .hop_limit = 64 } };
	struct ibv_sge rs = { .addr = (uintptr_t)e->buf + 2048, .length = 1024,
			      .lkey = e->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rs, .num_sge = 1 },
			   *rbad;
	struct ibv_sge ss = { .addr = (uintptr_t)e->buf, .length = 64,
			      .lkey = e->mr->lkey };
	struct ibv_send_wr swr = {
		.wr_id = 8, .sg_list = &ss, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .remote_qpn = 0xffffff, .remote_qkey = 0x11111111 },
	}, *sbad;
	struct ibv_device_attr da;
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qa = cq ? make_qp(e, IBV_QPT_UD, cq, 4) : NULL;
	struct ibv_qp *qb = cq ? make_qp(e, IBV_QPT_UD, cq, 4) : NULL;
	struct ibv_qp *rc = cq ? make_qp(e, IBV_QPT_RC, cq, 4) : NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_wc wc;
	int recvd = 0, sent = 0, ok = 1;
	const char *why = NULL;

	if (!qa || !qb || !rc || ud_up(qa) || ud_up(qb) ||
	    ibv_query_device(e->ctx, &da)) {
		report("mcast", 0, "setup failed");
		goto out;
	}
	if (da.max_mcast_grp < 1 || da.max_mcast_qp_attach < 1 ||
	    da.max_total_mcast_qp_attach < da.max_mcast_qp_attach)
		ok = 0, why = "no multicast limits in ibv_query_device";
	if (ibv_attach_mcast(qb, &g, 0) || ibv_attach_mcast(qb, &g, 0))
		ok = 0, why = "attach refused";
	if (ibv_attach_mcast(rc, &g, 0) != EINVAL ||
	    ibv_attach_mcast(qb, &e->gid, 0) != EINVAL ||
	    ibv_attach_mcast(qb, NULL, 0) != EINVAL)
		ok = 0, why = "an RC QP, a unicast GID or none: not EINVAL";
	ah = ibv_create_ah(e->pd, &aa);
	swr.wr.ud.ah = ah;
	memset(e->buf + 2048, 0, 1024);
	snprintf((char *)e->buf, 64, "to the group, and back to its member");
	if (!ah || ibv_post_recv(qb, &rwr, &rbad) ||
	    ibv_post_send(qa, &swr, &sbad)) {
		report("mcast", 0, "post failed");
		goto out;
	}
	while ((!recvd || !sent) && poll_one(cq, &wc, 5)) {
		if (wc.status != IBV_WC_SUCCESS)
			break;
		recvd |= wc.wr_id == 7 && wc.qp_num == qb->qp_num &&
			 wc.src_qp == qa->qp_num && wc.byte_len == 64 + 40;
		sent |= wc.wr_id == 8;
	}
	if (!recvd || memcmp(e->buf + 2048 + 40, e->buf, 64) != 0 ||
	    memcmp(e->buf + 2048 + 36, g.raw + 12, 4) != 0)
		ok = 0, why = "the datagram did not reach the group's QP";
	if (ibv_detach_mcast(qb, &g, 0) || ibv_detach_mcast(qb, &g, 0) != EINVAL)
		ok = 0, why = "detach, or detach twice: not 0 then EINVAL";
	/* destroyed while attached: it leaves the group */
	if (ibv_attach_mcast(qb, &g, 0) || ibv_destroy_qp(qb))
		ok = 0, why = "destroy while attached";
	qb = NULL;
	report("mcast", ok, why);
out:
	if (rc)
		ibv_destroy_qp(rc);
	drop(ah, qa, qb, cq);
}

static int check_reopen(struct ibv_device *dev, uint8_t *buf)
{
	for (int round = 0; round < 3; round++) {
		struct env e = { .buf = buf };
		int ok;

		e.ctx = ibv_open_device(dev);
		e.pd = e.ctx ? ibv_alloc_pd(e.ctx) : NULL;
		e.mr = e.pd ? ibv_reg_mr(e.pd, buf, BUF_LEN,
					 IBV_ACCESS_LOCAL_WRITE) : NULL;
		ok = e.mr && !ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid);
		report("reopen", ok, ok ? NULL : "open after close failed");
		if (ok)
			check_loopback(&e);
		if (e.mr)
			ibv_dereg_mr(e.mr);
		if (e.pd)
			ibv_dealloc_pd(e.pd);
		if (e.ctx)
			ibv_close_device(e.ctx);
		if (!ok)
			return -1;
	}
	return 0;
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct env e = { 0 };

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!list || !list[0] || !(e.ctx = ibv_open_device(list[0]))) {
		printf("FAIL open device\n");
		return 1;
	}
	{
		struct stat st;

		report("cmd_fd", e.ctx->cmd_fd >= 0 && fstat(e.ctx->cmd_fd, &st) == 0,
		       "cmd_fd is not a descriptor");
	}
	e.buf = aligned_alloc(4096, BUF_LEN);
	e.pd = ibv_alloc_pd(e.ctx);
	e.mr = e.pd ? ibv_reg_mr(e.pd, e.buf, BUF_LEN,
				 IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!e.mr || ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid)) {
		printf("FAIL setup\n");
		return 1;
	}
	check_bad_access(&e);
	check_local_errors(&e);
	check_full_sq(&e);
	check_cq_overrun(&e);
	check_dead_peer(&e);
	check_loopback(&e);
	check_rate_limit(&e);
	check_qp_table_full(&e);
	check_posts_unpolled(&e);
	check_two_contexts(&e, list[0]);
	check_zero_sized_queues(&e);
	check_cq_sizes(&e);
	check_cq_event_eintr(&e);
	check_mcast(&e);
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	check_reopen(list[0], e.buf);
	ibv_free_device_list(list);
	free(e.buf);
	printf("%s\n", failures ? "FAILED" : "all ok");
	return failures ? 1 : 0;
}
