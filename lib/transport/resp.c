/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * resp.c — the responder: request packets become memory writes, receive
 * completions and responses.
 *
 * Order of checks for an RC request (IBA 9.7.4, as rxe does them):
 *   1. PSN: ahead of the expected PSN -> one sequence-error NAK per gap;
 *      behind -> duplicate (SEND/WRITE re-ACKed; READ answered again from
 *      the duplicate's PSN; atomic, FLUSH, ATOMIC_WRITE answered from the
 *      result cache of max_dest_rd_atomic entries);
 *   2. opcode sequence, by the table [message in progress][kind][pos];
 *   3. the per-opcode handler (table by kind): QP access flags, lengths,
 *      the R_Key or L_Key through the MR engine, receive WQE (RNR NAK with
 *      min_rnr_timer when none), then the data movement;
 *   4. the outcome table turns the handler's result into an ACK (coalesced
 *      until the engine's next poll), an RNR NAK, or an error NAK with the
 *      QP going to ERR.
 * An XRC target is an RC responder that first finds, from each request's
 * XRCETH, the SRQ (and with it the CQ and PD) the request is for
 * (resp_xrc.c); its responses are the XRC opcodes.
 * UC takes the same handlers without any response: a PSN gap drops the
 * rest of the message; the next FIRST or ONLY starts clean.  UD
 * datagrams go to resp_ud.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"

/*
 * A RETH's DMA Length is at most 2^31, the largest message IBA ch. 9
 * allows.  More is a length error of the request itself, which the
 * responder's checks class as an Invalid Request (with the other header
 * fields that contradict the request); Remote Access Error is for what
 * the R_Key and its range allow.  rxe does the same (rxe_resp.c,
 * check_length()).
 */
#define SR_RETH_MAX_LEN (1u << 31)

/*
 * READ response packets sent at once from the receive path when a READ
 * request arrives; the rest go out from the engine round (sr_resp_run),
 * flushed between.  Answering a whole READ at once filled the transmit
 * queue in the middle of a receive burst: READ 1 MiB 44-46 -> 58-62
 * Gbit/s on 1 QP, 25-33 -> 57-61 on 4 QPs with 8 here (2..32 alike).
 */
#define SR_READ_EMIT_NOW 8

/*
 * X(name, syndrome, advance, error event, what the trace says it did) —
 * what a handler's result does.
 */
#define SR_RESP_RESULTS(X)                                                  \
	X(OK, 0, true, -1, EXECUTED)                                        \
	X(RESPONDED, 0, true, -1, EXECUTED) /* sent its own response */    \
	X(RNR, SR_AETH_RNR_NAK, false, -1, RNR)                             \
	X(INV_REQ, SR_AETH_NAK | SR_NAK_INVALID_REQ, false,                 \
	  SR_EVENT_QP_REQ_ERR, INV_REQ)                                     \
	X(REM_ACCESS, SR_AETH_NAK | SR_NAK_REMOTE_ACCESS, false,            \
	  SR_EVENT_QP_ACCESS_ERR, REM_ACCESS)                               \
	X(REM_OP, SR_AETH_NAK | SR_NAK_REMOTE_OP, false, SR_EVENT_QP_FATAL, \
	  REM_OP)                                                           \
	/* XRC target: the XRCETH names no SRQ of its domain (resp_xrc.c) */ \
	X(XRC_SRQ, SR_AETH_NAK | SR_NAK_INVALID_REQ, false,                 \
	  SR_EVENT_QP_REQ_ERR, INV_REQ)                                     \
	X(DROP, 0, false, -1, DROP)

enum sr_resp_result {
#define SR_X(n, syn, adv, ev, why) SR_RESP_##n,
	SR_RESP_RESULTS(SR_X)
#undef SR_X
	SR_RESP_MAX
};

static const struct {
	uint8_t syndrome;
	bool advance;
	uint8_t why;                  /* enum sr_trace_why */
	int event;
} sr_resp_outcome[SR_RESP_MAX] = {
#define SR_X(n, syn, adv, ev, w) [SR_RESP_##n] = { .syndrome = (syn), \
	.advance = (adv), .event = (ev), .why = SR_TRACE_WHY_##w },
	SR_RESP_RESULTS(SR_X)
#undef SR_X
};

/*
 * Legal successor: [message in progress][packet kind is SEND/WRITE][pos].
 * A FIRST or ONLY needs no message in progress; MIDDLE and LAST continue
 * a message of their own kind.  Single-packet requests (READ, atomics,
 * FLUSH, ATOMIC_WRITE) are ONLY.
 */
enum { SR_SEQ_SEND, SR_SEQ_WRITE, SR_SEQ_OTHER, SR_SEQ_MAX };

static const bool sr_resp_seq_ok[SR_MSG_MAX][SR_SEQ_MAX][SR_POS_MAX] = {
	[SR_MSG_NONE] = {
		[SR_SEQ_SEND] = { [SR_POS_FIRST] = true, [SR_POS_ONLY] = true },
		[SR_SEQ_WRITE] = { [SR_POS_FIRST] = true, [SR_POS_ONLY] = true },
		[SR_SEQ_OTHER] = { [SR_POS_ONLY] = true },
	},
	[SR_MSG_SEND] = {
		[SR_SEQ_SEND] = { [SR_POS_MIDDLE] = true, [SR_POS_LAST] = true },
	},
	[SR_MSG_WRITE] = {
		[SR_SEQ_WRITE] = { [SR_POS_MIDDLE] = true, [SR_POS_LAST] = true },
	},
};

