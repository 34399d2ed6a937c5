/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-demo — two sroce nodes on one machine talk RDMA.
 *
 *   sroce-demo        both nodes: node 0 (passive) is forked before any
 *                     EAL start, node 1 (active) runs here and reports
 *   sroce-demo 0|1    one node (run the other in a second terminal; with
 *                     SROCE_CONFIG, each its own file for other links)
 *
 * The nodes meet on the default memif link (pmd/CONFIG.md) in a private
 * folder unless SROCE_RUN_DIR names one, and swap QP number, PSN, GID,
 * addresses and rkeys over TCP on 127.0.0.1 (an ephemeral port; for one
 * node, SROCE_DEMO_PORT or 18515).  Each registers
 * a plain MR (sr_mr_reg_virt) and a fast-register MR (initialised, then
 * registered by a REG_MR work request).  Node 1 checks RDMA READ, WRITE,
 * SEND and both atomics byte for byte, then measures bandwidth and
 * latency.  Exit 0 when everything held.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "node.h"

#define BUF_LEN   (4u << 20)          /* plain MR on each node */
#define FAST_LEN  (1u << 20)          /* fast-register MR on each node */
#define SLOT      (64u << 10)         /* node 0: receive slots in its buffer */
#define NSLOTS    32
#define OFF_PAT   (2u << 20)          /* node 0 buffer: READ source pattern */
#define OFF_WORD  (3u << 20)          /* node 0 buffer: the atomic word */
#define ECHO      0xec40u             /* SEND_WITH_IMM: send it back */
#define DEPTH     32                  /* bandwidth: work requests in flight */
#define WAIT_MS   10000

struct info {                         /* what the TCP exchange carries */
	uint32_t qpn, psn, rkey, frkey;
	uint64_t addr, faddr;
	uint8_t gid[16];
};

struct demo {
	int node_id, sock, ready_fd;
	struct sr_node *node;
	struct sr_pd *pd;
	struct sr_cq *scq, *rcq;
	struct sr_qp *qp;
	uint8_t *buf, *fast;
	struct sr_mr *mr, *fmr;
	uint64_t pages[FAST_LEN / 4096];
	struct info me, peer;
};

static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "sroce-demo: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return -1;
}

static uint8_t pattern(uint32_t i, uint32_t seed)
{
	return (uint8_t)((i * 2654435761u + seed) >> 13);
}

static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = pattern(i, seed);
}

/* ---- work requests ---- */

static int post(struct demo *d, enum sr_wr_opcode op, uint64_t local,
		uint32_t len, uint64_t remote, uint32_t imm, uint64_t add,
		uint64_t swap)
{
	struct sr_sge sge = {
		.addr = local, .length = len,
		.lkey = local >= (uint64_t)(uintptr_t)d->fast &&
			local < (uint64_t)(uintptr_t)d->fast + FAST_LEN ?
			sr_mr_lkey(d->fmr) : sr_mr_lkey(d->mr),
	};
	struct sr_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = SR_SEND_SIGNALED, .imm_data = imm,
	};
	bool fast = remote >= d->peer.faddr && remote < d->peer.faddr + FAST_LEN;
	const struct sr_send_wr *bad;

	if (op == SR_WR_ATOMIC_FETCH_AND_ADD || op == SR_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = remote;
		wr.wr.atomic.compare_add = add;
		wr.wr.atomic.swap = swap;
		wr.wr.atomic.rkey = d->peer.rkey;
	} else {
		wr.wr.rdma.remote_addr = remote;
		wr.wr.rdma.rkey = fast ? d->peer.frkey : d->peer.rkey;
	}
	return sr_qp_post_send(d->qp, &wr, &bad);
}

/* Post one work request and wait for its successful completion. */
static int run(struct demo *d, enum sr_wr_opcode op, uint64_t local,
	       uint32_t len, uint64_t remote, uint32_t imm, uint64_t add,
	       uint64_t swap)
{
	struct sr_wc wc;

	if (post(d, op, local, len, remote, imm, add, swap))
		return fail("%s: cannot post", sr_wr_opcode_str(op));
	if (sr_node_cq_wait(d->node, d->scq, &wc, 1, WAIT_MS) != 1)
		return fail("%s: no completion", sr_wr_opcode_str(op));
	if (wc.status != SR_WC_SUCCESS)
		return fail("%s: %s", sr_wr_opcode_str(op),
			    sr_wc_status_str(wc.status));
	return 0;
}

