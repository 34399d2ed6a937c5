/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wr_api.c — the post-send API of struct ibv_qp_ex (ibv_wr_start, ibv_wr_*,
 * ibv_wr_complete / ibv_wr_abort), including ATOMIC_WRITE and rdma-core
 * 45's FLUSH (wr_flush after wr_atomic_write, struct sr_ibv_qp_ex_flush).
 *
 * Between start and complete the WRs are built into a batch owned by the
 * QP; inline data is copied at once (the caller may reuse its buffer when
 * the setter returns).  wr_complete posts the batch with one
 * sr_qp_post_send and reports the first error, as a provider does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mr/mr.h"
#include "qp/qp.h"
#include "shim.h"

struct sr_ibv_wr_batch {
	struct sr_send_wr *wr;
	uint32_t *sge_first;            /* per WR: first index in sge */
	bool *inl;                      /* per WR: sge addrs are inl offsets */
	uint32_t n, cap;
	struct sr_sge *sge;
	uint32_t nsge, sge_cap;
	uint8_t *inl_buf;
	size_t inl_len, inl_cap;
	int err;                        /* first error while building */
};

static struct sr_ibv_qp *sr_qpx(struct ibv_qp_ex *q)
{
	return sr_container_of(q, struct sr_ibv_qp, qpx.base);
}

static int sr_grow(void **p, uint32_t *cap, uint32_t want, size_t elem)
{
	uint32_t c = *cap ? *cap : 16;
	void *n;

	if (want <= *cap)
		return 0;
	while (c < want)
		c *= 2;
	n = realloc(*p, c * elem);
	if (n == NULL)
		return -ENOMEM;
	*p = n;
	*cap = c;
	return 0;
}

/* A new WR with the qp_ex's wr_id and flags, or NULL (error recorded). */
static int sr_batch_grow(struct sr_ibv_wr_batch *b)
{
	uint32_t c = b->cap ? b->cap * 2 : 16;
	void *p;

	p = realloc(b->wr, c * sizeof(*b->wr));
	if (p == NULL)
		return -ENOMEM;
	b->wr = p;
	p = realloc(b->sge_first, c * sizeof(*b->sge_first));
	if (p == NULL)
		return -ENOMEM;
	b->sge_first = p;
	p = realloc(b->inl, c * sizeof(*b->inl));
	if (p == NULL)
		return -ENOMEM;
	b->inl = p;
	b->cap = c;
	return 0;
}

/* A new WR with the qp_ex's wr_id and flags, or NULL (error recorded). */
static struct sr_send_wr *sr_wr_new(struct ibv_qp_ex *q, enum sr_wr_opcode op)
{
	struct sr_ibv_wr_batch *b = sr_qpx(q)->batch;
	struct sr_send_wr *w;

	if (b->err)
		return NULL;
	if (b->n == b->cap && sr_batch_grow(b)) {
		b->err = ENOMEM;
		return NULL;
	}
	w = &b->wr[b->n];
	memset(w, 0, sizeof(*w));
	w->wr_id = q->wr_id;
	w->send_flags = q->wr_flags;
	w->opcode = op;
	b->sge_first[b->n] = b->nsge;
	b->inl[b->n] = false;
	b->n++;
	return w;
}

static struct sr_send_wr *sr_wr_last(struct ibv_qp_ex *q)
{
	struct sr_ibv_wr_batch *b = sr_qpx(q)->batch;

	if (b->err)
		return NULL;
	if (b->n == 0) {
		b->err = EINVAL;
		return NULL;
	}
	return &b->wr[b->n - 1];
}

static void sr_wr_error(struct ibv_qp_ex *q, int err)
{
	struct sr_ibv_wr_batch *b = sr_qpx(q)->batch;

	if (!b->err)
		b->err = err;
}

/* ---- operations ---- */

static void sr_wr_rdma(struct ibv_qp_ex *q, enum sr_wr_opcode op,
		       uint32_t rkey, uint64_t raddr)
{
	struct sr_send_wr *w = sr_wr_new(q, op);

	if (w) {
		w->wr.rdma.rkey = rkey;
		w->wr.rdma.remote_addr = raddr;
	}
}

static void sr_wr_rdma_write(struct ibv_qp_ex *q, uint32_t rkey,
			     uint64_t raddr)
{
	sr_wr_rdma(q, SR_WR_RDMA_WRITE, rkey, raddr);
}

