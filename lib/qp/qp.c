/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp.c — QP objects: create, the state machine, post, flush.
 *
 * The transition table is IBTA 10.3.1 (table 93 and the QP attribute
 * tables), the same one ib_modify_qp_is_ok() of Linux encodes: for each
 * [current][next] state and QP type, the attributes that must be given
 * and those that may be.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/sched.h"
#include "mr/mr.h"
#include "qp/mcast.h"
#include "qp/qp_priv.h"
#include "transport/transport.h"

bool sr_req_opcode_valid(enum sr_qp_type t, enum sr_wr_opcode op);

/* XI: XRC initiator (XRC_SEND), XT: XRC target (XRC_RECV). */
enum { SR_T_RC, SR_T_UC, SR_T_UD, SR_T_XI, SR_T_XT, SR_T_MAX };

static unsigned int sr_t(enum sr_qp_type t)
{
	switch (t) {
	case SR_QPT_RC:
		return SR_T_RC;
	case SR_QPT_UC:
		return SR_T_UC;
	case SR_QPT_XRC_SEND:
		return SR_T_XI;
	case SR_QPT_XRC_RECV:
		return SR_T_XT;
	default:
		return SR_T_UD;
	}
}

struct sr_qp_trans {
	bool valid;
	uint32_t req[SR_T_MAX];
	uint32_t opt[SR_T_MAX];
};

#define M(x) SR_QP_##x
#define ALT (M(ALT_PATH) | M(PATH_MIG_STATE))

static const struct sr_qp_trans sr_qp_trans[SR_QPS_MAX][SR_QPS_MAX] = {
	[SR_QPS_RESET] = {
		[SR_QPS_RESET] = { .valid = true },
		[SR_QPS_INIT] = {
			.valid = true,
			.req = {
				[SR_T_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[SR_T_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[SR_T_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY),
				[SR_T_XI] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[SR_T_XT] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			},
		},
	},
	[SR_QPS_INIT] = {
		[SR_QPS_INIT] = {
			.valid = true,
			.opt = {
				[SR_T_RC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[SR_T_UC] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[SR_T_UD] = M(PKEY_INDEX) | M(PORT) | M(QKEY),
				[SR_T_XI] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
				[SR_T_XT] = M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS),
			},
		},
		[SR_QPS_RTR] = {
			.valid = true,
			.req = {
				[SR_T_RC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					    M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) |
					    M(MIN_RNR_TIMER),
				[SR_T_UC] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					    M(RQ_PSN),
				/* the initiator receives no request */
				[SR_T_XI] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					    M(RQ_PSN),
				[SR_T_XT] = M(AV) | M(PATH_MTU) | M(DEST_QPN) |
					    M(RQ_PSN) | M(MAX_DEST_RD_ATOMIC) |
					    M(MIN_RNR_TIMER),
			},
			.opt = {
				[SR_T_RC] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX),
				[SR_T_UC] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX),
				[SR_T_XI] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX),
				[SR_T_XT] = M(ALT_PATH) | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX),
				/* PATH_MTU on UD: sroce's way to set its MTU */
				[SR_T_UD] = M(PKEY_INDEX) | M(QKEY) | M(PATH_MTU),
			},
		},
	},
	[SR_QPS_RTR] = {
		[SR_QPS_RTS] = {
			.valid = true,
			.req = {
				[SR_T_RC] = M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) |
					    M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC),
				[SR_T_UC] = M(SQ_PSN),
				[SR_T_UD] = M(SQ_PSN),
				[SR_T_XI] = M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) |
					    M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC),
				/* the target sends no request */
				[SR_T_XT] = M(SQ_PSN) | M(TIMEOUT),
			},
			.opt = {
				[SR_T_RC] = M(CUR_STATE) | ALT | M(ACCESS_FLAGS) |
					    M(MIN_RNR_TIMER),
				[SR_T_UC] = M(CUR_STATE) | ALT | M(ACCESS_FLAGS),
				[SR_T_UD] = M(CUR_STATE) | M(QKEY),
				[SR_T_XI] = M(CUR_STATE) | ALT | M(ACCESS_FLAGS),
				[SR_T_XT] = M(CUR_STATE) | ALT | M(ACCESS_FLAGS) |
					    M(MIN_RNR_TIMER),
			},
		},
	},
	[SR_QPS_RTS] = {
		[SR_QPS_RTS] = {
			.valid = true,
			.opt = {
				[SR_T_RC] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT |
					    M(MIN_RNR_TIMER),
				[SR_T_UC] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT,
				[SR_T_UD] = M(CUR_STATE) | M(QKEY),
				[SR_T_XI] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT,
				[SR_T_XT] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT |
					    M(MIN_RNR_TIMER),
			},
		},
		[SR_QPS_SQD] = {
			.valid = true,
			.opt = {
				[SR_T_RC] = M(EN_SQD_ASYNC_NOTIFY),
				[SR_T_UC] = M(EN_SQD_ASYNC_NOTIFY),
				[SR_T_UD] = M(EN_SQD_ASYNC_NOTIFY),
				[SR_T_XI] = M(EN_SQD_ASYNC_NOTIFY),
				[SR_T_XT] = M(EN_SQD_ASYNC_NOTIFY),
			},
		},
	},
	[SR_QPS_SQD] = {
		[SR_QPS_RTS] = {
			.valid = true,
			.opt = {
				[SR_T_RC] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT |
					    M(MIN_RNR_TIMER),
				[SR_T_UC] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT,
				[SR_T_UD] = M(CUR_STATE) | M(QKEY),
				[SR_T_XI] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT,
				[SR_T_XT] = M(CUR_STATE) | M(ACCESS_FLAGS) | ALT |
					    M(MIN_RNR_TIMER),
			},
		},
		[SR_QPS_SQD] = {
			.valid = true,
			.opt = {
				[SR_T_RC] = M(AV) | ALT | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX) | M(MIN_RNR_TIMER) |
					    M(TIMEOUT) | M(RETRY_CNT) |
					    M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC) |
					    M(MAX_DEST_RD_ATOMIC),
				[SR_T_UC] = M(AV) | ALT | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX),
				[SR_T_UD] = M(PKEY_INDEX) | M(QKEY),
				[SR_T_XI] = M(AV) | ALT | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX) | M(TIMEOUT) |
					    M(RETRY_CNT) | M(RNR_RETRY) |
					    M(MAX_QP_RD_ATOMIC),
				[SR_T_XT] = M(AV) | ALT | M(ACCESS_FLAGS) |
					    M(PKEY_INDEX) | M(MIN_RNR_TIMER) |
					    M(TIMEOUT) | M(MAX_DEST_RD_ATOMIC),
			},
		},
	},
	[SR_QPS_SQE] = {
		[SR_QPS_RTS] = {
			.valid = true,
			.opt = {
				[SR_T_UC] = M(CUR_STATE) | M(ACCESS_FLAGS),
				[SR_T_UD] = M(CUR_STATE) | M(QKEY),
			},
		},
	},
};