static unsigned int sr_seq_kind(uint8_t kind)
{
	return kind == SR_KIND_SEND ? SR_SEQ_SEND
	       : kind == SR_KIND_WRITE ? SR_SEQ_WRITE : SR_SEQ_OTHER;
}

/* ------------------------------------------------------------------ */
/* Responses                                                          */

static void sr_resp_send_aeth(struct sr_qp *qp, uint8_t opcode, uint32_t psn,
			      uint8_t syndrome, uint64_t orig)
{
	struct sr_build b;

	sr_tx_prepare(qp, &b, &qp->attr.av, opcode, psn);
	b.aeth_syndrome = syndrome;
	b.aeth_msn = qp->resp.msn & SR_PSN_MASK;
	b.atmack_orig = orig;
	(void)sr_tx_send(qp, &b, NULL, 0);
	sr_qp_trace(qp, SR_TRACE_RESP_SEND, opcode, syndrome, psn,
		    b.aeth_msn, 0, 0);
}

/* A request received, and what the responder does with it (why). */
static void sr_resp_trace(struct sr_qp *qp, const struct sr_pkt *pkt,
			  uint32_t psn, enum sr_trace_why why)
{
	sr_qp_trace(qp, SR_TRACE_RESP_REQ, pkt->opcode, (uint16_t)why, psn,
		    pkt->payload_len, qp->resp.psn, 0);
}

static void sr_resp_flush_ack(struct sr_qp *qp)
{
	if (!qp->resp.ack_pending)
		return;
	qp->resp.ack_pending = false;
	qp->resp.ack_defer = false;
	qp->resp.ack_due = 0;
	qp->resp.since_ack = 0;
	sr_resp_send_aeth(qp, sr_resp_opcode(qp, SR_OP_ACKNOWLEDGE), qp->resp.ack_psn,
			  SR_AETH_CREDITS_INVALID, 0);
	sr_qp_count(qp, SR_CNT_ACK_SENT, 1);
}

/*
 * The last packet of a WRITE that consumes no receive WQE, on a QP with a
 * long ACK timeout (sr_resp_run).
 */
static bool sr_resp_ack_may_wait(const struct sr_qp *qp,
				 const struct sr_opcode_info *op)
{
	uint8_t t = qp->attr.timeout;

	return op->kind == SR_KIND_WRITE && !(op->flags & SR_OPF_CONSUME) &&
	       (op->pos == SR_POS_LAST || op->pos == SR_POS_ONLY) &&
	       (t == 0 || t >= SR_ACK_HOLD_MIN_TIMEOUT);
}

/* defer: the ACK may wait a little (see sr_resp_run). */
static void sr_resp_queue_ack(struct sr_qp *qp, uint32_t psn, bool defer)
{
	if (qp->resp.ack_pending) {
		sr_qp_count(qp, SR_CNT_ACK_COALESCED, 1);
		defer = false;       /* a second request asks: a stream */
	}
	qp->resp.ack_pending = true;
	qp->resp.ack_defer = defer;
	qp->resp.ack_psn = psn;
}

static void sr_resp_nak(struct sr_qp *qp, uint32_t psn, uint8_t syndrome)
{
	sr_resp_flush_ack(qp);
	sr_resp_send_aeth(qp, sr_resp_opcode(qp, SR_OP_ACKNOWLEDGE), psn, syndrome, 0);
}

/*
 * The busy READ's last response is out: the next READ accepted meanwhile
 * is answered now.  When none is left, a request that came while they were
 * being sent and was refused (responses leave in PSN order) is asked for
 * again with a sequence NAK at the expected PSN, which follows the READs'
 * responses on the wire, rather than left to the requester's retransmit
 * timer.
 */
static void sr_resp_busy_done(struct sr_qp *qp)
{
	if (qp->resp.nqueued > 0) {
		qp->resp.busy = &qp->resp.res[qp->resp.queue_head];
		qp->resp.queue_head = (qp->resp.queue_head + 1) % qp->resp.nres;
		qp->resp.nqueued--;
		return;
	}
	qp->resp.busy = NULL;
	if (!qp->resp.nak_after_busy)
		return;
	qp->resp.nak_after_busy = false;
	qp->resp.nak_sent = true;
	sr_resp_nak(qp, qp->resp.psn, SR_AETH_NAK | SR_NAK_PSN_SEQ_ERR);
	sr_qp_count(qp, SR_CNT_SEQ_NAK_SENT, 1);
}

/* Emit READ response packets of the busy resource, up to budget. */
static unsigned int sr_resp_read_emit(struct sr_qp *qp, unsigned int budget)
{
	struct sr_resp_res *r;
	unsigned int n = 0;

	while ((r = qp->resp.busy) != NULL && n < budget) {
		uint32_t left = r->end - r->off;
		uint32_t len = left < qp->mtu ? left : qp->mtu;
		bool first = r->off == r->start, last = left <= qp->mtu;
		uint8_t op = first ? (last ? sr_resp_opcode(qp, SR_OP_READ_RESPONSE_ONLY)
					   : sr_resp_opcode(qp, SR_OP_READ_RESPONSE_FIRST))
				   : (last ? sr_resp_opcode(qp, SR_OP_READ_RESPONSE_LAST)
					   : sr_resp_opcode(qp, SR_OP_READ_RESPONSE_MIDDLE));
		struct sr_tx_src src = {
			.remote = true, .rkey = r->rkey, .va = r->va + r->off,
		};
		struct sr_build b;
		int ret;

		sr_tx_prepare(qp, &b, &qp->attr.av, op, r->cur_psn);
		b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
		b.aeth_msn = r->msn & SR_PSN_MASK;
		ret = sr_resp_read_send(qp, r, &b, &src, len);
		if (ret == -EAGAIN)
			break;
		if (ret < 0) {
			/* the region went away under the READ */
			qp->resp.busy = NULL;
			qp->resp.nqueued = 0;
			sr_resp_nak(qp, r->cur_psn,
				    SR_AETH_NAK | SR_NAK_REMOTE_ACCESS);
			sr_qp_count(qp, SR_CNT_ERR_NAK_SENT, 1);
			sr_qp_enter_err(qp, SR_EVENT_QP_ACCESS_ERR);
			return n;
		}
		n++;
		r->off += len;
		r->cur_psn = sr_psn_add(r->cur_psn, 1);
		if (last)
			sr_resp_busy_done(qp);
	}
	return n;
}