static void sr_wr_rdma_write_imm(struct ibv_qp_ex *q, uint32_t rkey,
				 uint64_t raddr, __be32 imm)
{
	sr_wr_rdma(q, SR_WR_RDMA_WRITE_WITH_IMM, rkey, raddr);
	if (sr_qpx(q)->batch->err == 0)
		sr_wr_last(q)->imm_data = be32toh(imm);
}

static void sr_wr_rdma_read(struct ibv_qp_ex *q, uint32_t rkey,
			    uint64_t raddr)
{
	sr_wr_rdma(q, SR_WR_RDMA_READ, rkey, raddr);
}

static void sr_wr_atomic(struct ibv_qp_ex *q, enum sr_wr_opcode op,
			 uint32_t rkey, uint64_t raddr, uint64_t cmp_add,
			 uint64_t swap)
{
	struct sr_send_wr *w = sr_wr_new(q, op);

	if (w) {
		w->wr.atomic.rkey = rkey;
		w->wr.atomic.remote_addr = raddr;
		w->wr.atomic.compare_add = cmp_add;
		w->wr.atomic.swap = swap;
	}
}

static void sr_wr_cmp_swp(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr,
			  uint64_t compare, uint64_t swap)
{
	sr_wr_atomic(q, SR_WR_ATOMIC_CMP_AND_SWP, rkey, raddr, compare, swap);
}

static void sr_wr_fetch_add(struct ibv_qp_ex *q, uint32_t rkey,
			    uint64_t raddr, uint64_t add)
{
	sr_wr_atomic(q, SR_WR_ATOMIC_FETCH_AND_ADD, rkey, raddr, add, 0);
}

static void sr_wr_atomic_write(struct ibv_qp_ex *q, uint32_t rkey,
			       uint64_t raddr, const void *data)
{
	struct sr_send_wr *w = sr_wr_new(q, SR_WR_ATOMIC_WRITE);

	if (w) {
		w->wr.atomic_write.rkey = rkey;
		w->wr.atomic_write.remote_addr = raddr;
		memcpy(w->wr.atomic_write.data, data,
		       sizeof(w->wr.atomic_write.data));
	}
}

static void sr_wr_flush(struct ibv_qp_ex *q, uint32_t rkey, uint64_t raddr,
			size_t len, uint8_t type, uint8_t level)
{
	struct sr_send_wr *w = sr_wr_new(q, SR_WR_FLUSH);

	if (w) {
		w->wr.flush.rkey = rkey;
		w->wr.flush.remote_addr = raddr;
		w->wr.flush.length = (uint32_t)len;
		w->wr.flush.type = type;    /* ibv_flush_type = SR_FLUSH_* */
		w->wr.flush.level = level;
	}
}

static void sr_wr_bind_mw(struct ibv_qp_ex *q, struct ibv_mw *mw,
			  uint32_t rkey, const struct ibv_mw_bind_info *bi)
{
	struct sr_send_wr *w;
	uint32_t acc;

	if (mw == NULL || bi == NULL ||
	    sr_ibv_mw_access_to_sr(bi->mw_access_flags, &acc)) {
		sr_wr_error(q, EINVAL);
		return;
	}
	w = sr_wr_new(q, SR_WR_BIND_MW);
	if (w) {
		w->wr.bind_mw.mw = sr_container_of(mw, struct sr_ibv_mw,
						   ibmw)->mw;
		w->wr.bind_mw.rkey = rkey;
		w->wr.bind_mw.mr = bi->mr ?
			sr_container_of(bi->mr, struct sr_ibv_mr, ibmr)->mr :
			NULL;
		w->wr.bind_mw.addr = bi->addr;
		w->wr.bind_mw.length = bi->length;
		w->wr.bind_mw.access = acc;
		mw->rkey = rkey;
	}
}

static void sr_wr_local_inv(struct ibv_qp_ex *q, uint32_t rkey)
{
	struct sr_send_wr *w = sr_wr_new(q, SR_WR_LOCAL_INV);

	if (w)
		w->invalidate_rkey = rkey;
}

static void sr_wr_send(struct ibv_qp_ex *q)
{
	sr_wr_new(q, SR_WR_SEND);
}

