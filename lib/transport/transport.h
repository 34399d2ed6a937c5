/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * transport.h — the three engines of a QP and what they share.
 *
 *   req.c   requester: WQEs -> request packets (segmentation, AckReq,
 *           rd_atomic limit, fence, retransmission position)
 *   resp.c  responder: request packets -> memory, receive completions,
 *           ACK/NAK/READ responses (PSN check, duplicates, resources)
 *   resp_ud.c  the responder's UD datagrams
 *   resp_xrc.c an XRC target's SRQ, from each request's XRCETH
 *   comp.c  completer: responses -> send completions, retry and RNR
 *           timers, READ reassembly
 *   tx.c    one place that turns a QP and a packet description into a
 *           frame through the wire builder
 *   dma.c   every data access, through the MR engine's lookup
 *
 * All of it runs on the engine thread (core/dev.h).
 */
#ifndef SR_TRANSPORT_TRANSPORT_H
#define SR_TRANSPORT_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "mr/mr.h"
#include "wire/psn.h"
#include "qp/qp_priv.h"
#include "wire/build.h"
#include "wire/parse.h"

/* Packets a requester sends before asking for an ACK even mid-message. */
#define SR_ACKREQ_EVERY   64
/*
 * PSNs a requester may have unacknowledged before it waits, by default
 * (sr_dev_config.window): as many as rxe's requester
 * (RXE_MAX_UNACKED_PSNS).  A slow peer (rxe in a TCG guest takes ~8 k
 * packets/s) must absorb the window within one ACK timeout, or every
 * timeout queues the whole window again behind it (1024, before slow
 * start, ended a 1 MiB ib_send_lat in RETRY_EXC).  A path whose round trip
 * is long for its rate wants more: a client of sroced, whose frames wait
 * for the daemon's turn on the CPU, takes 512 (pmd/daemon.c).
 */
#define SR_MAX_UNACKED    128
/*
 * A WRITE's ACK waits for the QP's own next request (resp.c, sr_resp_run)
 * this long at most — longer than a consumer thread is preempted by a
 * neighbour's wake-up on a virtual machine (~20 us) — and an eighth of
 * the QP's ACK timeout at most (the peer's is most likely the same).
 */
#define SR_ACK_DEFER_NS   50000
/* ... and only when it answers this many packets at most (a quarter window), */
#define SR_ACK_HOLD_PSNS  (SR_MAX_UNACKED / 4)
/*
 * PSNs a requester may have in flight right after a timeout or a sequence
 * NAK (slow start, sr_req_loss): 16 QPs that each resend a full window
 * into one small queue lose it again at every timeout (issue 20, point 5).
 */
#define SR_CWND_RESTART   4
/*
 * ... and after a timeout, which says even that may not get through: 16
 * QPs restarting with 4 each overflowed a 24 KiB queue again together.
 */
#define SR_CWND_TIMEOUT   1
/*
 * A QP in loss recovery (its window reduced after a loss) whose oldest
 * PSN goes unacknowledged for a round trip and four deviations (at least
 * SR_PROBE_MIN_NS: a peer of ours may hold an ACK 1-2 ms when its consumer
 * stops calling verbs) goes back N again, the wait doubling each time,
 * without spending retry_cnt (comp.c).  Behind a full queue a recovering QP
 * has one packet in flight; when it is dropped nothing else can tell, and
 * 16 QPs spent most of cc_storm waiting out 67 ms timers.
 */
#define SR_PROBE_MIN_NS   4000000ull
#define SR_PROBE_NO_RTT_SHIFT 3       /* no round trip measured: T/8 */
/*
 * ... on a QP whose ACK timeout is this code or more (4.096 us << 12 =
 * 16.8 ms; 0, infinite, too): a consumer that stops calling verbs leaves a
 * held ACK to the shim's helper, which looks in every ~1-2 ms.  perftest
 * and rdma_cm use 14 or more.
 */
#define SR_ACK_HOLD_MIN_TIMEOUT 12

