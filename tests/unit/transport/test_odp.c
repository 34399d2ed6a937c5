/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_odp.c — on-demand (ODP) regions end to end on the simulated wire:
 * every RC operation and UD on memory never touched before, implicit
 * regions, and memory unmapped after registration on either side: the
 * local side completes with a local protection error, a remote access is
 * NAKed (remote access error at the requester; remote operational error
 * for a receive buffer), and the process lives on.
 */
#include <sys/mman.h>
#include <string.h>

#include "harness.h"
#include "sr_check.h"

#define P SR_PAGE_SIZE
#define ODP_PAGES 16
#define ALL_ODP (SR_ACCESS_LOCAL_WRITE | SR_ACCESS_REMOTE_READ | SR_ACCESS_REMOTE_WRITE | \
		 SR_ACCESS_REMOTE_ATOMIC | SR_ACCESS_ON_DEMAND)

/* The harness's buffer and MR of a node, while an ODP one stands in. */
struct saved {
	uint8_t *buf;
	struct sr_mr *mr;
	bool implicit;
};

static struct saved saved[2];

/* Node i's buffer becomes ODP_PAGES fresh pages in an ODP region (or its
 * own buffer under an implicit region). */
static void odp_swap(struct h_pair *p, int i, bool implicit)
{
	struct h_node *n = &p->n[i];

	saved[i] = (struct saved){ .buf = n->buf, .mr = n->mr, .implicit = implicit };
	if (implicit) {
		n->mr = sr_mr_reg_virt(n->pd, NULL, UINT64_MAX, 0, ALL_ODP);
	} else {
		void *m = mmap(NULL, ODP_PAGES * P, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ck_assert_ptr_ne(m, MAP_FAILED);
		n->buf = m;
		n->mr = sr_mr_reg_virt(n->pd, n->buf, ODP_PAGES * P,
				       (uint64_t)(uintptr_t)n->buf, ALL_ODP);
	}
	ck_assert_ptr_nonnull(n->mr);
	ck_assert(sr_mr_is_odp(n->mr));
}

static void odp_restore(struct h_pair *p, int i)
{
	struct h_node *n = &p->n[i];

	ck_assert_int_eq(sr_mr_dereg(n->mr), 0);
	if (!saved[i].implicit)
		ck_assert_int_eq(munmap(n->buf, ODP_PAGES * P), 0);
	n->buf = saved[i].buf;
	n->mr = saved[i].mr;
}

static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 29u + i * 13u + (i >> 9));
}

static void pair_up(struct h_pair *p, enum sr_qp_type type)
{
	struct h_opts o;

	ck_assert_msg(sr_mr_odp_supported(), "process_vm_readv or MADV_POPULATE_WRITE missing");
	h_default_opts(&o, type);
	h_pair_init(p, &o);
}

static int wait1(struct h_pair *p, struct sr_cq *cq, struct sr_wc *wc)
{
	return h_wait_cq(p, cq, wc, 1, 200000);
}

/* Every RC operation between two ODP regions on untouched memory. */
START_TEST(test_rc_traffic)
{
	struct h_pair p;
	struct sr_wc wc;
	uint64_t v;

	pair_up(&p, SR_QPT_RC);
	odp_swap(&p, 0, false);
	odp_swap(&p, 1, false);

	/* SEND over several pages into a receive buffer never touched */
	fill(p.n[0].buf, 9000, 1);
	ck_assert_int_eq(h_post_recv(&p, 1, 7, 3 * P + 5, 9000), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 9000, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wait1(&p, p.n[1].rcq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, 9000);
	ck_assert_mem_eq(p.n[1].buf + 3 * P + 5, p.n[0].buf, 9000);

	/* WRITE, then READ it back into fresh local pages */
	fill(p.n[0].buf + 6 * P, 7000, 2);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 2, 6 * P, 7000, 8 * P + 3,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf + 8 * P + 3, p.n[0].buf + 6 * P, 7000);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 3, 11 * P, 7000, 8 * P + 3,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[0].buf + 11 * P, p.n[0].buf + 6 * P, 7000);

	/* atomics on a word of a page never touched */
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_ATOMIC_FETCH_AND_ADD, 4, 15 * P, 8, 14 * P + 64,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	memcpy(&v, p.n[0].buf + 15 * P, 8);
	ck_assert_uint_eq(v, 0);
	memcpy(&v, p.n[1].buf + 14 * P + 64, 8);
	ck_assert_uint_eq(v, 0);   /* compare_add of h_post_send is 0 */
	h_settle(&p);
	odp_restore(&p, 0);
	odp_restore(&p, 1);
	h_pair_fini(&p);
}
END_TEST

