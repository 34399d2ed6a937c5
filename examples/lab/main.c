/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-lab — the teaching labs' two nodes (docs/labs/): node 0 serves,
 * node 1 runs a short list of operations given on the command line, and
 * both print their transport counters.  scripts/lab.sh runs it with a
 * configuration per node (a capture, fault rules, an MTU) and draws the
 * capture with sroce-pcap --ladder.
 *
 *   sroce-lab [--conf0 FILE] [--conf1 FILE] [--rnr-ms MS] [--rnr-timer CODE]
 *             [--trace-wait SECONDS] OP...
 *
 *   write:SIZE[xN]   N RDMA WRITEs of SIZE bytes (at most 1 MiB) into
 *                    node 0's plain MR, posted together (N: 1..16)
 *   read:SIZE[xN]    N RDMA READs of SIZE bytes from it
 *   send:SIZE[xN]    N SENDs of SIZE bytes (at most 64 KiB) to node 0's
 *                    receives
 *   fadd:V           FETCH_ADD V on node 0's atomic word (1000 at start)
 *   cswap:C:S        CMP_SWAP the word: S if it is C
 *   word             READ the atomic word
 *   fwrite:SIZE      RDMA WRITE into node 0's fast-registered MR
 *   sendinv          SEND_WITH_INV naming that MR's rkey: node 0's MR is
 *                    invalidated by the message
 *   OP!              the operation must fail (then the QP is in error and
 *                    the list ends)
 *
 * Node 1's first PSN is 100, node 0's 500, so the ladder is easy to read.
 * --rnr-ms: node 0 posts its receives that long after connecting and after
 *           its first RNR NAK (RNR lab);
 * --rnr-timer: node 0's min_rnr_timer, the IBTA code its RNR NAKs carry
 * (12: 0.64 ms, the default; 18: 5.12 ms).
 * --trace-wait: node 1 waits, up to that long, for sroce-stat --trace to
 * follow its QP before the first operation (the process is node 1's).
 * The nodes meet on the default memif link in a private folder and swap
 * QP numbers, addresses and keys over a socketpair.  Exit 0 when every
 * operation ended as it should.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/counters.h"
#include "node.h"

#define BUF_LEN  (4u << 20)       /* plain MR on each node */
#define FAST_LEN (64u << 10)      /* node 0: fast-register MR */
#define SLOT     (64u << 10)      /* node 0: receive slots */
#define NSLOTS   16
#define OFF_WORD (3u << 20)       /* node 0: the atomic word */
#define MAX_WR   16
#define WAIT_MS  10000

struct info {                     /* what the socketpair carries */
	uint32_t qpn, psn, rkey, frkey;
	uint64_t addr, faddr;
	uint8_t gid[16];
};

struct lab {
	int id, sock;
	uint8_t rnr_timer;            /* node 0's min_rnr_timer, 0: default */
	bool trace;                   /* --trace-wait: node 1 starts later */
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
	fprintf(stderr, "sroce-lab: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return -1;
}

/* ---- set up: objects, exchange, connect ---- */

static int fast_register(struct lab *l)
{
	uint32_t key = sr_mr_lkey(l->fmr);
	struct sr_send_wr wr = {
		.opcode = SR_WR_REG_MR, .send_flags = SR_SEND_SIGNALED,
		.wr.reg = { .mr = l->fmr, .pages = l->pages,
			    .npages = FAST_LEN / 4096, .length = FAST_LEN,
			    .iova = (uint64_t)(uintptr_t)l->fast,
			    .access = SR_ACCESS_LOCAL_WRITE |
				      SR_ACCESS_REMOTE_WRITE,
			    .key = (key & ~0xffu) | ((key + 1) & 0xffu) },
	};
	const struct sr_send_wr *bad;
	struct sr_wc wc;

	for (uint32_t i = 0; i < FAST_LEN / 4096; i++)
		l->pages[i] = (uint64_t)(uintptr_t)l->fast + i * 4096ull;
	if (sr_qp_post_send(l->qp, &wr, &bad) ||
	    sr_node_cq_wait(l->node, l->scq, &wc, 1, WAIT_MS) != 1 ||
	    wc.status != SR_WC_SUCCESS)
		return fail("fast-register by work request");
	l->me.frkey = sr_mr_rkey(l->fmr);
	printf("node 0: fast-registered MR of %u KiB, rkey %#x\n",
	       FAST_LEN >> 10, l->me.frkey);
	return 0;
}

static int setup(struct lab *l)
{
	struct sr_qp_init_attr init = { .qp_type = SR_QPT_RC,
		.cap = { .max_send_wr = 2 * MAX_WR, .max_recv_wr = NSLOTS,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct sr_node_conn conn = { .min_rnr_timer = l->rnr_timer };
	struct sr_node_peer peer;
	int rc;

	if (sr_node_open(NULL, &l->node))
		return -1;
	if (sr_node_link_wait(l->node, 20000))
		return fail("node %d: the memif link did not come up", l->id);
	l->pd = sr_pd_alloc(sr_node_mr(l->node));
	l->scq = sr_cq_create(sr_node_dev(l->node), 4 * MAX_WR, NULL, NULL);
	l->rcq = sr_cq_create(sr_node_dev(l->node), 2 * NSLOTS, NULL, NULL);
	l->buf = aligned_alloc(4096, BUF_LEN);
	l->fast = aligned_alloc(4096, FAST_LEN);
	if (!l->pd || !l->scq || !l->rcq || !l->buf || !l->fast)
		return fail("out of memory");
	memset(l->buf, 0, BUF_LEN);
	memset(l->fast, 0, FAST_LEN);
	init.pd = l->pd;
	init.send_cq = l->scq;
	init.recv_cq = l->rcq;
	l->qp = sr_qp_create(sr_node_dev(l->node), &init);
	l->mr = sr_mr_reg_virt(l->pd, l->buf, BUF_LEN, (uint64_t)(uintptr_t)l->buf,
			       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
			       SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC);
	l->fmr = sr_mr_create(l->pd, true);
	if (!l->qp || !l->mr || !l->fmr ||
	    sr_frmr_init(l->fmr, FAST_LEN / 4096, true))
		return fail("QP or memory registration");
	sr_node_qp_attach(l->node, l->qp);
	l->me.qpn = sr_qp_num(l->qp);
	l->me.psn = l->id ? 100 : 500;
	l->me.addr = (uint64_t)(uintptr_t)l->buf;
	l->me.rkey = sr_mr_rkey(l->mr);
	l->me.faddr = (uint64_t)(uintptr_t)l->fast;
	sr_node_gid(l->node, 1, l->me.gid);
	if (send(l->sock, &l->me, sizeof(l->me), 0) != sizeof(l->me) ||
	    recv(l->sock, &l->peer, sizeof(l->peer), MSG_WAITALL) !=
		    sizeof(l->peer))
		return fail("exchange with the peer failed");
	peer = (struct sr_node_peer){ .qpn = l->peer.qpn, .psn = l->peer.psn };
	memcpy(peer.gid, l->peer.gid, 16);
	rc = sr_node_qp_connect(l->node, l->qp, l->me.psn, &peer, &conn, WAIT_MS);
	if (rc)
		return fail("connect to the peer: %s", strerror(-rc));
	printf("node %d: QP %u connected to QP %u, path MTU %u, first PSN %u\n",
	       l->id, l->me.qpn, l->peer.qpn,
	       sr_mtu_bytes(sr_node_path_mtu(l->node)), l->me.psn);
	/* node 0 tells node 1 its fast-registered MR's rkey */
	if (l->id == 0)
		return fast_register(l) ||
		       send(l->sock, &l->me.frkey, 4, 0) != 4 ? -1 : 0;
	return recv(l->sock, &l->peer.frkey, 4, MSG_WAITALL) == 4 ? 0 :
	       fail("node 0 did not send its fast-registered MR's rkey");
}

/* Counters of the transport that are not zero, one per line, named as
 * sroce-stat names them (xport_retry). */
static void counters(struct lab *l)
{
	const struct sr_stats_shm *s = sr_pmd_stats(sr_node_pmd(l->node));
	char name[32];

	sr_node_stats_publish(l->node);
	for (unsigned int i = 0; i < SR_CNT_MAX; i++) {
		size_t k = 0;

		if (!s->xport[i])
			continue;
		for (const char *c = sr_counter_name(i); *c && k < 31; c++)
			name[k++] = (char)tolower((unsigned char)*c);
		name[k] = '\0';
		printf("node %d: xport_%-16s %8llu  %s\n", l->id, name,
		       (unsigned long long)s->xport[i], sr_counter_text(i));
	}
	fflush(stdout);
}

/* ---- node 0: serve until node 1 says bye ---- */

static int post_recv(struct lab *l, uint32_t i)
{
	struct sr_sge sge = { .addr = (uint64_t)(uintptr_t)l->buf + i * SLOT,
			      .length = SLOT, .lkey = sr_mr_lkey(l->mr) };
	struct sr_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	const struct sr_recv_wr *bad;

	return sr_qp_post_recv(l->qp, &wr, &bad);
}

static uint64_t rnr_naks_sent(struct lab *l)
{
	sr_node_stats_publish(l->node);
	return sr_pmd_stats(sr_node_pmd(l->node))->xport[SR_CNT_RNR_NAK_SENT];
}

static int serve(struct lab *l, unsigned int rnr_ms)
{
	uint64_t word = 1000, until;
	unsigned int idle = 0, flushed = 0;
	struct sr_wc wc[16];
	char bye;

	memcpy(l->buf + OFF_WORD, &word, 8);
	/* --trace-wait: the operations start when node 1 says so */
	while (l->trace && recv(l->sock, &bye, 1, MSG_DONTWAIT) < 0 &&
	       errno == EAGAIN)
		sr_node_relax(l->node, &idle);
	/* RNR lab: no receive for a while, but the engine keeps running;
	 * then until the first RNR NAK has gone out (up to 10 s more), so
	 * the lab shows one however late node 1's SEND arrives */
	until = sr_node_now_ns(l->node) + rnr_ms * 1000000ull;
	while (sr_node_now_ns(l->node) < until)
		sr_node_relax(l->node, &idle);
	until += 10000000000ull;
	while (rnr_ms && rnr_naks_sent(l) == 0 &&
	       sr_node_now_ns(l->node) < until)
		sr_node_relax(l->node, &idle);
	for (uint32_t i = 0; i < NSLOTS; i++)
		if (post_recv(l, i))
			return fail("node 0: post receive");
	if (rnr_ms)
		printf("node 0: receives posted %u ms after connecting, after "
		       "%llu RNR NAK(s)\n", rnr_ms,
		       (unsigned long long)rnr_naks_sent(l));
	for (;;) {
		int n = sr_cq_poll(l->rcq, 16, wc);

		for (int i = 0; i < n; i++) {
			if (wc[i].status == SR_WC_WR_FLUSH_ERR) {
				flushed++;
				continue;
			}
			if (wc[i].status != SR_WC_SUCCESS) {
				printf("node 0: receive %s\n",
				       sr_wc_status_str(wc[i].status));
				continue;
			}
			if (wc[i].wc_flags & SR_WC_WITH_INV)
				printf("node 0: received %u B that invalidated rkey %#x\n",
				       wc[i].byte_len, wc[i].invalidated_rkey);
			if (post_recv(l, (uint32_t)wc[i].wr_id))
				return fail("node 0: post receive");
		}
		if (n > 0) {
			idle = 0;
			continue;
		}
		sr_node_relax(l->node, &idle);
		if (idle % 256 == 255 &&
		    recv(l->sock, &bye, 1, MSG_DONTWAIT) != -1)
			break;                  /* bye, or node 1 left */
	}
	if (flushed)
		printf("node 0: %u receives flushed: the QP is in the error state\n",
		       flushed);
	memcpy(&word, l->buf + OFF_WORD, 8);
	printf("node 0: atomic word is %" PRIu64 "\n", word);
	counters(l);
	return 0;
}

/* ---- node 1: the operations ---- */

/* Post n copies of one work request, wait for all n completions. */
static int run(struct lab *l, struct sr_send_wr *wr, uint32_t n, bool must_fail)
{
	const struct sr_send_wr *bad;
	enum sr_wc_status st = SR_WC_SUCCESS;
	struct sr_wc wc;

	for (uint32_t i = 0; i < n; i++)
		if (sr_qp_post_send(l->qp, wr, &bad))
			return fail("post %s", sr_wr_opcode_str(wr->opcode));
	for (uint32_t i = 0; i < n; i++) {
		if (sr_node_cq_wait(l->node, l->scq, &wc, 1, WAIT_MS) != 1)
			return fail("%s: no completion", sr_wr_opcode_str(wr->opcode));
		if (wc.status != SR_WC_SUCCESS && st == SR_WC_SUCCESS)
			st = wc.status;
	}
	printf("node 1: %u x %-18s %s%s\n", n, sr_wr_opcode_str(wr->opcode),
	       sr_wc_status_str(st), must_fail ? " (as it must)" : "");
	if ((st != SR_WC_SUCCESS) != must_fail)
		return fail("%s ended %s", sr_wr_opcode_str(wr->opcode),
			    sr_wc_status_str(st));
	return 0;
}

/* One operation of the command line. */
static int op(struct lab *l, const char *arg, bool *stop)
{
	uint64_t *res = (uint64_t *)(void *)(l->buf + OFF_WORD);
	struct sr_sge sge = { .addr = (uint64_t)(uintptr_t)l->buf,
			      .lkey = sr_mr_lkey(l->mr) };
	struct sr_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				 .send_flags = SR_SEND_SIGNALED };
	unsigned long long a = 0, b = 0, n = 1;
	size_t len = strlen(arg);
	bool must_fail = len && arg[len - 1] == '!';
	char name[16] = "";

	*stop = must_fail;
	if (sscanf(arg, "%15[a-z]:%llux%llu", name, &a, &n) < 1 ||
	    n == 0 || n > MAX_WR || a > (1u << 20))
		return fail("bad operation '%s'", arg);
	sge.length = (uint32_t)a;
	wr.wr.rdma.remote_addr = l->peer.addr;
	wr.wr.rdma.rkey = l->peer.rkey;
	if (strcmp(name, "write") == 0) {
		wr.opcode = SR_WR_RDMA_WRITE;
	} else if (strcmp(name, "read") == 0) {
		wr.opcode = SR_WR_RDMA_READ;
	} else if (strcmp(name, "send") == 0) {
		wr.opcode = SR_WR_SEND;
	} else if (strcmp(name, "fwrite") == 0) {
		wr.opcode = SR_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = l->peer.faddr;
		wr.wr.rdma.rkey = l->peer.frkey;
	} else if (strcmp(name, "sendinv") == 0) {
		wr.opcode = SR_WR_SEND_WITH_INV;
		wr.invalidate_rkey = l->peer.frkey;
		sge.length = 32;
	} else if (strcmp(name, "word") == 0) {
		wr.opcode = SR_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = l->peer.addr + OFF_WORD;
		sge.length = 8;
	} else if (strcmp(name, "fadd") == 0 || strcmp(name, "cswap") == 0) {
		bool add = name[0] == 'f';

		if (!add && sscanf(arg, "cswap:%llu:%llu", &a, &b) != 2)
			return fail("bad operation '%s' (cswap:COMPARE:SWAP)", arg);
		wr.opcode = add ? SR_WR_ATOMIC_FETCH_AND_ADD : SR_WR_ATOMIC_CMP_AND_SWP;
		wr.wr.atomic.remote_addr = l->peer.addr + OFF_WORD;
		wr.wr.atomic.rkey = l->peer.rkey;
		wr.wr.atomic.compare_add = a;
		wr.wr.atomic.swap = b;
		sge.length = 8;
		n = 1;
	} else {
		return fail("unknown operation '%s'", arg);
	}
	/* READ data lands at 1 MiB, atomic results and the word at OFF_WORD */
	if (sge.length == 8)
		sge.addr += OFF_WORD;
	else if (wr.opcode == SR_WR_RDMA_READ)
		sge.addr += 1u << 20;
	if (run(l, &wr, (uint32_t)n, must_fail))
		return -1;
	if (sge.length == 8 && !must_fail)
		printf("node 1:   %s returned %" PRIu64 "\n", name, res[0]);
	return 0;
}

/* Node 1: wait for a tracer (sroce-stat -p PID --trace QPN) to attach. */
static void trace_wait(struct lab *l, unsigned int seconds)
{
	uint64_t until = sr_node_now_ns(l->node) + seconds * 1000000000ull;
	unsigned int idle = 0;

	printf("node 1: waiting up to %u s for sroce-stat -p %d --trace %u\n",
	       seconds, (int)getpid(), l->me.qpn);
	fflush(stdout);
	while (!sr_qp_traced(l->qp) && sr_node_now_ns(l->node) < until)
		sr_node_relax(l->node, &idle);
	printf("node 1: QP %u is%s traced\n", l->me.qpn,
	       sr_qp_traced(l->qp) ? "" : " not");
	(void)!send(l->sock, "T", 1, MSG_NOSIGNAL);  /* node 0: go */
}

static int node_main(int id, int sock, const char *conf, char **ops, int nops,
		     unsigned int rnr_ms, uint8_t rnr_timer, unsigned int trace_s)
{
	struct lab l = { .id = id, .sock = sock, .rnr_timer = rnr_timer,
			 .trace = trace_s != 0 };
	char env[2] = { (char)('0' + id), 0 };
	bool stop = false;
	int rc;

	setenv("SROCE_NODE", env, 1);
	if (conf)
		setenv("SROCE_CONFIG", conf, 1);
	rc = setup(&l);
	if (rc == 0 && id == 0)
		rc = serve(&l, rnr_ms);
	if (rc == 0 && id == 1 && trace_s)
		trace_wait(&l, trace_s);
	for (int i = 0; rc == 0 && id == 1 && i < nops && !stop; i++)
		rc = op(&l, ops[i], &stop);
	if (id == 1) {
		fflush(stdout);
		counters(&l);
		(void)!send(sock, "B", 1, MSG_NOSIGNAL);
	}
	if (l.qp) {
		sr_node_qp_detach(l.node, l.qp);
		sr_qp_destroy(l.qp);
	}
	sr_mr_dereg(l.mr);
	sr_mr_destroy(l.fmr);
	sr_cq_destroy(l.scq);
	sr_cq_destroy(l.rcq);
	sr_pd_dealloc(l.pd);
	if (sr_node_close(l.node))
		rc = fail("node %d: objects left at close", id);
	free(l.buf);
	free(l.fast);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	char run_dir[] = "/tmp/sroce-lab.XXXXXX", path[sizeof(run_dir) + 16];
	const char *conf[2] = { NULL, NULL };
	unsigned int rnr_ms = 0, trace_s = 0;
	uint8_t rnr_timer = 0;
	int sv[2], status = 0, rc, i = 1;
	pid_t child;

	for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
		if (strcmp(argv[i], "--conf0") == 0)
			conf[0] = argv[i + 1];
		else if (strcmp(argv[i], "--conf1") == 0)
			conf[1] = argv[i + 1];
		else if (strcmp(argv[i], "--rnr-ms") == 0)
			rnr_ms = (unsigned int)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--rnr-timer") == 0)
			rnr_timer = (uint8_t)(atoi(argv[i + 1]) & 0x1f);
		else if (strcmp(argv[i], "--trace-wait") == 0)
			trace_s = (unsigned int)atoi(argv[i + 1]);
		else
			break;
	}
	if (i >= argc || argv[i][0] == '-') {
		fprintf(stderr, "usage: sroce-lab [--conf0 FILE] [--conf1 FILE] "
			"[--rnr-ms MS] [--rnr-timer CODE] [--trace-wait S] OP...\n"
			"(see examples/lab/main.c)\n");
		return 2;
	}
	if (mkdtemp(run_dir) == NULL)
		return fail("mkdtemp: %s", strerror(errno)) ? 1 : 0;
	setenv("SROCE_RUN_DIR", run_dir, 1);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return fail("socketpair: %s", strerror(errno)) ? 1 : 0;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		close(sv[1]);
		_exit(node_main(0, sv[0], conf[0], NULL, 0, rnr_ms, rnr_timer,
				trace_s));
	}
	close(sv[0]);
	rc = node_main(1, sv[1], conf[1], argv + i, argc - i, 0, 0, trace_s);
	if (rc)
		kill(child, SIGTERM);
	waitpid(child, &status, 0);
	if (rc == 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		rc = fail("node 0 failed (see above)");
	snprintf(path, sizeof(path), "%s/memif.lock", run_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/memif.sock", run_dir);
	unlink(path);
	rmdir(run_dir);
	return rc ? 1 : 0;
}