#undef ALT
#undef M

static uint32_t sr_qp_wqe_stride(const struct sr_qp_cap *cap)
{
	return (uint32_t)(sizeof(struct sr_send_wqe) +
			  cap->max_send_sge * sizeof(struct sr_sge) +
			  cap->max_inline_data);
}

/* The objects each QP type takes, and only those. */
static bool sr_qp_init_ok(const struct sr_dev *dev,
			  const struct sr_qp_init_attr *init)
{
	const struct sr_qp_cap *cap = &init->cap;
	bool cqs = init->send_cq != NULL && init->recv_cq != NULL;

	switch (init->qp_type) {
	case SR_QPT_RC:
	case SR_QPT_UD:
		return init->pd != NULL && cqs && init->xrcd == NULL;
	case SR_QPT_UC:
		return init->pd != NULL && cqs && init->xrcd == NULL &&
		       init->srq == NULL;
	case SR_QPT_XRC_SEND:
		return init->pd != NULL && init->send_cq != NULL &&
		       init->recv_cq == NULL && init->srq == NULL &&
		       init->xrcd == NULL && cap->max_recv_wr == 0;
	case SR_QPT_XRC_RECV:
		return init->xrcd != NULL && init->xrcd->dev == dev &&
		       init->pd == NULL && init->send_cq == NULL &&
		       init->recv_cq == NULL && init->srq == NULL &&
		       cap->max_send_wr == 0 && cap->max_recv_wr == 0;
	default:
		return false;
	}
}

struct sr_qp *sr_qp_create(struct sr_dev *dev, struct sr_qp_init_attr *init)
{
	struct sr_qp_cap *cap;
	struct sr_qp *qp;
	uint32_t rsge, qpn;
	bool xrc = false, tgt = false;

