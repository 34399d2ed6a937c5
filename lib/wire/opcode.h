/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * opcode.h — the IBA opcode table, from one list.
 *
 * An 8-bit BTH opcode is a transport (bits 7..5) and an operation (bits
 * 4..0).  SR_OPS below is the single source of truth for the operations:
 * the enum, the names and every opcode's header layout expand from it.  Each
 * opcode's extension headers come from its header mask; their offsets follow
 * from SR_EXT_HDRS, which lists the headers in wire order (IBA 9.2, A17).
 * Nothing here types an offset by hand.
 */
#ifndef SR_WIRE_OPCODE_H
#define SR_WIRE_OPCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SR_BTH_LEN  12
#define SR_ICRC_LEN 4

/*
 * Extension transport headers in wire order: X(name, bytes, struct sr_<s>, a),
 * a being whatever the user of the list passes through.
 */
#define SR_EXT_HDRS(X, a)                                                   \
	X(RDETH, 4, rdeth, a)   /* reliable datagram: EE context          */        \
	X(DETH, 8, deth, a)    /* datagram: Q_Key, source QP             */        \
	X(XRCETH, 4, xrceth, a)  /* XRC: destination SRQ                   */        \
	X(FETH, 4, feth, a)    /* IBTA 1.5 FLUSH: selectivity, placement */        \
	X(RETH, 16, reth, a)   /* RDMA: VA, R_Key, DMA length            */        \
	X(ATMETH, 28, atmeth, a) /* atomic: VA, R_Key, swap/add, compare   */        \
	X(AETH, 4, aeth, a)    /* ACK: syndrome, MSN                     */        \
	X(ATMACK, 8, atmack, a)  /* atomic ACK: original remote data       */        \
	X(IMMDT, 4, immdt, a)   /* immediate data                         */        \
	X(IETH, 4, ieth, a)    /* invalidate: R_Key                      */

enum sr_ext {
#define SR_X_ENUM(n, len, s, a) SR_EXT_##n,
	SR_EXT_HDRS(SR_X_ENUM, _)
#undef SR_X_ENUM
	SR_EXT_MAX
};

enum sr_ext_len {
#define SR_X_LEN(n, len, s, a) SR_EXT_LEN_##n = len,
	SR_EXT_HDRS(SR_X_LEN, _)
#undef SR_X_LEN
};

#define SR_HDR(n) (1u << SR_EXT_##n)

/* Transports: the opcode's top three bits (IBA table 38). */
#define SR_TRANSPORTS(X)                 \
	X(RC, 0x00, "RC")                \
	X(UC, 0x20, "UC")                \
	X(RD, 0x40, "RD")                \
	X(UD, 0x60, "UD")                \
	X(CNP, 0x80, "CNP")              \
	X(XRC, 0xa0, "XRC")

enum sr_transport {
#define SR_X_ENUM(n, base, str) SR_TT_##n = base,
	SR_TRANSPORTS(SR_X_ENUM)
#undef SR_X_ENUM
};

#define SR_TT_MASK 0xe0u

/* What an opcode does, for the state machines' tables. */
enum sr_op_kind {
	SR_KIND_SEND,
	SR_KIND_WRITE,
	SR_KIND_READ_REQ,
	SR_KIND_READ_RESP,
	SR_KIND_ACK,
	SR_KIND_ATOMIC,
	SR_KIND_ATOMIC_ACK,
	SR_KIND_FLUSH,
	SR_KIND_ATOMIC_WRITE,
	SR_KIND_CNP,
	SR_KIND_MAX
};

/* Where a packet sits in its message. */
enum sr_op_pos {
	SR_POS_FIRST,
	SR_POS_MIDDLE,
	SR_POS_LAST,
	SR_POS_ONLY,
	SR_POS_MAX
};

/* Opcode flags. */
#define SR_OPF_PAYLOAD  0x01u /* carries a payload                        */
#define SR_OPF_REQ      0x02u /* sent by a requester                      */
#define SR_OPF_RESP     0x04u /* sent by a responder (ACK, READ response) */
#define SR_OPF_IMM      0x08u /* carries immediate data                   */
#define SR_OPF_INV      0x10u /* carries an R_Key to invalidate           */
#define SR_OPF_CONSUME  0x20u /* consumes a receive WQE at the responder  */

/* Transports an operation exists in. */
#define SR_IN_RC  0x01u
#define SR_IN_UC  0x02u
#define SR_IN_UD  0x04u
#define SR_IN_XRC 0x08u
#define SR_IN_RCX (SR_IN_RC | SR_IN_XRC)
#define SR_IN_CONN (SR_IN_RC | SR_IN_UC | SR_IN_XRC)

