/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * trace.h — the live QP trace: a fixed-size event record per protocol
 * event of a traced QP, written into a per-device lock-free ring that a
 * reader in another process (tools/sroce-stat --trace) empties.
 *
 * Cost: a QP carries a trace flag (sr_dev_trace_qp); every event site is
 * one predictable branch on it, and nothing else runs while it is off.
 *
 * The ring has one producer and one consumer.  The producer is the device's
 * engine: every event is written with a lane lock held (engine rounds,
 * received bursts) or all of them (modify_qp), and with several lanes the
 * device's trace lock too, so engine threads never write at once.  The
 * consumer is the tool.  The producer never waits: when the ring is full it
 * drops the event and counts it; the next event it can write is preceded by
 * one SR_TRACE_LOST record that says how many went missing there.
 *
 * The ring is plain memory with no pointers, so it may live in a shared
 * file (pmd/counters.h places it in the stats file).  Pure C, no DPDK.
 */
#ifndef SR_CORE_TRACE_H
#define SR_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>

/*
 * Why something happened (the %r conversion): X(name, text).  Responder
 * outcomes, go-back-N causes and the reasons a QP enters ERR.
 */
#define SR_TRACE_WHY_LIST(X)                                                 \
	X(NONE, "")                                                          \
	X(EXECUTED, "executed")                                              \
	X(DUP_ACK, "duplicate: ACKed again")                                 \
	X(DUP_READ, "duplicate READ: answered again")                        \
	X(DUP_ANSWER, "duplicate: answered again from the saved result")     \
	X(DUP_DROP, "duplicate with nothing to answer: dropped")             \
	X(BUSY, "refused: READ responses wait for the link")                 \
	X(SEQ_NAK, "out of sequence: sequence NAK sent")                     \
	X(SEQ_DROP, "out of sequence, already NAKed: dropped")               \
	X(RNR, "no receive posted: RNR NAK sent")                            \
	X(INV_REQ, "invalid request: NAK sent, QP to ERR")                   \
	X(REM_ACCESS, "remote access error: NAK sent, QP to ERR")            \
	X(REM_OP, "operational error: NAK sent, QP to ERR")                  \
	X(DROP, "dropped")                                                   \
	X(BY_SEQ_NAK, "sequence NAK")                                        \
	X(BY_TIMEOUT, "retransmit timer")                                    \
	X(BY_RNR, "RNR NAK, rnr_retry used up")                              \
	X(BY_IMPLICIT, "a READ/atomic response missing")                     \
	X(BY_PROBE, "probe: no ACK in loss recovery")                        \
	X(MODIFY, "modify_qp")                                               \
	X(ERR_REQ, "responder: invalid request")                             \
	X(ERR_ACCESS, "responder: remote access error")                      \
	X(ERR_FATAL, "operational error")                                    \
	X(ERR_WQE, "a work request failed, see its completion")

enum sr_trace_why {
#define SR_X(n, t) SR_TRACE_WHY_##n,
	SR_TRACE_WHY_LIST(SR_X)
#undef SR_X
	SR_TRACE_WHY_MAX
};

/*
 * Event kinds: X(name, side, format).  A record carries p (8 bits), f (16
 * bits) and a, b, c, d (32 bits each); the format names them after a
 * conversion letter: %u decimal, %x hex, %o BTH opcode name, %s QP state,
 * %w completion status, %W completion opcode, %k AETH syndrome, %r why
 * (SR_TRACE_WHY_LIST).  "%ua" is field a in decimal, "%op" p's opcode name.
 */
