/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp.c — queue pairs: create (both APIs), modify, query, destroy, and the
 * UD multicast attach and detach, and ECE, which sroce does not have.
 *
 * lib/qp's enums and attribute mask carry ibverbs' values, so the
 * translation is by assignment; what differs: access flags (flags.c), the
 * address vector (ah.c resolves the peer's MAC), and UD's path MTU —
 * ibverbs has none for UD, so the port's active MTU is given to lib/ at
 * INIT->RTR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qp/mcast.h"
#include "qp/qp.h"
#include "qp/srq.h"
#include "cc/hooks.h"
#include "cc/pacer.h"
#include "shim.h"

/* ibv_qp_attr_mask bits lib/ understands (the same values). */
#define SR_IBV_QP_MASK                                                      \
	(IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY |     \
	 IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT |            \
	 IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |       \
	 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN |              \
	 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |   \
	 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_CAP | IBV_QP_DEST_QPN)

/* The new post-send API ops sroce carries (wr_api.c). */
#define SR_IBV_QP_EX_FLUSH (1u << 11)   /* IBV_QP_EX_WITH_FLUSH, rdma-core 45 */
#define SR_IBV_SEND_OPS                                                      \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |    \
	 IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |                \
	 IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |      \
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV |    \
	 IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV |             \
	 IBV_QP_EX_WITH_ATOMIC_WRITE | SR_IBV_QP_EX_FLUSH)

/*
 * Destroy: a UD or UC QP's posted sends go out first, for up to this long.
 * An RNIC has sent them microseconds after the post; a program that posts
 * datagrams and destroys its QP at once (mckey's sender) expects them sent.
 */
#define SR_IBV_DESTROY_DRAIN_NS (20ull * 1000 * 1000)

/* create flags: the mask bit is taken with no flag in it (none is ours) */
#define SR_IBV_QP_INIT_MASK                                         \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |    \
	 IBV_QP_INIT_ATTR_CREATE_FLAGS | IBV_QP_INIT_ATTR_XRCD)

static struct sr_pd *sr_ibv_pd(struct ibv_pd *pd)
{
	return sr_container_of(pd, struct sr_ibv_pd, ibpd)->pd;
}

struct ibv_qp *sr_ibv_create_qp_ex(struct ibv_context *c,
				   struct ibv_qp_init_attr_ex *a)
{
	struct sr_qp_init_attr init = { 0 };
	struct sr_ibv_ctx *ctx = sr_ctx(c);
	struct sr_ibv_qp *w;
	struct ibv_qp *q;
	int rc;

	bool tgt = a->qp_type == IBV_QPT_XRC_RECV;

