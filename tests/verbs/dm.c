/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dm.c — device memory (ibv_alloc_dm and the rest), between two RC QPs of
 * one context (same-process loopback):
 *   dm_alloc       max_dm_size is reported; more than is left is ENOMEM,
 *                  a comp_mask or a length of 0 EINVAL; what is handed out
 *                  reads as zeros
 *   dm_copy        copies in and out at 4-byte multiples; an unaligned
 *                  offset or length is EINVAL, past the end EFAULT
 *   dm_rdma        a zero-based MR on the memory: a WRITE lands at the
 *                  offset the WR names (read back with a copy), a READ
 *                  brings it back, an access past the MR's end fails
 *   dm_busy        ibv_free_dm while an MR is on it: EBUSY; after
 *                  ibv_dereg_mr: 0
 *   dm_empty_mr    a zero-length MR: registered, and a WRITE through its
 *                  rkey is a remote access error
 * Exit 0 when all pass; each check prints one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "report.h"

#define GID_INDEX 1
#define BUF_LEN   8192
#define DM_LEN    4096
#define DM_ACCESS (IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE | \
		   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	struct ibv_cq *cq;
	struct ibv_qp *a, *b;
	struct ibv_device_attr_ex attr;
};

/* One RDMA op from buf into (rkey, raddr); its completion status. */
static int rdma(struct env *e, enum ibv_wr_opcode op, uint32_t rkey,
		uint64_t raddr, uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)e->buf, .length = len,
			     .lkey = e->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &s, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.rdma = { .remote_addr = raddr, .rkey = rkey } }, *bad;
	struct ibv_wc wc;
	double end = now_s() + 5;
	int n;

	if (ibv_post_send(e->a, &wr, &bad))
		return -1;
	while ((n = ibv_poll_cq(e->cq, 1, &wc)) == 0)
		if (now_s() > end)
			return -1;
	return n == 1 ? (int)wc.status : -1;
}

/* After an error the QP is in ERR: a fresh pair for what follows. */
static int connect_pair(struct env *e)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	if (e->a)
		ibv_destroy_qp(e->a);
	if (e->b)
		ibv_destroy_qp(e->b);
	e->a = ibv_create_qp(e->pd, &qa);
	e->b = ibv_create_qp(e->pd, &qa);
	if (!e->a || !e->b)
		return -1;
	return loop_qp_up(e->a, &e->gid, GID_INDEX, e->b->qp_num, access, 1,
			  true, true) ||
	       loop_qp_up(e->b, &e->gid, GID_INDEX, e->a->qp_num, access, 1,
			  true, true);
}

static void check_alloc(struct env *e)
{
	struct ibv_alloc_dm_attr big = { .length = e->attr.max_dm_size + 4 };
	struct ibv_alloc_dm_attr mask = { .length = 64, .comp_mask = 1 };
	struct ibv_alloc_dm_attr none = { .length = 0 };
	struct ibv_alloc_dm_attr ok = { .length = 256, .log_align_req = 6 };
	uint8_t got[256], zero[256] = { 0 };
	struct ibv_dm *dm;
	bool pass = e->attr.max_dm_size != 0;

	errno = 0;
	pass &= ibv_alloc_dm(e->ctx, &big) == NULL && errno == ENOMEM;
	errno = 0;
	pass &= ibv_alloc_dm(e->ctx, &mask) == NULL && errno == EINVAL;
	errno = 0;
	pass &= ibv_alloc_dm(e->ctx, &none) == NULL && errno == EINVAL;
	dm = ibv_alloc_dm(e->ctx, &ok);
	pass &= dm != NULL && ibv_memcpy_from_dm(got, dm, 0, sizeof(got)) == 0 &&
		memcmp(got, zero, sizeof(got)) == 0;
	if (dm)
		pass &= ibv_free_dm(dm) == 0;
	report("dm_alloc", pass, NULL);
}

