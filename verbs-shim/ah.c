/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ah.c — address handles and address vectors: an ibv_ah_attr (RoCE: a
 * GRH is required) becomes lib's struct sr_av, with the destination MAC
 * resolved by the pmd (ARP / ND).  The resolution runs on the progress
 * thread (sr_pmd_engine_call); this thread progresses meanwhile, so it
 * works inline and in dedicated mode.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmd.h"
#include "shim.h"

#define SR_RESOLVE_TIMEOUT_NS (10ull * 1000 * 1000 * 1000)
#define SR_LINK_WAIT_MS       5000
#define SR_RESOLVE_NAP_NS     50000

struct sr_resolve {
	struct sr_pmd_dev *pmd;
	uint8_t ip[16];
	uint8_t mac[6];
	int rc;
	atomic_bool done;
};

static void sr_resolve_on_engine(void *arg)
{
	struct sr_resolve *r = arg;

	r->rc = sr_pmd_resolve(r->pmd, r->ip, r->mac);
	atomic_store(&r->done, true);
}

uint64_t sr_ibv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sr_nap(struct sr_ibv_rt *rt)
{
	const struct timespec nap = { .tv_nsec = SR_RESOLVE_NAP_NS };

	if (rt->cfg.mode == SR_PMD_MODE_INLINE && sr_pmd_progress(rt->pmd))
		return;
	nanosleep(&nap, NULL);
}

/* The MAC of ip (16 bytes, IPv4-mapped for IPv4). 0 or -errno. */
int sr_ibv_resolve(struct sr_ibv_rt *rt, const uint8_t ip[16], uint8_t mac[6])
{
	uint64_t deadline = sr_ibv_now_ns() + SR_RESOLVE_TIMEOUT_NS;
	struct sr_resolve r = { .pmd = rt->pmd };
	int rc;

	memcpy(r.ip, ip, 16);
	/* memif: the peer may not have connected yet; ARP would go nowhere */
	(void)sr_pmd_link_wait(rt->pmd, SR_LINK_WAIT_MS);
	for (;;) {
		atomic_store(&r.done, false);
		while ((rc = sr_pmd_engine_call(rt->pmd, sr_resolve_on_engine,
						&r)) == -ENOBUFS)
			sr_nap(rt);
		/* r lives on this stack: wait for the call whatever happens */
		while (!atomic_load(&r.done))
			sr_nap(rt);
		/* A failed entry is kept a while (pmd/neigh.h); the peer
		 * may come up later: ask again until the deadline. */
		if (r.rc != -EAGAIN && r.rc != -EHOSTUNREACH)
			break;
		if (sr_ibv_now_ns() > deadline)
			return r.rc == -EAGAIN ? -ETIMEDOUT : r.rc;
		sr_nap(rt);
	}
	if (r.rc == 0)
		memcpy(mac, r.mac, 6);
	return r.rc;
}

/* The IP TTL / hop limit of every frame: Linux's default route value. */
#define SR_IBV_IP_HOP_LIMIT 64

int sr_ibv_av_from_attr(struct sr_ibv_rt *rt, const struct ibv_ah_attr *a,
			struct sr_av *av)
{
	const uint8_t *dgid = a->grh.dgid.raw;
	int rc;