/* Requester: send up to budget packets.  Returns packets sent. */
unsigned int sr_req_run(struct sr_qp *qp, unsigned int budget);
/* Requester: go back to retransmit from comp.psn. */
void sr_req_rewind(struct sr_qp *qp);
/*
 * Requester: a loss (timeout or sequence NAK) — restart with a window of
 * SR_CWND_TIMEOUT or SR_CWND_RESTART PSNs, ssthresh half the data that
 * was in flight.
 */
void sr_req_loss(struct sr_qp *qp, bool timeout);

/* Responder: one request packet. */
void sr_resp_rx(struct sr_qp *qp, const struct sr_pkt *pkt);
/*
 * Responder: pending READ responses and the coalesced ACK; req_sent: the
 * QP's requester sent packets earlier in this round.
 */
unsigned int sr_resp_run(struct sr_qp *qp, unsigned int budget, uint64_t now,
			 bool req_sent);
/* Responder: nanoseconds until the owed ACK must go, UINT64_MAX none. */
uint64_t sr_resp_next_timer(const struct sr_qp *qp, uint64_t now);
/* Send a coalesced ACK that is still owed (destroy calls it). */
void sr_resp_flush_owed_ack(struct sr_qp *qp);
/*
 * Send now the ACK owed for a request that may not wait (not a WRITE's,
 * sr_resp_run), before the QP's requester sends anything new.  1 when
 * one went, else 0.
 */
unsigned int sr_resp_ack_first(struct sr_qp *qp);
/* Responder: resources for max_dest_rd_atomic (slow path). 0 / -ENOMEM. */
int sr_resp_res_alloc(struct sr_qp *qp, uint32_t n);
void sr_resp_reset(struct sr_qp *qp);
/* One UD datagram (SEND_ONLY[_IMM] with DETH) for a UD QP (resp_ud.c). */
void sr_resp_ud(struct sr_qp *qp, const struct sr_pkt *pkt);

/*
 * XRC target (resp_xrc.c): make the SRQ the request's XRCETH names the
 * QP's (qp->srq, and its CQ and PD).  false: no such SRQ, one of another
 * XRC domain, or not the SRQ of the message in progress.
 */
bool sr_resp_xrc_srq(struct sr_qp *qp, const struct sr_pkt *pkt);
/* XRC target: does the request's XRCETH name the QP's current SRQ? */
bool sr_resp_xrc_same_srq(const struct sr_qp *qp, const struct sr_pkt *pkt);

/*
 * A response's opcode: op under the QP's transport (IBA table 38: an XRC
 * target answers with the XRC ACK, READ response and atomic ACK opcodes).
 */
static inline uint8_t sr_resp_opcode(const struct sr_qp *qp, enum sr_op op)
{
	return (uint8_t)((qp->type == SR_QPT_XRC_RECV ? SR_TT_XRC : SR_TT_RC) |
			 (uint8_t)op);
}

/* The responder's receive WQE and its completion (resp.c, resp_ud.c). */

static inline bool sr_resp_get_wqe(struct sr_qp *qp)
{
	if (qp->resp.have_wqe)
		return true;
	if (!sr_qp_take_recv(qp, qp->resp.wqe))
		return false;
	qp->resp.have_wqe = true;
	qp->resp.recv_off = 0;
	return true;
}

static inline void sr_resp_complete(struct sr_qp *qp, struct sr_wc *wc, bool se)
{
	wc->wr_id = qp->resp.wqe->wr_id;
	wc->qp_num = qp->qpn;
	qp->resp.have_wqe = false;
	qp->resp.recv_off = 0;
	sr_qp_cq_push(qp, qp->rcq, wc, se || wc->status != SR_WC_SUCCESS);
}

static inline void sr_resp_complete_err(struct sr_qp *qp, enum sr_wc_status st)
{
	struct sr_wc wc = { .status = st, .opcode = SR_WC_OP_RECV };

	if (qp->resp.have_wqe)
		sr_resp_complete(qp, &wc, true);
}


