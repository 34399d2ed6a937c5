/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * req.c — the requester: send WQEs become request packets.
 *
 * Segmentation: every FIRST and MIDDLE packet carries exactly one path MTU,
 * the LAST or ONLY packet the rest (IBA 9.4).  The opcode of each packet
 * comes from one table, [transport][WR opcode][FIRST|MIDDLE|LAST|ONLY].
 * AckReq is set on the last packet of every RC message and on every
 * SR_ACKREQ_EVERY-th packet of a long one (of a paced QP, once per pacer
 * burst: cc/hooks.c).  A READ or atomic WQE waits
 * while max_rd_atomic of them are outstanding; a fenced WQE waits until no
 * READ or atomic is outstanding.  Memory-engine WRs (LOCAL_INV, REG_MR,
 * BIND_MW) run here, in send-queue order.
 *
 * Retransmission: the completer decides where to resume (comp.psn) and
 * calls sr_req_rewind(); the same walk then sends the same PSNs again.  A
 * READ resumed in the middle asks only for the bytes not yet received.
 *
 * Window: the device's window (SR_MAX_UNACKED by default) PSNs in flight,
 * except after a loss (timeout or
 * sequence NAK, sr_req_loss): then the QP restarts with SR_CWND_RESTART
 * PSNs (SR_CWND_TIMEOUT after a timeout) and grows by one per PSN
 * acknowledged up to ssthresh (slow start), then by one per window
 * acknowledged (congestion avoidance), until it is
 * fully open again.  The retransmission is therefore clocked by the ACKs
 * that come back, not sent as one burst, and QPs that share a queue back
 * off together and grow at the same rate.  The packet that fills a
 * reduced window asks for an ACK, or nothing would clock the next one.
 */
#include <errno.h>
#include <string.h>

#include "transport/transport.h"

/* XRC_SEND sends XRC requests; XRC_RECV (NONE) sends none. */
enum {
	SR_TT_IDX_RC, SR_TT_IDX_UC, SR_TT_IDX_UD, SR_TT_IDX_XRC,
	SR_TT_IDX_NONE, SR_TT_IDX_MAX
};

/* An entry is valid when bit 8 is set; the low byte is the opcode. */
#define V(tt, op) (0x100u | SR_OPCODE(tt, op))
#define SEQ4(tt, f, m, l, o) { V(tt, f), V(tt, m), V(tt, l), V(tt, o) }
#define ONE(tt, o) { [SR_POS_ONLY] = V(tt, o) }

#define SR_REQ_RELIABLE_OPS(tt)                                              \
	SR_REQ_CONN_OPS(tt),                                                 \
	[SR_WR_SEND_WITH_INV] = SEQ4(tt, SEND_FIRST, SEND_MIDDLE,            \
				     SEND_LAST_INV, SEND_ONLY_INV),          \
	[SR_WR_RDMA_READ] = ONE(tt, READ_REQUEST),                           \
	[SR_WR_ATOMIC_CMP_AND_SWP] = ONE(tt, COMPARE_SWAP),                  \
	[SR_WR_ATOMIC_FETCH_AND_ADD] = ONE(tt, FETCH_ADD),                   \
	[SR_WR_FLUSH] = ONE(tt, FLUSH),                                      \
	[SR_WR_ATOMIC_WRITE] = ONE(tt, ATOMIC_WRITE)

#define SR_REQ_CONN_OPS(tt)                                                  \
	[SR_WR_SEND] = SEQ4(tt, SEND_FIRST, SEND_MIDDLE, SEND_LAST,          \
			    SEND_ONLY),                                      \
	[SR_WR_SEND_WITH_IMM] = SEQ4(tt, SEND_FIRST, SEND_MIDDLE,            \
				     SEND_LAST_IMM, SEND_ONLY_IMM),          \
	[SR_WR_RDMA_WRITE] = SEQ4(tt, WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, \
				  WRITE_ONLY),                               \
	[SR_WR_RDMA_WRITE_WITH_IMM] = SEQ4(tt, WRITE_FIRST, WRITE_MIDDLE,    \
					   WRITE_LAST_IMM, WRITE_ONLY_IMM)