	if (!a->is_global)
		return -EINVAL;        /* RoCE: every address carries a GRH */
	if (a->port_num && a->port_num != SR_IBV_PORT)
		return -EINVAL;
	if (a->grh.sgid_index >= rt->gids.n ||
	    !rt->gids.entry[a->grh.sgid_index].valid)
		return -EINVAL;
	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, dgid, 16);
	av->sgid_index = a->grh.sgid_index;
	/*
	 * Like Linux RoCE (rxe and the RNIC drivers alike), the IP TTL / hop
	 * limit is the route's, not the GRH hop limit the program gave:
	 * ibv_*_pingpong ask for 1, which a router would drop.
	 */
	av->hop_limit = SR_IBV_IP_HOP_LIMIT;
	av->tclass = a->grh.traffic_class;
	av->flow_label = a->grh.flow_label;
	av->static_rate = a->static_rate;   /* paced on RC/UC QPs */
	if (rt->cfg.vlan) {
		av->vlan = true;
		av->vlan_tci = (uint16_t)((rt->cfg.vlan_prio << 13) |
					  (rt->cfg.vlan & 0xfff));
	}
	if (sr_gid_find(&rt->gids, dgid) >= 0) {
		/* One of our own GIDs: same-device loopback (sroced's: the
		 * daemon switches it, to this process or another) */
		memcpy(av->dmac, rt->cfg.has_gw ? rt->cfg.gw_mac : rt->mac, 6);
		return 0;
	}
	rc = sr_ibv_rt_up(rt);
	if (rc)
		return rc;
	return sr_ibv_resolve(rt, dgid, av->dmac);
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct sr_ibv_ah *h;
	int rc;

	if (pd == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = sr_ibv_av_from_attr(sr_ctx(pd->context)->rt, attr, &h->av);
	if (rc) {
		free(h);
		errno = sr_ibv_err(rc);
		return NULL;
	}
	h->ibah.context = pd->context;
	h->ibah.pd = pd;
	return &h->ibah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	if (ah == NULL)
		return EINVAL;
	free(sr_container_of(ah, struct sr_ibv_ah, ibah));
	return 0;
}

/*
 * The address back to the sender of a received UD message.  The first
 * 40 bytes of the receive buffer hold the GRH; for RoCEv2 over IPv4 the
 * IPv4 header sits in its last 20 bytes.
 */
int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num,
			struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *ah_attr)
{
	struct sr_ibv_rt *rt;
	uint8_t sgid[16], dgid[16];
	const uint8_t *ip4;
	int idx;

	if (context == NULL || wc == NULL || ah_attr == NULL ||
	    port_num != SR_IBV_PORT)
		return -1;
	rt = sr_ctx(context)->rt;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->port_num = port_num;
	ah_attr->sl = wc->sl;
	if (!(wc->wc_flags & IBV_WC_GRH) || grh == NULL)
		return -1;                 /* RoCE always has a GRH */
	if ((be32toh(grh->version_tclass_flow) >> 28) == 6) {
		memcpy(sgid, grh->sgid.raw, 16);
		memcpy(dgid, grh->dgid.raw, 16);
		ah_attr->grh.traffic_class =
			(uint8_t)(be32toh(grh->version_tclass_flow) >> 20);
		ah_attr->grh.flow_label =
			be32toh(grh->version_tclass_flow) & 0xfffff;
	} else {
		ip4 = (const uint8_t *)grh + 20;
		sr_gid_from_ipv4(sgid, ip4 + 12);
		sr_gid_from_ipv4(dgid, ip4 + 16);
		ah_attr->grh.traffic_class = ip4[1];
	}
	idx = sr_gid_find(&rt->gids, dgid);
	if (idx < 0)
		return -1;
	ah_attr->is_global = 1;
	ah_attr->grh.sgid_index = (uint8_t)idx;
	ah_attr->grh.hop_limit = 0xff;
	memcpy(ah_attr->grh.dgid.raw, sgid, 16);
	return 0;
}

struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc,
				     struct ibv_grh *grh, uint8_t port_num)
{
	struct ibv_ah_attr attr;

	if (pd == NULL ||
	    ibv_init_ah_from_wc(pd->context, port_num, wc, grh, &attr)) {
		errno = EINVAL;
		return NULL;
	}
	return ibv_create_ah(pd, &attr);
}

int ibv_resolve_eth_l2_from_gid(struct ibv_context *context,
				struct ibv_ah_attr *attr, uint8_t eth_mac[6],
				uint16_t *vid)
{
	struct sr_av av;
	int rc;

	if (context == NULL || attr == NULL || eth_mac == NULL)
		return EINVAL;
	rc = sr_ibv_av_from_attr(sr_ctx(context)->rt, attr, &av);
	if (rc)
		return sr_ibv_err(rc);
	memcpy(eth_mac, av.dmac, 6);
	if (vid)
		*vid = av.vlan ? (av.vlan_tci & 0xfff) : 0xffff;
	return 0;
}
