/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cq_clock.c — completion timestamps and completion events, between two RC
 * QPs of one context (same-process loopback):
 *   ts_caps        ibv_query_device_ex: a completion timestamp mask and a
 *                  core clock; ibv_query_rt_values_ex reads that clock
 *   ts_order       a CQ made with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP:
 *                  each WRITE's completion carries a timestamp between the
 *                  clock read before its post and the one after its
 *                  completion; a 20 ms pause between two WRITEs shows as
 *                  20 ms or more between their stamps
 *   ts_wallclock   ..._TIMESTAMP_WALLCLOCK: within a second of
 *                  CLOCK_REALTIME
 *   ts_refused     a flag the device has not (CVLAN) is still EOPNOTSUPP
 *   event_stale    a CQ armed, its completion polled before the event is
 *                  read (the channel's fd readable: the event is queued):
 *                  ibv_get_cq_event on the non-blocking channel does not
 *                  hand out that event (EAGAIN), the CQ is armed again,
 *                  and the next completion brings an event with the
 *                  completion behind it (ibv_start_poll finds it at once)
 *   event_destroy  a CQ whose event is queued and not read is destroyed:
 *                  the channel's fd is no longer readable, and the channel
 *                  can be destroyed
 * Exit 0 when all pass; each check prints one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "report.h"

#define GID_INDEX 1
#define BUF_LEN   8192
#define WRITES    8

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	struct ibv_comp_channel *ch;
	struct ibv_cq_ex *cq;
	struct ibv_qp *a, *b;
	uint64_t khz;
};

static uint64_t raw_clock(struct ibv_context *ctx)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	if (ibv_query_rt_values_ex(ctx, &v) ||
	    !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	return (uint64_t)v.raw_clock.tv_sec * 1000000000u +
	       (uint64_t)v.raw_clock.tv_nsec;
}

static int post_write(struct env *e, uint64_t id)
{
	struct ibv_sge s = { .addr = (uintptr_t)e->buf, .length = 64,
			     .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { .remote_addr = (uintptr_t)e->buf + 4096,
					       .rkey = e->mr->rkey } }, *bad;

	return ibv_post_send(e->a, &wr, &bad);
}

/* One completion: 0 with its timestamps, -1 on timeout or an error. */
static int wait_ts(struct env *e, uint64_t *ts, uint64_t *wall)
{
	struct ibv_poll_cq_attr pa = { 0 };
	double end = now_s() + 5;
	int st;

	while (ibv_start_poll(e->cq, &pa) == ENOENT)
		if (now_s() > end)
			return -1;
	st = e->cq->status;
	*ts = ibv_wc_read_completion_ts(e->cq);
	*wall = ibv_wc_read_completion_wallclock_ns(e->cq);
	ibv_end_poll(e->cq);
	return st == IBV_WC_SUCCESS ? 0 : -1;
}

static void check_caps(struct env *e)
{
	struct ibv_device_attr_ex a;
	uint64_t t0, t1;

	if (ibv_query_device_ex(e->ctx, NULL, &a)) {
		report("ts_caps", 0, "ibv_query_device_ex");
		return;
	}
	e->khz = a.hca_core_clock;
	t0 = raw_clock(e->ctx);
	usleep(1000);
	t1 = raw_clock(e->ctx);
	report("ts_caps", a.completion_timestamp_mask != 0 && e->khz != 0 &&
	       t0 != 0 && t1 >= t0 + e->khz, /* 1 ms of clock at least */
	       NULL);
}

static void check_order(struct env *e)
{
	uint64_t ts[WRITES], before[WRITES], after[WRITES], wall;
	struct timespec rt;
	int64_t skew;
	bool ok = true;
	char why[160] = "";

	for (int i = 0; i < WRITES && ok; i++) {
		if (i == WRITES / 2)
			usleep(20000);
		before[i] = raw_clock(e->ctx);
		if (post_write(e, (uint64_t)i) || wait_ts(e, &ts[i], &wall)) {
			snprintf(why, sizeof(why), "WRITE %d did not complete", i);
			ok = false;
			break;
		}
		after[i] = raw_clock(e->ctx);
		if (ts[i] < before[i] || ts[i] > after[i]) {
			snprintf(why, sizeof(why), "WRITE %d: %llu outside [%llu, %llu]",
				 i, (unsigned long long)ts[i],
				 (unsigned long long)before[i],
				 (unsigned long long)after[i]);
			ok = false;
		}
	}
	if (ok && ts[WRITES / 2] - ts[WRITES / 2 - 1] < 20 * e->khz) {
		snprintf(why, sizeof(why), "a 20 ms pause shows as %llu cycles",
			 (unsigned long long)(ts[WRITES / 2] - ts[WRITES / 2 - 1]));
		ok = false;
	}
	report("ts_order", ok, ok ? NULL : why);
	if (!ok)
		return;
	clock_gettime(CLOCK_REALTIME, &rt);
	skew = (int64_t)((uint64_t)rt.tv_sec * 1000000000u +
			 (uint64_t)rt.tv_nsec) - (int64_t)wall;
	report("ts_wallclock", skew >= 0 && skew < 1000000000, NULL);
}

