/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rdma_peer — two-process check of the whole stack over a real DPDK port:
 * a node (pmd/node.h) on each side, one RC QP pair, and every operation
 * the transport carries, verified byte for byte, for N rounds:
 *
 *   SEND (multi-packet), SEND_WITH_IMM, SEND_WITH_INV (invalidates the
 *   server's fast-register MR, which the server fast-registers again),
 *   RDMA WRITE into a fast-registered MR, WRITE_WITH_IMM, RDMA READ into
 *   a fast-registered MR, FETCH_ADD, CMP_SWAP, ATOMIC_WRITE and FLUSH.
 *
 * The client posts them all at once each round; the server checks its
 * receive completions and memory and answers over TCP on 127.0.0.1, which
 * also carries the QP numbers, PSNs, GIDs, addresses and keys.
 *
 *   rdma_peer server|client --tcp PORT [--rounds N] [--timeout-ms T]
 *                           [--rc-timeout CODE] [--pause FILE] [--gid N]
 *                           [--spare-qps N] [--oob ADDR] [--dereg-race N]
 *
 * --gid: our GID index to talk from (1: IPv4, the default; 2: the first
 * configured IPv6 address, resolved with ND).
 *
 * --spare-qps: create N idle QPs before the tested one, which moves its QPN
 * (with several engines per device, onto another lane: QPN % engines).
 *
 * --oob: the server's IPv4 address for the out-of-band TCP (default
 * 127.0.0.1): the server listens on it, the client connects to it (two
 * network namespaces, tests/pmd/hostnic_test.sh).
 *
 * --dereg-race N (client): after the rounds, N deregistrations of a region
 * while a WRITE from it is sent (rdma_peer_race.c; dedicated mode).
 *
 * --pause (client): half way, create FILE.ready and wait (progressing)
 * until FILE exists, so a test can read the live counters mid-run.
 *
 * The device comes from the environment (SROCE_CONFIG / SROCE_NODE).
 * Exit 0 when every round passed; prints one summary line and the
 * counters (link and transport).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/counters.h"
#include "rdma_peer.h"
#include "wire/parse.h"

void rp_failf(struct rp *rp, const char *fmt, ...)
{
	va_list ap;

	if (rp->fail[0])
		return;
	va_start(ap, fmt);
	vsnprintf(rp->fail, sizeof(rp->fail), fmt, ap);
	va_end(ap);
}

static uint8_t rp_pattern(uint32_t round, enum rp_tag tag, uint32_t i)
{
	return (uint8_t)((i * 131u + round * 7u + (uint32_t)tag * 29u) ^ (i >> 8));
}

static void rp_fill(uint8_t *p, uint32_t len, uint32_t round, enum rp_tag tag)
{
	for (uint32_t i = 0; i < len; i++)
		p[i] = rp_pattern(round, tag, i);
}

/* Offset of the first wrong byte, or -1. */
static long rp_check(const uint8_t *p, uint32_t len, uint32_t round,
		     enum rp_tag tag)
{
	for (uint32_t i = 0; i < len; i++)
		if (p[i] != rp_pattern(round, tag, i))
			return (long)i;
	return -1;
}

static uint64_t rp_word_base(uint32_t r) { return 0x1111000000000000ull + r; }
static uint64_t rp_add(uint32_t r) { return r + 5u; }
static uint64_t rp_swap(uint32_t r) { return 0x2222000000000000ull + r; }

static void rp_atomic_write_data(uint32_t r, uint8_t out[8])
{
	for (int i = 0; i < 8; i++)
		out[i] = (uint8_t)(0xa0 + r + (uint32_t)i);
}

/* ---- out of band: TCP on 127.0.0.1, progressing while waiting ---- */