#define SR_TRACE_KINDS(X)                                                    \
	X(LOST, "", "... %ua events lost")                                   \
	X(REQ_SEND, "req", "%op psn=%ua len=%ub window=[%uc..%ud) rd_out=%uf") \
	X(REQ_RESEND, "req",                                                 \
	  "%op psn=%ua len=%ub window=[%uc..%ud) rd_out=%uf (resent)")       \
	X(ACK_RECV, "req", "got %op psn=%ua %kf msn=%ub window=[%uc..%ud)")  \
	X(RESP_RECV, "req", "got %op psn=%ua len=%ub window=[%uc..%ud)")     \
	X(NAK_RECV, "req", "got %kf psn=%ua msn=%ub")                    \
	X(RNR_RECV, "req",                                                   \
	  "got %kf psn=%ua msn=%ub: wait %uc us, rnr retries left %ud")      \
	X(DUP_RECV, "req", "%op psn=%ua was a duplicate or stale: ignored")   \
	X(RETX_TIMER, "req",                                                 \
	  "retransmit timer fired: oldest unacked psn=%ua, next psn=%ub, retries left %uc") \
	X(RNR_TIMER, "req",                                                  \
	  "RNR timer fired: resend from psn=%ua, rnr retries left %uc")     \
	X(GO_BACK, "req",                                                    \
	  "go-back-N from psn=%ua (%rf), next psn was %ub, retries left %uc") \
	X(RETRY_EXC, "req", "retries exhausted at psn=%ua (%rf)")            \
	X(RESP_REQ, "resp", "%op psn=%ua len=%ub expected=%uc: %rf")         \
	X(RESP_SEND, "resp", "sent %op psn=%ua %kf msn=%ub")                 \
	X(STATE, "qp", "%sf -> %sp (%ra)")                                   \
	X(COMP, "comp", "%Wf %wp len=%ua wr_id=%xb")

enum sr_trace_kind {
#define SR_X(n, side, fmt) SR_TRACE_##n,
	SR_TRACE_KINDS(SR_X)
#undef SR_X
	SR_TRACE_KIND_MAX
};

/* One event: 32 bytes. */
struct sr_trace_rec {
	uint64_t t_ns;                /* the device's clock */
	uint32_t qpn;
	uint8_t kind;                 /* enum sr_trace_kind */
	uint8_t p;
	uint16_t f;
	uint32_t a, b, c, d;
};

_Static_assert(sizeof(struct sr_trace_rec) == 32, "trace record is 32 bytes");

#define SR_TRACE_RING_LEN 4096u      /* records; a power of two */

struct sr_trace_ring {
	uint64_t head;                /* producer: records written */
	uint64_t lost;                /* producer: records dropped, in all */
	uint32_t len;                 /* SR_TRACE_RING_LEN */
	uint32_t pending_lost;        /* producer: dropped, not yet reported */
	uint8_t pad0[40];
	uint64_t tail;                /* consumer: records read */
	uint8_t pad1[56];
	struct sr_trace_rec rec[SR_TRACE_RING_LEN];
};

/* Empty the ring (before the producer or consumer use it). */
void sr_trace_ring_init(struct sr_trace_ring *r);

/*
 * Producer: append e, or count it lost when the ring is full.  The first
 * record after a loss is an SR_TRACE_LOST record (a = how many).
 */
void sr_trace_put(struct sr_trace_ring *r, const struct sr_trace_rec *e);

/* Consumer: take up to max records, oldest first.  Returns how many. */
unsigned int sr_trace_get(struct sr_trace_ring *r, struct sr_trace_rec *out,
			  unsigned int max);

/* Consumer: forget what is in the ring now (a tracer starting). */
void sr_trace_skip(struct sr_trace_ring *r);

/* The kind's name ("REQ_SEND"), side ("req") and format; NULL past the end. */
const char *sr_trace_kind_name(unsigned int kind);
const char *sr_trace_kind_side(unsigned int kind);
const char *sr_trace_kind_format(unsigned int kind);
const char *sr_trace_why_str(unsigned int why);

/*
 * One line for a student, without a newline:
 *   "12.004311 qp 0x11 req  SEND_ONLY psn=105 len=64 window=[100..106) rd_out=0"
 * The time is seconds since t0_ns.  Returns the length (truncated to len).
 */
int sr_trace_format(const struct sr_trace_rec *e, uint64_t t0_ns, char *buf,
		    size_t len);

#endif /* SR_CORE_TRACE_H */