#define SR_F_SEND   (SR_OPF_PAYLOAD | SR_OPF_REQ)
#define SR_F_WRITE  (SR_OPF_PAYLOAD | SR_OPF_REQ)

/*
 * X(op, code, name, kind, pos, headers, flags, transports)
 * code is the low five bits; headers are those of RC: the transport adds
 * DETH (UD) or XRCETH (XRC requests) to them.
 */
#define SR_OPS(X)                                                              \
	X(SEND_FIRST, 0x00, "SEND_FIRST", SEND, FIRST, 0,                      \
	  SR_F_SEND, SR_IN_CONN)                                               \
	X(SEND_MIDDLE, 0x01, "SEND_MIDDLE", SEND, MIDDLE, 0,                   \
	  SR_F_SEND, SR_IN_CONN)                                               \
	X(SEND_LAST, 0x02, "SEND_LAST", SEND, LAST, 0,                         \
	  SR_F_SEND | SR_OPF_CONSUME, SR_IN_CONN)                              \
	X(SEND_LAST_IMM, 0x03, "SEND_LAST_WITH_IMMEDIATE", SEND, LAST,          \
	  SR_HDR(IMMDT), SR_F_SEND | SR_OPF_IMM | SR_OPF_CONSUME, SR_IN_CONN)  \
	X(SEND_ONLY, 0x04, "SEND_ONLY", SEND, ONLY, 0,                         \
	  SR_F_SEND | SR_OPF_CONSUME, SR_IN_CONN | SR_IN_UD)                   \
	X(SEND_ONLY_IMM, 0x05, "SEND_ONLY_WITH_IMMEDIATE", SEND, ONLY,          \
	  SR_HDR(IMMDT), SR_F_SEND | SR_OPF_IMM | SR_OPF_CONSUME,              \
	  SR_IN_CONN | SR_IN_UD)                                               \
	X(WRITE_FIRST, 0x06, "WRITE_FIRST", WRITE, FIRST, SR_HDR(RETH),        \
	  SR_F_WRITE, SR_IN_CONN)                                              \
	X(WRITE_MIDDLE, 0x07, "WRITE_MIDDLE", WRITE, MIDDLE, 0,                \
	  SR_F_WRITE, SR_IN_CONN)                                              \
	X(WRITE_LAST, 0x08, "WRITE_LAST", WRITE, LAST, 0,                      \
	  SR_F_WRITE, SR_IN_CONN)                                              \
	X(WRITE_LAST_IMM, 0x09, "WRITE_LAST_WITH_IMMEDIATE", WRITE, LAST,       \
	  SR_HDR(IMMDT), SR_F_WRITE | SR_OPF_IMM | SR_OPF_CONSUME, SR_IN_CONN) \
	X(WRITE_ONLY, 0x0a, "WRITE_ONLY", WRITE, ONLY, SR_HDR(RETH),           \
	  SR_F_WRITE, SR_IN_CONN)                                              \
	X(WRITE_ONLY_IMM, 0x0b, "WRITE_ONLY_WITH_IMMEDIATE", WRITE, ONLY,       \
	  SR_HDR(RETH) | SR_HDR(IMMDT),                                        \
	  SR_F_WRITE | SR_OPF_IMM | SR_OPF_CONSUME, SR_IN_CONN)                \
	X(READ_REQUEST, 0x0c, "READ_REQUEST", READ_REQ, ONLY, SR_HDR(RETH),    \
	  SR_OPF_REQ, SR_IN_RCX)                                               \
	X(READ_RESPONSE_FIRST, 0x0d, "READ_RESPONSE_FIRST", READ_RESP, FIRST,  \
	  SR_HDR(AETH), SR_OPF_PAYLOAD | SR_OPF_RESP, SR_IN_RCX)               \
	X(READ_RESPONSE_MIDDLE, 0x0e, "READ_RESPONSE_MIDDLE", READ_RESP,       \
	  MIDDLE, 0, SR_OPF_PAYLOAD | SR_OPF_RESP, SR_IN_RCX)                  \
	X(READ_RESPONSE_LAST, 0x0f, "READ_RESPONSE_LAST", READ_RESP, LAST,     \
	  SR_HDR(AETH), SR_OPF_PAYLOAD | SR_OPF_RESP, SR_IN_RCX)               \
	X(READ_RESPONSE_ONLY, 0x10, "READ_RESPONSE_ONLY", READ_RESP, ONLY,     \
	  SR_HDR(AETH), SR_OPF_PAYLOAD | SR_OPF_RESP, SR_IN_RCX)               \
	X(ACKNOWLEDGE, 0x11, "ACKNOWLEDGE", ACK, ONLY, SR_HDR(AETH),           \
	  SR_OPF_RESP, SR_IN_RCX)                                              \
	X(ATOMIC_ACKNOWLEDGE, 0x12, "ATOMIC_ACKNOWLEDGE", ATOMIC_ACK, ONLY,    \
	  SR_HDR(AETH) | SR_HDR(ATMACK), SR_OPF_RESP, SR_IN_RCX)               \
	X(COMPARE_SWAP, 0x13, "COMPARE_SWAP", ATOMIC, ONLY, SR_HDR(ATMETH),    \
	  SR_OPF_REQ, SR_IN_RCX)                                               \
	X(FETCH_ADD, 0x14, "FETCH_ADD", ATOMIC, ONLY, SR_HDR(ATMETH),          \
	  SR_OPF_REQ, SR_IN_RCX)                                               \
	X(SEND_LAST_INV, 0x16, "SEND_LAST_WITH_INVALIDATE", SEND, LAST,         \
	  SR_HDR(IETH), SR_F_SEND | SR_OPF_INV | SR_OPF_CONSUME, SR_IN_RCX)    \
	X(SEND_ONLY_INV, 0x17, "SEND_ONLY_WITH_INVALIDATE", SEND, ONLY,         \
	  SR_HDR(IETH), SR_F_SEND | SR_OPF_INV | SR_OPF_CONSUME, SR_IN_RCX)    \
	X(FLUSH, 0x1c, "FLUSH", FLUSH, ONLY, SR_HDR(FETH) | SR_HDR(RETH),      \
	  SR_OPF_REQ, SR_IN_RCX)                                               \
	X(ATOMIC_WRITE, 0x1d, "ATOMIC_WRITE", ATOMIC_WRITE, ONLY,              \
	  SR_HDR(RETH), SR_OPF_PAYLOAD | SR_OPF_REQ, SR_IN_RCX)