static int rp_tcp_open(struct rp *rp, uint16_t port)
{
	struct sockaddr_in sa = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int one = 1, fd;

	if (rp->oob && inet_pton(AF_INET, rp->oob, &sa.sin_addr) != 1) {
		fprintf(stderr, "rdma_peer: --oob '%s' is not an IPv4 address\n",
			rp->oob);
		return -1;
	}
	if (rp->server) {
		int lfd = socket(AF_INET, SOCK_STREAM, 0);

		setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    listen(lfd, 1)) {
			perror("rdma_peer: listen");
			close(lfd);
			return -1;
		}
		fd = accept(lfd, NULL, NULL);
		close(lfd);
	} else {
		for (int i = 0;; i++) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
				break;
			close(fd);
			fd = -1;
			if (i == 300)
				break;
			usleep(50000);
		}
	}
	if (fd < 0) {
		fprintf(stderr, "rdma_peer: no TCP connection on port %u\n", port);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	rp->sock = fd;
	return 0;
}

int rp_send_msg(struct rp *rp, const struct rp_msg *m)
{
	return send(rp->sock, m, sizeof(*m), MSG_NOSIGNAL) == sizeof(*m) ? 0 : -1;
}

/* Receive one message; fn runs (and the node progresses) while waiting. */
int rp_recv_msg(struct rp *rp, struct rp_msg *m,
		       void (*fn)(struct rp *rp))
{
	uint64_t deadline = sr_node_now_ns(rp->node) +
			    (uint64_t)rp->timeout_ms * 1000000;
	size_t got = 0;

	while (got < sizeof(*m)) {
		ssize_t n = recv(rp->sock, (uint8_t *)m + got, sizeof(*m) - got,
				 MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
			rp_failf(rp, "peer closed the TCP connection");
			return -1;
		}
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (sr_node_now_ns(rp->node) > deadline) {
			rp_failf(rp, "no message from the peer in %u ms",
				 rp->timeout_ms);
			return -1;
		}
		if (fn)
			fn(rp);
		for (int i = 0; i < 64; i++)
			sr_node_progress(rp->node);
	}
	return 0;
}

/* ---- memory ---- */

static int rp_mr_plain(struct rp *rp, struct rp_mr *m, uint32_t len)
{
	m->len = len;
	m->buf = aligned_alloc(4096, len);
	if (m->buf == NULL)
		return -ENOMEM;
	memset(m->buf, 0, len);
	m->mr = sr_mr_reg_virt(rp->pd, m->buf, len, (uint64_t)(uintptr_t)m->buf,
			       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
			       SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC);
	return m->mr ? 0 : -errno;
}

/* An FRMR object with room for the buffer's pages (not registered yet). */
static int rp_mr_fast(struct rp *rp, struct rp_mr *m, uint32_t len)
{
	uint32_t npages = len / 4096;

	m->len = len;
	m->buf = aligned_alloc(4096, len);
	m->pages = calloc(npages, sizeof(*m->pages));
	if (m->buf == NULL || m->pages == NULL)
		return -ENOMEM;
	memset(m->buf, 0, len);
	for (uint32_t i = 0; i < npages; i++)
		m->pages[i] = (uint64_t)(uintptr_t)m->buf + (uint64_t)i * 4096;
	m->mr = sr_mr_create(rp->pd, true);
	if (m->mr == NULL)
		return -errno;
	return sr_frmr_init(m->mr, npages, true);
}

static void rp_mr_free(struct rp_mr *m)
{
	if (m->mr)
		sr_mr_destroy(m->mr);
	free(m->buf);
	free(m->pages);
}

