/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * extended.c — the verbs no Debian binary exercises, each with data checked,
 * between two RC QPs of one context (same-process loopback):
 *   wr_write          ibv_wr_start / ibv_wr_rdma_write / ibv_wr_complete
 *   wr_atomic_write   ibv_wr_atomic_write: the 8 bytes land at the target
 *   wr_flush          rdma-core 45's wr_flush (the 45 layout of ibv_qp_ex)
 *   cq_ex             ibv_create_cq_ex, ibv_start_poll / ibv_next_poll,
 *                     ibv_wc_read_opcode / _byte_len / _qp_num
 *   mw_bind           a type-1 window bound by ibv_bind_mw: a WRITE through
 *                     its rkey lands; one past its end is refused
 *   rereg_mr          a local-only MR still has an rkey (as on mlx5 and
 *                     rxe); ibv_rereg_mr(CHANGE_ACCESS) keeps its lkey and
 *                     rkey, and a remote WRITE with that rkey then works
 *   srq_limit         ibv_modify_srq(IBV_SRQ_LIMIT) armed: consuming below
 *                     the limit raises IBV_EVENT_SRQ_LIMIT_REACHED
 *   last_wqe_ack      an SRQ QP taken to ERR raises LAST_WQE_REACHED, and
 *                     its destroy waits until that event, read, is acked
 *                     (rdma-core's rule: UCX acks on one thread while it
 *                     destroys on another)
 *   last_wqe_unread   a QP destroyed with its event queued and not read:
 *                     the event goes with it (and the fd's readiness), no
 *                     handle to a freed QP
 * Exit 0 when all pass; each check prints one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "report.h"

#define GID_INDEX 1
#define BUF_LEN   65536
#define REMOTE_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
		    IBV_ACCESS_MW_BIND)

/* rdma-core 45 appends wr_flush to struct ibv_qp_ex; 44's headers lack it. */
struct qp_ex45 {
	struct ibv_qp_ex base;
	void (*wr_flush)(struct ibv_qp_ex *qp, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level);
};
#define QP_EX_WITH_FLUSH (1ull << 11)
#define FLUSH_GLOBAL 1
#define FLUSH_RANGE  1

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	struct ibv_cq_ex *cq;
	struct ibv_qp *a, *b;       /* a sends, b is the target */
};

/* Wait for one completion of cq_ex; returns its status, or -1 on timeout. */
static int wait_one(struct ibv_cq_ex *cq, uint64_t *wr_id,
		    enum ibv_wc_opcode *op, uint32_t *len)
{
	struct ibv_poll_cq_attr pa = { 0 };
	double end = now_s() + 5;
	int status;

	while (ibv_start_poll(cq, &pa) == ENOENT)
		if (now_s() > end)
			return -1;
	*wr_id = cq->wr_id;
	status = cq->status;
	if (op)
		*op = ibv_wc_read_opcode(cq);
	if (len)
		*len = ibv_wc_read_byte_len(cq);
	ibv_end_poll(cq);
	return status;
}

static int rc_connect(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	return loop_qp_up(qp, &e->gid, GID_INDEX, dqpn, IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC, 4,
			  true, true);
}

static struct ibv_qp *make_qp(struct env *e, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = ibv_cq_ex_to_cq(e->cq),
		.recv_cq = ibv_cq_ex_to_cq(e->cq),
		.srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = srq ? 0 : 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
		.sq_sig_all = 1,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_ATOMIC_WRITE | QP_EX_WITH_FLUSH |
				  IBV_QP_EX_WITH_RDMA_READ,
	};

	return ibv_create_qp_ex(e->ctx, &ia);
}

static void check_wr_write(struct env *e)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(e->a);
	enum ibv_wc_opcode op = 0;
	uint64_t id = 0;
	int st;

	memset(e->buf, 0, 2 * 4096);
	for (int i = 0; i < 3000; i++)
		e->buf[i] = (uint8_t)(i * 13 + 1);
	ibv_wr_start(qx);
	qx->wr_id = 11;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qx, e->mr->rkey, (uintptr_t)e->buf + 4096);
	ibv_wr_set_sge(qx, e->mr->lkey, (uintptr_t)e->buf, 3000);
	st = ibv_wr_complete(qx);
	if (st) {
		report("wr_write", 0, "wr_complete failed");
		return;
	}
	st = wait_one(e->cq, &id, &op, NULL);
	report("wr_write", st == IBV_WC_SUCCESS && id == 11 &&
			   op == IBV_WC_RDMA_WRITE &&
			   memcmp(e->buf, e->buf + 4096, 3000) == 0,
	       st == IBV_WC_SUCCESS ? NULL : "completion");
}