static int post_recv(struct demo *d, uint64_t addr, uint32_t len, uint64_t id)
{
	struct sr_sge sge = { addr, len, sr_mr_lkey(d->mr) };
	struct sr_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	const struct sr_recv_wr *bad;

	return sr_qp_post_recv(d->qp, &wr, &bad);
}

/* ---- set-up: device, memory, the TCP exchange, the connection ---- */

static int exchange(struct demo *d, int listen_fd)
{
	const char *env = getenv("SROCE_DEMO_PORT");
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(env ? atoi(env) : 18515),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int one = 1;

	if (listen_fd >= 0)
		getsockname(listen_fd, (struct sockaddr *)&sa, &len);
	if (d->node_id == 0) {
		if (listen_fd < 0) {
			listen_fd = socket(AF_INET, SOCK_STREAM, 0);
			setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, 4);
			if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
			    listen(listen_fd, 1))
				return fail("TCP port %u: %s", ntohs(sa.sin_port),
					    strerror(errno));
		}
		d->sock = accept(listen_fd, NULL, NULL);
		close(listen_fd);
	} else {
		for (int i = 0; i < 200; i++, usleep(50000)) {
			d->sock = socket(AF_INET, SOCK_STREAM, 0);
			if (!connect(d->sock, (struct sockaddr *)&sa, sizeof(sa)))
				break;
			close(d->sock);
			d->sock = -1;
		}
	}
	if (listen_fd >= 0 && d->node_id == 1)
		close(listen_fd);               /* node 0's, inherited */
	if (d->sock < 0)
		return fail("no TCP connection on 127.0.0.1:%u", ntohs(sa.sin_port));
	setsockopt(d->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (send(d->sock, &d->me, sizeof(d->me), 0) != sizeof(d->me) ||
	    recv(d->sock, &d->peer, sizeof(d->peer), MSG_WAITALL) !=
		    sizeof(d->peer))
		return fail("TCP exchange with the peer failed");
	return 0;
}

/* The fast-register MR: initialised, then registered by a REG_MR WR. */
static int fast_register(struct demo *d)
{
	uint32_t key = sr_mr_lkey(d->fmr);
	struct sr_send_wr wr = {
		.opcode = SR_WR_REG_MR, .send_flags = SR_SEND_SIGNALED,
		.wr.reg = { .mr = d->fmr, .pages = d->pages,
			    .npages = FAST_LEN / 4096, .length = FAST_LEN,
			    .iova = (uint64_t)(uintptr_t)d->fast,
			    .access = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
				      SR_ACCESS_REMOTE_WRITE,
			    .key = (key & ~0xffu) | ((key + 1) & 0xffu) },
	};
	const struct sr_send_wr *bad;
	struct sr_wc wc;

	for (uint32_t i = 0; i < FAST_LEN / 4096; i++)
		d->pages[i] = (uint64_t)(uintptr_t)d->fast + i * 4096ull;
	if (sr_qp_post_send(d->qp, &wr, &bad) ||
	    sr_node_cq_wait(d->node, d->scq, &wc, 1, WAIT_MS) != 1 ||
	    wc.status != SR_WC_SUCCESS)
		return fail("fast-register by work request");
	d->me.frkey = sr_mr_rkey(d->fmr);
	return 0;
}

