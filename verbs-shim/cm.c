/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm.c — SROCE_PRIVATE_1: what the librdmacm drop-in needs of the device
 * beyond verbs.  A device's QP1 and communication manager live with its
 * port (pmd/cm_host.h), so they live here, in libibverbs, where the port
 * is; librdmacm.so.1 reaches them through these calls and lib/cm's, which
 * this library exports in the same private version node.  Nothing else
 * may rely on them: they change with sroce, not with rdma-core's ABI.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "cm_host.h"
#include "pmd.h"
#include "sroce_private.h"
#include "shim.h"

struct sr_cm_host *sroce_cm_host(struct ibv_context *context)
{
	struct sr_cm_host_cfg hc = { 0 };
	struct sr_ibv_rt *rt;
	__be64 guid;
	int rc;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	rt = sr_ctx(context)->rt;
	rc = sr_ibv_rt_up(rt);
	if (rc) {
		errno = sr_ibv_err(rc);
		return NULL;
	}
	pthread_mutex_lock(&rt->lock);
	if (rt->cm == NULL) {
		hc.pmd = rt->pmd;
		hc.dev = rt->dev;
		memcpy(hc.gid, rt->gids.entry[0].gid, 16);
		memcpy(hc.mac, rt->mac, 6);
		guid = sr_ibv_guid(rt->mac);
		memcpy(&hc.ca_guid, &guid, sizeof(guid));
		rc = sr_cm_host_create(&hc, &rt->cm);
	}
	pthread_mutex_unlock(&rt->lock);
	if (rc) {
		errno = sr_ibv_err(rc);
		return NULL;
	}
	return rt->cm;
}

int sroce_resolve(struct ibv_context *context, const uint8_t ip[16],
		  uint8_t mac[6])
{
	struct sr_ibv_rt *rt;
	int rc;

	if (context == NULL || ip == NULL || mac == NULL)
		return -EINVAL;
	rt = sr_ctx(context)->rt;
	if (sr_gid_find(&rt->gids, ip) >= 0) {
		/* one of ours: loopback (sroced's: through the daemon) */
		memcpy(mac, rt->cfg.has_gw ? rt->cfg.gw_mac : rt->mac, 6);
		return 0;
	}
	rc = sr_ibv_rt_up(rt);
	return rc ? rc : sr_ibv_resolve(rt, ip, mac);
}

int sroce_dev_shared(struct ibv_context *context)
{
	return context != NULL && sr_ctx(context)->rt->cfg.has_gw ? 1 : 0;
}

int sroce_path_mtu(struct ibv_context *context)
{
	struct ibv_port_attr pa;

	if (ibv_query_port(context, SR_IBV_PORT, &pa) != 0)
		return -errno;
	return (int)pa.active_mtu;
}

static void (*_Atomic sr_ibv_qp_destroy_hook)(struct ibv_qp *qp);

void sroce_on_qp_destroy(void (*fn)(struct ibv_qp *qp))
{
	atomic_store(&sr_ibv_qp_destroy_hook, fn);
}

void sr_ibv_qp_destroy_notify(struct ibv_qp *qp)
{
	void (*fn)(struct ibv_qp *) = atomic_load(&sr_ibv_qp_destroy_hook);

	if (fn != NULL)
		fn(qp);
}