	if (a->comp_mask & ~(uint32_t)SR_IBV_QP_INIT_MASK) {
		errno = EOPNOTSUPP;          /* TSO, RSS, ... */
		return NULL;
	}
	if ((a->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && a->create_flags) {
		errno = EOPNOTSUPP;          /* scatter FCS, source QPN, ... */
		return NULL;
	}
	if (a->qp_type != IBV_QPT_RC && a->qp_type != IBV_QPT_UC &&
	    a->qp_type != IBV_QPT_UD && a->qp_type != IBV_QPT_XRC_SEND &&
	    !tgt) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/*
	 * As the kernel takes them: an XRC target has its domain and nothing
	 * else (PD, CQs, SRQ and caps ignored); an XRC initiator a PD and a
	 * send CQ (receive CQ, SRQ and receive caps ignored).
	 */
	if (tgt ? !(a->comp_mask & IBV_QP_INIT_ATTR_XRCD) || a->xrcd == NULL
		: !(a->comp_mask & IBV_QP_INIT_ATTR_PD) || a->pd == NULL ||
		  a->send_cq == NULL ||
		  (a->recv_cq == NULL && a->qp_type != IBV_QPT_XRC_SEND)) {
		errno = EINVAL;
		return NULL;
	}
	if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && tgt) {
		errno = EINVAL;              /* it sends nothing */
		return NULL;
	}
	if ((a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (a->send_ops_flags & ~(uint64_t)SR_IBV_SEND_OPS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	w = sr_ibv_obj_new(ctx->rt, sizeof(*w));
	if (w == NULL)
		return NULL;
	w->rt = ctx->rt;
	init.qp_context = w;
	if (tgt) {
		init.xrcd = sr_xrcd_of(a->xrcd)->xrcd;
	} else {
		init.send_cq = sr_cq_of(a->send_cq)->cq;
		init.pd = sr_ibv_pd(a->pd);
		init.cap = (struct sr_qp_cap){
			.max_send_wr = a->cap.max_send_wr,
			.max_send_sge = a->cap.max_send_sge,
			.max_inline_data = a->cap.max_inline_data,
		};
	}
	if (a->qp_type != IBV_QPT_XRC_SEND && !tgt) {
		init.recv_cq = sr_cq_of(a->recv_cq)->cq;
		init.srq = a->srq ? sr_container_of(a->srq, struct sr_ibv_srq,
						    ibsrq)->srq : NULL;
		init.cap.max_recv_wr = a->cap.max_recv_wr;
		init.cap.max_recv_sge = a->cap.max_recv_sge;
	}
	init.qp_type = (enum sr_qp_type)a->qp_type;
	init.sq_sig_all = a->sq_sig_all != 0;
	w->qp = sr_qp_create(ctx->rt->dev, &init);
	if (w->qp == NULL) {
		/* "not enough resources" when the device has all its QPs */
		errno = sr_dev_qp_count(ctx->rt->dev) >=
				sr_dev_max_qp(ctx->rt->dev) ? ENOMEM : EINVAL;
		goto out_free;
	}
	if (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		rc = sr_ibv_qp_ex_init(w);
		if (rc) {
			errno = sr_ibv_err(rc);
			goto out_destroy;
		}
		w->ex = true;
	}
	/* before the map: an event's ack may take them from now on */
	pthread_mutex_init(&w->qpx.base.qp_base.mutex, NULL);
	pthread_cond_init(&w->qpx.base.qp_base.cond, NULL);
	rc = sr_ibv_map_add(ctx->rt, w->qp, &w->qpx.base.qp_base, ctx);
	if (rc) {
		errno = sr_ibv_err(rc);
		goto out_fini_ex;
	}
	/* an XRC target: ibv_open_qp may give it more handles */
	if (tgt) {
		rc = sr_ibv_tgt_add(w, a->xrcd);
		if (rc) {
			errno = sr_ibv_err(rc);
			goto out_unmap;
		}
	}
	/* sroce-stat -q shows it (no slot left: the device's sums only) */
	(void)sr_xstats_qp_attach(&ctx->rt->xstats, w->qp);
	a->cap.max_send_wr = init.cap.max_send_wr;
	a->cap.max_recv_wr = init.cap.max_recv_wr;
	a->cap.max_send_sge = init.cap.max_send_sge;
	a->cap.max_recv_sge = init.cap.max_recv_sge;
	a->cap.max_inline_data = init.cap.max_inline_data;
	q = &w->qpx.base.qp_base;
	q->context = c;
	q->qp_context = a->qp_context;
	q->pd = tgt ? NULL : a->pd;
	q->send_cq = tgt ? NULL : a->send_cq;
	q->recv_cq = init.recv_cq ? a->recv_cq : NULL;
	q->srq = init.srq ? a->srq : NULL;
	q->qp_num = sr_qp_num(w->qp);
	q->handle = q->qp_num;
	q->state = IBV_QPS_RESET;
	q->qp_type = a->qp_type;
	return q;
out_unmap:
	sr_ibv_map_del(ctx->rt, w->qp, &w->qpx.base.qp_base,
		       IBV_EVENT_QP_FATAL);
out_fini_ex:
	sr_ibv_qp_ex_fini(w);
out_destroy:
	sr_qp_destroy(w->qp);
out_free:
	free(w);
	return NULL;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ax = { 0 };
	struct ibv_qp *qp;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ax.qp_context = attr->qp_context;
	ax.send_cq = attr->send_cq;
	ax.recv_cq = attr->recv_cq;
	ax.srq = attr->srq;
	ax.cap = attr->cap;
	ax.qp_type = attr->qp_type;
	ax.sq_sig_all = attr->sq_sig_all;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd;
	qp = sr_ibv_create_qp_ex(pd->context, &ax);
	if (qp)
		attr->cap = ax.cap;
	return qp;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	struct sr_ibv_qp *w;

	if (qp == NULL)
		return NULL;
	w = sr_qp_of(qp);
	return w->ex ? &w->qpx.base : NULL;
}

static int sr_ibv_attr_to_sr(struct sr_ibv_qp *w, const struct ibv_qp_attr *a,
			     int mask, struct sr_qp_attr *o)
{
	int rc;

	o->qp_state = (enum sr_qp_state)a->qp_state;
	o->cur_qp_state = (enum sr_qp_state)a->cur_qp_state;
	o->path_mtu = (enum sr_mtu)a->path_mtu;
	o->qkey = a->qkey;
	o->rq_psn = a->rq_psn;
	o->sq_psn = a->sq_psn;
	o->dest_qp_num = a->dest_qp_num;
	if (mask & IBV_QP_ACCESS_FLAGS) {
		uint32_t acc;

		rc = sr_ibv_access_to_sr(a->qp_access_flags, &acc);
		if (rc)
			return rc;
		o->qp_access_flags = acc & SR_ACCESS_REMOTE;
	}
	o->cap = (struct sr_qp_cap){
		.max_send_wr = a->cap.max_send_wr,
		.max_recv_wr = a->cap.max_recv_wr,
		.max_send_sge = a->cap.max_send_sge,
		.max_recv_sge = a->cap.max_recv_sge,
		.max_inline_data = a->cap.max_inline_data,
	};
	if (mask & IBV_QP_AV) {
		rc = sr_ibv_av_from_attr(w->rt, &a->ah_attr, &o->av);
		if (rc)
			return rc;
	}
	o->pkey_index = a->pkey_index;
	o->en_sqd_async_notify = a->en_sqd_async_notify != 0;
	o->max_rd_atomic = a->max_rd_atomic;
	o->max_dest_rd_atomic = a->max_dest_rd_atomic;
	o->min_rnr_timer = a->min_rnr_timer;
	o->port_num = a->port_num;
	o->timeout = a->timeout;
	o->retry_cnt = a->retry_cnt;
	o->rnr_retry = a->rnr_retry;
	return 0;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct sr_qp_attr o = { 0 };
	struct ibv_port_attr port;
	struct sr_ibv_qp *w;
	unsigned int m = (unsigned int)mask;
	int rc;

	if (qp == NULL || attr == NULL)
		return EINVAL;
	if (m & ~(unsigned int)(SR_IBV_QP_MASK | IBV_QP_RATE_LIMIT))
		return EOPNOTSUPP;           /* alternate paths */
	if ((m & IBV_QP_RATE_LIMIT) && (qp->qp_type == IBV_QPT_UD ||
	    (uint64_t)attr->rate_limit * 1000 > SR_PACER_MAX_RATE))
		return EINVAL;
	if ((m & IBV_QP_PORT) && attr->port_num != SR_IBV_PORT)
		return EINVAL;
	/*
	 * What the kernel's uverbs takes out of the mask before a driver sees
	 * it: an XRC initiator has no responder and a target no requester, so
	 * their attributes are ignored, not refused (perftest -c XRC sets
	 * them as for RC).
	 */
	if (qp->qp_type == IBV_QPT_XRC_SEND)
		m &= ~(unsigned int)(IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER);
	else if (qp->qp_type == IBV_QPT_XRC_RECV)
		m &= ~(unsigned int)(IBV_QP_MAX_QP_RD_ATOMIC |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY);
	w = sr_qp_of(qp);
	rc = sr_ibv_attr_to_sr(w, attr, (int)m, &o);
	if (rc)
		return sr_ibv_err(rc);
	if (qp->qp_type == IBV_QPT_UD && (m & IBV_QP_STATE) &&
	    attr->qp_state == IBV_QPS_RTR && !(m & IBV_QP_PATH_MTU) &&
	    sr_ibv_query_port_ex(qp->context, SR_IBV_PORT, &port,
				 sizeof(port)) == 0) {
		o.path_mtu = (enum sr_mtu)port.active_mtu;
		m |= IBV_QP_PATH_MTU;
	}
	rc = sr_qp_modify(w->qp, &o, m & ~(unsigned int)IBV_QP_RATE_LIMIT);
	if (rc)
		return sr_ibv_err(rc);
	if (m & IBV_QP_RATE_LIMIT)   /* kbit/s, 0 = none (docs/congestion.md) */
		sr_qp_set_rate_limit(w->qp,
				     sr_rate_limit_kbps_to_bps(attr->rate_limit));
	if (m & IBV_QP_STATE)
		qp->state = attr->qp_state;
	return 0;
}

/* ibv_modify_qp_rate_limit (verbs_context op): rate_limit in kbit/s, 0
 * lifts it; the pacer's burst is its own (max_burst_sz and typical_pkt_sz
 * are hints, docs/congestion.md). */
int sr_ibv_modify_qp_rate_limit(struct ibv_qp *qp,
				struct ibv_qp_rate_limit_attr *attr)
{
	if (qp == NULL || attr == NULL || attr->comp_mask != 0 ||
	    qp->qp_type == IBV_QPT_UD ||
	    (uint64_t)attr->rate_limit * 1000 > SR_PACER_MAX_RATE)
		return EINVAL;
	return sr_ibv_err(sr_qp_set_rate_limit(sr_qp_of(qp)->qp,
			  sr_rate_limit_kbps_to_bps(attr->rate_limit)));
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		 struct ibv_qp_init_attr *init_attr)
{
	struct sr_qp_init_attr si;
	struct sr_qp_attr sa;
	struct sr_ibv_qp *w;
	int rc;

	(void)mask;                  /* everything is cheap to report */
	if (qp == NULL || attr == NULL || init_attr == NULL)
		return EINVAL;
	w = sr_qp_of(qp);
	rc = sr_qp_query(w->qp, &sa, &si);
	if (rc)
		return sr_ibv_err(rc);
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ibv_qp_state)sa.qp_state;
	attr->cur_qp_state = (enum ibv_qp_state)sa.cur_qp_state;
	attr->path_mtu = (enum ibv_mtu)sa.path_mtu;
	attr->qkey = sa.qkey;
	attr->rq_psn = sa.rq_psn;
	attr->sq_psn = sa.sq_psn;
	attr->dest_qp_num = sa.dest_qp_num;
	attr->qp_access_flags = (int)sr_ibv_access_from_sr(sa.qp_access_flags);
	attr->cap.max_send_wr = sa.cap.max_send_wr;
	attr->cap.max_recv_wr = sa.cap.max_recv_wr;
	attr->cap.max_send_sge = sa.cap.max_send_sge;
	attr->cap.max_recv_sge = sa.cap.max_recv_sge;
	attr->cap.max_inline_data = sa.cap.max_inline_data;
	attr->ah_attr.is_global = 1;
	attr->ah_attr.port_num = SR_IBV_PORT;
	memcpy(attr->ah_attr.grh.dgid.raw, sa.av.dgid, 16);
	attr->ah_attr.grh.sgid_index = sa.av.sgid_index;
	attr->ah_attr.grh.hop_limit = sa.av.hop_limit;
	attr->ah_attr.grh.traffic_class = sa.av.tclass;
	attr->ah_attr.grh.flow_label = sa.av.flow_label;
	attr->ah_attr.static_rate = sa.av.static_rate;
	attr->pkey_index = sa.pkey_index;
	attr->en_sqd_async_notify = sa.en_sqd_async_notify;
	attr->sq_draining = sa.sq_draining;
	attr->max_rd_atomic = sa.max_rd_atomic;
	attr->max_dest_rd_atomic = sa.max_dest_rd_atomic;
	attr->min_rnr_timer = sa.min_rnr_timer;
	attr->port_num = SR_IBV_PORT;
	attr->timeout = sa.timeout;
	attr->retry_cnt = sa.retry_cnt;
	attr->rnr_retry = sa.rnr_retry;
	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_context = qp->qp_context;
	init_attr->send_cq = qp->send_cq;
	init_attr->recv_cq = qp->recv_cq;
	init_attr->srq = qp->srq;
	init_attr->cap = attr->cap;
	init_attr->qp_type = qp->qp_type;
	init_attr->sq_sig_all = si.sq_sig_all;
	qp->state = attr->qp_state;
	return 0;
}

static void sr_ibv_qp_drain_sends(struct sr_ibv_qp *w)
{
	const struct timespec tick = { .tv_nsec = 50000 };
	enum sr_qp_state st = sr_qp_state(w->qp);
	uint64_t end;

	if (w->rt->pmd == NULL || sr_qp_sq_outstanding(w->qp) == 0 ||
	    (st != SR_QPS_RTS && st != SR_QPS_SQD))
		return;
	end = sr_ibv_now_ns() + SR_IBV_DESTROY_DRAIN_NS;
	while (sr_qp_sq_outstanding(w->qp) > 0 && sr_ibv_now_ns() < end) {
		sr_ibv_progress(w->rt);          /* inline mode's rounds */
		if (w->rt->cfg.mode != SR_PMD_MODE_INLINE)
			nanosleep(&tick, NULL);  /* the engine lcore's */
	}
	/* what the rounds queued is on the wire before the QP goes */
	(void)sr_pmd_engine_sync(w->rt->pmd, 10);
}

/* A QP destroyed while attached leaves its groups, as with uverbs. */
static void sr_ibv_qp_leave_groups(struct sr_ibv_qp *w)
{
	uint8_t (*left)[16];
	unsigned int n;

	left = malloc(SR_MAX_MCAST_GRP * sizeof(*left));
	if (left == NULL) {
		(void)sr_mcast_detach_all(w->qp, NULL);
		return;
	}
	n = sr_mcast_detach_all(w->qp, left);
	for (unsigned int i = 0; i < n && w->rt->pmd != NULL; i++)
		sr_pmd_mcast(w->rt->pmd, left[i], false);
	free(left);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct sr_ibv_qp *w;
	int rc;

	if (qp == NULL)
		return EINVAL;
	w = sr_qp_of(qp);
	/* an RDMA-CM id that holds it forgets it first */
	sr_ibv_qp_destroy_notify(qp);
	/* one handle of several on an XRC target: only the handle goes */
	if (w->tgt != NULL && sr_ibv_tgt_put(w)) {
		sr_ibv_map_del(w->rt, w->qp, qp, IBV_EVENT_QP_FATAL);
		pthread_cond_destroy(&qp->cond);
		pthread_mutex_destroy(&qp->mutex);
		free(w);
		return 0;
	}
	if (qp->qp_type == IBV_QPT_UD || qp->qp_type == IBV_QPT_UC)
		sr_ibv_qp_drain_sends(w);
	if (qp->qp_type == IBV_QPT_UD)
		sr_ibv_qp_leave_groups(w);
	sr_xstats_qp_detach(&w->rt->xstats, w->qp);
	rc = sr_qp_destroy(w->qp);
	if (w->tgt != NULL)
		sr_ibv_tgt_done(w, rc == 0);
	if (rc)
		return sr_ibv_err(rc);
	sr_ibv_map_del(w->rt, w->qp, qp, IBV_EVENT_QP_FATAL);
	sr_ibv_qp_ex_fini(w);
	pthread_cond_destroy(&qp->cond);
	pthread_mutex_destroy(&qp->mutex);
	free(w);
	return 0;
}

int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
			       uint32_t flags)
{
	(void)qp;
	(void)op;
	(void)flags;
	return 0;       /* no ordering promise beyond the completion */
}

/* ---- UD multicast (lib/qp/mcast.h) ---- */

/*
 * As the kernel's ib_attach_mcast on RoCE: a UD QP, a multicast GID (the
 * LID is ignored: RoCE has none).  The port reports the device's
 * membership when its first QP joins and when its last one leaves.
 */
int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	struct sr_ibv_qp *w;
	int rc;

	(void)lid;
	if (qp == NULL || gid == NULL)
		return EINVAL;
	w = sr_qp_of(qp);
	rc = sr_mcast_attach(w->qp, gid->raw);
	if (rc == 1 && w->rt->pmd != NULL) {
		/* the port, or sroced, must take it too */
		rc = sr_pmd_mcast(w->rt->pmd, gid->raw, true);
		if (rc < 0)
			(void)sr_mcast_detach(w->qp, gid->raw);
	}
	return rc < 0 ? sr_ibv_err(rc) : 0;
}

int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
		     uint16_t lid)
{
	struct sr_ibv_qp *w;
	int rc;

	(void)lid;
	if (qp == NULL || gid == NULL)
		return EINVAL;
	w = sr_qp_of(qp);
	rc = sr_mcast_detach(w->qp, gid->raw);
	if (rc == 1 && w->rt->pmd != NULL)
		sr_pmd_mcast(w->rt->pmd, gid->raw, false);
	return rc < 0 ? sr_ibv_err(rc) : 0;
}

/* ---- not in sroce: ECE ---- */

int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}

int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	(void)ece;
	return EOPNOTSUPP;
}
