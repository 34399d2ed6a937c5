/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xrc.c — XRC through the drop-in libibverbs, one process on its own
 * default link (an initiator and a target of one context, same-process
 * loopback):
 *   caps          IBV_DEVICE_XRC in device_cap_flags, xrc_odp_caps as ODP
 *   xrcd          ibv_open_xrcd: fd -1 a private domain (any oflags); a
 *                 file's fd the domain of its inode, the same for every
 *                 open (counted by ibv_close_xrcd); as the kernel: EAGAIN
 *                 (a new inode without O_CREAT), EINVAL (O_EXCL on an
 *                 open one, masks), EBADF,
 *                 EOPNOTSUPP (reserved mask bit), EBUSY (close in use)
 *   srq           IBV_SRQT_XRC needs its domain and CQ (EINVAL);
 *                 ibv_get_srq_num: distinct, non-zero numbers
 *   qp_create     XRC_RECV needs IBV_QP_INIT_ATTR_XRCD (EINVAL), takes no
 *                 send ops (EINVAL); XRC_SEND needs a send CQ (EINVAL) and
 *                 ignores a receive CQ; neither takes a receive (EINVAL);
 *                 both reach RTS with RC's whole masks (the attributes
 *                 of the other role ignored, as uverbs does: perftest -c
 *                 XRC sets them), ibv_query_qp says so
 *   traffic       SEND with wr.qp_type.xrc.remote_srqn into the SRQ it
 *                 names (data, wc.qp_num the target's, the SRQ's CQ);
 *                 ibv_wr_* with ibv_wr_set_xrc_srqn: WRITE, READ,
 *                 FETCH_ADD; ibv_wr_set_xrc_srqn on an RC QP: EINVAL
 *   foreign_srq   a SEND naming an SRQ of another domain: REM_INV_REQ_ERR
 *   open_qp       ibv_open_qp: EINVAL without number, domain or type, for
 *                 another type, another domain or an unknown number,
 *                 EOPNOTSUPP for a reserved bit; a second handle on the
 *                 target (its number, type, context, RTS); the creator's
 *                 handle destroyed, the target still takes SENDs (data
 *                 checked) and its domain cannot close (EBUSY); a
 *                 target whose only handle is destroyed opens no more
 * Exit 0 when all pass; each check prints one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "report.h"

#define GID_INDEX 1
#define BUF_LEN   8192

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;           /* the SRQs' completions */
	struct ibv_cq *scq;          /* the initiator's */
	uint8_t *buf;
	union ibv_gid gid;
	struct ibv_xrcd *xrcd, *other;
	struct ibv_srq *srq, *foreign;
	struct ibv_qp *ini, *tgt;
	struct ibv_qp_ex *inix;
};

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

static struct ibv_xrcd *open_xrcd(struct env *e, uint32_t mask, int fd,
				  int oflags)
{
	struct ibv_xrcd_init_attr a = { .comp_mask = mask, .fd = fd,
					.oflags = oflags };

	errno = 0;
	return ibv_open_xrcd(e->ctx, &a);
}

#define BOTH (IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS)

static void check_caps(struct env *e)
{
	struct ibv_device_attr_ex a;
	char d[96];
	int ok;

	ok = ibv_query_device_ex(e->ctx, NULL, &a) == 0 &&
	     (a.orig_attr.device_cap_flags & IBV_DEVICE_XRC) &&
	     (a.xrc_odp_caps == 0) == (a.odp_caps.general_caps == 0);
	snprintf(d, sizeof(d), "cap_flags 0x%x xrc_odp 0x%x",
		 a.orig_attr.device_cap_flags, a.xrc_odp_caps);
	report("caps", ok, ok ? NULL : d);
}

