/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-cc-flow — RC WRITE flows from several sender processes into one
 * receiver, for the congestion-control benchmark (bench/suite/cc_bench.sh)
 * and its functional test (tests/cc/flows_test.sh).
 *
 *   sroce-cc-flow recv --ctl PATH --senders N
 *   sroce-cc-flow send --ctl PATH --id K --qps Q [--seconds T]
 *                      [--size BYTES] [--depth D] [--sample-ms MS]
 *
 * Each process opens a node from SROCE_CONFIG (pmd/node.h; inline
 * progress: this thread runs the engine).  The control channel is a Unix
 * socket at PATH, so the processes may sit in different network
 * namespaces: a sender sends its QP numbers, PSNs and GID; the receiver
 * makes as many QPs, connects them and answers with its own plus the
 * address and rkey of its buffer.  When all N senders are connected the
 * receiver sends every one the same start time (CLOCK_MONOTONIC, which
 * namespaces share), so the flows begin together.
 *
 * A sender keeps D WRITEs of BYTES in flight on each QP for T seconds and
 * prints, every MS milliseconds, one line per QP:
 *   S <t_ns> <sender> <qp> <bytes acknowledged so far> <paced rate bit/s>
 * then, after the last WRITE completed, one line per QP and its device's
 * counters:
 *   Q <sender> <qp> <bytes>
 *   C <sender> <counter> <value>
 * The byte counts are those of WRITEs completed (acknowledged by the
 * receiver): what the QP really delivered.  Exit 0 when every WRITE
 * completed successfully; 1 with a line "E <sender> <qp> <status>" when
 * one did not (e.g. RETRY_EXC).  The receiver prints its device's "C"
 * lines when every sender has hung up.  Figures only: nothing is asserted.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cc/hooks.h"
#include "core/dev.h"
#include "node.h"

#define CF_MAX_QP      8
#define CF_MAX_SENDERS 8
#define CF_BUF_LEN     (4u << 20)
#define CF_SQ_DEPTH    64
#define CF_WAIT_MS     20000
#define CF_START_NS    300000000ull   /* start this long after all joined */

struct cf_hello {                     /* sender -> receiver */
	uint32_t id, nqp;
	uint32_t qpn[CF_MAX_QP], psn[CF_MAX_QP];
	uint8_t gid[16];
};

struct cf_welcome {                   /* receiver -> sender */
	uint32_t qpn[CF_MAX_QP], psn[CF_MAX_QP];
	uint8_t gid[16];
	uint64_t addr;
	uint32_t rkey;
};

struct cf {
	struct sr_node *node;
	struct sr_pd *pd;
	struct sr_cq *cq;
	struct sr_mr *mr;
	uint8_t *buf;
	struct sr_qp *qp[CF_MAX_QP * CF_MAX_SENDERS];
	uint32_t nqp;
};

/*
 * Nothing to do: progress, and after CF_IDLE_SPINS idle rounds sleep until
 * the engine's next timer (a paced QP's next burst, a retransmission), at
 * most CF_NAP_MAX_NS.  Three sroce processes and bneck share two CPUs
 * here, where each host of a real network has its own: a sender that
 * spins while its QPs wait for their pacer takes the core from a process
 * with frames to send, and the shares then measure the scheduler, not
 * the congestion control.  (CF_SPIN=1 spins as before.)
 */
#define CF_IDLE_SPINS 16
#define CF_NAP_MIN_NS 2000ull
#define CF_NAP_MAX_NS 50000ull

static bool cf_spin;

static void cf_relax(struct cf *c, unsigned int *idle)
{
	struct timespec ts = { 0 };
	uint64_t wait;

	if (cf_spin) {
		sr_node_relax(c->node, idle);
		return;
	}
	if (sr_node_progress(c->node) > 0) {
		*idle = 0;
		return;
	}
	if (++*idle < CF_IDLE_SPINS)
		return;
	wait = sr_dev_next_timer_ns(sr_node_dev(c->node));
	if (wait == 0)
		return;
	if (wait > CF_NAP_MAX_NS)
		wait = CF_NAP_MAX_NS;
	if (wait < CF_NAP_MIN_NS)
		wait = CF_NAP_MIN_NS;
	ts.tv_nsec = (long)wait;
	nanosleep(&ts, NULL);
}

