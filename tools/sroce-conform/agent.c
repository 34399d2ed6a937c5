/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sroce-conform-agent — the device-under-test side of sroce-conform.
 *
 * Plain libibverbs (no sroce code): it runs on any host with any RNIC, with
 * rxe, or with sroce's drop-in libibverbs.  It listens on TCP and, one
 * command line at a time from the tester, creates a QP with its CQ and MR,
 * connects it to the tester's QPN/PSN/GID, posts receives and work
 * requests, and reports completions, the QP state and the MR's bytes.
 * One tester at a time; each SETUP replaces the previous QP.
 *
 *   sroce-conform-agent [--port P] [--bind ADDR] [--dev NAME] [--gid IDX]
 *                       [--once] [--die-after N]
 *
 * --die-after N: exit abruptly at the Nth command, without answering (how
 * the tests check what the tester does when its agent dies).
 *
 * The protocol (one line each way; errors are "ERR text"):
 *   HELLO                                 OK agent 1 dev=NAME
 *   SETUP rc|uc|ud LEN ACCESS(r,w,a,m,s|-) OK qpn=N va=N rkey=N gid=HEX
 *                                         (m: MWs may be bound; s: an SRQ
 *                                         takes the QP's receives)
 *   CONNECT dqpn dgid rq_psn sq_psn mtu timeout retry rnr_retry min_rnr
 *           rd_atomic qkey                OK
 *   RECV off len                          OK
 *   POST op off len rva rkey imm swap cmp OK   (op: send, send_imm, write,
 *                                         write_imm, read, cmp_swap, fetch_add)
 *   POLL ms                               CQE status opcode len imm | NONE
 *   BIND off len                          OK rkey=N (a type 1 memory window over
 *                                         the MR's [off, off+len), remote read
 *                                         and write; its completion consumed)
 *   READ off len                          DATA HEX
 *   FILL off len pattern                  OK (pattern byte i = s*31+i)
 *   FILL64 off value                      OK
 *   QPSTATE                               STATE RESET|INIT|RTR|RTS|SQD|SQE|ERR
 *   BYE                                   OK, then the connection closes
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define AG_LINE 512
#define AG_UD_GRH 40

struct agent {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct ibv_mw *mw;
	struct ibv_srq *srq;         /* receives go here when set ('s') */
	uint8_t *buf;
	size_t len;
	int gid_index;
	uint8_t port;
	enum ibv_qp_type type;
	uint32_t dqpn, qkey;
	uint64_t wr_id;
	int max_rd_atom;             /* the device's limits (RNICs differ) */
	int max_dest_rd_atom;
};

static void ag_free_qp(struct agent *a)
{
	if (a->mw != NULL)
		ibv_dealloc_mw(a->mw);
	a->mw = NULL;
	if (a->ah != NULL)
		ibv_destroy_ah(a->ah);
	if (a->qp != NULL)
		ibv_destroy_qp(a->qp);
	if (a->srq != NULL)
		ibv_destroy_srq(a->srq);
	a->srq = NULL;
	if (a->mr != NULL)
		ibv_dereg_mr(a->mr);
	if (a->cq != NULL)
		ibv_destroy_cq(a->cq);
	free(a->buf);
	a->ah = NULL;
	a->qp = NULL;
	a->mr = NULL;
	a->cq = NULL;
	a->buf = NULL;
	a->len = 0;
}

static int ag_setup(struct agent *a, char *args, char *out, size_t cap)
{
	char type[8], access[8];
	unsigned long len;
	int acc = IBV_ACCESS_LOCAL_WRITE;
	union ibv_gid gid;
	char hex[33];

	if (sscanf(args, "%7s %lu %7s", type, &len, access) != 3 ||
	    len == 0 || len > (1u << 24))
		return snprintf(out, cap, "ERR usage: SETUP rc|uc|ud LEN ACCESS");
	ag_free_qp(a);
	if (strcmp(type, "rc") == 0)
		a->type = IBV_QPT_RC;
	else if (strcmp(type, "uc") == 0)
		a->type = IBV_QPT_UC;
	else if (strcmp(type, "ud") == 0)
		a->type = IBV_QPT_UD;
	else
		return snprintf(out, cap, "ERR unknown QP type %s", type);
	if (strchr(access, 'r'))
		acc |= IBV_ACCESS_REMOTE_READ;
	if (strchr(access, 'w'))
		acc |= IBV_ACCESS_REMOTE_WRITE;
	if (strchr(access, 'a'))
		acc |= IBV_ACCESS_REMOTE_ATOMIC;
	if (strchr(access, 'm'))
		acc |= IBV_ACCESS_MW_BIND;
	if (a->type == IBV_QPT_UD)
		acc = IBV_ACCESS_LOCAL_WRITE;
	if (posix_memalign((void **)&a->buf, 4096, len) != 0)
		return snprintf(out, cap, "ERR no memory");
	memset(a->buf, 0, len);
	a->len = len;
	a->mr = ibv_reg_mr(a->pd, a->buf, len, acc);
	a->cq = ibv_create_cq(a->ctx, 256, NULL, NULL, 0);
	if (a->mr == NULL || a->cq == NULL) {
		ag_free_qp(a);
		return snprintf(out, cap, "ERR ibv_reg_mr/create_cq: %s",
				strerror(errno));
	}
	struct ibv_qp_init_attr ia = {
		.send_cq = a->cq, .recv_cq = a->cq, .qp_type = a->type,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	if (strchr(access, 's')) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = 64, .max_sge = 1 },
		};

		a->srq = ibv_create_srq(a->pd, &sa);
		if (a->srq == NULL) {
			ag_free_qp(a);
			return snprintf(out, cap, "ERR ibv_create_srq: %s",
					strerror(errno));
		}
		ia.srq = a->srq;
		ia.cap.max_recv_wr = 0;
	}
	a->qp = ibv_create_qp(a->pd, &ia);
	if (a->qp == NULL) {
		ag_free_qp(a);
		return snprintf(out, cap, "ERR ibv_create_qp: %s",
				strerror(errno));
	}
	if (ibv_query_gid(a->ctx, a->port, a->gid_index, &gid) != 0) {
		ag_free_qp(a);
		return snprintf(out, cap, "ERR ibv_query_gid %d", a->gid_index);
	}
	for (int i = 0; i < 16; i++)
		sprintf(hex + 2 * i, "%02x", gid.raw[i]);
	return snprintf(out, cap, "OK qpn=%u va=%" PRIu64 " rkey=%u gid=%s",
			a->qp->qp_num, (uint64_t)(uintptr_t)a->buf,
			a->mr->rkey, hex);
}

