/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * comp.c — the completer: responses become send completions.
 *
 * RC only (UC and UD WQEs are done when sent).  WQEs complete strictly in
 * send-queue order.  An ACK for PSN p acknowledges every SEND/WRITE whose
 * last PSN is at or before p (implicit acknowledgement, IBA 9.7.5.1.2);
 * a READ response or atomic ACK with PSN p does the same for earlier
 * SEND/WRITEs.  An ACK past a READ or atomic that got no response means
 * the response was lost: implicit NAK, retransmit.
 *
 * NAKs: PSN sequence error -> retransmit from the NAK's PSN (retry_cnt);
 * RNR -> wait the RNR timer of the AETH, then retransmit (rnr_retry, 7 is
 * infinite); invalid request / remote access / remote operational ->
 * the WQE completes with REM_INV_REQ_ERR / REM_ACCESS_ERR / REM_OP_ERR and
 * the QP goes to ERR.  Timeout (4.096 us * 2^timeout) -> retransmit from
 * the oldest unacknowledged PSN (retry_cnt).  Retry exhaustion ->
 * RETRY_EXC_ERR or RNR_RETRY_EXC_ERR and ERR.
 *
 * Probes: after a loss the requester resends with a small window (req.c),
 * and behind a full queue that may be one packet; when it is dropped too,
 * no later packet draws a sequence NAK and only the timer can tell.  So a
 * QP in that state whose oldest PSN is not acknowledged within a round trip
 * and four deviations (SRTT + 4 RTTVAR, as TCP's RTO; 4 ms at least) goes
 * back N again (a probe), then after twice that, four times: the wait
 * doubles until progress.  Probes spend no retry_cnt and leave the timer
 * running: it still expires after the full timeout without progress and
 * counts as before, so a dead peer fails exactly as late as without them.
 * Before a round trip is measured (Karn's rule: never from a PSN that was
 * sent again, so a QP that lost its first window has none) the wait is an
 * eighth of the timeout.  No probe: while the window is fully open; when
 * the wait would be half the timeout or more (a deep queue on the path: a
 * probe would only resend what is still in it; or a short timeout); when
 * the oldest WQE is a READ or atomic, whose responses come at the
 * responder's pace (8 QPs of READs against rxe: probes re-asked for
 * responses still on their way and ended in RETRY_EXC).
 *
 * Patience with READs: a resent READ costs the responder its whole
 * response again, and a responder that is slow, not deaf, queues the
 * duplicate behind the requests it is still answering; its other QPs then
 * wait longer, time out and resend too.  Against rxe in a TCG guest (8 QPs
 * of 64 KiB READs) every 67 ms timeout added a READ to each QP's queue, the
 * silences between a QP's turns grew to 6 timeouts and then to RETRY_EXC.
 * So a READ or atomic at the head whose neighbours (the QPs of its engine
 * lane) made progress during its timeout is resent at the 2nd, 4th, 8th...
 * timeout of a series without progress only: one turn of a busy responder
 * that takes a little longer than the timeout costs it nothing.  The other
 * timeouts spend retry_cnt as always (a dead peer fails as late as before)
 * and resend nothing (xport_retry_held).  A QP alone, or whose neighbours are
 * silent too (a lossy path, a dead peer), resends at every timeout.
 *
 * READ responses are placed as they arrive in order; a gap (a response
 * lost) resends the READ for the bytes not yet received.
 */
#include <string.h>

#include "transport/transport.h"

static bool sr_wr_local(enum sr_wr_opcode op)
{
	return op == SR_WR_LOCAL_INV || op == SR_WR_REG_MR ||
	       op == SR_WR_BIND_MW;
}

static const enum sr_wc_opcode sr_wc_op_of[SR_WR_OPCODE_MAX] = {
#define SR_X(n, v, wc) [SR_WR_##n] = SR_WC_OP_##wc,
	SR_WR_OPCODE_LIST(SR_X)
#undef SR_X
};

