/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wr.h — work requests and completions of the transport.
 *
 * These mirror ibverbs (struct ibv_send_wr, ibv_recv_wr, ibv_sge, ibv_wc)
 * closely so that the verbs shim translates field by field: every enum
 * below carries the numeric value of its ibverbs twin, so a cast is the
 * translation.  Differences from ibverbs, on purpose:
 *   - imm_data is in host byte order in both WRs and WCs (the transport
 *     puts it on the wire big-endian); ibverbs keeps __be32.
 *   - a UD send carries its address vector by pointer (struct sr_av),
 *     copied into the WQE at post time; there is no AH object here.
 *   - the memory-engine requests (REG_MR, BIND_MW, LOCAL_INV) carry
 *     pointers to lib/mr objects.
 */
#ifndef SR_QP_WR_H
#define SR_QP_WR_H

#include <stdbool.h>
#include <stdint.h>

struct sr_mr;
struct sr_mw;

/* Address vector: what the pmd resolved (MAC) and what the QP sends to. */
struct sr_av {
	uint8_t dmac[6];      /* destination MAC (the pmd's ARP/ND result)   */
	uint8_t sgid_index;   /* index into the device's GID table           */
	uint8_t hop_limit;    /* IPv4 TTL / IPv6 hop limit                   */
	uint8_t dgid[16];     /* destination GID; ::ffff:a.b.c.d is IPv4     */
	uint8_t tclass;       /* IPv4 TOS / IPv6 traffic class               */
	uint32_t flow_label;  /* IPv6 flow label; also picks the UDP sport   */
	bool vlan;            /* send 802.1Q tagged                          */
	uint16_t vlan_tci;
	uint8_t static_rate;  /* IBA static rate (enum ibv_rate), 0: none;
			       * an RC/UC QP's paces it (cc/hooks.c)       */
};

struct sr_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/* X(name, ibv value, text): enum ibv_wc_status, every value. */
#define SR_WC_STATUS_LIST(X)                                             \
	X(SUCCESS, 0, "success")                                         \
	X(LOC_LEN_ERR, 1, "local length error")                          \
	X(LOC_QP_OP_ERR, 2, "local QP operation error")                  \
	X(LOC_EEC_OP_ERR, 3, "local EE context operation error")         \
	X(LOC_PROT_ERR, 4, "local protection error")                     \
	X(WR_FLUSH_ERR, 5, "Work Request Flushed Error")                 \
	X(MW_BIND_ERR, 6, "memory management operation error")           \
	X(BAD_RESP_ERR, 7, "bad response error")                         \
	X(LOC_ACCESS_ERR, 8, "local access error")                       \
	X(REM_INV_REQ_ERR, 9, "remote invalid request error")            \
	X(REM_ACCESS_ERR, 10, "remote access error")                     \
	X(REM_OP_ERR, 11, "remote operation error")                      \
	X(RETRY_EXC_ERR, 12, "transport retry counter exceeded")         \
	X(RNR_RETRY_EXC_ERR, 13, "RNR retry counter exceeded")           \
	X(LOC_RDD_VIOL_ERR, 14, "local RDD violation error")             \
	X(REM_INV_RD_REQ_ERR, 15, "remote invalid RD request")           \
	X(REM_ABORT_ERR, 16, "aborted error")                            \
	X(INV_EECN_ERR, 17, "invalid EE context number")                 \
	X(INV_EEC_STATE_ERR, 18, "invalid EE context state")             \
	X(FATAL_ERR, 19, "fatal error")                                  \
	X(RESP_TIMEOUT_ERR, 20, "response timeout error")                \
	X(GENERAL_ERR, 21, "general error")                              \
	X(TM_ERR, 22, "TM error")                                        \
	X(TM_RNDV_INCOMPLETE, 23, "TM software rendezvous")

enum sr_wc_status {
#define SR_X(n, v, t) SR_WC_##n = v,
	SR_WC_STATUS_LIST(SR_X)
#undef SR_X
	SR_WC_STATUS_MAX
};

const char *sr_wc_status_str(enum sr_wc_status s);

/* X(name, ibv value): enum ibv_wc_opcode, plus REG_MR (ib_wc_opcode). */
#define SR_WC_OPCODE_LIST(X)                                             \
	X(SEND, 0)                                                       \
	X(RDMA_WRITE, 1)                                                 \
	X(RDMA_READ, 2)                                                  \
	X(COMP_SWAP, 3)                                                  \
	X(FETCH_ADD, 4)                                                  \
	X(BIND_MW, 5)                                                    \
	X(LOCAL_INV, 6)                                                  \
	X(TSO, 7)                                                        \
	X(FLUSH, 8)                                                      \
	X(ATOMIC_WRITE, 9)                                               \
	X(REG_MR, 10)                                                    \
	X(RECV, 128)                                                     \
	X(RECV_RDMA_WITH_IMM, 129)

enum sr_wc_opcode {
#define SR_X(n, v) SR_WC_OP_##n = v,
	SR_WC_OPCODE_LIST(SR_X)
#undef SR_X
};

/*
 * X(name, ibv value, completion opcode): enum
 * ibv_wr_opcode values; REG_MR takes the kernel's IB_WR_REG_MR value.
 */
