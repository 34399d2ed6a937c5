/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fatal.c — a client of sroced that outlives its daemon.  It opens the
 * daemon's device through the drop-in libibverbs, connects an RC QP to a
 * second QP of its own through the daemon (the device's own address),
 * checks that a SEND arrives, posts receives, prints "ready" and waits.
 * When the daemon dies (the test kills it with -9) it must see
 * IBV_EVENT_DEVICE_FATAL and its posted receives completed with
 * IBV_WC_WR_FLUSH_ERR, within 10 s; it prints how long after the daemon's
 * end (the test touches FILE then) each came, and exits 0.
 *
 * With --signals, a SIGALRM (no SA_RESTART) comes every 50 us while it
 * sets up 16 more connected pairs before the first: each RTR is a call to
 * the daemon, which a signal must not cut short (nor leave its reply to be
 * read as the next call's).  It then checks the SEND and exits 0.
 *
 *   fatal [FILE]
 *   fatal --signals
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "fatal: %s: %s\n", what, strerror(errno));
	exit(1);
}

static struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_qp *qp = ibv_create_qp(pd, &ia);

	if (qp == NULL)
		die("ibv_create_qp");
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("INIT");
	return qp;
}

static void connect_qp(struct ibv_qp *qp, uint32_t dqpn, const union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = 100, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = { .is_global = 1, .port_num = 1,
			     .grh = { .dgid = *gid, .sgid_index = 1,
				      .hop_limit = 64 } },
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* SIGALRM every 50 us (on), or none (off). */
static void alarm_storm(int on)
{
	struct sigaction sa = { .sa_handler = on_alarm };   /* no SA_RESTART */
	struct itimerval it = { { 0, on ? 50 : 0 }, { 0, on ? 50 : 0 } };

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

static int wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, double limit)
{
	double end = now_s() + limit;

	while (now_s() < end) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		usleep(100);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *a, *b;
	union ibv_gid gid;
	static char buf[4096];
	struct ibv_sge sge;
	struct ibv_recv_wr rw = { .sg_list = &sge, .num_sge = 1 }, *bad_r;
	struct ibv_send_wr sw = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad_s;
	struct ibv_async_event ev;
	struct ibv_wc wc;
	struct pollfd p;
	struct stat st;
	double t_dead = 0, t_fatal = 0, t_flush = 0, end;
	int flushed = 0;
	int signals = argc > 1 && strcmp(argv[1], "--signals") == 0;

	if (list == NULL || list[0] == NULL)
		die("no device");
	ctx = ibv_open_device(list[0]);
	if (ctx == NULL)
		die("ibv_open_device");
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	if (cq == NULL || mr == NULL)
		die("pd, cq or mr");
	if (ibv_query_gid(ctx, 1, 1, &gid))
		die("ibv_query_gid");
	if (signals) {
		alarm_storm(1);
		for (int i = 0; i < 16; i++) {
			struct ibv_qp *x = make_qp(pd, cq), *y = make_qp(pd, cq);

			connect_qp(x, y->qp_num, &gid);
			connect_qp(y, x->qp_num, &gid);
			if (ibv_destroy_qp(x) || ibv_destroy_qp(y))
				die("ibv_destroy_qp");
		}
	}
	a = make_qp(pd, cq);
	b = make_qp(pd, cq);
	connect_qp(a, b->qp_num, &gid);
	connect_qp(b, a->qp_num, &gid);
	sge = (struct ibv_sge){ (uintptr_t)buf, 64, mr->lkey };
	for (int i = 0; i < 5; i++) {
		rw.wr_id = 100 + (uint64_t)i;
		if (ibv_post_recv(b, &rw, &bad_r))
			die("ibv_post_recv");
	}
	sge.addr = (uintptr_t)buf + 1024;
	if (ibv_post_send(a, &sw, &bad_s))
		die("ibv_post_send");
	for (int got = 0; got < 2;) {
		if (!wait_wc(cq, &wc, 10)) {
			fprintf(stderr, "fatal: the SEND through the daemon did not complete\n");
			return 1;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "fatal: SEND: %s\n", ibv_wc_status_str(wc.status));
			return 1;
		}
		got++;
	}
	if (signals) {
		alarm_storm(0);
		printf("fatal: 17 pairs connected through the daemon under %d signals; the SEND arrived\n",
		       (int)alarms);
		return 0;
	}
	printf("fatal: QPs %#x and %#x talk through the daemon; ready\n",
	       a->qp_num, b->qp_num);
	fflush(stdout);
	/* now the daemon dies; wait for the event and the flushes */
	p.fd = ctx->async_fd;
	p.events = POLLIN;
	end = now_s() + 30;
	while ((t_fatal == 0 || flushed < 4) && now_s() < end) {
		if (t_dead == 0 && argc > 1 && stat(argv[1], &st) == 0)
			t_dead = now_s();
		if (t_fatal == 0 && poll(&p, 1, 0) == 1 &&
		    ibv_get_async_event(ctx, &ev) == 0) {
			if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
				t_fatal = now_s();
			ibv_ack_async_event(&ev);
		}
		while (ibv_poll_cq(cq, 1, &wc) == 1) {
			if (wc.status == IBV_WC_WR_FLUSH_ERR && wc.wr_id >= 100) {
				flushed++;
				t_flush = now_s();
			}
		}
		usleep(200);
	}
	if (t_dead == 0)
		t_dead = t_fatal;
	printf("fatal: DEVICE_FATAL %s%.3f s after the daemon's end; %d receives flushed (%.3f s)\n",
	       t_fatal ? "" : "NOT SEEN, ", t_fatal - t_dead, flushed,
	       t_flush - t_dead);
	return t_fatal != 0 && flushed == 4 ? 0 : 1;
}