/* NAK code -> completion status of the NAKed WQE. */
static const enum sr_wc_status sr_nak_status[] = {
	[SR_NAK_INVALID_REQ] = SR_WC_REM_INV_REQ_ERR,
	[SR_NAK_REMOTE_ACCESS] = SR_WC_REM_ACCESS_ERR,
	[SR_NAK_REMOTE_OP] = SR_WC_REM_OP_ERR,
	[SR_NAK_INVALID_RD_REQ] = SR_WC_REM_INV_RD_REQ_ERR,
};

static uint64_t sr_comp_timeout_ns(const struct sr_qp *qp)
{
	return qp->attr.timeout ? (uint64_t)4096u << qp->attr.timeout : 0;
}

static bool sr_comp_outstanding(const struct sr_qp *qp)
{
	return sr_psn_before(qp->comp.psn, qp->req.max_psn);
}

void sr_comp_rtt_start(struct sr_qp *qp, uint32_t psn, uint64_t now)
{
	if (qp->comp.rtt_on)
		return;
	qp->comp.rtt_on = true;
	qp->comp.rtt_psn = psn;
	qp->comp.rtt_sent = now;
}

/* The timed PSN acknowledged (first sent, never resent): a sample. */
static void sr_comp_rtt_sample(struct sr_qp *qp, uint64_t now)
{
	struct sr_comp_state *c = &qp->comp;
	uint64_t s, d;

	if (!c->rtt_on || !sr_psn_before(c->rtt_psn, c->psn))
		return;
	c->rtt_on = false;
	s = now > c->rtt_sent ? now - c->rtt_sent : 1;
	if (c->srtt == 0) {
		c->srtt = s;
		c->rttvar = s / 2;
		return;
	}
	d = s > c->srtt ? s - c->srtt : c->srtt - s;
	c->rttvar = (3 * c->rttvar + d) / 4;
	c->srtt = (7 * c->srtt + s) / 8;
}

/* Arm the probe, if the QP is in loss recovery (see the top). */
static void sr_comp_arm_probe(struct sr_qp *qp, uint64_t now)
{
	uint64_t t = sr_comp_timeout_ns(qp), p, at;

	qp->comp.probe_at = 0;
	if (t == 0 || qp->req.cwnd == 0 || qp->comp.deadline == 0 ||
	    !sr_comp_outstanding(qp))
		return;
	p = qp->comp.srtt ? qp->comp.srtt + 4 * qp->comp.rttvar
			  : t >> SR_PROBE_NO_RTT_SHIFT;
	if (p < SR_PROBE_MIN_NS)
		p = SR_PROBE_MIN_NS;
	if (p >= t / 2)
		return;
	at = now + (p << qp->comp.probe_shift);
	if (at < qp->comp.deadline)     /* else the timer comes first */
		qp->comp.probe_at = at;
}

/* Start the retransmit timer if it is not running (and the probe with it:
 * a QP still in recovery whose last message was all acknowledged). */
void sr_comp_arm_timer(struct sr_qp *qp, uint64_t now)
{
	uint64_t t = sr_comp_timeout_ns(qp);

	if (t != 0 && qp->comp.deadline == 0) {
		qp->comp.deadline = now + t;
		qp->comp.probe_shift = 0;
		sr_comp_arm_probe(qp, now);
	}
}

static void sr_comp_restart_timer(struct sr_qp *qp)
{
	uint64_t t = sr_comp_timeout_ns(qp);

	qp->comp.deadline = (t != 0 && sr_comp_outstanding(qp))
			    ? sr_dev_now(qp->dev) + t : 0;
}

/* Keep the requester at or after the completer. */
static void sr_comp_sync_req(struct sr_qp *qp)
{
	if ((int32_t)(qp->comp.idx - qp->req.idx) > 0) {
		struct sr_send_wqe *w;

		qp->req.idx = qp->comp.idx;
		qp->req.off = 0;
		qp->req.psn = qp->comp.psn;
		if (qp->comp.idx != sr_ring_prod_acquire(&qp->sq)) {
			w = sr_sq_wqe(qp, qp->comp.idx);
			if (w->state != SR_WQE_POSTED &&
			    !sr_wr_local(w->wr.opcode))
				qp->req.psn = w->first_psn;
		}
	}
}