static void check_refused(struct env *e)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_CVLAN,
	};
	struct ibv_cq_ex *cq;

	errno = 0;
	cq = ibv_create_cq_ex(e->ctx, &ca);
	report("ts_refused", cq == NULL && errno == EOPNOTSUPP, NULL);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
}

static void check_stale_event(struct env *e)
{
	struct ibv_cq *cq = ibv_cq_ex_to_cq(e->cq), *got;
	struct ibv_poll_cq_attr pa = { 0 };
	struct pollfd pfd = { .fd = e->ch->fd, .events = POLLIN };
	uint64_t ts, wall;
	void *ctx;
	int fl = fcntl(e->ch->fd, F_GETFL), rc;
	bool ok;

	fcntl(e->ch->fd, F_SETFL, fl | O_NONBLOCK);
	/* armed, and the completion taken before the event is read */
	if (ibv_req_notify_cq(cq, 0) || post_write(e, 100) ||
	    wait_ts(e, &ts, &wall)) {
		report("event_stale", 0, "setup");
		return;
	}
	if (poll(&pfd, 1, 1000) != 1) {
		report("event_stale", 0, "no event was signalled");
		return;
	}
	errno = 0;
	ok = ibv_get_cq_event(e->ch, &got, &ctx) != 0 && errno == EAGAIN;
	if (!ok) {
		report("event_stale", 0, "an event with nothing behind it");
		return;
	}
	/* still armed: the next completion is signalled, and is there */
	if (post_write(e, 101)) {
		report("event_stale", 0, "post");
		return;
	}
	fcntl(e->ch->fd, F_SETFL, fl);
	ok = ibv_get_cq_event(e->ch, &got, &ctx) == 0 && got == cq;
	if (!ok) {
		report("event_stale", 0, "no event for the next completion");
		return;
	}
	ibv_ack_cq_events(cq, 1);
	rc = ibv_start_poll(e->cq, &pa);
	if (rc == 0)
		ibv_end_poll(e->cq);
	report("event_stale", rc == 0, rc ? "an event, and an empty CQ" : NULL);
}

static void check_event_destroy(struct env *e)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(e->ctx);
	struct ibv_cq *cq = ch ? ibv_create_cq(e->ctx, 8, NULL, ch, 0) : NULL;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct env t = *e;
	struct pollfd pfd;
	bool ok = false;

	t.a = cq ? ibv_create_qp(e->pd, &qa) : NULL;
	t.b = cq ? ibv_create_qp(e->pd, &qa) : NULL;
	if (!t.a || !t.b ||
	    loop_qp_up(t.a, &e->gid, GID_INDEX, t.b->qp_num,
		       IBV_ACCESS_REMOTE_WRITE, 1, true, true) ||
	    loop_qp_up(t.b, &e->gid, GID_INDEX, t.a->qp_num,
		       IBV_ACCESS_REMOTE_WRITE, 1, true, true) ||
	    ibv_req_notify_cq(cq, 0) || post_write(&t, 200)) {
		report("event_destroy", 0, "setup");
		return;
	}
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	if (poll(&pfd, 1, 1000) == 1 && ibv_destroy_qp(t.a) == 0 &&
	    ibv_destroy_qp(t.b) == 0 && ibv_destroy_cq(cq) == 0) {
		pfd.revents = 0;
		ok = poll(&pfd, 1, 0) == 0 && ibv_destroy_comp_channel(ch) == 0;
	}
	report("event_destroy", ok, NULL);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64,
		.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct env e = { 0 };

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!list || !list[0] || !(e.ctx = ibv_open_device(list[0]))) {
		printf("FAIL open device\n");
		return 1;
	}
	e.buf = aligned_alloc(4096, BUF_LEN);
	e.pd = ibv_alloc_pd(e.ctx);
	e.mr = e.pd ? ibv_reg_mr(e.pd, e.buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
				 IBV_ACCESS_REMOTE_WRITE) : NULL;
	e.ch = ibv_create_comp_channel(e.ctx);
	ca.channel = e.ch;
	e.cq = ibv_create_cq_ex(e.ctx, &ca);
	if (!e.buf || !e.mr || !e.ch || !e.cq ||
	    ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid)) {
		printf("FAIL setup\n");
		return 1;
	}
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(e.cq);
	e.a = ibv_create_qp(e.pd, &qa);
	e.b = ibv_create_qp(e.pd, &qa);
	if (!e.a || !e.b ||
	    loop_qp_up(e.a, &e.gid, GID_INDEX, e.b->qp_num,
		       IBV_ACCESS_REMOTE_WRITE, 1, true, true) ||
	    loop_qp_up(e.b, &e.gid, GID_INDEX, e.a->qp_num,
		       IBV_ACCESS_REMOTE_WRITE, 1, true, true)) {
		printf("FAIL connect\n");
		return 1;
	}
	check_caps(&e);
	if (e.khz)
		check_order(&e);
	check_refused(&e);
	check_stale_event(&e);
	check_event_destroy(&e);
	ibv_destroy_qp(e.a);
	ibv_destroy_qp(e.b);
	ibv_destroy_cq(ibv_cq_ex_to_cq(e.cq));
	ibv_destroy_comp_channel(e.ch);
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	free(e.buf);
	printf(failures ? "%d failed\n" : "all ok\n", failures);
	return failures ? 1 : 0;
}
