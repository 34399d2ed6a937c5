/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_bench.h — the native RDMA benchmark's shared state: two nodes
 * (pmd/node.h) on one link, up to RB_MAX_QP connected RC QP pairs, one
 * registered buffer on each side, a TCP control socket on 127.0.0.1.
 *
 * Node 1 runs every test and prints the figures; node 0 serves: it answers
 * each command (struct rb_cmd) with its counters (struct rb_report) when
 * the test ends.
 */
#ifndef SR_BENCH_RDMA_H
#define SR_BENCH_RDMA_H

#include <stdbool.h>
#include <stdint.h>

#include "node.h"

#define RB_MAX_QP     4
#define RB_BUF_LEN    (8u << 20)      /* the registered buffer, each side */
#define RB_OFF_DATA   0               /* bandwidth source / destination */
#define RB_OFF_RECV   (2u << 20)      /* every receive lands here (1 MiB) */
#define RB_RECV_LEN   (1u << 20)
#define RB_OFF_LAT    (4u << 20)      /* latency ping-pong area */
#define RB_OFF_ATOM   (6u << 20)      /* the atomic word (and results) */
#define RB_SQ_DEPTH   256             /* send queue per QP */
#define RB_RQ_DEPTH   1024            /* receive queue per QP */
#define RB_WAIT_MS    10000
#define RB_MAX_REPEAT 16

enum rb_cmd_kind {
	RB_CMD_PASSIVE = 1,   /* WRITE/READ/atomic bandwidth, READ latency */
	RB_CMD_SINK,          /* SEND bandwidth: keep receives posted */
	RB_CMD_LAT_WRITE,     /* WRITE ping-pong: answer each write */
	RB_CMD_LAT_SEND,      /* SEND ping-pong: answer each receive */
	RB_CMD_END,           /* the test is over: report */
	RB_CMD_BYE,
};

struct rb_cmd {
	uint32_t kind, size, qps, iters;
};

/* Node 0's view of one test: its CPU time and packet counts. */
struct rb_report {
	uint64_t cpu_ns, rx_pkts, tx_pkts, errors;
};

struct rb_info {                      /* what the TCP exchange carries */
	uint32_t qpn[RB_MAX_QP], psn[RB_MAX_QP];
	uint32_t rkey;
	uint64_t addr;
	uint8_t gid[16];
};

struct rb {
	int node_id, sock;
	bool dedicated;
	struct sr_node *node;
	struct sr_pd *pd;
	struct sr_cq *scq, *rcq;
	struct sr_qp *qp[RB_MAX_QP];
	uint8_t *buf;
	struct sr_mr *mr;
	struct rb_info me, peer;
	/* node 1's options */
	double seconds;               /* per bandwidth point */
	uint32_t lat_iters;
	uint32_t depth;               /* WRs in flight per QP (bandwidth) */
	uint32_t cq_mod;              /* one signaled WR in cq_mod */
	uint32_t repeat;              /* runs per point, the best counts */
	const char *mode;             /* label: inline, dedicated-1, ... */
	const char *only;             /* NULL, or a list of tests to run */
	const char *sizes, *qps, *ops; /* comma lists (bandwidth) */
	/* both nodes: connected RC QPs that never carry traffic, to show
	 * what idle QPs cost the busy ones (core/sched.h) */
	uint32_t idle;
	struct sr_qp **idle_qp;
};

/* rdma_tests.c: node 1's tests (0, or -1 after printing why). */
int rb_run_tests(struct rb *b);
/* rdma_tests.c: node 0's service loop until RB_CMD_BYE. */
int rb_serve(struct rb *b);

/* rdma_bench.c: helpers both files use. */
int rb_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t rb_cpu_ns(void);
int rb_post_recv(struct rb *b, int q, uint32_t n);
int rb_send_all(int fd, const void *p, size_t len);
int rb_recv_all(int fd, void *p, size_t len);

#endif /* SR_BENCH_RDMA_H */