static int setup(struct demo *d, int listen_fd)
{
	struct sr_qp_init_attr init = { .qp_type = SR_QPT_RC,
		.cap = { .max_send_wr = 2 * DEPTH, .max_recv_wr = NSLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct sr_node_peer peer;
	char ip[16];
	int rc;

	if (sr_node_open(NULL, &d->node))
		return -1;
	if (d->ready_fd >= 0) {                 /* node 0's memif listens */
		(void)!write(d->ready_fd, "U", 1);
		close(d->ready_fd);
	}
	if (sr_node_link_wait(d->node, 20000))
		return fail("node %d: the memif link did not come up", d->node_id);
	d->pd = sr_pd_alloc(sr_node_mr(d->node));
	d->scq = sr_cq_create(sr_node_dev(d->node), 4 * DEPTH, NULL, NULL);
	d->rcq = sr_cq_create(sr_node_dev(d->node), 2 * NSLOTS, NULL, NULL);
	d->buf = aligned_alloc(4096, BUF_LEN);
	d->fast = aligned_alloc(4096, FAST_LEN);
	if (!d->pd || !d->scq || !d->rcq || !d->buf || !d->fast)
		return fail("out of memory");
	memset(d->buf, 0, BUF_LEN);
	memset(d->fast, 0, FAST_LEN);
	init.pd = d->pd;
	init.send_cq = d->scq;
	init.recv_cq = d->rcq;
	d->qp = sr_qp_create(sr_node_dev(d->node), &init);
	d->mr = sr_mr_reg_virt(d->pd, d->buf, BUF_LEN, (uint64_t)(uintptr_t)d->buf,
			       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
			       SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC);
	d->fmr = sr_mr_create(d->pd, true);
	if (!d->qp || !d->mr || !d->fmr ||
	    sr_frmr_init(d->fmr, FAST_LEN / 4096, true))
		return fail("QP or memory registration");
	sr_node_qp_attach(d->node, d->qp);          /* sroce-stat -q shows it */
	d->me = (struct info){ .qpn = sr_qp_num(d->qp), .psn = 0x1000 + d->node_id,
			       .addr = (uint64_t)(uintptr_t)d->buf,
			       .rkey = sr_mr_rkey(d->mr),
			       .faddr = (uint64_t)(uintptr_t)d->fast,
			       .frkey = (sr_mr_lkey(d->fmr) & ~0xffu) |
					((sr_mr_lkey(d->fmr) + 1) & 0xffu) };
	sr_node_gid(d->node, 1, d->me.gid);         /* the IPv4 GID */
	if (exchange(d, listen_fd))
		return -1;
	peer = (struct sr_node_peer){ .qpn = d->peer.qpn, .psn = d->peer.psn };
	memcpy(peer.gid, d->peer.gid, 16);
	rc = sr_node_qp_connect(d->node, d->qp, d->me.psn, &peer, NULL, WAIT_MS);
	if (rc)
		return fail("connect to the peer: %s", strerror(-rc));
	if (fast_register(d))
		return -1;
	inet_ntop(AF_INET, d->peer.gid + 12, ip, sizeof(ip));
	if (d->node_id == 1)
		printf("node 1: QP %u connected to QP %u at %s, path MTU %u; plain MR %u MiB, fast-registered MR %u KiB (%u pages)\n",
		       d->me.qpn, d->peer.qpn, ip,
		       sr_mtu_bytes(sr_node_path_mtu(d->node)), BUF_LEN >> 20,
		       FAST_LEN >> 10, FAST_LEN / 4096);
	return 0;
}

/* ---- node 0: serve until node 1 says bye ---- */

static int serve(struct demo *d)
{
	uint64_t word = 1000;
	struct sr_wc wc[16];
	char bye;

	fill(d->buf + OFF_PAT, 1u << 20, 7);
	memcpy(d->buf + OFF_WORD, &word, 8);
	for (uint32_t i = 0; i < NSLOTS; i++)
		if (post_recv(d, (uint64_t)(uintptr_t)d->buf + i * SLOT, SLOT, i))
			return fail("node 0: post receive");
	if (send(d->sock, "R", 1, 0) != 1)     /* ready */
		return fail("node 0: TCP");
	for (unsigned int idle = 0;;) {
		int n = sr_cq_poll(d->rcq, 16, wc);

		for (int i = 0; i < n; i++) {
			uint64_t slot = (uint64_t)(uintptr_t)d->buf + wc[i].wr_id * SLOT;

			if (wc[i].status != SR_WC_SUCCESS)
				return fail("node 0: receive %s",
					    sr_wc_status_str(wc[i].status));
			/* Echo: copy out (the slot is reposted at once). */
			if ((wc[i].wc_flags & SR_WC_WITH_IMM) && wc[i].imm_data == ECHO) {
				memcpy(d->fast + FAST_LEN / 2, (void *)(uintptr_t)slot,
				       wc[i].byte_len);
				if (post(d, SR_WR_SEND, (uint64_t)(uintptr_t)d->fast +
					 FAST_LEN / 2, wc[i].byte_len, 0, 0, 0, 0))
					return fail("node 0: echo");
			}
			if (post_recv(d, slot, SLOT, wc[i].wr_id))
				return fail("node 0: post receive");
		}
		while (sr_cq_poll(d->scq, 16, wc) > 0)
			;
		if (n > 0) {
			idle = 0;
			continue;
		}
		sr_node_relax(d->node, &idle);
		if (idle % 1024 == 1023 && recv(d->sock, &bye, 1, MSG_DONTWAIT) != -1)
			return 0;                /* bye, or node 1 left */
	}
}

/* ---- node 1: checks ---- */

static int step(int n, const char *what)
{
	printf("[%d/6] %-52s", n, what);
	return fflush(stdout);
}

static int same(const uint8_t *p, uint32_t len, uint32_t seed, const char *what)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != pattern(i, seed))
			return fail("%s: byte %u is %#x, want %#x", what, i, p[i],
				    pattern(i, seed));
	return printf("ok\n") < 0;
}

