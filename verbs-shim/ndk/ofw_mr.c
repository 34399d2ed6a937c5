/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofw_mr.c — IbRegVirtMr, IbRegScatterGatherMr, IbGetDmaMr, IbDeregMr
 * (ofw_mr.h) on lib/mr, asynchronously through the adapter thread when the
 * adapter says so.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_priv.h"
#include "ofw_mr.h"

/* X(IB_AC_*, SR_ACCESS_*) */
#define SR_OFW_ACCESS_LIST(X)                            \
	X(IB_AC_RDMA_READ,   SR_ACCESS_REMOTE_READ)      \
	X(IB_AC_RDMA_WRITE,  SR_ACCESS_REMOTE_WRITE)     \
	X(IB_AC_ATOMIC,      SR_ACCESS_REMOTE_ATOMIC)    \
	X(IB_AC_LOCAL_WRITE, SR_ACCESS_LOCAL_WRITE)      \
	X(IB_AC_MW_BIND,     SR_ACCESS_MW_BIND)

#define SR_X(ib, sr) | (ib)
enum { SR_OFW_ACCESS_ALL = 0 SR_OFW_ACCESS_LIST(SR_X) };
#undef SR_X

static uint32_t sr_ofw_access(ULONG mask)
{
	uint32_t acc = 0;

	if (mask & ~(ULONG)SR_OFW_ACCESS_ALL)
		return UINT32_MAX;
#define SR_X(ib, sr) if (mask & (ib)) acc |= (sr);
	SR_OFW_ACCESS_LIST(SR_X)
#undef SR_X
	return acc;
}

static void sr_ofw_fill(IB_MR *out, struct sr_mr *mr, ULONG mask, uint64_t start,
			uint64_t len)
{
	bool remote = sr_mr_rkey(mr) != 0;

	out->LocalStart = start;
	out->LocalEnd = start + len - 1;
	out->RemoteStart = remote ? start : 0;
	out->RemoteEnd = remote ? start + len - 1 : 0;
	out->AccessMask = mask;
	out->lKey = sr_mr_lkey(mr);
	out->rKey = sr_mr_rkey_be(mr);
	out->Handle = mr;
}

/* What a registration needs, copied for the adapter thread. */
struct sr_ofw_req {
	struct sr_ndk_pd *pd;
	ULONG mask;
	IB_MR *out;
	IB_MR_COMPLETION cb;
	PVOID ctx;
	PMDL mdl;
	SIZE_T length;
	PSCATTER_GATHER_LIST sgl;
	bool dma;                 /* IbGetDmaMr */
};

/* IbGetDmaMr's registration: local access to everything. */
static NTSTATUS sr_ofw_dma_(const struct sr_ofw_req *r, uint32_t acc)
{
	struct sr_mr *mr = sr_mr_get_dma(r->pd->pd, acc);

	if (mr == NULL)
		return sr_ntstatus_from_errno(errno);
	memset(r->out, 0, sizeof(*r->out));
	r->out->LocalStart = 0;
	r->out->LocalEnd = UINT64_MAX;
	r->out->AccessMask = r->mask;
	r->out->lKey = sr_mr_lkey(mr);
	r->out->rKey = 0;
	r->out->Handle = mr;
	return STATUS_SUCCESS;
}

static NTSTATUS sr_ofw_reg_(const void *p)
{
	const struct sr_ofw_req *r = p;
	uint32_t acc = sr_ofw_access(r->mask);
	struct sr_mr_src src = { 0 };
	struct sr_sg_elem *el = NULL;
	struct sr_mdl_pages mp = { 0 };
	uint64_t len;
	struct sr_mr *mr;
	int rc;

	if (acc == UINT32_MAX)
		return sr_ntstatus_from_errno(EINVAL);
	if (r->dma)
		return sr_ofw_dma_(r, acc);
	if (r->mdl) {
		rc = sr_mdl_flatten(r->mdl, &mp);
		if (rc)
			return sr_ntstatus_from_errno(rc);
		if (r->length == 0 || r->length > mp.bytes) {
			sr_mdl_pages_free(&mp);
			return sr_ntstatus_from_errno(EINVAL);
		}
		src.kind = SR_MR_SRC_PAGES;
		src.iova = mp.va;
		src.pages = (struct sr_page_list){
			.pages = mp.pages,
			.npages = ADDRESS_AND_SIZE_TO_SPAN_PAGES(mp.fbo, r->length),
			.fbo = mp.fbo,
			.length = r->length,
		};
		len = r->length;
	} else {
		ULONG n = r->sgl->NumberOfElements;

		if (n == 0)
			return sr_ntstatus_from_errno(EINVAL);
		el = calloc(n, sizeof(*el));
		if (el == NULL)
			return sr_ntstatus_from_errno(ENOMEM);
		len = 0;
		for (ULONG i = 0; i < n; i++) {
			el[i].addr = (uint64_t)r->sgl->Elements[i].Address.QuadPart;
			el[i].len = r->sgl->Elements[i].Length;
			len += el[i].len;
		}
		src.kind = SR_MR_SRC_SGL;
		src.iova = el[0].addr;
		src.sgl.elems = el;
		src.sgl.n = n;
	}
	mr = sr_mr_reg(r->pd->pd, &src, acc);
	rc = mr ? 0 : -errno;
	if (mr)
		sr_ofw_fill(r->out, mr, r->mask, src.iova, len);
	sr_mdl_pages_free(&mp);
	free(el);
	return sr_ntstatus_from_errno(rc);
}