/* Completer: one response packet (ACK, NAK, READ response, atomic ACK). */
void sr_comp_rx(struct sr_qp *qp, const struct sr_pkt *pkt);
/* Completer: timers and completion of WQEs that need no response. */
unsigned int sr_comp_run(struct sr_qp *qp, uint64_t now);
/* Completer: nanoseconds to the QP's next timer, UINT64_MAX none. */
uint64_t sr_comp_next_timer(const struct sr_qp *qp, uint64_t now);
/* Completer: re-arm the retransmit timer (after sending). */
void sr_comp_arm_timer(struct sr_qp *qp, uint64_t now);
/* A PSN sent for the first time (RC): time its round trip if none is. */
void sr_comp_rtt_start(struct sr_qp *qp, uint32_t psn, uint64_t now);

/* tx.c */
/*
 * Describe a packet of qp to av: addresses, opcode, PSN, the rest zero.
 * To the QP's own address vector (not UD) the addresses stay in the
 * QP's header template, which b then names; the fields are left zero.
 */
void sr_tx_prepare(struct sr_qp *qp, struct sr_build *b,
		   const struct sr_av *av, uint8_t opcode, uint32_t psn);
/*
 * Build and send a frame.  payload: where the payload comes from (one of
 * inline bytes, local SGEs, a remote range); NULL for none.  Returns 0,
 * -EAGAIN (no TX buffer), or a negative enum sr_mr_err (-SR_MR_E_*) when a
 * memory access failed (nothing sent).
 */
struct sr_tx_src {
	const uint8_t *bytes;         /* inline / response bytes, or NULL */
	const struct sr_sge *sge;     /* local SGEs by lkey ... */
	uint32_t nsge;
	uint32_t off;                 /* ... starting at this message offset */
	uint32_t rkey;                /* or a remote range (READ response) */
	uint64_t va;
	bool remote;
};

int sr_tx_send(struct sr_qp *qp, const struct sr_build *b,
	       const struct sr_tx_src *src, uint32_t len);
/*
 * resp_xrc.c: send one READ response of r as sr_tx_send does; an XRC
 * target's reads through the PD of the SRQ the READ named, whatever SRQ
 * later requests named (a duplicate READ is answered again from r).  An
 * SRQ destroyed since makes it a remote access failure.
 */
int sr_resp_read_send(struct sr_qp *qp, const struct sr_resp_res *r,
		      const struct sr_build *b, const struct sr_tx_src *src,
		      uint32_t len);

/* UDP source port of a QP (rdma_get_udp_sport() of Linux). */
uint16_t sr_udp_sport(uint32_t flow_label, uint32_t lqpn, uint32_t rqpn);

/*
 * dma.c: the len payload bytes src names as one piece of host memory the
 * process maps directly, for sending by reference: true with *ref held and
 * *addr set; false (nothing held) when they span SGEs or pages, are on
 * demand, or the lookup fails — the copying path then reports that.
 */
bool sr_dma_piece(struct sr_qp *qp, const struct sr_tx_src *src, uint32_t len,
		  struct sr_mr_ref *ref, const uint8_t **addr);
/* dma.c: copy [off, off + len) of an SGE list from/to buf. */
enum sr_mr_err sr_dma_gather(struct sr_qp *qp, const struct sr_sge *sge,
			     uint32_t nsge, uint32_t off, uint8_t *buf,
			     uint32_t len);
enum sr_mr_err sr_dma_scatter(struct sr_qp *qp, const struct sr_sge *sge,
			      uint32_t nsge, uint32_t off, const uint8_t *buf,
			      uint32_t len);
/* Check that every SGE is usable with access need (0 local read). */
enum sr_mr_err sr_dma_check(struct sr_qp *qp, const struct sr_sge *sge,
			    uint32_t nsge, uint32_t need);
/* Remote range by rkey. */
enum sr_mr_err sr_dma_remote(struct sr_qp *qp, uint32_t rkey, uint64_t va,
			     uint32_t len, uint32_t need, struct sr_mr_ref *ref);

/* The 5-bit RNR timer code (IBTA table 45) in nanoseconds. */
uint64_t sr_rnr_timer_ns(uint8_t code);

#endif /* SR_TRANSPORT_TRANSPORT_H */