static void sr_wr_send_imm(struct ibv_qp_ex *q, __be32 imm)
{
	struct sr_send_wr *w = sr_wr_new(q, SR_WR_SEND_WITH_IMM);

	if (w)
		w->imm_data = be32toh(imm);
}

static void sr_wr_send_inv(struct ibv_qp_ex *q, uint32_t rkey)
{
	struct sr_send_wr *w = sr_wr_new(q, SR_WR_SEND_WITH_INV);

	if (w)
		w->invalidate_rkey = rkey;
}

static void sr_wr_send_tso(struct ibv_qp_ex *q, void *hdr, uint16_t hdr_sz,
			   uint16_t mss)
{
	(void)hdr;
	(void)hdr_sz;
	(void)mss;
	sr_wr_error(q, EOPNOTSUPP);
}

/* ---- setters of the last WR ---- */

static void sr_wr_set_ud_addr(struct ibv_qp_ex *q, struct ibv_ah *ah,
			      uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct sr_send_wr *w = sr_wr_last(q);

	if (w == NULL)
		return;
	if (ah == NULL) {
		sr_wr_error(q, EINVAL);
		return;
	}
	w->wr.ud.av = &sr_container_of(ah, struct sr_ibv_ah, ibah)->av;
	w->wr.ud.remote_qpn = remote_qpn;
	w->wr.ud.remote_qkey = remote_qkey;
}

static void sr_wr_set_xrc_srqn(struct ibv_qp_ex *q, uint32_t srqn)
{
	struct sr_send_wr *w = sr_wr_last(q);

	if (w == NULL)
		return;
	if (q->qp_base.qp_type != IBV_QPT_XRC_SEND) {
		sr_wr_error(q, EINVAL);
		return;
	}
	w->xrc_srqn = srqn;         /* lib/ refuses more than 24 bits */
}

static void sr_wr_set_sge_list(struct ibv_qp_ex *q, size_t n,
			       const struct ibv_sge *sg)
{
	struct sr_ibv_wr_batch *b = sr_qpx(q)->batch;
	struct sr_send_wr *w = sr_wr_last(q);

	if (w == NULL)
		return;
	if (sr_grow((void **)&b->sge, &b->sge_cap, b->nsge + (uint32_t)n,
		    sizeof(*b->sge))) {
		sr_wr_error(q, ENOMEM);
		return;
	}
	b->sge_first[b->n - 1] = b->nsge;
	memcpy(&b->sge[b->nsge], sg, n * sizeof(*sg));   /* same layout */
	b->nsge += (uint32_t)n;
	w->num_sge = (int)n;
	b->inl[b->n - 1] = false;
}

static void sr_wr_set_sge(struct ibv_qp_ex *q, uint32_t lkey, uint64_t addr,
			  uint32_t length)
{
	struct ibv_sge sg = { .addr = addr, .length = length, .lkey = lkey };

	sr_wr_set_sge_list(q, 1, &sg);
}

static void sr_wr_set_inline_data_list(struct ibv_qp_ex *q, size_t n,
				       const struct ibv_data_buf *bufs)
{
	struct sr_ibv_wr_batch *b = sr_qpx(q)->batch;
	struct sr_send_wr *w = sr_wr_last(q);
	size_t total = 0;

	if (w == NULL)
		return;
	for (size_t i = 0; i < n; i++)
		total += bufs[i].length;
	if (b->inl_len + total > b->inl_cap) {
		size_t cap = b->inl_cap ? b->inl_cap : 4096;
		uint8_t *p;

		while (cap < b->inl_len + total)
			cap *= 2;
		p = realloc(b->inl_buf, cap);
		if (p == NULL) {
			sr_wr_error(q, ENOMEM);
			return;
		}
		b->inl_buf = p;
		b->inl_cap = cap;
	}
	if (sr_grow((void **)&b->sge, &b->sge_cap, b->nsge + 1,
		    sizeof(*b->sge))) {
		sr_wr_error(q, ENOMEM);
		return;
	}
	/* One SGE over the copy; its addr is an offset until complete. */
	b->sge_first[b->n - 1] = b->nsge;
	b->sge[b->nsge] = (struct sr_sge){ .addr = b->inl_len,
					   .length = (uint32_t)total };
	for (size_t i = 0; i < n; i++) {
		memcpy(b->inl_buf + b->inl_len, bufs[i].addr, bufs[i].length);
		b->inl_len += bufs[i].length;
	}
	b->nsge++;
	w->num_sge = 1;
	w->send_flags |= SR_SEND_INLINE;
	b->inl[b->n - 1] = true;
}