static int cf_fail(const char *what, int rc)
{
	fprintf(stderr, "sroce-cc-flow: %s: %s\n", what, strerror(rc < 0 ? -rc : rc));
	return -1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cf_open(struct cf *c)
{
	int rc = sr_node_open(NULL, &c->node);

	if (rc)
		return -1;
	if (sr_node_link_wait(c->node, CF_WAIT_MS))
		return cf_fail("link", -ETIMEDOUT);
	c->pd = sr_pd_alloc(sr_node_mr(c->node));
	c->cq = sr_cq_create(sr_node_dev(c->node), 4096, NULL, NULL);
	c->buf = aligned_alloc(4096, CF_BUF_LEN);
	if (!c->pd || !c->cq || !c->buf)
		return cf_fail("set-up", -ENOMEM);
	memset(c->buf, 0x5a, CF_BUF_LEN);
	c->mr = sr_mr_reg_virt(c->pd, c->buf, CF_BUF_LEN,
			       (uint64_t)(uintptr_t)c->buf,
			       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_WRITE);
	return c->mr ? 0 : cf_fail("memory registration", -ENOMEM);
}

static struct sr_qp *cf_qp(struct cf *c)
{
	struct sr_qp_init_attr init = { .qp_type = SR_QPT_RC, .pd = c->pd,
		.send_cq = c->cq, .recv_cq = c->cq,
		.cap = { .max_send_wr = CF_SQ_DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct sr_qp *qp;

	if (c->nqp == CF_MAX_QP * CF_MAX_SENDERS)
		return NULL;
	qp = sr_qp_create(sr_node_dev(c->node), &init);
	if (qp == NULL)
		return NULL;
	(void)sr_node_qp_attach(c->node, qp);     /* sroce-stat -q; best effort */
	c->qp[c->nqp++] = qp;
	return qp;
}

static int cf_connect(struct cf *c, struct sr_qp *qp, uint32_t psn,
		      uint32_t peer_qpn, uint32_t peer_psn, const uint8_t gid[16])
{
	/* A 0.5 s retransmit timeout (17): three polling processes and the
	 * switch share two cores, and a process may lose its core for longer
	 * than the default 67 ms; retry_cnt stays 7. */
	struct sr_node_conn conn = { .timeout = 17 };
	struct sr_node_peer peer = { .qpn = peer_qpn, .psn = peer_psn };
	int rc;

	struct sr_av av;

	memcpy(peer.gid, gid, 16);
	/* The peer's MAC first: on a loaded machine the peer may miss the
	 * resolver's five requests in 1 s; a failed address is refused for
	 * 1 s, then asked again. */
	for (int i = 0; i < 8; i++) {
		unsigned int idle = 0;

		rc = sr_node_av(c->node, gid, &av, CF_WAIT_MS);
		if (rc != -EHOSTUNREACH)
			break;
		for (uint64_t end = mono_ns() + 1100000000ull; mono_ns() < end;)
			cf_relax(c, &idle);
	}
	if (rc)
		return cf_fail("peer address", rc);
	rc = sr_node_qp_connect(c->node, qp, psn, &peer, &conn, CF_WAIT_MS);
	return rc ? cf_fail("QP connect", rc) : 0;
}

static void cf_counters(struct cf *c, uint32_t id)
{
	static const struct { const char *name; enum sr_counter k; } show[] = {
		{ "tx_pkts", SR_CNT_TX_PKTS }, { "retry", SR_CNT_RETRY },
		{ "timeout", SR_CNT_TIMEOUT }, { "retry_exc", SR_CNT_RETRY_EXC },
		{ "seq_nak_rcvd", SR_CNT_SEQ_NAK_RCVD },
		{ "seq_nak_sent", SR_CNT_SEQ_NAK_SENT },
		{ "ce_rcvd", SR_CNT_CE_RCVD }, { "cnp_sent", SR_CNT_CNP_SENT },
		{ "cnp_rcvd", SR_CNT_CNP_RCVD }, { "cnp_drop", SR_CNT_CNP_DROP },
		{ "rx_bytes", SR_CNT_RX_BYTES },
	};
	uint64_t v[SR_CNT_MAX];

	sr_dev_counters(sr_node_dev(c->node), v);
	for (size_t i = 0; i < sizeof(show) / sizeof(show[0]); i++)
		printf("C %u %s %llu\n", id, show[i].name,
		       (unsigned long long)v[show[i].k]);
}

static void cf_close(struct cf *c)
{
	for (uint32_t i = 0; i < c->nqp; i++) {
		sr_node_qp_detach(c->node, c->qp[i]);
		sr_qp_destroy(c->qp[i]);
	}
	sr_mr_dereg(c->mr);
	sr_cq_destroy(c->cq);
	sr_pd_dealloc(c->pd);
	sr_node_close(c->node);
	free(c->buf);
}

/* Read exactly len bytes from fd, progressing (inline) meanwhile. */
static int cf_read(struct cf *c, int fd, void *p, size_t len)
{
	size_t got = 0;
	uint64_t end = mono_ns() + CF_WAIT_MS * 1000000ull;
	unsigned int idle = 0;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (mono_ns() > end)
			return cf_fail("control channel", -ETIMEDOUT);
		if (poll(&pfd, 1, 0) <= 0) {
			cf_relax(c, &idle);
			continue;
		}
		n = read(fd, (uint8_t *)p + got, len - got);
		if (n <= 0)
			return cf_fail("control channel closed", -EPIPE);
		got += (size_t)n;
	}
	return 0;
}

/* ---- receiver ---- */

static int cf_join(struct cf *c, int fd)
{
	struct cf_hello h;
	struct cf_welcome w = { .addr = (uint64_t)(uintptr_t)c->buf,
				.rkey = sr_mr_rkey(c->mr) };
	struct sr_qp *qp[CF_MAX_QP];

	if (cf_read(c, fd, &h, sizeof(h)))
		return -1;
	if (h.nqp == 0 || h.nqp > CF_MAX_QP)
		return cf_fail("hello", -EINVAL);
	sr_node_gid(c->node, 1, w.gid);
	for (uint32_t q = 0; q < h.nqp; q++) {
		qp[q] = cf_qp(c);
		if (qp[q] == NULL)
			return cf_fail("QP create", -ENOMEM);
		w.qpn[q] = sr_qp_num(qp[q]);
		w.psn[q] = 0x1000 + q;
	}
	/* The sender connects after our answer, so it answers our ARP now. */
	if (write(fd, &w, sizeof(w)) != (ssize_t)sizeof(w))
		return cf_fail("control channel", -EPIPE);
	for (uint32_t q = 0; q < h.nqp; q++)
		if (cf_connect(c, qp[q], w.psn[q], h.qpn[q], h.psn[q], h.gid))
			return -1;
	return 0;
}

static int cf_recv_main(const char *ctl, uint32_t senders)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd[CF_MAX_SENDERS];
	struct cf c = { 0 };
	uint32_t joined = 0, open_conns;
	unsigned int idle = 0;
	uint64_t start;
	int lfd, rc = 0;

	if (cf_open(&c))
		return 1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ctl);
	unlink(ctl);
	lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(lfd, CF_MAX_SENDERS))
		return cf_fail(ctl, -errno) ? 1 : 1;
	while (joined < senders) {
		struct pollfd l = { .fd = lfd, .events = POLLIN };

		if (poll(&l, 1, 0) <= 0) {
			cf_relax(&c, &idle);
			continue;
		}
		pfd[joined] = (struct pollfd){ .fd = accept(lfd, NULL, NULL),
					       .events = POLLIN };
		if (pfd[joined].fd < 0 || cf_join(&c, pfd[joined].fd))
			return 1;
		joined++;
	}
	close(lfd);
	unlink(ctl);
	start = mono_ns() + CF_START_NS;
	for (uint32_t i = 0; i < senders; i++)
		if (write(pfd[i].fd, &start, sizeof(start)) != sizeof(start))
			return cf_fail("control channel", -EPIPE) ? 1 : 1;
	/* Serve (the engine answers the WRITEs) until every sender hung up. */
	open_conns = senders;
	while (open_conns > 0) {
		char b[16];

		for (int k = 0; k < 256; k++)
			cf_relax(&c, &idle);
		if (poll(pfd, senders, 0) <= 0)
			continue;
		for (uint32_t i = 0; i < senders; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (read(pfd[i].fd, b, sizeof(b)) <= 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_conns--;
			}
		}
	}
	cf_counters(&c, 0);
	cf_close(&c);
	return rc;
}

