/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * odp.c — on-demand paging through the drop-in libibverbs, in one process
 * on its own default link (two RC QPs of one context, same-process
 * loopback), each check as a program (or rdma-core's test_odp) does it:
 *   caps         ibv_query_device_ex: odp_caps.general_caps SUPPORT and
 *                SUPPORT_IMPLICIT; RC SEND, RECV, WRITE, READ, ATOMIC,
 *                SRQ_RECV; UD SEND, RECV; XRC the RC ones but RECV (an XRC
 *                QP has no receive queue); UC nothing
 *   reg_mr       IBV_ACCESS_ON_DEMAND taken by ibv_reg_mr, ibv_reg_mr_iova
 *                and ibv_rereg_mr (keys kept); a QP's access flags with
 *                ON_DEMAND (test_odp's RDMA resources pass them); a
 *                re-registration to address NULL is IBV_REREG_MR_ERR_INPUT
 *   traffic      SEND, WRITE, READ, FETCH_ADD between two ODP regions on
 *                pages never touched, bytes checked
 *   implicit     ibv_reg_mr(pd, NULL, SIZE_MAX, ON_DEMAND...): one lkey
 *                and rkey for buffers anywhere (heap, stack), traffic
 *   unmapped     a page of the target's ODP region unmapped after
 *                registration: WRITE and READ complete with
 *                IBV_WC_REM_ACCESS_ERR, a SEND from a hole with
 *                IBV_WC_LOC_PROT_ERR; the process lives on
 *   advise       ibv_advise_mr: PREFETCH, PREFETCH_WRITE (FLUSH: the pages
 *                become resident), NO_FAULT, implicit; EOPNOTSUPP for an
 *                unknown advice, EINVAL for unknown flags, no SGE, a bad
 *                lkey, a region that is not ODP; EPERM for PREFETCH_WRITE
 *                on a region without local write; EFAULT for a range
 *                outside the region and, with FLUSH, for unmapped memory
 * Exit 0 when all pass; each check prints one line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "report.h"

#define GID_INDEX 1
#define PG 4096
#define NPG 8
#define ODP_ALL (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_ON_DEMAND)

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	union ibv_gid gid;
};

/* Two connected RC QPs, a CQ each. */
struct pair {
	struct ibv_cq *cq, *cqb;
	struct ibv_qp *a, *b;
};

/* The completion of wr_id (others are skipped), for up to 5 s; 1 when got. */
static int wait_wr(struct ibv_cq *cq, uint64_t id, struct ibv_wc *wc)
{
	double end = now_s() + 5;

	do {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return 0;
		if (n == 1 && wc->wr_id == id)
			return 1;
	} while (now_s() < end);
	return 0;
}

static uint8_t *map_pages(void)
{
	void *p = mmap(NULL, NPG * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static int rc_up(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	return loop_qp_up(qp, &e->gid, GID_INDEX, dqpn, ODP_ALL, 4, true, true);
}

static int pair_up(struct env *e, struct pair *p)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC, .sq_sig_all = 1,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	memset(p, 0, sizeof(*p));
	p->cq = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	p->cqb = ibv_create_cq(e->ctx, 64, NULL, NULL, 0);
	if (p->cq == NULL || p->cqb == NULL)
		return -1;
	ia.send_cq = ia.recv_cq = p->cq;
	p->a = ibv_create_qp(e->pd, &ia);
	ia.send_cq = ia.recv_cq = p->cqb;
	p->b = ibv_create_qp(e->pd, &ia);
	if (p->a == NULL || p->b == NULL)
		return -1;
	return rc_up(e, p->a, p->b->qp_num) || rc_up(e, p->b, p->a->qp_num) ? -1 : 0;
}

static void pair_down(struct pair *p)
{
	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	if (p->cq)
		ibv_destroy_cq(p->cq);
	if (p->cqb)
		ibv_destroy_cq(p->cqb);
	memset(p, 0, sizeof(*p));
}

/* Post one work request from a; its completion status (-1: none). */
static int run_op(struct pair *p, enum ibv_wr_opcode op, uint64_t id, void *laddr,
		  uint32_t len, uint32_t lkey, void *raddr, uint32_t rkey)
{
	struct ibv_sge sg = { .addr = (uintptr_t)laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = (uintptr_t)raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = 5;
	} else {
		wr.wr.rdma.remote_addr = (uintptr_t)raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(p->a, &wr, &bad))
		return -1;
	return wait_wr(p->cq, id, &wc) ? (int)wc.status : -1;
}

static int post_recv(struct pair *p, uint64_t id, void *addr, uint32_t len, uint32_t lkey)
{
	struct ibv_sge sg = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sg, .num_sge = 1 }, *bad;

	return ibv_post_recv(p->b, &wr, &bad);
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 31u + i * 7u + (i >> 10));
}

