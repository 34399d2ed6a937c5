/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp_priv.h — QP, CQ and SRQ insides, shared by lib/qp and lib/transport.
 *
 * Ownership of every field is by thread:
 *   poster   sq.prod, rq.prod (and the slots it writes)
 *   engine   req, comp, resp, cq ring prod, sq/rq/srq cons, counters: the
 *            QP's lane (its lane lock held); a CQ or SRQ that QPs of
 *            several lanes share takes its own lock for its ring's side
 *   slow     attr (under every lane lock: no engine runs meanwhile)
 *   any      state (atomic: posters read it without the lock)
 */
#ifndef SR_QP_QP_PRIV_H
#define SR_QP_QP_PRIV_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "cc/dcqcn.h"
#include "cc/pacer.h"
#include "core/dev_priv.h"
#include "core/trace.h"
#include "qp/cq.h"
#include "qp/qp.h"
#include "qp/ring.h"
#include "wire/build.h"
#include "qp/srq.h"

#define SR_CQ_ARM_NONE      0
#define SR_CQ_ARM_SOLICITED 1
#define SR_CQ_ARM_NEXT      2

struct sr_cq {
	struct sr_dev *dev;
	struct sr_ring ring;          /* struct sr_wc slots */
	sr_cq_notify_fn notify;
	void *notify_ctx;
	_Atomic int armed;
	_Atomic bool overflow;
	unsigned int users;           /* QPs using it (slow path) */
	struct sr_lock push_lock;     /* its producers: lanes, when several */
	bool stamp;                   /* completions carry a timestamp */
};

struct sr_recv_wqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t length;              /* sum of the SGE lengths */
	struct sr_sge sge[];
};

/*
 * Receive WRs into a ring of struct sr_recv_wqe (a QP's receive queue or an
 * SRQ), published together: 0, or -EINVAL (too many SGEs) or -ENOMEM (the
 * ring is full) with *wrp left at the WR that was not taken; those before
 * it are posted.
 */
static inline int sr_recv_ring_post(struct sr_ring *r, uint32_t max_sge,
				    const struct sr_recv_wr **wrp)
{
	uint32_t prod = sr_ring_prod_peek(r);
	const struct sr_recv_wr *wr = *wrp;
	int ret = 0;

	for (; wr != NULL; wr = wr->next) {
		struct sr_recv_wqe *w;

		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge) {
			ret = -EINVAL;
			break;
		}
		if (sr_ring_free(r, prod) == 0) {
			ret = -ENOMEM;
			break;
		}
		w = sr_ring_slot(r, prod);
		w->wr_id = wr->wr_id;
		w->num_sge = (uint32_t)wr->num_sge;
		w->length = 0;
		for (int i = 0; i < wr->num_sge; i++) {
			w->sge[i] = wr->sg_list[i];
			w->length += wr->sg_list[i].length;
		}
		prod++;
	}
	sr_ring_publish(r, prod);
	*wrp = wr;
	return ret;
}

struct sr_srq {
	struct sr_dev *dev;
	struct sr_pd *pd;
	struct sr_ring ring;          /* struct sr_recv_wqe slots */
	uint32_t max_sge;
	uint32_t srqn;                /* in dev->srqs */
	_Atomic uint32_t limit;       /* 0: not armed */
	struct sr_lock take_lock;     /* its consumers: lanes, when several */
	unsigned int users;           /* QPs attached (not XRC targets) */
	void *ctx;                    /* the consumer's, sr_srq_set_context */
	struct sr_xrcd *xrcd;         /* XRC SRQ: its domain ... */
	struct sr_cq *cq;             /* ... and where its completions go */
};

struct sr_xrcd {
	struct sr_dev *dev;
	unsigned int users;           /* XRC SRQs and target QPs (slow path) */
};

/* Progress of a send WQE. */
enum sr_wqe_state {
	SR_WQE_POSTED,    /* not started by the requester */
	SR_WQE_ACTIVE,    /* packets being sent */
	SR_WQE_SENT,      /* all packets sent, waiting for the responder */
	SR_WQE_DONE,      /* finished (status says how), ready to complete */
};

struct sr_send_wqe {
	struct sr_send_wr wr;         /* sg_list -> sge[], next NULL */
	struct sr_av av;              /* UD destination */
	uint32_t length;              /* message bytes */
	uint32_t first_psn;
	uint32_t last_psn;
	uint32_t npkts;               /* PSNs the message takes */
	uint8_t state;                /* enum sr_wqe_state */
	uint8_t status;               /* enum sr_wc_status, when DONE */
	uint8_t rd_atomic;            /* needs a response with data (READ,
					 atomic, FLUSH, ATOMIC_WRITE) */
	uint8_t counted;              /* in req.rd_atomic */
	uint64_t result;              /* atomic: the original value */
	struct sr_sge sge[];          /* then the inline bytes */
};

