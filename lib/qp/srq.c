/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.c — shared receive queues (basic and XRC): one poster, the engine
 * takes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "mr/mr.h"
#include "qp/qp_priv.h"

static struct sr_srq *sr_srq_new(struct sr_dev *dev, struct sr_pd *pd,
				  struct sr_xrcd *xrcd, struct sr_cq *cq,
				  const struct sr_srq_attr *attr)
{
	struct sr_srq *srq;
	uint32_t i, n = 0;

	if (dev == NULL || pd == NULL || attr == NULL || attr->max_wr == 0 ||
	    attr->max_wr > SR_QP_MAX_WR ||
	    attr->max_wr > sr_mr_dev_limits(sr_dev_mr(dev))->max_srq_depth ||
	    attr->max_sge == 0 ||
	    attr->max_sge > SR_QP_MAX_SGE || attr->srq_limit > attr->max_wr)
		return NULL;
	/* an XRC SRQ: its domain and CQ of the same device */
	if (xrcd != NULL &&
	    (xrcd->dev != dev || cq == NULL || cq->dev != dev))
		return NULL;
	srq = sr_zalloc(sizeof(*srq));
	if (srq == NULL)
		return NULL;
	if (sr_ring_init(&srq->ring, attr->max_wr,
			 (uint32_t)(sizeof(struct sr_recv_wqe) +
				    attr->max_sge * sizeof(struct sr_sge))) != 0) {
		free(srq);
		return NULL;
	}
	srq->dev = dev;
	srq->pd = pd;
	srq->xrcd = xrcd;
	srq->cq = cq;
	srq->max_sge = attr->max_sge;
	atomic_store(&srq->limit, attr->srq_limit);
	sr_dev_lock_all(dev);
	for (i = 0; i < SR_MAX_SRQ; i++) {
		n = (dev->next_srqn + i) % SR_MAX_SRQ;
		if (dev->srqs[n] == NULL)
			break;
	}
	if (i == SR_MAX_SRQ) {
		sr_dev_unlock_all(dev);
		sr_ring_fini(&srq->ring);
		free(srq);
		return NULL;
	}
	dev->next_srqn = (n + 1) % SR_MAX_SRQ;
	dev->srqs[n] = srq;
	srq->srqn = n + SR_SRQN_BASE;
	dev->nsrq++;
	if (xrcd != NULL) {
		xrcd->users++;
		cq->users++;
	}
	sr_dev_unlock_all(dev);
	sr_pd_get(pd);
	return srq;
}

struct sr_srq *sr_srq_create(struct sr_dev *dev, struct sr_pd *pd,
			     const struct sr_srq_attr *attr)
{
	return sr_srq_new(dev, pd, NULL, NULL, attr);
}

struct sr_srq *sr_srq_create_xrc(struct sr_dev *dev, struct sr_pd *pd,
				 struct sr_xrcd *xrcd, struct sr_cq *cq,
				 const struct sr_srq_attr *attr)
{
	if (xrcd == NULL)
		return NULL;
	return sr_srq_new(dev, pd, xrcd, cq, attr);
}

/*
 * An XRC SRQ has no QP attached; the targets of its domain that last took
 * from it, or answer READs through its PD, forget it (under every lane lock,
 * one of which the engine holds): a message in progress there then fails at its
 * next packet, a READ response still to be sent with a remote access NAK.
 */
static void sr_srq_forget_targets(struct sr_dev *dev, struct sr_srq *srq)
{
	uint32_t i;

	for (i = 0; i < SR_MAX_QP; i++) {
		struct sr_qp *qp = dev->qps[i];
		uint32_t r;

		if (qp == NULL || qp->type != SR_QPT_XRC_RECV)
			continue;
		if (qp->srq == srq) {
			qp->srq = NULL;
			qp->rcq = NULL;
			qp->pd = NULL;
		}
		/* READs it answered: a duplicate now reads through no PD */
		for (r = 0; r < qp->resp.nres; r++)
			if (qp->resp.res[r].srq == srq)
				qp->resp.res[r].srq = NULL;
	}
}

