/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mcast.c — the multicast groups of sroced's clients (SRD_MCAST).
 *
 * A client says when its UD QPs joined a group and when they left it.
 * The switch hands a group's datagrams (from the port or from another
 * client) only to its member clients, and the device's port reports the
 * membership (pmd/mcast.c: IGMP/MLD, or the kernel's on a host NIC) from
 * the first member client to the last, as a host's kernel does for its
 * processes.  A client that goes leaves its groups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pmd.h"
#include "qp/mcast.h"
#include "sroced.h"

bool srd_mcast_member(const struct srd_client *c, const uint8_t gid[16])
{
	for (uint32_t i = 0; i < c->ngroups; i++)
		if (memcmp(c->groups[i], gid, 16) == 0)
			return true;
	return false;
}

static struct srd_group *srd_group_find(struct srd_device *dv,
					const uint8_t gid[16])
{
	for (uint32_t i = 0; i < dv->ngroups; i++)
		if (memcmp(dv->groups[i].gid, gid, 16) == 0)
			return &dv->groups[i];
	return NULL;
}

/* One member more (+1) or less (-1) for the device's group. */
static int srd_group_count(struct srd_device *dv, const uint8_t gid[16],
			   int delta)
{
	struct srd_group *g = srd_group_find(dv, gid);
	int rc;

	if (delta > 0 && g == NULL) {
		if (dv->groups == NULL)
			dv->groups = calloc(SR_MAX_MCAST_GRP, sizeof(*dv->groups));
		if (dv->groups == NULL || dv->ngroups == SR_MAX_MCAST_GRP)
			return -ENOMEM;
		rc = sr_pmd_mcast(dv->pmd, gid, true);
		if (rc)
			return rc;
		g = &dv->groups[dv->ngroups++];
		memcpy(g->gid, gid, 16);
		g->members = 0;
	}
	if (g == NULL)
		return -ENOENT;
	if (delta > 0) {
		g->members++;
		return 0;
	}
	if (--g->members == 0) {
		(void)sr_pmd_mcast(dv->pmd, gid, false);
		*g = dv->groups[--dv->ngroups];
	}
	return 0;
}

int srd_mcast_set(struct srd_client *c, const uint8_t gid[16], bool on)
{
	uint32_t i;
	int rc;

	if (c->dev == NULL || c->block == 0)
		return -EPERM;
	if (!sr_gid_is_mcast(gid))
		return -EINVAL;
	for (i = 0; i < c->ngroups; i++)
		if (memcmp(c->groups[i], gid, 16) == 0)
			break;
	if (!on) {
		if (i == c->ngroups)
			return -ENOENT;
		memcpy(c->groups[i], c->groups[--c->ngroups], 16);
		return srd_group_count(c->dev, gid, -1);
	}
	if (i < c->ngroups)
		return 0;                      /* a member already */
	if (c->groups == NULL)
		c->groups = calloc(SR_MAX_MCAST_GRP, sizeof(*c->groups));
	if (c->groups == NULL || c->ngroups == SR_MAX_MCAST_GRP)
		return -ENOMEM;
	rc = srd_group_count(c->dev, gid, +1);
	if (rc == 0)
		memcpy(c->groups[c->ngroups++], gid, 16);
	return rc;
}

void srd_mcast_drop_client(struct srd_client *c)
{
	while (c->ngroups > 0)
		(void)srd_mcast_set(c, c->groups[c->ngroups - 1], false);
	free(c->groups);
	c->groups = NULL;
}

void srd_mcast_close(struct srd_device *dv)
{
	free(dv->groups);
	dv->groups = NULL;
	dv->ngroups = 0;
}