static struct sr_resp_res *sr_resp_res_new(struct sr_qp *qp, uint8_t opcode,
					   uint32_t psn, uint32_t npkts)
{
	struct sr_resp_res *r = &qp->resp.res[qp->resp.res_next];

	qp->resp.res_next = (qp->resp.res_next + 1) % qp->resp.nres;
	memset(r, 0, sizeof(*r));
	r->opcode = opcode;
	r->first_psn = psn;
	r->last_psn = sr_psn_add(psn, npkts - 1);
	r->cur_psn = psn;
	return r;
}

static struct sr_resp_res *sr_resp_res_find(struct sr_qp *qp, uint8_t opcode,
					    uint32_t psn)
{
	uint32_t i;

	for (i = 0; i < qp->resp.nres; i++) {
		struct sr_resp_res *r = &qp->resp.res[i];

		if (r->opcode == opcode && sr_psn_diff(psn, r->first_psn) >= 0 &&
		    sr_psn_diff(psn, r->last_psn) <= 0)
			return r;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Per-opcode handlers                                                */

typedef enum sr_resp_result (*sr_resp_fn)(struct sr_qp *qp,
					  const struct sr_pkt *pkt,
					  uint32_t psn);

static enum sr_resp_result sr_resp_len_ok(const struct sr_qp *qp,
					  const struct sr_pkt *pkt)
{
	uint8_t pos = pkt->op->pos;

	if ((pos == SR_POS_FIRST || pos == SR_POS_MIDDLE) &&
	    pkt->payload_len != qp->mtu)
		return SR_RESP_INV_REQ;
	if (pkt->payload_len > qp->mtu)
		return SR_RESP_INV_REQ;
	return SR_RESP_OK;
}

static enum sr_resp_result sr_resp_send(struct sr_qp *qp,
					const struct sr_pkt *pkt, uint32_t psn)
{
	uint8_t pos = pkt->op->pos;
	uint32_t len = pkt->payload_len;
	bool last = pos == SR_POS_LAST || pos == SR_POS_ONLY;

	(void)psn;
	if (sr_resp_len_ok(qp, pkt) != SR_RESP_OK)
		return SR_RESP_INV_REQ;
	if (!sr_resp_get_wqe(qp))
		return qp->type == SR_QPT_UC ? SR_RESP_DROP : SR_RESP_RNR;
	if (qp->resp.recv_off + len > qp->resp.wqe->length) {
		sr_resp_complete_err(qp, SR_WC_LOC_LEN_ERR);
		return SR_RESP_INV_REQ;
	}
	if (len > 0 &&
	    sr_dma_scatter(qp, qp->resp.wqe->sge, qp->resp.wqe->num_sge,
			   qp->resp.recv_off, sr_pkt_payload(pkt), len) !=
	    SR_MR_OK) {
		sr_resp_complete_err(qp, SR_WC_LOC_PROT_ERR);
		return SR_RESP_REM_OP;
	}
	qp->resp.recv_off += len;
	qp->resp.msg = last ? SR_MSG_NONE : SR_MSG_SEND;
	if (last) {
		struct sr_wc wc = {
			.status = SR_WC_SUCCESS,
			.opcode = SR_WC_OP_RECV,
			.byte_len = qp->resp.recv_off,
		};
		const struct sr_immdt *imm = sr_pkt_ext(pkt, SR_EXT_IMMDT);
		const struct sr_ieth *ieth = sr_pkt_ext(pkt, SR_EXT_IETH);

		if (imm != NULL) {
			wc.imm_data = sr_immdt_imm(imm);
			wc.wc_flags |= SR_WC_WITH_IMM;
		}
		if (ieth != NULL) {
			uint32_t rkey = sr_ieth_rkey(ieth);

			if (sr_mr_invalidate_qp(qp->dev->mr, rkey, true,
						qp->pd, qp->qpn) != 0) {
				sr_resp_complete_err(qp, SR_WC_REM_INV_REQ_ERR);
				return SR_RESP_INV_REQ;
			}
			wc.invalidated_rkey = rkey;
			wc.wc_flags |= SR_WC_WITH_INV;
		}
		qp->resp.msn++;
		sr_resp_complete(qp, &wc, sr_bth_se(sr_pkt_bth(pkt)));
	}
	return SR_RESP_OK;
}

static enum sr_resp_result sr_resp_mr_nak(enum sr_mr_err err)
{
	return err == SR_MR_E_ALIGN ? SR_RESP_INV_REQ : SR_RESP_REM_ACCESS;
}

static enum sr_resp_result sr_resp_write(struct sr_qp *qp,
					 const struct sr_pkt *pkt, uint32_t psn)
{
	const struct sr_reth *reth = sr_pkt_ext(pkt, SR_EXT_RETH);
	uint8_t pos = pkt->op->pos;
	uint32_t len = pkt->payload_len;
	bool last = pos == SR_POS_LAST || pos == SR_POS_ONLY;
	bool imm = pkt->op->flags & SR_OPF_IMM;
	struct sr_mr_ref ref;
	enum sr_mr_err err;

	(void)psn;
	if (!(qp->attr.qp_access_flags & SR_ACCESS_REMOTE_WRITE))
		return SR_RESP_INV_REQ;
	if (sr_resp_len_ok(qp, pkt) != SR_RESP_OK)
		return SR_RESP_INV_REQ;
	if (reth != NULL) {
		uint32_t total = sr_reth_len(reth);

		if (pos == SR_POS_ONLY ? len != total : total <= qp->mtu)
			return SR_RESP_INV_REQ;
		if (total > SR_RETH_MAX_LEN)
			return SR_RESP_INV_REQ;
		if (total > 0) {
			err = sr_dma_remote(qp, sr_reth_rkey(reth),
					    sr_reth_va(reth), total,
					    SR_ACCESS_REMOTE_WRITE, &ref);
			if (err != SR_MR_OK)
				return sr_resp_mr_nak(err);
			sr_mr_ref_put(&ref);
		}
		qp->resp.wva = sr_reth_va(reth);
		qp->resp.wrkey = sr_reth_rkey(reth);
		qp->resp.wresid = total;
		qp->resp.wlen = total;   /* byte_len of WRITE_WITH_IMM */
	} else if (last ? len != qp->resp.wresid : len >= qp->resp.wresid) {
		return SR_RESP_INV_REQ;
	}
	if (imm && !sr_resp_get_wqe(qp))
		return qp->type == SR_QPT_UC ? SR_RESP_DROP : SR_RESP_RNR;
	if (len > 0) {
		err = sr_dma_remote(qp, qp->resp.wrkey, qp->resp.wva, len,
				    SR_ACCESS_REMOTE_WRITE, &ref);
		if (err != SR_MR_OK)
			return sr_resp_mr_nak(err);
		err = sr_mr_copy_to(&ref, qp->resp.wva, sr_pkt_payload(pkt),
				    len);
		sr_mr_ref_put(&ref);
		if (sr_unlikely(err != SR_MR_OK))
			return sr_resp_mr_nak(err);   /* on demand: unmapped */
	}
	qp->resp.wva += len;
	qp->resp.wresid -= len;
	qp->resp.msg = last ? SR_MSG_NONE : SR_MSG_WRITE;
	if (last) {
		qp->resp.msn++;
		if (imm) {
			const struct sr_immdt *im = sr_pkt_ext(pkt, SR_EXT_IMMDT);
			struct sr_wc wc = {
				.status = SR_WC_SUCCESS,
				.opcode = SR_WC_OP_RECV_RDMA_WITH_IMM,
				.byte_len = qp->resp.wlen,
				.imm_data = sr_immdt_imm(im),
				.wc_flags = SR_WC_WITH_IMM,
			};
			sr_resp_complete(qp, &wc, sr_bth_se(sr_pkt_bth(pkt)));
		}
	}
	return SR_RESP_OK;
}

/* May the range a READ's RETH names be read?  (Nothing to check: 0 B.) */
static enum sr_mr_err sr_resp_read_range(struct sr_qp *qp,
					 const struct sr_reth *reth)
{
	uint32_t len = sr_reth_len(reth);
	struct sr_mr_ref ref;
	enum sr_mr_err err;

	if (len == 0)
		return SR_MR_OK;
	err = sr_dma_remote(qp, sr_reth_rkey(reth), sr_reth_va(reth), len,
			    SR_ACCESS_REMOTE_READ, &ref);
	if (err == SR_MR_OK)
		sr_mr_ref_put(&ref);
	return err;
}

static enum sr_resp_result sr_resp_read(struct sr_qp *qp,
					const struct sr_pkt *pkt, uint32_t psn)
{
	const struct sr_reth *reth = sr_pkt_ext(pkt, SR_EXT_RETH);
	uint32_t len = sr_reth_len(reth), npkts;
	struct sr_resp_res *r;
	enum sr_mr_err err;

	if (!(qp->attr.qp_access_flags & SR_ACCESS_REMOTE_READ) ||
	    len > SR_RETH_MAX_LEN)
		return SR_RESP_INV_REQ;
	err = sr_resp_read_range(qp, reth);
	if (err != SR_MR_OK)
		return sr_resp_mr_nak(err);
	npkts = len ? (len + qp->mtu - 1) / qp->mtu : 1;
	r = sr_resp_res_new(qp, pkt->opcode, psn, npkts);
	if (qp->type == SR_QPT_XRC_RECV)
		r->srq = qp->srq;       /* reads through its PD (resp_xrc.c) */
	r->va = sr_reth_va(reth);
	r->rkey = sr_reth_rkey(reth);
	r->len = len;
	r->end = len;
	qp->resp.msn++;
	r->msn = qp->resp.msn;
	qp->resp.psn = sr_psn_add(psn, npkts);
	if (qp->resp.busy != NULL) {
		/* answered after the READs before it (sr_resp_busy_done) */
		if (qp->resp.nqueued++ == 0)
			qp->resp.queue_head = (uint32_t)(r - qp->resp.res);
		return SR_RESP_RESPONDED;
	}
	sr_resp_flush_ack(qp);
	qp->resp.busy = r;
	sr_resp_read_emit(qp, SR_READ_EMIT_NOW);
	return SR_RESP_RESPONDED;
}

/*
 * While a READ is being answered, a READ request that follows in sequence
 * and that will be answered without error is accepted and answered after
 * it, as an RNIC queues them.  Anything else is taken once the READs
 * before it are answered — at once when the link takes their responses,
 * else refused and asked for again (sr_resp_busy_done).  One resource
 * stays free besides the busy and the queued ones, so none is overwritten.
 */
static bool sr_resp_read_may_queue(struct sr_qp *qp, const struct sr_pkt *pkt)
{
	return pkt->op->kind == SR_KIND_READ_REQ &&
	       qp->resp.msg == SR_MSG_NONE &&
	       qp->resp.nqueued + 2 <= qp->resp.nres &&
	       /* a duplicate being answered again may sit where it would go */
	       &qp->resp.res[qp->resp.res_next] != qp->resp.busy &&
	       (qp->attr.qp_access_flags & SR_ACCESS_REMOTE_READ) &&
	       /* an XRC target reads through the SRQ's PD: the same SRQ */
	       (qp->type != SR_QPT_XRC_RECV || sr_resp_xrc_same_srq(qp, pkt)) &&
	       sr_reth_len(sr_pkt_ext(pkt, SR_EXT_RETH)) <= SR_RETH_MAX_LEN &&
	       sr_resp_read_range(qp, sr_pkt_ext(pkt, SR_EXT_RETH)) ==
		       SR_MR_OK;
}

static enum sr_resp_result sr_resp_atomic(struct sr_qp *qp,
					  const struct sr_pkt *pkt, uint32_t psn)
{
	const struct sr_atmeth *a = sr_pkt_ext(pkt, SR_EXT_ATMETH);
	uint64_t va = sr_atmeth_va(a), orig;
	struct sr_resp_res *r;
	struct sr_mr_ref ref;
	enum sr_mr_err err;
	uint64_t *p;

	if (!(qp->attr.qp_access_flags & SR_ACCESS_REMOTE_ATOMIC))
		return SR_RESP_INV_REQ;
	err = sr_dma_remote(qp, sr_atmeth_rkey(a), va, 8,
			    SR_ACCESS_REMOTE_ATOMIC, &ref);
	if (err != SR_MR_OK)
		return sr_resp_mr_nak(err);
	err = sr_mr_ref_word(&ref, va, &p);
	if (err != SR_MR_OK) {
		sr_mr_ref_put(&ref);
		return err == SR_MR_E_FAULT ? sr_resp_mr_nak(err)
					    : SR_RESP_REM_OP;
	}
	if ((pkt->opcode & ~SR_TT_MASK) == SR_OP_COMPARE_SWAP) {
		orig = sr_atmeth_cmp(a);
		__atomic_compare_exchange_n(p, &orig, sr_atmeth_swap_add(a),
					    false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(p, sr_atmeth_swap_add(a),
					  __ATOMIC_SEQ_CST);
	}
	sr_mr_ref_put(&ref);
	r = sr_resp_res_new(qp, pkt->opcode, psn, 1);
	r->orig = orig;
	qp->resp.msn++;
	qp->resp.psn = sr_psn_add(psn, 1);
	sr_resp_flush_ack(qp);
	sr_resp_send_aeth(qp, sr_resp_opcode(qp, SR_OP_ATOMIC_ACKNOWLEDGE), psn,
			  SR_AETH_CREDITS_INVALID, orig);
	return SR_RESP_RESPONDED;
}

/* FLUSH and ATOMIC_WRITE are answered by a READ_RESPONSE_ONLY without data. */
static void sr_resp_empty_read_resp(struct sr_qp *qp, uint32_t psn)
{
	sr_resp_flush_ack(qp);
	sr_resp_send_aeth(qp, sr_resp_opcode(qp, SR_OP_READ_RESPONSE_ONLY), psn,
			  SR_AETH_CREDITS_INVALID, 0);
}

static enum sr_resp_result sr_resp_flush(struct sr_qp *qp,
					 const struct sr_pkt *pkt, uint32_t psn)
{
	const struct sr_reth *reth = sr_pkt_ext(pkt, SR_EXT_RETH);
	const struct sr_feth *feth = sr_pkt_ext(pkt, SR_EXT_FETH);
	struct sr_mr_ref ref;
	enum sr_mr_err err;
	uint32_t len = sr_reth_len(reth);

	/*
	 * lib/mr has no FLUSH access rights yet: check the key, PD and
	 * range (the whole region at level SR_FLUSH_MR: one byte).
	 */
	if (sr_feth_selectivity(feth) == SR_FLUSH_MR)
		len = 0;
	if (len > 0 || sr_feth_selectivity(feth) == SR_FLUSH_MR) {
		err = sr_dma_remote(qp, sr_reth_rkey(reth), sr_reth_va(reth),
				    len, 0, &ref);
		if (err != SR_MR_OK && !(len == 0 && err == SR_MR_E_BOUNDS))
			return sr_resp_mr_nak(err);
		sr_mr_ref_put(&ref);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	(void)sr_resp_res_new(qp, pkt->opcode, psn, 1);
	qp->resp.msn++;
	qp->resp.psn = sr_psn_add(psn, 1);
	sr_resp_empty_read_resp(qp, psn);
	return SR_RESP_RESPONDED;
}

static enum sr_resp_result sr_resp_atomic_write(struct sr_qp *qp,
						const struct sr_pkt *pkt,
						uint32_t psn)
{
	const struct sr_reth *reth = sr_pkt_ext(pkt, SR_EXT_RETH);
	uint64_t va = sr_reth_va(reth), v, *p;
	struct sr_mr_ref ref;
	enum sr_mr_err err;

	if (!(qp->attr.qp_access_flags & SR_ACCESS_REMOTE_WRITE))
		return SR_RESP_INV_REQ;
	if (pkt->payload_len != 8 || sr_reth_len(reth) != 8 || (va & 7))
		return SR_RESP_INV_REQ;
	err = sr_dma_remote(qp, sr_reth_rkey(reth), va, 8,
			    SR_ACCESS_REMOTE_WRITE, &ref);
	if (err != SR_MR_OK)
		return sr_resp_mr_nak(err);
	err = sr_mr_ref_word(&ref, va, &p);
	if (err != SR_MR_OK) {
		sr_mr_ref_put(&ref);
		return err == SR_MR_E_FAULT ? sr_resp_mr_nak(err)
					    : SR_RESP_REM_OP;
	}
	memcpy(&v, sr_pkt_payload(pkt), 8);
	__atomic_store_n(p, v, __ATOMIC_SEQ_CST);
	sr_mr_ref_put(&ref);
	(void)sr_resp_res_new(qp, pkt->opcode, psn, 1);
	qp->resp.msn++;
	qp->resp.psn = sr_psn_add(psn, 1);
	sr_resp_empty_read_resp(qp, psn);
	return SR_RESP_RESPONDED;
}

static const sr_resp_fn sr_resp_handler[SR_KIND_MAX] = {
	[SR_KIND_SEND] = sr_resp_send,
	[SR_KIND_WRITE] = sr_resp_write,
	[SR_KIND_READ_REQ] = sr_resp_read,
	[SR_KIND_ATOMIC] = sr_resp_atomic,
	[SR_KIND_FLUSH] = sr_resp_flush,
	[SR_KIND_ATOMIC_WRITE] = sr_resp_atomic_write,
};

/* ------------------------------------------------------------------ */
/* Duplicates                                                         */

/*
 * A duplicate READ is answered again only within the request it repeats
 * (IBA ch. 9, duplicate RDMA READ requests: the responder answers them
 * again from the state it saved for the original): the same R_Key, a
 * range inside the saved one, and response PSNs inside the saved
 * request's (a requester resumes a READ from the PSN of its first missing
 * response, the VA advanced by as many path MTUs).  Anything else is
 * dropped: a duplicate that names other memory or more bytes would turn
 * 74 request bytes into kilobytes of responses, with PSNs past the
 * expected one.  So a duplicate costs at most what the original did.
 * rxe drops them too.
 */
static bool sr_resp_dup_read_ok(const struct sr_qp *qp,
				const struct sr_resp_res *r,
				const struct sr_pkt *pkt, uint32_t psn)
{
	const struct sr_reth *reth = sr_pkt_ext(pkt, SR_EXT_RETH);
	uint64_t va = sr_reth_va(reth), off;
	uint32_t len = sr_reth_len(reth), npkts;

	if (sr_reth_rkey(reth) != r->rkey || va < r->va)
		return false;
	off = va - r->va;
	if (off > r->len || len > r->len - off)
		return false;
	npkts = len ? (len + qp->mtu - 1) / qp->mtu : 1;
	return sr_psn_diff(sr_psn_add(psn, npkts - 1), r->last_psn) <= 0;
}

static void sr_resp_duplicate(struct sr_qp *qp, const struct sr_pkt *pkt,
			      uint32_t psn)
{
	struct sr_resp_res *r;

	sr_qp_count(qp, SR_CNT_REQ_DUP, 1);
	if (qp->resp.busy != NULL) {
		sr_qp_count(qp, SR_CNT_RESP_BUSY_DROP, 1);
		sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_BUSY);
		return;
	}
	switch (pkt->op->kind) {
	case SR_KIND_SEND:
	case SR_KIND_WRITE:
		sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_DUP_ACK);
		/* re-ACK everything received so far */
		sr_resp_queue_ack(qp, sr_psn_add(qp->resp.psn, SR_PSN_MASK),
				  false);
		return;
	case SR_KIND_READ_REQ:
		r = sr_resp_res_find(qp, pkt->opcode, psn);
		if (r == NULL || !sr_resp_dup_read_ok(qp, r, pkt, psn)) {
			sr_qp_count(qp, SR_CNT_REQ_DUP_DROP, 1);
			sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_DUP_DROP);
			return;
		}
		sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_DUP_READ);
		/* answer again from the duplicate's PSN and VA */
		r->msn = qp->resp.msn;
		r->start = r->off =
			(uint32_t)(sr_reth_va(sr_pkt_ext(pkt, SR_EXT_RETH)) - r->va);
		r->end = r->off + sr_reth_len(sr_pkt_ext(pkt, SR_EXT_RETH));
		r->cur_psn = psn;
		sr_resp_flush_ack(qp);
		qp->resp.busy = r;
		sr_resp_read_emit(qp, SR_READ_EMIT_NOW);
		return;
	case SR_KIND_ATOMIC:
	case SR_KIND_FLUSH:
	case SR_KIND_ATOMIC_WRITE:
		r = sr_resp_res_find(qp, pkt->opcode, psn);
		if (r == NULL) {
			sr_qp_count(qp, SR_CNT_REQ_DUP_DROP, 1);
			sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_DUP_DROP);
			return;
		}
		sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_DUP_ANSWER);
		if (pkt->op->kind == SR_KIND_ATOMIC) {
			sr_resp_flush_ack(qp);
			sr_resp_send_aeth(qp, sr_resp_opcode(qp, SR_OP_ATOMIC_ACKNOWLEDGE),
					  psn, SR_AETH_CREDITS_INVALID, r->orig);
		} else {
			sr_resp_empty_read_resp(qp, psn);
		}
		return;
	default:
		sr_qp_count(qp, SR_CNT_REQ_DUP_DROP, 1);
		sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_DUP_DROP);
		return;
	}
}

