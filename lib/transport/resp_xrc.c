/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * resp_xrc.c — an XRC target's SRQ, from each request's XRCETH.
 *
 * IBA ch. 9 / 14 (XRC): every request to a target carries an XRCETH with
 * the number of the SRQ it is for.  The SRQ must belong to the target's
 * XRC domain; it then gives the receive WQE (a SEND, a WRITE with
 * immediate), the CQ its completion goes to, and the PD every memory
 * access of the request is checked against.  A message continues in the
 * SRQ it started in.  Anything else is an invalid request (resp.c NAKs it
 * and counts SR_CNT_XRC_SRQ_NAK).  The SRQ stays the QP's until the next
 * request names another or sr_srq_destroy() takes it away.  A READ keeps
 * the SRQ it named (struct sr_resp_res): its responses, and those to a
 * duplicate of it, read through that SRQ's PD.  A READ queues behind a
 * busy one only when it names the same SRQ (its range is checked through
 * the current PD before its XRCETH is looked at).
 */
#include "core/dev_priv.h"
#include "transport/transport.h"

bool sr_resp_xrc_srq(struct sr_qp *qp, const struct sr_pkt *pkt)
{
	const struct sr_xrceth *x = sr_pkt_ext(pkt, SR_EXT_XRCETH);
	struct sr_srq *srq;

	if (x == NULL)
		return false;
	srq = sr_dev_srq_lookup(qp->dev, sr_xrceth_srqn(x));
	if (srq == NULL || srq->xrcd == NULL || srq->xrcd != qp->xrcd)
		return false;
	/* a message in progress (or its WQE) stays with its SRQ */
	if ((qp->resp.msg != SR_MSG_NONE || qp->resp.have_wqe) &&
	    srq != qp->srq)
		return false;
	qp->srq = srq;
	qp->rcq = srq->cq;
	qp->pd = srq->pd;
	qp->resp.xrc_srqn = srq->srqn;
	return true;
}

bool sr_resp_xrc_same_srq(const struct sr_qp *qp, const struct sr_pkt *pkt)
{
	const struct sr_xrceth *x = sr_pkt_ext(pkt, SR_EXT_XRCETH);

	return x != NULL && qp->srq != NULL &&
	       sr_xrceth_srqn(x) == qp->srq->srqn;
}

int sr_resp_read_send(struct sr_qp *qp, const struct sr_resp_res *r,
		      const struct sr_build *b, const struct sr_tx_src *src,
		      uint32_t len)
{
	struct sr_pd *pd = qp->pd;
	int ret;

	if (qp->type != SR_QPT_XRC_RECV)
		return sr_tx_send(qp, b, src, len);
	/* the engine holds the QP's lane lock: nobody sees the PD swapped */
	qp->pd = r->srq != NULL ? r->srq->pd : NULL;
	ret = sr_tx_send(qp, b, src, len);
	qp->pd = pd;
	return ret;
}