/* Complete DONE WQEs at the head of the send queue, in order. */
static unsigned int sr_comp_reap(struct sr_qp *qp)
{
	uint32_t prod = sr_ring_prod_acquire(&qp->sq);
	unsigned int n = 0;

	while (qp->comp.idx != prod) {
		struct sr_send_wqe *w = sr_sq_wqe(qp, qp->comp.idx);
		bool signal;
		struct sr_wc wc;

		if (w->state != SR_WQE_DONE)
			break;
		signal = w->status != SR_WC_SUCCESS || qp->sq_sig_all ||
			 (w->wr.send_flags & SR_SEND_SIGNALED);
		if (signal) {
			wc = (struct sr_wc){
				.wr_id = w->wr.wr_id,
				.status = (enum sr_wc_status)w->status,
				.opcode = sr_wc_op_of[w->wr.opcode],
				.qp_num = qp->qpn,
			};

			if (w->status == SR_WC_SUCCESS &&
			    w->wr.opcode == SR_WR_RDMA_READ)
				wc.byte_len = w->length;
			if (w->status == SR_WC_SUCCESS &&
			    (w->wr.opcode == SR_WR_ATOMIC_CMP_AND_SWP ||
			     w->wr.opcode == SR_WR_ATOMIC_FETCH_AND_ADD))
				wc.byte_len = 8;
		}
		if (w->counted && qp->req.rd_atomic > 0)
			qp->req.rd_atomic--;
		w->counted = 0;
		qp->comp.idx++;
		/*
		 * Free the slot before the completion is visible: a consumer
		 * that reposts as soon as it polls must find room.
		 */
		sr_ring_release(&qp->sq, qp->comp.idx);
		if (signal)
			sr_qp_cq_push(qp, qp->scq, &wc, wc.status != SR_WC_SUCCESS);
		n++;
	}
	if (n)
		sr_comp_sync_req(qp);
	return n;
}

static void sr_comp_done(struct sr_qp *qp, struct sr_send_wqe *w,
			 enum sr_wc_status st)
{
	w->status = (uint8_t)st;
	w->state = SR_WQE_DONE;
	if (st == SR_WC_SUCCESS && !sr_wr_local(w->wr.opcode) &&
	    sr_psn_before(qp->comp.psn, sr_psn_add(w->last_psn, 1)))
		qp->comp.psn = sr_psn_add(w->last_psn, 1);
	sr_comp_reap(qp);
}

static void sr_comp_error(struct sr_qp *qp, struct sr_send_wqe *w,
			  enum sr_wc_status st)
{
	if (w != NULL)
		sr_comp_done(qp, w, st);
	qp->comp.probe_at = 0;
	sr_qp_enter_err(qp, -1);
}

/* The oldest WQE not completed, if the requester has started it. */
static struct sr_send_wqe *sr_comp_head(struct sr_qp *qp)
{
	struct sr_send_wqe *w;

	sr_comp_reap(qp);
	if (qp->comp.idx == sr_ring_prod_acquire(&qp->sq))
		return NULL;
	w = sr_sq_wqe(qp, qp->comp.idx);
	return w->state == SR_WQE_POSTED || w->state == SR_WQE_DONE ? NULL : w;
}

/* Has every packet of w been sent at least once? */
static bool sr_comp_sent(const struct sr_qp *qp, const struct sr_send_wqe *w)
{
	return sr_psn_before(w->last_psn, qp->req.max_psn);
}

/*
 * Acknowledge implicitly every SEND/WRITE-like WQE that ends before psn
 * (or at psn when inclusive).  Stops at a READ/atomic; returns it if it
 * ends before psn (its response was lost), else NULL.
 */