/* ------------------------------------------------------------------ */

static void sr_resp_uc_abort(struct sr_qp *qp)
{
	if (qp->resp.msg != SR_MSG_NONE) {
		sr_qp_count(qp, SR_CNT_UC_MSG_DROP, 1);
		/* the receive WQE is kept for the next message */
		qp->resp.recv_off = 0;
		qp->resp.msg = SR_MSG_NONE;
	}
}

void sr_resp_rx(struct sr_qp *qp, const struct sr_pkt *pkt)
{
	enum sr_qp_state st = sr_qp_state_get(qp);
	const struct sr_bth *bth = sr_pkt_bth(pkt);
	uint32_t psn = sr_bth_psn(bth);
	uint8_t pos = pkt->op->pos;
	enum sr_resp_result res;
	sr_resp_fn fn;
	int32_t d;

	if (st == SR_QPS_RESET || st == SR_QPS_INIT || st == SR_QPS_ERR) {
		sr_qp_count(qp, SR_CNT_BAD_STATE_DROP, 1);
		return;
	}
	sr_qp_count(qp, SR_CNT_RX_BYTES, pkt->payload_len);
	if (qp->type == SR_QPT_UD) {
		sr_resp_ud(qp, pkt);
		return;
	}
	if (qp->type == SR_QPT_UC) {
		if (sr_psn_diff(psn, qp->resp.psn) < 0) {
			sr_qp_count(qp, SR_CNT_REQ_DUP, 1);   /* duplicate */
			return;
		}
		if (psn != qp->resp.psn) {
			sr_resp_uc_abort(qp);
			qp->resp.uc_drop = true;
			qp->resp.psn = psn;
		}
		qp->resp.psn = sr_psn_add(psn, 1);
		if (qp->resp.uc_drop) {
			if (pos != SR_POS_FIRST && pos != SR_POS_ONLY)
				return;
			qp->resp.uc_drop = false;
		}
		if (!sr_resp_seq_ok[qp->resp.msg][sr_seq_kind(pkt->op->kind)][pos]) {
			sr_resp_uc_abort(qp);
			qp->resp.uc_drop = pos != SR_POS_FIRST &&
					   pos != SR_POS_ONLY;
			if (qp->resp.uc_drop)
				return;
		}
		fn = sr_resp_handler[pkt->op->kind];
		res = fn ? fn(qp, pkt, psn) : SR_RESP_DROP;
		if (res != SR_RESP_OK) {
			sr_resp_uc_abort(qp);
			qp->resp.msg = SR_MSG_NONE;
			qp->resp.uc_drop = pos == SR_POS_FIRST;
		}
		return;
	}

	/* RC */
	d = sr_psn_diff(psn, qp->resp.psn);
	if (d > 0) {
		sr_qp_count(qp, SR_CNT_SEQ_ERR, 1);
		if (qp->resp.nak_sent || qp->resp.busy != NULL) {
			sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_SEQ_DROP);
			/* a NAK now would overtake the READ's responses */
			if (!qp->resp.nak_sent)
				qp->resp.nak_after_busy = true;
			return;
		}
		sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_SEQ_NAK);
		qp->resp.nak_sent = true;
		sr_resp_nak(qp, qp->resp.psn, SR_AETH_NAK | SR_NAK_PSN_SEQ_ERR);
		sr_qp_count(qp, SR_CNT_SEQ_NAK_SENT, 1);
		return;
	}
	if (d < 0) {
		sr_resp_duplicate(qp, pkt, psn);
		return;
	}
	if (qp->resp.busy != NULL && !sr_resp_read_may_queue(qp, pkt)) {
		/* answer the READs before it first, as far as the link lets */
		sr_resp_read_emit(qp, UINT32_MAX);
		if (qp->resp.busy != NULL) {
			/* asked for again when they are done */
			sr_qp_count(qp, SR_CNT_RESP_BUSY_DROP, 1);
			sr_resp_trace(qp, pkt, psn, SR_TRACE_WHY_BUSY);
			qp->resp.nak_after_busy = true;
			return;
		}
	}
	qp->resp.nak_sent = false;
	fn = sr_resp_handler[pkt->op->kind];
	if (fn == NULL ||
	    !sr_resp_seq_ok[qp->resp.msg][sr_seq_kind(pkt->op->kind)][pos])
		res = SR_RESP_INV_REQ;
	else if (qp->type == SR_QPT_XRC_RECV && !sr_resp_xrc_srq(qp, pkt))
		res = SR_RESP_XRC_SRQ;
	else
		res = fn(qp, pkt, psn);
	if (__builtin_expect(qp->trace, 0))
		sr_resp_trace(qp, pkt, psn, sr_resp_outcome[res].why);

	if (sr_resp_outcome[res].advance) {
		if (res == SR_RESP_OK) {
			qp->resp.psn = sr_psn_add(psn, 1);
			qp->resp.since_ack++;
			if (sr_bth_ackreq(bth))
				sr_resp_queue_ack(qp, psn,
					sr_resp_ack_may_wait(qp, pkt->op));
		}
		return;
	}
	switch (res) {
	case SR_RESP_RNR:
		sr_resp_nak(qp, psn, SR_AETH_RNR_NAK |
				     (qp->attr.min_rnr_timer & 0x1f));
		sr_qp_count(qp, SR_CNT_RNR_NAK_SENT, 1);
		return;
	case SR_RESP_DROP:
		return;
	default:
		sr_resp_nak(qp, psn, sr_resp_outcome[res].syndrome);
		sr_qp_count(qp, SR_CNT_ERR_NAK_SENT, 1);
		if (res == SR_RESP_XRC_SRQ)
			sr_qp_count(qp, SR_CNT_XRC_SRQ_NAK, 1);
		sr_qp_enter_err(qp, sr_resp_outcome[res].event);
		return;
	}
}