/* Implicit regions: the harness's own buffers, reached by one key each. */
START_TEST(test_implicit)
{
	struct h_pair p;
	struct sr_wc wc;

	pair_up(&p, SR_QPT_RC);
	odp_swap(&p, 0, true);
	odp_swap(&p, 1, true);
	fill(p.n[0].buf, 5000, 3);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 5000, 20000,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf + 20000, p.n[0].buf, 5000);
	ck_assert_int_eq(h_post_recv(&p, 1, 9, 40000, 5000), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 5000, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wait1(&p, p.n[1].rcq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf + 40000, p.n[0].buf, 5000);
	h_settle(&p);
	odp_restore(&p, 0);
	odp_restore(&p, 1);
	h_pair_fini(&p);
}
END_TEST

/*
 * One page unmapped after registration, on the requester's side or the
 * responder's; what each side's CQ says.  Offsets are pages of the ODP
 * buffers; the unmapped page is page 4.
 */
struct hole_case {
	const char *name;
	enum sr_wr_opcode op;
	int hole;                 /* node whose page 4 is unmapped */
	bool implicit;            /* the holed node's region is implicit */
	uint32_t off, len, roff;  /* bytes, from node 0's / node 1's buffer */
	bool recv;                /* node 1 posts a receive at roff */
	enum sr_wc_status want0;  /* node 0's send completion */
	enum sr_wc_status want1;  /* node 1's receive completion, if recv */
};

static const struct hole_case holes[] = {
	{ "remote WRITE into the hole", SR_WR_RDMA_WRITE, 1, false, 0, 100, 4 * P + 8, false,
	  SR_WC_REM_ACCESS_ERR, 0 },
	{ "remote WRITE running into the hole", SR_WR_RDMA_WRITE, 1, false, 0, 3000, 4 * P - 1000,
	  false, SR_WC_REM_ACCESS_ERR, 0 },
	{ "remote READ of the hole", SR_WR_RDMA_READ, 1, false, 0, 2000, 4 * P, false,
	  SR_WC_REM_ACCESS_ERR, 0 },
	{ "remote READ, 2nd response in the hole", SR_WR_RDMA_READ, 1, false, 0, 2 * P,
	  3 * P, false, SR_WC_REM_ACCESS_ERR, 0 },
	{ "remote FETCH_ADD in the hole", SR_WR_ATOMIC_FETCH_AND_ADD, 1, false, 0, 8, 4 * P + 64,
	  false, SR_WC_REM_ACCESS_ERR, 0 },
	{ "remote CMP_SWAP in the hole", SR_WR_ATOMIC_CMP_AND_SWP, 1, false, 0, 8, 4 * P + 64,
	  false, SR_WC_REM_ACCESS_ERR, 0 },
	{ "SEND into a receive buffer in the hole", SR_WR_SEND, 1, false, 0, 500, 4 * P + 8, true,
	  SR_WC_REM_OP_ERR, SR_WC_LOC_PROT_ERR },
	{ "SEND from the hole", SR_WR_SEND, 0, false, 4 * P, 500, 0, true,
	  SR_WC_LOC_PROT_ERR, 0 },
	{ "WRITE from the hole", SR_WR_RDMA_WRITE, 0, false, 3 * P + 10, 2 * P, 0, false,
	  SR_WC_LOC_PROT_ERR, 0 },
	{ "READ into the hole", SR_WR_RDMA_READ, 0, false, 4 * P, 100, 0, false,
	  SR_WC_LOC_PROT_ERR, 0 },
	{ "atomic result into the hole", SR_WR_ATOMIC_FETCH_AND_ADD, 0, false, 4 * P, 8, 64,
	  false, SR_WC_LOC_PROT_ERR, 0 },
	{ "implicit: remote WRITE to an unmapped address", SR_WR_RDMA_WRITE, 1, true, 0, 64,
	  4 * P, false, SR_WC_REM_ACCESS_ERR, 0 },
	{ "implicit: SEND from an unmapped address", SR_WR_SEND, 0, true, 4 * P, 64, 0, true,
	  SR_WC_LOC_PROT_ERR, 0 },
};
#define N_HOLES (sizeof(holes) / sizeof(holes[0]))