static void check_caps(struct env *e)
{
	struct ibv_device_attr_ex a;
	const uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
			    IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC |
			    IBV_ODP_SUPPORT_SRQ_RECV;
	const char *why = NULL;

	memset(&a, 0xff, sizeof(a));
	if (ibv_query_device_ex(e->ctx, NULL, &a))
		why = "ibv_query_device_ex failed";
	else if (a.odp_caps.general_caps != (IBV_ODP_SUPPORT | IBV_ODP_SUPPORT_IMPLICIT))
		why = "general_caps is not SUPPORT | SUPPORT_IMPLICIT";
	else if (a.odp_caps.per_transport_caps.rc_odp_caps != rc)
		why = "rc_odp_caps";
	else if (a.odp_caps.per_transport_caps.ud_odp_caps !=
		 (IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV))
		why = "ud_odp_caps";
	else if (a.xrc_odp_caps != (rc & ~(uint32_t)IBV_ODP_SUPPORT_RECV))
		why = "xrc_odp_caps";
	else if (a.odp_caps.per_transport_caps.uc_odp_caps != 0)
		why = "UC caps claimed";
	report("caps", why == NULL, why);
}

static void check_reg_mr(struct env *e)
{
	uint8_t *buf = map_pages();
	struct ibv_mr *mr = buf ? ibv_reg_mr(e->pd, buf, NPG * PG, ODP_ALL) : NULL;
	struct ibv_mr *mi = buf ? ibv_reg_mr_iova(e->pd, buf, PG, 0x10000,
						  IBV_ACCESS_LOCAL_WRITE |
						  IBV_ACCESS_ON_DEMAND) : NULL;
	const char *why = NULL;
	uint32_t lkey;

	if (mr == NULL || mi == NULL) {
		why = "ibv_reg_mr / ibv_reg_mr_iova with IBV_ACCESS_ON_DEMAND refused";
		goto out;
	}
	lkey = mr->lkey;
	if (ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) ||
	    ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, ODP_ALL) ||
	    mr->lkey != lkey)
		why = "ibv_rereg_mr out of and back into ON_DEMAND";
	else if (ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, NULL, SIZE_MAX, 0) !=
		 IBV_REREG_MR_ERR_INPUT || errno != EINVAL)
		why = "ibv_rereg_mr to address NULL taken";
out:
	report("reg_mr", why == NULL, why);
	if (mi)
		ibv_dereg_mr(mi);
	if (mr)
		ibv_dereg_mr(mr);
	if (buf)
		munmap(buf, NPG * PG);
}

static void check_traffic(struct env *e)
{
	uint8_t *la = map_pages(), *rb = map_pages();
	struct ibv_mr *ml = la ? ibv_reg_mr(e->pd, la, NPG * PG, ODP_ALL) : NULL;
	struct ibv_mr *mr = rb ? ibv_reg_mr(e->pd, rb, NPG * PG, ODP_ALL) : NULL;
	struct pair p = { 0 };
	struct ibv_wc wc;
	const char *why = NULL;
	uint64_t v = 0;

	if (ml == NULL || mr == NULL || pair_up(e, &p)) {
		why = "setup";
		goto out;
	}
	fill(la, 6000, 1);
	if (post_recv(&p, 100, rb + PG + 3, 6000, mr->lkey) ||
	    run_op(&p, IBV_WR_SEND, 1, la, 6000, ml->lkey, NULL, 0) != IBV_WC_SUCCESS ||
	    !wait_wr(p.cqb, 100, &wc) || wc.status != IBV_WC_SUCCESS || wc.byte_len != 6000 ||
	    memcmp(rb + PG + 3, la, 6000) != 0)
		why = "SEND";
	else if (fill(la + 3 * PG, 5000, 2),
		 run_op(&p, IBV_WR_RDMA_WRITE, 2, la + 3 * PG, 5000, ml->lkey, rb + 4 * PG + 1,
			mr->rkey) != IBV_WC_SUCCESS ||
		 memcmp(rb + 4 * PG + 1, la + 3 * PG, 5000) != 0)
		why = "RDMA WRITE";
	else if (run_op(&p, IBV_WR_RDMA_READ, 3, la + 6 * PG, 5000, ml->lkey, rb + 4 * PG + 1,
			mr->rkey) != IBV_WC_SUCCESS ||
		 memcmp(la + 6 * PG, la + 3 * PG, 5000) != 0)
		why = "RDMA READ";
	else if (run_op(&p, IBV_WR_ATOMIC_FETCH_AND_ADD, 4, la + 7 * PG, 8, ml->lkey,
			rb + 7 * PG + 64, mr->rkey) != IBV_WC_SUCCESS ||
		 (memcpy(&v, rb + 7 * PG + 64, 8), v != 5))
		why = "FETCH_ADD";
out:
	report("traffic", why == NULL, why);
	pair_down(&p);
	if (ml)
		ibv_dereg_mr(ml);
	if (mr)
		ibv_dereg_mr(mr);
	if (la)
		munmap(la, NPG * PG);
	if (rb)
		munmap(rb, NPG * PG);
}