static void check_xrcd(struct env *e)
{
	char path[] = "/tmp/sroce-xrcd.XXXXXX", path2[] = "/tmp/sroce-xrcd.XXXXXX";
	int fd = mkstemp(path), fd2 = mkstemp(path2);
	struct ibv_xrcd *a, *b, *x;
	struct ibv_srq_init_attr_ex sa = { 0 };
	struct ibv_srq *srq = NULL;
	int ok = fd >= 0 && fd2 >= 0;
	const char *why = NULL;

	/* argument errors */
	x = open_xrcd(e, IBV_XRCD_INIT_ATTR_FD, -1, O_CREAT);
	if (x || errno != EINVAL)
		ok = 0, why = "no OFLAGS";
	x = open_xrcd(e, BOTH | IBV_XRCD_INIT_ATTR_RESERVED, -1, O_CREAT);
	if (x || errno != EOPNOTSUPP)
		ok = 0, why = "reserved bit";
	/* fd -1: a new private domain each time, whatever the oflags */
	a = open_xrcd(e, BOTH, -1, 0);
	b = open_xrcd(e, BOTH, -1, O_CREAT | O_RDWR);
	if (!a || !b || a == b)
		ok = 0, why = "fd -1: two private domains";
	if (a)
		ibv_close_xrcd(a);
	if (b)
		ibv_close_xrcd(b);
	x = open_xrcd(e, BOTH, 1000000, O_CREAT);
	if (x || errno != EBADF)
		ok = 0, why = "bad fd";
	x = open_xrcd(e, BOTH, fd2, 0);
	if (x || errno != EAGAIN)
		ok = 0, why = "new inode without O_CREAT";

	/* one domain per inode, counted */
	a = open_xrcd(e, BOTH, fd, O_CREAT);
	b = open_xrcd(e, BOTH, fd, 0);
	if (!a || a != b)
		ok = 0, why = "second open of the inode";
	x = open_xrcd(e, BOTH, fd, O_CREAT | O_EXCL);
	if (x || errno != EINVAL)
		ok = 0, why = "O_EXCL on an open inode";
	if (a) {
		sa.attr.max_wr = 4;
		sa.attr.max_sge = 1;
		sa.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
		sa.srq_type = IBV_SRQT_XRC;
		sa.pd = e->pd;
		sa.xrcd = a;
		sa.cq = e->cq;
		/* one close leaves the domain to the other open */
		if (ibv_close_xrcd(b) != 0)
			ok = 0, why = "first close";
		srq = ibv_create_srq_ex(e->ctx, &sa);
		if (!srq)
			ok = 0, why = "SRQ in the domain still open";
		if (ibv_close_xrcd(a) != EBUSY)
			ok = 0, why = "close with an SRQ: not EBUSY";
		if (srq && ibv_destroy_srq(srq) != 0)
			ok = 0, why = "destroy SRQ";
		if (ibv_close_xrcd(a) != 0)
			ok = 0, why = "last close";
	}
	/* gone: a new open of the inode without O_CREAT fails */
	x = open_xrcd(e, BOTH, fd, 0);
	if (x || errno != EAGAIN)
		ok = 0, why = "the closed inode's domain is still there";
	if (fd >= 0)
		close(fd), unlink(path);
	if (fd2 >= 0)
		close(fd2), unlink(path2);
	report("xrcd", ok, why);
}

static struct ibv_srq *make_srq(struct env *e, struct ibv_xrcd *x,
				struct ibv_cq *cq, uint32_t mask)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = mask, .srq_type = IBV_SRQT_XRC,
		.pd = e->pd, .xrcd = x, .cq = cq,
	};

	errno = 0;
	return ibv_create_srq_ex(e->ctx, &sa);
}

#define SRQ_MASK (IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD | \
		  IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ)

static void check_srq(struct env *e)
{
	uint32_t n1 = 0, n2 = 0;
	struct ibv_srq *s;
	int ok = 1;
	const char *why = NULL;

	s = make_srq(e, e->xrcd, e->cq, SRQ_MASK & ~IBV_SRQ_INIT_ATTR_CQ);
	if (s || errno != EINVAL)
		ok = 0, why = "no CQ";
	s = make_srq(e, NULL, e->cq, SRQ_MASK);
	if (s || errno != EINVAL)
		ok = 0, why = "no domain";
	e->srq = make_srq(e, e->xrcd, e->cq, SRQ_MASK);
	e->foreign = make_srq(e, e->other, e->cq, SRQ_MASK);
	if (!e->srq || !e->foreign)
		ok = 0, why = "create";
	else if (ibv_get_srq_num(e->srq, &n1) || ibv_get_srq_num(e->foreign, &n2) ||
		 n1 == 0 || n1 == n2 || n1 > 0xffffff)
		ok = 0, why = "ibv_get_srq_num";
	report("srq", ok, why);
}

