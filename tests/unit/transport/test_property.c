/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_property.c — random workloads on a lossy simulated wire.
 *
 * Each case is one seed: QP type, path MTU, loss (0 %, 1 %, 10 %) with
 * duplication, reordering and corruption, and a random mix of every
 * operation with sizes from 0 to 1 MiB.  It checks that every byte lands
 * where it should, every completion arrives once, in order, with the right
 * status, opcode and length, that nothing hangs (bounded steps) and that
 * nothing leaks (harness teardown).  A failure prints its seed:
 *   SR_PROP_SEED=<seed> ./test_transport_property    replays one case
 *   SR_PROP_SOAK=<n>                                 runs n times more
 *   SR_PROP_ITERS=<n>                                cases per loop
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "sr_check.h"

#define AREA      (3u << 20)
#define SRC       0u                 /* node 0: source of SEND/WRITE */
#define RDST      (AREA)             /* node 0: READ destination */
#define ARES      (2 * AREA)         /* node 0: atomic results */
#define DST       0u                 /* node 1: SEND/WRITE destination */
#define RSRC      (AREA)             /* node 1: READ source */
#define ATGT      (2 * AREA)         /* node 1: atomic targets */
#define BUFLEN    (2 * AREA + (1u << 16))
#define MAX_OPS   48

struct pop {
	enum sr_wr_opcode op;
	uint32_t len, loff, roff;
	bool sig;
	bool consumes;
	uint32_t imm;
	uint64_t init, cmp, swap;
};

struct prop {
	uint64_t seed, rng;
	struct pop op[MAX_OPS];
	int nops;
};