/* Fast-register m through a REG_MR work request with the next key byte. */
static int rp_fast_register(struct rp *rp, struct rp_mr *m)
{
	uint32_t key = sr_mr_lkey(m->mr);
	struct sr_send_wr wr = {
		.wr_id = 0xf00d,
		.opcode = SR_WR_REG_MR,
		.send_flags = SR_SEND_SIGNALED,
		.wr.reg = {
			.mr = m->mr,
			.pages = m->pages,
			.npages = m->len / 4096,
			.length = m->len,
			.iova = (uint64_t)(uintptr_t)m->buf,
			.access = SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
				  SR_ACCESS_REMOTE_WRITE,
			.key = (key & ~0xffu) | ((key + 1) & 0xffu),
		},
	};
	const struct sr_send_wr *bad;
	struct sr_wc wc;
	int rc = sr_qp_post_send(rp->qp, &wr, &bad);

	if (rc)
		return rc;
	if (sr_node_cq_wait(rp->node, rp->scq, &wc, 1, rp->timeout_ms) != 1)
		return -ETIMEDOUT;
	if (wc.status != SR_WC_SUCCESS || wc.opcode != SR_WC_OP_REG_MR ||
	    !sr_mr_is_valid(m->mr))
		return -EIO;
	return 0;
}

/* ---- server ---- */

static int rp_post_recv(struct rp *rp, uint32_t slot)
{
	struct sr_sge sge = {
		.addr = (uint64_t)(uintptr_t)rp->plain.buf + slot * RP_SLOT,
		.length = RP_SLOT,
		.lkey = sr_mr_lkey(rp->plain.mr),
	};
	struct sr_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	const struct sr_recv_wr *bad;

	return sr_qp_post_recv(rp->qp, &wr, &bad);
}

/* Check one receive completion against what round r's k-th must be. */
static void rp_check_recv(struct rp *rp, const struct sr_wc *wc)
{
	uint32_t r = rp->recvs / RP_RECVS, k = rp->recvs % RP_RECVS;
	const uint8_t *data = rp->plain.buf + wc->wr_id * RP_SLOT;
	static const struct {
		enum sr_wc_opcode op;
		unsigned int flags;
		uint32_t len;
		enum rp_tag tag;
	} want[RP_RECVS] = {
		{ SR_WC_OP_RECV, 0, RP_SEND_LEN, T_SEND },
		{ SR_WC_OP_RECV, SR_WC_WITH_IMM, RP_IMM_LEN, T_IMM },
		{ SR_WC_OP_RECV, SR_WC_WITH_INV, RP_INV_LEN, T_INV },
		{ SR_WC_OP_RECV_RDMA_WITH_IMM, SR_WC_WITH_IMM, 0, 0 },
	};
	long bad;

	rp->recvs++;
	if (wc->status != SR_WC_SUCCESS) {
		rp_failf(rp, "round %u receive %u: %s", r, k,
			 sr_wc_status_str(wc->status));
		return;
	}
	if (wc->opcode != want[k].op ||
	    (wc->wc_flags & (SR_WC_WITH_IMM | SR_WC_WITH_INV)) != want[k].flags) {
		rp_failf(rp, "round %u receive %u: opcode %d flags %#x", r, k,
			 wc->opcode, wc->wc_flags);
		return;
	}
	if (k == 1 && wc->imm_data != 0xabc000 + r)
		rp_failf(rp, "round %u SEND_WITH_IMM imm %#x", r, wc->imm_data);
	if (k == 3 && wc->imm_data != 0xdef000 + r)
		rp_failf(rp, "round %u WRITE_WITH_IMM imm %#x", r, wc->imm_data);
	if (k == 2 && (wc->invalidated_rkey != sr_mr_lkey(rp->inv.mr) ||
		       sr_mr_is_valid(rp->inv.mr)))
		rp_failf(rp, "round %u SEND_WITH_INV: rkey %#x, MR %s", r,
			 wc->invalidated_rkey,
			 sr_mr_is_valid(rp->inv.mr) ? "still valid" : "free");
	if (want[k].len == 0)
		return;
	if (wc->byte_len != want[k].len)
		rp_failf(rp, "round %u receive %u: %u bytes, want %u", r, k,
			 wc->byte_len, want[k].len);
	else if ((bad = rp_check(data, want[k].len, r, want[k].tag)) >= 0)
		rp_failf(rp, "round %u receive %u: byte %ld differs", r, k, bad);
}