START_TEST(test_hole)
{
	const struct hole_case *c = &holes[_i];
	int h = c->hole, o = 1 - c->hole;
	uint8_t *area = NULL;
	struct h_pair p;
	struct sr_wc wc;

	pair_up(&p, SR_QPT_RC);
	odp_swap(&p, o, false);
	if (c->implicit) {
		/* the holed node's "buffer" is a private mapping under its
		 * implicit region */
		area = mmap(NULL, ODP_PAGES * P, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ck_assert_ptr_ne(area, MAP_FAILED);
		odp_swap(&p, h, true);
		p.n[h].buf = area;
	} else {
		odp_swap(&p, h, false);
	}
	memset(p.n[h].buf, 0x11, ODP_PAGES * P);
	ck_assert_int_eq(munmap(p.n[h].buf + 4 * P, P), 0);

	if (c->recv)
		ck_assert_int_eq(h_post_recv(&p, 1, 77, c->roff, c->len), 0);
	ck_assert_int_eq(h_post_send(&p, 0, c->op, 1, c->off, c->len, c->roff, SR_SEND_SIGNALED),
			 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_msg(wc.status == c->want0, "%s: node 0 status %d, expected %d", c->name,
		      wc.status, c->want0);
	ck_assert_uint_eq(wc.wr_id, 1);
	if (c->want1 != 0) {
		ck_assert_int_eq(wait1(&p, p.n[1].rcq, &wc), 1);
		ck_assert_msg(wc.status == c->want1, "%s: node 1 status %d, expected %d", c->name,
			      wc.status, c->want1);
	}
	/* the process is alive and the pages around the hole untouched */
	ck_assert_uint_eq(p.n[h].buf[3 * P + 7], 0x11);
	ck_assert_uint_eq(p.n[h].buf[5 * P], 0x11);
	h_settle(&p);
	if (c->implicit) {
		p.n[h].buf = saved[h].buf;
		ck_assert_int_eq(munmap(area, 4 * P), 0);
		ck_assert_int_eq(munmap(area + 5 * P, (ODP_PAGES - 5) * P), 0);
	} else {
		/* munmap of the whole range skips the hole */
	}
	odp_restore(&p, 0);
	odp_restore(&p, 1);
	h_pair_fini(&p);
}
END_TEST

/* UD: send from and receive into ODP regions; a receive buffer in a hole. */
START_TEST(test_ud)
{
	struct h_pair p;
	struct sr_wc wc;

	pair_up(&p, SR_QPT_UD);
	odp_swap(&p, 0, false);
	odp_swap(&p, 1, false);
	fill(p.n[0].buf + P, 800, 4);
	ck_assert_int_eq(h_post_recv(&p, 1, 5, 2 * P, 40 + 800), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, P, 800, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_int_eq(wait1(&p, p.n[1].rcq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[1].buf + 2 * P + 40, p.n[0].buf + P, 800);

	ck_assert_int_eq(munmap(p.n[1].buf + 4 * P, P), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 6, 4 * P, 40 + 800), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, P, 800, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(wait1(&p, p.n[0].scq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);   /* UD: the sender never knows */
	ck_assert_int_eq(wait1(&p, p.n[1].rcq, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_LOC_PROT_ERR);
	h_settle(&p);
	odp_restore(&p, 0);
	odp_restore(&p, 1);
	h_pair_fini(&p);
}
END_TEST

static Suite *odp_suite(void)
{
	Suite *s = suite_create("transport_odp");
	TCase *tc = tcase_create("odp");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rc_traffic);
	tcase_add_test(tc, test_implicit);
	tcase_add_loop_test(tc, test_hole, 0, N_HOLES);
	tcase_add_test(tc, test_ud);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(odp_suite)