void sr_resp_flush_owed_ack(struct sr_qp *qp)
{
	sr_resp_flush_ack(qp);
}

unsigned int sr_resp_ack_first(struct sr_qp *qp)
{
	if (!qp->resp.ack_pending || qp->resp.ack_defer ||
	    qp->resp.busy != NULL)
		return 0;
	sr_resp_flush_ack(qp);
	return 1;
}

/*
 * The ACK of the last packet of an RDMA WRITE (one that consumes no
 * receive WQE), answering at most SR_ACK_HOLD_PSNS packets, may wait:
 * until the QP's requester has sent something in the same engine round
 * (the ACK then follows it), SR_ACK_DEFER_NS at most, and only while no
 * other request asks for an ACK (a stream of WRITEs into a silent peer
 * is acknowledged as if nothing waited).  Coalescing and
 * a short delay are legal (IBTA 9.7.5.1: one ACK answers every earlier
 * PSN; the delay is far below any ACK timeout).  What it buys is the
 * order of a ping-pong: the consumer learns of a WRITE only by watching
 * memory, and when it answers with a WRITE of its own, the peer receives
 * that WRITE before the ACK it is waiting for, so the peer's own poll of
 * its send CQ places the data it will look for next, instead of leaving
 * it to a thread that is not running (perftest's ib_write_lat polls
 * memory between the two).  SEND and READ traffic are answered at once,
 * as rxe does: their consumers poll a CQ, and a failing request posted
 * right after a receive completion must not overtake the ACK of that
 * SEND.  A waiting ACK is not work: the engine may idle (a progress
 * thread then yields its core, perhaps to the consumer about to post the
 * request the ACK waits for); sr_dev_next_timer_ns() says when it is due,
 * for a link that sleeps until its next timer.  A progress thread that
 * looks in only now and then (the shim's helper, while the consumer runs
 * the engine itself: every millisecond or so) may send it later than
 * that, so only QPs whose ACK timeout is long (SR_ACK_HOLD_MIN_TIMEOUT)
 * hold ACKs at all.
 */