	if (dev == NULL || init == NULL || !sr_qp_init_ok(dev, init))
		return NULL;
	cap = &init->cap;
	/* zero-sized queues are legal: a QP that only sends or only receives */
	if (cap->max_send_wr > SR_QP_MAX_WR ||
	    cap->max_recv_wr > SR_QP_MAX_WR ||
	    cap->max_send_sge > SR_QP_MAX_SGE ||
	    cap->max_recv_sge > SR_QP_MAX_SGE ||
	    cap->max_inline_data > SR_QP_MAX_INLINE)
		return NULL;
	xrc = init->qp_type == SR_QPT_XRC_SEND ||
	      init->qp_type == SR_QPT_XRC_RECV;
	tgt = init->qp_type == SR_QPT_XRC_RECV;
	if (xrc)
		cap->max_recv_sge = 0;     /* no receive queue of its own */
	if (tgt)
		cap->max_send_sge = cap->max_inline_data = 0;
	if (cap->max_send_sge == 0 && !tgt)
		cap->max_send_sge = 1;
	if (cap->max_recv_sge == 0 && !xrc)
		cap->max_recv_sge = 1;
	/* At least SR_QP_MIN_INLINE, as rxe and RNICs give more than asked:
	 * programs post small inline sends on QPs that asked for 0
	 * (rdma-core's rdma_xclient). */
	cap->max_inline_data = (cap->max_inline_data + 7u) & ~7u;
	if (cap->max_inline_data < SR_QP_MIN_INLINE && !tgt)
		cap->max_inline_data = SR_QP_MIN_INLINE;

	qp = sr_zalloc(sizeof(*qp));
	if (qp == NULL)
		return NULL;
	qp->dev = dev;
	qp->type = init->qp_type;
	qp->ctx = init->qp_context;
	qp->pd = init->pd;
	qp->scq = init->send_cq;
	qp->rcq = init->recv_cq;
	qp->srq = init->srq;
	qp->xrcd = init->xrcd;
	qp->sq_sig_all = init->sq_sig_all;
	if (sr_ring_init(&qp->sq, cap->max_send_wr, sr_qp_wqe_stride(cap)) != 0)
		goto out_free_qp;
	if (init->srq == NULL && !xrc &&
	    sr_ring_init(&qp->rq, cap->max_recv_wr,
			 (uint32_t)(sizeof(struct sr_recv_wqe) +
				    cap->max_recv_sge * sizeof(struct sr_sge))) != 0)
		goto out_fini_sq;
	cap->max_send_wr = qp->sq.cap;
	if (init->srq == NULL && !xrc)
		cap->max_recv_wr = qp->rq.cap;
	else
		cap->max_recv_wr = 0;
	qp->cap = *cap;
	/* a target's SRQs are known only as requests name them */
	rsge = tgt ? SR_QP_MAX_SGE
		   : init->srq ? init->srq->max_sge : cap->max_recv_sge;
	qp->resp.wqe = calloc(1, sizeof(struct sr_recv_wqe) +
				 rsge * sizeof(struct sr_sge));
	if (qp->resp.wqe == NULL)
		goto out_fini_rq;
	if (sr_resp_res_alloc(qp, 1) != 0)
		goto out_free_wqe;
	qp->mtu = sr_mtu_bytes(SR_MTU_1024);
	qp->attr.path_mtu = SR_MTU_1024;
	qp->attr.pkey = dev->pkey;
	qp->attr.max_rd_atomic = 1;
	qp->attr.max_dest_rd_atomic = 1;
	atomic_store(&qp->state, SR_QPS_RESET);

	sr_dev_lock_all(dev);
	if (dev->nqp == dev->max_qp) {
		sr_dev_unlock_all(dev);
		goto out_free_res;
	}
	/* a free slot exists: nqp < max_qp */
	for (qpn = dev->next_qpn; dev->qps[qpn] != NULL;
	     qpn = (qpn + 1) % dev->max_qp)
		;
	dev->next_qpn = (qpn + 1) % dev->max_qp;
	dev->qps[qpn] = qp;
	qp->qpn = qpn + dev->qpn_base;
	qp->lane = sr_dev_lane_of(dev, qp->qpn);
	dev->nqp++;
	if (qp->scq)
		qp->scq->users++;
	if (qp->rcq)
		qp->rcq->users++;
	if (qp->srq)
		qp->srq->users++;
	if (qp->xrcd)
		qp->xrcd->users++;
	sr_dev_unlock_all(dev);
	if (qp->pd)
		sr_pd_get(qp->pd);
	qp->sport = sr_udp_sport(0, qp->qpn, qp->qpn);
	return qp;

out_free_res:
	free(qp->resp.res);
out_free_wqe:
	free(qp->resp.wqe);
out_fini_rq:
	sr_ring_fini(&qp->rq);
out_fini_sq:
	sr_ring_fini(&qp->sq);
out_free_qp:
	free(qp);
	return NULL;
}

