/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * post.c — ibv_post_send, ibv_post_recv, ibv_post_srq_recv: ibverbs work
 * requests become lib's (qp/wr.h) in chunks on the stack, are posted,
 * and a failure is mapped back to the ibverbs WR it came from (bad_wr).
 * SGE arrays are shared as they are: struct ibv_sge and struct sr_sge
 * have one layout (checked below).  After a post the engine runs once
 * inline so the request leaves without waiting for the next poll.
 */
#include <assert.h>
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "mr/mr.h"
#include "qp/qp.h"
#include "qp/srq.h"
#include "shim.h"

#define SR_POST_CHUNK 16

static_assert(sizeof(struct ibv_sge) == sizeof(struct sr_sge), "sge size");
static_assert(offsetof(struct ibv_sge, addr) == offsetof(struct sr_sge, addr),
	      "sge addr");
static_assert(offsetof(struct ibv_sge, length) ==
		      offsetof(struct sr_sge, length), "sge length");
static_assert(offsetof(struct ibv_sge, lkey) == offsetof(struct sr_sge, lkey),
	      "sge lkey");

/* The opcodes lib/ carries, with ibverbs' values (others: EINVAL). */
static bool sr_ibv_opcode_ok(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
	case IBV_WR_LOCAL_INV:
	case IBV_WR_BIND_MW:
	case IBV_WR_SEND_WITH_INV:
		return true;
	default:
		return false;   /* TSO, DRIVER1; FLUSH and ATOMIC_WRITE only
				 * through the ibv_wr_* API */
	}
}

#define SR_IBV_SEND_FLAGS \
	(IBV_SEND_FENCE | IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)

static int sr_ibv_send_wr_to_sr(const struct ibv_send_wr *in,
				struct sr_send_wr *o)
{
	if (!sr_ibv_opcode_ok(in->opcode) ||
	    (in->send_flags & ~(unsigned int)SR_IBV_SEND_FLAGS) ||
	    in->num_sge < 0)
		return -EINVAL;
	memset(o, 0, sizeof(*o));
	o->wr_id = in->wr_id;
	o->sg_list = (struct sr_sge *)(void *)in->sg_list;
	o->num_sge = in->num_sge;
	o->opcode = (enum sr_wr_opcode)in->opcode;
	o->send_flags = in->send_flags;
	switch (in->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_SEND_WITH_IMM:
		o->imm_data = be32toh(in->imm_data);
		break;
	case IBV_WR_LOCAL_INV:
	case IBV_WR_SEND_WITH_INV:
		o->invalidate_rkey = in->invalidate_rkey;
		break;
	default:
		break;
	}
	switch (in->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		o->wr.rdma.remote_addr = in->wr.rdma.remote_addr;
		o->wr.rdma.rkey = in->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		o->wr.atomic.remote_addr = in->wr.atomic.remote_addr;
		o->wr.atomic.compare_add = in->wr.atomic.compare_add;
		o->wr.atomic.swap = in->wr.atomic.swap;
		o->wr.atomic.rkey = in->wr.atomic.rkey;
		break;
	case IBV_WR_BIND_MW: {
		const struct ibv_mw_bind_info *b = &in->bind_mw.bind_info;
		uint32_t acc = 0;

		if (in->bind_mw.mw == NULL ||
		    sr_ibv_mw_access_to_sr(b->mw_access_flags, &acc))
			return -EINVAL;
		o->wr.bind_mw.mw =
			sr_container_of(in->bind_mw.mw, struct sr_ibv_mw, ibmw)->mw;
		o->wr.bind_mw.rkey = in->bind_mw.rkey;
		o->wr.bind_mw.mr = b->mr ?
			sr_container_of(b->mr, struct sr_ibv_mr, ibmr)->mr : NULL;
		o->wr.bind_mw.addr = b->addr;
		o->wr.bind_mw.length = b->length;
		o->wr.bind_mw.access = acc;
		break;
	}
	default:
		break;
	}
	return 0;
}

/* UD: the AH's address vector (qp type known only at the QP). */
static void sr_ibv_send_wr_ud(const struct ibv_send_wr *in,
			      struct sr_send_wr *o)
{
	if (in->wr.ud.ah)
		o->wr.ud.av = &sr_container_of(in->wr.ud.ah, struct sr_ibv_ah,
					       ibah)->av;
	o->wr.ud.remote_qpn = in->wr.ud.remote_qpn;
	o->wr.ud.remote_qkey = in->wr.ud.remote_qkey;
}