static void rp_server_poll(struct rp *rp)
{
	struct sr_wc wc[8];
	int n = sr_cq_poll(rp->rcq, 8, wc);

	for (int i = 0; i < n; i++) {
		rp_check_recv(rp, &wc[i]);
		if (rp_post_recv(rp, (uint32_t)wc[i].wr_id))
			rp_failf(rp, "cannot post a receive");
	}
}

/* Memory as round r starts: targets cleared, sources and words set. */
static void rp_server_prepare(struct rp *rp, uint32_t r)
{
	uint64_t base = rp_word_base(r);

	memset(rp->fast.buf, 0, RP_WRITE_LEN);
	memset(rp->plain.buf + RP_OFF_WIMM, 0, RP_WIMM_LEN);
	rp_fill(rp->plain.buf + RP_OFF_READ, RP_READ_LEN, r, T_READ);
	memcpy(rp->plain.buf + RP_OFF_WORD, &base, 8);
	memset(rp->plain.buf + RP_OFF_WORD + 8, 0, 8);
}

static void rp_server_verify(struct rp *rp, uint32_t r)
{
	uint64_t deadline = sr_node_now_ns(rp->node) +
			    (uint64_t)rp->timeout_ms * 1000000;
	uint8_t aw[8];
	uint64_t word;
	long bad;

	while (rp->recvs < (r + 1) * RP_RECVS && !rp->fail[0]) {
		if (sr_node_now_ns(rp->node) > deadline) {
			rp_failf(rp, "round %u: %u receives of %u", r, rp->recvs,
				 (r + 1) * RP_RECVS);
			return;
		}
		rp_server_poll(rp);
		sr_node_progress(rp->node);
	}
	if ((bad = rp_check(rp->fast.buf, RP_WRITE_LEN, r, T_WRITE)) >= 0)
		rp_failf(rp, "round %u WRITE: byte %ld differs", r, bad);
	if ((bad = rp_check(rp->plain.buf + RP_OFF_WIMM, RP_WIMM_LEN, r,
			    T_WIMM)) >= 0)
		rp_failf(rp, "round %u WRITE_WITH_IMM: byte %ld differs", r, bad);
	memcpy(&word, rp->plain.buf + RP_OFF_WORD, 8);
	if (word != rp_swap(r))
		rp_failf(rp, "round %u atomics: word %#llx, want %#llx", r,
			 (unsigned long long)word,
			 (unsigned long long)rp_swap(r));
	rp_atomic_write_data(r, aw);
	if (memcmp(rp->plain.buf + RP_OFF_WORD + 8, aw, 8))
		rp_failf(rp, "round %u ATOMIC_WRITE: wrong bytes", r);
}

static int rp_server(struct rp *rp)
{
	struct rp_msg m;

	for (uint32_t i = 0; i < RP_NSLOTS; i++)
		if (rp_post_recv(rp, i))
			return -EIO;
	if (rp_fast_register(rp, &rp->fast) || rp_fast_register(rp, &rp->inv)) {
		rp_failf(rp, "fast-register failed");
		return -EIO;
	}
	rp_server_prepare(rp, 0);
	m = (struct rp_msg){
		.kind = RP_READY,
		.addr = (uint64_t)(uintptr_t)rp->plain.buf,
		.rkey = sr_mr_rkey(rp->plain.mr),
		.faddr = (uint64_t)(uintptr_t)rp->fast.buf,
		.frkey = sr_mr_rkey(rp->fast.mr),
		.iaddr = (uint64_t)(uintptr_t)rp->inv.buf,
		.irkey = sr_mr_rkey(rp->inv.mr),
	};
	if (rp_send_msg(rp, &m))
		return -EIO;
	for (;;) {
		if (rp_recv_msg(rp, &m, rp_server_poll))
			return -EIO;
		if (m.kind == RP_BYE)
			return 0;
		if (m.kind == RP_RACE) {
			if (rp_race_serve(rp, &m))
				return -EIO;
			continue;
		}
		if (m.kind != RP_DONE)
			return -EPROTO;
		rp_server_verify(rp, m.round);
		/* SEND_WITH_INV freed it: register it again, new key byte. */
		if (!rp->fail[0] && rp_fast_register(rp, &rp->inv))
			rp_failf(rp, "round %u: fast-register again failed",
				 m.round);
		rp_server_prepare(rp, m.round + 1);
		m.kind = rp->fail[0] ? RP_FAIL : RP_OK;
		m.irkey = sr_mr_rkey(rp->inv.mr);
		snprintf(m.text, sizeof(m.text), "%s", rp->fail);
		if (rp_send_msg(rp, &m) || rp->fail[0])
			return -EIO;
	}
}