static const uint16_t sr_req_opcode[SR_TT_IDX_MAX][SR_WR_OPCODE_MAX][SR_POS_MAX] = {
	[SR_TT_IDX_RC] = {
		SR_REQ_RELIABLE_OPS(RC),
	},
	/* XRC: every RC request, with an XRCETH (IBA table 38) */
	[SR_TT_IDX_XRC] = {
		SR_REQ_RELIABLE_OPS(XRC),
	},
	[SR_TT_IDX_UC] = {
		SR_REQ_CONN_OPS(UC),
	},
	[SR_TT_IDX_UD] = {
		[SR_WR_SEND] = ONE(UD, SEND_ONLY),
		[SR_WR_SEND_WITH_IMM] = ONE(UD, SEND_ONLY_IMM),
	},
};

#undef V
#undef SEQ4
#undef ONE

static unsigned int sr_tt_idx(enum sr_qp_type t)
{
	switch (t) {
	case SR_QPT_RC:
		return SR_TT_IDX_RC;
	case SR_QPT_UC:
		return SR_TT_IDX_UC;
	case SR_QPT_UD:
		return SR_TT_IDX_UD;
	case SR_QPT_XRC_SEND:
		return SR_TT_IDX_XRC;
	default:
		return SR_TT_IDX_NONE;
	}
}

/* Is this WR opcode a network operation of this QP type? */
bool sr_req_opcode_valid(enum sr_qp_type t, enum sr_wr_opcode op);
bool sr_req_opcode_valid(enum sr_qp_type t, enum sr_wr_opcode op)
{
	if ((unsigned int)op >= SR_WR_OPCODE_MAX)
		return false;
	return (sr_req_opcode[sr_tt_idx(t)][op][SR_POS_ONLY] & 0x100u) != 0;
}

static bool sr_wr_is_local(enum sr_wr_opcode op)
{
	return op == SR_WR_LOCAL_INV || op == SR_WR_REG_MR ||
	       op == SR_WR_BIND_MW;
}

/* Run a memory-engine WR.  Returns the completion status. */
static enum sr_wc_status sr_req_local(struct sr_qp *qp, struct sr_send_wqe *w)
{
	struct sr_mr_dev *d = qp->dev->mr;
	const struct sr_send_wr *wr = &w->wr;
	int rc = -EINVAL;

	switch (wr->opcode) {
	case SR_WR_LOCAL_INV:
		rc = sr_mr_invalidate_qp(d, wr->invalidate_rkey, false, qp->pd,
					 qp->qpn);
		break;
	case SR_WR_REG_MR: {
		struct sr_frmr_req req = {
			.pd = qp->pd,
			.pages = wr->wr.reg.pages,
			.npages = wr->wr.reg.npages,
			.fbo = wr->wr.reg.fbo,
			.length = wr->wr.reg.length,
			.iova = wr->wr.reg.iova,
			.access = wr->wr.reg.access,
			.key = wr->wr.reg.key,
		};

		rc = sr_frmr_fast_register(d, wr->wr.reg.mr, &req);
		break;
	}
	case SR_WR_BIND_MW: {
		struct sr_mw_bind b = {
			.mr = wr->wr.bind_mw.mr,
			.pd = qp->pd,
			.qpn = qp->qpn,
			.key = wr->wr.bind_mw.rkey,
			.addr = wr->wr.bind_mw.addr,
			.length = wr->wr.bind_mw.length,
			.access = wr->wr.bind_mw.access,
		};

		rc = sr_mw_bind(wr->wr.bind_mw.mw, &b);
		break;
	}
	default:
		break;
	}
	return rc == 0 ? SR_WC_SUCCESS : SR_WC_MW_BIND_ERR;
}

static void sr_req_fail(struct sr_qp *qp, struct sr_send_wqe *w,
			enum sr_wc_status st)
{
	w->status = (uint8_t)st;
	w->state = SR_WQE_DONE;
	qp->req.idx++;
	qp->req.off = 0;
	sr_qp_enter_err(qp, -1);
}

