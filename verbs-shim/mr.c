/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mr.c — protection domains, memory regions and memory windows, on lib/mr.
 *
 * Registration never pins or touches memory (lib/mr: IOVA-as-VA), so it
 * needs no EAL: a PD and an MR work on a device whose port is not up.
 * IBV_ACCESS_ON_DEMAND is lib/mr's on-demand paging (lib/mr/odp.c);
 * ibv_reg_mr(pd, NULL, SIZE_MAX, ...ON_DEMAND) its implicit region.
 */
#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mr/mr.h"
#include "qp/qp.h"
#include "shim.h"

/* verbs.h routes these through inline helpers; here are the symbols. */
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

/* ---- PD ---- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct sr_ibv_pd *p;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	p->pd = sr_pd_alloc(sr_ctx(context)->rt->mr);
	if (p->pd == NULL) {
		errno = sr_ibv_err(errno);
		free(p);
		return NULL;
	}
	p->ibpd.context = context;
	p->ibpd.handle = sr_pd_handle(p->pd);
	return &p->ibpd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct sr_ibv_pd *p;
	int rc;

	if (pd == NULL)
		return EINVAL;
	p = sr_container_of(pd, struct sr_ibv_pd, ibpd);
	if (p->protection != NULL)
		return sr_ibv_dealloc_parent_domain(p);
	rc = sr_pd_dealloc(p->pd);
	if (rc)
		return sr_ibv_err(rc);
	free(p);
	return 0;
}

static struct sr_pd *sr_pd_of(struct ibv_pd *pd)
{
	return sr_container_of(pd, struct sr_ibv_pd, ibpd)->pd;
}

/* ---- MR ---- */

/*
 * The rkey verbs reports: the region's key even without remote access, as
 * mlx5 and rxe report one key for both (a remote request with it is still
 * refused: the access rights are checked, a Remote Access Error).
 */
static uint32_t sr_ibv_rkey(const struct sr_mr *mr)
{
	uint32_t k = sr_mr_rkey(mr);

	return k ? k : sr_mr_lkey(mr);
}

static void sr_ibv_mr_fill(struct sr_ibv_mr *m, struct ibv_pd *pd, void *addr,
			   size_t length)
{
	m->ibmr.context = pd->context;
	m->ibmr.pd = pd;
	m->ibmr.addr = addr;
	m->ibmr.length = length;
	m->ibmr.handle = sr_mr_lkey(m->mr);
	m->ibmr.lkey = sr_mr_lkey(m->mr);
	m->ibmr.rkey = sr_ibv_rkey(m->mr);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	struct sr_ibv_mr *m;
	uint32_t sr_access;
	int rc;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	rc = sr_ibv_access_to_sr(access, &sr_access);
	if (rc) {
		errno = sr_ibv_err(rc);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	m->mr = sr_mr_reg_virt(sr_pd_of(pd), addr, length, iova, sr_access);
	if (m->mr == NULL) {
		errno = sr_ibv_err(errno);
		free(m);
		return NULL;
	}
	sr_ibv_mr_fill(m, pd, addr, length);
	return &m->ibmr;
}

struct ibv_mr *sr_ibv_mr_empty(struct ibv_pd *pd)
{
	struct sr_ibv_mr *m = calloc(1, sizeof(*m));

	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	m->mr = sr_mr_create(sr_pd_of(pd), false);
	if (m->mr == NULL) {
		errno = sr_ibv_err(errno);
		free(m);
		return NULL;
	}
	sr_ibv_mr_fill(m, pd, NULL, 0);
	return &m->ibmr;
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access);
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	return ibv_reg_mr_iova2(pd, addr, length, (uint64_t)(uintptr_t)addr,
				(unsigned int)access);
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access)
{
	(void)pd;
	(void)offset;
	(void)length;
	(void)iova;
	(void)fd;
	(void)access;
	errno = EOPNOTSUPP;
	return NULL;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct sr_ibv_mr *m;
	int rc;

	if (mr == NULL)
		return EINVAL;
	m = sr_container_of(mr, struct sr_ibv_mr, ibmr);
	rc = sr_mr_dereg(m->mr);
	if (rc)
		return sr_ibv_err(rc);
	if (m->dm != NULL)
		sr_ibv_dm_mr_gone(m->dm);
	free(m);
	return 0;
}

/* X(IBV_REREG_MR_CHANGE_*, SR_REREG_*) */
#define SR_IBV_REREG_LIST(X)                                  \
	X(IBV_REREG_MR_CHANGE_TRANSLATION, SR_REREG_TRANS)    \
	X(IBV_REREG_MR_CHANGE_PD, SR_REREG_PD)                \
	X(IBV_REREG_MR_CHANGE_ACCESS, SR_REREG_ACCESS)