static int ag_hex16(const char *s, uint8_t g[16])
{
	if (strlen(s) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		g[i] = (uint8_t)v;
	}
	return 0;
}

static enum ibv_mtu ag_mtu(unsigned int m)
{
	switch (m) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	default: return IBV_MTU_1024;
	}
}

static int ag_connect(struct agent *a, char *args, char *out, size_t cap)
{
	unsigned int dqpn, rq_psn, sq_psn, mtu, timeout, retry, rnr_retry;
	unsigned int min_rnr, rd_atomic, qkey;
	char gidhex[40];
	union ibv_gid dgid;
	struct ibv_qp_attr at;
	int mask;

	if (a->qp == NULL)
		return snprintf(out, cap, "ERR no QP: SETUP first");
	if (sscanf(args, "%u %39s %u %u %u %u %u %u %u %u %u", &dqpn, gidhex,
		   &rq_psn, &sq_psn, &mtu, &timeout, &retry, &rnr_retry,
		   &min_rnr, &rd_atomic, &qkey) != 11 ||
	    ag_hex16(gidhex, dgid.raw) != 0)
		return snprintf(out, cap, "ERR usage: CONNECT dqpn dgid rq_psn sq_psn mtu timeout retry rnr_retry min_rnr rd_atomic qkey");
	a->dqpn = dqpn;
	a->qkey = qkey;
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_INIT;
	at.port_num = a->port;
	at.pkey_index = 0;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (a->type == IBV_QPT_UD) {
		at.qkey = qkey;
		mask |= IBV_QP_QKEY;
	} else {
		at.qp_access_flags = a->mr->rkey ?
			(IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE |
			 IBV_ACCESS_REMOTE_ATOMIC) : 0;
		if (a->type == IBV_QPT_UC)
			at.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(a->qp, &at, mask) != 0)
		return snprintf(out, cap, "ERR modify INIT: %s", strerror(errno));

	struct ibv_ah_attr ah = {
		.is_global = 1, .port_num = a->port,
		.grh = { .dgid = dgid, .sgid_index = (uint8_t)a->gid_index,
			 .hop_limit = 64 },
	};
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (a->type != IBV_QPT_UD) {
		at.path_mtu = ag_mtu(mtu);
		at.dest_qp_num = dqpn;
		at.rq_psn = rq_psn;
		at.ah_attr = ah;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
		if (a->type == IBV_QPT_RC) {
			at.max_dest_rd_atomic = (uint8_t)(a->max_dest_rd_atom < 16 ?
							  a->max_dest_rd_atom : 16);
			at.min_rnr_timer = (uint8_t)min_rnr;
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
	}
	if (ibv_modify_qp(a->qp, &at, mask) != 0)
		return snprintf(out, cap, "ERR modify RTR: %s", strerror(errno));
	memset(&at, 0, sizeof(at));
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = sq_psn;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (a->type == IBV_QPT_RC) {
		at.timeout = (uint8_t)timeout;
		at.retry_cnt = (uint8_t)retry;
		at.rnr_retry = (uint8_t)rnr_retry;
		at.max_rd_atomic = (uint8_t)((int)rd_atomic < a->max_rd_atom ?
					     (int)rd_atomic : a->max_rd_atom);
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(a->qp, &at, mask) != 0)
		return snprintf(out, cap, "ERR modify RTS: %s", strerror(errno));
	if (a->type == IBV_QPT_UD) {
		a->ah = ibv_create_ah(a->pd, &ah);
		if (a->ah == NULL)
			return snprintf(out, cap, "ERR ibv_create_ah: %s",
					strerror(errno));
	}
	return snprintf(out, cap, "OK");
}

static int ag_range(struct agent *a, unsigned long off, unsigned long len)
{
	return a->buf != NULL && off <= a->len && len <= a->len - off;
}

static int ag_recv(struct agent *a, char *args, char *out, size_t cap)
{
	unsigned long off, len;
	struct ibv_recv_wr *bad;

	if (sscanf(args, "%lu %lu", &off, &len) != 2 || a->qp == NULL)
		return snprintf(out, cap, "ERR usage: RECV off len (after SETUP)");
	if (a->type == IBV_QPT_UD)
		len += AG_UD_GRH;
	if (!ag_range(a, off, len))
		return snprintf(out, cap, "ERR outside the MR");
	struct ibv_sge sge = { .addr = (uintptr_t)(a->buf + off),
			       .length = (uint32_t)len, .lkey = a->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = ++a->wr_id, .sg_list = &sge,
				  .num_sge = 1 };

	if (a->srq != NULL ? ibv_post_srq_recv(a->srq, &wr, &bad) != 0 :
			     ibv_post_recv(a->qp, &wr, &bad) != 0)
		return snprintf(out, cap, "ERR ibv_post_recv: %s",
				strerror(errno));
	return snprintf(out, cap, "OK");
}

static const struct {
	const char *name;
	enum ibv_wr_opcode op;
} ag_ops[] = {
	{ .name = "send", .op = IBV_WR_SEND }, { .name = "send_imm", .op = IBV_WR_SEND_WITH_IMM },
	{ .name = "write", .op = IBV_WR_RDMA_WRITE },
	{ .name = "write_imm", .op = IBV_WR_RDMA_WRITE_WITH_IMM },
	{ .name = "read", .op = IBV_WR_RDMA_READ },
	{ .name = "cmp_swap", .op = IBV_WR_ATOMIC_CMP_AND_SWP },
	{ .name = "fetch_add", .op = IBV_WR_ATOMIC_FETCH_AND_ADD },
};

static int ag_post(struct agent *a, char *args, char *out, size_t cap)
{
	char name[16];
	unsigned long off, len;
	uint64_t rva, swap, cmp;
	unsigned int rkey, imm;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	int i;

	if (a->qp == NULL ||
	    sscanf(args, "%15s %lu %lu %" SCNu64 " %u %u %" SCNu64 " %" SCNu64,
		   name, &off, &len, &rva, &rkey, &imm, &swap, &cmp) != 8)
		return snprintf(out, cap, "ERR usage: POST op off len rva rkey imm swap cmp");
	for (i = 0; i < (int)(sizeof(ag_ops) / sizeof(*ag_ops)); i++)
		if (strcmp(ag_ops[i].name, name) == 0)
			break;
	if (i == (int)(sizeof(ag_ops) / sizeof(*ag_ops)))
		return snprintf(out, cap, "ERR unknown op %s", name);
	if (!ag_range(a, off, len))
		return snprintf(out, cap, "ERR outside the MR");
	sge = (struct ibv_sge){ .addr = (uintptr_t)(a->buf + off),
				.length = (uint32_t)len, .lkey = a->mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = ++a->wr_id;
	wr.sg_list = &sge;
	wr.num_sge = len ? 1 : 0;
	wr.opcode = ag_ops[i].op;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.imm_data = htonl(imm);
	if (wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
	    wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = rva;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add =
			wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD ? swap : cmp;
		wr.wr.atomic.swap = swap;
	} else if (a->type == IBV_QPT_UD) {
		wr.wr.ud.ah = a->ah;
		wr.wr.ud.remote_qpn = a->dqpn;
		wr.wr.ud.remote_qkey = a->qkey;
	} else {
		wr.wr.rdma.remote_addr = rva;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(a->qp, &wr, &bad) != 0)
		return snprintf(out, cap, "ERR ibv_post_send: %s",
				strerror(errno));
	return snprintf(out, cap, "OK");
}

static int ag_poll(struct agent *a, char *args, char *out, size_t cap)
{
	unsigned int ms;
	struct timespec t0, t;
	struct ibv_wc wc;

	if (sscanf(args, "%u", &ms) != 1 || a->cq == NULL)
		return snprintf(out, cap, "ERR usage: POLL ms (after SETUP)");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int n = ibv_poll_cq(a->cq, 1, &wc);

		if (n < 0)
			return snprintf(out, cap, "ERR ibv_poll_cq");
		if (n == 1)
			return snprintf(out, cap, "CQE %d %d %u %u",
					(int)wc.status, (int)wc.opcode,
					wc.byte_len,
					(wc.wc_flags & IBV_WC_WITH_IMM) ?
						ntohl(wc.imm_data) : 0);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 >= ms)
			return snprintf(out, cap, "NONE");
		usleep(50);
	}
}