int sr_qp_destroy(struct sr_qp *qp)
{
	struct sr_dev *dev;

	if (qp == NULL)
		return 0;
	dev = qp->dev;
	sr_dev_lock_all(dev);
	/*
	 * The last message's ACK may still be coalescing: send it, or a peer
	 * whose consumer destroys its QP right after the last receive
	 * completion would retry into an error.
	 */
	if (sr_qp_reliable(qp))
		sr_resp_flush_owed_ack(qp);
	dev->qps[qp->qpn - dev->qpn_base] = NULL;
	dev->nqp--;
	if (qp->nmcast)
		sr_mcast_qp_gone(qp);
	if (qp->type == SR_QPT_XRC_RECV) {
		/* srq, rcq and pd were only the last request's: not counted */
		qp->xrcd->users--;
		qp->srq = NULL;
		qp->rcq = NULL;
		qp->pd = NULL;
	}
	if (qp->scq)
		qp->scq->users--;
	if (qp->rcq)
		qp->rcq->users--;
	if (qp->srq)
		qp->srq->users--;
	sr_dev_unlock_all(dev);
	/*
	 * A shared device's daemon keeps this QP's peer until the QPN is
	 * given a new one (or the process leaves): frames it queued before
	 * going, like the last ACK above, must still go out.
	 */
	if (qp->pd)
		sr_pd_put(qp->pd);
	free(qp->resp.res);
	free(qp->resp.wqe);
	sr_ring_fini(&qp->rq);
	sr_ring_fini(&qp->sq);
	free(qp);
	return 0;
}

static void sr_qp_reset(struct sr_qp *qp)
{
	atomic_store(&qp->sq.prod, 0);
	atomic_store(&qp->sq.cons, 0);
	if (qp->srq == NULL) {
		atomic_store(&qp->rq.prod, 0);
		atomic_store(&qp->rq.cons, 0);
	}
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	sr_resp_reset(qp);
	qp->flush_pending = false;
	qp->sqd_event = false;
	/* nothing of the old life stays to be polled (sr_cq_clean) */
	if (qp->scq)
		sr_cq_clean(qp->scq, qp->qpn);
	if (qp->rcq && qp->rcq != qp->scq)
		sr_cq_clean(qp->rcq, qp->qpn);
	if (qp->type == SR_QPT_XRC_RECV) {
		qp->srq = NULL;
		qp->rcq = NULL;
		qp->pd = NULL;
		qp->resp.xrc_srqn = 0;
	}
}

static int sr_qp_check_attr(const struct sr_qp *qp,
			    const struct sr_qp_attr *a, unsigned int mask)
{
	if ((mask & SR_QP_PATH_MTU) &&
	    (a->path_mtu < SR_MTU_256 || a->path_mtu > SR_MTU_4096))
		return -EINVAL;
	if ((mask & SR_QP_RQ_PSN) && a->rq_psn > SR_PSN_MASK)
		return -EINVAL;
	if ((mask & SR_QP_SQ_PSN) && a->sq_psn > SR_PSN_MASK)
		return -EINVAL;
	if ((mask & SR_QP_DEST_QPN) && a->dest_qp_num > SR_PSN_MASK)
		return -EINVAL;
	if ((mask & SR_QP_TIMEOUT) && a->timeout > 31)
		return -EINVAL;
	if ((mask & SR_QP_RETRY_CNT) && a->retry_cnt > 7)
		return -EINVAL;
	if ((mask & SR_QP_RNR_RETRY) && a->rnr_retry > 7)
		return -EINVAL;
	if ((mask & SR_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & SR_QP_MAX_QP_RD_ATOMIC) &&
	    a->max_rd_atomic > SR_QP_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & SR_QP_MAX_DEST_RD_ATOMIC) &&
	    a->max_dest_rd_atomic > SR_QP_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & SR_QP_PKEY_INDEX) && a->pkey_index != 0)
		return -EINVAL;
	if ((mask & SR_QP_AV) && a->av.sgid_index >= qp->dev->gid_count)
		return -EINVAL;
	if ((mask & SR_QP_ACCESS_FLAGS) &&
	    (a->qp_access_flags & ~(unsigned int)SR_ACCESS_ALL))
		return -EINVAL;
	return 0;
}

