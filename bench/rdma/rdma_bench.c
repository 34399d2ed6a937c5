/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-bench-rdma — sroce's own RDMA figures between two processes.
 *
 *   sroce-bench-rdma [--mode inline|dedicated-1|dedicated-2]
 *                    [--seconds S] [--lat-iters N] [--depth D] [--cq-mod M]
 *                    [--only bw,lat,atomic,frmr] [--sizes 64,4096,...]
 *                    [--qps 1,4] [--ops write,read,send] [--repeat R] [--idle N]
 *                    [--config0 FILE --config1 FILE]
 *
 * Node 0 is forked before any EAL starts; both open a node (pmd/node.h) on
 * the default memif link in a private folder, from a configuration file
 * written here for the progress mode:
 *   inline       one thread per node progresses (the consumer's);
 *   dedicated-1  one engine lcore per node (engines = 1), the consumer
 *                beside it, both floating on every CPU;
 *   dedicated-2  two engine lcores per node (engines = 2: two lanes, two
 *                memif queue pairs, the QPs shared by QPN), the same.
 * --config0/--config1 name both nodes' files instead (another link, e.g.
 * net_af_packet on a veth pair; the mode is then the files' and --mode
 * only labels the figures).
 * They swap QP numbers, PSNs, GIDs, address and rkey over TCP on
 * 127.0.0.1 and connect RB_MAX_QP RC QP pairs (path MTU: the link's).
 * Node 1 runs the tests (rdma_tests.c) and prints a table, plus one JSON
 * line per figure ("{" first) for scripts/bench.sh.  Figures only:
 * nothing about timing is asserted; exit 0 when every operation completed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rdma_bench.h"

int rb_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "sroce-bench-rdma: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return -1;
}

uint64_t rb_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int rb_send_all(int fd, const void *p, size_t len)
{
	return send(fd, p, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

int rb_recv_all(int fd, void *p, size_t len)
{
	return recv(fd, p, len, MSG_WAITALL) == (ssize_t)len ? 0 : -1;
}

/* n receives on QP q, all of them the same 1 MiB area (wr_id = q). */
int rb_post_recv(struct rb *b, int q, uint32_t n)
{
	struct sr_sge sge = { (uint64_t)(uintptr_t)b->buf + RB_OFF_RECV,
			      RB_RECV_LEN, sr_mr_lkey(b->mr) };
	struct sr_recv_wr wr[64];
	const struct sr_recv_wr *bad;

	while (n > 0) {
		uint32_t k = n < 64 ? n : 64;

		for (uint32_t i = 0; i < k; i++)
			wr[i] = (struct sr_recv_wr){ .wr_id = (uint64_t)q,
				.sg_list = &sge, .num_sge = 1,
				.next = i + 1 < k ? &wr[i + 1] : NULL };
		if (sr_qp_post_recv(b->qp[q], wr, &bad))
			return -1;
		n -= k;
	}
	return 0;
}

/* ---- set-up ---- */

/* The configuration file of one node for the progress mode. */
static int write_config(const char *dir, int node, const char *mode,
			char *path, size_t len)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	FILE *f;

	snprintf(path, len, "%s/node%d.conf", dir, node);
	f = fopen(path, "w");
	if (f == NULL)
		return rb_fail("%s: %s", path, strerror(errno));
	fprintf(f, "port = default\nnode = %d\nrun_dir = %s\nstats_dir = off\n",
		node, dir);
	if (strcmp(mode, "dedicated-1") == 0)       /* one engine lcore */
		fprintf(f, "mode = dedicated\nengines = 1\n"
			"lcores = 0@(0-%ld),1@(0-%ld)\n", ncpu - 1, ncpu - 1);
	else if (strcmp(mode, "dedicated-2") == 0)  /* two engine lcores */
		fprintf(f, "mode = dedicated\nengines = 2\n"
			"lcores = 0@(0-%ld),1@(0-%ld),2@(0-%ld)\n",
			ncpu - 1, ncpu - 1, ncpu - 1);
	return fclose(f) ? rb_fail("%s: write failed", path) : 0;
}

static int exchange(struct rb *b, int listen_fd)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int one = 1;

	if (getsockname(listen_fd, (struct sockaddr *)&sa, &len))
		return rb_fail("getsockname: %s", strerror(errno));
	if (b->node_id == 0) {
		b->sock = accept(listen_fd, NULL, NULL);
	} else {
		for (int i = 0; i < 200 && b->sock < 0; i++) {
			b->sock = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(b->sock, (struct sockaddr *)&sa, sizeof(sa))) {
				close(b->sock);
				b->sock = -1;
				usleep(50000);
			}
		}
	}
	close(listen_fd);
	if (b->sock < 0)
		return rb_fail("no TCP connection on 127.0.0.1:%u",
			       ntohs(sa.sin_port));
	setsockopt(b->sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (rb_send_all(b->sock, &b->me, sizeof(b->me)) ||
	    rb_recv_all(b->sock, &b->peer, sizeof(b->peer)))
		return rb_fail("TCP exchange with the peer failed");
	return 0;
}