/* Operation codes (low five bits). */
enum sr_op {
#define SR_X_ENUM(op, code, name, kind, pos, hdrs, flags, in) \
	SR_OP_##op = code,
	SR_OPS(SR_X_ENUM)
#undef SR_X_ENUM
};

/* Full opcodes used by name in the code: RC_x, UC_x, UD_x, XRC_x. */
#define SR_OPCODE(tt, op) ((uint8_t)(SR_TT_##tt | SR_OP_##op))
#define SR_OPCODE_CNP 0x81u

/* The CNP (RoCEv2 congestion notification) carries 16 reserved bytes. */
#define SR_CNP_PAYLOAD 16

struct sr_opcode_info {
	const char *name;        /* "SEND_FIRST"; NULL: not a valid opcode */
	uint8_t kind;            /* enum sr_op_kind */
	uint8_t pos;             /* enum sr_op_pos */
	uint8_t flags;           /* SR_OPF_* */
	uint8_t hdr_len;         /* BTH and extension headers */
	uint16_t hdrs;           /* SR_HDR() mask */
	uint8_t ext[SR_EXT_MAX]; /* each header's offset from the BTH; 0: absent */
};

extern const struct sr_opcode_info sr_opcode_table[256];

static inline const struct sr_opcode_info *sr_opcode_info(uint8_t opcode)
{
	const struct sr_opcode_info *info = &sr_opcode_table[opcode];

	return info->name != NULL ? info : NULL;
}

const char *sr_transport_name(uint8_t opcode);
const char *sr_ext_name(enum sr_ext ext);

/* Bytes of the extension headers in mask hdrs. */
#define SR_X_MLEN(n, len, s, m) + (((m) >> SR_EXT_##n & 1u) * (len))
#define SR_EXT_MASK_LEN(hdrs) (0 SR_EXT_HDRS(SR_X_MLEN, hdrs))

/*
 * Offsets from the BTH of the headers in mask hdrs, in wire order; 0 for a
 * header that is absent.  The parser does this once per packet.
 */
static inline void sr_ext_layout(uint16_t hdrs, uint8_t off[SR_EXT_MAX])
{
	static const uint8_t len[SR_EXT_MAX] = {
#define SR_X_LENTAB(n, l, s, a) [SR_EXT_##n] = l,
		SR_EXT_HDRS(SR_X_LENTAB, _)
#undef SR_X_LENTAB
	};
	uint8_t at = SR_BTH_LEN;
	unsigned int k;

	for (k = 0; k < SR_EXT_MAX; k++) {
		off[k] = (hdrs >> k & 1u) ? at : 0;
		at += (hdrs >> k & 1u) ? len[k] : 0;
	}
}

#endif /* SR_WIRE_OPCODE_H */