/* Assign PSNs and check local buffers when a WQE starts.  false: failed. */
static bool sr_req_start(struct sr_qp *qp, struct sr_send_wqe *w)
{
	uint32_t need = 0;
	enum sr_mr_err err = SR_MR_OK;

	if (!(w->wr.send_flags & SR_SEND_INLINE)) {
		if (w->wr.opcode == SR_WR_RDMA_READ ||
		    w->wr.opcode == SR_WR_ATOMIC_CMP_AND_SWP ||
		    w->wr.opcode == SR_WR_ATOMIC_FETCH_AND_ADD)
			need = SR_ACCESS_LOCAL_WRITE;
		/*
		 * A message of one packet that reads its SGEs is checked by
		 * the gather that builds the packet, before anything is sent,
		 * with the same lookups and the same error.
		 */
		if (w->wr.opcode != SR_WR_FLUSH &&
		    w->wr.opcode != SR_WR_ATOMIC_WRITE &&
		    (need != 0 || w->length > qp->mtu))
			err = sr_dma_check(qp, w->sge, (uint32_t)w->wr.num_sge,
					   need);
	}
	if (err != SR_MR_OK) {
		sr_req_fail(qp, w, SR_WC_LOC_PROT_ERR);
		return false;
	}
	if (w->wr.opcode == SR_WR_RDMA_READ)
		w->npkts = w->length ? (w->length + qp->mtu - 1) / qp->mtu : 1;
	else if (w->rd_atomic)
		w->npkts = 1;
	else
		w->npkts = w->length ? (w->length + qp->mtu - 1) / qp->mtu : 1;
	w->first_psn = qp->req.psn;
	w->last_psn = sr_psn_add(w->first_psn, w->npkts - 1);
	w->state = SR_WQE_ACTIVE;
	qp->req.off = 0;
	return true;
}

/* PSNs this QP may have unacknowledged now. */
static uint32_t sr_req_window(struct sr_qp *qp)
{
	struct sr_req_state *r = &qp->req;
	uint32_t full = qp->dev->window;
	int32_t acked;
	uint32_t n, ss;

	if (r->cwnd == 0)
		return full;
	acked = sr_psn_diff(qp->comp.psn, r->cw_seen);
	if (acked <= 0)
		return r->cwnd;
	r->cw_seen = qp->comp.psn;
	n = (uint32_t)acked;
	if (r->cwnd < r->ssthresh) {
		ss = r->ssthresh - r->cwnd < n ? r->ssthresh - r->cwnd : n;
		r->cwnd += ss;
		n -= ss;
	}
	r->cw_acc += n;
	while (r->cw_acc >= r->cwnd && r->cwnd < full) {
		r->cw_acc -= r->cwnd;
		r->cwnd++;
	}
	if (r->cwnd >= full) {
		r->cwnd = 0;
		r->cw_acc = 0;
		return full;
	}
	return r->cwnd;
}

void sr_req_loss(struct sr_qp *qp, bool timeout)
{
	struct sr_req_state *r = &qp->req;
	int32_t flight = sr_psn_diff(r->max_psn, qp->comp.psn);
	uint32_t w = r->cwnd ? r->cwnd : qp->dev->window, f;

	if (!sr_qp_reliable(qp))
		return;
	f = flight > 0 ? (uint32_t)flight : 0;
	if (f > w)
		f = w;
	r->ssthresh = f / 2 > SR_CWND_RESTART ? f / 2 : SR_CWND_RESTART;
	r->cwnd = timeout ? SR_CWND_TIMEOUT : SR_CWND_RESTART;
	r->cw_acc = 0;
	r->cw_seen = qp->comp.psn;
}

/*
 * In a reduced window, ask for an ACK on every quarter window and on the
 * packet that fills it: a queue that tail-drops loses the end of a burst,
 * and an ACK for its start slides the window, whose next packets then
 * arrive out of order and draw a sequence NAK instead of a timeout.
 */
static bool sr_req_ackreq_cw(const struct sr_qp *qp, uint32_t npsn)
{
	uint32_t q = qp->req.cwnd / 4 ? qp->req.cwnd / 4 : 1;

	return qp->req.noack + 1 >= q ||
	       sr_psn_diff(qp->req.psn, qp->comp.psn) + (int32_t)npsn >=
	       (int32_t)qp->req.cwnd;
}

static uint8_t sr_req_pos(uint32_t off, uint32_t len, uint32_t mtu)
{
	bool first = off == 0, last = len - off <= mtu;

	return first ? (last ? SR_POS_ONLY : SR_POS_FIRST)
		     : (last ? SR_POS_LAST : SR_POS_MIDDLE);
}

/*
 * Send the next packet of w.  Returns 0, -EAGAIN (no buffer) or another
 * negative value after failing the WQE.
 */