static void check_implicit(struct env *e)
{
	struct ibv_mr *imp = ibv_reg_mr(e->pd, NULL, SIZE_MAX, ODP_ALL);
	uint8_t *heap = malloc(3 * PG);
	uint8_t stack[256];
	struct pair p = { 0 };
	const char *why = NULL;

	if (imp == NULL || heap == NULL || imp->length != SIZE_MAX || pair_up(e, &p)) {
		why = imp == NULL ? "implicit registration refused" : "setup";
		goto out;
	}
	fill(heap, 3 * PG, 3);
	if (run_op(&p, IBV_WR_RDMA_WRITE, 1, heap, 3000, imp->lkey, heap + PG + 9,
		   imp->rkey) != IBV_WC_SUCCESS || memcmp(heap + PG + 9, heap, 3000) != 0)
		why = "WRITE heap to heap";
	else if (run_op(&p, IBV_WR_RDMA_READ, 2, stack, sizeof(stack), imp->lkey, heap,
			imp->rkey) != IBV_WC_SUCCESS || memcmp(stack, heap, sizeof(stack)) != 0)
		why = "READ heap into the stack";
out:
	report("implicit", why == NULL, why);
	pair_down(&p);
	if (imp)
		ibv_dereg_mr(imp);
	free(heap);
}

static void check_unmapped(struct env *e)
{
	uint8_t *la = map_pages(), *rb = map_pages();
	struct ibv_mr *ml = la ? ibv_reg_mr(e->pd, la, NPG * PG, ODP_ALL) : NULL;
	struct ibv_mr *mr = rb ? ibv_reg_mr(e->pd, rb, NPG * PG, ODP_ALL) : NULL;
	char msg[96];
	const char *why = NULL;
	struct pair p = { 0 };
	int st = -1;

	if (ml == NULL || mr == NULL || munmap(rb + 2 * PG, PG) || munmap(la + 5 * PG, PG)) {
		why = "setup";
		goto out;
	}
	if (pair_up(e, &p) ||
	    (st = run_op(&p, IBV_WR_RDMA_WRITE, 1, la, 100, ml->lkey, rb + 2 * PG + 4,
			 mr->rkey)) != IBV_WC_REM_ACCESS_ERR) {
		snprintf(msg, sizeof(msg), "WRITE into an unmapped page: status %d", st);
		why = msg;
	}
	pair_down(&p);
	if (why == NULL &&
	    (pair_up(e, &p) ||
	     (st = run_op(&p, IBV_WR_RDMA_READ, 2, la, 3000, ml->lkey, rb + PG + 2000,
			  mr->rkey)) != IBV_WC_REM_ACCESS_ERR)) {
		snprintf(msg, sizeof(msg), "READ of an unmapped page: status %d", st);
		why = msg;
	}
	pair_down(&p);
	if (why == NULL &&
	    (pair_up(e, &p) || post_recv(&p, 100, rb, 64, mr->lkey) ||
	     (st = run_op(&p, IBV_WR_SEND, 3, la + 5 * PG, 64, ml->lkey, NULL, 0)) !=
		     IBV_WC_LOC_PROT_ERR)) {
		snprintf(msg, sizeof(msg), "SEND from an unmapped page: status %d", st);
		why = msg;
	}
	pair_down(&p);
out:
	report("unmapped", why == NULL, why);
	if (ml)
		ibv_dereg_mr(ml);
	if (mr)
		ibv_dereg_mr(mr);
	if (la)
		munmap(la, NPG * PG);
	if (rb)
		munmap(rb, NPG * PG);
}