/*
 * An XRC initiator (a requester only) or target (a responder only),
 * modified with RC's whole masks as perftest -c XRC does: the kernel's
 * uverbs drops an initiator's responder attributes and a target's
 * requester ones, and so must the drop-in (ibv_xsrq_pingpong, suite
 * verbs, gives the exact masks).
 */
static int qp_up(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	return loop_qp_up(qp, &e->gid, GID_INDEX, dqpn, IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC, 4,
			  true, true);
}

static void check_qp_create(struct env *e)
{
	struct ibv_qp_init_attr_ex a = { 0 };
	struct ibv_recv_wr rwr = { .wr_id = 1 }, *rbad;
	struct ibv_qp *q;
	int ok = 1;
	const char *why = NULL;

	a.qp_type = IBV_QPT_XRC_RECV;
	a.comp_mask = IBV_QP_INIT_ATTR_PD;
	a.pd = e->pd;
	errno = 0;
	q = ibv_create_qp_ex(e->ctx, &a);
	if (q || errno != EINVAL)
		ok = 0, why = "target without XRCD";
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.xrcd = e->xrcd;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND;
	errno = 0;
	q = ibv_create_qp_ex(e->ctx, &a);
	if (q || errno != EINVAL)
		ok = 0, why = "target with send ops";
	a.comp_mask = IBV_QP_INIT_ATTR_XRCD;
	e->tgt = ibv_create_qp_ex(e->ctx, &a);
	if (!e->tgt || e->tgt->pd || e->tgt->send_cq || e->tgt->recv_cq)
		ok = 0, why = "target";

	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_XRC_SEND;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = e->pd;
	a.recv_cq = e->cq;
	a.cap.max_send_wr = 16;
	a.cap.max_send_sge = 1;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			   IBV_QP_EX_WITH_RDMA_READ |
			   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	a.sq_sig_all = 1;
	errno = 0;
	q = ibv_create_qp_ex(e->ctx, &a);
	if (q || errno != EINVAL)
		ok = 0, why = "initiator without send CQ";
	a.send_cq = e->scq;
	e->ini = ibv_create_qp_ex(e->ctx, &a);   /* recv_cq ignored */
	if (!e->ini || e->ini->recv_cq != NULL || e->ini->srq != NULL)
		ok = 0, why = "initiator";
	e->inix = e->ini ? ibv_qp_to_qp_ex(e->ini) : NULL;
	if (e->ini && e->tgt) {
		if (ibv_post_recv(e->ini, &rwr, &rbad) != EINVAL ||
		    ibv_post_recv(e->tgt, &rwr, &rbad) != EINVAL)
			ok = 0, why = "post_recv on an XRC QP";
		if (qp_up(e, e->ini, e->tgt->qp_num) ||
		    qp_up(e, e->tgt, e->ini->qp_num))
			ok = 0, why = "modify to RTS";
	}
	if (e->ini && e->tgt) {
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		if (ibv_query_qp(e->tgt, &qa, IBV_QP_STATE, &qi) ||
		    qa.qp_state != IBV_QPS_RTS || qi.qp_type != IBV_QPT_XRC_RECV ||
		    qi.recv_cq != NULL || qa.cap.max_send_wr != 0 ||
		    ibv_query_qp(e->ini, &qa, IBV_QP_STATE, &qi) ||
		    qa.qp_state != IBV_QPS_RTS || qi.qp_type != IBV_QPT_XRC_SEND ||
		    qa.cap.max_recv_wr != 0 || qa.cap.max_send_wr < 16)
			ok = 0, why = "ibv_query_qp";
	}
	report("qp_create", ok, why);
}

