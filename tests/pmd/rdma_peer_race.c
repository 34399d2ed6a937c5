/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_peer_race.c — a memory region deregistered while a WRITE from it
 * is on its way out never puts freed memory on the wire.
 *
 * The transport may send a payload straight from registered memory (the
 * frame points at it until the port has copied it, pmd/rxtx.c), so
 * deregistration must wait for frames in flight.  Each iteration: a fresh
 * RC QP pair; the client maps a 1 MiB buffer, fills it with RACE_DATA,
 * registers it, posts one WRITE of all of it to the server, waits until
 * the QP has sent some of its packets (1 to half of them, fewer after a
 * WRITE that completed first), deregisters
 * the region and at once unmaps the buffer.  The engine runs on its own lcore (dedicated mode),
 * so it is building and sending the WRITE's packets meanwhile: a frame
 * still pointing into the buffer after the deregistration returned would
 * be read from unmapped memory by the port's copy, and the process dies
 * of SIGSEGV — the failure this test exists for.  The WRITE completes
 * with success or an error, as far as it got; the server checks that what
 * landed is the client's data and nothing else.  The client counts the
 * iterations that hit the WRITE half way (an error completion after some
 * bytes arrived): if none did, the race was never run and the test says
 * so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "rdma_peer.h"

#define RACE_LEN    RP_BUF            /* the server's plain buffer, whole */
#define RACE_DATA   0x5a
#define RACE_PKTS   (RACE_LEN / 4096) /* the WRITE's packets at path MTU 4 KiB */
#define RACE_SETTLE_MS 5              /* server: frames still on the link */

