/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_peer.h — what rdma_peer.c (the rounds of every operation) and
 * rdma_peer_race.c (deregistration during a WRITE) share: the memory
 * layout, the out-of-band message and the peer's state.
 */
#ifndef SR_TEST_RDMA_PEER_H
#define SR_TEST_RDMA_PEER_H

#include <stdbool.h>
#include <stdint.h>

#include "node.h"

#define RP_BUF      (1u << 20)         /* plain MR on each side */
#define RP_FBUF     (128u << 10)       /* fast-register MR on each side */
#define RP_IBUF     4096u              /* server: the MR SEND_WITH_INV kills */
#define RP_SLOT     (16u << 10)        /* server receive slots, in buf */
#define RP_NSLOTS   16
#define RP_OFF_WIMM (256u << 10)       /* server buf: WRITE_WITH_IMM target */
#define RP_OFF_READ (320u << 10)       /* server buf: READ source */
#define RP_OFF_WORD (384u << 10)       /* server buf: atomic words */
#define RP_OFF_RES  (512u << 10)       /* client buf: atomic results */

#define RP_SEND_LEN  10000u
#define RP_IMM_LEN   64u
#define RP_INV_LEN   32u
#define RP_WRITE_LEN (64u << 10)
#define RP_WIMM_LEN  4096u
#define RP_READ_LEN  (64u << 10)
#define RP_NWR       10
#define RP_RECVS     4                 /* receives a round consumes */

enum rp_tag { T_SEND = 1, T_IMM, T_INV, T_WRITE, T_WIMM, T_READ };
enum rp_kind { RP_INFO = 1, RP_READY, RP_DONE, RP_OK, RP_FAIL, RP_BYE,
	       RP_RACE, RP_CHECK };

/* The one message of the out-of-band channel. */
struct rp_msg {
	uint32_t kind, round;
	uint32_t qpn, psn;
	uint8_t gid[16];
	uint64_t addr, faddr, iaddr;
	uint32_t rkey, frkey, irkey;
	char text[160];
};

struct rp_mr {
	uint8_t *buf;
	struct sr_mr *mr;
	uint64_t *pages;        /* fast-register: the page list */
	uint32_t len;
};

struct rp {
	bool server;
	uint32_t rounds, timeout_ms;
	uint8_t rc_timeout;
	const char *pause;
	const char *oob;                  /* server's IPv4 address, or NULL */
	unsigned int gid_index;
	unsigned int nspare;
	struct sr_qp *spare[4];           /* idle QPs that shift our QPN */
	int sock;
	struct sr_node *node;
	struct sr_pd *pd;
	struct sr_cq *scq, *rcq;
	struct sr_qp *qp;
	struct rp_mr plain, fast, inv;    /* inv: server only */
	struct rp_msg peer;               /* what the other side told us */
	uint32_t recvs;                   /* server: receive completions */
	uint32_t races;                   /* --dereg-race: iterations */
	char fail[160];                   /* first failure */
};

/* The first failure is kept (printf-like). */
void rp_failf(struct rp *rp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The out-of-band channel: 0 or -1 (rp_recv_msg progresses, runs fn). */
int rp_send_msg(struct rp *rp, const struct rp_msg *m);
int rp_recv_msg(struct rp *rp, struct rp_msg *m, void (*fn)(struct rp *rp));

/*
 * --dereg-race: after the rounds, N times a fresh QP pair, a 1 MiB WRITE
 * whose source MR the client deregisters, then poisons, while the engine
 * (dedicated mode, another thread) sends it.  0 or -errno; rp->fail says.
 */
int rp_race_client(struct rp *rp);
/* The server's side of one iteration, on the client's RP_RACE message. */
int rp_race_serve(struct rp *rp, const struct rp_msg *m);

#endif /* SR_TEST_RDMA_PEER_H */