/* ---- client ---- */

static int rp_client_round(struct rp *rp, uint32_t r)
{
	const struct rp_msg *p = &rp->peer;
	uint8_t *pb = rp->plain.buf, *fb = rp->fast.buf;
	uint32_t plk = sr_mr_lkey(rp->plain.mr), flk = sr_mr_lkey(rp->fast.mr);
	struct sr_sge sge[RP_NWR] = {
		{ (uint64_t)(uintptr_t)fb, RP_SEND_LEN, flk },
		{ (uint64_t)(uintptr_t)fb + (16u << 10), RP_IMM_LEN, flk },
		{ (uint64_t)(uintptr_t)pb + (96u << 10), RP_INV_LEN, plk },
		{ (uint64_t)(uintptr_t)pb, RP_WRITE_LEN, plk },
		{ (uint64_t)(uintptr_t)pb + (64u << 10), RP_WIMM_LEN, plk },
		{ (uint64_t)(uintptr_t)fb + (64u << 10), RP_READ_LEN, flk },
		{ (uint64_t)(uintptr_t)pb + RP_OFF_RES, 8, plk },
		{ (uint64_t)(uintptr_t)pb + RP_OFF_RES + 8, 8, plk },
		{ 0, 0, 0 },
		{ 0, 0, 0 },
	};
	struct sr_send_wr wr[RP_NWR] = {
		{ .opcode = SR_WR_SEND },
		{ .opcode = SR_WR_SEND_WITH_IMM, .imm_data = 0xabc000 + r },
		{ .opcode = SR_WR_SEND_WITH_INV, .invalidate_rkey = p->irkey },
		{ .opcode = SR_WR_RDMA_WRITE,
		  .wr.rdma = { p->faddr, p->frkey } },
		{ .opcode = SR_WR_RDMA_WRITE_WITH_IMM, .imm_data = 0xdef000 + r,
		  .wr.rdma = { p->addr + RP_OFF_WIMM, p->rkey } },
		{ .opcode = SR_WR_RDMA_READ,
		  .wr.rdma = { p->addr + RP_OFF_READ, p->rkey } },
		{ .opcode = SR_WR_ATOMIC_FETCH_AND_ADD,
		  .wr.atomic = { p->addr + RP_OFF_WORD, rp_add(r), 0, p->rkey } },
		{ .opcode = SR_WR_ATOMIC_CMP_AND_SWP,
		  .wr.atomic = { p->addr + RP_OFF_WORD,
				 rp_word_base(r) + rp_add(r), rp_swap(r),
				 p->rkey } },
		{ .opcode = SR_WR_ATOMIC_WRITE,
		  .wr.atomic_write = { p->addr + RP_OFF_WORD + 8, p->rkey } },
		{ .opcode = SR_WR_FLUSH,
		  .wr.flush = { p->addr + RP_OFF_WIMM, p->rkey, RP_WIMM_LEN,
				SR_FLUSH_GLOBAL, SR_FLUSH_RANGE } },
	};
	static const enum sr_wc_opcode want[RP_NWR] = {
		SR_WC_OP_SEND, SR_WC_OP_SEND, SR_WC_OP_SEND,
		SR_WC_OP_RDMA_WRITE, SR_WC_OP_RDMA_WRITE, SR_WC_OP_RDMA_READ,
		SR_WC_OP_FETCH_ADD, SR_WC_OP_COMP_SWAP, SR_WC_OP_ATOMIC_WRITE,
		SR_WC_OP_FLUSH,
	};
	const struct sr_send_wr *bad;
	struct sr_wc wc[RP_NWR];
	struct rp_msg m;
	uint64_t res[2];
	long off;
	int n;

	rp_fill(fb, RP_SEND_LEN, r, T_SEND);
	rp_fill(fb + (16u << 10), RP_IMM_LEN, r, T_IMM);
	rp_fill(pb + (96u << 10), RP_INV_LEN, r, T_INV);
	rp_fill(pb, RP_WRITE_LEN, r, T_WRITE);
	rp_fill(pb + (64u << 10), RP_WIMM_LEN, r, T_WIMM);
	memset(fb + (64u << 10), 0, RP_READ_LEN);
	memset(pb + RP_OFF_RES, 0xee, 16);
	rp_atomic_write_data(r, wr[8].wr.atomic_write.data);
	for (int i = 0; i < RP_NWR; i++) {
		wr[i].wr_id = (uint64_t)i;
		wr[i].send_flags = SR_SEND_SIGNALED;
		wr[i].sg_list = sge[i].length ? &sge[i] : NULL;
		wr[i].num_sge = sge[i].length ? 1 : 0;
		wr[i].next = i + 1 < RP_NWR ? &wr[i + 1] : NULL;
	}
	if (sr_qp_post_send(rp->qp, wr, &bad)) {
		rp_failf(rp, "round %u: post_send refused %s", r,
			 sr_wr_opcode_str(bad->opcode));
		return -EIO;
	}
	n = sr_node_cq_wait(rp->node, rp->scq, wc, RP_NWR, rp->timeout_ms);
	if (n != RP_NWR) {
		rp_failf(rp, "round %u: %d of %d completions", r, n, RP_NWR);
		return -EIO;
	}
	for (int i = 0; i < RP_NWR; i++)
		if (wc[i].status != SR_WC_SUCCESS || wc[i].wr_id != (uint64_t)i ||
		    wc[i].opcode != want[i]) {
			rp_failf(rp, "round %u: completion %d (%s): %s, opcode %d",
				 r, i, sr_wr_opcode_str(wr[i].opcode),
				 sr_wc_status_str(wc[i].status), wc[i].opcode);
			return -EIO;
		}
	if ((off = rp_check(fb + (64u << 10), RP_READ_LEN, r, T_READ)) >= 0)
		rp_failf(rp, "round %u READ: byte %ld differs", r, off);
	memcpy(res, pb + RP_OFF_RES, 16);
	if (res[0] != rp_word_base(r) || res[1] != rp_word_base(r) + rp_add(r))
		rp_failf(rp, "round %u atomics returned %#llx %#llx", r,
			 (unsigned long long)res[0], (unsigned long long)res[1]);
	if (rp->fail[0])
		return -EIO;
	m = (struct rp_msg){ .kind = RP_DONE, .round = r };
	if (rp_send_msg(rp, &m) || rp_recv_msg(rp, &m, NULL))
		return -EIO;
	if (m.kind != RP_OK) {
		rp_failf(rp, "server: %s", m.text);
		return -EIO;
	}
	rp->peer.irkey = m.irkey;
	return 0;
}

