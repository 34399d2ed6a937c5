/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * backend_pmd.c — sr_ndk_open_adapter(): an NDK adapter on the pmd node
 * the environment configures (pmd/node.h, pmd/CONFIG.md).  Progress is the
 * node's (inline: whoever polls; dedicated: its lcore); connections go
 * through the device's QP1 and CM (pmd/cm_host.h), routes through the
 * node's ARP/ND; addresses are the device's GIDs.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cma.h"
#include "cm_host.h"
#include "gid.h"
#include "ndk_priv.h"
#include "node.h"

struct sr_ndk_pmd {
	struct sr_node *node;
	struct sr_ndk_adapter *a;
	struct sr_cm_host *cm;      /* the device's QP1 and CM */
};

static int sr_ndk_pmd_progress(void *ctx)
{
	return sr_node_progress(((struct sr_ndk_pmd *)ctx)->node);
}

static int sr_ndk_pmd_close(void *ctx)
{
	struct sr_ndk_pmd *p = ctx;
	int rc;

	if (sr_dev_qp_count(sr_node_dev(p->node)))
		return -EBUSY;
	sr_cm_host_destroy(p->cm);
	p->cm = NULL;
	rc = sr_node_close(p->node);
	if (rc == 0)
		free(p);
	return rc;
}

/* ---- the device's CM (pmd/cm_host.h) ---- */

static int sr_ndk_pmd_cm_attach(void *ctx, sr_ndk_cm_event_fn *fn, void *arg)
{
	return sr_cm_host_attach(((struct sr_ndk_pmd *)ctx)->cm, fn, arg);
}

static struct sr_cm *sr_ndk_pmd_cm_lock(void *ctx)
{
	return sr_cm_host_lock(((struct sr_ndk_pmd *)ctx)->cm);
}

static void sr_ndk_pmd_cm_unlock(void *ctx)
{
	sr_cm_host_unlock(((struct sr_ndk_pmd *)ctx)->cm);
}

static uint64_t sr_ndk_pmd_cm_now(void *ctx)
{
	return sr_cm_host_now(((struct sr_ndk_pmd *)ctx)->cm);
}

static void sr_ndk_pmd_cm_flush(void *ctx)
{
	sr_cm_host_flush(((struct sr_ndk_pmd *)ctx)->cm);
}

static int sr_ndk_pmd_route(void *ctx, const uint8_t dgid[16], struct sr_cma_route *r)
{
	struct sr_node *node = ((struct sr_ndk_pmd *)ctx)->node;
	int idx = sr_node_sgid_index(node, dgid);
	int rc;

	if (idx < 0)
		return idx;
	rc = sr_node_gid(node, (unsigned int)idx, r->sgid);
	if (rc)
		return rc;
	/*
	 * memif: the link is up once the other node's process is there.  A
	 * peer at one of our own addresses is looped back in the device and
	 * needs no link (the adapter advertises loopback connections).
	 */
	if (!sr_node_gid_is_local(node, dgid)) {
		rc = sr_node_link_wait(node, 15000);
		if (rc)
			return rc;
	}
	rc = sr_node_resolve(node, dgid, r->dmac, 5000);
	if (rc)
		return rc;
	memcpy(r->dgid, dgid, 16);
	r->path_mtu = (uint8_t)sr_node_path_mtu(node);
	return 0;
}

static int sr_ndk_pmd_qp_connect(void *ctx, struct sr_qp *qp, const struct sr_cma_qp_attr *a,
				 const struct sr_cma_route *r)
{
	struct sr_node *node = ((struct sr_ndk_pmd *)ctx)->node;
	struct sr_av av;
	int rc;

	/* source GID, VLAN, hop limit as the node does them; the MAC is known */
	rc = sr_node_av(node, r->dgid, &av, 5000);
	if (rc)
		return rc;
	memcpy(av.dmac, r->dmac, 6);
	return sr_cma_qp_connect(qp, a, &av);
}

static const struct sr_ndk_cm_ops sr_ndk_pmd_cm_ops = {
	.attach = sr_ndk_pmd_cm_attach,
	.lock = sr_ndk_pmd_cm_lock,
	.unlock = sr_ndk_pmd_cm_unlock,
	.now = sr_ndk_pmd_cm_now,
	.flush = sr_ndk_pmd_cm_flush,
	.route = sr_ndk_pmd_route,
	.qp_connect = sr_ndk_pmd_qp_connect,
};

static const struct sr_ndk_backend_ops sr_ndk_pmd_ops = {
	.progress = sr_ndk_pmd_progress,
	.close = sr_ndk_pmd_close,
	.cm = &sr_ndk_pmd_cm_ops,
};

/* QP1 on the node's device: its first GID, its MAC, a GUID from the MAC. */
static int sr_ndk_pmd_cm_create(struct sr_ndk_pmd *p)
{
	struct sr_cm_host_cfg hc = {
		.pmd = sr_node_pmd(p->node),
		.dev = sr_node_dev(p->node),
	};
	uint8_t g[8];
	int rc;

	rc = sr_node_gid(p->node, 0, hc.gid);
	if (rc)
		return rc;
	sr_pmd_mac(hc.pmd, hc.mac);
	sr_gid_eui64(g, hc.mac);        /* as the verbs device's node GUID */
	memcpy(&hc.ca_guid, g, 8);
	return sr_cm_host_create(&hc, &p->cm);
}

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
	rc = sr_ndk_pmd_cm_create(p);
	if (rc) {
		sr_node_close(p->node);
		free(p);
		return sr_ntstatus_from_errno(-rc);
	}
	be.ctx = p;
	be.mr = sr_node_mr(p->node);
	be.dev = sr_node_dev(p->node);
	sr_ndk_pmd_addrs(p, &be);
	st = sr_ndk_adapter_create(&be, ppNdkAdapter);
	if (!NT_SUCCESS(st)) {
		sr_cm_host_destroy(p->cm);
		sr_node_close(p->node);
		free(p);
		return st;
	}
	p->a = sr_ndk_adapter_of(*ppNdkAdapter);
	return STATUS_SUCCESS;
}