static unsigned resident(const uint8_t *p, unsigned n)
{
	unsigned char v[NPG];
	unsigned in = 0;

	if (mincore((void *)(uintptr_t)p, (size_t)n * PG, v))
		return 0;
	for (unsigned i = 0; i < n; i++)
		in += v[i] & 1;
	return in;
}

static void check_advise(struct env *e)
{
	uint8_t *buf = map_pages(), *plain = malloc(PG);
	struct ibv_mr *mr = buf ? ibv_reg_mr(e->pd, buf, NPG * PG, ODP_ALL) : NULL;
	struct ibv_mr *ro = buf ? ibv_reg_mr(e->pd, buf, NPG * PG, IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_ON_DEMAND) : NULL;
	struct ibv_mr *nm = plain ? ibv_reg_mr(e->pd, plain, PG, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_mr *imp = ibv_reg_mr(e->pd, NULL, SIZE_MAX, IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_ON_DEMAND);
	struct ibv_sge sg = { 0 };
	char msg[96];
	const char *why = NULL;
	int rc;

	if (mr == NULL || ro == NULL || nm == NULL || imp == NULL) {
		why = "setup";
		goto out;
	}
#define SG(a, l, k) (sg = (struct ibv_sge){ .addr = (uintptr_t)(a), .length = (l), .lkey = (k) })
#define EXPECT(what, call, want)                                                          \
	do {                                                                              \
		if (why == NULL && (rc = (call)) != (want)) {                             \
			snprintf(msg, sizeof(msg), "%s: %d, expected %d", what, rc, want); \
			why = msg;                                                        \
		}                                                                         \
	} while (0)
	SG(buf, 2 * PG, mr->lkey);
	EXPECT("NO_FAULT", ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, 0, &sg, 1),
	       0);
	EXPECT("pages resident before a prefetch", (int)resident(buf, NPG), 0);
	EXPECT("PREFETCH_WRITE, FLUSH",
	       ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			     IBV_ADVISE_MR_FLAG_FLUSH, &sg, 1), 0);
	EXPECT("pages resident after PREFETCH_WRITE", (int)resident(buf, NPG), 2);
	SG(buf + 4 * PG, PG, imp->lkey);
	EXPECT("PREFETCH, implicit", ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1),
	       0);
	SG(buf, 8, mr->lkey);
	EXPECT("unknown advice", ibv_advise_mr(e->pd, (enum ibv_advise_mr_advice)7, 0, &sg, 1),
	       EOPNOTSUPP);
	EXPECT("unknown flags", ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 2, &sg, 1),
	       EINVAL);
	EXPECT("no SGE", ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 0), EINVAL);
	SG(buf, 8, mr->lkey ^ 0x80);
	EXPECT("bad lkey", ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1), EINVAL);
	SG(plain, 8, nm->lkey);
	EXPECT("region not ODP", ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1),
	       EINVAL);
	SG(buf, 8, ro->lkey);
	EXPECT("PREFETCH_WRITE without local write",
	       ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, 0, &sg, 1), EPERM);
	SG(buf + NPG * PG - 4, 8, mr->lkey);
	EXPECT("range outside the region",
	       ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1), EFAULT);
	if (why == NULL && munmap(buf + 6 * PG, PG) != 0)
		why = "munmap";
	SG(buf + 5 * PG, 2 * PG, mr->lkey);
	EXPECT("unmapped, FLUSH", ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
						IBV_ADVISE_MR_FLAG_FLUSH, &sg, 1), EFAULT);
	EXPECT("unmapped, asynchronous",
	       ibv_advise_mr(e->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sg, 1), 0);
#undef EXPECT
#undef SG
out:
	report("advise", why == NULL, why);
	if (imp)
		ibv_dereg_mr(imp);
	if (nm)
		ibv_dereg_mr(nm);
	if (ro)
		ibv_dereg_mr(ro);
	if (mr)
		ibv_dereg_mr(mr);
	if (buf)
		munmap(buf, NPG * PG);
	free(plain);
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
	e.pd = ibv_alloc_pd(e.ctx);
	if (!e.pd || ibv_query_gid(e.ctx, 1, GID_INDEX, &e.gid)) {
		printf("FAIL setup\n");
		return 1;
	}
	check_caps(&e);
	check_reg_mr(&e);
	check_traffic(&e);
	check_implicit(&e);
	check_unmapped(&e);
	check_advise(&e);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	printf("%s\n", failures ? "FAILED" : "all ok");
	return failures ? 1 : 0;
}
