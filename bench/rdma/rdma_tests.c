/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_tests.c — what the two nodes of sroce-bench-rdma do.
 *
 * Node 1 (rb_run_tests), per figure:
 *   bw      WRITE / READ / SEND of each size on 1 and 4 QPs for a fixed
 *           time, the QPs round robin; each QP keeps up to `depth` work
 *           requests in flight (fewer for big messages: 8 MiB per QP at
 *           most), one in `cq_mod` signaled.  Gbit/s of payload, messages
 *           per second, and CPU nanoseconds per data packet of each node
 *           (process CPU time / requester data packets: both nodes poll,
 *           so this is the packet's whole cost at the busier side), and
 *           the requester's go-back-N restarts (sequence NAKs, timeouts).
 *   lat     WRITE and SEND ping-pong (half the round trip, as perftest's
 *           ib_write_lat / ib_send_lat report) and READ (the whole READ,
 *           as ib_read_lat); median and p99 of lat_iters.
 *   atomic  FETCH_ADD and CMP_SWAP on one word, as the bw test: ops/s.
 *   frmr    fast-register + local invalidate work requests on one QP's
 *           send queue (no packets): pairs per second, through the
 *           engine, for 1 and 16 pages.
 * Bandwidth, atomics and FRMR points run `repeat` times and the best
 * counts (the machine is shared); bw also gives the median.
 * Node 0 (rb_serve) answers each command with its CPU time and counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rdma_bench.h"

#define RB_MAX_SIZES   16
#define RB_FLIGHT_MAX  (8u << 20)     /* bytes in flight per QP (bw) */
#define RB_CTL_ROUNDS  1024           /* node 0 looks at TCP this often */
#define RB_CLOCK_EVERY 16             /* bw loop: rounds between clock reads */

static inline void rb_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* Inline mode: one engine round.  Dedicated: the engine lcore does it. */
static inline void rb_progress(struct rb *b)
{
	if (sr_node_progress(b->node) == 0 && b->dedicated)
		rb_pause();
}

static void rb_counters(struct rb *b, uint64_t *rx, uint64_t *tx)
{
	uint64_t c[SR_CNT_MAX];

	sr_dev_counters(sr_node_dev(b->node), c);
	*rx = c[SR_CNT_RX_PKTS];
	*tx = c[SR_CNT_TX_PKTS];
}

/* Go-back-N restarts of this node's requesters: NAKs and timeouts. */
static uint64_t rb_retries(struct rb *b)
{
	uint64_t c[SR_CNT_MAX];

	sr_dev_counters(sr_node_dev(b->node), c);
	return c[SR_CNT_RETRY] + c[SR_CNT_RNR_RETRY];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ---- node 0 ---- */

struct rb_role {
	struct rb_cmd cmd;
	uint32_t seq;                 /* ping-pong: the next answer */
	uint64_t cpu0, rx0, tx0, errors;
};

static int rb_answer_write(struct rb *b, struct rb_role *r)
{
	uint32_t size = r->cmd.size;
	volatile uint8_t *in = b->buf + RB_OFF_LAT + size - 1;
	uint8_t want = (uint8_t)(r->seq % 255 + 1);

	if (*in != want)
		return 0;
	struct sr_sge sge = { (uint64_t)(uintptr_t)b->buf + RB_OFF_LAT + (1u << 20),
			      size, sr_mr_lkey(b->mr) };
	struct sr_send_wr wr = { .sg_list = &sge, .num_sge = 1,
		.opcode = SR_WR_RDMA_WRITE, .send_flags = SR_SEND_SIGNALED,
		.wr.rdma = { b->peer.addr + RB_OFF_LAT, b->peer.rkey } };
	const struct sr_send_wr *bad;

	b->buf[RB_OFF_LAT + (1u << 20) + size - 1] = want;
	if (sr_qp_post_send(b->qp[0], &wr, &bad))
		r->errors++;
	r->seq++;
	return 1;
}

static int rb_serve_round(struct rb *b, struct rb_role *r)
{
	uint32_t repost[RB_MAX_QP] = { 0 };
	struct sr_wc wc[64];
	int n, work = 0;

	if (r->cmd.kind == RB_CMD_LAT_WRITE)
		work += rb_answer_write(b, r);
	n = sr_cq_poll(b->rcq, 64, wc);
	for (int i = 0; i < n; i++) {
		int q = (int)wc[i].wr_id;

		if (wc[i].status != SR_WC_SUCCESS) {
			r->errors++;
			continue;
		}
		if (r->cmd.kind == RB_CMD_LAT_SEND) {
			struct sr_sge sge = { (uint64_t)(uintptr_t)b->buf +
					      RB_OFF_LAT + (1u << 20),
					      wc[i].byte_len, sr_mr_lkey(b->mr) };
			struct sr_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				.opcode = SR_WR_SEND,
				.send_flags = SR_SEND_SIGNALED };
			const struct sr_send_wr *bad;

			if (sr_qp_post_send(b->qp[q], &wr, &bad))
				r->errors++;
		}
		repost[q]++;
	}
	for (int q = 0; n > 0 && q < RB_MAX_QP; q++)
		if (repost[q] && rb_post_recv(b, q, repost[q]))
			r->errors++;
	work += n;
	while ((n = sr_cq_poll(b->scq, 64, wc)) > 0) {
		for (int i = 0; i < n; i++)
			r->errors += wc[i].status != SR_WC_SUCCESS;
		work += n;
	}
	return work;
}

/* A command from node 1, if one came (0), else -EAGAIN; -EPIPE: gone. */
static int rb_serve_cmd(struct rb *b, struct rb_role *r)
{
	struct rb_cmd cmd;
	ssize_t n = recv(b->sock, &cmd, sizeof(cmd), MSG_DONTWAIT | MSG_PEEK);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return -EAGAIN;
	if (n < (ssize_t)sizeof(cmd) && n > 0)
		return -EAGAIN;
	if (n <= 0 || rb_recv_all(b->sock, &cmd, sizeof(cmd)))
		return -EPIPE;
	if (cmd.kind == RB_CMD_END) {
		struct rb_report rep = { .cpu_ns = rb_cpu_ns() - r->cpu0,
					 .errors = r->errors };

		rb_counters(b, &rep.rx_pkts, &rep.tx_pkts);
		rep.rx_pkts -= r->rx0;
		rep.tx_pkts -= r->tx0;
		r->cmd.kind = RB_CMD_PASSIVE;
		return rb_send_all(b->sock, &rep, sizeof(rep)) ? -EPIPE : 0;
	}
	if (cmd.kind == RB_CMD_BYE)
		return -EPIPE;
	r->cmd = cmd;
	r->seq = 0;
	r->errors = 0;
	memset(b->buf + RB_OFF_LAT, 0, 2u << 20);
	r->cpu0 = rb_cpu_ns();
	rb_counters(b, &r->rx0, &r->tx0);
	return rb_send_all(b->sock, "A", 1) ? -EPIPE : 0;
}

int rb_serve(struct rb *b)
{
	struct rb_role r = { .cmd.kind = RB_CMD_PASSIVE };
	unsigned int idle = 0;

	for (uint32_t round = 0;; round++) {
		int work = rb_serve_round(b, &r);

		/* No clock read and no syscall per round: they would be
		 * counted against sroce in the per-packet figures. */
		if (round % RB_CTL_ROUNDS == 0 && rb_serve_cmd(b, &r) == -EPIPE)
			return 0;
		/* Ping-pong: spin without yielding; else relax. */
		if (work || r.cmd.kind == RB_CMD_LAT_WRITE ||
		    r.cmd.kind == RB_CMD_LAT_SEND) {
			idle = 0;
			rb_progress(b);
		} else {
			sr_node_relax(b->node, &idle);
		}
	}
}

/* ---- node 1: talking to node 0 ---- */

static int rb_begin(struct rb *b, uint32_t kind, uint32_t size, uint32_t qps)
{
	struct rb_cmd cmd = { .kind = kind, .size = size, .qps = qps };
	char ack;

	if (rb_send_all(b->sock, &cmd, sizeof(cmd)) ||
	    rb_recv_all(b->sock, &ack, 1))
		return rb_fail("node 0 does not answer");
	return 0;
}

static int rb_end(struct rb *b, struct rb_report *rep)
{
	struct rb_cmd cmd = { .kind = RB_CMD_END };

	if (rb_send_all(b->sock, &cmd, sizeof(cmd)) ||
	    rb_recv_all(b->sock, rep, sizeof(*rep)))
		return rb_fail("node 0 does not report");
	if (rep->errors)
		return rb_fail("node 0 saw %llu failed completions",
			       (unsigned long long)rep->errors);
	return 0;
}

/* ---- node 1: bandwidth and message rate ---- */

struct rb_bw {
	double gbps, mmps, ns_pkt[2];
	uint64_t pkts, retries;
};

static const char *op_name(enum sr_wr_opcode op)
{
	switch (op) {
	case SR_WR_RDMA_WRITE: return "WRITE";
	case SR_WR_RDMA_READ: return "READ";
	case SR_WR_SEND: return "SEND";
	case SR_WR_ATOMIC_FETCH_AND_ADD: return "FETCH_ADD";
	case SR_WR_ATOMIC_CMP_AND_SWP: return "CMP_SWAP";
	default: return sr_wr_opcode_str(op);
	}
}

static int rb_bw_run(struct rb *b, enum sr_wr_opcode op, uint32_t size,
		     uint32_t nqp, struct rb_bw *out)
{
	bool atomic = op == SR_WR_ATOMIC_FETCH_AND_ADD ||
		      op == SR_WR_ATOMIC_CMP_AND_SWP;
	uint32_t depth = b->depth, cqm, chunks;
	static struct sr_send_wr wr[RB_MAX_QP][RB_SQ_DEPTH];
	struct sr_sge sge = { (uint64_t)(uintptr_t)b->buf +
			      (atomic ? RB_OFF_ATOM + 64 : RB_OFF_DATA),
			      size, sr_mr_lkey(b->mr) };
	uint32_t inflight[RB_MAX_QP] = { 0 };
	uint64_t done = 0, t0, end, last, now = 0, cpu0, rx0, tx0, rx1, tx1;
	struct rb_report rep;
	struct sr_wc wc[64];
	unsigned int idle = 0;

	if (depth * (uint64_t)size > RB_FLIGHT_MAX)
		depth = RB_FLIGHT_MAX / size > 2 ? RB_FLIGHT_MAX / size : 2;
	if (atomic)             /* at most rd_atomic (16) are outstanding */
		depth = 32;
	cqm = b->cq_mod < depth / 4 ? b->cq_mod : (depth / 4 ? depth / 4 : 1);
	chunks = depth / cqm;
	for (uint32_t q = 0; q < nqp; q++)
		for (uint32_t i = 0; i < cqm; i++) {
			struct sr_send_wr *w = &wr[q][i];

			*w = (struct sr_send_wr){ .wr_id = q, .sg_list = &sge,
				.num_sge = 1, .opcode = op,
				.next = i + 1 < cqm ? &wr[q][i + 1] : NULL,
				.send_flags = i + 1 == cqm ? SR_SEND_SIGNALED : 0 };
			if (atomic) {
				w->wr.atomic.remote_addr = b->peer.addr + RB_OFF_ATOM;
				w->wr.atomic.rkey = b->peer.rkey;
				w->wr.atomic.compare_add = 1;
				w->wr.atomic.swap = 2;
			} else {
				w->wr.rdma.remote_addr = b->peer.addr + RB_OFF_DATA;
				w->wr.rdma.rkey = b->peer.rkey;
			}
		}
	if (rb_begin(b, op == SR_WR_SEND ? RB_CMD_SINK : RB_CMD_PASSIVE, size,
		     nqp))
		return -1;
	cpu0 = rb_cpu_ns();
	rb_counters(b, &rx0, &tx0);
	out->retries = rb_retries(b);
	t0 = last = sr_node_now_ns(b->node);
	end = t0 + (uint64_t)(b->seconds * 1e9);
	for (uint32_t round = 0;; round++) {
		bool more, busy = false;
		int n;

		if (round % RB_CLOCK_EVERY == 0)
			now = sr_node_now_ns(b->node);
		more = now < end;

		for (uint32_t q = 0; more && q < nqp; q++)
			while (inflight[q] < chunks) {
				const struct sr_send_wr *bad;

				if (sr_qp_post_send(b->qp[q], wr[q], &bad))
					break;
				inflight[q]++;
				busy = true;
			}
		n = sr_cq_poll(b->scq, 64, wc);
		if (n > 0)
			now = last = sr_node_now_ns(b->node);
		for (int i = 0; i < n; i++) {
			if (wc[i].status != SR_WC_SUCCESS)
				return rb_fail("%s %u B: %s", op_name(op), size,
					       sr_wc_status_str(wc[i].status));
			inflight[wc[i].wr_id]--;
			done += cqm;
		}
		if (!more) {
			uint32_t left = 0;

			for (uint32_t q = 0; q < nqp; q++)
				left += inflight[q];
			if (left == 0)
				break;
			if (now > end + 5000000000ull)
				return rb_fail("%s %u B: completions stopped",
					       op_name(op), size);
		}
		if (n || busy) {
			idle = 0;
			rb_progress(b);
		} else {
			sr_node_relax(b->node, &idle);
		}
	}
	uint64_t cpu = rb_cpu_ns() - cpu0;

	rb_counters(b, &rx1, &tx1);
	out->retries = rb_retries(b) - out->retries;
	if (rb_end(b, &rep))
		return -1;
	double sec = (double)(last - t0) / 1e9;

	/* Requester data packets: READ responses come from node 0. */
	out->pkts = op == SR_WR_RDMA_READ ? rep.tx_pkts : tx1 - tx0;
	out->gbps = (double)done * size * 8 / sec / 1e9;
	out->mmps = (double)done / sec / 1e6;
	out->ns_pkt[0] = out->pkts ? (double)rep.cpu_ns / (double)out->pkts : 0;
	out->ns_pkt[1] = out->pkts ? (double)cpu / (double)out->pkts : 0;
	(void)rx1;
	(void)rx0;
	return 0;
}

/* ---- node 1: latency ---- */

static int rb_lat_run(struct rb *b, enum sr_wr_opcode op, uint32_t size,
		      double *med, double *p99)
{
	uint32_t n = b->lat_iters;
	uint64_t *t = calloc(n, sizeof(*t));
	uint8_t *src = b->buf + RB_OFF_LAT + (1u << 20);
	volatile uint8_t *in = b->buf + RB_OFF_LAT + size - 1;
	struct sr_sge sge = { (uint64_t)(uintptr_t)src, size, sr_mr_lkey(b->mr) };
	struct sr_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = SR_SEND_SIGNALED,
		.wr.rdma = { b->peer.addr + RB_OFF_LAT, b->peer.rkey } };
	const struct sr_send_wr *bad;
	struct rb_report rep;
	struct sr_wc wc[16], drain[16];
	int rc = 0;

	if (t == NULL)
		return rb_fail("out of memory");
	memset(b->buf + RB_OFF_LAT, 0, 2u << 20);
	if (rb_begin(b, op == SR_WR_RDMA_WRITE ? RB_CMD_LAT_WRITE :
		     op == SR_WR_SEND ? RB_CMD_LAT_SEND : RB_CMD_PASSIVE,
		     size, 1)) {
		free(t);
		return -1;
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		uint8_t want = (uint8_t)(i % 255 + 1);
		uint64_t t0 = sr_node_now_ns(b->node), lim = t0 + 1000000000ull;
		bool got = false;

		src[size - 1] = want;
		if (sr_qp_post_send(b->qp[0], &wr, &bad)) {
			rc = rb_fail("%s latency: cannot post", op_name(op));
			break;
		}
		while (!got) {
			int k;

			rb_progress(b);
			if (op == SR_WR_RDMA_WRITE) {
				got = *in == want;
				k = sr_cq_poll(b->scq, 16, wc);
			} else if (op == SR_WR_SEND) {
				k = sr_cq_poll(b->rcq, 16, wc);
				got = k > 0;
				if (got && rb_post_recv(b, 0, (uint32_t)k))
					rc = rb_fail("post receive");
				while (sr_cq_poll(b->scq, 16, drain) > 0)
					;
			} else {
				k = sr_cq_poll(b->scq, 16, wc);
				got = k > 0;
			}
			for (int j = 0; j < k; j++)
				if (wc[j].status != SR_WC_SUCCESS)
					rc = rb_fail("%s latency: %s", op_name(op),
						     sr_wc_status_str(wc[j].status));
			if (rc || sr_node_now_ns(b->node) > lim) {
				rc = rc ? rc : rb_fail("%s latency: no answer",
						       op_name(op));
				break;
			}
		}
		t[i] = sr_node_now_ns(b->node) - t0;
	}
	/* Drain the last WRITE completions. */
	for (int k = 0; k < 1000; k++) {
		rb_progress(b);
		sr_cq_poll(b->scq, 16, wc);
	}
	if (rb_end(b, &rep) && rc == 0)
		rc = -1;
	if (rc == 0) {
		/* WRITE and SEND: half the round trip, as perftest. */
		double div = op == SR_WR_RDMA_READ ? 1000.0 : 2000.0;

		qsort(t, n, sizeof(*t), cmp_u64);
		*med = (double)t[n / 2] / div;
		*p99 = (double)t[(uint64_t)n * 99 / 100] / div;
	}
	free(t);
	return rc;
}