/* Tell the test we are half way and wait until it has looked. */
static void rp_pause(struct rp *rp)
{
	uint64_t end = sr_node_now_ns(rp->node) + (uint64_t)rp->timeout_ms * 1000000;
	char ready[512];
	FILE *f;

	snprintf(ready, sizeof(ready), "%s.ready", rp->pause);
	f = fopen(ready, "w");
	if (f)
		fclose(f);
	while (access(rp->pause, F_OK) != 0 && sr_node_now_ns(rp->node) < end)
		for (int i = 0; i < 1000; i++)
			sr_node_progress(rp->node);
}

static int rp_client(struct rp *rp)
{
	struct rp_msg m;
	uint64_t t0;

	if (rp_fast_register(rp, &rp->fast)) {
		rp_failf(rp, "fast-register failed");
		return -EIO;
	}
	if (rp_recv_msg(rp, &m, NULL) || m.kind != RP_READY)
		return -EIO;
	rp->peer.addr = m.addr;
	rp->peer.rkey = m.rkey;
	rp->peer.faddr = m.faddr;
	rp->peer.frkey = m.frkey;
	rp->peer.iaddr = m.iaddr;
	rp->peer.irkey = m.irkey;
	t0 = sr_node_now_ns(rp->node);
	for (uint32_t r = 0; r < rp->rounds; r++) {
		if (r == rp->rounds / 2 && rp->pause)
			rp_pause(rp);
		if (rp_client_round(rp, r))
			return -EIO;
	}
	printf("rdma_peer: %u rounds of 10 operations verified in %.0f ms\n",
	       rp->rounds, (double)(sr_node_now_ns(rp->node) - t0) / 1e6);
	if (rp_race_client(rp))
		return -EIO;
	m = (struct rp_msg){ .kind = RP_BYE };
	return rp_send_msg(rp, &m);
}