static uint64_t prng(struct prop *c)
{
	uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint32_t pick_len(struct prop *c, uint32_t room)
{
	uint32_t r = (uint32_t)(prng(c) % 100), len;

	if (r < 10)
		len = 0;
	else if (r < 70)
		len = (uint32_t)(prng(c) % 4097);
	else if (r < 95)
		len = (uint32_t)(prng(c) % 65537);
	else
		len = (uint32_t)(prng(c) % ((1u << 20) + 1));
	return len < room ? len : room;
}

/* Bytes left in an area, keeping a guard for the gaps. */
static uint32_t room(uint32_t used)
{
	return used + 16 >= AREA ? 0 : AREA - 16 - used;
}

static const enum sr_wr_opcode rc_ops[] = {
	SR_WR_SEND, SR_WR_SEND_WITH_IMM, SR_WR_RDMA_WRITE,
	SR_WR_RDMA_WRITE_WITH_IMM, SR_WR_RDMA_READ, SR_WR_ATOMIC_CMP_AND_SWP,
	SR_WR_ATOMIC_FETCH_AND_ADD, SR_WR_ATOMIC_WRITE, SR_WR_FLUSH,
};

static void gen(struct prop *c, struct h_pair *p)
{
	uint32_t src = 0, rdst = 0, dst = 0, rsrc = 0, at = 0;
	int i;

	c->nops = 8 + (int)(prng(c) % (MAX_OPS - 8));
	for (i = 0; i < c->nops; i++) {
		struct pop *o = &c->op[i];

		memset(o, 0, sizeof(*o));
		o->op = rc_ops[prng(c) % (sizeof(rc_ops) / sizeof(rc_ops[0]))];
		o->sig = (prng(c) & 3) != 0 || i == c->nops - 1;
		o->imm = (uint32_t)prng(c);
		switch (o->op) {
		case SR_WR_SEND:
		case SR_WR_SEND_WITH_IMM:
		case SR_WR_RDMA_WRITE:
		case SR_WR_RDMA_WRITE_WITH_IMM:
			o->len = pick_len(c, room(src > dst ? src : dst));
			o->loff = SRC + src;
			o->roff = DST + dst;
			src += o->len;
			dst += o->len + 8;   /* a gap that must stay untouched */
			if (dst > AREA - 16)
				dst = AREA - 16;  /* full: zero-length ops share the end */
			o->consumes = o->op != SR_WR_RDMA_WRITE;
			break;
		case SR_WR_RDMA_READ:
			o->len = pick_len(c, room(rdst > rsrc ? rdst : rsrc));
			o->loff = RDST + rdst;
			o->roff = RSRC + rsrc;
			rdst += o->len + 8;
			rsrc += o->len;
			if (rdst > AREA - 16)
				rdst = AREA - 16;
			break;
		case SR_WR_FLUSH:
			o->len = (uint32_t)(prng(c) % 4096);
			o->roff = RSRC;
			break;
		default:
			o->len = 8;
			o->loff = ARES + at;
			o->roff = ATGT + at;
			at += 8;
			o->init = prng(c);
			o->swap = prng(c);
			o->cmp = (prng(c) & 1) ? o->init : prng(c);
			memcpy(p->n[1].buf + o->roff, &o->init, 8);
			break;
		}
	}
}

static void post_all(struct prop *c, struct h_pair *p)
{
	struct h_node *n0 = &p->n[0], *n1 = &p->n[1];
	int i;

	for (i = 0; i < c->nops; i++) {
		struct pop *o = &c->op[i];
		struct sr_sge sge = {
			.addr = (uint64_t)(uintptr_t)(n0->buf + o->loff),
			.length = o->len, .lkey = sr_mr_lkey(n0->mr),
		};
		struct sr_send_wr wr = {
			.wr_id = (uint64_t)i, .sg_list = &sge,
			.num_sge = o->op == SR_WR_FLUSH ? 0 : 1,
			.opcode = o->op,
			.send_flags = o->sig ? SR_SEND_SIGNALED : 0,
			.imm_data = o->imm,
		};
		const struct sr_send_wr *bad;
		uint64_t raddr = (uint64_t)(uintptr_t)(n1->buf + o->roff);

		if (o->consumes) {
			struct sr_sge rs = {
				.addr = (uint64_t)(uintptr_t)(n1->buf + o->roff),
				.length = o->len + 8, .lkey = sr_mr_lkey(n1->mr),
			};
			struct sr_recv_wr rw = {
				.wr_id = (uint64_t)i, .sg_list = &rs,
				.num_sge = o->op == SR_WR_RDMA_WRITE_WITH_IMM ? 0 : 1,
			};
			const struct sr_recv_wr *rbad;

			if (o->op != SR_WR_RDMA_WRITE_WITH_IMM || (i & 1)) {
				/* WRITE_WITH_IMM: any receive buffer will do */
				rw.num_sge = 1;
			}
			ck_assert_int_eq(sr_qp_post_recv(n1->qp, &rw, &rbad), 0);
		}
		switch (o->op) {
		case SR_WR_ATOMIC_CMP_AND_SWP:
		case SR_WR_ATOMIC_FETCH_AND_ADD:
			wr.wr.atomic.remote_addr = raddr;
			wr.wr.atomic.rkey = sr_mr_rkey(n1->mr);
			wr.wr.atomic.compare_add = o->op == SR_WR_ATOMIC_CMP_AND_SWP
						   ? o->cmp : o->swap;
			wr.wr.atomic.swap = o->swap;
			break;
		case SR_WR_ATOMIC_WRITE:
			wr.wr.atomic_write.remote_addr = raddr;
			wr.wr.atomic_write.rkey = sr_mr_rkey(n1->mr);
			memcpy(wr.wr.atomic_write.data, &o->swap, 8);
			break;
		case SR_WR_FLUSH:
			wr.wr.flush.remote_addr = raddr;
			wr.wr.flush.rkey = sr_mr_rkey(n1->mr);
			wr.wr.flush.length = o->len;
			wr.wr.flush.type = SR_FLUSH_GLOBAL;
			wr.wr.flush.level = SR_FLUSH_RANGE;
			break;
		default:
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = sr_mr_rkey(n1->mr);
			break;
		}
		ck_assert_int_eq(sr_qp_post_send(n0->qp, &wr, &bad), 0);
	}
}

static enum sr_wc_opcode wc_op(enum sr_wr_opcode op)
{
	switch (op) {
	case SR_WR_RDMA_WRITE:
	case SR_WR_RDMA_WRITE_WITH_IMM:
		return SR_WC_OP_RDMA_WRITE;
	case SR_WR_RDMA_READ:
		return SR_WC_OP_RDMA_READ;
	case SR_WR_ATOMIC_CMP_AND_SWP:
		return SR_WC_OP_COMP_SWAP;
	case SR_WR_ATOMIC_FETCH_AND_ADD:
		return SR_WC_OP_FETCH_ADD;
	case SR_WR_ATOMIC_WRITE:
		return SR_WC_OP_ATOMIC_WRITE;
	case SR_WR_FLUSH:
		return SR_WC_OP_FLUSH;
	default:
		return SR_WC_OP_SEND;
	}
}

/*
 * IBTA allows retry_cnt (at most 7) to run out: at 10 % loss a READ resumed
 * many times can lose its request or first response 8 times in a row.
 * Such a case must end with RETRY_EXC_ERR and flushes, and be rare.
 */
static unsigned int exhausted_cases;
static uint64_t by_ref_frames;   /* sent with the payload by reference */

static bool run_rc_case(uint64_t seed)
{
	static const uint32_t loss[] = { 0, 10000, 100000 };
	struct prop c = { .seed = seed, .rng = seed };
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc[64];
	int i, nsig = 0, ncons = 0, got_s = 0, got_r = 0;
	int next_s = 0, next_r = 0;
	uint64_t steps;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = (enum sr_mtu)(SR_MTU_256 + prng(&c) % 5);
	o.buflen = BUFLEN;
	o.sq = MAX_OPS;
	o.rq = MAX_OPS;
	o.cqe = 4 * MAX_OPS;
	o.timeout = 8;             /* ~1 ms */
	o.max_rd = (uint8_t)(1 + prng(&c) % 4);
	/* as a CM would: the responder answers at least what is sent */
	o.max_dest_rd = (uint8_t)(o.max_rd + prng(&c) % 3);
	o.psn0 = (uint32_t)(prng(&c) & 0xffffff);
	o.psn1 = (uint32_t)(prng(&c) & 0xffffff);
	o.sim.seed = seed;
	o.sim.loss_ppm = loss[prng(&c) % 3];
	o.sim.dup_ppm = o.sim.loss_ppm;
	o.sim.reorder_ppm = o.sim.loss_ppm;
	/* payloads by reference (link.h tx_alloc_ref): a third of the cases
	 * on both nodes from any size, a third on node 0 from 512 bytes */
	o.tx_ref_min[0] = seed % 3 == 1 ? 1 : seed % 3 == 2 ? 512 : 0;
	o.tx_ref_min[1] = seed % 3 == 1 ? 1 : 0;
	o.sim.corrupt_ppm = o.sim.loss_ppm / 10;
	o.sim.delay_ns = 2000;
	o.sim.jitter_ns = 500;
	h_pair_init(&p, &o);
	for (i = 0; i < (int)AREA; i += 8) {
		uint64_t a = prng(&c), b = prng(&c);

		memcpy(p.n[0].buf + SRC + i, &a, 8);
		memcpy(p.n[1].buf + RSRC + i, &b, 8);
	}
	gen(&c, &p);
	for (i = 0; i < c.nops; i++) {
		nsig += c.op[i].sig;
		ncons += c.op[i].consumes;
	}
	post_all(&c, &p);

	for (steps = 0; steps < 20000000 && (got_s < nsig || got_r < ncons);
	     steps++) {
		int k, n;

		n = sr_cq_poll(p.n[0].scq, 64, wc);
		for (k = 0; k < n; k++, got_s++) {
			if (wc[k].status == SR_WC_RETRY_EXC_ERR &&
			    o.sim.loss_ppm >= 100000) {
				printf("seed %llu: retry_cnt exhausted at 10%% loss "
				       "(allowed, counted)\n", (unsigned long long)seed);
				exhausted_cases++;
				h_settle(&p);
				while (sr_cq_poll(p.n[0].scq, 64, wc) > 0 ||
				       sr_cq_poll(p.n[1].rcq, 64, wc) > 0)
					;
				h_pair_fini(&p);
				return false;
			}
			while (next_s < c.nops && !c.op[next_s].sig)
				next_s++;
			ck_assert_msg(next_s < c.nops && wc[k].wr_id == (uint64_t)next_s,
				      "seed %llu: send completion %llu, expected %d",
				      (unsigned long long)seed,
				      (unsigned long long)wc[k].wr_id, next_s);
			ck_assert_msg(wc[k].status == SR_WC_SUCCESS,
				      "seed %llu: op %d (%s len %u) status %s",
				      (unsigned long long)seed, next_s,
				      sr_wr_opcode_str(c.op[next_s].op),
				      c.op[next_s].len,
				      sr_wc_status_str(wc[k].status));
			ck_assert_msg(wc[k].opcode == wc_op(c.op[next_s].op),
				      "seed %llu: opcode", (unsigned long long)seed);
			if (c.op[next_s].op == SR_WR_RDMA_READ)
				ck_assert_msg(wc[k].byte_len == c.op[next_s].len,
					      "seed %llu: read byte_len",
					      (unsigned long long)seed);
			next_s++;
		}
		n = sr_cq_poll(p.n[1].rcq, 64, wc);
		for (k = 0; k < n; k++, got_r++) {
			const struct pop *po;

			while (next_r < c.nops && !c.op[next_r].consumes)
				next_r++;
			ck_assert_msg(next_r < c.nops && wc[k].wr_id == (uint64_t)next_r,
				      "seed %llu: recv completion %llu, expected %d",
				      (unsigned long long)seed,
				      (unsigned long long)wc[k].wr_id, next_r);
			po = &c.op[next_r];
			ck_assert_msg(wc[k].status == SR_WC_SUCCESS,
				      "seed %llu: recv %d status %s",
				      (unsigned long long)seed, next_r,
				      sr_wc_status_str(wc[k].status));
			ck_assert_msg(wc[k].byte_len == po->len,
				      "seed %llu: recv %d byte_len %u want %u",
				      (unsigned long long)seed, next_r,
				      wc[k].byte_len, po->len);
			ck_assert_msg(wc[k].opcode == (po->op == SR_WR_RDMA_WRITE_WITH_IMM
						       ? SR_WC_OP_RECV_RDMA_WITH_IMM
						       : SR_WC_OP_RECV),
				      "seed %llu: recv opcode", (unsigned long long)seed);
			if (po->op != SR_WR_SEND) {
				ck_assert_msg((wc[k].wc_flags & SR_WC_WITH_IMM) &&
					      wc[k].imm_data == po->imm,
					      "seed %llu: imm", (unsigned long long)seed);
			}
			next_r++;
		}
		if (got_s >= nsig && got_r >= ncons)
			break;
		if (!sim_step(p.net))
			break;
	}
	ck_assert_msg(got_s == nsig && got_r == ncons,
		      "seed %llu: hang: %d/%d send, %d/%d recv completions",
		      (unsigned long long)seed, got_s, nsig, got_r, ncons);
	h_settle(&p);
	ck_assert_int_eq(sr_cq_poll(p.n[0].scq, 64, wc), 0);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 64, wc), 0);

	/* every byte where it should be, and the gaps untouched */
	for (i = 0; i < c.nops; i++) {
		const struct pop *po = &c.op[i];
		uint64_t v, want;

		switch (po->op) {
		case SR_WR_SEND:
		case SR_WR_SEND_WITH_IMM:
		case SR_WR_RDMA_WRITE:
		case SR_WR_RDMA_WRITE_WITH_IMM:
			ck_assert_msg(memcmp(p.n[1].buf + po->roff,
					     p.n[0].buf + po->loff, po->len) == 0,
				      "seed %llu: op %d data", (unsigned long long)seed, i);
			memcpy(&v, p.n[1].buf + po->roff + po->len, 8);
			if (v != 0 && getenv("SR_PROP_DEBUG")) {
				int j, k;

				for (j = 0; j < c.nops; j++)
					printf("op %d %s len %u loff %u roff %u\n", j,
					       sr_wr_opcode_str(c.op[j].op), c.op[j].len,
					       c.op[j].loff, c.op[j].roff);
				for (k = 0; k < 8; k++)
					printf("%02x ", p.n[1].buf[po->roff + po->len + k]);
				printf("\nsrc after: ");
				for (k = 0; k < 8; k++)
					printf("%02x ", p.n[0].buf[po->loff + po->len + k]);
				printf("\n");
			}
			ck_assert_msg(v == 0, "seed %llu: op %d (%s len %u) overrun",
				      (unsigned long long)seed, i,
				      sr_wr_opcode_str(po->op), po->len);
			break;
		case SR_WR_RDMA_READ:
			ck_assert_msg(memcmp(p.n[0].buf + po->loff,
					     p.n[1].buf + po->roff, po->len) == 0,
				      "seed %llu: op %d read data",
				      (unsigned long long)seed, i);
			break;
		case SR_WR_ATOMIC_CMP_AND_SWP:
		case SR_WR_ATOMIC_FETCH_AND_ADD:
			memcpy(&v, p.n[0].buf + po->loff, 8);
			ck_assert_msg(v == po->init, "seed %llu: op %d atomic result",
				      (unsigned long long)seed, i);
			memcpy(&v, p.n[1].buf + po->roff, 8);
			want = po->op == SR_WR_ATOMIC_FETCH_AND_ADD
			       ? po->init + po->swap
			       : (po->cmp == po->init ? po->swap : po->init);
			ck_assert_msg(v == want, "seed %llu: op %d atomic target",
				      (unsigned long long)seed, i);
			break;
		case SR_WR_ATOMIC_WRITE:
			memcpy(&v, p.n[1].buf + po->roff, 8);
			ck_assert_msg(v == po->swap, "seed %llu: op %d atomic write",
				      (unsigned long long)seed, i);
			break;
		default:
			break;
		}
	}
	by_ref_frames += sim_by_ref(p.net, 0) + sim_by_ref(p.net, 1);
	h_pair_fini(&p);
	return true;
}

static unsigned int iterations(unsigned int dflt)
{
	const char *s = getenv("SR_PROP_SOAK");
	const char *n = getenv("SR_PROP_ITERS");

	if (n != NULL)
		return (unsigned int)strtoul(n, NULL, 0);
	return s ? dflt * (unsigned int)strtoul(s, NULL, 0) : dflt;
}

START_TEST(test_rc_random)
{
	const char *one = getenv("SR_PROP_SEED");
	unsigned int i, n = iterations(500);

	if (one != NULL) {
		if (_i == 0)
			run_rc_case(strtoull(one, NULL, 0));
		return;
	}
	exhausted_cases = 0;
	by_ref_frames = 0;
	for (i = 0; i < n; i++)
		run_rc_case(1000000u * (uint64_t)_i + i + 1);
	ck_assert_msg(exhausted_cases * 100 <= n,
		      "%u of %u cases ran out of retries", exhausted_cases, n);
	ck_assert_msg(n < 3 || by_ref_frames > 0,
		      "no frame went by reference in %u cases", n);
}
END_TEST

static Suite *property_suite(void)
{
	Suite *s = suite_create("transport_property");
	TCase *tc = tcase_create("property");

	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_rc_random, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(property_suite)