/* ---- node 1: fast registration through the send queue ---- */

static int rb_frmr_run(struct rb *b, uint32_t npages, double *mpairs)
{
	enum { PAIRS = 16 };
	struct sr_mr *mr = sr_mr_create(b->pd, true);
	uint64_t *pages = calloc(npages, sizeof(*pages));
	struct sr_send_wr wr[2 * PAIRS];
	uint64_t pairs = 0, t0, end, now;
	uint32_t key, inflight = 0;
	struct sr_wc wc[16];
	unsigned int idle = 0;
	int rc = 0;

	if (mr == NULL || pages == NULL || sr_frmr_init(mr, npages, true)) {
		free(pages);
		sr_mr_destroy(mr);
		return rb_fail("FRMR set-up");
	}
	for (uint32_t i = 0; i < npages; i++)
		pages[i] = (uint64_t)(uintptr_t)b->buf + (uint64_t)i * 4096;
	key = sr_mr_lkey(mr);
	t0 = sr_node_now_ns(b->node);
	end = t0 + (uint64_t)(b->seconds * 1e9);
	do {
		now = sr_node_now_ns(b->node);
		/* Up to 4 chains of PAIRS pairs; the last INV signaled. */
		while (now < end && inflight < 4) {
			const struct sr_send_wr *bad;

			for (int i = 0; i < PAIRS; i++) {
				key = (key & ~0xffu) | ((key + 1) & 0xffu);
				wr[2 * i] = (struct sr_send_wr){
					.opcode = SR_WR_REG_MR, .next = &wr[2 * i + 1],
					.wr.reg = { .mr = mr, .pages = pages,
						    .npages = npages,
						    .length = npages * 4096ull,
						    .iova = (uint64_t)(uintptr_t)b->buf,
						    .access = SR_ACCESS_LOCAL_WRITE |
							      SR_ACCESS_REMOTE_WRITE,
						    .key = key } };
				wr[2 * i + 1] = (struct sr_send_wr){
					.opcode = SR_WR_LOCAL_INV,
					.invalidate_rkey = key,
					.next = i + 1 < PAIRS ? &wr[2 * i + 2] : NULL,
					.send_flags = i + 1 < PAIRS ? 0 : SR_SEND_SIGNALED };
			}
			if (sr_qp_post_send(b->qp[0], wr, &bad)) {
				rc = rb_fail("FRMR: cannot post");
				break;
			}
			inflight++;
		}
		int n = sr_cq_poll(b->scq, 16, wc);

		for (int i = 0; i < n; i++)
			if (wc[i].status != SR_WC_SUCCESS)
				rc = rb_fail("FRMR: %s", sr_wc_status_str(wc[i].status));
		inflight -= (uint32_t)n;
		pairs += (uint64_t)n * PAIRS;
		if (n)
			rb_progress(b);
		else
			sr_node_relax(b->node, &idle);
	} while (rc == 0 && (now < end || inflight > 0) &&
		 now < end + 5000000000ull);
	*mpairs = (double)pairs / ((double)(now - t0) / 1e9) / 1e6;
	if (rc == 0 && sr_mr_is_valid(mr))
		rc = rb_fail("FRMR: still valid at the end");
	sr_mr_destroy(mr);
	free(pages);
	return rc;
}