/* ---- sender ---- */

struct cf_send {
	uint32_t id, nqp, size, depth;
	double seconds;
	uint32_t sample_ms;
	uint64_t bytes[CF_MAX_QP];
	uint32_t inflight[CF_MAX_QP];
	struct cf_welcome w;
};

static int cf_post(struct cf *c, struct cf_send *s, uint32_t q)
{
	struct sr_sge sge = { (uint64_t)(uintptr_t)c->buf, s->size,
			      sr_mr_lkey(c->mr) };
	struct sr_send_wr wr = { .wr_id = q, .sg_list = &sge, .num_sge = 1,
				 .opcode = SR_WR_RDMA_WRITE,
				 .send_flags = SR_SEND_SIGNALED,
				 .wr.rdma = { .remote_addr = s->w.addr,
					   .rkey = s->w.rkey } };
	const struct sr_send_wr *bad;

	if (sr_qp_post_send(c->qp[q], &wr, &bad))
		return -1;
	s->inflight[q]++;
	return 0;
}

/* Poll completions; -1 after printing the first failed one. */
static int cf_reap(struct cf *c, struct cf_send *s, uint32_t *done)
{
	struct sr_wc wc[32];
	int n = sr_cq_poll(c->cq, 32, wc);

	for (int i = 0; i < n; i++) {
		uint32_t q = (uint32_t)wc[i].wr_id;

		if (wc[i].status != SR_WC_SUCCESS) {
			printf("E %u %u %d\n", s->id, q, (int)wc[i].status);
			return -1;
		}
		s->inflight[q]--;
		s->bytes[q] += s->size;
	}
	*done = (uint32_t)(n > 0 ? n : 0);
	return 0;
}

