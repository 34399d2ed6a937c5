/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * srq.h — shared receive queues.
 *
 * One poster thread, the engine consumes (ring.h).  Limit event: with
 * srq_limit armed (non-zero, set by sr_srq_modify), when the engine takes a
 * WQE and fewer than srq_limit remain posted it raises
 * SR_EVENT_SRQ_LIMIT_REACHED once and disarms (limit back to 0), as
 * ibv_modify_srq defines.
 */
#ifndef SR_QP_SRQ_H
#define SR_QP_SRQ_H

#include <stdint.h>

#include "qp/wr.h"

struct sr_cq;
struct sr_dev;
struct sr_pd;
struct sr_srq;
struct sr_xrcd;

struct sr_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

#define SR_SRQ_MAX_WR 0x1u
#define SR_SRQ_LIMIT  0x2u

/* NULL: bad sizes (-EINVAL) or no memory. */
struct sr_srq *sr_srq_create(struct sr_dev *dev, struct sr_pd *pd,
			     const struct sr_srq_attr *attr);
/*
 * An XRC SRQ: of domain xrcd, its receive completions go to cq (IBV_SRQT_XRC).
 * NULL: as above, or xrcd or cq NULL or of another device.
 */
struct sr_srq *sr_srq_create_xrc(struct sr_dev *dev, struct sr_pd *pd,
				 struct sr_xrcd *xrcd, struct sr_cq *cq,
				 const struct sr_srq_attr *attr);
/*
 * 0, -EBUSY (a QP still uses it).  NULL is accepted.  An XRC SRQ may go
 * while target QPs of its domain run: a message they were placing into it
 * then fails (its next packet is NAKed invalid, as for an unknown SRQ).
 */
int sr_srq_destroy(struct sr_srq *srq);
/* Only SR_SRQ_LIMIT is supported: 0, -EINVAL (limit > max_wr, resize). */
int sr_srq_modify(struct sr_srq *srq, const struct sr_srq_attr *attr,
		  unsigned int mask);
int sr_srq_query(struct sr_srq *srq, struct sr_srq_attr *attr);
/* The SRQ number (ibv_get_srq_num): what an XRCETH names.  Never 0. */
uint32_t sr_srq_num(const struct sr_srq *srq);
/* A consumer pointer kept with the SRQ: the way back to a wrapper object. */
void sr_srq_set_context(struct sr_srq *srq, void *ctx);
void *sr_srq_context(const struct sr_srq *srq);
/* 0, -ENOMEM (full), -EINVAL (too many SGEs); *bad names the first not posted. */
int sr_srq_post_recv(struct sr_srq *srq, const struct sr_recv_wr *wr,
		     const struct sr_recv_wr **bad);

#endif /* SR_QP_SRQ_H */