static int sr_req_packet(struct sr_qp *qp, struct sr_send_wqe *w)
{
	const struct sr_send_wr *wr = &w->wr;
	uint32_t mtu = qp->mtu, off = qp->req.off, len = 0, npsn = 1;
	bool rc = sr_qp_reliable(qp);     /* RC or an XRC initiator */
	struct sr_tx_src src = { 0 };
	struct sr_build b;
	uint8_t pos;
	uint16_t ent;
	int ret;

	if (wr->opcode == SR_WR_RDMA_READ || w->rd_atomic)
		pos = SR_POS_ONLY;
	else
		pos = sr_req_pos(off, w->length, mtu);
	ent = sr_req_opcode[sr_tt_idx(qp->type)][wr->opcode][pos];
	sr_tx_prepare(qp, &b, qp->type == SR_QPT_UD ? &w->av : &qp->attr.av,
		      (uint8_t)ent, qp->req.psn);
	b.xrc_srqn = wr->xrc_srqn;        /* only XRC opcodes carry it */

	switch (wr->opcode) {
	case SR_WR_RDMA_READ:
		b.reth_va = wr->wr.rdma.remote_addr + off;
		b.reth_rkey = wr->wr.rdma.rkey;
		b.reth_len = w->length - off;
		npsn = sr_psn_diff(w->last_psn, qp->req.psn) + 1;
		break;
	case SR_WR_ATOMIC_CMP_AND_SWP:
	case SR_WR_ATOMIC_FETCH_AND_ADD:
		b.atm_va = wr->wr.atomic.remote_addr;
		b.atm_rkey = wr->wr.atomic.rkey;
		b.atm_swap_add = wr->opcode == SR_WR_ATOMIC_CMP_AND_SWP
				 ? wr->wr.atomic.swap : wr->wr.atomic.compare_add;
		b.atm_cmp = wr->opcode == SR_WR_ATOMIC_CMP_AND_SWP
			    ? wr->wr.atomic.compare_add : 0;
		break;
	case SR_WR_FLUSH:
		b.feth = (uint32_t)(wr->wr.flush.level & 3u) << 4 |
			 (wr->wr.flush.type & 0xfu);
		b.reth_va = wr->wr.flush.remote_addr;
		b.reth_rkey = wr->wr.flush.rkey;
		b.reth_len = wr->wr.flush.length;
		break;
	case SR_WR_ATOMIC_WRITE:
		b.reth_va = wr->wr.atomic_write.remote_addr;
		b.reth_rkey = wr->wr.atomic_write.rkey;
		b.reth_len = 8;
		len = 8;
		src.bytes = wr->wr.atomic_write.data;
		break;
	default:
		len = w->length - off < mtu ? w->length - off : mtu;
		b.reth_va = wr->wr.rdma.remote_addr;
		b.reth_rkey = wr->wr.rdma.rkey;
		b.reth_len = w->length;
		b.imm = wr->imm_data;
		b.ieth_rkey = wr->invalidate_rkey;
		if (wr->send_flags & SR_SEND_INLINE) {
			src.bytes = sr_wqe_inline(qp, w) + off;
		} else {
			src.sge = w->sge;
			src.nsge = (uint32_t)wr->num_sge;
			src.off = off;
		}
		if (qp->type == SR_QPT_UD) {
			b.dqpn = wr->wr.ud.remote_qpn;
			b.deth_qkey = (wr->wr.ud.remote_qkey & 0x80000000u)
				      ? qp->attr.qkey : wr->wr.ud.remote_qkey;
			b.deth_sqpn = qp->qpn;
		}
		break;
	}
	bool last = pos == SR_POS_LAST || pos == SR_POS_ONLY;

	b.se = last && (wr->send_flags & SR_SEND_SOLICITED);
	b.ackreq = rc && (last || qp->req.noack + 1 >= (qp->cc_ackreq_every ?
			  qp->cc_ackreq_every : SR_ACKREQ_EVERY) ||
			  (qp->req.cwnd != 0 && sr_req_ackreq_cw(qp, npsn)));
	ret = sr_tx_send(qp, &b, &src, len);
	if (ret == -EAGAIN) {
		/*
		 * The retransmit timer runs whether or not the link takes
		 * the frame: a link that never does (down, or frames it
		 * cannot carry) ends in RETRY_EXC like a silent peer.
		 */
		if (rc) {
			qp->comp.stalled = true;
			sr_comp_arm_timer(qp, sr_dev_now(qp->dev));
		}
		return ret;
	}
	if (ret < 0) {
		sr_req_fail(qp, w, SR_WC_LOC_PROT_ERR);
		return ret;
	}
	qp->comp.stalled = false;
	qp->req.noack = b.ackreq ? 0 : qp->req.noack + 1;
	qp->req.psn = sr_psn_add(qp->req.psn, npsn);
	sr_qp_trace(qp, sr_psn_before(b.psn, qp->req.max_psn) ?
			SR_TRACE_REQ_RESEND : SR_TRACE_REQ_SEND,
		    (uint8_t)ent, (uint16_t)qp->req.rd_atomic, b.psn,
		    wr->opcode == SR_WR_RDMA_READ ? b.reth_len : len,
		    qp->comp.psn, qp->req.psn);
	if (rc && !sr_psn_before(b.psn, qp->req.max_psn))
		sr_comp_rtt_start(qp, b.psn, sr_dev_now(qp->dev));
	if (sr_psn_before(qp->req.max_psn, qp->req.psn))
		qp->req.max_psn = qp->req.psn;
	qp->req.off = off + len;
	if (last) {
		/* UC and UD need nobody's answer: done once sent. */
		w->state = rc ? SR_WQE_SENT : SR_WQE_DONE;
		w->status = SR_WC_SUCCESS;
		qp->req.idx++;
		qp->req.off = 0;
	}
	if (rc)
		sr_comp_arm_timer(qp, sr_dev_now(qp->dev));
	return 0;
}