static void cf_sample(struct cf *c, struct cf_send *s, uint64_t now)
{
	for (uint32_t q = 0; q < s->nqp; q++)
		printf("S %llu %u %u %llu %llu\n", (unsigned long long)now, s->id,
		       q, (unsigned long long)s->bytes[q],
		       (unsigned long long)sr_qp_tx_rate(c->qp[q]));
}

static int cf_run(struct cf *c, struct cf_send *s, uint64_t start)
{
	const uint64_t step = s->sample_ms * 1000000ull;
	const uint64_t end = start + (uint64_t)(s->seconds * 1e9);
	uint64_t now, next, drain_end;
	unsigned int idle = 0;
	uint32_t done, out;

	while (mono_ns() < start)
		cf_relax(c, &idle);
	now = mono_ns();
	cf_sample(c, s, now);
	next = now + step;
	while (now < end) {
		for (uint32_t q = 0; q < s->nqp; q++)
			while (s->inflight[q] < s->depth)
				if (cf_post(c, s, q))
					return cf_fail("post", -EIO);
		if (cf_reap(c, s, &done))
			return -1;
		if (done == 0)
			cf_relax(c, &idle);
		else
			idle = 0;
		now = mono_ns();
		if (now >= next) {
			cf_sample(c, s, now);
			next += step;
			if (next <= now)        /* the process lost its core */
				next = now + step;
		}
	}
	cf_sample(c, s, now);
	/* Let what is in flight finish (it is not in the window's figures). */
	drain_end = now + CF_WAIT_MS * 1000000ull;
	do {
		out = 0;
		for (uint32_t q = 0; q < s->nqp; q++)
			out += s->inflight[q];
		if (out == 0)
			break;
		if (cf_reap(c, s, &done))
			return -1;
		if (done == 0)
			cf_relax(c, &idle);
	} while (mono_ns() < drain_end);
	return out ? cf_fail("WRITEs still in flight", -ETIMEDOUT) : 0;
}

