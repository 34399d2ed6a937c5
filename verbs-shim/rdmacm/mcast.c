/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcast.c — rdma_join_multicast, rdma_join_multicast_ex and
 * rdma_leave_multicast, as rdma-core's librdmacm and the kernel's rdma_cm
 * do them on RoCE: the group's GID is its IP address (IPv4-mapped for
 * IPv4), its datagrams go to QPN 0xFFFFFF with the port space's Q_Key,
 * and the id's QP is attached when the consumer takes the
 * RDMA_CM_EVENT_MULTICAST_JOIN event (a send-only member is not).  The
 * device's own membership (the port's reports) follows its QPs' attaches
 * (verbs-shim/qp.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp/mcast.h"
#include "rdmacm.h"

struct sr_rcm_mc {
	struct sr_rcm_mc *next;
	struct sockaddr_storage addr;
	uint8_t mgid[16];
	void *context;
	bool send_only;
	bool attached;                 /* its QP attach is done */
};

/* The ids' groups; joins, events and leaves come from any thread. */
static pthread_mutex_t sr_rcm_mc_lock = PTHREAD_MUTEX_INITIALIZER;

static bool sr_rcm_same_addr(const struct sockaddr *a,
			     const struct sockaddr_storage *b)
{
	uint8_t ga[16], gb[16];

	if (a->sa_family != b->ss_family ||
	    sr_rcm_gid_of(a, ga) || sr_rcm_gid_of((const void *)b, gb))
		return false;
	return memcmp(ga, gb, 16) == 0;
}

/* Another entry of the id, on the same group, whose QP attach stands. */
static bool sr_rcm_mc_other_attached(const struct sr_rcm_id *r,
				     const struct sr_rcm_mc *mc)
{
	for (const struct sr_rcm_mc *m = r->mc; m != NULL; m = m->next)
		if (m != mc && m->attached && memcmp(m->mgid, mc->mgid, 16) == 0)
			return true;
	return false;
}

int rdma_join_multicast_ex(struct rdma_cm_id *id,
			   struct rdma_cm_join_mc_attr_ex *attr, void *context)
{
	struct sr_rcm_evt *e;
	struct sr_rcm_id *r;
	struct sr_rcm_mc *mc;
	struct rdma_ud_param *ud;
	uint8_t mgid[16];

	if (id == NULL || attr == NULL ||
	    !(attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_ADDRESS) ||
	    !(attr->comp_mask & RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS) ||
	    attr->join_flags >= RDMA_MC_JOIN_FLAG_RESERVED ||
	    attr->addr == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	/* the kernel's checks: a UD id with a device, a group address */
	if (id->verbs == NULL || r->dev < 0 || id->qp_type != IBV_QPT_UD ||
	    sr_rcm_gid_of(attr->addr, mgid) != 0 || !sr_gid_is_mcast(mgid)) {
		errno = EINVAL;
		return -1;
	}
	mc = calloc(1, sizeof(*mc));
	e = sr_rcm_evt_new(r);
	if (mc == NULL || e == NULL) {
		free(mc);
		free(e);
		errno = ENOMEM;
		return -1;
	}
	memcpy(&mc->addr, attr->addr, attr->addr->sa_family == AF_INET ?
		sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
	memcpy(mc->mgid, mgid, 16);
	mc->context = context;
	mc->send_only = attr->join_flags ==
			RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER;
	pthread_mutex_lock(&sr_rcm_mc_lock);
	mc->next = r->mc;
	r->mc = mc;
	pthread_mutex_unlock(&sr_rcm_mc_lock);

	/* What the kernel's cma_make_mc_event gives on RoCE. */
	e->local = RDMA_CM_EVENT_MULTICAST_JOIN;
	ud = &e->ev.param.ud;
	ud->private_data = context;
	sr_rcm_ah_attr(r, &ud->ah_attr);
	memcpy(ud->ah_attr.grh.dgid.raw, mgid, 16);
	ud->ah_attr.grh.flow_label = 0;
	ud->qp_num = SR_MCAST_QPN;
	ud->qkey = RDMA_UDP_QKEY;
	sr_rcm_evt_push(r->chan, e);
	return r->sync ? sr_rcm_sync_wait(r, RDMA_CM_EVENT_MULTICAST_JOIN) : 0;
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			void *context)
{
	struct rdma_cm_join_mc_attr_ex attr = {
		.comp_mask = RDMA_CM_JOIN_MC_ATTR_ADDRESS |
			     RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS,
		.join_flags = RDMA_MC_JOIN_FLAG_FULLMEMBER,
		.addr = addr,
	};

	return rdma_join_multicast_ex(id, &attr, context);
}

/*
 * The consumer takes a join event: attach the id's QP, as librdmacm does
 * then.  An attach that fails turns the event into MULTICAST_ERROR.
 * false: the group was left meanwhile (no event).
 */
bool sr_rcm_mc_joined(struct sr_rcm_evt *e)
{
	struct sr_rcm_id *r = e->id;
	const uint8_t *mgid = e->ev.param.ud.ah_attr.grh.dgid.raw;
	struct sr_rcm_mc *mc;
	int rc = 0;

	pthread_mutex_lock(&sr_rcm_mc_lock);
	for (mc = r->mc; mc != NULL; mc = mc->next)
		if (mc->context == e->ev.param.ud.private_data &&
		    memcmp(mc->mgid, mgid, 16) == 0 && !mc->attached)
			break;
	if (mc == NULL) {
		pthread_mutex_unlock(&sr_rcm_mc_lock);
		return false;
	}
	if (!mc->send_only && r->id.qp != NULL) {
		rc = ibv_attach_mcast(r->id.qp, (const union ibv_gid *)mgid, 0);
		mc->attached = rc == 0;
	}
	pthread_mutex_unlock(&sr_rcm_mc_lock);
	if (rc) {
		e->local = RDMA_CM_EVENT_MULTICAST_ERROR;
		e->status = -rc;
	}
	return true;
}

static void sr_rcm_mc_drop(struct sr_rcm_id *r, struct sr_rcm_mc *mc)
{
	if (mc->attached && r->id.qp != NULL && !sr_rcm_mc_other_attached(r, mc))
		(void)ibv_detach_mcast(r->id.qp, (const union ibv_gid *)mc->mgid,
				       0);
	free(mc);
}

int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct sr_rcm_mc **pp, *mc;
	struct sr_rcm_id *r;

	if (id == NULL || addr == NULL) {
		errno = EINVAL;
		return -1;
	}
	r = sr_rcm_id(id);
	pthread_mutex_lock(&sr_rcm_mc_lock);
	for (pp = &r->mc; *pp != NULL; pp = &(*pp)->next)
		if (sr_rcm_same_addr(addr, &(*pp)->addr))
			break;
	mc = *pp;
	if (mc == NULL) {
		pthread_mutex_unlock(&sr_rcm_mc_lock);
		errno = EADDRNOTAVAIL;
		return -1;
	}
	*pp = mc->next;
	sr_rcm_mc_drop(r, mc);
	pthread_mutex_unlock(&sr_rcm_mc_lock);
	return 0;
}

void sr_rcm_mc_release(struct sr_rcm_id *r)
{
	pthread_mutex_lock(&sr_rcm_mc_lock);
	while (r->mc != NULL) {
		struct sr_rcm_mc *mc = r->mc;

		r->mc = mc->next;
		sr_rcm_mc_drop(r, mc);
	}
	pthread_mutex_unlock(&sr_rcm_mc_lock);
}