static void check_wr_atomic_write(struct env *e)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(e->a);
	uint8_t val[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint64_t id = 0;
	int st;

	memset(e->buf + 8192, 0xee, 8);
	ibv_wr_start(qx);
	qx->wr_id = 12;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qx, e->mr->rkey, (uintptr_t)e->buf + 8192, val);
	st = ibv_wr_complete(qx) ? -1 : wait_one(e->cq, &id, NULL, NULL);
	report("wr_atomic_write", st == IBV_WC_SUCCESS && id == 12 &&
				  memcmp(e->buf + 8192, val, 8) == 0, NULL);
}

static void check_wr_flush(struct env *e)
{
	struct qp_ex45 *qx = (struct qp_ex45 *)ibv_qp_to_qp_ex(e->a);
	uint64_t id = 0;
	int st;

	ibv_wr_start(&qx->base);
	qx->base.wr_id = 13;
	qx->base.wr_flags = IBV_SEND_SIGNALED;
	qx->wr_flush(&qx->base, e->mr->rkey, (uintptr_t)e->buf + 4096, 4096,
		     FLUSH_GLOBAL, FLUSH_RANGE);
	st = ibv_wr_complete(&qx->base) ? -1 : wait_one(e->cq, &id, NULL, NULL);
	report("wr_flush", st == IBV_WC_SUCCESS && id == 13, NULL);
}

/* A SEND to b, read back through the extended CQ's accessors. */
static void check_cq_ex(struct env *e)
{
	struct ibv_sge rs = { .addr = (uintptr_t)e->buf + 16384, .length = 512,
			      .lkey = e->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 21, .sg_list = &rs, .num_sge = 1 }, *rb;
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(e->a);
	int seen_send = 0, seen_recv = 0;

	if (ibv_post_recv(e->b, &rwr, &rb)) {
		report("cq_ex", 0, "post_recv");
		return;
	}
	ibv_wr_start(qx);
	qx->wr_id = 20;
	qx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qx);
	ibv_wr_set_sge(qx, e->mr->lkey, (uintptr_t)e->buf, 300);
	if (ibv_wr_complete(qx)) {
		report("cq_ex", 0, "wr_complete");
		return;
	}
	for (int i = 0; i < 2; i++) {
		enum ibv_wc_opcode op = 0;
		uint32_t len = 0;
		uint64_t id = 0;
		int st = wait_one(e->cq, &id, &op, &len);

		if (st != IBV_WC_SUCCESS)
			break;
		seen_send |= id == 20 && op == IBV_WC_SEND;
		seen_recv |= id == 21 && op == IBV_WC_RECV && len == 300;
	}
	report("cq_ex", seen_send && seen_recv &&
			memcmp(e->buf + 16384, e->buf, 300) == 0, NULL);
}

static int write_via(struct env *e, uint32_t rkey, uint64_t raddr, uint32_t len,
		     uint64_t id)
{
	struct ibv_sge s = { .addr = (uintptr_t)e->buf, .length = len,
			     .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { .remote_addr = raddr, .rkey = rkey } }, *bad;
	uint64_t got = 0;

	if (ibv_post_send(e->a, &wr, &bad))
		return -2;
	return wait_one(e->cq, &got, NULL, NULL);
}

/* Must run last on this QP pair: the refused write moves it to ERR. */
static void check_mw_bind(struct env *e)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	uint8_t *win = e->buf + 32768;
	struct ibv_mw_bind bind = {
		.wr_id = 30, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = e->mr, .addr = (uintptr_t)win,
			       .length = 1024,
			       /* local write in a window's rights is taken
				* and means nothing (as mlx5, rxe) */
			       .mw_access_flags = IBV_ACCESS_LOCAL_WRITE |
						  IBV_ACCESS_REMOTE_WRITE },
	};
	uint64_t id = 0;
	int st, ok;

	if (mw == NULL || ibv_bind_mw(e->a, mw, &bind)) {
		report("mw_bind", 0, "alloc or bind failed");
		goto out;
	}
	st = wait_one(e->cq, &id, NULL, NULL);
	if (st != IBV_WC_SUCCESS || id != 30) {
		report("mw_bind", 0, "bind completion");
		goto out;
	}
	memset(win, 0, 1024);
	ok = write_via(e, mw->rkey, (uintptr_t)win + 512, 512, 31) == IBV_WC_SUCCESS &&
	     memcmp(win + 512, e->buf, 512) == 0;
	st = write_via(e, mw->rkey, (uintptr_t)win + 768, 512, 32);
	report("mw_bind", ok && st == IBV_WC_REM_ACCESS_ERR,
	       ok ? (st == IBV_WC_REM_ACCESS_ERR ? NULL : "write past the window not refused")
		  : "write through the window");