static void check_copy(struct env *e)
{
	struct ibv_alloc_dm_attr a = { .length = 100 };
	struct ibv_dm *dm = ibv_alloc_dm(e->ctx, &a);
	uint8_t in[100], out[100] = { 0 };
	bool pass;

	if (dm == NULL) {
		report("dm_copy", 0, "alloc");
		return;
	}
	for (int i = 0; i < 100; i++)
		in[i] = (uint8_t)(i * 7 + 1);
	pass = ibv_memcpy_to_dm(dm, 8, in, 92) == 0 &&
	       ibv_memcpy_from_dm(out, dm, 8, 92) == 0 &&
	       memcmp(in, out, 92) == 0;
	pass &= ibv_memcpy_to_dm(dm, 3, in, 4) == EINVAL;
	pass &= ibv_memcpy_from_dm(out, dm, 4, 3) == EINVAL;
	pass &= ibv_memcpy_to_dm(dm, 104, in, 4) == EFAULT;
	pass &= ibv_memcpy_from_dm(out, dm, 0, 104) == EFAULT;
	ibv_free_dm(dm);
	report("dm_copy", pass, NULL);
}

static void check_rdma_and_busy(struct env *e)
{
	struct ibv_alloc_dm_attr a = { .length = DM_LEN };
	struct ibv_dm *dm = ibv_alloc_dm(e->ctx, &a);
	uint8_t back[512];
	struct ibv_mr *mr;
	bool pass;
	int st;

	mr = dm ? ibv_reg_dm_mr(e->pd, dm, 1024, 2048, DM_ACCESS) : NULL;
	if (mr == NULL) {
		report("dm_rdma", 0, "alloc or reg_dm_mr");
		return;
	}
	for (int i = 0; i < 512; i++)
		e->buf[i] = (uint8_t)(i ^ 0x5a);
	/* zero-based: address 256 of the MR is byte 1024 + 256 of the memory */
	st = rdma(e, IBV_WR_RDMA_WRITE, mr->rkey, 256, 512);
	pass = st == IBV_WC_SUCCESS &&
	       ibv_memcpy_from_dm(back, dm, 1280, 512) == 0 &&
	       memcmp(back, e->buf, 512) == 0;
	memset(e->buf, 0, 512);
	st = rdma(e, IBV_WR_RDMA_READ, mr->rkey, 256, 512);
	pass &= st == IBV_WC_SUCCESS && memcmp(back, e->buf, 512) == 0;
	/* the MR's last byte is 2047: 2040 + 16 is past it */
	st = rdma(e, IBV_WR_RDMA_WRITE, mr->rkey, 2040, 16);
	pass &= st == IBV_WC_REM_ACCESS_ERR;
	report("dm_rdma", pass, NULL);
	report("dm_busy", ibv_free_dm(dm) == EBUSY && ibv_dereg_mr(mr) == 0 &&
	       ibv_free_dm(dm) == 0, NULL);
}

static void check_empty_mr(struct env *e)
{
	struct ibv_alloc_dm_attr a = { .length = 64 };
	struct ibv_dm *dm = ibv_alloc_dm(e->ctx, &a);
	struct ibv_mr *mr;
	bool pass;

	if (dm == NULL || connect_pair(e)) {
		report("dm_empty_mr", 0, "setup");
		return;
	}
	mr = ibv_reg_dm_mr(e->pd, dm, 0, 0, DM_ACCESS);
	pass = mr != NULL &&
	       rdma(e, IBV_WR_RDMA_WRITE, mr->rkey, 0, 4) == IBV_WC_REM_ACCESS_ERR;
	errno = 0;
	pass &= ibv_reg_dm_mr(e->pd, dm, 0, 68, DM_ACCESS) == NULL &&
		errno == EINVAL;
	if (mr)
		ibv_dereg_mr(mr);
	ibv_free_dm(dm);
	report("dm_empty_mr", pass, NULL);
}

int main(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct env e = { 0 };

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!list || !list[0] || !(e.ctx = ibv_open_device(list[0]))) {
		printf("FAIL open device\n");
		return 1;
	}
	e.buf = aligned_alloc(4096, BUF_LEN);
	e.pd = ibv_alloc_pd(e.ctx);
	e.mr = e.pd ? ibv_reg_mr(e.pd, e.buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	e.cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	if (!e.buf || !e.mr || !e.cq || ibv_query_device_ex(e.ctx, NULL, &e.attr) ||
	    ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid) || connect_pair(&e)) {
		printf("FAIL setup\n");
		return 1;
	}
	check_alloc(&e);
	check_copy(&e);
	check_rdma_and_busy(&e);
	check_empty_mr(&e);
	ibv_destroy_qp(e.a);
	ibv_destroy_qp(e.b);
	ibv_destroy_cq(e.cq);
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	free(e.buf);
	printf(failures ? "%d failed\n" : "all ok\n", failures);
	return failures ? 1 : 0;
}
