/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcast.c — a device's UD multicast groups: which QPs each group's
 * datagrams reach.  Groups are few and datagrams to them rare next to
 * unicast traffic, so a group is found by a walk of a small table; a QP
 * counts its groups so that destroying one that joined none costs nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qp/mcast.h"
#include "qp/qp_priv.h"
#include "wire/hdr.h"
#include "wire/opcode.h"
#include "wire/parse.h"

struct sr_mcast_grp {
	uint8_t gid[16];
	unsigned int n;
	struct sr_qp *qp[SR_MAX_MCAST_QP_ATTACH];
};

static struct sr_mcast_grp *sr_mcast_find(struct sr_dev *dev,
					  const uint8_t gid[16],
					  unsigned int *slot)
{
	for (unsigned int i = 0; i < SR_MAX_MCAST_GRP; i++) {
		struct sr_mcast_grp *g = dev->mcast[i];

		if (g != NULL && memcmp(g->gid, gid, 16) == 0) {
			if (slot)
				*slot = i;
			return g;
		}
	}
	return NULL;
}

static int sr_mcast_qp_index(const struct sr_mcast_grp *g,
			     const struct sr_qp *qp)
{
	for (unsigned int i = 0; i < g->n; i++)
		if (g->qp[i] == qp)
			return (int)i;
	return -1;
}

int sr_mcast_attach(struct sr_qp *qp, const uint8_t gid[16])
{
	struct sr_dev *dev;
	struct sr_mcast_grp *g;
	unsigned int i;
	int rc = 0;

	if (qp == NULL || gid == NULL || qp->type != SR_QPT_UD ||
	    !sr_gid_is_mcast(gid))
		return -EINVAL;
	dev = qp->dev;
	sr_dev_lock_all(dev);
	g = sr_mcast_find(dev, gid, NULL);
	if (g == NULL) {
		for (i = 0; i < SR_MAX_MCAST_GRP && dev->mcast[i]; i++)
			;
		if (i == SR_MAX_MCAST_GRP ||
		    (g = calloc(1, sizeof(*g))) == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		memcpy(g->gid, gid, 16);
		dev->mcast[i] = g;
		rc = 1;
	} else if (sr_mcast_qp_index(g, qp) >= 0) {
		goto out;                 /* attached already: nothing to do */
	} else if (g->n == SR_MAX_MCAST_QP_ATTACH) {
		rc = -ENOMEM;
		goto out;
	}
	g->qp[g->n++] = qp;
	qp->nmcast++;
out:
	sr_dev_unlock_all(dev);
	return rc;
}

/* Remove a QP from a group; free the group when it was the last. */
static int sr_mcast_remove(struct sr_dev *dev, unsigned int slot, int at)
{
	struct sr_mcast_grp *g = dev->mcast[slot];

	g->qp[at]->nmcast--;
	g->qp[at] = g->qp[--g->n];
	if (g->n > 0)
		return 0;
	dev->mcast[slot] = NULL;
	free(g);
	return 1;
}

int sr_mcast_detach(struct sr_qp *qp, const uint8_t gid[16])
{
	struct sr_mcast_grp *g;
	struct sr_dev *dev;
	unsigned int slot;
	int rc = -EINVAL, at;

	if (qp == NULL || gid == NULL)
		return -EINVAL;
	dev = qp->dev;
	sr_dev_lock_all(dev);
	g = sr_mcast_find(dev, gid, &slot);
	if (g != NULL && (at = sr_mcast_qp_index(g, qp)) >= 0)
		rc = sr_mcast_remove(dev, slot, at);
	sr_dev_unlock_all(dev);
	return rc;
}

/* Leave every group; what the device left goes to left[] if given. */
static unsigned int sr_mcast_leave(struct sr_qp *qp, uint8_t left[][16])
{
	struct sr_dev *dev = qp->dev;
	unsigned int n = 0;

	for (unsigned int i = 0; i < SR_MAX_MCAST_GRP && qp->nmcast; i++) {
		uint8_t gid[16];
		int at;

		if (dev->mcast[i] == NULL)
			continue;
		at = sr_mcast_qp_index(dev->mcast[i], qp);
		if (at < 0)
			continue;
		memcpy(gid, dev->mcast[i]->gid, 16);
		if (sr_mcast_remove(dev, i, at) && left != NULL)
			memcpy(left[n++], gid, 16);
	}
	return n;
}

unsigned int sr_mcast_detach_all(struct sr_qp *qp, uint8_t left[][16])
{
	unsigned int n;

	if (qp == NULL || qp->nmcast == 0)
		return 0;
	sr_dev_lock_all(qp->dev);
	n = sr_mcast_leave(qp, left);
	sr_dev_unlock_all(qp->dev);
	return n;
}

void sr_mcast_qp_gone(struct sr_qp *qp)
{
	sr_mcast_leave(qp, NULL);
}

void sr_mcast_fini(struct sr_dev *dev)
{
	for (unsigned int i = 0; i < SR_MAX_MCAST_GRP; i++) {
		free(dev->mcast[i]);
		dev->mcast[i] = NULL;
	}
}

void sr_mcast_rx(struct sr_dev *dev, const struct sr_pkt *pkt)
{
	const uint8_t *ip = sr_pkt_l3(pkt);
	struct sr_mcast_grp *g;
	uint8_t gid[16];

	/* IBA 10.5.2.3: only unreliable datagrams go to a group */
	if ((pkt->opcode & SR_TT_MASK) != SR_TT_UD) {
		sr_dev_count(dev, SR_CNT_MCAST_DROP, 1);
		return;
	}
	if (pkt->ipv6) {
		memcpy(gid, ip + 24, 16);
	} else {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, ip + 16, 4);
	}
	g = sr_gid_is_mcast(gid) ? sr_mcast_find(dev, gid, NULL) : NULL;
	if (g == NULL) {
		sr_dev_count(dev, SR_CNT_MCAST_DROP, 1);
		return;
	}
	sr_dev_count(dev, SR_CNT_MCAST_RCVD, 1);
	/* each QP takes the datagram as if it were its own (a receive WQE,
	 * its Q_Key, its P_Key); none changes the group meanwhile */
	for (unsigned int i = 0; i < g->n; i++)
		sr_dev_rx_qp(dev, g->qp[i], pkt);
}
