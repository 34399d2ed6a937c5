/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qp.h — queue pairs: RC, UC, UD and XRC, their states and attributes.
 *
 * Mirrors ibverbs (ibv_create_qp, ibv_modify_qp, ibv_post_send/recv): the
 * enums carry ibverbs' numeric values and the attribute mask its bits, so
 * the verbs shim translates by assignment.
 *
 * State machine: sr_qp_modify() accepts exactly the transitions of IBTA
 * 10.3.1 / ibv_modify_qp with their required and optional attributes (one
 * table, qp.c).  Any state may go to RESET or ERR.  Entering ERR (by
 * modify or by a protocol error) flushes every outstanding send and
 * receive WQE with SR_WC_WR_FLUSH_ERR completions; the flush is done by
 * the engine on its next run, so completions arrive in order.
 *
 * Threading (see core/dev.h): post_send and post_recv are lock-free, one
 * thread per queue; create/modify/query/destroy are slow path.
 */
#ifndef SR_QP_QP_H
#define SR_QP_QP_H

#include <stdbool.h>
#include <stdint.h>

#include "core/counters.h"
#include "qp/wr.h"

struct sr_dev;
struct sr_pd;
struct sr_cq;
struct sr_srq;
struct sr_qp;
struct sr_xrcd;

/*
 * XRC (IBA ch. 9 and 14, eXtended Reliable Connected): an initiator
 * (XRC_SEND) is an RC requester with a send queue only, each request
 * carrying the remote SRQ number of its WR (sr_send_wr.xrc_srqn) in an
 * XRCETH; a target (XRC_RECV) is an RC responder with no queue of its own,
 * owned by an XRC domain (qp/xrcd.h), that takes each message's receive
 * WQE from the SRQ its XRCETH names — an SRQ of the same domain, else the
 * request is NAKed invalid — and completes it into that SRQ's CQ.  Memory
 * accesses at the target are checked against that SRQ's PD.
 */
enum sr_qp_type {
	SR_QPT_RC = 2,
	SR_QPT_UC = 3,
	SR_QPT_UD = 4,
	SR_QPT_XRC_SEND = 9,
	SR_QPT_XRC_RECV = 10,
};

/* X(name, ibv value) */
#define SR_QP_STATE_LIST(X)  \
	X(RESET, 0)          \
	X(INIT, 1)           \
	X(RTR, 2)            \
	X(RTS, 3)            \
	X(SQD, 4)            \
	X(SQE, 5)            \
	X(ERR, 6)

enum sr_qp_state {
#define SR_X(n, v) SR_QPS_##n = v,
	SR_QP_STATE_LIST(SR_X)
#undef SR_X
	SR_QPS_MAX
};

const char *sr_qp_state_str(enum sr_qp_state s);

/* ibv_mtu values: 1 = 256 .. 5 = 4096. */
enum sr_mtu {
	SR_MTU_256 = 1,
	SR_MTU_512 = 2,
	SR_MTU_1024 = 3,
	SR_MTU_2048 = 4,
	SR_MTU_4096 = 5,
};

static inline uint32_t sr_mtu_bytes(enum sr_mtu m)
{
	return 128u << m;
}

/* X(name, ibv bit): enum ibv_qp_attr_mask, those that mean something here. */
#define SR_QP_ATTR_LIST(X)               \
	X(STATE, 1u << 0)                \
	X(CUR_STATE, 1u << 1)            \
	X(EN_SQD_ASYNC_NOTIFY, 1u << 2)  \
	X(ACCESS_FLAGS, 1u << 3)         \
	X(PKEY_INDEX, 1u << 4)           \
	X(PORT, 1u << 5)                 \
	X(QKEY, 1u << 6)                 \
	X(AV, 1u << 7)                   \
	X(PATH_MTU, 1u << 8)             \
	X(TIMEOUT, 1u << 9)              \
	X(RETRY_CNT, 1u << 10)           \
	X(RNR_RETRY, 1u << 11)           \
	X(RQ_PSN, 1u << 12)              \
	X(MAX_QP_RD_ATOMIC, 1u << 13)    \
	X(ALT_PATH, 1u << 14)            \
	X(MIN_RNR_TIMER, 1u << 15)       \
	X(SQ_PSN, 1u << 16)              \
	X(MAX_DEST_RD_ATOMIC, 1u << 17)  \
	X(PATH_MIG_STATE, 1u << 18)      \
	X(CAP, 1u << 19)                 \
	X(DEST_QPN, 1u << 20)

