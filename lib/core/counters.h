/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * counters.h — every transport counter, from one list.
 *
 * Each QP keeps the whole array and the device keeps the sum (each event
 * bumps both); device-only events (frames that reach no QP) have no QP to
 * count in.  Frames the parser refused are counted per reason in a second
 * array indexed by enum sr_parse_result (wire/parse.h).
 *
 * Only the engine writes a counter (single writer, relaxed stores); any
 * thread may read them at any time through sr_qp_counters() and
 * sr_dev_counters().
 */
#ifndef SR_CORE_COUNTERS_H
#define SR_CORE_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

/* X(name, text) */
#define SR_COUNTER_LIST(X)                                                  \
	X(TX_PKTS, "packets sent")                                          \
	X(TX_BYTES, "payload bytes sent")                                   \
	X(RX_PKTS, "packets received for a QP")                             \
	X(RX_BYTES, "payload bytes received")                               \
	X(TX_NOBUF, "transmit buffer not available (retried later)")       \
	X(REQ_DUP, "duplicate requests (re-ACKed or answered again)")       \
	X(REQ_DUP_DROP, "duplicate requests with nothing to answer")        \
	X(SEQ_ERR, "PSN sequence errors detected by the responder")         \
	X(SEQ_NAK_SENT, "PSN sequence error NAKs sent")                     \
	X(SEQ_NAK_RCVD, "PSN sequence error NAKs received")                 \
	X(RNR_NAK_SENT, "RNR NAKs sent")                                    \
	X(RNR_NAK_RCVD, "RNR NAKs received")                                \
	X(ERR_NAK_SENT, "error NAKs sent (invalid, access, operational)")   \
	X(ERR_NAK_RCVD, "error NAKs received")                              \
	X(ACK_SENT, "ACKs sent")                                            \
	X(ACK_RCVD, "ACKs and responses received")                          \
	X(ACK_COALESCED, "ACK requests answered by a later ACK")            \
	X(RETRY, "retransmissions started (NAK, implicit NAK, timeout, probe)") \
	X(TIMEOUT, "retransmit timer expiries")                             \
	X(PROBE, "probes: go-back-N in loss recovery, retry_cnt not spent") \
	X(RETRY_HELD, "timeouts that resent no READ/atomic (2nd, 4th, 8th... do)") \
	X(RNR_RETRY, "retransmissions after an RNR wait")                   \
	X(RETRY_EXC, "retry_cnt exhausted")                                 \
	X(RNR_RETRY_EXC, "rnr_retry exhausted")                             \
	X(READ_RESUME, "READ requests resent to resume a response")         \
	X(RESP_BUSY_DROP, "requests refused while READ responses wait for the link") \
	X(GHOST_RESP, "responses for nothing outstanding")                  \
	X(UC_MSG_DROP, "UC messages dropped after a lost packet")           \
	X(UD_QKEY_DROP, "UD packets with a wrong Q_Key")                    \
	X(UD_NO_RECV_DROP, "UD packets with no receive posted")             \
	X(BAD_STATE_DROP, "packets for a QP in a state that drops them")    \
	X(OPCODE_DROP, "opcodes the QP type does not carry")                \
	X(PKEY_DROP, "packets with a P_Key that does not match")            \
	X(ADDR_DROP, "RC/UC packets from or to an address not the QP's path") \
	X(FLUSHED, "work requests flushed by ERR")                          \
	X(CQ_OVERFLOW, "completions lost to a full CQ")                     \
	X(UNKNOWN_QP, "packets for a QP that does not exist")               \
	X(MGMT_QP_DROP, "packets for QP0/QP1 (no management QP here)")      \
	X(CE_RCVD, "packets received marked CE (congestion experienced)")   \
	X(CNP_SENT, "CNPs sent (congestion notification point)")            \
	X(CNP_RCVD, "CNPs received for an RC/UC QP (reaction point)")       \
	X(CNP_DROP, "CNPs dropped: UD QP, or congestion control off")       \
	X(NOT_ROCE, "frames that are not RoCEv2")                           \
	X(PARSE_DROP, "RoCEv2 frames the parser refused (see per reason)")  \
	X(XRC_SRQ_NAK, "XRC requests NAKed: no SRQ of the target's domain") \
	X(MCAST_RCVD, "datagrams received for a multicast group joined here") \
	X(MCAST_DROP, "multicast-QPN packets for no group joined here, or not UD")

enum sr_counter {
#define SR_X(n, t) SR_CNT_##n,
	SR_COUNTER_LIST(SR_X)
#undef SR_X
	SR_CNT_MAX
};

const char *sr_counter_name(enum sr_counter c);
const char *sr_counter_text(enum sr_counter c);

typedef _Atomic uint64_t sr_counter_t;

/* Single writer: a relaxed load and store, no locked instruction. */
static inline void sr_counter_add(sr_counter_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

#endif /* SR_CORE_COUNTERS_H */
