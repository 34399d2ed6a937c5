/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * manyqp — thousands of connected RC QPs between two processes, each one
 * carrying verified data: what an MPI job with a QP to every rank asks.
 *
 *   manyqp -d DEV [-q N] [-r ROUNDS] [-g GID] -p PORT            (server)
 *   manyqp -d DEV [-q N] [-r ROUNDS] [-g GID] -p PORT SERVER     (client)
 *
 * Both sides create N RC QPs (default 8192) and exchange their numbers
 * over TCP.  Each round, the client goes round robin over the QPs: on QP i
 * an RDMA WRITE of a 64-byte pattern (QP, round) into slot (round, i) of
 * the server's buffer, then a zero-length SEND_WITH_IMM carrying (round,
 * i).  The server checks every receive: the QP it arrived on is QP i, and
 * the slot holds the pattern (the WRITE went first on the same QP).  Both
 * print "manyqp: N QPs, R rounds, M messages verified" and exit 0 when all
 * N * R arrived right; otherwise they print what went wrong and exit 1.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "report.h"     /* now_s */

#define MQ_SLOT     64u
#define MQ_WAIT_S   60

struct mq_info {                  /* the TCP exchange, then qpn[] and psn[] */
	uint32_t n, rounds, rkey;
	uint64_t addr;
	uint8_t gid[16];
};

struct mq {
	int server, sock, gid_index;
	uint32_t n, rounds;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp **qp;
	struct ibv_mr *mr;
	uint8_t *buf;                   /* rounds * n slots */
	size_t len;
	struct mq_info me, peer;
	uint32_t *peer_qpn, *peer_psn;
};

static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("manyqp: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return -1;
}

static void pattern(uint8_t *p, uint32_t i, uint32_t r)
{
	for (uint32_t k = 0; k < MQ_SLOT; k++)
		p[k] = (uint8_t)(i * 131u + r * 17u + k * 7u + 1u);
}

static int xfer(int fd, void *p, size_t len, int out)
{
	uint8_t *b = p;

	while (len > 0) {
		ssize_t k = out ? send(fd, b, len, MSG_NOSIGNAL) : recv(fd, b, len, 0);

		if (k <= 0)
			return -1;
		b += k;
		len -= (size_t)k;
	}
	return 0;
}

static int tcp_open(struct mq *m, const char *host, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	if (fd < 0)
		return fail("socket: %s", strerror(errno));
	if (m->server) {
		int l;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1))
			return fail("listen on %d: %s", port, strerror(errno));
		l = accept(fd, NULL, NULL);
		close(fd);
		if (l < 0)
			return fail("accept: %s", strerror(errno));
		m->sock = l;
		return 0;
	}
	if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return fail("bad server address %s", host);
	for (int t = 0; connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0; t++) {
		if (t == 100)
			return fail("connect: %s", strerror(errno));
		usleep(100000);
	}
	m->sock = fd;
	return 0;
}

static int open_dev(struct mq *m, const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device_attr da;

	for (int i = 0; list != NULL && list[i] != NULL; i++)
		if (name == NULL || strcmp(ibv_get_device_name(list[i]), name) == 0) {
			m->ctx = ibv_open_device(list[i]);
			break;
		}
	if (list != NULL)
		ibv_free_device_list(list);
	if (m->ctx == NULL)
		return fail("no device %s", name ? name : "");
	if (ibv_query_device(m->ctx, &da))
		return fail("ibv_query_device failed");
	if ((uint32_t)da.max_qp < m->n)
		return fail("the device has max_qp %d < %u", da.max_qp, m->n);
	if ((uint32_t)da.max_cqe < m->n * m->rounds + 1)
		return fail("the device has max_cqe %d < %u", da.max_cqe,
			    m->n * m->rounds + 1);
	return 0;
}