static int ag_bind(struct agent *a, char *args, char *out, size_t cap)
{
	unsigned long off, len;
	struct ibv_mw_bind b;
	struct ibv_wc wc;
	int n = 0;

	if (a->qp == NULL || sscanf(args, "%lu %lu", &off, &len) != 2 ||
	    !ag_range(a, off, len))
		return snprintf(out, cap, "ERR usage: BIND off len (inside the MR)");
	if (a->mw == NULL)
		a->mw = ibv_alloc_mw(a->pd, IBV_MW_TYPE_1);
	if (a->mw == NULL)
		return snprintf(out, cap, "ERR ibv_alloc_mw: %s", strerror(errno));
	memset(&b, 0, sizeof(b));
	b.wr_id = ++a->wr_id;
	b.send_flags = IBV_SEND_SIGNALED;
	b.bind_info.mr = a->mr;
	b.bind_info.addr = (uintptr_t)(a->buf + off);
	b.bind_info.length = len;
	b.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ |
				      IBV_ACCESS_REMOTE_WRITE;
	if (ibv_bind_mw(a->qp, a->mw, &b) != 0)
		return snprintf(out, cap, "ERR ibv_bind_mw: %s", strerror(errno));
	for (int i = 0; i < 20000 && n == 0; i++) {
		n = ibv_poll_cq(a->cq, 1, &wc);
		if (n == 0)
			usleep(50);
	}
	if (n != 1 || wc.status != IBV_WC_SUCCESS)
		return snprintf(out, cap, "ERR the bind did not complete (%s)",
				n == 1 ? ibv_wc_status_str(wc.status) : "no completion");
	return snprintf(out, cap, "OK rkey=%u", a->mw->rkey);
}