enum sr_qp_attr_mask {
#define SR_X(n, v) SR_QP_##n = v,
	SR_QP_ATTR_LIST(SR_X)
#undef SR_X
};

struct sr_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

#define SR_QP_MAX_SGE        32
#define SR_QP_MAX_INLINE     1024
#define SR_QP_MIN_INLINE     64     /* what a QP gets when it asks less */
#define SR_QP_MAX_WR         (1u << 16)
#define SR_QP_MAX_RD_ATOMIC  16

struct sr_qp_init_attr {
	void *qp_context;
	struct sr_cq *send_cq;       /* NULL for XRC_RECV */
	struct sr_cq *recv_cq;       /* NULL for XRC_SEND and XRC_RECV */
	struct sr_srq *srq;          /* NULL: the QP has its own RQ */
	struct sr_pd *pd;            /* NULL for XRC_RECV */
	struct sr_xrcd *xrcd;        /* XRC_RECV only: its domain */
	struct sr_qp_cap cap;        /* max_* rounded up on return */
	enum sr_qp_type qp_type;
	bool sq_sig_all;
};

struct sr_qp_attr {
	enum sr_qp_state qp_state;
	enum sr_qp_state cur_qp_state;
	enum sr_mtu path_mtu;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;   /* SR_ACCESS_REMOTE_* of lib/mr */
	struct sr_qp_cap cap;           /* query only */
	struct sr_av av;
	uint16_t pkey;                  /* with SR_QP_PKEY_INDEX: the P_Key */
	uint16_t pkey_index;            /* index 0 is the device P_Key */
	bool en_sqd_async_notify;
	bool sq_draining;               /* query only */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;          /* IBTA table 45 code, 0..31 */
	uint8_t port_num;
	uint8_t timeout;                /* 4.096 us * 2^timeout, 0 = infinite */
	uint8_t retry_cnt;              /* 0..7 */
	uint8_t rnr_retry;              /* 0..7, 7 = infinite */
};

/*
 * NULL: bad attributes (type, missing CQ or PD, caps too big; an XRC_SEND
 * with a receive CQ, SRQ or receive queue; an XRC_RECV without an XRC
 * domain or with a PD, CQ, SRQ or queue) or no memory.
 */
struct sr_qp *sr_qp_create(struct sr_dev *dev, struct sr_qp_init_attr *init);
/* 0.  NULL is accepted.  Outstanding work is dropped without completions. */
int sr_qp_destroy(struct sr_qp *qp);

/*
 * Change state and attributes.  0; -EINVAL: transition not allowed, a
 * required attribute missing, an attribute not allowed for the transition
 * or out of range (MTU, PSN, timers, rd_atomic > SR_QP_MAX_RD_ATOMIC,
 * cur_qp_state not matching).
 */
int sr_qp_modify(struct sr_qp *qp, const struct sr_qp_attr *attr,
		 unsigned int mask);
int sr_qp_query(struct sr_qp *qp, struct sr_qp_attr *attr,
		struct sr_qp_init_attr *init);

/*
 * Post send WRs.  0; on error *bad names the first WR not posted and:
 * -EINVAL state (RESET, INIT, RTR), opcode not valid for the QP type, too
 * many SGEs, inline data too long, UD message longer than the path MTU;
 * -ENOMEM the send queue is full.
 */
int sr_qp_post_send(struct sr_qp *qp, const struct sr_send_wr *wr,
		    const struct sr_send_wr **bad);
/*
 * Post receive WRs.  0, -EINVAL (RESET, SRQ attached, an XRC QP, SGEs),
 * -ENOMEM (full).
 */
int sr_qp_post_recv(struct sr_qp *qp, const struct sr_recv_wr *wr,
		    const struct sr_recv_wr **bad);

uint32_t sr_qp_num(const struct sr_qp *qp);
/* Is the QP's live trace on (sr_dev_trace_qp, sroce-stat --trace)? */
bool sr_qp_traced(const struct sr_qp *qp);
/* Send WQEs posted and not yet completed (any thread; a snapshot). */
uint32_t sr_qp_sq_outstanding(const struct sr_qp *qp);
enum sr_qp_state sr_qp_state(const struct sr_qp *qp);
void *sr_qp_context(const struct sr_qp *qp);
void sr_qp_counters(const struct sr_qp *qp, uint64_t out[SR_CNT_MAX]);

#endif /* SR_QP_QP_H */