static int checks(struct demo *d)
{
	uint64_t f = (uint64_t)(uintptr_t)d->fast, b = (uint64_t)(uintptr_t)d->buf;
	uint64_t pat = d->peer.addr + OFF_PAT, word = d->peer.addr + OFF_WORD;
	uint64_t *res = (uint64_t *)(void *)(d->buf + (3u << 20));
	struct sr_wc wc;

	step(1, "RDMA READ 256 KiB into the fast-registered MR");
	if (run(d, SR_WR_RDMA_READ, f, 256u << 10, pat, 0, 0, 0) ||
	    same(d->fast, 256u << 10, 7, "READ"))
		return -1;
	step(2, "RDMA WRITE 256 KiB to the peer's fast-registered MR");
	fill(d->buf, 256u << 10, 11);
	if (run(d, SR_WR_RDMA_WRITE, b, 256u << 10, d->peer.faddr, 0, 0, 0) ||
	    run(d, SR_WR_RDMA_READ, f + (512u << 10), 256u << 10, d->peer.faddr,
		0, 0, 0) ||
	    same(d->fast + (512u << 10), 256u << 10, 11, "WRITE (read back)"))
		return -1;
	step(3, "SEND 60000 B and receive it echoed");
	fill(d->fast, 60000, 23);
	if (post_recv(d, b + (1u << 20), SLOT, 0) ||
	    run(d, SR_WR_SEND_WITH_IMM, f, 60000, 0, ECHO, 0, 0) ||
	    sr_node_cq_wait(d->node, d->rcq, &wc, 1, WAIT_MS) != 1 ||
	    wc.status != SR_WC_SUCCESS || wc.byte_len != 60000)
		return fail("SEND echo not received");
	if (same(d->buf + (1u << 20), 60000, 23, "SEND echo"))
		return -1;
	step(4, "atomic FETCH_ADD +42 on 1000");
	if (run(d, SR_WR_ATOMIC_FETCH_AND_ADD, (uint64_t)(uintptr_t)res, 8, word,
		0, 42, 0))
		return -1;
	if (res[0] != 1000)
		return fail("FETCH_ADD returned %llu", (unsigned long long)res[0]);
	printf("ok (returned 1000)\n");
	step(5, "atomic CMP_SWAP 1042->7, then 1042->9 (a miss)");
	if (run(d, SR_WR_ATOMIC_CMP_AND_SWP, (uint64_t)(uintptr_t)res, 8, word,
		0, 1042, 7) ||
	    run(d, SR_WR_ATOMIC_CMP_AND_SWP, (uint64_t)(uintptr_t)(res + 1), 8,
		word, 0, 1042, 9))
		return -1;
	if (res[0] != 1042 || res[1] != 7)
		return fail("CMP_SWAP returned %llu, %llu",
			    (unsigned long long)res[0], (unsigned long long)res[1]);
	printf("ok (returned 1042, 7)\n");
	step(6, "RDMA READ of the atomic word");
	if (run(d, SR_WR_RDMA_READ, (uint64_t)(uintptr_t)(res + 2), 8, word,
		0, 0, 0))
		return -1;
	if (res[2] != 7)
		return fail("word is %llu, want 7", (unsigned long long)res[2]);
	return printf("ok (7)\n") < 0;
}

/* ---- node 1: measurements ---- */