static int cf_send_main(const char *ctl, struct cf_send *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct cf_hello h = { .id = s->id, .nqp = s->nqp };
	struct cf c = { 0 };
	uint64_t start;
	int fd = -1, rc;

	if (cf_open(&c))
		return 1;
	for (uint32_t q = 0; q < s->nqp; q++) {
		if (cf_qp(&c) == NULL)
			return cf_fail("QP create", -ENOMEM) ? 1 : 1;
		h.qpn[q] = sr_qp_num(c.qp[q]);
		h.psn[q] = 0x100 * (q + 1) + s->id;
	}
	sr_node_gid(c.node, 1, h.gid);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", ctl);
	for (int i = 0; i < 400 && fd < 0; i++) {
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			close(fd);
			fd = -1;
			usleep(50000);
		}
	}
	if (fd < 0)
		return cf_fail(ctl, -ECONNREFUSED) ? 1 : 1;
	if (write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    cf_read(&c, fd, &s->w, sizeof(s->w)))
		return 1;
	for (uint32_t q = 0; q < s->nqp; q++)
		if (cf_connect(&c, c.qp[q], h.psn[q], s->w.qpn[q], s->w.psn[q],
			       s->w.gid))
			return 1;
	if (cf_read(&c, fd, &start, sizeof(start)))
		return 1;
	rc = cf_run(&c, s, start);
	for (uint32_t q = 0; q < s->nqp; q++)
		printf("Q %u %u %llu\n", s->id, q, (unsigned long long)s->bytes[q]);
	cf_counters(&c, s->id);
	close(fd);
	cf_close(&c);
	return rc ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sroce-cc-flow recv --ctl PATH --senders N\n"
		"       sroce-cc-flow send --ctl PATH --id K --qps Q [--seconds T] "
		"[--size BYTES] [--depth D] [--sample-ms MS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ctl", required_argument, NULL, 'c' },
		{ "senders", required_argument, NULL, 'n' },
		{ "id", required_argument, NULL, 'i' },
		{ "qps", required_argument, NULL, 'q' },
		{ "seconds", required_argument, NULL, 't' },
		{ "size", required_argument, NULL, 'z' },
		{ "depth", required_argument, NULL, 'd' },
		{ "sample-ms", required_argument, NULL, 'm' },
		{ 0 },
	};
	const char *spin = getenv("CF_SPIN");

	cf_spin = spin != NULL && *spin == '1';
	struct cf_send s = { .id = 1, .nqp = 1, .size = 65536, .depth = 4,
			     .seconds = 5, .sample_ms = 100 };
	const char *ctl = NULL;
	uint32_t senders = 1;
	int c, rc = 2;

	if (argc < 2)
		usage();
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'c': ctl = optarg; break;
		case 'n': senders = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'i': s.id = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'q': s.nqp = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': s.seconds = strtod(optarg, NULL); break;
		case 'z': s.size = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': s.depth = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'm': s.sample_ms = (uint32_t)strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (ctl == NULL || strlen(ctl) >= sizeof(((struct sockaddr_un *)0)->sun_path) ||
	    senders == 0 || senders > CF_MAX_SENDERS || s.nqp == 0 ||
	    s.nqp > CF_MAX_QP || s.size == 0 || s.size > CF_BUF_LEN ||
	    s.depth == 0 || s.depth > CF_SQ_DEPTH || s.seconds <= 0 ||
	    s.sample_ms == 0)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(argv[1], "recv") == 0)
		rc = cf_recv_main(ctl, senders);
	else if (strcmp(argv[1], "send") == 0)
		rc = cf_send_main(ctl, &s);
	else
		usage();
	return rc;
}
