/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node_conn.c — what a consumer needs around a node: our GIDs, a peer's
 * MAC and address vector, a QP taken to RTS, completions waited for.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "node_priv.h"

/* ---- addresses ---- */

int sr_node_gid(const struct sr_node *node, unsigned int index,
		uint8_t gid[16])
{
	struct sr_gid_entry e;
	int rc = sr_gid_query(sr_pmd_gids(node->pmd), index, &e);

	if (rc == 0)
		memcpy(gid, e.gid, 16);
	return rc;
}

int sr_node_sgid_index(const struct sr_node *node, const uint8_t dgid[16])
{
	const struct sr_gid_table *t = sr_pmd_gids(node->pmd);
	bool v4 = sr_gid_is_ipv4(dgid);
	bool link_local = dgid[0] == 0xfe && (dgid[1] & 0xc0) == 0x80;

	for (uint32_t i = 0; i < t->n; i++) {
		const uint8_t *g = t->entry[i].gid;
		bool g_ll = g[0] == 0xfe && (g[1] & 0xc0) == 0x80;

		if (!t->entry[i].valid || sr_gid_is_ipv4(g) != v4)
			continue;
		if (v4 || g_ll == link_local)
			return (int)i;
	}
	return -ENOENT;
}

/* A resolution run on the progress thread (sr_pmd_engine_call). */
struct sr_node_resolve {
	struct sr_pmd_dev *pmd;
	uint8_t ip[16];
	uint8_t mac[6];
	int rc;
	bool done;
};

static void sr_node_resolve_on_engine(void *arg)
{
	struct sr_node_resolve *r = arg;

	r->rc = sr_pmd_resolve(r->pmd, r->ip, r->mac);
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
}

int sr_node_resolve(struct sr_node *node, const uint8_t ip[16], uint8_t mac[6],
		    uint32_t timeout_ms)
{
	uint64_t deadline = sr_node_now_ns(node) + (uint64_t)timeout_ms * 1000000;
	struct sr_node_resolve r = { .pmd = node->pmd };

	memcpy(r.ip, ip, 16);
	for (;;) {
		__atomic_store_n(&r.done, false, __ATOMIC_RELAXED);
		while (sr_pmd_engine_call(node->pmd, sr_node_resolve_on_engine,
					  &r) == -ENOBUFS)
			sr_node_idle(node, true);
		/* r lives on this stack: wait for the call whatever happens. */
		while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE))
			sr_node_idle(node, true);
		if (r.rc != -EAGAIN)
			break;
		if (sr_node_now_ns(node) > deadline)
			return -ETIMEDOUT;
		sr_node_idle(node, true);
	}
	if (r.rc == 0)
		memcpy(mac, r.mac, 6);
	return r.rc;
}

bool sr_node_gid_is_local(const struct sr_node *node, const uint8_t gid[16])
{
	return sr_gid_find(sr_pmd_gids(node->pmd), gid) >= 0;
}

int sr_node_av(struct sr_node *node, const uint8_t dgid[16], struct sr_av *av,
	       uint32_t timeout_ms)
{
	uint16_t vlan = sr_pmd_vlan(node->pmd);
	int sgid = sr_node_sgid_index(node, dgid);
	uint8_t mac[6];
	int rc;

	if (sgid < 0)
		return sgid;
	rc = sr_node_resolve(node, dgid, mac, timeout_ms);
	if (rc)
		return rc;
	*av = (struct sr_av){
		.sgid_index = (uint8_t)sgid,
		.hop_limit = 64,
		.vlan = vlan != 0,
		.vlan_tci = (uint16_t)(vlan |
			(uint16_t)sr_pmd_config_of(node->pmd)->vlan_prio << 13),
	};
	memcpy(av->dmac, mac, 6);
	memcpy(av->dgid, dgid, 16);
	return 0;
}

/* ---- connecting a QP ---- */

int sr_node_qp_connect(struct sr_node *node, struct sr_qp *qp,
		       uint32_t sq_psn, const struct sr_node_peer *peer,
		       const struct sr_node_conn *conn, uint32_t timeout_ms)
{
	static const struct sr_node_conn defaults;
	struct sr_qp_init_attr init;
	struct sr_qp_attr a;
	unsigned int rc_mask;
	bool rc_qp;
	int rc;

	if (conn == NULL)
		conn = &defaults;
	rc = sr_qp_query(qp, NULL, &init);      /* the QP type */
	if (rc)
		return rc;
	rc_qp = init.qp_type == SR_QPT_RC;

	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = conn->access ? conn->access :
			SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE |
			SR_ACCESS_REMOTE_ATOMIC,
	};
	rc = sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_PKEY_INDEX | SR_QP_PORT |
			  SR_QP_ACCESS_FLAGS);
	if (rc)
		return rc;

	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_RTR,
		.path_mtu = conn->path_mtu ? conn->path_mtu :
					     sr_node_path_mtu(node),
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = conn->rd_atomic ? conn->rd_atomic :
							SR_QP_MAX_RD_ATOMIC,
		.min_rnr_timer = conn->min_rnr_timer ? conn->min_rnr_timer : 12,
	};
	rc = sr_node_av(node, peer->gid, &a.av, timeout_ms);
	if (rc)
		return rc;
	rc_mask = rc_qp ? SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER : 0;
	rc = sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU |
			  SR_QP_DEST_QPN | SR_QP_RQ_PSN | rc_mask);
	if (rc)
		return rc;

	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_RTS,
		.sq_psn = sq_psn,
		.timeout = conn->timeout ? conn->timeout : 14,
		.retry_cnt = conn->retry_cnt ? conn->retry_cnt : 7,
		.rnr_retry = conn->rnr_retry ? conn->rnr_retry : 7,
		.max_rd_atomic = conn->rd_atomic ? conn->rd_atomic :
						   SR_QP_MAX_RD_ATOMIC,
	};
	rc_mask = rc_qp ? SR_QP_TIMEOUT | SR_QP_RETRY_CNT | SR_QP_RNR_RETRY |
				  SR_QP_MAX_QP_RD_ATOMIC : 0;
	return sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN | rc_mask);
}

/* ---- completions ---- */

int sr_node_cq_wait(struct sr_node *node, struct sr_cq *cq, struct sr_wc *wc,
		    int n, uint32_t timeout_ms)
{
	uint64_t deadline = sr_node_now_ns(node) + (uint64_t)timeout_ms * 1000000;
	unsigned int idle = 0;
	int got = 0;

	while (got < n) {
		int k = sr_cq_poll(cq, n - got, wc + got);

		got += k;
		if (got == n || (k == 0 && sr_node_now_ns(node) > deadline))
			break;
		if (k == 0)
			sr_node_relax(node, &idle);  /* busy poll: latency */
	}
	return got;
}
