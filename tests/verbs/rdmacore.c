/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdmacore.c — behaviours rdma-core's own tests (v44, pyverbs) exercise
 * that sroce got wrong, each as rdma-core's test does it, in one process
 * on its own default link (two RC QPs of one context, same-process
 * loopback):
 *   reset_cleans_cq   a QP moved to RESET leaves no completion behind:
 *                     posted receives flushed by ERR, one polled, then
 *                     RESET: the CQ is empty (test_mr's restate_qps)
 *   reuse_after_error a SEND into a receive whose MR is in another PD:
 *                     REM_OP_ERR at the sender; both QPs RESET and
 *                     reconnected; the next SEND's first completion is a
 *                     success, not a flush of the old life
 *                     (test_mr_rereg_pd, test_mr_rereg_addr)
 *   create_flags_zero ibv_create_qp_ex with IBV_QP_INIT_ATTR_CREATE_FLAGS
 *                     and no flag creates the QP; a flag sroce lacks is
 *                     EOPNOTSUPP (test_qp's random init attributes)
 *   parent_domain     ibv_alloc_parent_domain (with a thread domain and
 *                     allocators): an extended CQ, two RC QPs and an MR
 *                     made with it carry a SEND; its PD cannot go first
 *                     (EBUSY); a CQ with a plain PD as parent domain is
 *                     EINVAL (test_parent_domain)
 *   gid_table         gid_tbl_len is the table's size, as on a kernel
 *                     device: an index in it with no GID reads as the zero
 *                     GID and ibv_query_gid_ex says ENODATA; the table
 *                     lists the GIDs in use (test_query_gid_ex_bad_flow)
 * Exit 0 when all pass; each check prints one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "report.h"

#define GID_INDEX 1
#define BUF_LEN   4096

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

/* Poll one completion for up to secs; 1 when got. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now_s() + secs;

	do {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return 0;
		if (n == 1)
			return 1;
	} while (now_s() < end);
	return 0;
}

static struct ibv_qp *make_qp(struct env *e, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};

	return ibv_create_qp(e->pd, &ia);
}

static int to_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

/* RESET -> RTS towards our own GID and QP number dqpn. */
static int rc_up(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	return loop_qp_up(qp, &e->gid, GID_INDEX, dqpn, IBV_ACCESS_REMOTE_WRITE,
			  1, true, true);
}

static int post_recv(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t id)
{
	struct ibv_sge sg = { .addr = (uintptr_t)mr->addr, .length = 64,
			      .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1 },
			   *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int post_send(struct env *e, struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge sg = { .addr = (uintptr_t)e->buf + 2048, .length = 32,
			      .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/*
 * Two receives flushed by ERR; the consumer takes one, then moves the QP
 * to RESET: the other must be gone (mlx5 cleans its CQ at RESET; rdma-core's
 * tests reset QPs in error and count on it).
 */
static void check_reset_cleans_cq(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? make_qp(e, cq) : NULL;
	struct ibv_qp_attr err = { .qp_state = IBV_QPS_ERR };
	struct ibv_wc wc;
	char msg[96] = "";
	int ok;

	ok = qp && rc_up(e, qp, qp->qp_num) == 0 &&
	     post_recv(qp, e->mr, 1) == 0 && post_recv(qp, e->mr, 2) == 0 &&
	     ibv_modify_qp(qp, &err, IBV_QP_STATE) == 0 &&
	     poll_one(cq, &wc, 5) && wc.status == IBV_WC_WR_FLUSH_ERR;
	if (!ok) {
		report("reset_cleans_cq", 0, "setup: no flush completion");
		goto out;
	}
	ok = to_reset(qp) == 0 && !poll_one(cq, &wc, 0.2);
	if (!ok)
		snprintf(msg, sizeof(msg), "after RESET the CQ still gave %s (wr_id %llu)",
			 ibv_wc_status_str(wc.status),
			 (unsigned long long)wc.wr_id);
	report("reset_cleans_cq", ok, ok ? NULL : msg);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
}

static void check_reuse_after_error(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	struct ibv_pd *other = ibv_alloc_pd(e->ctx);
	struct ibv_mr *alien = other ? ibv_reg_mr(other, e->buf + 1024, 1024,
						  IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_qp *a = cq ? make_qp(e, cq) : NULL;
	struct ibv_qp *b = cq ? make_qp(e, cq) : NULL;
	struct ibv_wc wc;
	char msg[128] = "";
	int ok, sent = 0, recvd = 0;

	ok = alien && a && b && rc_up(e, a, b->qp_num) == 0 &&
	     rc_up(e, b, a->qp_num) == 0 &&
	     post_recv(a, e->mr, 10) == 0 &&     /* flushed at a's error */
	     post_recv(b, alien, 20) == 0 && post_send(e, a, 30) == 0;
	if (!ok) {
		report("reuse_after_error", 0, "setup failed");
		goto out;
	}
	/* the sender's first completion: its SEND, answered by a NAK */
	while (poll_one(cq, &wc, 5) && wc.wr_id != 30)
		;
	if (wc.wr_id != 30 || wc.status != IBV_WC_REM_OP_ERR) {
		snprintf(msg, sizeof(msg), "SEND into another PD's MR: %s",
			 wc.wr_id == 30 ? ibv_wc_status_str(wc.status) :
					  "no completion");
		report("reuse_after_error", 0, msg);
		goto out;
	}
	/* restate both, as test_mr does, and send again */
	ok = to_reset(a) == 0 && to_reset(b) == 0 &&
	     rc_up(e, a, b->qp_num) == 0 && rc_up(e, b, a->qp_num) == 0 &&
	     post_recv(b, e->mr, 21) == 0 && post_send(e, a, 31) == 0;
	if (!ok) {
		report("reuse_after_error", 0, "restate failed");
		goto out;
	}
	while ((!sent || !recvd) && poll_one(cq, &wc, 5)) {
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(msg, sizeof(msg),
				 "after RESET and reconnect: %s (wr_id %llu)",
				 ibv_wc_status_str(wc.status),
				 (unsigned long long)wc.wr_id);
			break;
		}
		sent |= wc.wr_id == 31;
		recvd |= wc.wr_id == 21;
	}
	ok = sent && recvd;
	report("reuse_after_error", ok, ok ? NULL : msg[0] ? msg :
	       "no completion after reconnect");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	if (cq)
		ibv_destroy_cq(cq);
	if (alien)
		ibv_dereg_mr(alien);
	if (other)
		ibv_dealloc_pd(other);
}

static void check_create_flags_zero(struct env *e)
{
	struct ibv_cq *cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr_ex ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.pd = e->pd,
		.create_flags = 0,
	};
	struct ibv_qp *qp = cq ? ibv_create_qp_ex(e->ctx, &ia) : NULL;
	struct ibv_qp *fcs;
	int ok = qp != NULL;

	ia.create_flags = IBV_QP_CREATE_SCATTER_FCS;
	fcs = cq ? ibv_create_qp_ex(e->ctx, &ia) : NULL;
	ok = ok && fcs == NULL && errno == EOPNOTSUPP;
	report("create_flags_zero", ok, ok ? NULL : qp == NULL ?
	       "create_flags 0 refused" : "SCATTER_FCS not EOPNOTSUPP");
	if (fcs)
		ibv_destroy_qp(fcs);
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
}

static void *pd_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
		      size_t alignment, uint64_t resource_type)
{
	(void)pd;
	(void)pd_context;
	(void)size;
	(void)alignment;
	(void)resource_type;
	return IBV_ALLOCATOR_USE_DEFAULT;
}

static void pd_free(struct ibv_pd *pd, void *pd_context, void *ptr,
		    uint64_t resource_type)
{
	(void)pd;
	(void)pd_context;
	(void)ptr;
	(void)resource_type;
}

static void check_parent_domain(struct env *e)
{
	struct ibv_td_init_attr ta = { 0 };
	struct ibv_td *td = ibv_alloc_td(e->ctx, &ta);
	struct ibv_pd *pd = ibv_alloc_pd(e->ctx);
	struct ibv_parent_domain_init_attr pa = {
		.pd = pd, .td = td,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = pd_alloc, .free = pd_free, .pd_context = e,
	};
	struct ibv_pd *par = pd && td ? ibv_alloc_parent_domain(e->ctx, &pa) : NULL;
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 16, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD, .parent_domain = pd,
	};
	struct ibv_cq_ex *bad = ibv_create_cq_ex(e->ctx, &ca);
	int bad_errno = errno;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_mr *mr = NULL;
	struct env pe = *e;
	struct ibv_wc wc;
	const char *why = NULL;
	int sent = 0, recvd = 0;

	if (par == NULL) {
		report("parent_domain", 0, "ibv_alloc_parent_domain failed");
		goto out;
	}
	if (bad != NULL || bad_errno != EINVAL) {
		report("parent_domain", 0, "a plain PD taken as parent domain");
		goto out;
	}
	ca.parent_domain = par;
	cqx = ibv_create_cq_ex(e->ctx, &ca);
	cq = cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
	pe.pd = par;
	mr = ibv_reg_mr(par, e->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	pe.mr = mr;
	a = cq && mr ? make_qp(&pe, cq) : NULL;
	b = cq && mr ? make_qp(&pe, cq) : NULL;
	if (!a || !b || a->pd != par || rc_up(e, a, b->qp_num) ||
	    rc_up(e, b, a->qp_num) || post_recv(b, mr, 41) ||
	    post_send(&pe, a, 40)) {
		report("parent_domain", 0, "CQ, MR or QPs on it failed");
		goto out;
	}
	while ((!sent || !recvd) && poll_one(cq, &wc, 5) &&
	       wc.status == IBV_WC_SUCCESS) {
		sent |= wc.wr_id == 40;
		recvd |= wc.wr_id == 41;
	}
	if (!sent || !recvd)
		why = "no SEND through QPs on the parent domain";
	else if (ibv_dealloc_pd(pd) != EBUSY)
		why = "its PD went before it";
	report("parent_domain", why == NULL, why);
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (bad)
		ibv_destroy_cq(ibv_cq_ex_to_cq(bad));
	if (par)
		ibv_dealloc_pd(par);
	if (pd && ibv_dealloc_pd(pd))
		report("parent_domain", 0, "PD not freed after its parent");
	if (td)
		ibv_dealloc_td(td);
}

static void check_gid_table(struct env *e)
{
	struct ibv_gid_entry tab[64], one;
	struct ibv_port_attr pa;
	union ibv_gid g;
	const char *why = NULL;
	ssize_t n;
	int empty = -1, rc;

	if (ibv_query_port(e->ctx, 1, &pa) || pa.gid_tbl_len <= 0 ||
	    pa.gid_tbl_len > 64) {
		report("gid_table", 0, "ibv_query_port");
		return;
	}
	n = ibv_query_gid_table(e->ctx, tab, 64, 0);
	for (int i = 0; i < pa.gid_tbl_len && empty < 0; i++) {
		int used = 0;

		for (ssize_t k = 0; k < n; k++)
			used |= tab[k].gid_index == (uint32_t)i;
		if (!used)
			empty = i;
	}
	if (n < 2)
		why = "ibv_query_gid_table lists fewer than 2 GIDs";
	else if (empty < 0)
		why = "every index below gid_tbl_len holds a GID: no table size";
	else if ((rc = ibv_query_gid_ex(e->ctx, 1, (uint32_t)empty, &one, 0)) != ENODATA)
		why = "ibv_query_gid_ex of an empty index is not ENODATA";
	else if (ibv_query_gid(e->ctx, 1, empty, &g) ||
		 memcmp(g.raw, (uint8_t[16]){ 0 }, 16) != 0)
		why = "ibv_query_gid of an empty index is not the zero GID";
	report("gid_table", why == NULL, why);
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
	e.buf = aligned_alloc(4096, BUF_LEN);
	e.pd = ibv_alloc_pd(e.ctx);
	e.mr = e.pd && e.buf ? ibv_reg_mr(e.pd, e.buf, BUF_LEN,
					  IBV_ACCESS_LOCAL_WRITE |
					  IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (!e.mr || ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid)) {
		printf("FAIL setup\n");
		return 1;
	}
	memset(e.buf + 2048, 0x5a, 32);
	check_reset_cleans_cq(&e);
	check_reuse_after_error(&e);
	check_create_flags_zero(&e);
	check_parent_domain(&e);
	check_gid_table(&e);
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	free(e.buf);
	printf("%s\n", failures ? "FAILED" : "all ok");
	return failures ? 1 : 0;
}