static void sr_ofw_done(PVOID ctx, NTSTATUS st)
{
	struct sr_ofw_req *r = ctx;

	r->cb(r->ctx, st, r->out);
	free(r);
}

static NTSTATUS sr_ofw_reg(struct sr_ofw_req *r)
{
	struct sr_ndk_adapter *a = r->pd->a;
	bool async = r->cb && (a->async_all || (!r->dma && r->length >= a->async_threshold));
	struct sr_ofw_req *copy;
	NTSTATUS st;

	if (!async) {
		st = sr_ofw_reg_(r);
	} else {
		copy = malloc(sizeof(*copy));
		if (copy == NULL) {
			st = sr_ntstatus_from_errno(ENOMEM);
		} else {
			*copy = *r;
			st = sr_ndk_request(a, true, sr_ofw_reg_, copy, sizeof(*copy),
					    sr_ofw_done, copy);
			if (st != STATUS_PENDING)
				free(copy);
		}
	}
	/* an error completes the request too, as an IRP with its status */
	if (!NT_SUCCESS(st) && r->cb)
		r->cb(r->ctx, st, r->out);
	return st;
}

/* The checks of every call's arguments; then the completion object's view. */
static NTSTATUS sr_ofw_start(struct sr_ofw_req *r, const IB_COMPLETION *c, bool bad)
{
	if (c != NULL) {
		r->cb = c->Routine;
		r->ctx = c->Context;
	}
	if (bad) {
		NTSTATUS st = sr_ntstatus_from_errno(EINVAL);

		if (r->cb)
			r->cb(r->ctx, st, r->out);
		return st;
	}
	return sr_ofw_reg(r);
}

NTSTATUS IbRegVirtMr(NDK_PD *Pd, PMDL MdlList, SIZE_T Length, ULONG AccessMask,
		     IB_COMPLETION *pCompletion, IB_MR *pMr)
{
	struct sr_ofw_req r = {
		.pd = (struct sr_ndk_pd *)Pd, .mask = AccessMask, .out = pMr,
		.mdl = MdlList, .length = Length,
	};

	return sr_ofw_start(&r, pCompletion, Pd == NULL || MdlList == NULL || pMr == NULL);
}

NTSTATUS IbRegScatterGatherMr(NDK_PD *Pd, PSCATTER_GATHER_LIST Sgl, ULONG AccessMask,
			      IB_COMPLETION *pCompletion, IB_MR *pMr)
{
	struct sr_ofw_req r = {
		.pd = (struct sr_ndk_pd *)Pd, .mask = AccessMask, .out = pMr, .sgl = Sgl,
	};

	if (Sgl != NULL)
		for (ULONG i = 0; i < Sgl->NumberOfElements; i++)
			r.length += Sgl->Elements[i].Length;
	return sr_ofw_start(&r, pCompletion, Pd == NULL || Sgl == NULL || pMr == NULL);
}

NTSTATUS IbGetDmaMr(NDK_PD *Pd, ULONG AccessMask, IB_COMPLETION *pCompletion, IB_MR *pMr)
{
	struct sr_ofw_req r = {
		.pd = (struct sr_ndk_pd *)Pd, .mask = AccessMask, .out = pMr, .dma = true,
	};

	return sr_ofw_start(&r, pCompletion, Pd == NULL || pMr == NULL);
}

NTSTATUS IbDeregMr(IB_MR *pMr)
{
	int rc;

	if (pMr == NULL || pMr->Handle == NULL)
		return sr_ntstatus_from_errno(EINVAL);
	rc = sr_mr_dereg(pMr->Handle);
	if (rc == 0)
		pMr->Handle = NULL;
	return sr_ntstatus_from_errno(rc);
}