/* ---- node 1: the run ---- */

static bool wanted(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || p[n] == 0))
			return true;
	return list == NULL;
}

static int parse_list(const char *s, uint32_t *out, int max)
{
	int n = 0;

	while (s && *s && n < max) {
		char *e;

		out[n++] = (uint32_t)strtoul(s, &e, 0);
		s = *e ? e + 1 : e;
	}
	return n;
}

static double load_avg(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static int rb_bw_tests(struct rb *b)
{
	static const enum sr_wr_opcode ops[3] = { SR_WR_RDMA_WRITE,
		SR_WR_RDMA_READ, SR_WR_SEND };
	static const char *const names[3] = { "write", "read", "send" };
	uint32_t size[RB_MAX_SIZES], qps[RB_MAX_QP];
	int ns = parse_list(b->sizes, size, RB_MAX_SIZES);
	int nq = parse_list(b->qps, qps, RB_MAX_QP);

	printf("%-6s %8s %4s %10s %10s %12s %12s %8s\n", "op", "size", "QPs",
	       "Gbit/s", "Mmsg/s", "ns/pkt n0", "ns/pkt n1", "retries");
	for (int o = 0; o < 3; o++) {
		if (!wanted(b->ops, names[o]))
			continue;
		for (int q = 0; q < nq; q++)
			for (int s = 0; s < ns; s++) {
				struct rb_bw r, best = { 0 };
				double all[RB_MAX_REPEAT];

				if (qps[q] < 1 || qps[q] > RB_MAX_QP || size[s] == 0 ||
				    size[s] > RB_RECV_LEN)
					continue;
				/* Best of `repeat`: the machine is shared. */
				for (uint32_t k = 0; k < b->repeat; k++) {
					if (rb_bw_run(b, ops[o], size[s], qps[q], &r))
						return -1;
					all[k] = r.gbps;
					if (r.gbps > best.gbps)
						best = r;
				}
				qsort(all, b->repeat, sizeof(all[0]), cmp_double);
				printf("%-6s %8u %4u %10.3f %10.3f %12.1f %12.1f %8llu\n",
				       op_name(ops[o]), size[s], qps[q], best.gbps,
				       best.mmps, best.ns_pkt[0], best.ns_pkt[1],
				       (unsigned long long)best.retries);
				printf("{\"bench\":\"sroce\",\"test\":\"bw\",\"mode\":\"%s\","
				       "\"op\":\"%s\",\"size\":%u,\"qps\":%u,\"gbps\":%.4f,"
				       "\"mmps\":%.4f,\"gbps_median\":%.4f,\"repeat\":%u,"
				       "\"pkts\":%llu,\"ns_pkt_n0\":%.1f,"
				       "\"ns_pkt_n1\":%.1f,\"retries\":%llu,\"load\":%.2f}\n",
				       b->mode, op_name(ops[o]), size[s], qps[q], best.gbps,
				       best.mmps, all[b->repeat / 2], b->repeat,
				       (unsigned long long)best.pkts, best.ns_pkt[0],
				       best.ns_pkt[1], (unsigned long long)best.retries,
				       load_avg());
				fflush(stdout);
			}
	}
	return 0;
}

static int rb_lat_tests(struct rb *b)
{
	static const enum sr_wr_opcode ops[3] = { SR_WR_RDMA_WRITE,
		SR_WR_RDMA_READ, SR_WR_SEND };
	static const char *const names[3] = { "write", "read", "send" };
	static const uint32_t sizes[2] = { 64, 4096 };

	printf("%-6s %8s %12s %12s  (%u iterations; WRITE/SEND: half round trip)\n",
	       "op", "size", "median us", "p99 us", b->lat_iters);
	for (int o = 0; o < 3; o++)
		for (int s = 0; s < 2 && wanted(b->ops, names[o]); s++) {
			double med, p99;

			if (rb_lat_run(b, ops[o], sizes[s], &med, &p99))
				return -1;
			printf("%-6s %8u %12.2f %12.2f\n", op_name(ops[o]),
			       sizes[s], med, p99);
			printf("{\"bench\":\"sroce\",\"test\":\"lat\",\"mode\":\"%s\","
			       "\"op\":\"%s\",\"size\":%u,\"median_us\":%.3f,"
			       "\"p99_us\":%.3f,\"half_rtt\":%s,\"load\":%.2f}\n",
			       b->mode, op_name(ops[o]), sizes[s], med, p99,
			       ops[o] == SR_WR_RDMA_READ ? "false" : "true",
			       load_avg());
			fflush(stdout);
		}
	return 0;
}

static int rb_atomic_tests(struct rb *b)
{
	static const enum sr_wr_opcode ops[2] = { SR_WR_ATOMIC_FETCH_AND_ADD,
		SR_WR_ATOMIC_CMP_AND_SWP };

	for (int o = 0; o < 2; o++) {
		struct rb_bw r = { 0 }, one;

		for (uint32_t k = 0; k < b->repeat; k++) {
			if (rb_bw_run(b, ops[o], 8, 1, &one))
				return -1;
			if (one.mmps > r.mmps)
				r = one;
		}
		printf("%-10s 1 QP: %8.3f M ops/s\n", op_name(ops[o]), r.mmps);
		printf("{\"bench\":\"sroce\",\"test\":\"atomic\",\"mode\":\"%s\","
		       "\"op\":\"%s\",\"qps\":1,\"mops\":%.4f,\"load\":%.2f}\n",
		       b->mode, op_name(ops[o]), r.mmps, load_avg());
		fflush(stdout);
	}
	return 0;
}

static int rb_frmr_tests(struct rb *b)
{
	static const uint32_t npages[2] = { 1, 16 };

	for (int i = 0; i < 2; i++) {
		double m;

		m = 0;
		for (uint32_t k = 0; k < b->repeat; k++) {
			double one;

			if (rb_frmr_run(b, npages[i], &one))
				return -1;
			m = one > m ? one : m;
		}
		printf("REG_MR + LOCAL_INV work requests, %2u page%s: %7.3f M pairs/s\n",
		       npages[i], npages[i] == 1 ? " " : "s", m);
		printf("{\"bench\":\"sroce\",\"test\":\"frmr_wr\",\"mode\":\"%s\","
		       "\"npages\":%u,\"mpairs\":%.4f,\"load\":%.2f}\n",
		       b->mode, npages[i], m, load_avg());
		fflush(stdout);
	}
	return 0;
}

int rb_run_tests(struct rb *b)
{
	printf("sroce-bench-rdma: %s progress, path MTU %u, %u in flight per QP "
	       "(8 MiB at most), 1 in %u signaled, %.2f s per point\n",
	       b->mode, sr_mtu_bytes(sr_node_path_mtu(b->node)), b->depth,
	       b->cq_mod, b->seconds);
	fflush(stdout);
	if (wanted(b->only, "bw") && rb_bw_tests(b))
		return -1;
	if (wanted(b->only, "lat") && rb_lat_tests(b))
		return -1;
	if (wanted(b->only, "atomic") && rb_atomic_tests(b))
		return -1;
	if (wanted(b->only, "frmr") && rb_frmr_tests(b))
		return -1;
	return 0;
}