static struct sr_send_wqe *sr_comp_ack_upto(struct sr_qp *qp, uint32_t psn,
					    bool inclusive)
{
	struct sr_send_wqe *w;

	while ((w = sr_comp_head(qp)) != NULL && sr_comp_sent(qp, w)) {
		int32_t d = sr_psn_diff(psn, w->last_psn);

		if (d < 0 || (d == 0 && !inclusive))
			return NULL;
		if (w->rd_atomic)
			return w;
		sr_comp_done(qp, w, SR_WC_SUCCESS);
	}
	return NULL;
}

/*
 * A READ or atomic at the head whose timer expired while the QP's
 * neighbours made progress (the responders are answering, just not this
 * QP yet): resend it at the 2nd, 4th, 8th... timeout of a series only
 * (see the top); the others spend retry_cnt and wait.
 */
static bool sr_comp_hold_read(const struct sr_qp *qp,
			      const struct sr_send_wqe *w, uint64_t now)
{
	uint8_t n = qp->comp.timeouts;

	return w->rd_atomic && (n < 2 || (n & (n - 1)) != 0) &&
	       qp->lane->progress_at + sr_comp_timeout_ns(qp) > now;
}

/* why: enum sr_trace_why, the cause the trace shows. */
static void sr_comp_retry(struct sr_qp *qp, bool count_retry, uint16_t why)
{
	struct sr_send_wqe *w = sr_comp_head(qp);
	uint32_t next = qp->req.psn;

	if (w == NULL)
		return;
	/* a NAK or gap for what is already being sent again: nothing new */
	if (count_retry && qp->comp.rewound && qp->comp.rewind_psn == qp->comp.psn)
		return;
	if (count_retry) {
		if (qp->comp.retry_left == 0) {
			sr_qp_count(qp, SR_CNT_RETRY_EXC, 1);
			sr_qp_trace(qp, SR_TRACE_RETRY_EXC, 0, why,
				    qp->comp.psn, 0, 0, 0);
			sr_comp_error(qp, w, SR_WC_RETRY_EXC_ERR);
			return;
		}
		qp->comp.retry_left--;
	}
	/* held: nothing resent, so a gap seen next is news (not rewound) */
	if (why == SR_TRACE_WHY_BY_TIMEOUT) {
		uint64_t now = sr_dev_now(qp->dev);

		if (sr_comp_hold_read(qp, w, now)) {
			sr_qp_count(qp, SR_CNT_RETRY_HELD, 1);
			qp->comp.deadline = 0;
			sr_comp_arm_timer(qp, now);
			return;
		}
	}
	qp->comp.rewound = true;
	qp->comp.rewind_psn = qp->comp.psn;
	qp->comp.rtt_on = false;        /* no sample across a resend (Karn) */
	sr_qp_count(qp, SR_CNT_RETRY, 1);
	if (why == SR_TRACE_WHY_BY_TIMEOUT || why == SR_TRACE_WHY_BY_SEQ_NAK ||
	    why == SR_TRACE_WHY_BY_PROBE)
		sr_req_loss(qp, why != SR_TRACE_WHY_BY_SEQ_NAK);
	sr_req_rewind(qp);
	sr_qp_trace(qp, SR_TRACE_GO_BACK, 0, why, qp->req.psn, next,
		    qp->comp.retry_left, 0);
	if (why == SR_TRACE_WHY_BY_PROBE) {   /* a probe leaves the timer */
		sr_comp_arm_probe(qp, sr_dev_now(qp->dev));
		return;
	}
	qp->comp.deadline = 0;
	sr_comp_arm_timer(qp, sr_dev_now(qp->dev));   /* and the probe */
}

static void sr_comp_progress(struct sr_qp *qp)
{
	uint64_t now = sr_dev_now(qp->dev);

	qp->comp.retry_left = qp->attr.retry_cnt;
	qp->comp.rnr_left = qp->attr.rnr_retry;
	qp->comp.timeouts = 0;
	qp->lane->progress_at = now;
	sr_comp_restart_timer(qp);
	sr_comp_rtt_sample(qp, now);
	qp->comp.probe_shift = 0;
	sr_comp_arm_probe(qp, now);
}