unsigned int sr_resp_run(struct sr_qp *qp, unsigned int budget, uint64_t now,
			 bool req_sent)
{
	unsigned int n = 0;

	if (qp->resp.busy != NULL)
		n += sr_resp_read_emit(qp, budget);
	if (!qp->resp.ack_pending || qp->resp.busy != NULL)
		return n;
	if (qp->resp.ack_defer && !req_sent &&
	    qp->resp.since_ack <= SR_ACK_HOLD_PSNS) {
		if (qp->resp.ack_due == 0) {
			/* an eighth of this QP's own ACK timeout at most */
			uint64_t wait = SR_ACK_DEFER_NS, t = qp->attr.timeout;

			if (t != 0 && t < 32 && ((uint64_t)4096u << t) / 8 < wait)
				wait = ((uint64_t)4096u << t) / 8;
			qp->resp.ack_due = now + wait;
		}
		if ((int64_t)(now - qp->resp.ack_due) < 0)
			return n;
	}
	sr_resp_flush_ack(qp);
	return n + 1;
}

uint64_t sr_resp_next_timer(const struct sr_qp *qp, uint64_t now)
{
	if (!qp->resp.ack_pending)
		return UINT64_MAX;
	if (!qp->resp.ack_defer || qp->resp.ack_due == 0 ||
	    (int64_t)(now - qp->resp.ack_due) >= 0)
		return 0;
	return qp->resp.ack_due - now;
}