/* Bandwidth: DEPTH WRs in flight for 300 ms.  Returns Gbit/s. */
static double bandwidth(struct demo *d, enum sr_wr_opcode op, uint32_t len)
{
	uint64_t local = (uint64_t)(uintptr_t)d->buf, remote = d->peer.faddr;
	uint64_t t0 = sr_node_now_ns(d->node), end = t0 + 300000000ull, bytes = 0;
	uint32_t inflight = 0;
	unsigned int idle = 0;
	struct sr_wc wc[DEPTH];

	for (;;) {
		uint64_t now = sr_node_now_ns(d->node);

		while (now < end && inflight < DEPTH &&
		       post(d, op, local, len, remote, 0, 0, 0) == 0)
			inflight++;
		int n = sr_cq_poll(d->scq, DEPTH, wc);

		for (int i = 0; i < n; i++) {
			if (wc[i].status != SR_WC_SUCCESS)
				return fail("%s %u B: %s", sr_wr_opcode_str(op), len,
					    sr_wc_status_str(wc[i].status));
			bytes += len;
		}
		inflight -= (uint32_t)n;
		if (now >= end && inflight == 0)
			return (double)bytes * 8 / (double)(now - t0);
		if (n == 0)
			sr_node_relax(d->node, &idle);
		else
			idle = 0;
		if (now > end + 5000000000ull)
			return fail("%s %u B: completions stopped",
				    sr_wr_opcode_str(op), len);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* 64 B round trips: READ, or SEND echoed by node 0.  Median and p99 (us). */
static int latency(struct demo *d, bool send, double *med, double *p99)
{
	static uint64_t t[2000];
	uint64_t b = (uint64_t)(uintptr_t)d->buf;
	struct sr_wc wc;

	for (int i = 0; i < 2000; i++) {
		uint64_t t0 = sr_node_now_ns(d->node);

		if (send && post_recv(d, b + (1u << 20), SLOT, 0))
			return fail("post receive");
		if (run(d, send ? SR_WR_SEND_WITH_IMM : SR_WR_RDMA_READ, b, 64,
			d->peer.faddr, ECHO, 0, 0))
			return -1;
		if (send && (sr_node_cq_wait(d->node, d->rcq, &wc, 1, WAIT_MS) != 1 ||
			     wc.status != SR_WC_SUCCESS))
			return fail("SEND echo lost");
		t[i] = sr_node_now_ns(d->node) - t0;
	}
	qsort(t, 2000, sizeof(t[0]), cmp_u64);
	*med = (double)t[1000] / 1000;
	*p99 = (double)t[1980] / 1000;
	return 0;
}

static int measure(struct demo *d)
{
	static const uint32_t size[3] = { 64, 4096, 65536 };
	static const enum sr_wr_opcode op[3] = { SR_WR_RDMA_WRITE, SR_WR_RDMA_READ,
						 SR_WR_SEND };
	double bw[3][3], med[2], p99[2];

	/* The progress line: rewritten in place on a terminal. */
	const char *eol = isatty(STDOUT_FILENO) ? "\r" : "\n";

	for (int o = 0; o < 3; o++)
		for (int s = 0; s < 3; s++) {
			printf("measuring %s bandwidth, %u B ...%-10s%s",
			       sr_wr_opcode_str(op[o]), size[s], "", eol);
			fflush(stdout);
			if ((bw[o][s] = bandwidth(d, op[o], size[s])) < 0)
				return -1;
		}
	printf("measuring 64 B latency ...%-30s%s", "", eol);
	fflush(stdout);
	if (latency(d, false, &med[0], &p99[0]) || latency(d, true, &med[1], &p99[1]))
		return -1;
	printf("%s\n| Gbit/s, %d in flight |   64 B |  4 KiB | 64 KiB | 64 B messages/s |\n"
	       "|---|---:|---:|---:|---:|\n", *eol == '\r' ? "\x1b[2K" : "", DEPTH);
	for (int o = 0; o < 3; o++)
		printf("| %-20s | %6.3f | %6.2f | %6.2f | %13.2f M |\n",
		       o == 0 ? "RDMA WRITE" : o == 1 ? "RDMA READ" : "SEND",
		       bw[o][0], bw[o][1], bw[o][2], bw[o][0] * 1e3 / 8 / 64);
	printf("\n| 64 B round trip (2000) | median | p99 |\n|---|---:|---:|\n"
	       "| RDMA READ | %.1f us | %.1f us |\n| SEND + echo SEND | %.1f us | %.1f us |\n",
	       med[0], p99[0], med[1], p99[1]);
	/* Two polling nodes want two idle cores: say what they had. */
	FILE *f = fopen("/proc/loadavg", "r");
	double load = 0;

	if (f && fscanf(f, "%lf", &load) == 1)
		printf("(%ld CPUs, 1-minute load average %.1f while measuring)\n",
		       sysconf(_SC_NPROCESSORS_ONLN), load);
	if (f)
		fclose(f);
	return 0;
}

/* ---- one node ---- */

static int node_main(int node_id, int listen_fd, int ready_fd)
{
	struct demo d = { .node_id = node_id, .sock = -1, .ready_fd = ready_fd };
	char id[2] = { (char)('0' + node_id), 0 }, ready;
	int rc;

	setenv("SROCE_NODE", id, 1);         /* the default link's node */
	rc = setup(&d, listen_fd);
	if (rc == 0 && node_id == 0)
		rc = serve(&d);
	if (rc == 0 && node_id == 1) {
		if (recv(d.sock, &ready, 1, MSG_WAITALL) != 1)
			rc = fail("node 0 is not ready");
		else
			rc = checks(&d) || measure(&d) ? -1 : 0;
		if (send(d.sock, "B", 1, MSG_NOSIGNAL) != 1 && rc == 0)
			rc = fail("node 0 left early");
	}
	if (d.qp) {
		sr_node_qp_detach(d.node, d.qp);
		sr_qp_destroy(d.qp);
	}
	sr_mr_dereg(d.mr);
	sr_mr_destroy(d.fmr);
	sr_cq_destroy(d.scq);
	sr_cq_destroy(d.rcq);
	sr_pd_dealloc(d.pd);
	if (sr_node_close(d.node))
		rc = fail("node %d: objects left at close", node_id);
	if (d.sock >= 0)
		close(d.sock);
	free(d.buf);
	free(d.fast);
	return rc ? 1 : 0;
}

/* A bad configuration is said once, before there are two nodes to say it. */
static int check_config(void)
{
	char err[SR_CONFIG_ERR_MAX];
	struct sr_pmd_config *cfg = malloc(sizeof(*cfg));
	int lock_fd = -1, rc;

	if (cfg == NULL)
		return fail("out of memory");
	setenv("SROCE_NODE", "1", 1);
	rc = sr_pmd_config_load(cfg, &lock_fd, err, sizeof(err));
	if (rc)
		fprintf(stderr, "sroce: %s\n", err);
	free(cfg);
	return rc;
}

int main(int argc, char **argv)
{
	char run_dir[] = "/tmp/sroce-demo.XXXXXX", sock[PATH_MAX];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int listen_fd, ready[2], status = 0, rc;
	char up;
	pid_t child;

	if (argc > 1)
		return node_main(atoi(argv[1]) == 0 ? 0 : 1, -1, -1);
	/* Both nodes: a private memif folder and TCP port, then fork. */
	if (getenv("SROCE_RUN_DIR") == NULL && mkdtemp(run_dir))
		setenv("SROCE_RUN_DIR", run_dir, 1);
	if (check_config())
		return 1;
	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(listen_fd, 1))
		return fail("TCP listen: %s", strerror(errno)) ? 1 : 0;
	printf("sroce-demo: two sroce nodes on the default memif link, out-of-band exchange over TCP on 127.0.0.1\n");
	fflush(stdout);
	if (pipe(ready))
		return fail("pipe: %s", strerror(errno)) ? 1 : 0;
	child = fork();
	if (child == 0) {
		close(ready[0]);
		_exit(node_main(0, listen_fd, ready[1]));
	}
	/* Dial node 0's memif socket once it listens (or node 0 is gone). */
	close(ready[1]);
	(void)!read(ready[0], &up, 1);
	close(ready[0]);
	rc = node_main(1, listen_fd, -1);
	if (rc)
		kill(child, SIGTERM);       /* node 1 said what went wrong */
	waitpid(child, &status, 0);
	if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		rc = fail("node 0 failed (see above)");
	if (strcmp(getenv("SROCE_RUN_DIR"), run_dir) == 0) {
		snprintf(sock, sizeof(sock), "%s/memif.lock", run_dir);
		unlink(sock);
		rmdir(run_dir);
	}
	if (rc == 0)
		printf("sroce-demo: all checks passed\n");
	return rc ? 1 : 0;
}
