/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * harness.h — two sroce devices on a simulated wire, one connected QP
 * pair, registered buffers; leak checks at teardown.
 */
#ifndef SR_TEST_HARNESS_H
#define SR_TEST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dev.h"
#include "mr/mr.h"
#include "qp/cq.h"
#include "qp/qp.h"
#include "qp/srq.h"
#include "simlink.h"

struct h_opts {
	enum sr_qp_type type;
	enum sr_mtu mtu;
	uint32_t buflen;         /* bytes of each node's registered buffer */
	uint32_t sq, rq, cqe;
	uint8_t timeout, retry, rnr_retry, min_rnr;
	uint8_t max_rd, max_dest_rd;
	uint32_t psn0, psn1;     /* initial send PSNs of node 0 and 1 */
	bool srq;
	bool ipv6;
	bool no_connect;         /* leave the QPs in RESET */
	uint32_t access;         /* QP access flags (0: all remote) */
	uint32_t max_inline;
	sr_cq_notify_fn rcq_notify;  /* notify callback of the recv CQs */
	sr_cq_notify_fn scq_notify;  /* notify callback of the send CQs */
	struct sim_cfg sim;
	uint8_t ecn;             /* sr_dev_config.ecn of both devices */
	const struct sr_dcqcn_params *cc[2];  /* sr_dev_config.cc of each */
	struct sr_trace_ring *trace[2];       /* sr_dev_config.trace of each */
	uint32_t qpn_base[2];                 /* sr_dev_config.qpn_base of each */
	uint32_t max_qp[2];                   /* sr_dev_config.max_qp of each */
	uint32_t window[2];                   /* sr_dev_config.window of each */
	uint32_t tx_ref_min[2];               /* sr_dev_config.tx_ref_min */
	uint8_t static_rate[2];               /* the RC/UC AV's, enum ibv_rate */
	uint64_t line_bps[2];                 /* sr_dev_config.line_bps of each */
	bool line_paced[2];                   /* sr_dev_config.line_paced */
};

struct h_node {
	struct sr_mr_dev *mrd;
	struct sr_dev *dev;
	struct sr_pd *pd;
	struct sr_cq *scq, *rcq;
	struct sr_srq *srq;
	struct sr_qp *qp;
	uint8_t *buf;
	struct sr_mr *mr;
	uint8_t mac[6];
	uint8_t gid[16];
	unsigned int events[32];   /* async events by type */
};

struct h_pair {
	struct sim_net *net;
	struct h_node n[2];
	struct h_opts o;
};

void h_default_opts(struct h_opts *o, enum sr_qp_type type);
void h_pair_init(struct h_pair *p, const struct h_opts *o);
/* Destroys everything and asserts nothing leaked. */
void h_pair_fini(struct h_pair *p);
/* Bring node i's QP to RTS towards the other node's QP. */
void h_connect(struct h_pair *p, int i);
/* The same through another address vector (a QP in RESET). */
void h_connect_av(struct h_pair *p, int i, const struct sr_av *av);
struct sr_av h_av_to(const struct h_pair *p, int to);

/* Run the wire until done(ctx) or idle/max_steps.  Returns done(). */
bool h_run(struct h_pair *p, bool (*done)(struct h_pair *, void *),
	   void *ctx, uint64_t max_steps);
/* Run until the wire and both engines are idle (bounded). */
void h_settle(struct h_pair *p);

/* Poll until n completions are collected from cq (running the wire). */
int h_wait_cq(struct h_pair *p, struct sr_cq *cq, struct sr_wc *wc, int n,
	      uint64_t max_steps);

/* Post helpers: one SGE at offset off of node i's buffer. */
int h_post_send(struct h_pair *p, int i, enum sr_wr_opcode op, uint64_t id,
		uint32_t off, uint32_t len, uint32_t roff, unsigned int flags);
int h_post_recv(struct h_pair *p, int i, uint64_t id, uint32_t off,
		uint32_t len);

#endif /* SR_TEST_HARNESS_H */
