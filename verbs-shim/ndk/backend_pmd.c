/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * backend_pmd.c — sr_ndk_open_adapter(): an NDK adapter on the pmd node
 * the environment configures (pmd/node.h, pmd/CONFIG.md).  Progress is the
 * node's (inline: whoever polls; dedicated: its lcore), QPs are connected
 * by the node (ARP/ND, RTR, RTS), addresses are the device's GIDs.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "ndk_priv.h"
#include "node.h"

struct sr_ndk_pmd {
	struct sr_node *node;
	struct sr_ndk_adapter *a;
};

static int sr_ndk_pmd_progress(void *ctx)
{
	return sr_node_progress(((struct sr_ndk_pmd *)ctx)->node);
}

static int sr_ndk_pmd_qp_connect(void *ctx, struct sr_qp *qp, uint32_t sq_psn,
				 const struct sr_ndk_peer *peer)
{
	struct sr_node *node = ((struct sr_ndk_pmd *)ctx)->node;
	struct sr_node_peer p = { .qpn = peer->qpn, .psn = peer->psn };
	int rc;

	/*
	 * memif: the link is up once the other node's process is there.  A
	 * peer at one of our own addresses is looped back in the device and
	 * needs no link (the adapter advertises loopback connections).
	 */
	if (!sr_node_gid_is_local(node, peer->gid)) {
		rc = sr_node_link_wait(node, 15000);
		if (rc)
			return rc;
	}
	memcpy(p.gid, peer->gid, 16);
	return sr_node_qp_connect(node, qp, sq_psn, &p, NULL, 5000);
}

static void sr_ndk_sa_to_gid(const struct sockaddr *sa, uint8_t gid[16])
{
	memset(gid, 0, 16);
	if (sa->sa_family == AF_INET) {
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else {
		memcpy(gid, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	}
}

static int sr_ndk_pmd_gid(void *ctx, const struct sockaddr *peer, uint8_t gid[16])
{
	struct sr_ndk_pmd *p = ctx;
	uint8_t dgid[16];
	int idx;

	sr_ndk_sa_to_gid(peer, dgid);
	idx = sr_node_sgid_index(p->node, dgid);
	if (idx < 0)
		return idx;
	return sr_node_gid(p->node, (unsigned int)idx, gid);
}

static int sr_ndk_pmd_close(void *ctx)
{
	struct sr_ndk_pmd *p = ctx;
	int rc = sr_node_close(p->node);

	if (rc == 0)
		free(p);
	return rc;
}

static const struct sr_ndk_backend_ops sr_ndk_pmd_ops = {
	.progress = sr_ndk_pmd_progress,
	.qp_connect = sr_ndk_pmd_qp_connect,
	.gid = sr_ndk_pmd_gid,
	.close = sr_ndk_pmd_close,
};

static void sr_ndk_pmd_async(void *ctx, const struct sr_async_event *ev)
{
	struct sr_ndk_pmd *p = ctx;

	if (p->a && ev->type == SR_EVENT_SRQ_LIMIT_REACHED)
		sr_ndk_srq_event(p->a, ev->srq);
}

/* The device's addresses, from its GID table (IPv4-mapped: AF_INET). */
static void sr_ndk_pmd_addrs(struct sr_ndk_pmd *p, struct sr_ndk_backend *be)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };

	for (unsigned int i = 0; i < SR_GID_TABLE_LEN && be->naddr < 4; i++) {
		uint8_t gid[16];
		struct sockaddr_storage *ss = &be->addr[be->naddr];

		if (sr_node_gid(p->node, i, gid) || (gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80))
			continue;
		memset(ss, 0, sizeof(*ss));
		if (memcmp(gid, v4mapped, 12) == 0) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

			s4->sin_family = AF_INET;
			memcpy(&s4->sin_addr, gid + 12, 4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
			static const uint8_t zero[16];

			if (memcmp(gid, zero, 16) == 0)
				continue;
			s6->sin6_family = AF_INET6;
			memcpy(&s6->sin6_addr, gid, 16);
		}
		be->naddr++;
	}
}

NTSTATUS sr_ndk_open_adapter(PCSTR DeviceName, NDK_ADAPTER **ppNdkAdapter)
{
	struct sr_node_params params = { .async_cb = sr_ndk_pmd_async };
	struct sr_ndk_backend be = { .ops = &sr_ndk_pmd_ops };
	struct sr_ndk_pmd *p;
	NTSTATUS st;
	int rc;

	if (ppNdkAdapter == NULL || (DeviceName && strcmp(DeviceName, "sroce0") != 0))
		return sr_ntstatus_from_errno(EINVAL);
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return sr_ntstatus_from_errno(ENOMEM);
	params.async_ctx = p;
	rc = sr_node_open(&params, &p->node);
	if (rc) {
		free(p);
		return sr_ntstatus_from_errno(rc == -ENOMEM ? ENOMEM : ENODEV);
	}
	be.ctx = p;
	be.mr = sr_node_mr(p->node);
	be.dev = sr_node_dev(p->node);
	sr_ndk_pmd_addrs(p, &be);
	st = sr_ndk_adapter_create(&be, ppNdkAdapter);
	if (!NT_SUCCESS(st)) {
		sr_node_close(p->node);
		free(p);
		return st;
	}
	p->a = sr_ndk_adapter_of(*ppNdkAdapter);
	return STATUS_SUCCESS;
}