unsigned int sr_req_run(struct sr_qp *qp, unsigned int budget)
{
	enum sr_qp_state st = sr_qp_state_get(qp);
	uint32_t max_rd = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
	unsigned int sent = 0;

	if (st != SR_QPS_RTS && st != SR_QPS_SQD)
		return 0;
	if (qp->comp.rnr_until != 0)
		return 0;
	while (sent < budget) {
		uint32_t prod = atomic_load_explicit(&qp->sq.prod,
						     memory_order_acquire);
		struct sr_send_wqe *w;

		if (qp->req.idx == prod)
			break;
		w = sr_sq_wqe(qp, qp->req.idx);
		if (w->state == SR_WQE_DONE || w->state == SR_WQE_SENT) {
			qp->req.idx++;
			qp->req.off = 0;
			continue;
		}
		if (w->state == SR_WQE_POSTED) {
			if (st == SR_QPS_SQD)
				break;
			if ((w->wr.send_flags & SR_SEND_FENCE) &&
			    qp->req.rd_atomic > 0)
				break;
			if (sr_wr_is_local(w->wr.opcode)) {
				w->status = (uint8_t)sr_req_local(qp, w);
				w->state = SR_WQE_DONE;
				qp->req.idx++;
				qp->req.off = 0;
				sent++;
				if (w->status != SR_WC_SUCCESS) {
					sr_qp_enter_err(qp, -1);
					break;
				}
				continue;
			}
		}
		if (w->rd_atomic && !w->counted) {
			if (qp->req.rd_atomic >= max_rd)
				break;
		}
		if (sr_qp_reliable(qp) &&
		    sr_psn_diff(qp->req.psn, qp->comp.psn) >=
		    (int32_t)sr_req_window(qp))
			break;
		if (w->state == SR_WQE_POSTED && !sr_req_start(qp, w))
			break;
		if (w->rd_atomic && !w->counted) {
			w->counted = 1;
			qp->req.rd_atomic++;
		}
		if (sr_req_packet(qp, w) < 0)
			break;
		sent++;
	}
	return sent;
}

void sr_req_rewind(struct sr_qp *qp)
{
	uint32_t prod = atomic_load_explicit(&qp->sq.prod, memory_order_acquire);
	uint32_t i, first = qp->comp.idx;
	bool found = false;

	qp->req.rd_atomic = 0;
	qp->req.noack = 0;
	for (i = first; i != prod; i++) {
		struct sr_send_wqe *w = sr_sq_wqe(qp, i);

		if (w->state == SR_WQE_POSTED)
			break;
		if (sr_wr_is_local(w->wr.opcode) || w->state == SR_WQE_DONE)
			continue;
		w->counted = 0;
		w->state = SR_WQE_ACTIVE;
		if (!found) {
			int32_t d = sr_psn_diff(qp->comp.psn, w->first_psn);

			found = true;
			qp->req.idx = i;
			qp->req.off = d > 0 ? (uint32_t)d * qp->mtu : 0;
			qp->req.psn = d > 0 ? qp->comp.psn : w->first_psn;
		}
	}
	if (!found) {
		qp->req.idx = first;
		qp->req.off = 0;
		qp->req.psn = qp->comp.psn;
	}
}