int sr_srq_destroy(struct sr_srq *srq)
{
	struct sr_dev *dev;

	if (srq == NULL)
		return 0;
	dev = srq->dev;
	sr_dev_lock_all(dev);
	if (srq->users != 0) {
		sr_dev_unlock_all(dev);
		return -EBUSY;
	}
	dev->srqs[srq->srqn - SR_SRQN_BASE] = NULL;
	dev->nsrq--;
	if (srq->xrcd != NULL) {
		sr_srq_forget_targets(dev, srq);
		srq->xrcd->users--;
		srq->cq->users--;
	}
	sr_dev_unlock_all(dev);
	sr_pd_put(srq->pd);
	sr_ring_fini(&srq->ring);
	free(srq);
	return 0;
}

uint32_t sr_srq_num(const struct sr_srq *srq)
{
	return srq->srqn;
}

int sr_srq_modify(struct sr_srq *srq, const struct sr_srq_attr *attr,
		  unsigned int mask)
{
	if (mask & SR_SRQ_MAX_WR)
		return -EINVAL;
	if (mask & SR_SRQ_LIMIT) {
		if (attr->srq_limit > srq->ring.cap)
			return -EINVAL;
		atomic_store(&srq->limit, attr->srq_limit);
	}
	return 0;
}

int sr_srq_query(struct sr_srq *srq, struct sr_srq_attr *attr)
{
	attr->max_wr = srq->ring.cap;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = atomic_load(&srq->limit);
	return 0;
}

int sr_srq_post_recv(struct sr_srq *srq, const struct sr_recv_wr *wr,
		     const struct sr_recv_wr **bad)
{
	int ret = sr_recv_ring_post(&srq->ring, srq->max_sge, &wr);

	if (ret != 0 && bad != NULL)
		*bad = wr;
	return ret;
}

/*
 * Engine: take a WQE from an SRQ (limit event) or the QP's own RQ.  An
 * SRQ's ring has one consumer: with several lanes, QPs of two lanes may
 * share it, so they take its lock (one lane: no lock).
 */
bool sr_qp_take_recv(struct sr_qp *qp, struct sr_recv_wqe *out)
{
	struct sr_ring *r = qp->srq ? &qp->srq->ring : &qp->rq;
	bool shared = qp->srq != NULL && qp->dev->nlanes > 1;
	uint32_t cons, avail;
	struct sr_recv_wqe *w;

	if (shared)
		sr_lock_acquire(&qp->srq->take_lock);
	cons = sr_ring_cons_peek(r);
	avail = sr_ring_avail(r, cons);
	if (avail == 0) {
		if (shared)
			sr_lock_release(&qp->srq->take_lock);
		return false;
	}
	w = sr_ring_slot(r, cons);
	memcpy(out, w, sizeof(*w) + w->num_sge * sizeof(struct sr_sge));
	sr_ring_release(r, cons + 1);
	if (shared)
		sr_lock_release(&qp->srq->take_lock);
	if (qp->srq != NULL) {
		uint32_t limit = atomic_load_explicit(&qp->srq->limit,
						      memory_order_relaxed);

		/* disarmed once, by whichever lane sees it first */
		if (limit != 0 && avail - 1 < limit &&
		    atomic_compare_exchange_strong_explicit(
				&qp->srq->limit, &limit, 0,
				memory_order_relaxed, memory_order_relaxed))
			sr_dev_event(qp->dev, SR_EVENT_SRQ_LIMIT_REACHED,
				     qp->srq);
	}
	return true;
}

void sr_srq_set_context(struct sr_srq *srq, void *ctx)
{
	srq->ctx = ctx;
}

void *sr_srq_context(const struct sr_srq *srq)
{
	return srq->ctx;
}
