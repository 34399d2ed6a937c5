/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xrcd.c — ibv_open_xrcd / ibv_close_xrcd on lib/qp/xrcd.h.
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
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

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

void sr_ibv_xrcd_ops_init(struct verbs_context *v)
{
	v->open_xrcd = sr_ibv_open_xrcd;
	v->close_xrcd = sr_ibv_close_xrcd;
}