/* Enter ERR; flushing happens in the engine.  Caller holds its lane lock. */
static void sr_qp_set_err(struct sr_qp *qp)
{
	atomic_store_explicit(&qp->state, SR_QPS_ERR, memory_order_release);
	qp->flush_pending = true;
}

int sr_qp_modify(struct sr_qp *qp, const struct sr_qp_attr *attr,
		 unsigned int mask)
{
	struct sr_dev *dev = qp->dev;
	enum sr_qp_state cur, next;
	const struct sr_qp_trans *t;
	unsigned int ti = sr_t(qp->type);
	int ret = 0;

	/* a shared device's daemon learns the connected QP's peer first */
	if (dev->peer_cb != NULL && sr_qp_connected(qp) &&
	    (mask & SR_QP_STATE) && attr->qp_state == SR_QPS_RTR &&
	    (mask & SR_QP_AV) && (mask & SR_QP_DEST_QPN)) {
		ret = dev->peer_cb(dev->peer_ctx, qp->qpn, attr->av.dgid,
				   attr->dest_qp_num & 0xffffffu, true);
		if (ret != 0)
			return ret;
	}
	sr_dev_lock_all(dev);
	qp->cc_quiet = false;        /* the AV's static rate may change */
	cur = sr_qp_state_get(qp);
	if ((mask & SR_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		/* ibverbs lets cur_qp_state say SQE->RTS etc.; must match */
		ret = -EINVAL;
		goto out_unlock;
	}
	next = (mask & SR_QP_STATE) ? attr->qp_state : cur;
	if ((unsigned int)next >= SR_QPS_MAX) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (next == SR_QPS_RESET || next == SR_QPS_ERR) {
		/* any state may go to RESET or ERR, with no attributes */
		if (mask & ~(unsigned int)(SR_QP_STATE | SR_QP_CUR_STATE)) {
			ret = -EINVAL;
			goto out_unlock;
		}
		/* a held ACK answers requests already placed: send it */
		if (sr_qp_reliable(qp))
			sr_resp_flush_owed_ack(qp);
		if (next == SR_QPS_RESET)
			sr_qp_reset(qp);
		else
			sr_qp_set_err(qp);
		if (next == SR_QPS_RESET)
			atomic_store(&qp->state, SR_QPS_RESET);
		sr_qp_trace(qp, SR_TRACE_STATE, (uint8_t)next, (uint16_t)cur,
			    SR_TRACE_WHY_MODIFY, 0, 0, 0);
		goto out_unlock;
	}
	t = &sr_qp_trans[cur][next];
	if (!t->valid ||
	    (mask & t->req[ti]) != t->req[ti] ||
	    (mask & ~(unsigned int)(SR_QP_STATE | t->req[ti] | t->opt[ti]))) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = sr_qp_check_attr(qp, attr, mask);
	if (ret != 0)
		goto out_unlock;
	if (mask & SR_QP_MAX_DEST_RD_ATOMIC) {
		ret = sr_resp_res_alloc(qp, attr->max_dest_rd_atomic);
		if (ret != 0)
			goto out_unlock;
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	}

	/* apply */
	if (mask & SR_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & SR_QP_PKEY_INDEX) {
		qp->attr.pkey_index = 0;
		qp->attr.pkey = dev->pkey;
	}
	if (mask & SR_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & SR_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	if (mask & SR_QP_AV)
		qp->attr.av = attr->av;
	if (mask & SR_QP_PATH_MTU) {
		qp->attr.path_mtu = attr->path_mtu;
		qp->mtu = sr_mtu_bytes(attr->path_mtu);
	}
	if (mask & SR_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (mask & SR_QP_RETRY_CNT) {
		qp->attr.retry_cnt = attr->retry_cnt;
		qp->comp.retry_left = attr->retry_cnt;
	}
	if (mask & SR_QP_RNR_RETRY) {
		qp->attr.rnr_retry = attr->rnr_retry;
		qp->comp.rnr_left = attr->rnr_retry;
	}
	if (mask & SR_QP_RQ_PSN) {
		qp->attr.rq_psn = attr->rq_psn;
		qp->resp.psn = attr->rq_psn;
	}
	if (mask & SR_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (mask & SR_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (mask & SR_QP_SQ_PSN) {
		qp->attr.sq_psn = attr->sq_psn;
		qp->req.psn = attr->sq_psn;
		qp->req.max_psn = attr->sq_psn;
		qp->comp.psn = attr->sq_psn;
	}
	if (mask & SR_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	if (mask & SR_QP_EN_SQD_ASYNC_NOTIFY)
		qp->attr.en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & (SR_QP_AV | SR_QP_DEST_QPN))
		qp->sport = sr_udp_sport(qp->attr.av.flow_label, qp->qpn,
					 qp->attr.dest_qp_num);
	qp->tx_tmpl_gen = 0;            /* its headers are made again */
	if (next == SR_QPS_SQD && cur == SR_QPS_RTS)
		qp->sqd_event = qp->attr.en_sqd_async_notify;
	atomic_store_explicit(&qp->state, next, memory_order_release);
	if (next != cur)
		sr_qp_trace(qp, SR_TRACE_STATE, (uint8_t)next, (uint16_t)cur,
			    SR_TRACE_WHY_MODIFY, 0, 0, 0);

out_unlock:
	sr_sched_kick(dev, qp);         /* a new state, new attributes */
	sr_dev_unlock_all(dev);
	return ret;
}

int sr_qp_query(struct sr_qp *qp, struct sr_qp_attr *attr,
		struct sr_qp_init_attr *init)
{
	sr_dev_lock_all(qp->dev);
	if (attr != NULL) {
		*attr = qp->attr;
		attr->qp_state = sr_qp_state_get(qp);
		attr->cur_qp_state = attr->qp_state;
		attr->cap = qp->cap;
		attr->sq_draining = attr->qp_state == SR_QPS_SQD &&
				    qp->comp.idx != qp->req.idx;
	}
	if (init != NULL) {
		memset(init, 0, sizeof(*init));
		init->qp_context = qp->ctx;
		init->send_cq = qp->scq;
		init->recv_cq = qp->rcq;
		if (qp->type != SR_QPT_XRC_RECV) {
			init->srq = qp->srq;
			init->pd = qp->pd;
		} else {
			init->recv_cq = NULL;
		}
		init->xrcd = qp->xrcd;
		init->cap = qp->cap;
		init->qp_type = qp->type;
		init->sq_sig_all = qp->sq_sig_all;
	}
	sr_dev_unlock_all(qp->dev);
	return 0;
}

static bool sr_wr_is_rd_atomic(enum sr_wr_opcode op)
{
	return op == SR_WR_RDMA_READ || op == SR_WR_ATOMIC_CMP_AND_SWP ||
	       op == SR_WR_ATOMIC_FETCH_AND_ADD || op == SR_WR_FLUSH ||
	       op == SR_WR_ATOMIC_WRITE;
}

static bool sr_wr_local_ok(enum sr_qp_type t, enum sr_wr_opcode op)
{
	return (op == SR_WR_LOCAL_INV || op == SR_WR_REG_MR ||
		op == SR_WR_BIND_MW) && t != SR_QPT_UD && t != SR_QPT_XRC_RECV;
}

static int sr_qp_fill_wqe(struct sr_qp *qp, struct sr_send_wqe *w,
			  const struct sr_send_wr *wr)
{
	uint64_t len = 0;
	int i;

	memcpy(&w->wr, wr, sizeof(*wr));
	w->wr.next = NULL;
	w->wr.sg_list = w->sge;
	w->state = SR_WQE_POSTED;
	w->status = SR_WC_SUCCESS;
	w->counted = 0;
	w->rd_atomic = sr_wr_is_rd_atomic(wr->opcode);
	if (wr->send_flags & SR_SEND_INLINE) {
		uint8_t *dst = sr_wqe_inline(qp, w);

		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		if (len > qp->cap.max_inline_data)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(dst, (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			dst += wr->sg_list[i].length;
		}
		w->wr.num_sge = 0;
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			w->sge[i] = wr->sg_list[i];
			len += wr->sg_list[i].length;
		}
	}
	switch (wr->opcode) {
	case SR_WR_ATOMIC_CMP_AND_SWP:
	case SR_WR_ATOMIC_FETCH_AND_ADD:
	case SR_WR_ATOMIC_WRITE:
		len = 8;
		break;
	case SR_WR_FLUSH:
		len = 0;
		break;
	default:
		break;
	}
	if (len > UINT32_MAX >> 1)
		return -EINVAL;
	w->length = (uint32_t)len;
	if (qp->type == SR_QPT_UD) {
		if (wr->wr.ud.av == NULL || len > qp->mtu)
			return -EINVAL;
		w->av = *wr->wr.ud.av;
	}
	if (qp->type == SR_QPT_XRC_SEND && wr->xrc_srqn > SR_PSN_MASK &&
	    !sr_wr_local_ok(qp->type, wr->opcode))
		return -EINVAL;
	return 0;
}

int sr_qp_post_send(struct sr_qp *qp, const struct sr_send_wr *wr,
		    const struct sr_send_wr **bad)
{
	enum sr_qp_state st = sr_qp_state_get(qp);
	uint32_t prod = sr_ring_prod_peek(&qp->sq);
	int ret = 0;

	if (st == SR_QPS_RESET || st == SR_QPS_INIT || st == SR_QPS_RTR) {
		ret = -EINVAL;
		goto out;
	}
	for (; wr != NULL; wr = wr->next) {
		if (wr->num_sge < 0 ||
		    (!(wr->send_flags & SR_SEND_INLINE) &&
		     (uint32_t)wr->num_sge > qp->cap.max_send_sge) ||
		    (!sr_req_opcode_valid(qp->type, wr->opcode) &&
		     !sr_wr_local_ok(qp->type, wr->opcode))) {
			ret = -EINVAL;
			break;
		}
		if (sr_ring_free(&qp->sq, prod) == 0) {
			ret = -ENOMEM;
			break;
		}
		ret = sr_qp_fill_wqe(qp, sr_sq_wqe(qp, prod), wr);
		if (ret != 0)
			break;
		prod++;
	}
	sr_ring_publish(&qp->sq, prod);
	sr_sched_kick(qp->dev, qp);     /* the engine's next round sends */
out:
	if (ret != 0 && bad != NULL)
		*bad = wr;
	return ret;
}

int sr_qp_post_recv(struct sr_qp *qp, const struct sr_recv_wr *wr,
		    const struct sr_recv_wr **bad)
{
	int ret;

	if (qp->srq != NULL || qp->type == SR_QPT_XRC_SEND ||
	    qp->type == SR_QPT_XRC_RECV ||
	    sr_qp_state_get(qp) == SR_QPS_RESET) {
		ret = -EINVAL;
		goto out;
	}
	ret = sr_recv_ring_post(&qp->rq, qp->cap.max_recv_sge, &wr);
	sr_sched_kick(qp->dev, qp);     /* in the error state: flushed */
out:
	if (ret != 0 && bad != NULL)
		*bad = wr;
	return ret;
}

/* Engine, or the slow path; lanes take turns at the ring's producer side. */
void sr_qp_trace_emit(struct sr_qp *qp, enum sr_trace_kind kind, uint8_t p,
		      uint16_t f, uint32_t a, uint32_t b, uint32_t c,
		      uint32_t d)
{
	struct sr_dev *dev = qp->dev;
	struct sr_trace_rec e = {
		.t_ns = sr_dev_now(dev), .qpn = qp->qpn,
		.kind = (uint8_t)kind, .p = p, .f = f,
		.a = a, .b = b, .c = c, .d = d,
	};

	if (dev->trace == NULL)
		return;
	if (dev->nlanes > 1)
		sr_lock_acquire(&dev->trace_lock);
	sr_trace_put(dev->trace, &e);
	if (dev->nlanes > 1)
		sr_lock_release(&dev->trace_lock);
}

/* Engine. */
void sr_qp_enter_err(struct sr_qp *qp, int event)
{
	enum sr_qp_state cur = sr_qp_state_get(qp);

	if (cur == SR_QPS_ERR)
		return;
	if (sr_qp_reliable(qp))
		sr_resp_flush_owed_ack(qp);
	sr_qp_set_err(qp);
	sr_sched_kick(qp->dev, qp);
	sr_qp_trace(qp, SR_TRACE_STATE, SR_QPS_ERR, (uint16_t)cur,
		    event == SR_EVENT_QP_REQ_ERR ? SR_TRACE_WHY_ERR_REQ
		    : event == SR_EVENT_QP_ACCESS_ERR ? SR_TRACE_WHY_ERR_ACCESS
		    : event >= 0 ? SR_TRACE_WHY_ERR_FATAL : SR_TRACE_WHY_ERR_WQE,
		    0, 0, 0);
	sr_dev_event(qp->dev, event >= 0 ? (enum sr_event_type)event
					 : SR_EVENT_QP_FATAL, qp);
}

static const enum sr_wc_opcode sr_flush_op[SR_WR_OPCODE_MAX] = {
#define SR_X(n, v, wc) [SR_WR_##n] = SR_WC_OP_##wc,
	SR_WR_OPCODE_LIST(SR_X)
#undef SR_X
};

void sr_qp_flush(struct sr_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);
	struct sr_wc wc;
	struct sr_recv_wqe *rw = qp->resp.wqe;

	/* send queue: finished WQEs with their status, the rest flushed */
	while (qp->comp.idx != prod) {
		struct sr_send_wqe *w = sr_sq_wqe(qp, qp->comp.idx);

		memset(&wc, 0, sizeof(wc));
		wc.wr_id = w->wr.wr_id;
		wc.opcode = sr_flush_op[w->wr.opcode];
		wc.qp_num = qp->qpn;
		if (w->state == SR_WQE_DONE && w->status == SR_WC_SUCCESS) {
			if (qp->sq_sig_all ||
			    (w->wr.send_flags & SR_SEND_SIGNALED))
				sr_qp_cq_push(qp, qp->scq, &wc, false);
		} else {
			wc.status = w->state == SR_WQE_DONE
				    ? (enum sr_wc_status)w->status
				    : SR_WC_WR_FLUSH_ERR;
			sr_qp_cq_push(qp, qp->scq, &wc, true);
			if (wc.status == SR_WC_WR_FLUSH_ERR)
				sr_qp_count(qp, SR_CNT_FLUSHED, 1);
		}
		qp->comp.idx++;
		sr_ring_release(&qp->sq, qp->comp.idx);
	}
	qp->req.idx = qp->comp.idx;
	qp->req.off = 0;
	qp->req.rd_atomic = 0;
	qp->comp.deadline = 0;
	qp->comp.probe_at = 0;
	qp->comp.rnr_until = 0;
	qp->resp.busy = NULL;
	qp->resp.ack_pending = false;
	qp->resp.msg = SR_MSG_NONE;

	/* receive side: the WQE in use, then the QP's own RQ */
	memset(&wc, 0, sizeof(wc));
	wc.status = SR_WC_WR_FLUSH_ERR;
	wc.opcode = SR_WC_OP_RECV;
	wc.qp_num = qp->qpn;
	if (qp->resp.have_wqe) {
		wc.wr_id = rw->wr_id;
		qp->resp.have_wqe = false;
		/* an XRC target's SRQ may be gone, and its CQ with it */
		if (qp->rcq != NULL) {
			sr_qp_cq_push(qp, qp->rcq, &wc, true);
			sr_qp_count(qp, SR_CNT_FLUSHED, 1);
		}
	}
	if (qp->type == SR_QPT_XRC_SEND || qp->type == SR_QPT_XRC_RECV) {
		/* no receive queue of its own; a target's SRQs are shared */
	} else if (qp->srq == NULL) {
		while (sr_qp_take_recv(qp, rw)) {
			wc.wr_id = rw->wr_id;
			sr_qp_cq_push(qp, qp->rcq, &wc, true);
			sr_qp_count(qp, SR_CNT_FLUSHED, 1);
		}
	} else if (qp->flush_pending) {
		sr_dev_event(qp->dev, SR_EVENT_QP_LAST_WQE_REACHED, qp);
	}
	qp->flush_pending = false;
}

uint32_t sr_qp_sq_outstanding(const struct sr_qp *qp)
{
	return sr_ring_prod_acquire(&qp->sq) -
	       atomic_load_explicit(&qp->sq.cons, memory_order_acquire);
}

uint32_t sr_qp_num(const struct sr_qp *qp)
{
	return qp->qpn;
}

bool sr_qp_traced(const struct sr_qp *qp)
{
	return __atomic_load_n(&qp->trace, __ATOMIC_RELAXED);
}

enum sr_qp_state sr_qp_state(const struct sr_qp *qp)
{
	return sr_qp_state_get(qp);
}

void *sr_qp_context(const struct sr_qp *qp)
{
	return qp->ctx;
}

void sr_qp_counters(const struct sr_qp *qp, uint64_t out[SR_CNT_MAX])
{
	unsigned int i;

	for (i = 0; i < SR_CNT_MAX; i++)
		out[i] = atomic_load_explicit(&qp->cnt[i], memory_order_relaxed);
}
