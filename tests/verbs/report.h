/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h — what the drop-in's C test programs (misuse.c, extended.c,
 * rdmacore.c, odp.c, xrc.c, manyqp.c) share: one "ok"/"FAIL" line per check, the
 * count of failures for the exit status, a monotonic clock for their
 * waits, and a connected QP's walk from RESET to RTS towards a QP of the
 * same process.  Each program includes it once.
 */
#ifndef SR_TESTS_VERBS_REPORT_H
#define SR_TESTS_VERBS_REPORT_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int failures;

static inline void report(const char *name, int ok, const char *detail)
{
	printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", name, detail ? ": " : "",
	       detail ? detail : "");
	failures += !ok;
}

static inline double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * RESET -> INIT -> RTR -> RTS towards QP dqpn at our own GID (gid, GID
 * index gid_index): path MTU 1024, PSN 1 both ways, timeout 14, retries 7,
 * rd_atomic READs/atomics each way.  sends / receives: the QP has a
 * requester / a responder (an RC QP both; an XRC initiator only the
 * first, an XRC target only the second), which decides the attributes
 * RTR and RTS take.
 */
static inline int loop_qp_up(struct ibv_qp *qp, const union ibv_gid *gid,
			     uint8_t gid_index, uint32_t dqpn, int access,
			     uint8_t rd_atomic, bool sends, bool receives)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = (unsigned int)access };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 1;
	a.max_dest_rd_atomic = rd_atomic;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  (receives ? IBV_QP_MAX_DEST_RD_ATOMIC |
				      IBV_QP_MIN_RNR_TIMER : 0)))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT |
			     (sends ? IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				      IBV_QP_MAX_QP_RD_ATOMIC : 0));
}

#endif
