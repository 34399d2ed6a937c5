/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma.c — every byte the transport moves goes through the MR engine's
 * lookup: local SGEs by lkey, remote ranges by rkey.  Nothing here keeps
 * a table of its own; a reference lives for one copy, or, for a payload
 * sent by reference (sr_dma_piece), until the link has read it.
 */
#include "transport/transport.h"

static enum sr_mr_err sr_dma_walk(struct sr_qp *qp, const struct sr_sge *sge,
				  uint32_t nsge, uint32_t off, uint8_t *buf,
				  uint32_t len, bool to_mem)
{
	struct sr_mr_dev *d = qp->dev->mr;
	uint32_t i;

	for (i = 0; i < nsge && len > 0; i++) {
		struct sr_mr_ref ref;
		enum sr_mr_err err;
		uint32_t n;
		uint64_t va;

		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = sge[i].length - off;
		if (n > len)
			n = len;
		va = sge[i].addr + off;
		err = sr_mr_lookup(d, sge[i].lkey, false, va, n,
				   to_mem ? SR_ACCESS_LOCAL_WRITE : 0, qp->pd,
				   qp->qpn, &ref);
		if (err != SR_MR_OK)
			return err;
		if (to_mem)
			err = sr_mr_copy_to(&ref, va, buf, n);
		else
			err = sr_mr_copy_from(&ref, va, buf, n);
		sr_mr_ref_put(&ref);
		if (sr_unlikely(err != SR_MR_OK))
			return err;   /* on demand: not mapped */
		buf += n;
		len -= n;
		off = 0;
	}
	return len == 0 ? SR_MR_OK : SR_MR_E_BOUNDS;
}

enum sr_mr_err sr_dma_gather(struct sr_qp *qp, const struct sr_sge *sge,
			     uint32_t nsge, uint32_t off, uint8_t *buf,
			     uint32_t len)
{
	return sr_dma_walk(qp, sge, nsge, off, buf, len, false);
}

enum sr_mr_err sr_dma_scatter(struct sr_qp *qp, const struct sr_sge *sge,
			      uint32_t nsge, uint32_t off, const uint8_t *buf,
			      uint32_t len)
{
	return sr_dma_walk(qp, sge, nsge, off, (uint8_t *)(uintptr_t)buf, len,
			   true);
}

enum sr_mr_err sr_dma_check(struct sr_qp *qp, const struct sr_sge *sge,
			    uint32_t nsge, uint32_t need)
{
	uint32_t i;

	for (i = 0; i < nsge; i++) {
		struct sr_mr_ref ref;
		enum sr_mr_err err;

		if (sge[i].length == 0)
			continue;
		err = sr_mr_lookup(qp->dev->mr, sge[i].lkey, false,
				   sge[i].addr, sge[i].length, need, qp->pd,
				   qp->qpn, &ref);
		if (err != SR_MR_OK)
			return err;
		sr_mr_ref_put(&ref);
	}
	return SR_MR_OK;
}

enum sr_mr_err sr_dma_remote(struct sr_qp *qp, uint32_t rkey, uint64_t va,
			     uint32_t len, uint32_t need, struct sr_mr_ref *ref)
{
	return sr_mr_lookup(qp->dev->mr, rkey, true, va, len, need, qp->pd,
			    qp->qpn, ref);
}

/* The looked-up range as one host piece, or the reference put. */
static bool sr_dma_map_one(struct sr_mr_ref *ref, uint64_t va, uint32_t len,
			   const uint8_t **addr)
{
	struct sr_seg seg;

	if (sr_mr_ref_map(ref, va, len, &seg, 1) != 1) {
		sr_mr_ref_put(ref);
		return false;
	}
	*addr = seg.addr;
	return true;
}

bool sr_dma_piece(struct sr_qp *qp, const struct sr_tx_src *src, uint32_t len,
		  struct sr_mr_ref *ref, const uint8_t **addr)
{
	uint32_t off = src->off;

	if (src->remote)
		return sr_dma_remote(qp, src->rkey, src->va, len,
				     SR_ACCESS_REMOTE_READ, ref) == SR_MR_OK &&
		       sr_dma_map_one(ref, src->va, len, addr);
	for (uint32_t i = 0; i < src->nsge; i++) {
		const struct sr_sge *sge = &src->sge[i];

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		if (len > sge->length - off)
			return false;         /* the piece spans two SGEs */
		return sr_mr_lookup(qp->dev->mr, sge->lkey, false,
				    sge->addr + off, len, 0, qp->pd, qp->qpn,
				    ref) == SR_MR_OK &&
		       sr_dma_map_one(ref, sge->addr + off, len, addr);
	}
	return false;
}
