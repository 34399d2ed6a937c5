/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cma_qp.c — a connection's QP taken to RTS with the attributes the CM
 * exchange gave (cma.h), on lib's own QPs: what the NDK/ND2 connectors
 * need whatever backend they run on (the librdmacm drop-in does the same
 * through ibv_modify_qp).
 */
#include <errno.h>

#include "cm/cma.h"
#include "mr/lookup.h"
#include "qp/qp.h"

int sr_cma_qp_connect(struct sr_qp *qp, const struct sr_cma_qp_attr *c,
		      const struct sr_av *av)
{
	struct sr_qp_init_attr init;
	struct sr_qp_attr a;
	unsigned int rc_mask;
	bool rc_qp;
	int rc;

	if (qp == NULL || c == NULL || av == NULL)
		return -EINVAL;
	rc = sr_qp_query(qp, &a, &init);
	if (rc)
		return rc;
	rc_qp = init.qp_type == SR_QPT_RC;
	/* INIT (again): remote rights follow the negotiated resources. */
	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = SR_ACCESS_REMOTE_WRITE |
			(c->remote_read ? SR_ACCESS_REMOTE_READ |
					  SR_ACCESS_REMOTE_ATOMIC : 0),
	};
	rc = sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_PKEY_INDEX | SR_QP_PORT |
			  SR_QP_ACCESS_FLAGS);
	if (rc)
		return rc;
	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_RTR,
		.path_mtu = (enum sr_mtu)c->path_mtu,
		.dest_qp_num = c->dest_qpn,
		.rq_psn = c->rq_psn,
		.max_dest_rd_atomic = c->max_dest_rd_atomic,
		.min_rnr_timer = c->min_rnr_timer,
		.av = *av,
	};
	rc_mask = rc_qp ? SR_QP_MAX_DEST_RD_ATOMIC | SR_QP_MIN_RNR_TIMER : 0;
	rc = sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_AV | SR_QP_PATH_MTU |
			  SR_QP_DEST_QPN | SR_QP_RQ_PSN | rc_mask);
	if (rc)
		return rc;
	a = (struct sr_qp_attr){
		.qp_state = SR_QPS_RTS,
		.sq_psn = c->sq_psn,
		.timeout = c->timeout,
		.retry_cnt = c->retry_cnt,
		.rnr_retry = c->rnr_retry,
		.max_rd_atomic = c->max_rd_atomic,
	};
	rc_mask = rc_qp ? SR_QP_TIMEOUT | SR_QP_RETRY_CNT | SR_QP_RNR_RETRY |
				  SR_QP_MAX_QP_RD_ATOMIC : 0;
	return sr_qp_modify(qp, &a, SR_QP_STATE | SR_QP_SQ_PSN | rc_mask);
}