int sr_resp_res_alloc(struct sr_qp *qp, uint32_t n)
{
	struct sr_resp_res *r;
	uint32_t i;

	if (n == 0)
		n = 1;
	if (n == qp->resp.nres)
		return 0;
	r = calloc(n, sizeof(*r));
	if (r == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		r[i].opcode = 0xff;
	free(qp->resp.res);
	qp->resp.res = r;
	qp->resp.nres = n;
	qp->resp.res_next = 0;
	qp->resp.busy = NULL;
	qp->resp.nqueued = 0;
	qp->resp.nak_after_busy = false;
	return 0;
}

void sr_resp_reset(struct sr_qp *qp)
{
	uint32_t i;

	qp->resp.nak_sent = false;
	qp->resp.uc_drop = false;
	qp->resp.msg = SR_MSG_NONE;
	qp->resp.have_wqe = false;
	qp->resp.recv_off = 0;
	qp->resp.ack_pending = false;
	qp->resp.ack_defer = false;
	qp->resp.ack_due = 0;
	qp->resp.since_ack = 0;
	qp->resp.busy = NULL;
	qp->resp.nqueued = 0;
	qp->resp.nak_after_busy = false;
	qp->resp.msn = 0;
	for (i = 0; i < qp->resp.nres; i++)
		qp->resp.res[i].opcode = 0xff;
}