static int setup(struct rb *b, int listen_fd, int ready_fd)
{
	struct sr_qp_init_attr init = { .qp_type = SR_QPT_RC,
		.cap = { .max_send_wr = RB_SQ_DEPTH, .max_recv_wr = RB_RQ_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	/*
	 * A short RNR wait: a SEND that outruns the receiver retries soon.
	 * A 0.5 s retransmit timeout: on a shared machine a node may lose its
	 * core for longer than the default 67 ms, seven times over.
	 */
	struct sr_node_conn conn = { .min_rnr_timer = 1, .rd_atomic = 16,
				     .timeout = 17 };
	int rc;

	if (sr_node_open(NULL, &b->node))
		return -1;
	if (ready_fd >= 0) {                    /* node 0's memif listens */
		(void)!write(ready_fd, "U", 1);
		close(ready_fd);
	}
	if (sr_node_link_wait(b->node, 20000))
		return rb_fail("node %d: the memif link did not come up",
			       b->node_id);
	b->pd = sr_pd_alloc(sr_node_mr(b->node));
	b->scq = sr_cq_create(sr_node_dev(b->node), RB_MAX_QP * RB_SQ_DEPTH,
			      NULL, NULL);
	b->rcq = sr_cq_create(sr_node_dev(b->node), RB_MAX_QP * RB_RQ_DEPTH,
			      NULL, NULL);
	b->buf = aligned_alloc(4096, RB_BUF_LEN);
	if (!b->pd || !b->scq || !b->rcq || !b->buf)
		return rb_fail("out of memory");
	memset(b->buf, 0, RB_BUF_LEN);
	b->mr = sr_mr_reg_virt(b->pd, b->buf, RB_BUF_LEN,
			       (uint64_t)(uintptr_t)b->buf,
			       SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ |
			       SR_ACCESS_REMOTE_WRITE | SR_ACCESS_REMOTE_ATOMIC);
	if (b->mr == NULL)
		return rb_fail("memory registration");
	init.pd = b->pd;
	init.send_cq = b->scq;
	init.recv_cq = b->rcq;
	for (int q = 0; q < RB_MAX_QP; q++) {
		b->qp[q] = sr_qp_create(sr_node_dev(b->node), &init);
		if (b->qp[q] == NULL)
			return rb_fail("QP create");
		b->me.qpn[q] = sr_qp_num(b->qp[q]);
		b->me.psn[q] = 0x100 * (q + 1) + (uint32_t)b->node_id;
	}
	b->me.addr = (uint64_t)(uintptr_t)b->buf;
	b->me.rkey = sr_mr_rkey(b->mr);
	sr_node_gid(b->node, 1, b->me.gid);         /* the IPv4 GID */
	if (exchange(b, listen_fd))
		return -1;
	for (int q = 0; q < RB_MAX_QP; q++) {
		struct sr_node_peer peer = { .qpn = b->peer.qpn[q],
					     .psn = b->peer.psn[q] };

		memcpy(peer.gid, b->peer.gid, 16);
		rc = sr_node_qp_connect(b->node, b->qp[q], b->me.psn[q], &peer,
					&conn, RB_WAIT_MS);
		if (rc)
			return rb_fail("connect QP %d: %s", q, strerror(-rc));
		if (rb_post_recv(b, q, RB_RQ_DEPTH))
			return rb_fail("post receives");
	}
	/* idle QPs: connected (RTS) to the peer's first QP, never used */
	init.cap.max_send_wr = 1;
	init.cap.max_recv_wr = 1;
	b->idle_qp = calloc(b->idle ? b->idle : 1, sizeof(*b->idle_qp));
	if (b->idle_qp == NULL)
		return rb_fail("out of memory");
	for (uint32_t i = 0; i < b->idle; i++) {
		struct sr_node_peer peer = { .qpn = b->peer.qpn[0], .psn = 0 };

		memcpy(peer.gid, b->peer.gid, 16);
		b->idle_qp[i] = sr_qp_create(sr_node_dev(b->node), &init);
		if (b->idle_qp[i] == NULL)
			return rb_fail("idle QP %u: create", i);
		rc = sr_node_qp_connect(b->node, b->idle_qp[i], 0, &peer,
					&conn, RB_WAIT_MS);
		if (rc)
			return rb_fail("idle QP %u: %s", i, strerror(-rc));
	}
	return 0;
}

static int node_main(struct rb *b, const char *conf, int listen_fd,
		     int ready_fd)
{
	int rc;

	setenv("SROCE_CONFIG", conf, 1);
	rc = setup(b, listen_fd, ready_fd);
	if (rc == 0)
		rc = b->node_id == 0 ? rb_serve(b) : rb_run_tests(b);
	if (b->node_id == 1 && b->sock >= 0) {
		struct rb_cmd bye = { .kind = RB_CMD_BYE };

		rb_send_all(b->sock, &bye, sizeof(bye));
	}
	for (int q = 0; q < RB_MAX_QP; q++)
		sr_qp_destroy(b->qp[q]);
	for (uint32_t i = 0; b->idle_qp != NULL && i < b->idle; i++)
		sr_qp_destroy(b->idle_qp[i]);
	free(b->idle_qp);
	sr_mr_dereg(b->mr);
	sr_cq_destroy(b->scq);
	sr_cq_destroy(b->rcq);
	sr_pd_dealloc(b->pd);
	if (sr_node_close(b->node))
		rc = rb_fail("node %d: objects left at close", b->node_id);
	if (b->sock >= 0)
		close(b->sock);
	free(b->buf);
	return rc ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: sroce-bench-rdma [--mode inline|dedicated-1|dedicated-2] "
		"[--seconds S] [--lat-iters N] [--depth D] [--cq-mod M] "
		"[--only bw,lat,atomic,frmr] [--sizes LIST] [--qps LIST] [--ops LIST] "
		"[--repeat R] [--idle N] [--config0 FILE --config1 FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{ "lat-iters", required_argument, NULL, 'l' },
		{ "depth", required_argument, NULL, 'd' },
		{ "cq-mod", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'o' },
		{ "sizes", required_argument, NULL, 'z' },
		{ "qps", required_argument, NULL, 'q' },
		{ "ops", required_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "idle", required_argument, NULL, 'i' },
		{ "config0", required_argument, NULL, '0' },
		{ "config1", required_argument, NULL, '1' },
		{ 0 },
	};
	struct rb b = { .node_id = 1, .sock = -1, .seconds = 0.3,
			.lat_iters = 5000, .depth = 256, .cq_mod = 32,
			.repeat = 1,
			.mode = "inline", .sizes = "64,1024,4096,65536,1048576",
			.qps = "1,4", .ops = "write,read,send" };
	char dir[] = "/tmp/sroce-bench-rdma.XXXXXX", conf[2][PATH_MAX];
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	const char *user_conf[2] = { NULL, NULL };
	int listen_fd, ready[2], status = 0, rc, c;
	pid_t child;
	char up;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm': b.mode = optarg; break;
		case 's': b.seconds = strtod(optarg, NULL); break;
		case 'l': b.lat_iters = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'd': b.depth = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'c': b.cq_mod = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': b.only = optarg; break;
		case 'z': b.sizes = optarg; break;
		case 'q': b.qps = optarg; break;
		case 'p': b.ops = optarg; break;
		case 'r': b.repeat = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'i': b.idle = (uint32_t)strtoul(optarg, NULL, 0); break;
		case '0': user_conf[0] = optarg; break;
		case '1': user_conf[1] = optarg; break;
		default: usage();
		}
	}
	if (strcmp(b.mode, "inline") && strcmp(b.mode, "dedicated-1") &&
	    strcmp(b.mode, "dedicated-2") && user_conf[0] == NULL)
		usage();
	if ((user_conf[0] == NULL) != (user_conf[1] == NULL))
		usage();
	if (b.cq_mod == 0 || b.depth < b.cq_mod || b.depth > RB_SQ_DEPTH ||
	    b.repeat == 0 || b.repeat > RB_MAX_REPEAT || b.lat_iters == 0 || b.lat_iters > 1000000 || b.seconds <= 0 ||
	    b.idle > 4000)
		usage();
	b.dedicated = strncmp(b.mode, "dedicated", 9) == 0;
	if (mkdtemp(dir) == NULL)
		return rb_fail("mkdtemp: %s", strerror(errno)) ? 1 : 0;
	if (write_config(dir, 0, b.mode, conf[0], sizeof(conf[0])) ||
	    write_config(dir, 1, b.mode, conf[1], sizeof(conf[1])))
		return 1;
	if (user_conf[0] && user_conf[1]) {         /* another link */
		for (int i = 0; i < 2; i++) {
			unlink(conf[i]);
			snprintf(conf[i], sizeof(conf[i]), "%s", user_conf[i]);
		}
	}
	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(listen_fd, 1))
		return rb_fail("TCP listen: %s", strerror(errno)) ? 1 : 0;
	if (pipe(ready))
		return rb_fail("pipe: %s", strerror(errno)) ? 1 : 0;
	fflush(stdout);
	child = fork();
	if (child == 0) {
		b.node_id = 0;
		close(ready[0]);
		_exit(node_main(&b, conf[0], listen_fd, ready[1]));
	}
	/* Dial node 0's memif socket once it listens (or node 0 is gone). */
	close(ready[1]);
	(void)!read(ready[0], &up, 1);
	close(ready[0]);
	rc = node_main(&b, conf[1], listen_fd, -1);
	if (rc)
		kill(child, SIGTERM);
	waitpid(child, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		rc = rb_fail("node 0 exited with status %d", status);
	for (int i = 0; i < 2 && user_conf[0] == NULL; i++)
		unlink(conf[i]);
	snprintf(conf[0], sizeof(conf[0]), "%s/memif.lock", dir);
	unlink(conf[0]);
	snprintf(conf[0], sizeof(conf[0]), "%s/memif.sock", dir);
	unlink(conf[0]);
	rmdir(dir);
	return rc ? 1 : 0;
}