#define SR_WR_OPCODE_LIST(X)                                             \
	X(RDMA_WRITE, 0, RDMA_WRITE)                                     \
	X(RDMA_WRITE_WITH_IMM, 1, RDMA_WRITE)                            \
	X(SEND, 2, SEND)                                                 \
	X(SEND_WITH_IMM, 3, SEND)                                        \
	X(RDMA_READ, 4, RDMA_READ)                                       \
	X(ATOMIC_CMP_AND_SWP, 5, COMP_SWAP)                              \
	X(ATOMIC_FETCH_AND_ADD, 6, FETCH_ADD)                            \
	X(LOCAL_INV, 7, LOCAL_INV)                                       \
	X(BIND_MW, 8, BIND_MW)                                           \
	X(SEND_WITH_INV, 9, SEND)                                        \
	X(FLUSH, 14, FLUSH)                                              \
	X(ATOMIC_WRITE, 15, ATOMIC_WRITE)                                \
	X(REG_MR, 32, REG_MR)

enum sr_wr_opcode {
#define SR_X(n, v, wc) SR_WR_##n = v,
	SR_WR_OPCODE_LIST(SR_X)
#undef SR_X
	SR_WR_OPCODE_MAX = 33
};

const char *sr_wr_opcode_str(enum sr_wr_opcode op);

/* send_flags: enum ibv_send_flags values. */
#define SR_SEND_FENCE     0x01u
#define SR_SEND_SIGNALED  0x02u
#define SR_SEND_SOLICITED 0x04u
#define SR_SEND_INLINE    0x08u

/* wc_flags: enum ibv_wc_flags values. */
#define SR_WC_GRH         0x01u
#define SR_WC_WITH_IMM    0x02u
#define SR_WC_WITH_INV    0x08u

/* FLUSH: type (ibv_flush_type) and level (ibv_flush_level). */
#define SR_FLUSH_GLOBAL     1u /* selectivity: global visibility          */
#define SR_FLUSH_PERSISTENT 2u /* selectivity: persistence                */
#define SR_FLUSH_RANGE      0u /* level: the given range                  */
#define SR_FLUSH_MR         1u /* level: the whole memory region          */

struct sr_send_wr {
	uint64_t wr_id;
	struct sr_send_wr *next;
	struct sr_sge *sg_list;
	int num_sge;
	enum sr_wr_opcode opcode;
	unsigned int send_flags;
	uint32_t xrc_srqn;            /* XRC_SEND: the remote SRQ (24 bits) */
	union {
		uint32_t imm_data;        /* host order */
		uint32_t invalidate_rkey; /* SEND_WITH_INV, LOCAL_INV */
	};
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			const struct sr_av *av;
			uint32_t remote_qpn;
			uint32_t remote_qkey; /* high bit set: use the QP's Q_Key */
		} ud;
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
			uint32_t length;
			uint8_t type;  /* SR_FLUSH_GLOBAL | SR_FLUSH_PERSISTENT */
			uint8_t level; /* SR_FLUSH_RANGE or SR_FLUSH_MR         */
		} flush;
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
			uint8_t data[8];   /* the 8 bytes written, wire order */
		} atomic_write;
		struct {
			/* fast-register (sr_frmr_fast_register): the page
			 * array must stay valid until the WR completes */
			struct sr_mr *mr;
			const uint64_t *pages;
			uint32_t npages;
			uint32_t fbo;
			uint64_t length;
			uint64_t iova;
			uint32_t access;   /* SR_ACCESS_* */
			uint32_t key;      /* the MR's index, new key byte */
		} reg;
		struct {
			struct sr_mw *mw;  /* type 2 window */
			uint32_t rkey;     /* window's index, new key byte */
			struct sr_mr *mr;
			uint64_t addr;
			uint64_t length;
			uint32_t access;   /* SR_ACCESS_REMOTE_*, ZERO_BASED */
		} bind_mw;
	} wr;
};

struct sr_recv_wr {
	uint64_t wr_id;
	struct sr_recv_wr *next;
	struct sr_sge *sg_list;
	int num_sge;
};

struct sr_wc {
	uint64_t wr_id;
	enum sr_wc_status status;
	enum sr_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	union {
		uint32_t imm_data;        /* host order, with SR_WC_WITH_IMM */
		uint32_t invalidated_rkey; /* with SR_WC_WITH_INV */
	};
	uint32_t qp_num;
	uint32_t src_qp;
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;                   /* UD over RoCE: SR_WC_SL_ROCEV2_* */
	uint8_t dlid_path_bits;
	/* the device clock (ns) when the completion was made: on a CQ that
	 * stamps (sr_cq_stamp), else 0 */
	uint64_t timestamp;
};

/*
 * A UD receive over RoCE has no SL to report; its sl carries the packet's
 * network header type as mlx5 reports it (bit 3: a UDP header, RoCEv2;
 * bits 2:0: 1 IPv6, 2 IPv4, 0 GRH of RoCE v1), which UCX reads to find the
 * destination address in the GRH area.
 */
#define SR_WC_SL_ROCEV2_IPV6 0x9
#define SR_WC_SL_ROCEV2_IPV4 0xa

#endif /* SR_QP_WR_H */
