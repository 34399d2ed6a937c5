/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cma.h — RDMA-CM's connections over the IB CM, as Linux's rdma_cm and
 * ib_cm put them on the wire for RoCE: what goes into a REQ, REP and
 * SIDR_REQ built from an IP route, what a received REQ says in rdma_cm's
 * terms, and the QP attributes both sides derive from the exchange.
 *
 * Pure functions, no I/O: the librdmacm drop-in and the NDK/ND2 connectors
 * use them, wherever the device's CM runs.  The values are the kernel's
 * (cma.c, cm.c), so a Linux peer sees what it would see from another
 * Linux host:
 *   REQ    Q_Key 0, CM response timeouts 20 (4.3 s), max CM retries 15,
 *          P_Key 0xFFFF, both LIDs permissive (0xFFFF: hop limit > 1),
 *          not subnet-local, SL 0, packet rate 0 (port current), hop
 *          limit 64, local ACK timeout 19 (packet life time 18, + 1),
 *          flow label sport * 31 + dport (cma_get_roce_udp_flow_label),
 *          private data = the 36-byte cma header + up to 56 bytes;
 *   REP    target ACK delay 15, no failover;
 *   QP     RTR: path MTU the smaller of the REQ's and ours, the peer's
 *          QPN; PSNs as Linux uses them: the REQ's starting PSN is the
 *          active side's receive PSN (the passive side sends with it),
 *          the REP's the passive side's receive PSN; min RNR timer 0 (ib_cm's), responder
 *          resources as negotiated; RTS: ACK timeout the REQ's, retry
 *          counts from the REQ (and the REP's RNR retry on the active
 *          side), initiator depth as negotiated.
 */
#ifndef SR_CM_CMA_H
#define SR_CM_CMA_H

#include <stdbool.h>
#include <stdint.h>

#include "cm/cm.h"
#include "cm/cma_hdr.h"

/* The consumer's private data, after the cma header where there is one. */
#define SR_CMA_REQ_PDATA_MAX      (92u - SR_CMA_HDR_SIZE)   /* 56 */
#define SR_CMA_REP_PDATA_MAX      196u
#define SR_CMA_REJ_PDATA_MAX      148u
#define SR_CMA_RTU_PDATA_MAX      224u
#define SR_CMA_DREQ_PDATA_MAX     220u
#define SR_CMA_DREP_PDATA_MAX     224u
#define SR_CMA_SIDR_REQ_PDATA_MAX (216u - SR_CMA_HDR_SIZE)  /* 180 */
#define SR_CMA_SIDR_REP_PDATA_MAX 136u

#define SR_CMA_UDP_QKEY          0x01234567u  /* RDMA_UDP_QKEY */
#define SR_CMA_PACKET_LIFE_TIME  18u
#define SR_CMA_TARGET_ACK_DELAY  15u
#define SR_CMA_HOP_LIMIT         64u
#define SR_CMA_PSN_MASK          0xFFFFFFu

/* The route of one connection, from this side. */
struct sr_cma_route {
	uint8_t ip_version;        /* 4 or 6 */
	uint16_t sport, dport;     /* host order */
	uint8_t sgid[16], dgid[16];/* ours, the peer's; IPv4-mapped for 4 */
	uint8_t dmac[6];           /* the peer's (or next hop's) MAC */
	uint16_t pkey;             /* 0: 0xFFFF */
	uint8_t path_mtu;          /* IB encoding 1..5 (256..4096) */
	uint8_t hop_limit, tclass; /* 0 hop limit: 64 */
	uint8_t ack_timeout;       /* local ACK timeout, 0: 19 */
};

/* What the consumer's rdma_conn_param puts on the wire. */
struct sr_cma_conn {
	uint32_t qpn, psn;
	uint8_t transport;         /* SR_CM_TRANSPORT_RC / UC */
	uint8_t responder_resources, initiator_depth;
	uint8_t retry_count, rnr_retry_count;   /* 3 bits each */
	uint8_t srq;
	const uint8_t *pdata;
	uint8_t pdata_len;
};

/* The kernel's flow label for a RoCE connection (20 bits). */
uint32_t sr_cma_flow_label(uint16_t sport, uint16_t dport);

/*
 * A REQ for the rdma_cm port space ps from route r: fills p, with its
 * private data (header + c->pdata) in buf.  -EINVAL: c->pdata_len above
 * SR_CMA_REQ_PDATA_MAX, or an IP version not 4/6.
 */
int sr_cma_req(struct sr_cm_req_param *p, uint8_t buf[92],
	       const struct sr_cma_route *r, uint16_t ps,
	       const struct sr_cma_conn *c);

/* A SIDR_REQ likewise (pdata at most SR_CMA_SIDR_REQ_PDATA_MAX). */
int sr_cma_sidr_req(struct sr_cm_sidr_param *p, uint8_t buf[216],
		    const struct sr_cma_route *r, uint16_t ps,
		    const uint8_t *pdata, uint8_t pdata_len);

/* A REP for an accepted REQ (pdata at most SR_CMA_REP_PDATA_MAX). */
int sr_cma_rep(struct sr_cm_rep_param *p, const struct sr_cma_conn *c);

/*
 * A received REQ or SIDR_REQ (m) from QP1 address from, read back as the
 * passive side's route (sgid: the GID the peer sent to, dgid: the peer's;
 * ports from the header and the service ID) and the consumer's private
 * data (*udata, *ulen point into m).  -EPROTO / -EPROTONOSUPPORT: not a
 * valid cma header (sr_cma_hdr_get); -EINVAL: the header's addresses are
 * not the frame's, or the service ID is not rdma_cm's.
 */
int sr_cma_req_read(const struct sr_cm_msg *m, const struct sr_cm_addr *from,
		    uint32_t our_path_mtu, struct sr_cma_route *r,
		    const uint8_t **udata, uint8_t *ulen);

/* What the QP of a connection is set to at RTR and RTS. */
struct sr_cma_qp_attr {
	uint32_t dest_qpn, rq_psn, sq_psn;
	uint8_t path_mtu;
	uint8_t max_dest_rd_atomic, max_rd_atomic;
	uint8_t min_rnr_timer, timeout, retry_cnt, rnr_retry;
	/* Remote READ and atomics are allowed when we grant resources. */
	bool remote_read;
};

/* Active side: from the REQ we sent and the REP that answered. */
void sr_cma_qp_attr_active(struct sr_cma_qp_attr *a,
			   const struct sr_cm_req_param *req,
			   const struct sr_cm_msg *rep);

/* Passive side: from the REQ we got and the REP we send. */
void sr_cma_qp_attr_passive(struct sr_cma_qp_attr *a,
			    const struct sr_cm_msg *req,
			    const struct sr_cm_rep_param *rep,
			    uint32_t our_path_mtu);

struct sr_qp;
struct sr_av;

/*
 * Take a lib QP (RESET or INIT; RC or UC) through INIT, RTR and RTS with a
 * (remote write always, remote READ and atomics when a->remote_read) on
 * the address vector av (cma_qp.c).  0, -EINVAL (NULL argument), or the
 * -errno of sr_qp_modify.
 */
int sr_cma_qp_connect(struct sr_qp *qp, const struct sr_cma_qp_attr *a,
		      const struct sr_av *av);

#endif /* SR_CM_CMA_H */