struct sr_req_state {
	uint32_t idx;                 /* next WQE to start or continue */
	uint32_t off;                 /* bytes of it already sent */
	uint32_t psn;                 /* next PSN */
	uint32_t max_psn;             /* one past the highest PSN ever sent */
	uint32_t noack;               /* packets since the last AckReq */
	uint32_t rd_atomic;           /* READ/atomic WQEs outstanding */
	/*
	 * Window after a loss (req.c, sr_req_window): 0 = fully open
	 * (the device's window), else PSNs in flight allowed, grown as ACKs
	 * return (slow start up to ssthresh, then one per window).
	 */
	uint32_t cwnd;
	uint32_t ssthresh;
	uint32_t cw_acc;              /* PSNs acked toward the next +1 */
	uint32_t cw_seen;             /* comp.psn the window last counted */
};

struct sr_comp_state {
	uint32_t idx;                 /* oldest WQE not completed */
	uint32_t psn;                 /* oldest PSN not acknowledged */
	uint64_t deadline;            /* retransmit timer; 0: off */
	uint64_t probe_at;            /* probe in loss recovery; 0: off */
	uint8_t probe_shift;          /* probes since progress (backoff) */
	/* the round trip, one first-sent PSN timed at a time (for probes) */
	bool rtt_on;
	uint32_t rtt_psn;
	uint64_t rtt_sent;
	uint64_t srtt;                /* smoothed, ns; 0: no sample yet */
	uint64_t rttvar;              /* its mean deviation, ns */
	uint64_t rnr_until;           /* RNR wait; 0: not waiting */
	uint8_t retry_left;
	uint8_t timeouts;             /* timer expiries since progress */
	uint8_t rnr_left;
	bool rewound;                 /* retransmitting from rewind_psn ... */
	uint32_t rewind_psn;          /* ... so a second NAK for it is stale */
	bool stalled;                 /* the link refused the next frame */
};

/* A responder resource: one READ, atomic, FLUSH or ATOMIC_WRITE. */
struct sr_resp_res {
	uint8_t opcode;               /* the request's opcode; 0xff unused */
	uint32_t first_psn;
	uint32_t last_psn;
	uint64_t va;                  /* READ: the request as received, kept */
	uint32_t rkey;
	uint32_t len;
	uint64_t orig;                /* atomic: value before the operation */
	/* READ response being sent: bytes [start, end) from va, next off */
	uint32_t cur_psn;
	uint32_t start;
	uint32_t off;
	uint32_t end;
	uint32_t msn;                 /* the MSN its responses carry */
	struct sr_srq *srq;           /* XRC target: the SRQ the READ named */
};

enum sr_resp_msg { SR_MSG_NONE, SR_MSG_SEND, SR_MSG_WRITE, SR_MSG_MAX };

struct sr_resp_state {
	uint32_t psn;                 /* expected PSN */
	uint32_t msn;
	bool nak_sent;                /* sequence NAK sent for this gap */
	bool uc_drop;                 /* UC: drop until FIRST or ONLY */
	uint8_t msg;                  /* enum sr_resp_msg in progress */
	bool have_wqe;                /* recv WQE taken for the message */
	uint32_t recv_off;            /* bytes placed into it */
	uint64_t wva;                 /* WRITE: next address */
	uint32_t wrkey;
	uint32_t wresid;              /* WRITE: bytes still to come */
	uint32_t wlen;                /* WRITE: RETH length */
	bool ack_pending;             /* coalesced ACK to send */
	bool ack_defer;               /* the ACK may wait (sr_resp_run) */
	uint64_t ack_due;             /* when it stops waiting, 0: unset */
	uint32_t since_ack;           /* requests accepted since the last ACK */
	uint32_t ack_psn;
	struct sr_resp_res *res;      /* ring of max_dest_rd_atomic */
	uint32_t nres;
	uint32_t res_next;
	struct sr_resp_res *busy;     /* READ response being sent */
	uint32_t queue_head;          /* READs accepted while busy: res[] ... */
	uint32_t nqueued;             /* ... from queue_head, in PSN order */
	bool nak_after_busy;          /* a request refused while busy: NAK after */
	struct sr_recv_wqe *wqe;      /* copy of the recv WQE in use */
	uint32_t xrc_srqn;            /* XRC target: the message's SRQ */
};

struct sr_qp {
	struct sr_dev *dev;
	uint32_t qpn;
	uint64_t sched_at;            /* its entry in the engine's timer heap
				       * (core/sched.h), 0: none */
	enum sr_qp_type type;
	bool cc_quiet;                /* congestion control has nothing to do:
				       * no CNP came, no rate limit (cc/hooks.c;
				       * here, in the line every visit reads,
				       * for thousands of cold QPs) */
	struct sr_dev_lane *lane;     /* its lane's share of the device
				       * (by QPN, set at create) */
	void *ctx;
	struct sr_pd *pd;
	struct sr_cq *scq;
	struct sr_cq *rcq;
	struct sr_srq *srq;
	/*
	 * XRC target: its domain; srq, rcq and pd above are those of the
	 * SRQ the last request named (transport/resp_xrc.c), NULL until one
	 * did and after that SRQ is destroyed.
	 */
	struct sr_xrcd *xrcd;
	bool sq_sig_all;
	unsigned int nmcast;          /* multicast groups joined (mcast.c) */