out:
	if (mw)
		ibv_dealloc_mw(mw);
}

static void check_rereg(struct env *e)
{
	struct ibv_mr *mr = ibv_reg_mr(e->pd, e->buf + 40960, 4096,
				       IBV_ACCESS_LOCAL_WRITE);
	uint32_t old_rkey, old_lkey;
	int ok = 0, st_old, st_new;

	if (mr == NULL) {
		report("rereg_mr", 0, "reg_mr");
		return;
	}
	old_rkey = mr->rkey;
	old_lkey = mr->lkey;
	if (old_rkey != 0 &&
	    ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) == 0) {
		st_new = write_via(e, mr->rkey, (uintptr_t)e->buf + 40960, 64, 41);
		st_old = old_rkey == mr->rkey && old_lkey == mr->lkey ? 0 : -1;
		ok = st_new == IBV_WC_SUCCESS && st_old == 0 &&
		     memcmp(e->buf + 40960, e->buf, 64) == 0;
	}
	report("rereg_mr", ok, ok ? NULL :
	       old_rkey == 0 ? "a local-only MR has rkey 0" :
	       "keys changed, or the rkey is not usable");
	ibv_dereg_mr(mr);
}

static void check_srq_limit(struct env *e)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(e->pd, &sia);
	struct ibv_srq_attr lim = { .srq_limit = 6 };
	struct ibv_qp *ta = NULL, *tb = NULL;
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };
	int got = 0;

	if (srq == NULL) {
		report("srq_limit", 0, "create_srq");
		return;
	}
	for (int i = 0; i < 8; i++) {
		struct ibv_sge s = { .addr = (uintptr_t)e->buf + 49152 + i * 64,
				     .length = 64, .lkey = e->mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 100 + i, .sg_list = &s,
					 .num_sge = 1 }, *rb;

		ibv_post_srq_recv(srq, &r, &rb);
	}
	ta = make_qp(e, NULL);
	tb = make_qp(e, srq);
	if (!ta || !tb || rc_connect(e, ta, tb->qp_num) ||
	    rc_connect(e, tb, ta->qp_num) ||
	    ibv_modify_srq(srq, &lim, IBV_SRQ_LIMIT)) {
		report("srq_limit", 0, "setup");
		goto out;
	}
	for (int i = 0; i < 3; i++) {
		struct ibv_sge s = { .addr = (uintptr_t)e->buf, .length = 16,
				     .lkey = e->mr->lkey };
		struct ibv_send_wr w = { .wr_id = 200 + i, .sg_list = &s,
					 .num_sge = 1, .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED }, *bad;

		ibv_post_send(ta, &w, &bad);
	}
	for (int i = 0; i < 6; i++) {
		uint64_t id;

		if (wait_one(e->cq, &id, NULL, NULL) != IBV_WC_SUCCESS)
			break;
	}
	while (!got && poll(&pfd, 1, 3000) == 1 &&
	       ibv_get_async_event(e->ctx, &ev) == 0) {
		got = ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
		      ev.element.srq == srq;
		ibv_ack_async_event(&ev);
	}
	report("srq_limit", got, got ? NULL : "no SRQ_LIMIT_REACHED event");
out:
	if (ta)
		ibv_destroy_qp(ta);
	if (tb)
		ibv_destroy_qp(tb);
	ibv_destroy_srq(srq);
}

/* An SRQ QP, connected to a, taken to ERR: NULL on failure. */
static struct ibv_qp *srq_qp_to_err(struct env *e, struct ibv_srq *srq)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	struct ibv_qp *qp = make_qp(e, srq);

	if (qp == NULL || rc_connect(e, qp, e->a->qp_num) ||
	    ibv_modify_qp(qp, &qa, IBV_QP_STATE)) {
		if (qp)
			ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* The next async event within 3 s, not acked: 0, or -1. */
static int next_event(struct env *e, struct ibv_async_event *ev)
{
	struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };

	for (double end = now_s() + 3; now_s() < end;)
		if (poll(&pfd, 1, 100) == 1 &&
		    ibv_get_async_event(e->ctx, ev) == 0)
			return 0;
	return -1;
}

