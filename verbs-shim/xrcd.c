/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xrcd.c — ibv_open_xrcd / ibv_close_xrcd on lib/qp/xrcd.h, and
 * ibv_open_qp on the process's XRC target QPs.
 *
 * What the kernel's ib_uverbs_open_xrcd does for an RNIC, within this
 * process: fd -1 opens a new private domain (whatever the oflags); a
 * file's fd opens the domain of its inode on this device — the same one
 * for every open of the same inode (counted, ibv_close_xrcd drops one),
 * created with O_CREAT, refused with O_EXCL when it exists (EINVAL) and
 * without O_CREAT when it does not (EAGAIN); other oflags bits are
 * ignored.  Another process opening the same inode gets its own domain:
 * sroce's objects live in each process, so sharing XRC SRQs and targets
 * across processes (ibv_open_qp of another's target) is not possible.
 * Errors: EOPNOTSUPP for unknown comp_mask bits, EINVAL without FD and
 * OFLAGS (rdma-core's check), EBADF for a bad fd, EBUSY closing a domain
 * an SRQ or a target QP still uses.
 *
 * ibv_open_qp opens another handle on an XRC target QP of this process,
 * by number within its domain, as the kernel's ib_open_qp: the QP stays
 * until its last handle, the creator's included, is destroyed; each
 * handle may modify and query it and gets its events.  Errors: EINVAL
 * without the number, domain and type, for another type than
 * IBV_QPT_XRC_RECV, and for a number that is no target of the domain
 * here (another process's included); EOPNOTSUPP for unknown comp_mask bits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "qp/qp.h"
#include "qp/xrcd.h"
#include "shim.h"

static struct sr_ibv_xrcd *sr_ibv_xrcd_find(struct sr_ibv_rt *rt,
					    const struct stat *st)
{
	struct sr_ibv_xrcd *x;

	for (x = rt->xrcds; x != NULL; x = x->next)
		if (x->shared && x->st_dev == st->st_dev &&
		    x->st_ino == st->st_ino)
			return x;
	return NULL;
}

static struct ibv_xrcd *sr_ibv_open_xrcd(struct ibv_context *c,
					 struct ibv_xrcd_init_attr *a)
{
	struct sr_ibv_rt *rt = sr_ctx(c)->rt;
	struct sr_ibv_xrcd *x;
	struct stat st;
	bool shared;

	if (a == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (a->comp_mask >= IBV_XRCD_INIT_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(a->comp_mask & IBV_XRCD_INIT_ATTR_FD) ||
	    !(a->comp_mask & IBV_XRCD_INIT_ATTR_OFLAGS)) {
		errno = EINVAL;
		return NULL;
	}
	shared = a->fd != -1;
	if (shared && fstat(a->fd, &st) != 0) {
		errno = EBADF;
		return NULL;
	}
	/* the device's port and engine: a domain is a transport object */
	x = sr_ibv_obj_new(rt, sizeof(*x));
	if (x == NULL)
		return NULL;
	pthread_mutex_lock(&rt->xrcd_lock);
	if (shared) {
		struct sr_ibv_xrcd *old = sr_ibv_xrcd_find(rt, &st);

		if (old != NULL && (a->oflags & O_EXCL)) {
			pthread_mutex_unlock(&rt->xrcd_lock);
			free(x);
			errno = EINVAL;
			return NULL;
		}
		if (old != NULL) {
			old->refs++;
			pthread_mutex_unlock(&rt->xrcd_lock);
			free(x);
			return &old->ibxrcd;
		}
		if (!(a->oflags & O_CREAT)) {     /* no domain yet: create it */
			pthread_mutex_unlock(&rt->xrcd_lock);
			free(x);
			errno = EAGAIN;
			return NULL;
		}
		x->st_dev = st.st_dev;
		x->st_ino = st.st_ino;
	}
	x->xrcd = sr_xrcd_alloc(rt->dev);
	if (x->xrcd == NULL) {
		pthread_mutex_unlock(&rt->xrcd_lock);
		free(x);
		errno = ENOMEM;
		return NULL;
	}
	x->shared = shared;
	x->refs = 1;
	x->rt = rt;
	x->ibxrcd.context = c;
	x->next = rt->xrcds;
	rt->xrcds = x;
	pthread_mutex_unlock(&rt->xrcd_lock);
	return &x->ibxrcd;
}

static int sr_ibv_close_xrcd(struct ibv_xrcd *ibx)
{
	struct sr_ibv_xrcd *x, **pp;
	struct sr_ibv_rt *rt;
	int rc;

	if (ibx == NULL)
		return EINVAL;
	x = sr_xrcd_of(ibx);
	rt = x->rt;
	pthread_mutex_lock(&rt->xrcd_lock);
	if (x->refs > 1) {
		x->refs--;
		pthread_mutex_unlock(&rt->xrcd_lock);
		return 0;
	}
	rc = sr_xrcd_dealloc(x->xrcd);
	if (rc != 0) {
		pthread_mutex_unlock(&rt->xrcd_lock);
		return sr_ibv_err(rc);
	}
	for (pp = &rt->xrcds; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	}
	pthread_mutex_unlock(&rt->xrcd_lock);
	free(x);
	return 0;
}

/* ---- XRC target QPs and their handles ---- */

int sr_ibv_tgt_add(struct sr_ibv_qp *w, struct ibv_xrcd *xrcd)
{
	struct sr_ibv_tgt *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return -ENOMEM;
	t->qp = w->qp;
	t->xrcd = xrcd;
	t->handles = 1;
	pthread_mutex_lock(&w->rt->xrcd_lock);
	t->next = w->rt->tgts;
	w->rt->tgts = t;
	pthread_mutex_unlock(&w->rt->xrcd_lock);
	w->tgt = t;
	return 0;
}

bool sr_ibv_tgt_put(struct sr_ibv_qp *w)
{
	pthread_mutex_lock(&w->rt->xrcd_lock);
	if (w->tgt->handles > 1) {
		w->tgt->handles--;
		pthread_mutex_unlock(&w->rt->xrcd_lock);
		return true;
	}
	return false;                  /* still locked: no open meanwhile */
}

void sr_ibv_tgt_done(struct sr_ibv_qp *w, bool destroyed)
{
	struct sr_ibv_tgt **pp;

	if (destroyed) {
		for (pp = &w->rt->tgts; *pp != NULL; pp = &(*pp)->next) {
			if (*pp == w->tgt) {
				*pp = w->tgt->next;
				break;
			}
		}
	}
	pthread_mutex_unlock(&w->rt->xrcd_lock);
	if (destroyed) {
		free(w->tgt);
		w->tgt = NULL;
	}
}

static struct ibv_qp *sr_ibv_open_qp(struct ibv_context *c,
				     struct ibv_qp_open_attr *a)
{
	const uint32_t need = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			      IBV_QP_OPEN_ATTR_TYPE;
	struct sr_ibv_ctx *ctx = sr_ctx(c);
	struct sr_ibv_rt *rt = ctx->rt;
	struct sr_ibv_tgt *t;
	struct sr_ibv_qp *w;
	struct ibv_qp *q;
	int rc;

	if (a == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (a->comp_mask >= IBV_QP_OPEN_ATTR_RESERVED) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((a->comp_mask & need) != need || a->xrcd == NULL ||
	    a->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	w = sr_ibv_obj_new(rt, sizeof(*w));
	if (w == NULL)
		return NULL;
	pthread_mutex_lock(&rt->xrcd_lock);
	for (t = rt->tgts; t != NULL; t = t->next)
		if (t->xrcd == a->xrcd && sr_qp_num(t->qp) == a->qp_num)
			break;
	if (t != NULL)
		t->handles++;
	pthread_mutex_unlock(&rt->xrcd_lock);
	if (t == NULL) {
		free(w);
		errno = EINVAL;               /* no such target here */
		return NULL;
	}
	w->rt = rt;
	w->qp = t->qp;
	w->tgt = t;
	q = &w->qpx.base.qp_base;
	q->context = c;
	q->qp_context = (a->comp_mask & IBV_QP_OPEN_ATTR_CONTEXT) ?
			a->qp_context : NULL;
	q->qp_num = a->qp_num;
	q->handle = q->qp_num;
	q->state = (enum ibv_qp_state)sr_qp_state(w->qp);
	q->qp_type = IBV_QPT_XRC_RECV;
	pthread_mutex_init(&q->mutex, NULL);
	pthread_cond_init(&q->cond, NULL);
	rc = sr_ibv_map_add(rt, w->qp, q, ctx);
	if (rc) {
		/* the handle goes as any other: the QP too if it was the last */
		(void)ibv_destroy_qp(q);
		errno = sr_ibv_err(rc);
		return NULL;
	}
	return q;
}

void sr_ibv_xrcd_ops_init(struct verbs_context *v)
{
	v->open_xrcd = sr_ibv_open_xrcd;
	v->close_xrcd = sr_ibv_close_xrcd;
	v->open_qp = sr_ibv_open_qp;
}
