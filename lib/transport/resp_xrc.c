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
 * request names another or sr_srq_destroy() takes it away: READ responses
 * still being sent read through its PD.  A request that names an SRQ with
 * another is taken only when no READ response is pending (resp.c lets a
 * READ queue behind a busy one only when it names the same SRQ), so no
 * response reads through another request's PD.
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