static int post_srq(struct env *e, uint64_t id, uint32_t off, uint32_t len)
{
	struct ibv_sge sg = { .addr = (uintptr_t)e->buf + off, .length = len,
			      .lkey = e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1 },
			   *bad;

	return ibv_post_srq_recv(e->srq, &wr, &bad);
}

static int send_to(struct env *e, uint64_t id, uint32_t srqn)
{
	struct ibv_sge sg = { .addr = (uintptr_t)e->buf, .length = 3000,
			      .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.qp_type.xrc.remote_srqn = srqn;
	return ibv_post_send(e->ini, &wr, &bad);
}

static void check_traffic(struct env *e)
{
	struct ibv_wc wc;
	uint32_t srqn = 0;
	uint64_t v = 5, got;
	int ok = e->ini && e->tgt && e->inix &&
		 !ibv_get_srq_num(e->srq, &srqn);
	char d[128] = "";

	for (int i = 0; i < 3000; i++)
		e->buf[i] = (uint8_t)(i * 7 + 1);
	/* legacy post: SEND of 3 packets into the SRQ */
	if (ok && (post_srq(e, 50, 4096, 3000) || send_to(e, 7, srqn)))
		ok = 0, snprintf(d, sizeof(d), "post");
	if (ok && (!poll_one(e->scq, &wc, 5) || wc.status || wc.wr_id != 7))
		ok = 0, snprintf(d, sizeof(d), "send completion %d", wc.status);
	if (ok && (!poll_one(e->cq, &wc, 5) || wc.status ||
		   wc.wr_id != 50 || wc.byte_len != 3000 ||
		   wc.opcode != IBV_WC_RECV || wc.qp_num != e->tgt->qp_num))
		ok = 0, snprintf(d, sizeof(d), "recv: status %d qp %u",
				 wc.status, wc.qp_num);
	if (ok && memcmp(e->buf + 4096, e->buf, 3000))
		ok = 0, snprintf(d, sizeof(d), "SEND data");

	/* the post-send API: WRITE, READ, FETCH_ADD */
	if (ok) {
		memcpy(e->buf + 7000, &v, 8);
		ibv_wr_start(e->inix);
		e->inix->wr_id = 8;
		ibv_wr_rdma_write(e->inix, e->mr->rkey,
				  (uintptr_t)e->buf + 5000);
		ibv_wr_set_xrc_srqn(e->inix, srqn);
		ibv_wr_set_sge(e->inix, e->mr->lkey, (uintptr_t)e->buf, 1500);
		e->inix->wr_id = 9;
		ibv_wr_rdma_read(e->inix, e->mr->rkey, (uintptr_t)e->buf);
		ibv_wr_set_xrc_srqn(e->inix, srqn);
		ibv_wr_set_sge(e->inix, e->mr->lkey, (uintptr_t)e->buf + 6500,
			       100);
		e->inix->wr_id = 10;
		ibv_wr_atomic_fetch_add(e->inix, e->mr->rkey,
					(uintptr_t)e->buf + 7000, 3);
		ibv_wr_set_xrc_srqn(e->inix, srqn);
		ibv_wr_set_sge(e->inix, e->mr->lkey, (uintptr_t)e->buf + 7100,
			       8);
		if (ibv_wr_complete(e->inix))
			ok = 0, snprintf(d, sizeof(d), "wr_complete");
	}
	for (uint64_t id = 8; ok && id <= 10; id++)
		if (!poll_one(e->scq, &wc, 5) || wc.status || wc.wr_id != id)
			ok = 0, snprintf(d, sizeof(d), "wr %u: status %d",
					 (unsigned int)id, wc.status);
	if (ok && (memcmp(e->buf + 5000, e->buf, 1500) ||
		   memcmp(e->buf + 6500, e->buf, 100)))
		ok = 0, snprintf(d, sizeof(d), "WRITE/READ data");
	memcpy(&got, e->buf + 7100, 8);
	if (ok && got != 5)
		ok = 0, snprintf(d, sizeof(d), "fetch_add returned %llu",
				 (unsigned long long)got);
	memcpy(&got, e->buf + 7000, 8);
	if (ok && got != 8)
		ok = 0, snprintf(d, sizeof(d), "fetch_add left %llu",
				 (unsigned long long)got);
	report("traffic", ok, d[0] ? d : NULL);
}

static void check_srqn_on_rc(struct env *e)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC, .send_cq = e->scq, .recv_cq = e->scq,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd, .send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct ibv_qp *qp = ibv_create_qp_ex(e->ctx, &a);
	struct ibv_qp_ex *qx = qp ? ibv_qp_to_qp_ex(qp) : NULL;
	int ok = qx != NULL;

	if (ok) {
		ibv_wr_start(qx);
		ibv_wr_send(qx);
		ibv_wr_set_xrc_srqn(qx, 1);
		ok = ibv_wr_complete(qx) == EINVAL;
	}
	if (qp)
		ibv_destroy_qp(qp);
	report("srqn_on_rc", ok, NULL);
}