static void sr_wr_set_inline_data(struct ibv_qp_ex *q, void *addr,
				  size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sr_wr_set_inline_data_list(q, 1, &buf);
}

/* ---- start / complete / abort ---- */

static void sr_wr_start(struct ibv_qp_ex *q)
{
	struct sr_ibv_wr_batch *b = sr_qpx(q)->batch;

	b->n = 0;
	b->nsge = 0;
	b->inl_len = 0;
	b->err = 0;
}

static int sr_wr_complete(struct ibv_qp_ex *q)
{
	struct sr_ibv_qp *qp = sr_qpx(q);
	struct sr_ibv_wr_batch *b = qp->batch;
	const struct sr_send_wr *bad = NULL;
	uint32_t outstanding;
	int rc;

	if (b->err) {
		rc = b->err;
		goto out_reset;
	}
	if (b->n == 0) {
		rc = 0;
		goto out_reset;
	}
	for (uint32_t i = 0; i < b->n; i++) {
		struct sr_send_wr *w = &b->wr[i];

		w->sg_list = w->num_sge ? &b->sge[b->sge_first[i]] : NULL;
		if (b->inl[i])
			w->sg_list[0].addr += (uint64_t)(uintptr_t)b->inl_buf;
		if (q->qp_base.qp_type == IBV_QPT_UD && w->wr.ud.av == NULL &&
		    w->opcode != SR_WR_LOCAL_INV) {
			rc = EINVAL;
			goto out_reset;
		}
		w->next = i + 1 < b->n ? &b->wr[i + 1] : NULL;
	}
	outstanding = sr_qp_sq_outstanding(qp->qp);
	rc = sr_ibv_err(sr_qp_post_send(qp->qp, b->wr, &bad));
	sr_ibv_progress_post(qp, outstanding);
out_reset:
	sr_wr_start(q);
	return rc;
}

static void sr_wr_abort(struct ibv_qp_ex *q)
{
	sr_wr_start(q);
}

int sr_ibv_qp_ex_init(struct sr_ibv_qp *qp)
{
	struct ibv_qp_ex *q = &qp->qpx.base;

	qp->batch = calloc(1, sizeof(*qp->batch));
	if (qp->batch == NULL)
		return -ENOMEM;
	q->wr_atomic_cmp_swp = sr_wr_cmp_swp;
	q->wr_atomic_fetch_add = sr_wr_fetch_add;
	q->wr_bind_mw = sr_wr_bind_mw;
	q->wr_local_inv = sr_wr_local_inv;
	q->wr_rdma_read = sr_wr_rdma_read;
	q->wr_rdma_write = sr_wr_rdma_write;
	q->wr_rdma_write_imm = sr_wr_rdma_write_imm;
	q->wr_send = sr_wr_send;
	q->wr_send_imm = sr_wr_send_imm;
	q->wr_send_inv = sr_wr_send_inv;
	q->wr_send_tso = sr_wr_send_tso;
	q->wr_set_ud_addr = sr_wr_set_ud_addr;
	q->wr_set_xrc_srqn = sr_wr_set_xrc_srqn;
	q->wr_set_inline_data = sr_wr_set_inline_data;
	q->wr_set_inline_data_list = sr_wr_set_inline_data_list;
	q->wr_set_sge = sr_wr_set_sge;
	q->wr_set_sge_list = sr_wr_set_sge_list;
	q->wr_start = sr_wr_start;
	q->wr_complete = sr_wr_complete;
	q->wr_abort = sr_wr_abort;
	q->wr_atomic_write = sr_wr_atomic_write;
	qp->qpx.wr_flush = sr_wr_flush;
	return 0;
}

void sr_ibv_qp_ex_fini(struct sr_ibv_qp *qp)
{
	struct sr_ibv_wr_batch *b = qp->batch;

	if (b == NULL)
		return;
	free(b->wr);
	free(b->sge_first);
	free(b->inl);
	free(b->sge);
	free(b->inl_buf);
	free(b);
	qp->batch = NULL;
}