	_Atomic int state;            /* enum sr_qp_state */
	struct sr_qp_attr attr;
	uint32_t mtu;                 /* path MTU in bytes */
	uint16_t sport;
	bool flush_pending;           /* entered ERR: engine flushes */
	bool sqd_event;               /* SQD: raise SQ_DRAINED when drained */
	bool trace;                   /* events go to dev->trace (slow path
					 sets it under every lane lock) */

	struct sr_qp_cap cap;
	struct sr_ring sq;            /* struct sr_send_wqe slots */
	struct sr_ring rq;            /* struct sr_recv_wqe slots */

	struct sr_req_state req;
	struct sr_comp_state comp;
	struct sr_resp_state resp;
	/*
	 * The header bytes its packets to attr.av share (wire/build.h), made
	 * by the first packet after they change: tx_tmpl_gen is the
	 * dev->tmpl_gen it was made at, 0 none (sr_qp_modify clears it).
	 */
	uint32_t tx_tmpl_gen;
	struct sr_build_tmpl tx_tmpl;

	unsigned int live_idx;        /* in dev->live */
	sr_counter_t cnt[SR_CNT_MAX];

	/* congestion control (lib/cc/hooks.c) */
	struct sr_dcqcn cc_rp;        /* reaction point; line_bps 0 = not begun */
	uint64_t cc_last_cnp_ns;      /* notification point: last CNP sent */
	bool cc_cnp_sent;
	bool cc_paced;                /* cc_pacer runs (a rate below the line) */
	uint16_t cc_ackreq_every;     /* paced: AckReq every this many packets
				       * (one burst), 0: SR_ACKREQ_EVERY */
	uint64_t cc_limit_bps;        /* explicit limit, 0 = none */
	struct sr_pacer cc_pacer;
};

/* RC and both XRC halves: the reliable transport (ACKs, retries). */
static inline bool sr_qp_reliable(const struct sr_qp *qp)
{
	return qp->type == SR_QPT_RC || qp->type == SR_QPT_XRC_SEND ||
	       qp->type == SR_QPT_XRC_RECV;
}

/* A QP with one peer: every type but UD. */
static inline bool sr_qp_connected(const struct sr_qp *qp)
{
	return qp->type != SR_QPT_UD;
}

static inline enum sr_qp_state sr_qp_state_get(const struct sr_qp *qp)
{
	return (enum sr_qp_state)atomic_load_explicit(&qp->state,
						      memory_order_acquire);
}

/* The QP's count and its lane's share of the device's (lanes write their
 * own: a plain store, no locked add per packet). */
static inline void sr_qp_count(struct sr_qp *qp, enum sr_counter c, uint64_t n)
{
	sr_counter_add(&qp->cnt[c], n);
	sr_counter_add(&qp->lane->cnt[c], n);
}

static inline struct sr_send_wqe *sr_sq_wqe(const struct sr_qp *qp,
					    uint32_t idx)
{
	return (struct sr_send_wqe *)sr_ring_slot(&qp->sq, idx);
}

static inline uint8_t *sr_wqe_inline(const struct sr_qp *qp,
				     struct sr_send_wqe *w)
{
	return (uint8_t *)&w->sge[qp->cap.max_send_sge];
}

/* Write one trace event (sr_qp_trace: only when the QP is traced). */
void sr_qp_trace_emit(struct sr_qp *qp, enum sr_trace_kind kind, uint8_t p,
		      uint16_t f, uint32_t a, uint32_t b, uint32_t c,
		      uint32_t d);

/*
 * A trace event of this QP (core/trace.h: what p, f, a..d mean per kind).
 * Off: one predictable branch.  Called with the QP's lane lock held.
 */
static inline void sr_qp_trace(struct sr_qp *qp, enum sr_trace_kind kind,
			       uint8_t p, uint16_t f, uint32_t a, uint32_t b,
			       uint32_t c, uint32_t d)
{
	if (__builtin_expect(qp->trace, 0))
		sr_qp_trace_emit(qp, kind, p, f, a, b, c, d);
}

/* Engine: push a completion; solicited for the SE-bit/error rule. */
void sr_cq_push(struct sr_cq *cq, const struct sr_wc *wc, bool solicited);

/* Engine: a completion of qp (traced) into cq. */
static inline void sr_qp_cq_push(struct sr_qp *qp, struct sr_cq *cq,
				 const struct sr_wc *wc, bool solicited)
{
	sr_qp_trace(qp, SR_TRACE_COMP, (uint8_t)wc->status,
		    (uint16_t)wc->opcode, wc->byte_len, (uint32_t)wc->wr_id, 0,
		    0);
	sr_cq_push(cq, wc, solicited);
}

/* Engine: take the next receive WQE of the QP (its RQ or SRQ). */
bool sr_qp_take_recv(struct sr_qp *qp, struct sr_recv_wqe *out);

/* Engine: move to ERR (protocol error); raises the given async event. */
void sr_qp_enter_err(struct sr_qp *qp, int event);

/* Engine: complete every outstanding WQE with WR_FLUSH_ERR. */
void sr_qp_flush(struct sr_qp *qp);

#endif /* SR_QP_QP_PRIV_H */