static struct sr_qp *race_qp_create(struct rp *rp)
{
	struct sr_qp_init_attr init = {
		.qp_type = SR_QPT_RC,
		.pd = rp->pd,
		.send_cq = rp->scq,
		.recv_cq = rp->rcq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return sr_qp_create(sr_node_dev(rp->node), &init);
}

/* Connect qp to the peer named in m; 0 or -errno. */
static int race_connect(struct rp *rp, struct sr_qp *qp, uint32_t psn,
			const struct rp_msg *m)
{
	struct sr_node_conn conn = { .timeout = rp->rc_timeout, .retry_cnt = 1 };
	struct sr_node_peer peer = { .qpn = m->qpn, .psn = m->psn };

	memcpy(peer.gid, m->gid, 16);
	return sr_node_qp_connect(rp->node, qp, psn, &peer, &conn,
				  rp->timeout_ms);
}

/* ---- server ---- */

int rp_race_serve(struct rp *rp, const struct rp_msg *m)
{
	const struct timespec settle = { .tv_nsec = RACE_SETTLE_MS * 1000000L };
	struct rp_msg r = { .kind = RP_RACE, .psn = 0x2000 };
	uint64_t data = 0, other = 0;
	struct sr_qp *qp;
	int rc;

	memset(rp->plain.buf, 0, RACE_LEN);
	qp = race_qp_create(rp);
	if (qp == NULL)
		return -ENOMEM;
	r.qpn = sr_qp_num(qp);
	r.addr = (uint64_t)(uintptr_t)rp->plain.buf;
	r.rkey = sr_mr_rkey(rp->plain.mr);
	sr_node_gid(rp->node, rp->gid_index, r.gid);
	rc = race_connect(rp, qp, r.psn, m);
	if (rc == 0)
		rc = rp_send_msg(rp, &r);
	/* the client's WRITE, deregistration and completion */
	if (rc == 0 && (rp_recv_msg(rp, &r, NULL) || r.kind != RP_CHECK))
		rc = -EPROTO;
	if (rc == 0) {
		for (int i = 0; i < 64; i++)
			sr_node_progress(rp->node);
		nanosleep(&settle, NULL);
		for (uint32_t i = 0; i < RACE_LEN; i++) {
			data += rp->plain.buf[i] == RACE_DATA;
			other += rp->plain.buf[i] != RACE_DATA &&
				 rp->plain.buf[i] != 0;
		}
		r.addr = data;
		r.faddr = other;
		rc = rp_send_msg(rp, &r);
	}
	sr_qp_destroy(qp);
	return rc;
}

/* ---- client ---- */

/*
 * Wait until qp has sent pkts packets, or for the timeout (the engine runs
 * on its own lcore meanwhile; yielding lets it have the CPU).
 */
static void race_wait(struct rp *rp, struct sr_qp *qp, uint64_t pkts)
{
	uint64_t end = sr_node_now_ns(rp->node) +
		       (uint64_t)rp->timeout_ms * 1000000;
	uint64_t cnt[SR_CNT_MAX];

	for (;;) {
		sr_qp_counters(qp, cnt);
		if (cnt[SR_CNT_TX_PKTS] >= pkts ||
		    sr_node_now_ns(rp->node) > end)
			return;
		sched_yield();
	}
}

/*
 * One iteration.  *outcome: 0 the WRITE completed, 1 it failed after some
 * bytes arrived (the race this test is for), 2 it failed before any did.
 */
static int race_once(struct rp *rp, uint32_t i, uint32_t kmax, int *outcome)
{
	struct rp_msg m = { .kind = RP_RACE, .round = i, .psn = 0x1000 };
	struct sr_send_wr wr = {
		.wr_id = 0x7ace,
		.opcode = SR_WR_RDMA_WRITE,
		.send_flags = SR_SEND_SIGNALED,
		.num_sge = 1,
	};
	const struct sr_send_wr *bad;
	struct sr_sge sge;
	struct sr_qp *qp;
	struct sr_mr *mr;
	struct sr_wc wc;
	uint8_t *buf;
	int rc;

	qp = race_qp_create(rp);
	buf = mmap(NULL, RACE_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		buf = NULL;
	if (qp == NULL || buf == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	memset(buf, RACE_DATA, RACE_LEN);
	m.qpn = sr_qp_num(qp);
	sr_node_gid(rp->node, rp->gid_index, m.gid);
	if (rp_send_msg(rp, &m) || rp_recv_msg(rp, &m, NULL) ||
	    m.kind != RP_RACE) {
		rc = -EPROTO;
		goto out;
	}
	rc = race_connect(rp, qp, 0x1000, &m);
	if (rc)
		goto out;
	mr = sr_mr_reg_virt(rp->pd, buf, RACE_LEN, (uint64_t)(uintptr_t)buf, 0);
	if (mr == NULL) {
		rc = -errno;
		goto out;
	}
	sge = (struct sr_sge){ (uint64_t)(uintptr_t)buf, RACE_LEN,
			       sr_mr_lkey(mr) };
	wr.sg_list = &sge;
	wr.wr.rdma.remote_addr = m.addr;
	wr.wr.rdma.rkey = m.rkey;
	rc = sr_qp_post_send(qp, &wr, &bad);
	if (rc) {
		sr_mr_destroy(mr);
		goto out;
	}
	race_wait(rp, qp, 1 + (i * 7) % kmax);   /* at least one packet out */
	rc = sr_mr_destroy(mr);        /* waits for frames that point at buf */
	munmap(buf, RACE_LEN);         /* a frame that reads it now faults */
	buf = NULL;
	if (rc) {
		rp_failf(rp, "race %u: deregistration failed: %s", i,
			 strerror(-rc));
		goto out;
	}
	if (sr_node_cq_wait(rp->node, rp->scq, &wc, 1, rp->timeout_ms) != 1) {
		rp_failf(rp, "race %u: no completion for the WRITE", i);
		rc = -ETIMEDOUT;
		goto out;
	}
	m = (struct rp_msg){ .kind = RP_CHECK, .round = i };
	if (rp_send_msg(rp, &m) || rp_recv_msg(rp, &m, NULL) ||
	    m.kind != RP_CHECK) {
		rc = -EPROTO;
		goto out;
	}
	if (m.faddr != 0)
		rp_failf(rp, "race %u: %llu bytes the client never wrote reached the peer",
			 i, (unsigned long long)m.faddr);
	*outcome = wc.status == SR_WC_SUCCESS ? 0 : m.addr > 0 ? 1 : 2;
	if (wc.status == SR_WC_SUCCESS && m.addr != RACE_LEN)
		rp_failf(rp, "race %u: the WRITE succeeded with %llu of %u bytes",
			 i, (unsigned long long)m.addr, RACE_LEN);
out:
	if (qp)
		sr_qp_destroy(qp);
	if (buf)
		munmap(buf, RACE_LEN);
	return rc ? rc : rp->fail[0] ? -EIO : 0;
}

int rp_race_client(struct rp *rp)
{
	uint32_t n[3] = { 0 }, kmax = RACE_PKTS / 2, i;
	int outcome = 0;

	if (rp->races == 0)
		return 0;
	/* the asked-for tries, and more (up to 5 times as many) while none
	 * has landed half way: on 2 busy CPUs the consumer may get its core
	 * back only after whole WRITEs for a while */
	for (i = 0; i < rp->races || (n[1] == 0 && i < 5 * rp->races); i++) {
		int rc = race_once(rp, i, kmax, &outcome);

		if (rc)
			return rc;
		n[outcome]++;
		/* a WRITE that finished first: deregister sooner from now on
		 * (a loaded machine runs the consumer late) */
		if (outcome == 0 && kmax > 1)
			kmax /= 2;
	}
	printf("rdma_peer: %u deregistrations (and unmaps) during a 1 MiB WRITE: %u after it completed, %u half way, %u before any byte arrived; only the client's bytes reached the peer\n",
	       i, n[0], n[1], n[2]);
	if (n[1] == 0) {
		rp_failf(rp, "no deregistration landed half way through a WRITE in %u tries",
			 i);
		return -EIO;
	}
	return 0;
}