static void sr_comp_ack(struct sr_qp *qp, const struct sr_pkt *pkt,
			uint32_t psn, uint8_t syn, uint32_t msn)
{
	struct sr_send_wqe *w;

	if ((syn & SR_AETH_TYPE_MASK) != SR_AETH_ACK &&
	    sr_psn_before(psn, qp->comp.psn)) {
		sr_qp_count(qp, SR_CNT_GHOST_RESP, 1);  /* stale NAK */
		return;
	}
	if ((syn & SR_AETH_TYPE_MASK) == SR_AETH_NAK)
		sr_qp_trace(qp, SR_TRACE_NAK_RECV, pkt->opcode, syn, psn, msn,
			    0, 0);
	switch (syn & SR_AETH_TYPE_MASK) {
	case SR_AETH_ACK:
		w = sr_comp_ack_upto(qp, psn, true);
		if (w != NULL) {
			/* ACK past a READ/atomic without its response */
			sr_comp_retry(qp, true, SR_TRACE_WHY_BY_IMPLICIT);
			return;
		}
		w = sr_comp_head(qp);
		if (w != NULL && !w->rd_atomic &&
		    !sr_psn_before(psn, qp->comp.psn))
			qp->comp.psn = sr_psn_add(psn, 1);  /* partial */
		sr_comp_progress(qp);
		return;
	case SR_AETH_RNR_NAK:
		sr_qp_count(qp, SR_CNT_RNR_NAK_RCVD, 1);
		if (sr_comp_ack_upto(qp, psn, false) != NULL) {
			sr_comp_retry(qp, true, SR_TRACE_WHY_BY_IMPLICIT);
			return;
		}
		w = sr_comp_head(qp);
		if (w == NULL)
			return;
		if (sr_psn_before(qp->comp.psn, psn))
			qp->comp.psn = psn;
		if (qp->comp.rnr_left == 0) {
			sr_qp_count(qp, SR_CNT_RNR_RETRY_EXC, 1);
			sr_qp_trace(qp, SR_TRACE_RETRY_EXC, 0, SR_TRACE_WHY_BY_RNR,
				    qp->comp.psn, 0, 0, 0);
			sr_comp_error(qp, w, SR_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		if (qp->comp.rnr_left != 7)
			qp->comp.rnr_left--;
		qp->comp.deadline = 0;
		qp->comp.probe_at = 0;  /* the RNR timer's resend re-arms it */
		qp->comp.rnr_until = sr_dev_now(qp->dev) +
				     sr_rnr_timer_ns(SR_AETH_VALUE(syn));
		sr_qp_trace(qp, SR_TRACE_RNR_RECV, 0, syn, psn, msn,
			    (uint32_t)(sr_rnr_timer_ns(SR_AETH_VALUE(syn)) / 1000u),
			    qp->comp.rnr_left);
		return;
	case SR_AETH_NAK:
		if (SR_AETH_VALUE(syn) == SR_NAK_PSN_SEQ_ERR) {
			uint32_t before = qp->comp.psn;

			sr_qp_count(qp, SR_CNT_SEQ_NAK_RCVD, 1);
			if (sr_comp_ack_upto(qp, psn, false) == NULL &&
			    sr_psn_before(qp->comp.psn, psn)) {
				w = sr_comp_head(qp);
				if (w != NULL && !w->rd_atomic)
					qp->comp.psn = psn;
			}
			/* the NAK acknowledges what precedes it: progress */
			if (qp->comp.psn != before) {
				qp->comp.retry_left = qp->attr.retry_cnt;
				sr_comp_rtt_sample(qp, sr_dev_now(qp->dev));
			}
			sr_comp_retry(qp, true, SR_TRACE_WHY_BY_SEQ_NAK);
			return;
		}
		sr_qp_count(qp, SR_CNT_ERR_NAK_RCVD, 1);
		if (sr_comp_ack_upto(qp, psn, false) != NULL) {
			sr_comp_retry(qp, true, SR_TRACE_WHY_BY_IMPLICIT);
			return;
		}
		w = sr_comp_head(qp);
		if (w == NULL)
			return;
		if (SR_AETH_VALUE(syn) <= SR_NAK_INVALID_RD_REQ)
			sr_comp_error(qp, w, sr_nak_status[SR_AETH_VALUE(syn)]);
		else
			sr_comp_error(qp, w, SR_WC_BAD_RESP_ERR);
		return;
	default:
		sr_comp_error(qp, sr_comp_head(qp), SR_WC_BAD_RESP_ERR);
		(void)pkt;
		return;
	}
}

static void sr_comp_read_resp(struct sr_qp *qp, const struct sr_pkt *pkt,
			      uint32_t psn)
{
	struct sr_send_wqe *w;
	uint32_t off, len = pkt->payload_len, idx;
	uint8_t want;

	w = sr_comp_ack_upto(qp, psn, false);
	if (w == NULL)
		w = sr_comp_head(qp);
	if (w == NULL || !w->rd_atomic || sr_psn_diff(psn, w->first_psn) < 0 ||
	    sr_psn_diff(psn, w->last_psn) > 0) {
		if (w != NULL && w->rd_atomic && sr_psn_diff(psn, w->last_psn) > 0)
			sr_comp_retry(qp, true, SR_TRACE_WHY_BY_IMPLICIT);
		else
			sr_qp_count(qp, SR_CNT_GHOST_RESP, 1);
		return;
	}
	if (sr_psn_before(psn, qp->comp.psn)) {
		sr_qp_count(qp, SR_CNT_GHOST_RESP, 1);  /* duplicate */
		return;
	}
	if (psn != qp->comp.psn) {
		/* a response was lost: ask again for what is missing */
		sr_qp_count(qp, SR_CNT_READ_RESUME, 1);
		sr_comp_retry(qp, true, SR_TRACE_WHY_BY_IMPLICIT);
		return;
	}
	if (w->wr.opcode != SR_WR_RDMA_READ) {
		/* FLUSH and ATOMIC_WRITE: READ_RESPONSE_ONLY, no payload */
		if (pkt->op->pos != SR_POS_ONLY || len != 0) {
			sr_comp_error(qp, w, SR_WC_BAD_RESP_ERR);
			return;
		}
		sr_comp_done(qp, w, SR_WC_SUCCESS);
		sr_comp_progress(qp);
		return;
	}
	idx = (uint32_t)sr_psn_diff(psn, w->first_psn);
	off = idx * qp->mtu;
	if (w->npkts == 1)
		want = SR_POS_ONLY;
	else if (idx == 0)
		want = SR_POS_FIRST;
	else if (idx + 1 == w->npkts)
		want = SR_POS_LAST;
	else
		want = SR_POS_MIDDLE;
	if (pkt->op->pos != want) {
		/*
		 * A resumed READ starts again with FIRST (or ONLY) at the
		 * resumption PSN: accept those as the start of the rest.
		 */
		bool resumed = (pkt->op->pos == SR_POS_FIRST &&
				(want == SR_POS_MIDDLE)) ||
			       (pkt->op->pos == SR_POS_ONLY &&
				want == SR_POS_LAST);

		if (!resumed) {
			sr_comp_error(qp, w, SR_WC_BAD_RESP_ERR);
			return;
		}
	}
	if ((want == SR_POS_FIRST || want == SR_POS_MIDDLE) ? len != qp->mtu
	    : len != w->length - off) {
		sr_comp_error(qp, w, SR_WC_BAD_RESP_ERR);
		return;
	}
	if (len > 0 && sr_dma_scatter(qp, w->sge, (uint32_t)w->wr.num_sge, off,
				      sr_pkt_payload(pkt), len) != SR_MR_OK) {
		sr_comp_error(qp, w, SR_WC_LOC_PROT_ERR);
		return;
	}
	qp->comp.psn = sr_psn_add(psn, 1);
	if (psn == w->last_psn)
		sr_comp_done(qp, w, SR_WC_SUCCESS);
	sr_comp_progress(qp);
}

static void sr_comp_atomic_ack(struct sr_qp *qp, const struct sr_pkt *pkt,
			       uint32_t psn)
{
	const struct sr_atmack *a = sr_pkt_ext(pkt, SR_EXT_ATMACK);
	struct sr_send_wqe *w;
	uint64_t orig;

	w = sr_comp_ack_upto(qp, psn, false);
	if (w == NULL)
		w = sr_comp_head(qp);
	if (w == NULL || psn != w->first_psn ||
	    (w->wr.opcode != SR_WR_ATOMIC_CMP_AND_SWP &&
	     w->wr.opcode != SR_WR_ATOMIC_FETCH_AND_ADD)) {
		if (w != NULL && w->rd_atomic && sr_psn_diff(psn, w->last_psn) > 0)
			sr_comp_retry(qp, true, SR_TRACE_WHY_BY_IMPLICIT);
		else
			sr_qp_count(qp, SR_CNT_GHOST_RESP, 1);
		return;
	}
	orig = sr_atmack_orig(a);
	w->result = orig;
	if (w->wr.num_sge > 0 &&
	    sr_dma_scatter(qp, w->sge, (uint32_t)w->wr.num_sge, 0,
			   (const uint8_t *)&orig, 8) != SR_MR_OK) {
		sr_comp_error(qp, w, SR_WC_LOC_PROT_ERR);
		return;
	}
	sr_comp_done(qp, w, SR_WC_SUCCESS);
	sr_comp_progress(qp);
}

/*
 * Trace a response as it arrives (the window before it): an ACK or a
 * response with data (NAKs are traced where they are handled); after it
 * was handled, whether it was a duplicate (counted a ghost meanwhile).
 */
static uint64_t sr_comp_trace_rx(struct sr_qp *qp, const struct sr_pkt *pkt,
				 uint32_t psn)
{
	const struct sr_aeth *aeth = sr_pkt_ext(pkt, SR_EXT_AETH);
	uint8_t syn = aeth != NULL ? sr_aeth_syndrome(aeth) : 0;

	if (aeth != NULL && (syn & SR_AETH_TYPE_MASK) == SR_AETH_ACK)
		sr_qp_trace_emit(qp, SR_TRACE_ACK_RECV, pkt->opcode, syn, psn,
				 sr_aeth_msn(aeth), qp->comp.psn, qp->req.psn);
	else if (aeth == NULL)
		sr_qp_trace_emit(qp, SR_TRACE_RESP_RECV, pkt->opcode, 0, psn,
				 pkt->payload_len, qp->comp.psn, qp->req.psn);
	return atomic_load_explicit(&qp->cnt[SR_CNT_GHOST_RESP],
				    memory_order_relaxed);
}

void sr_comp_rx(struct sr_qp *qp, const struct sr_pkt *pkt)
{
	const struct sr_bth *bth = sr_pkt_bth(pkt);
	const struct sr_aeth *aeth = sr_pkt_ext(pkt, SR_EXT_AETH);
	uint32_t psn = sr_bth_psn(bth);
	enum sr_qp_state st = sr_qp_state_get(qp);
	uint32_t msn = aeth != NULL ? sr_aeth_msn(aeth) : 0;
	uint64_t ghosts = 0;

	if (!sr_qp_reliable(qp)) {
		sr_qp_count(qp, SR_CNT_OPCODE_DROP, 1);
		return;
	}
	if (st != SR_QPS_RTS && st != SR_QPS_SQD) {
		sr_qp_count(qp, SR_CNT_BAD_STATE_DROP, 1);
		return;
	}
	if (!sr_psn_before(psn, qp->req.max_psn)) {
		sr_qp_count(qp, SR_CNT_GHOST_RESP, 1);  /* never sent */
		sr_qp_trace(qp, SR_TRACE_DUP_RECV, pkt->opcode, 0, psn, 0, 0, 0);
		return;
	}
	sr_qp_count(qp, SR_CNT_ACK_RCVD, 1);
	if (__builtin_expect(qp->trace, 0))
		ghosts = sr_comp_trace_rx(qp, pkt, psn);
	switch (pkt->op->kind) {
	case SR_KIND_ACK:
		sr_comp_ack(qp, pkt, psn, sr_aeth_syndrome(aeth), msn);
		break;
	case SR_KIND_READ_RESP:
		if (aeth != NULL &&
		    (sr_aeth_syndrome(aeth) & SR_AETH_TYPE_MASK) != SR_AETH_ACK) {
			sr_comp_ack(qp, pkt, psn, sr_aeth_syndrome(aeth), msn);
			break;
		}
		sr_comp_read_resp(qp, pkt, psn);
		break;
	case SR_KIND_ATOMIC_ACK:
		sr_comp_atomic_ack(qp, pkt, psn);
		break;
	default:
		sr_qp_count(qp, SR_CNT_OPCODE_DROP, 1);
		break;
	}
	if (__builtin_expect(qp->trace, 0) &&
	    atomic_load_explicit(&qp->cnt[SR_CNT_GHOST_RESP],
				 memory_order_relaxed) != ghosts)
		sr_qp_trace_emit(qp, SR_TRACE_DUP_RECV, pkt->opcode, 0, psn, 0,
				 0, 0);
}

unsigned int sr_comp_run(struct sr_qp *qp, uint64_t now)
{
	unsigned int n = sr_comp_reap(qp);

	if (!sr_qp_reliable(qp))
		return n;
	if (qp->comp.rnr_until != 0 && now >= qp->comp.rnr_until) {
		qp->comp.rnr_until = 0;
		sr_qp_count(qp, SR_CNT_RNR_RETRY, 1);
		sr_req_rewind(qp);
		sr_qp_trace(qp, SR_TRACE_RNR_TIMER, 0, 0, qp->req.psn, 0,
			    qp->comp.rnr_left, 0);
		sr_comp_arm_timer(qp, now);
		n++;
	}
	if (qp->comp.deadline != 0 && now >= qp->comp.deadline) {
		qp->comp.deadline = 0;
		if (sr_comp_outstanding(qp) || qp->comp.stalled) {
			sr_qp_count(qp, SR_CNT_TIMEOUT, 1);
			if (qp->comp.timeouts < UINT8_MAX)
				qp->comp.timeouts++;
			qp->comp.rewound = false;
			sr_qp_trace(qp, SR_TRACE_RETX_TIMER, 0, 0, qp->comp.psn,
				    qp->req.psn, qp->comp.retry_left, 0);
			sr_comp_retry(qp, true, SR_TRACE_WHY_BY_TIMEOUT);
			n++;
		}
	}
	if (qp->comp.probe_at != 0 && now >= qp->comp.probe_at) {
		struct sr_send_wqe *w = sr_comp_head(qp);

		qp->comp.probe_at = 0;
		if (qp->req.cwnd != 0 && qp->comp.rnr_until == 0 &&
		    sr_comp_outstanding(qp) && w != NULL && !w->rd_atomic) {
			sr_qp_count(qp, SR_CNT_PROBE, 1);
			qp->comp.rewound = false;
			if (qp->comp.probe_shift < 8)
				qp->comp.probe_shift++;
			sr_comp_retry(qp, false, SR_TRACE_WHY_BY_PROBE);
			n++;
		}
	}
	return n;
}

/* ns from now to an absolute deadline at (0: none, UINT64_MAX). */
static uint64_t sr_comp_due(uint64_t at, uint64_t now)
{
	if (at == 0)
		return UINT64_MAX;
	return at > now ? at - now : 0;
}

uint64_t sr_comp_next_timer(const struct sr_qp *qp, uint64_t now)
{
	uint64_t t = sr_comp_due(qp->comp.rnr_until, now), d;

	d = sr_comp_due(qp->comp.deadline, now);
	if (d < t)
		t = d;
	d = sr_comp_due(qp->comp.probe_at, now);
	return d < t ? d : t;
}