/* ---- set-up ---- */

static int rp_setup(struct rp *rp, uint16_t port)
{
	struct sr_qp_init_attr init = {
		.qp_type = SR_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 32,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
	struct sr_node_conn conn = { .timeout = rp->rc_timeout };
	struct sr_mr_dev *mrd = sr_node_mr(rp->node);
	struct rp_msg me = { .kind = RP_INFO, .psn = rp->server ? 0x100 : 0xfffff0 };
	struct sr_node_peer peer;
	int rc;

	rp->pd = sr_pd_alloc(mrd);
	rp->scq = sr_cq_create(sr_node_dev(rp->node), 128, NULL, NULL);
	rp->rcq = sr_cq_create(sr_node_dev(rp->node), 128, NULL, NULL);
	if (!rp->pd || !rp->scq || !rp->rcq)
		return -ENOMEM;
	init.pd = rp->pd;
	init.send_cq = rp->scq;
	init.recv_cq = rp->rcq;
	for (unsigned int i = 0; i < rp->nspare; i++)
		if ((rp->spare[i] = sr_qp_create(sr_node_dev(rp->node), &init)) == NULL)
			return -ENOMEM;
	rp->qp = sr_qp_create(sr_node_dev(rp->node), &init);
	if (rp->qp == NULL)
		return -ENOMEM;
	sr_node_qp_attach(rp->node, rp->qp);
	if ((rc = rp_mr_plain(rp, &rp->plain, RP_BUF)) ||
	    (rc = rp_mr_fast(rp, &rp->fast, RP_FBUF)) ||
	    (rp->server && (rc = rp_mr_fast(rp, &rp->inv, RP_IBUF))))
		return rc;
	if (rp_tcp_open(rp, port))
		return -ECONNREFUSED;
	me.qpn = sr_qp_num(rp->qp);
	if (sr_node_gid(rp->node, rp->gid_index, me.gid)) {
		rp_failf(rp, "no GID at index %u", rp->gid_index);
		return -EINVAL;
	}
	if (rp_send_msg(rp, &me) || rp_recv_msg(rp, &rp->peer, NULL) ||
	    rp->peer.kind != RP_INFO)
		return -EPROTO;
	peer.qpn = rp->peer.qpn;
	peer.psn = rp->peer.psn;
	memcpy(peer.gid, rp->peer.gid, 16);
	rc = sr_node_qp_connect(rp->node, rp->qp, me.psn, &peer, &conn,
				rp->timeout_ms);
	if (rc)
		rp_failf(rp, "connect: %s", strerror(-rc));
	return rc;
}

static void rp_teardown(struct rp *rp)
{
	if (rp->qp) {
		sr_node_qp_detach(rp->node, rp->qp);
		sr_qp_destroy(rp->qp);
	}
	for (unsigned int i = 0; i < rp->nspare; i++)
		if (rp->spare[i])
			sr_qp_destroy(rp->spare[i]);
	sr_cq_destroy(rp->scq);
	sr_cq_destroy(rp->rcq);
	rp_mr_free(&rp->plain);
	rp_mr_free(&rp->fast);
	rp_mr_free(&rp->inv);
	sr_pd_dealloc(rp->pd);
	if (rp->sock >= 0)
		close(rp->sock);
}

/* Link counters, then the transport's (as the node published them). */
static void rp_counters(struct rp *rp)
{
	const struct sr_stats_shm *s = sr_pmd_stats(sr_node_pmd(rp->node));

	sr_node_stats_publish(rp->node);
	for (unsigned int i = 0; i < SR_CTR_MAX; i++)
		if (s->dev[i])
			printf("  %-24s %llu\n", sr_stats_dev_name(i),
			       (unsigned long long)s->dev[i]);
	for (unsigned int i = 0; i < SR_CNT_MAX; i++)
		if (s->xport[i])
			printf("  xport_%-18s %llu\n", sr_counter_name(i),
			       (unsigned long long)s->xport[i]);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tcp", required_argument, NULL, 'p' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "rc-timeout", required_argument, NULL, 'c' },
		{ "pause", required_argument, NULL, 'P' },
		{ "gid", required_argument, NULL, 'g' },
		{ "spare-qps", required_argument, NULL, 's' },
		{ "oob", required_argument, NULL, 'o' },
		{ "dereg-race", required_argument, NULL, 'r' },
		{ 0 },
	};
	struct rp rp = { .rounds = 10, .timeout_ms = 20000, .rc_timeout = 12,
			 .gid_index = 1, .sock = -1 };
	uint16_t port = 18515;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'n':
			rp.rounds = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 't':
			rp.timeout_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			rp.rc_timeout = (uint8_t)strtoul(optarg, NULL, 0);
			break;
		case 'P':
			rp.pause = optarg;
			break;
		case 'g':
			rp.gid_index = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			rp.oob = optarg;
			break;
		case 'r':
			rp.races = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			rp.nspare = (unsigned int)strtoul(optarg, NULL, 0);
			if (rp.nspare > 4)
				return 2;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc || (strcmp(argv[optind], "server") &&
			       strcmp(argv[optind], "client"))) {
		fprintf(stderr, "usage: rdma_peer server|client [--tcp PORT] [--rounds N] [--timeout-ms T] [--rc-timeout CODE]\n");
		return 2;
	}
	rp.server = strcmp(argv[optind], "server") == 0;
	if (sr_node_open(NULL, &rp.node))
		return 2;
	if (sr_node_link_wait(rp.node, rp.timeout_ms)) {
		fprintf(stderr, "rdma_peer: link did not come up\n");
		rc = -ETIMEDOUT;
		goto out_close;
	}
	rc = rp_setup(&rp, port);
	if (rc == 0)
		rc = rp.server ? rp_server(&rp) : rp_client(&rp);
	if (rp.server && rc == 0)
		printf("rdma_peer: server verified %u receives\n", rp.recvs);
	if (rc || rp.fail[0])
		fprintf(stderr, "rdma_peer %s: FAIL: %s\n",
			rp.server ? "server" : "client",
			rp.fail[0] ? rp.fail : strerror(-rc));
	rp_counters(&rp);
out_close:
	rp_teardown(&rp);
	if (sr_node_close(rp.node))
		fprintf(stderr, "rdma_peer: objects left at close\n");
	return rc || rp.fail[0] ? 1 : 0;
}