static int ag_qpstate(struct agent *a, char *out, size_t cap)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};
	struct ibv_qp_attr at;
	struct ibv_qp_init_attr ia;

	if (a->qp == NULL || ibv_query_qp(a->qp, &at, IBV_QP_STATE, &ia) != 0)
		return snprintf(out, cap, "ERR ibv_query_qp");
	if ((unsigned int)at.qp_state > IBV_QPS_ERR)
		return snprintf(out, cap, "STATE UNKNOWN");
	return snprintf(out, cap, "STATE %s", names[at.qp_state]);
}

/* One command line; the answer in out (at most cap bytes). */
static int ag_command(struct agent *a, char *line, char *out, size_t cap,
		      const char *devname)
{
	char *args = line + strcspn(line, " ");
	unsigned long off, len, pat;
	uint64_t v;

	if (*args)
		*args++ = '\0';
	if (strcmp(line, "HELLO") == 0)
		return snprintf(out, cap, "OK agent 1 dev=%s", devname);
	if (strcmp(line, "SETUP") == 0)
		return ag_setup(a, args, out, cap);
	if (strcmp(line, "CONNECT") == 0)
		return ag_connect(a, args, out, cap);
	if (strcmp(line, "RECV") == 0)
		return ag_recv(a, args, out, cap);
	if (strcmp(line, "POST") == 0)
		return ag_post(a, args, out, cap);
	if (strcmp(line, "POLL") == 0)
		return ag_poll(a, args, out, cap);
	if (strcmp(line, "QPSTATE") == 0)
		return ag_qpstate(a, out, cap);
	if (strcmp(line, "BIND") == 0)
		return ag_bind(a, args, out, cap);
	if (strcmp(line, "READ") == 0) {
		size_t n = 5;

		if (sscanf(args, "%lu %lu", &off, &len) != 2 ||
		    !ag_range(a, off, len) || len * 2 + 8 > cap)
			return snprintf(out, cap, "ERR usage: READ off len (inside the MR, at most %zu)",
					(cap - 8) / 2);
		strcpy(out, "DATA ");
		for (unsigned long i = 0; i < len; i++, n += 2)
			sprintf(out + n, "%02x", a->buf[off + i]);
		return (int)n;
	}
	if (strcmp(line, "FILL") == 0) {
		if (sscanf(args, "%lu %lu %lu", &off, &len, &pat) != 3 ||
		    !ag_range(a, off, len))
			return snprintf(out, cap, "ERR usage: FILL off len pattern");
		for (unsigned long i = 0; i < len; i++)
			a->buf[off + i] = (uint8_t)(pat * 31u + i);
		return snprintf(out, cap, "OK");
	}
	if (strcmp(line, "FILL64") == 0) {
		if (sscanf(args, "%lu %" SCNu64, &off, &v) != 2 ||
		    !ag_range(a, off, 8))
			return snprintf(out, cap, "ERR usage: FILL64 off value");
		memcpy(a->buf + off, &v, 8);
		return snprintf(out, cap, "OK");
	}
	return snprintf(out, cap, "ERR unknown command %s", line);
}