int sr_ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad)
{
	struct sr_ibv_qp *w = sr_qp_of(qp);
	struct sr_send_wr buf[SR_POST_CHUNK];
	struct ibv_send_wr *src[SR_POST_CHUNK];
	const struct sr_send_wr *sbad = NULL;
	uint32_t outstanding = sr_qp_sq_outstanding(w->qp);
	int rc = 0;

	while (wr) {
		int n = 0;

		for (; wr && n < SR_POST_CHUNK; wr = wr->next, n++) {
			rc = sr_ibv_send_wr_to_sr(wr, &buf[n]);
			if (rc) {
				*bad = wr;
				if (n == 0)
					goto out_progress;
				break;
			}
			if (qp->qp_type == IBV_QPT_UD) {
				if (wr->wr.ud.ah == NULL) {
					rc = -EINVAL;
					*bad = wr;
					if (n == 0)
						goto out_progress;
					break;
				}
				sr_ibv_send_wr_ud(wr, &buf[n]);
			}
			/* XRC: the remote SRQ, in its own union */
			if (qp->qp_type == IBV_QPT_XRC_SEND)
				buf[n].xrc_srqn = wr->qp_type.xrc.remote_srqn;
			src[n] = wr;
			if (n > 0)
				buf[n - 1].next = &buf[n];
		}
		if (n == 0)
			break;
		buf[n - 1].next = NULL;
		{
			int prc = sr_qp_post_send(w->qp, buf, &sbad);

			if (prc) {
				*bad = src[sbad ? sbad - buf : 0];
				rc = prc;
				goto out_progress;
			}
		}
		if (rc)
			goto out_progress;    /* the conversion failure above */
	}
out_progress:
	sr_ibv_progress_post(w, outstanding);
	return sr_ibv_err(rc);
}

static int sr_ibv_post_recv_chunks(struct ibv_recv_wr *wr,
				   struct ibv_recv_wr **bad,
				   int (*post)(void *, const struct sr_recv_wr *,
					       const struct sr_recv_wr **),
				   void *obj)
{
	struct sr_recv_wr buf[SR_POST_CHUNK];
	struct ibv_recv_wr *src[SR_POST_CHUNK];
	const struct sr_recv_wr *sbad = NULL;
	int rc;

	while (wr) {
		int n = 0;

		for (; wr && n < SR_POST_CHUNK; wr = wr->next, n++) {
			if (wr->num_sge < 0) {
				*bad = wr;
				return EINVAL;
			}
			buf[n] = (struct sr_recv_wr){
				.wr_id = wr->wr_id,
				.sg_list = (struct sr_sge *)(void *)wr->sg_list,
				.num_sge = wr->num_sge,
			};
			src[n] = wr;
			if (n > 0)
				buf[n - 1].next = &buf[n];
		}
		buf[n - 1].next = NULL;
		rc = post(obj, buf, &sbad);
		if (rc) {
			*bad = src[sbad ? sbad - buf : 0];
			return sr_ibv_err(rc);
		}
	}
	return 0;
}

static int sr_ibv_qp_recv(void *qp, const struct sr_recv_wr *wr,
			  const struct sr_recv_wr **bad)
{
	return sr_qp_post_recv(qp, wr, bad);
}

static int sr_ibv_srq_recv(void *srq, const struct sr_recv_wr *wr,
			   const struct sr_recv_wr **bad)
{
	return sr_srq_post_recv(srq, wr, bad);
}

int sr_ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad)
{
	struct sr_ibv_qp *w = sr_qp_of(qp);
	int rc = sr_ibv_post_recv_chunks(wr, bad, sr_ibv_qp_recv, w->qp);

	sr_ibv_progress(w->rt);
	return rc;
}

int sr_ibv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad)
{
	struct sr_ibv_srq *w = sr_container_of(srq, struct sr_ibv_srq, ibsrq);
	int rc = sr_ibv_post_recv_chunks(wr, bad, sr_ibv_srq_recv, w->srq);

	sr_ibv_progress(w->rt);
	return rc;
}