static void check_foreign_srq(struct env *e)
{
	struct ibv_wc wc = { 0 };
	uint32_t n = 0;
	int ok = e->ini && e->foreign && !ibv_get_srq_num(e->foreign, &n) &&
		 send_to(e, 11, n) == 0 && poll_one(e->scq, &wc, 5) &&
		 wc.wr_id == 11 && wc.status == IBV_WC_REM_INV_REQ_ERR;
	char d[64];

	snprintf(d, sizeof(d), "status %d", wc.status);
	report("foreign_srq", ok, ok ? NULL : d);
}

/* ibv_open_qp with this mask, number, domain and type: NULL's errno or 0 */
static int open_err(struct env *e, uint32_t mask, uint32_t num,
		    struct ibv_xrcd *x, enum ibv_qp_type type)
{
	struct ibv_qp_open_attr oa = { .comp_mask = mask, .qp_num = num,
				       .xrcd = x, .qp_type = type };
	struct ibv_qp *q;

	errno = 0;
	q = ibv_open_qp(e->ctx, &oa);
	if (q != NULL) {
		ibv_destroy_qp(q);
		return 0;
	}
	return errno;
}

static void check_open_qp(struct env *e)
{
	const uint32_t all = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE;
	struct ibv_qp_open_attr oa = { .comp_mask = all | IBV_QP_OPEN_ATTR_CONTEXT,
				       .xrcd = e->xrcd,
				       .qp_type = IBV_QPT_XRC_RECV,
				       .qp_context = e };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_qp *h = NULL;
	struct ibv_wc wc;
	uint32_t srqn = 0, num;
	const char *why = NULL;
	int ok = e->tgt && e->ini && !ibv_get_srq_num(e->srq, &srqn);

	num = e->tgt ? e->tgt->qp_num : 0;
	oa.qp_num = num;
	if (ok && (open_err(e, all & ~IBV_QP_OPEN_ATTR_NUM, num, e->xrcd,
			    IBV_QPT_XRC_RECV) != EINVAL ||
		   open_err(e, all & ~IBV_QP_OPEN_ATTR_XRCD, num, e->xrcd,
			    IBV_QPT_XRC_RECV) != EINVAL ||
		   open_err(e, all & ~IBV_QP_OPEN_ATTR_TYPE, num, e->xrcd,
			    IBV_QPT_XRC_RECV) != EINVAL ||
		   open_err(e, all, num, e->xrcd, IBV_QPT_RC) != EINVAL ||
		   open_err(e, all, num, e->other, IBV_QPT_XRC_RECV) != EINVAL ||
		   open_err(e, all, e->ini->qp_num, e->xrcd,
			    IBV_QPT_XRC_RECV) != EINVAL ||
		   open_err(e, all | IBV_QP_OPEN_ATTR_RESERVED, num, e->xrcd,
			    IBV_QPT_XRC_RECV) != EOPNOTSUPP))
		ok = 0, why = "bad arguments";
	if (ok) {
		h = ibv_open_qp(e->ctx, &oa);
		if (h == NULL || h == e->tgt || h->qp_num != num ||
		    h->qp_type != IBV_QPT_XRC_RECV || h->qp_context != e ||
		    ibv_query_qp(h, &qa, IBV_QP_STATE, &qi) ||
		    qa.qp_state != IBV_QPS_RTS)
			ok = 0, why = "second handle";
	}
	/* the creator's handle goes: the target stays for the other */
	if (ok && ibv_destroy_qp(e->tgt) != 0)
		ok = 0, why = "destroy the creator's handle";
	if (ok)
		e->tgt = NULL;
	memset(e->buf + 4096, 0, 3000);
	for (int i = 0; i < 3000; i++)
		e->buf[i] = (uint8_t)(i * 3 + 5);
	if (ok && (post_srq(e, 60, 4096, 3000) || send_to(e, 61, srqn) ||
		   !poll_one(e->scq, &wc, 5) || wc.status != IBV_WC_SUCCESS ||
		   !poll_one(e->cq, &wc, 5) || wc.status != IBV_WC_SUCCESS ||
		   wc.wr_id != 60 || wc.qp_num != num ||
		   memcmp(e->buf, e->buf + 4096, 3000) != 0))
		ok = 0, why = "SEND to the target after its creator's destroy";
	if (ok && (ibv_close_xrcd(e->xrcd) != EBUSY))
		ok = 0, why = "domain closed under a target";
	/* the second handle is the target from here on (teardown's) */
	if (e->tgt == NULL)
		e->tgt = h;
	else if (h != NULL)
		ibv_destroy_qp(h);
	/* a target whose only handle is destroyed opens no more */
	if (ok) {
		struct ibv_qp_init_attr_ex a = {
			.qp_type = IBV_QPT_XRC_RECV,
			.comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = e->xrcd,
		};
		struct ibv_qp *t = ibv_create_qp_ex(e->ctx, &a);
		uint32_t tn = t ? t->qp_num : 0;

		if (t == NULL || ibv_destroy_qp(t) != 0 ||
		    open_err(e, all, tn, e->xrcd, IBV_QPT_XRC_RECV) != EINVAL)
			ok = 0, why = "a destroyed target opens";
	}
	report("open_qp", ok, why);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct env e = { 0 };
	int ok;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!list || !list[0] || !(e.ctx = ibv_open_device(list[0]))) {
		printf("FAIL open device\n");
		return 1;
	}
	e.buf = aligned_alloc(4096, BUF_LEN);
	e.pd = ibv_alloc_pd(e.ctx);
	e.mr = e.pd && e.buf ? ibv_reg_mr(e.pd, e.buf, BUF_LEN,
					  IBV_ACCESS_LOCAL_WRITE |
					  IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ |
					  IBV_ACCESS_REMOTE_ATOMIC) : NULL;
	e.cq = ibv_create_cq(e.ctx, 64, NULL, NULL, 0);
	e.scq = ibv_create_cq(e.ctx, 64, NULL, NULL, 0);
	e.xrcd = open_xrcd(&e, BOTH, -1, O_CREAT);
	e.other = open_xrcd(&e, BOTH, -1, O_CREAT);
	if (!e.mr || !e.cq || !e.scq || !e.xrcd || !e.other ||
	    e.xrcd == e.other || ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid)) {
		printf("FAIL setup\n");
		return 1;
	}
	check_caps(&e);
	check_xrcd(&e);
	check_srq(&e);
	check_qp_create(&e);
	check_traffic(&e);
	check_srqn_on_rc(&e);
	check_open_qp(&e);
	check_foreign_srq(&e);
	/* teardown in the order the domain allows */
	ok = (!e.ini || ibv_destroy_qp(e.ini) == 0) &&
	     (!e.tgt || ibv_destroy_qp(e.tgt) == 0) &&
	     (!e.srq || ibv_destroy_srq(e.srq) == 0) &&
	     (!e.foreign || ibv_destroy_srq(e.foreign) == 0) &&
	     ibv_close_xrcd(e.xrcd) == 0 && ibv_close_xrcd(e.other) == 0 &&
	     ibv_destroy_cq(e.cq) == 0 && ibv_destroy_cq(e.scq) == 0;
	report("teardown", ok, NULL);
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	free(e.buf);
	printf("%s\n", failures ? "FAILED" : "all ok");
	return failures ? 1 : 0;
}