static unsigned long ag_die_after;

static void ag_serve(struct agent *a, int fd, const char *devname)
{
	unsigned long ncmd = 0;

	static char out[70000];
	char line[AG_LINE];
	size_t n = 0;

	for (;;) {
		ssize_t r = recv(fd, line + n, 1, 0);

		if (r <= 0)
			break;
		if (line[n] != '\n') {
			if (++n == sizeof(line) - 1) {
				dprintf(fd, "ERR line too long\n");
				break;
			}
			continue;
		}
		line[n] = '\0';
		if (n > 0 && line[n - 1] == '\r')
			line[n - 1] = '\0';
		n = 0;
		if (ag_die_after && ++ncmd == ag_die_after) {
			fprintf(stderr, "sroce-conform-agent: --die-after %lu: exiting\n",
				ag_die_after);
			_exit(3);
		}
		if (strcmp(line, "BYE") == 0) {
			dprintf(fd, "OK\n");
			break;
		}
		ag_command(a, line, out, sizeof(out) - 1, devname);
		if (dprintf(fd, "%s\n", out) < 0)
			break;
	}
	ag_free_qp(a);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'b' },
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "once", no_argument, NULL, 'o' },
		{ "die-after", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	struct agent a = { .port = 1, .gid_index = 1 };
	const char *bind_addr = "0.0.0.0", *want = NULL;
	struct ibv_device **list;
	struct ibv_cq *warm;
	int port = 7471, once = 0, c, n, ls, one = 1;
	struct sockaddr_in sa = { .sin_family = AF_INET };

	while ((c = getopt_long(argc, argv, "p:b:d:g:oD:", opts, NULL)) != -1) {
		switch (c) {
		case 'p': port = atoi(optarg); break;
		case 'b': bind_addr = optarg; break;
		case 'd': want = optarg; break;
		case 'g': a.gid_index = atoi(optarg); break;
		case 'o': once = 1; break;
		case 'D': ag_die_after = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [--port P] [--bind ADDR] [--dev NAME] [--gid IDX] [--once]\n",
				argv[0]);
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) {
		fprintf(stderr, "sroce-conform-agent: no RDMA device\n");
		return 1;
	}
	for (c = 0; c < n; c++)
		if (want == NULL || strcmp(ibv_get_device_name(list[c]), want) == 0)
			break;
	if (c == n) {
		fprintf(stderr, "sroce-conform-agent: no device %s\n", want);
		return 1;
	}
	a.ctx = ibv_open_device(list[c]);
	a.pd = a.ctx ? ibv_alloc_pd(a.ctx) : NULL;
	if (a.pd == NULL) {
		fprintf(stderr, "sroce-conform-agent: cannot open %s\n",
			ibv_get_device_name(list[c]));
		return 1;
	}
	want = ibv_get_device_name(list[c]);
	{
		struct ibv_device_attr da;

		a.max_rd_atom = a.max_dest_rd_atom = 1;
		if (ibv_query_device(a.ctx, &da) == 0) {
			a.max_rd_atom = da.max_qp_init_rd_atom > 0 ? da.max_qp_init_rd_atom : 1;
			a.max_dest_rd_atom = da.max_qp_rd_atom > 0 ? da.max_qp_rd_atom : 1;
		}
	}
	/*
	 * A CQ from the start: software devices (sroce's drop-in) bring their
	 * port up at the first CQ, and the tester waits for the link.
	 */
	warm = ibv_create_cq(a.ctx, 1, NULL, NULL, 0);
	if (warm == NULL) {
		fprintf(stderr, "sroce-conform-agent: ibv_create_cq: %s\n",
			strerror(errno));
		return 1;
	}
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1 ||
	    bind(ls, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(ls, 1) != 0) {
		fprintf(stderr, "sroce-conform-agent: cannot listen on %s:%d: %s\n",
			bind_addr, port, strerror(errno));
		return 1;
	}
	printf("sroce-conform-agent: %s, listening on %s:%d\n", want,
	       bind_addr, port);
	fflush(stdout);
	do {
		int fd = accept(ls, NULL, NULL);

		if (fd < 0)
			continue;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		ag_serve(&a, fd, want);
		close(fd);
	} while (!once);
	close(ls);
	ibv_destroy_cq(warm);
	ibv_dealloc_pd(a.pd);
	ibv_close_device(a.ctx);
	ibv_free_device_list(list);
	return 0;
}