static int setup(struct mq *m)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	union ibv_gid gid;

	m->pd = ibv_alloc_pd(m->ctx);
	m->len = (size_t)m->n * m->rounds * MQ_SLOT;
	m->buf = aligned_alloc(4096, (m->len + 4095) & ~(size_t)4095);
	m->scq = ibv_create_cq(m->ctx, (int)m->n + 1, NULL, NULL, 0);
	m->rcq = ibv_create_cq(m->ctx, (int)(m->n * m->rounds) + 1, NULL, NULL, 0);
	m->qp = calloc(m->n, sizeof(*m->qp));
	m->peer_qpn = calloc(m->n, sizeof(uint32_t));
	m->peer_psn = calloc(m->n, sizeof(uint32_t));
	if (!m->pd || !m->buf || !m->scq || !m->rcq || !m->qp ||
	    !m->peer_qpn || !m->peer_psn)
		return fail("out of resources (pd, buffer or CQs)");
	memset(m->buf, 0, m->len);
	m->mr = ibv_reg_mr(m->pd, m->buf, m->len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE);
	if (m->mr == NULL)
		return fail("ibv_reg_mr: %s", strerror(errno));
	if (ibv_query_gid(m->ctx, 1, m->gid_index, &gid))
		return fail("no GID %d", m->gid_index);
	ia.send_cq = m->scq;
	ia.recv_cq = m->rcq;
	for (uint32_t i = 0; i < m->n; i++) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1,
			.qp_access_flags = IBV_ACCESS_REMOTE_WRITE };

		m->qp[i] = ibv_create_qp(m->pd, &ia);
		if (m->qp[i] == NULL)
			return fail("QP %u of %u: ibv_create_qp: %s", i, m->n,
				    strerror(errno));
		if (ibv_modify_qp(m->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
			return fail("QP %u: to INIT failed", i);
	}
	m->me.n = m->n;
	m->me.rounds = m->rounds;
	m->me.rkey = m->mr->rkey;
	m->me.addr = (uintptr_t)m->buf;
	memcpy(m->me.gid, gid.raw, 16);
	return 0;
}