struct destroyer {
	struct ibv_qp *qp;
	int rc;
	volatile int done;
};

static void *destroy_qp_thread(void *arg)
{
	struct destroyer *d = arg;

	d->rc = ibv_destroy_qp(d->qp);
	d->done = 1;
	return NULL;
}

static void check_last_wqe(struct env *e)
{
	struct ibv_srq_init_attr sia = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq = ibv_create_srq(e->pd, &sia);
	struct destroyer d = { 0 };
	struct ibv_async_event ev;
	struct ibv_qp *qp = srq ? srq_qp_to_err(e, srq) : NULL;
	pthread_t t;
	int ok, fl;

	if (qp == NULL) {
		report("last_wqe_ack", 0, "setup");
		goto out;
	}
	ok = next_event(e, &ev) == 0 &&
	     ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
	     ev.element.qp == qp;
	if (!ok) {
		report("last_wqe_ack", 0, "no LAST_WQE_REACHED event");
		ibv_destroy_qp(qp);
		goto out;
	}
	/* read, not acked: the destroy on another thread must wait */
	d.qp = qp;
	pthread_create(&t, NULL, destroy_qp_thread, &d);
	usleep(200 * 1000);
	ok = !d.done;
	ibv_ack_async_event(&ev);
	pthread_join(t, NULL);
	report("last_wqe_ack", ok && d.done && d.rc == 0,
	       !ok ? "destroy returned before the ack" :
	       !(d.done && d.rc == 0) ? "destroy failed" : NULL);

	/* queued, never read: gone with its QP */
	qp = srq_qp_to_err(e, srq);
	if (qp == NULL) {
		report("last_wqe_unread", 0, "setup");
		goto out;
	}
	{
		struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };

		ok = poll(&pfd, 1, 3000) == 1;   /* queued */
	}
	ibv_destroy_qp(qp);
	{
		struct pollfd pfd = { .fd = e->ctx->async_fd, .events = POLLIN };

		if (ok && poll(&pfd, 1, 0) != 0) {
			report("last_wqe_unread", 0,
			       "async fd readable with nothing queued");
			ok = -1;
		}
	}
	fl = fcntl(e->ctx->async_fd, F_GETFL);
	fcntl(e->ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	errno = 0;
	if (ok < 0) {
		/* reported */
	} else if (!ok) {
		report("last_wqe_unread", 0, "no event queued");
	} else if (ibv_get_async_event(e->ctx, &ev) == 0) {
		report("last_wqe_unread", 0, "an event of a destroyed QP");
		ibv_ack_async_event(&ev);
	} else {
		report("last_wqe_unread", errno == EAGAIN,
		       errno == EAGAIN ? NULL : "not EAGAIN");
	}
	fcntl(e->ctx->async_fd, F_SETFL, fl);
out:
	if (srq)
		ibv_destroy_srq(srq);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM,
	};
	struct env e = { 0 };

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!list || !list[0] || !(e.ctx = ibv_open_device(list[0]))) {
		printf("FAIL open device\n");
		return 1;
	}
	e.buf = aligned_alloc(4096, BUF_LEN);
	e.pd = ibv_alloc_pd(e.ctx);
	e.mr = e.pd ? ibv_reg_mr(e.pd, e.buf, BUF_LEN, REMOTE_ALL) : NULL;
	e.cq = ibv_create_cq_ex(e.ctx, &ca);
	if (!e.buf || !e.mr || !e.cq || ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid)) {
		printf("FAIL setup\n");
		return 1;
	}
	e.a = make_qp(&e, NULL);
	e.b = make_qp(&e, NULL);
	if (!e.a || !e.b || rc_connect(&e, e.a, e.b->qp_num) ||
	    rc_connect(&e, e.b, e.a->qp_num)) {
		printf("FAIL connect\n");
		return 1;
	}
	check_wr_write(&e);
	check_wr_atomic_write(&e);
	check_wr_flush(&e);
	check_cq_ex(&e);
	check_rereg(&e);
	check_srq_limit(&e);
	check_last_wqe(&e);
	check_mw_bind(&e);
	ibv_destroy_qp(e.a);
	ibv_destroy_qp(e.b);
	ibv_destroy_cq(ibv_cq_ex_to_cq(e.cq));
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	free(e.buf);
	printf(failures ? "%d failed\n" : "all ok\n", failures);
	return failures ? 1 : 0;
}