int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr,
		 size_t length, int access)
{
	struct sr_mr_src src = { .kind = SR_MR_SRC_VIRT };
	uint32_t sr_flags = 0, sr_access = 0;
	struct sr_ibv_mr *m;
	int rc;

	if (mr == NULL)
		return IBV_REREG_MR_ERR_INPUT;
#define SR_X(i, s)                       \
	if (flags & (i)) {               \
		sr_flags |= (s);         \
		flags &= ~(i);           \
	}
	SR_IBV_REREG_LIST(SR_X)
#undef SR_X
	if (flags || sr_flags == 0) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if ((sr_flags & SR_REREG_PD) && pd == NULL) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	/* libibverbs' own rule: a new translation names a buffer (so never
	 * an implicit region) */
	if ((sr_flags & SR_REREG_TRANS) && (addr == NULL || length == 0)) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (sr_flags & SR_REREG_ACCESS) {
		rc = sr_ibv_access_to_sr((unsigned int)access, &sr_access);
		if (rc) {
			errno = sr_ibv_err(rc);
			return IBV_REREG_MR_ERR_INPUT;
		}
	}
	m = sr_container_of(mr, struct sr_ibv_mr, ibmr);
	/* device memory's MRs stay what they were registered as (dm.c) */
	if (m->dm != NULL) {
		errno = EINVAL;
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (sr_flags & SR_REREG_TRANS) {
		src.iova = (uint64_t)(uintptr_t)addr;
		src.virt.addr = addr;
		src.virt.length = length;
	}
	/* the keys stay, as on mlx5 and rxe */
	rc = sr_mr_rereg(m->mr, sr_flags | SR_REREG_KEEP_KEYS,
			 (sr_flags & SR_REREG_PD) ? sr_pd_of(pd) : NULL,
			 (sr_flags & SR_REREG_TRANS) ? &src : NULL, sr_access);
	if (rc) {
		errno = sr_ibv_err(rc);
		return IBV_REREG_MR_ERR_INPUT;
	}
	if (sr_flags & SR_REREG_PD)
		mr->pd = pd;
	if (sr_flags & SR_REREG_TRANS) {
		mr->addr = addr;
		mr->length = length;
	}
	mr->lkey = sr_mr_lkey(m->mr);
	mr->rkey = sr_ibv_rkey(m->mr);
	mr->handle = mr->lkey;
	return 0;
}

/* ibv_sge is what lib/mr's advise ranges are. */
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct sr_mr_advise_sge) &&
	       offsetof(struct ibv_sge, addr) == offsetof(struct sr_mr_advise_sge, addr) &&
	       offsetof(struct ibv_sge, length) == offsetof(struct sr_mr_advise_sge, length) &&
	       offsetof(struct ibv_sge, lkey) == offsetof(struct sr_mr_advise_sge, lkey),
	       "struct ibv_sge and struct sr_mr_advise_sge differ");
_Static_assert((int)IBV_ADVISE_MR_ADVICE_PREFETCH == SR_ADVISE_PREFETCH &&
	       (int)IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE == SR_ADVISE_PREFETCH_WRITE &&
	       (int)IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT == SR_ADVISE_PREFETCH_NO_FAULT &&
	       IBV_ADVISE_MR_FLAG_FLUSH == SR_ADVISE_FLAG_FLUSH,
	       "ibv_advise_mr's values and lib/mr's differ");

/*
 * ibv_advise_mr: lib/mr's errors are the verb's own (EOPNOTSUPP, EINVAL,
 * EPERM, EFAULT: mr/mr.h), so they pass as they are, not through
 * sr_ibv_err (which folds EPERM).
 */
int sr_ibv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		     uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	if (pd == NULL)
		return EINVAL;
	return -sr_mr_advise(sr_pd_of(pd), (unsigned int)advice, flags,
			     (const struct sr_mr_advise_sge *)(void *)sg_list,
			     num_sge);
}

/* ---- MW ---- */

#define SR_BIND_WAIT_ROUNDS 20000

struct ibv_mw *sr_ibv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct sr_ibv_mw *w;

	if (pd == NULL || (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* enum ibv_mw_type and enum sr_mw_type share their values. */
	w->mw = sr_mw_alloc(sr_pd_of(pd), (enum sr_mw_type)type);
	if (w->mw == NULL) {
		errno = sr_ibv_err(errno);
		free(w);
		return NULL;
	}
	w->ibmw.context = pd->context;
	w->ibmw.pd = pd;
	w->ibmw.rkey = sr_mw_rkey(w->mw);
	w->ibmw.handle = w->ibmw.rkey;
	w->ibmw.type = type;
	return &w->ibmw;
}

int sr_ibv_dealloc_mw(struct ibv_mw *mw)
{
	struct sr_ibv_mw *w;

	if (mw == NULL)
		return EINVAL;
	w = sr_container_of(mw, struct sr_ibv_mw, ibmw);
	sr_mw_dealloc(w->mw);
	free(w);
	return 0;
}

/*
 * ibv_bind_mw (type 1): the bind is a send work request in ibverbs; it
 * is posted as one (SR_WR_BIND_MW carries the window) and completes on
 * the send CQ.  The new rkey is the window's key once the engine ran it.
 */
int sr_ibv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *bind)
{
	const struct timespec nap = { .tv_nsec = 100000 };
	struct ibv_send_wr wr = { 0 }, *bad = NULL;
	struct sr_ibv_mw *w;
	uint32_t old;
	int rc;

	if (qp == NULL || mw == NULL || bind == NULL)
		return EINVAL;
	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	w = sr_container_of(mw, struct sr_ibv_mw, ibmw);
	wr.wr_id = bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = mw->rkey;
	wr.bind_mw.bind_info = bind->bind_info;
	old = sr_mw_rkey(w->mw);
	rc = sr_ibv_post_send(qp, &wr, &bad);
	if (rc)
		return rc;
	/* The engine binds in send-queue order; ibverbs returns the new
	 * rkey now.  A bind that fails reports it in its completion. */
	for (int i = 0; i < SR_BIND_WAIT_ROUNDS && sr_mw_rkey(w->mw) == old;
	     i++) {
		sr_ibv_progress(sr_qp_of(qp)->rt);
		if (i > SR_BIND_WAIT_ROUNDS / 2)
			nanosleep(&nap, NULL);
	}
	mw->rkey = sr_mw_rkey(w->mw);
	return 0;
}