static int exchange(struct mq *m)
{
	uint32_t *qpn = calloc(m->n, 4), *psn = calloc(m->n, 4);
	int rc = -1;

	if (qpn == NULL || psn == NULL)
		goto out;
	for (uint32_t i = 0; i < m->n; i++) {
		qpn[i] = m->qp[i]->qp_num;
		psn[i] = (i * 2654435761u) & 0xffffff;
	}
	/* the client talks first, the server answers: neither side's send
	 * waits on socket buffers the other is not draining */
	for (int turn = 0; turn < 2; turn++) {
		if (turn == m->server) {
			if (xfer(m->sock, &m->me, sizeof(m->me), 1) ||
			    xfer(m->sock, qpn, m->n * 4, 1) ||
			    xfer(m->sock, psn, m->n * 4, 1)) {
				fail("TCP exchange failed");
				goto out;
			}
			continue;
		}
		if (xfer(m->sock, &m->peer, sizeof(m->peer), 0)) {
			fail("TCP exchange failed");
			goto out;
		}
		if (m->peer.n != m->n || m->peer.rounds != m->rounds) {
			fail("the peer has %u QPs, %u rounds", m->peer.n,
			     m->peer.rounds);
			goto out;
		}
		if (xfer(m->sock, m->peer_qpn, m->n * 4, 0) ||
		    xfer(m->sock, m->peer_psn, m->n * 4, 0)) {
			fail("TCP exchange failed");
			goto out;
		}
	}
	for (uint32_t i = 0; i < m->n; i++) {
		struct ibv_qp_attr a = {
			.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
			.dest_qp_num = m->peer_qpn[i], .rq_psn = m->peer_psn[i],
			.max_dest_rd_atomic = 1, .min_rnr_timer = 1,
			.ah_attr = { .is_global = 1, .port_num = 1,
				     .grh = { .sgid_index = (uint8_t)m->gid_index,
					      .hop_limit = 64 } },
		};

		memcpy(a.ah_attr.grh.dgid.raw, m->peer.gid, 16);
		if (ibv_modify_qp(m->qp[i], &a, IBV_QP_STATE | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER)) {
			fail("QP %u: to RTR failed", i);
			goto out;
		}
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = psn[i];
		a.max_rd_atomic = 1;
		if (ibv_modify_qp(m->qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
			fail("QP %u: to RTS failed", i);
			goto out;
		}
	}
	rc = 0;
out:
	free(qpn);
	free(psn);
	return rc;
}

static int post_recv(struct mq *m, uint32_t i)
{
	struct ibv_recv_wr wr = { .wr_id = i }, *bad;

	return ibv_post_recv(m->qp[i], &wr, &bad);
}

/* The server: every receive on the right QP, after its slot's data. */
static int serve(struct mq *m)
{
	uint64_t want = (uint64_t)m->n * m->rounds, got = 0, bad = 0;
	uint32_t *next = calloc(m->n, 4);     /* the round QP i is in */
	uint8_t expect[MQ_SLOT], go = 1, verdict[8];
	struct ibv_wc wc[64];
	double t0;

	if (next == NULL)
		return fail("no memory");
	for (uint32_t i = 0; i < m->n; i++)
		if (post_recv(m, i))
			return fail("QP %u: ibv_post_recv failed", i);
	if (xfer(m->sock, &go, 1, 1))
		return fail("TCP: the client went away");
	t0 = now_s();
	while (got < want) {
		int k = ibv_poll_cq(m->rcq, 64, wc);

		if (k < 0)
			return fail("ibv_poll_cq failed");
		if (k == 0 && now_s() - t0 > MQ_WAIT_S)
			return fail("%llu of %llu messages after %d s",
				    (unsigned long long)got,
				    (unsigned long long)want, MQ_WAIT_S);
		for (int j = 0; j < k; j++) {
			uint32_t imm = ntohl(wc[j].imm_data);
			uint32_t i = imm & 0xffff, r = imm >> 16;

			i |= (r & 0xff00u) << 8;          /* QPs above 65535 */
			r &= 0xff;
			got++;
			if (wc[j].status != IBV_WC_SUCCESS ||
			    !(wc[j].wc_flags & IBV_WC_WITH_IMM) || i >= m->n ||
			    r != next[i] || wc[j].qp_num != m->qp[i]->qp_num) {
				if (bad++ < 5)
					fail("bad receive: status %s, imm %#x, qp_num %u",
					     ibv_wc_status_str(wc[j].status), imm,
					     wc[j].qp_num);
				continue;
			}
			pattern(expect, i, r);
			if (memcmp(m->buf + ((size_t)r * m->n + i) * MQ_SLOT,
				   expect, MQ_SLOT) != 0 && bad++ < 5)
				fail("QP %u round %u: the WRITE's data is wrong", i, r);
			next[i]++;
			if (next[i] < m->rounds && post_recv(m, i))
				return fail("QP %u: ibv_post_recv failed", i);
		}
	}
	memcpy(verdict, &bad, sizeof(verdict));
	if (xfer(m->sock, verdict, sizeof(verdict), 1))
		return fail("TCP: the client went away");
	free(next);
	if (bad)
		return fail("%llu of %llu messages wrong", (unsigned long long)bad,
			    (unsigned long long)want);
	printf("manyqp: %u QPs, %u rounds, %llu messages verified\n", m->n,
	       m->rounds, (unsigned long long)got);
	return 0;
}

/* The client: round robin over the QPs, each with one WRITE + SEND. */
static int drive(struct mq *m)
{
	uint8_t *busy = calloc(m->n, 1), go, verdict[8];
	uint64_t bad;
	struct ibv_wc wc[64];
	double t0 = now_s();
	uint32_t inflight = 0;

	if (busy == NULL)
		return fail("no memory");
	if (xfer(m->sock, &go, 1, 0))
		return fail("TCP: the server went away");
	for (uint32_t r = 0; r < m->rounds; r++) {
		for (uint32_t i = 0; i < m->n; i++) {
			size_t off = ((size_t)r * m->n + i) * MQ_SLOT;
			struct ibv_sge sge = { (uintptr_t)m->buf + off, MQ_SLOT,
					       m->mr->lkey };
			struct ibv_send_wr send = {
				.wr_id = i, .opcode = IBV_WR_SEND_WITH_IMM,
				.send_flags = IBV_SEND_SIGNALED,
				.imm_data = htonl((r << 16) | (i & 0xffff) |
						  ((i >> 16) << 24)),
			};
			struct ibv_send_wr write = {
				.wr_id = UINT64_MAX, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE, .next = &send,
				.wr.rdma = { m->peer.addr + off, m->peer.rkey },
			}, *badwr;

			/* QP i's last SEND must be done (2 WRs per QP) */
			while (busy[i]) {
				int k = ibv_poll_cq(m->scq, 64, wc);

				if (k < 0)
					return fail("ibv_poll_cq failed");
				if (k == 0 && now_s() - t0 > MQ_WAIT_S)
					return fail("round %u: QP %u's SEND never completed",
						    r, i);
				for (int j = 0; j < k; j++) {
					if (wc[j].status != IBV_WC_SUCCESS)
						return fail("QP %llu: completion %s",
							    (unsigned long long)wc[j].wr_id,
							    ibv_wc_status_str(wc[j].status));
					busy[wc[j].wr_id] = 0;
					inflight--;
				}
			}
			pattern(m->buf + off, i, r);
			if (ibv_post_send(m->qp[i], &write, &badwr))
				return fail("QP %u: ibv_post_send failed", i);
			busy[i] = 1;
			inflight++;
		}
	}
	while (inflight > 0) {
		int k = ibv_poll_cq(m->scq, 64, wc);

		if (k < 0 || (k == 0 && now_s() - t0 > MQ_WAIT_S))
			return fail("%u SENDs never completed", inflight);
		for (int j = 0; j < k; j++) {
			if (wc[j].status != IBV_WC_SUCCESS)
				return fail("QP %llu: completion %s",
					    (unsigned long long)wc[j].wr_id,
					    ibv_wc_status_str(wc[j].status));
			inflight--;
		}
	}
	if (xfer(m->sock, verdict, sizeof(verdict), 0))
		return fail("TCP: the server went away before its verdict");
	memcpy(&bad, verdict, sizeof(bad));
	free(busy);
	if (bad)
		return fail("the server found %llu messages wrong",
			    (unsigned long long)bad);
	printf("manyqp: %u QPs, %u rounds, %llu messages verified (%.2f s)\n",
	       m->n, m->rounds, (unsigned long long)m->n * m->rounds,
	       now_s() - t0);
	return 0;
}

static void teardown(struct mq *m)
{
	for (uint32_t i = 0; m->qp != NULL && i < m->n; i++)
		if (m->qp[i] != NULL)
			ibv_destroy_qp(m->qp[i]);
	if (m->mr)
		ibv_dereg_mr(m->mr);
	if (m->scq)
		ibv_destroy_cq(m->scq);
	if (m->rcq)
		ibv_destroy_cq(m->rcq);
	if (m->pd)
		ibv_dealloc_pd(m->pd);
	if (m->ctx)
		ibv_close_device(m->ctx);
	free(m->qp);
	free(m->buf);
	free(m->peer_qpn);
	free(m->peer_psn);
}

int main(int argc, char **argv)
{
	struct mq m = { .n = 8192, .rounds = 2, .gid_index = 1, .sock = -1 };
	const char *dev = NULL;
	int port = 0, c, rc;

	while ((c = getopt(argc, argv, "d:q:r:g:p:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'q': m.n = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'r': m.rounds = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'g': m.gid_index = atoi(optarg); break;
		case 'p': port = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: manyqp -d DEV [-q N] [-r R] [-g GID] -p PORT [SERVER]\n");
			return 2;
		}
	}
	if (m.n == 0 || m.n > (1u << 24) || m.rounds == 0 || m.rounds > 255 ||
	    port <= 0) {
		fprintf(stderr, "manyqp: -q 1..2^24, -r 1..255 and -p are needed\n");
		return 2;
	}
	m.server = optind >= argc;
	rc = tcp_open(&m, m.server ? NULL : argv[optind], port);
	if (rc == 0)
		rc = open_dev(&m, dev);
	if (rc == 0)
		rc = setup(&m);
	if (rc == 0)
		rc = exchange(&m);
	if (rc == 0)
		rc = m.server ? serve(&m) : drive(&m);
	teardown(&m);
	if (m.sock >= 0)
		close(m.sock);
	return rc == 0 ? 0 : 1;
}
