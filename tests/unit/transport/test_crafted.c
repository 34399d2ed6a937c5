/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_crafted.c — one crafted packet per responder error path and per
 * completer path.
 *
 * Responder: frames built with the wire builder are injected into node 1
 * as if node 0 sent them; node 1's answers are captured (and kept from
 * node 0).  Completer: node 0's requests are captured and swallowed; the
 * responses are crafted.
 */
#include <string.h>

#include "craft.h"
#include "harness.h"
#include "sr_check.h"
#include "transport/transport.h"
#include "wire/build.h"
#include "wire/parse.h"

/* ------------------------------------------------------------------ */
/* Responder                                                          */

struct rcase {
	const char *name;
	uint8_t opcode;
	uint32_t payload;
	int post_recv;           /* receive WQEs to post first */
	bool bad_lkey_recv;      /* post it with a bad L_Key */
	uint32_t recv_len;
	unsigned int access;     /* QP access flags, 0: all */
	enum { RK_GOOD, RK_BAD, RK_OOB, RK_MISALIGN } rkey;
	uint8_t want_syn;        /* 0xff: no answer */
	bool want_err;           /* QP goes to ERR */
	int want_recv_status;    /* -1: no receive completion */
	enum sr_counter want_cnt;
};

static const struct rcase rcases[] = {
	{ "send middle without first", SR_OPCODE(RC, SEND_MIDDLE), 1024, 1, .recv_len = 4096,
	  .want_syn = NAK(INVALID_REQ), .want_err = true, .want_recv_status = -1 },
	{ "send first shorter than MTU", SR_OPCODE(RC, SEND_FIRST), 100, 1, .recv_len = 4096,
	  .want_syn = NAK(INVALID_REQ), .want_err = true, .want_recv_status = -1 },
	{ "send longer than the receive", SR_OPCODE(RC, SEND_ONLY), 200, 1, .recv_len = 100,
	  .want_syn = NAK(INVALID_REQ), .want_err = true,
	  .want_recv_status = SR_WC_LOC_LEN_ERR },
	{ "send into a bad L_Key", SR_OPCODE(RC, SEND_ONLY), 200, 1, .bad_lkey_recv = true,
	  .recv_len = 4096, .want_syn = NAK(REMOTE_OP), .want_err = true,
	  .want_recv_status = SR_WC_LOC_PROT_ERR },
	{ "send without a receive", SR_OPCODE(RC, SEND_ONLY), 200, 0,
	  .want_syn = SR_AETH_RNR_NAK | 1, .want_recv_status = -1,
	  .want_cnt = SR_CNT_RNR_NAK_SENT },
	{ "write-with-imm without a receive", SR_OPCODE(RC, WRITE_ONLY_IMM), 64, 0,
	  .want_syn = SR_AETH_RNR_NAK | 1, .want_recv_status = -1 },
	{ "write with a bad R_Key", SR_OPCODE(RC, WRITE_ONLY), 64, 0, .rkey = RK_BAD,
	  .want_syn = NAK(REMOTE_ACCESS), .want_err = true, .want_recv_status = -1 },
	{ "write out of bounds", SR_OPCODE(RC, WRITE_ONLY), 64, 0, .rkey = RK_OOB,
	  .want_syn = NAK(REMOTE_ACCESS), .want_err = true, .want_recv_status = -1 },
	{ "write to a QP without remote write", SR_OPCODE(RC, WRITE_ONLY), 64, 0,
	  .access = SR_ACCESS_REMOTE_READ, .want_syn = NAK(INVALID_REQ),
	  .want_err = true, .want_recv_status = -1 },
	{ "write length differs from RETH", SR_OPCODE(RC, WRITE_ONLY), 63, 0,
	  .want_syn = NAK(INVALID_REQ), .want_err = true, .want_recv_status = -1 },
	{ "read with a bad R_Key", SR_OPCODE(RC, READ_REQUEST), 0, 0, .rkey = RK_BAD,
	  .want_syn = NAK(REMOTE_ACCESS), .want_err = true, .want_recv_status = -1 },
	{ "read out of bounds", SR_OPCODE(RC, READ_REQUEST), 0, 0, .rkey = RK_OOB,
	  .want_syn = NAK(REMOTE_ACCESS), .want_err = true, .want_recv_status = -1 },
	{ "read from a QP without remote read", SR_OPCODE(RC, READ_REQUEST), 0, 0,
	  .access = SR_ACCESS_REMOTE_WRITE, .want_syn = NAK(INVALID_REQ),
	  .want_err = true, .want_recv_status = -1 },
	{ "atomic misaligned", SR_OPCODE(RC, FETCH_ADD), 0, 0, .rkey = RK_MISALIGN,
	  .want_syn = NAK(INVALID_REQ), .want_err = true, .want_recv_status = -1 },
	{ "atomic with a bad R_Key", SR_OPCODE(RC, COMPARE_SWAP), 0, 0, .rkey = RK_BAD,
	  .want_syn = NAK(REMOTE_ACCESS), .want_err = true, .want_recv_status = -1 },
	{ "atomic to a QP without remote atomic", SR_OPCODE(RC, FETCH_ADD), 0, 0,
	  .access = SR_ACCESS_REMOTE_WRITE, .want_syn = NAK(INVALID_REQ),
	  .want_err = true, .want_recv_status = -1 },
	{ "send-with-invalidate of a bad R_Key", SR_OPCODE(RC, SEND_ONLY_INV), 16, 1,
	  .recv_len = 64, .rkey = RK_BAD, .want_syn = NAK(INVALID_REQ),
	  .want_err = true, .want_recv_status = SR_WC_REM_INV_REQ_ERR },
	{ "UC opcode on an RC QP", SR_OPCODE(UC, SEND_ONLY), 16, 1, .recv_len = 64,
	  .want_syn = 0xff, .want_recv_status = -1, .want_cnt = SR_CNT_OPCODE_DROP },
};

START_TEST(test_responder_errors)
{
	const struct rcase *rc = &rcases[_i];
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint8_t payload[4096];
	struct sr_wc wc;
	uint64_t cnt[SR_CNT_MAX];
	struct h_node *n1;

	h_default_opts(&o, SR_QPT_RC);
	o.access = rc->access;
	h_pair_init(&p, &o);
	n1 = &p.n[1];
	sim_set_tap(p.net, cap_tap, &cap);
	for (int i = 0; i < rc->post_recv; i++) {
		struct sr_sge sge = {
			.addr = (uint64_t)(uintptr_t)n1->buf, .length = rc->recv_len,
			.lkey = rc->bad_lkey_recv ? 0x12345678 : sr_mr_lkey(n1->mr),
		};
		struct sr_recv_wr rw = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 };
		const struct sr_recv_wr *bad;

		ck_assert_int_eq(sr_qp_post_recv(n1->qp, &rw, &bad), 0);
	}
	memset(payload, 0x5a, sizeof(payload));
	craft_init(&p, 0, &b, rc->opcode, o.psn0);
	b.ackreq = true;
	b.reth_va = b.atm_va = (uint64_t)(uintptr_t)n1->buf + 64;
	b.reth_rkey = b.atm_rkey = b.ieth_rkey = sr_mr_rkey(n1->mr);
	b.reth_len = rc->payload ? 64 : 128;
	if (rc->rkey == RK_BAD)
		b.reth_rkey = b.atm_rkey = b.ieth_rkey = sr_mr_rkey(n1->mr) ^ 0x55;
	if (rc->rkey == RK_OOB)
		b.reth_va = b.atm_va = (uint64_t)(uintptr_t)n1->buf + o.buflen - 16;
	if (rc->rkey == RK_MISALIGN)
		b.atm_va += 3;
	if (rc->opcode == SR_OPCODE(UC, SEND_ONLY))
		b.dqpn = sr_qp_num(n1->qp);
	craft_send(&p, 0, &b, payload, rc->payload);
	settle(&p);

	if (rc->want_syn == 0xff) {
		ck_assert_int_eq(cap.n, 0);
	} else {
		ck_assert_int_ge(cap.n, 1);
		ck_assert_uint_eq(cap.op[0], SR_OPCODE(RC, ACKNOWLEDGE));
		ck_assert_uint_eq(cap.syn[0], rc->want_syn);
		ck_assert_uint_eq(cap.psn[0], o.psn0 & 0xffffff);
	}
	ck_assert_int_eq(sr_qp_state(n1->qp) == SR_QPS_ERR, rc->want_err);
	if (rc->want_recv_status >= 0) {
		ck_assert_int_eq(sr_cq_poll(n1->rcq, 1, &wc), 1);
		ck_assert_int_eq(wc.status, rc->want_recv_status);
		ck_assert_uint_eq(wc.wr_id, 77);
	} else if (!rc->want_err) {
		ck_assert_int_eq(sr_cq_poll(n1->rcq, 1, &wc), 0);
	}
	if (rc->want_cnt) {
		sr_qp_counters(n1->qp, cnt);
		ck_assert_uint_gt(cnt[rc->want_cnt], 0);
	}
	h_pair_fini(&p);
}
END_TEST

/* node 0 sends node 1 a 64 B request, ACK requested unless quiet. */
static void craft_req_ex(struct h_pair *p, uint8_t opcode, uint32_t psn,
			 bool quiet)
{
	struct sr_build b;
	uint8_t pl[64] = { 0 };

	craft_init(p, 0, &b, opcode, psn);
	b.ackreq = !quiet;
	b.reth_va = (uint64_t)(uintptr_t)p->n[1].buf;
	b.reth_rkey = sr_mr_rkey(p->n[1].mr);
	b.reth_len = sizeof(pl);
	craft_send(p, 0, &b, pl, sizeof(pl));
}

static void craft_req(struct h_pair *p, uint8_t opcode, uint32_t psn)
{
	craft_req_ex(p, opcode, psn, false);
}

/*
 * The ACK of a WRITE waits for the QP's own next request, SR_ACK_DEFER_NS
 * at most (resp.c, sr_resp_run); a SEND's ACK goes at once.
 */
START_TEST(test_responder_ack_defer)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	uint64_t t0;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);

	/* alone: held back, then sent when the wait is over */
	t0 = sim_now(p.net);
	craft_req(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0);
	ck_assert(sim_step_frames(p.net));     /* delivered; the ACK waits */
	ck_assert(!sim_step_frames(p.net));    /* and waiting is not work */
	ck_assert_int_eq(cap.n, 0);
	ck_assert(sim_step(p.net));            /* the clock jumps to its due time */
	settle(&p);
	ck_assert_int_eq(cap.n, 1);
	ck_assert_uint_eq(cap.op[0], SR_OPCODE(RC, ACKNOWLEDGE));
	ck_assert_uint_eq(cap.psn[0], o.psn0 & 0xffffff);
	ck_assert_uint_ge(sim_now(p.net) - t0, SR_ACK_DEFER_NS);
	ck_assert_uint_lt(sim_now(p.net) - t0, 2 * SR_ACK_DEFER_NS);

	/* answered by a WRITE of node 1's own: the ACK follows it */
	craft_req(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0 + 1);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 1);
	ck_assert_int_eq(h_post_send(&p, 1, SR_WR_RDMA_WRITE, 9, 0, 64, 0, 0), 0);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 3);
	ck_assert_uint_eq(cap.op[1], SR_OPCODE(RC, WRITE_ONLY));
	ck_assert_uint_eq(cap.op[2], SR_OPCODE(RC, ACKNOWLEDGE));
	ck_assert_uint_eq(cap.psn[2], (o.psn0 + 1) & 0xffffff);

	/* a SEND (its receiver polls a CQ) is acknowledged in the same round */
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 64), 0);
	craft_req(&p, SR_OPCODE(RC, SEND_ONLY), o.psn0 + 2);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 4);
	ck_assert_uint_eq(cap.op[3], SR_OPCODE(RC, ACKNOWLEDGE));
	ck_assert_uint_eq(cap.psn[3], (o.psn0 + 2) & 0xffffff);

	/* a stream into a silent peer: a second request ends the wait */
	t0 = sim_now(p.net);
	craft_req(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0 + 3);
	craft_req(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0 + 4);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 5);
	ck_assert_uint_eq(cap.op[4], SR_OPCODE(RC, ACKNOWLEDGE));
	ck_assert_uint_eq(cap.psn[4], (o.psn0 + 4) & 0xffffff);
	ck_assert_uint_lt(sim_now(p.net) - t0, SR_ACK_DEFER_NS);

	/* an ACK that answers half a window is not held: the requester
	 * would stall (a long message's last packet) */
	for (uint32_t i = 0; i < SR_MAX_UNACKED / 2; i++)
		craft_req_ex(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0 + 5 + i, true);
	craft_req(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0 + 5 + SR_MAX_UNACKED / 2);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 6);
	ck_assert_uint_eq(cap.psn[5], (o.psn0 + 5 + SR_MAX_UNACKED / 2) & 0xffffff);
	h_pair_fini(&p);
}
END_TEST

/*
 * No ACK is held on a QP with a short ACK timeout, and a held one is sent
 * when the QP is moved to ERR (it answers requests already placed).
 */
START_TEST(test_responder_ack_hold_limits)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_qp_attr a = { .qp_state = SR_QPS_ERR };

	h_default_opts(&o, SR_QPT_RC);
	o.timeout = SR_ACK_HOLD_MIN_TIMEOUT - 1;
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	craft_req(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 1);
	h_pair_fini(&p);

	cap.n = 0;
	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	craft_req(&p, SR_OPCODE(RC, WRITE_ONLY), o.psn0);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 0);                 /* held */
	ck_assert_int_eq(sr_qp_modify(p.n[1].qp, &a, SR_QP_STATE), 0);
	settle(&p);
	ck_assert_int_ge(cap.n, 1);
	ck_assert_uint_eq(cap.op[0], SR_OPCODE(RC, ACKNOWLEDGE));
	ck_assert_uint_eq(cap.syn[0], SR_AETH_CREDITS_INVALID);
	ck_assert_uint_eq(cap.psn[0], o.psn0 & 0xffffff);
	h_pair_fini(&p);
}
END_TEST

/* One sequence NAK per gap; the expected PSN clears it. */
START_TEST(test_responder_seq_nak_once)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint8_t pl[16] = { 0 };

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 64), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 2, 64, 64), 0);
	craft_init(&p, 0, &b, SR_OPCODE(RC, SEND_ONLY), o.psn0 + 2);
	b.ackreq = true;
	craft_send(&p, 0, &b, pl, 16);
	b.psn = (o.psn0 + 3) & 0xffffff;
	craft_send(&p, 0, &b, pl, 16);
	settle(&p);
	ck_assert_int_eq(cap.n, 1);
	ck_assert_uint_eq(cap.syn[0], NAK(PSN_SEQ_ERR));
	ck_assert_uint_eq(cap.psn[0], o.psn0 & 0xffffff);
	ck_assert_int_eq(sr_qp_state(p.n[1].qp), SR_QPS_RTS);
	/* the expected PSN: ACK with MSN 1; then a new gap: a new NAK */
	b.psn = o.psn0 & 0xffffff;
	craft_send(&p, 0, &b, pl, 16);
	settle(&p);
	ck_assert_int_eq(cap.n, 2);
	ck_assert_uint_eq(cap.syn[1], SR_AETH_CREDITS_INVALID);
	ck_assert_uint_eq(cap.msn[1], 1);
	b.psn = (o.psn0 + 5) & 0xffffff;
	craft_send(&p, 0, &b, pl, 16);
	settle(&p);
	ck_assert_int_eq(cap.n, 3);
	ck_assert_uint_eq(cap.syn[2], NAK(PSN_SEQ_ERR));
	ck_assert_uint_eq(cap.psn[2], (o.psn0 + 1) & 0xffffff);
	h_pair_fini(&p);
}
END_TEST

/* Duplicates: SEND re-ACKed, READ answered from its PSN, atomic from cache. */
START_TEST(test_responder_duplicates)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint8_t pl[16] = { 0 };
	uint64_t v = 5;
	struct h_node *n1;
	uint32_t psn;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_256;
	h_pair_init(&p, &o);
	n1 = &p.n[1];
	sim_set_tap(p.net, cap_tap, &cap);
	memcpy(n1->buf + 8, &v, 8);
	psn = o.psn0;
	/* SEND, then its duplicate */
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 4096, 64), 0);
	craft_init(&p, 0, &b, SR_OPCODE(RC, SEND_ONLY), psn);
	b.ackreq = true;
	craft_send(&p, 0, &b, pl, 16);
	settle(&p);
	craft_send(&p, 0, &b, pl, 16);
	settle(&p);
	ck_assert_int_eq(cap.n, 2);
	ck_assert_uint_eq(cap.psn[1], psn & 0xffffff);
	ck_assert_uint_eq(cap.syn[1], SR_AETH_CREDITS_INVALID);
	psn++;
	/* FETCH_ADD, then its duplicate: answered from the cache */
	craft_init(&p, 0, &b, SR_OPCODE(RC, FETCH_ADD), psn);
	b.ackreq = true;
	b.atm_va = (uint64_t)(uintptr_t)n1->buf + 8;
	b.atm_rkey = sr_mr_rkey(n1->mr);
	b.atm_swap_add = 10;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 4);
	ck_assert_uint_eq(cap.op[2], SR_OPCODE(RC, ATOMIC_ACKNOWLEDGE));
	ck_assert_uint_eq(cap.orig[2], 5);
	ck_assert_uint_eq(cap.op[3], SR_OPCODE(RC, ATOMIC_ACKNOWLEDGE));
	ck_assert_uint_eq(cap.orig[3], 5);
	memcpy(&v, n1->buf + 8, 8);
	ck_assert_uint_eq(v, 15);          /* executed once */
	psn++;
	/* READ of 1000 bytes = 4 responses; duplicate from its 3rd PSN */
	craft_init(&p, 0, &b, SR_OPCODE(RC, READ_REQUEST), psn);
	b.ackreq = true;
	b.reth_va = (uint64_t)(uintptr_t)n1->buf + 1000;
	b.reth_rkey = sr_mr_rkey(n1->mr);
	b.reth_len = 1000;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 8);
	ck_assert_uint_eq(cap.op[4], SR_OPCODE(RC, READ_RESPONSE_FIRST));
	ck_assert_uint_eq(cap.op[7], SR_OPCODE(RC, READ_RESPONSE_LAST));
	ck_assert_uint_eq(cap.plen[7], 1000 - 768);
	b.psn = (psn + 2) & 0xffffff;
	b.reth_va += 512;
	b.reth_len = 488;
	craft_send(&p, 0, &b, NULL, 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 10);
	ck_assert_uint_eq(cap.op[8], SR_OPCODE(RC, READ_RESPONSE_FIRST));
	ck_assert_uint_eq(cap.psn[8], (psn + 2) & 0xffffff);
	ck_assert_uint_eq(cap.op[9], SR_OPCODE(RC, READ_RESPONSE_LAST));
	ck_assert_uint_eq(cap.plen[9], 488 - 256);
	ck_assert_int_eq(sr_qp_state(n1->qp), SR_QPS_RTS);
	h_pair_fini(&p);
}
END_TEST

/*
 * Requests that arrive while a READ is being answered (its first
 * responses go out at once, the rest from the engine round): a READ is
 * queued and answered after it, in PSN order with its own MSN; another
 * request is taken once the READs are answered — at once when the link
 * takes their responses, else refused and asked for again by a sequence
 * NAK that follows the READs' responses.
 */
START_TEST(test_responder_read_queue)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint8_t pl[16] = { 0 };
	uint64_t cnt[SR_CNT_MAX];
	struct h_node *n1;
	uint32_t psn;
	int i;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_256;
	h_pair_init(&p, &o);
	n1 = &p.n[1];
	sim_set_tap(p.net, cap_tap, &cap);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 8192, 64), 0);
	ck_assert_int_eq(h_post_recv(&p, 1, 2, 8192, 64), 0);
	psn = o.psn0;
	/* READ of 4096 B (16 responses), READ of 1000 B (4), SEND: together */
	craft_read(&p, psn, 0, 4096);
	craft_read(&p, psn + 16, 4096, 1000);
	craft_init(&p, 0, &b, SR_OPCODE(RC, SEND_ONLY), psn + 20);
	b.ackreq = true;
	craft_send(&p, 0, &b, pl, 16);
	settle(&p);
	ck_assert_int_eq(cap.n, 21);
	for (i = 0; i < 20; i++)
		ck_assert_uint_eq(cap.psn[i], (psn + (uint32_t)i) & 0xffffff);
	/* FIRST and LAST carry an AETH: each READ's own MSN */
	ck_assert_uint_eq(cap.op[0], SR_OPCODE(RC, READ_RESPONSE_FIRST));
	ck_assert_uint_eq(cap.msn[0], 1);
	ck_assert_uint_eq(cap.op[15], SR_OPCODE(RC, READ_RESPONSE_LAST));
	ck_assert_uint_eq(cap.msn[15], 1);
	ck_assert_uint_eq(cap.op[16], SR_OPCODE(RC, READ_RESPONSE_FIRST));
	ck_assert_uint_eq(cap.msn[16], 2);
	ck_assert_uint_eq(cap.op[19], SR_OPCODE(RC, READ_RESPONSE_LAST));
	ck_assert_uint_eq(cap.msn[19], 2);
	ck_assert_uint_eq(cap.plen[19], 1000 - 768);
	ck_assert_uint_eq(cap.syn[20], SR_AETH_CREDITS_INVALID);
	ck_assert_uint_eq(cap.psn[20], (psn + 20) & 0xffffff);
	ck_assert_uint_eq(cap.msn[20], 3);
	sr_qp_counters(n1->qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_RESP_BUSY_DROP], 0);

	/* the same with room for 12 frames: the SEND finds the READs busy */
	psn += 21;
	cap.n = 0;
	sim_set_tx_room(p.net, 1, 12);
	craft_read(&p, psn, 0, 4096);
	craft_read(&p, psn + 16, 4096, 1000);
	b.psn = (psn + 20) & 0xffffff;
	craft_send(&p, 0, &b, pl, 16);
	ck_assert(sim_step_frames(p.net));
	ck_assert_int_eq(cap.n, 12);
	sr_qp_counters(n1->qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_RESP_BUSY_DROP], 1);
	sim_set_tx_room(p.net, 1, -1);
	settle(&p);
	ck_assert_int_eq(cap.n, 21);
	for (i = 0; i < 20; i++)
		ck_assert_uint_eq(cap.psn[i], (psn + (uint32_t)i) & 0xffffff);
	ck_assert_uint_eq(cap.op[20], SR_OPCODE(RC, ACKNOWLEDGE));
	ck_assert_uint_eq(cap.syn[20], NAK(PSN_SEQ_ERR));
	ck_assert_uint_eq(cap.psn[20], (psn + 20) & 0xffffff);
	/* the SEND again: accepted and ACKed */
	craft_send(&p, 0, &b, pl, 16);
	settle(&p);
	ck_assert_int_eq(cap.n, 22);
	ck_assert_uint_eq(cap.syn[21], SR_AETH_CREDITS_INVALID);
	ck_assert_uint_eq(cap.psn[21], (psn + 20) & 0xffffff);
	ck_assert_int_eq(sr_qp_state(n1->qp), SR_QPS_RTS);
	h_pair_fini(&p);
}
END_TEST

/*
 * A READ answered again for its duplicate sits in the resource ring where
 * the next new READ would go: that READ is not queued over it (the
 * duplicate's responses stay whole) but refused and asked for again.
 */
START_TEST(test_responder_read_queue_after_duplicate)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	uint32_t psn;
	int i;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_256;
	o.max_dest_rd = 4;
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	psn = o.psn0;
	/* A (16 responses), then B, C, D: the ring of 4 is full, A oldest */
	craft_read(&p, psn, 0, 4096);
	settle(&p);
	for (i = 0; i < 3; i++) {
		craft_read(&p, psn + 16 + (uint32_t)i, 4096 + 256 * (uint32_t)i, 256);
		settle(&p);
	}
	ck_assert_int_eq(cap.n, 19);
	/* A again (a duplicate) and a new READ E, with room for 12 frames */
	cap.n = 0;
	sim_set_tx_room(p.net, 1, 12);
	craft_read(&p, psn, 0, 4096);
	craft_read(&p, psn + 19, 8192, 256);
	ck_assert(sim_step_frames(p.net));
	sim_set_tx_room(p.net, 1, -1);
	settle(&p);
	/* A's 16 responses whole, from its own PSN and data; then E's NAK */
	ck_assert_int_eq(cap.n, 17);
	for (i = 0; i < 16; i++) {
		ck_assert_uint_eq(cap.psn[i], (psn + (uint32_t)i) & 0xffffff);
		ck_assert_uint_eq(cap.plen[i], 256);
	}
	ck_assert_uint_eq(cap.op[15], SR_OPCODE(RC, READ_RESPONSE_LAST));
	ck_assert_uint_eq(cap.syn[16], NAK(PSN_SEQ_ERR));
	ck_assert_uint_eq(cap.psn[16], (psn + 19) & 0xffffff);
	ck_assert_int_eq(sr_qp_state(p.n[1].qp), SR_QPS_RTS);
	h_pair_fini(&p);
}
END_TEST

/* Drops before any QP: unknown QPN, QP1, bad P_Key, bad ICRC. */
START_TEST(test_device_drops)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { .swallow = 1 };
	struct sr_build b;
	uint8_t frame[256], pl[16] = { 0 };
	uint64_t cnt[SR_CNT_MAX], pd[SR_PARSE_MAX];
	int n;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, cap_tap, &cap);
	craft_init(&p, 0, &b, SR_OPCODE(RC, SEND_ONLY), o.psn0);
	b.dqpn = 0x777;
	craft_send(&p, 0, &b, pl, 16);
	craft_init(&p, 0, &b, SR_OPCODE(RC, SEND_ONLY), o.psn0);
	b.pkey = 0x1234;
	craft_send(&p, 0, &b, pl, 16);
	craft_init(&p, 0, &b, SR_OPCODE(UD, SEND_ONLY), o.psn0);
	b.dqpn = 1;                             /* QP1: no GSI here yet */
	b.deth_qkey = 0x80010000u;
	craft_send(&p, 0, &b, pl, 16);
	craft_init(&p, 0, &b, SR_OPCODE(RC, SEND_ONLY), o.psn0);
	n = sr_build_frame(frame, sizeof(frame), &b, pl, 16);
	frame[n - 1] ^= 1;
	sim_inject(p.net, 0, frame, (uint32_t)n);
	settle(&p);
	ck_assert_int_eq(cap.n, 0);
	sr_dev_counters(p.n[1].dev, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_UNKNOWN_QP], 1);
	ck_assert_uint_eq(cnt[SR_CNT_MGMT_QP_DROP], 1);
	ck_assert_uint_eq(cnt[SR_CNT_PKEY_DROP], 1);
	ck_assert_uint_eq(cnt[SR_CNT_PARSE_DROP], 1);
	sr_dev_parse_drops(p.n[1].dev, pd);
	ck_assert_uint_eq(pd[SR_PARSE_ICRC], 1);
	h_pair_fini(&p);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Completer                                                          */

static struct h_pair *comp_setup(struct h_pair *p, struct cap *cap,
				 struct h_opts *o)
{
	h_pair_init(p, o);
	cap->swallow = 0;
	sim_set_tap(p->net, cap_tap, cap);
	return p;
}

START_TEST(test_comp_coalesced_ack)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { 0 };
	struct sr_wc wc[4];

	h_default_opts(&o, SR_QPT_RC);
	comp_setup(&p, &cap, &o);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 2, 0, 10, 0, SR_SEND_SIGNALED), 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 2);
	craft_ack(&p, o.psn0 + 1, SR_AETH_CREDITS_INVALID, 2);   /* acks both */
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 2, 1000), 2);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_int_eq(wc[1].status, SR_WC_SUCCESS);
	/* a ghost ACK (never sent) changes nothing */
	craft_ack(&p, o.psn0 + 50, SR_AETH_CREDITS_INVALID, 3);
	settle(&p);
	ck_assert_int_eq(sr_qp_state(p.n[0].qp), SR_QPS_RTS);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_comp_seq_nak_retransmit)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { 0 };
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	comp_setup(&p, &cap, &o);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 4000, 0, SR_SEND_SIGNALED), 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 4);
	craft_ack(&p, o.psn0 + 2, NAK(PSN_SEQ_ERR), 0);  /* lost the third packet */
	settle(&p);
	ck_assert_int_eq(cap.n, 6);                  /* MIDDLE and LAST again */
	ck_assert_uint_eq(cap.psn[4], (o.psn0 + 2) & 0xffffff);
	ck_assert_uint_eq(cap.op[4], SR_OPCODE(RC, SEND_MIDDLE));
	ck_assert_uint_eq(cap.op[5], SR_OPCODE(RC, SEND_LAST));
	craft_ack(&p, o.psn0 + 3, SR_AETH_CREDITS_INVALID, 1);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_pair_fini(&p);
}
END_TEST

/* Error NAKs: the WQE fails with the matching status, the QP goes to ERR. */
START_TEST(test_comp_error_naks)
{
	static const struct { uint8_t syn; enum sr_wc_status st; } t[] = {
		{ NAK(INVALID_REQ), SR_WC_REM_INV_REQ_ERR },
		{ NAK(REMOTE_ACCESS), SR_WC_REM_ACCESS_ERR },
		{ NAK(REMOTE_OP), SR_WC_REM_OP_ERR },
	};
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { 0 };
	struct sr_wc wc[3];

	h_default_opts(&o, SR_QPT_RC);
	comp_setup(&p, &cap, &o);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 2, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 3, 0, 10, 0, 0), 0);
	settle(&p);
	craft_ack(&p, o.psn0 + 1, t[_i].syn, 1);   /* implicitly acks the first */
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 2, 1000), 2);
	ck_assert_uint_eq(wc[0].wr_id, 2);
	ck_assert_int_eq(wc[0].status, t[_i].st);
	ck_assert_uint_eq(wc[1].wr_id, 3);
	ck_assert_int_eq(wc[1].status, SR_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(sr_qp_state(p.n[0].qp), SR_QPS_ERR);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_comp_timeout_and_retry_exhaustion)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { 0 };
	struct sr_wc wc;
	uint64_t cnt[SR_CNT_MAX], t0;

	h_default_opts(&o, SR_QPT_RC);
	o.retry = 3;
	o.timeout = 10;    /* 4.19 ms */
	comp_setup(&p, &cap, &o);
	t0 = sim_now(p.net);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, 0), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	ck_assert_int_eq(wc.status, SR_WC_RETRY_EXC_ERR);
	/* the first try and 3 retries; no probe: its 4 ms floor is more
	 * than half this timeout (comp.c; transport_probe has the probes) */
	sr_qp_counters(p.n[0].qp, cnt);
	ck_assert_uint_eq(cnt[SR_CNT_TIMEOUT], 4);
	ck_assert_uint_eq(cnt[SR_CNT_PROBE], 0);
	ck_assert_int_eq(cap.n, 4);
	for (int i = 0; i < cap.n; i++)
		ck_assert_uint_eq(cap.psn[i], o.psn0 & 0xffffff);
	ck_assert_uint_eq(cnt[SR_CNT_RETRY_EXC], 1);
	/* it fails no sooner than 4 timeouts */
	ck_assert_uint_ge(sim_now(p.net) - t0, 4 * (4096ull << 10));
	ck_assert_int_eq(sr_qp_state(p.n[0].qp), SR_QPS_ERR);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_comp_rnr_wait)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { 0 };
	struct sr_wc wc;
	uint64_t t0;

	h_default_opts(&o, SR_QPT_RC);
	comp_setup(&p, &cap, &o);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, SR_SEND_SIGNALED), 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 1);
	t0 = sim_now(p.net);
	craft_ack(&p, o.psn0, SR_AETH_RNR_NAK | 14, 0);   /* 1.28 ms */
	while (cap.n < 2 && sim_step(p.net))
		;
	ck_assert_int_eq(cap.n, 2);
	ck_assert_uint_ge(sim_now(p.net) - t0, 1280000);
	craft_ack(&p, o.psn0, SR_AETH_CREDITS_INVALID, 1);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_pair_fini(&p);
}
END_TEST

/* READ: implicit NAK by a later ACK, resumption after a lost response,
 * implicit ACK of an earlier SEND by a READ response. */
START_TEST(test_comp_read_paths)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { 0 };
	struct sr_wc wc[2];
	struct sr_build b;
	uint8_t data[1024];
	uint32_t psn;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_256;
	comp_setup(&p, &cap, &o);
	for (int i = 0; i < 1024; i++)
		data[i] = (uint8_t)i;
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 10, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 8192, 1000, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 3, 0, 10, 0, SR_SEND_SIGNALED), 0);
	settle(&p);
	ck_assert_int_eq(cap.n, 3);
	psn = o.psn0 + 1;                     /* the READ: psn .. psn+3 */
	ck_assert_uint_eq(cap.op[1], SR_OPCODE(RC, READ_REQUEST));
	ck_assert_uint_eq(cap.psn[2], (psn + 4) & 0xffffff);
	/* ACK of the last SEND without READ responses: implicit NAK */
	craft_ack(&p, psn + 4, SR_AETH_CREDITS_INVALID, 3);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 1000), 1);
	ck_assert_uint_eq(wc[0].wr_id, 1);   /* the SEND before it: acked */
	settle(&p);
	ck_assert_int_ge(cap.n, 4);
	ck_assert_uint_eq(cap.op[3], SR_OPCODE(RC, READ_REQUEST));
	ck_assert_uint_eq(cap.psn[3], psn & 0xffffff);
	ck_assert_uint_eq(cap.rlen[3], 1000);
	/* FIRST arrives, MIDDLE is lost, then LAST: READ resumed */
	int before = cap.n;

	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_FIRST), psn);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	craft_send(&p, 1, &b, data, 256);
	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_MIDDLE), psn + 2);
	craft_send(&p, 1, &b, data + 512, 256);
	settle(&p);
	ck_assert_int_gt(cap.n, before);
	ck_assert_uint_eq(cap.op[before], SR_OPCODE(RC, READ_REQUEST));
	ck_assert_uint_eq(cap.psn[before], (psn + 1) & 0xffffff);
	ck_assert_uint_eq(cap.rlen[before], 1000 - 256);
	ck_assert_uint_eq(cap.va[before],
			  (uint64_t)(uintptr_t)p.n[1].buf + 256);
	/* the rest, as a fresh response to the resumed request */
	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_FIRST), psn + 1);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	craft_send(&p, 1, &b, data + 256, 256);
	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_MIDDLE), psn + 2);
	craft_send(&p, 1, &b, data + 512, 256);
	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_LAST), psn + 3);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	craft_send(&p, 1, &b, data + 768, 232);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 1000), 1);
	ck_assert_uint_eq(wc[0].wr_id, 2);
	ck_assert_int_eq(wc[0].status, SR_WC_SUCCESS);
	ck_assert_mem_eq(p.n[0].buf + 8192, data, 1000);
	craft_ack(&p, psn + 4, SR_AETH_CREDITS_INVALID, 3);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 1, 1000), 1);
	ck_assert_uint_eq(wc[0].wr_id, 3);
	h_pair_fini(&p);
}
END_TEST

START_TEST(test_comp_implicit_ack_by_read_response)
{
	struct h_pair p;
	struct h_opts o;
	struct cap cap = { 0 };
	struct sr_wc wc[2];
	struct sr_build b;
	uint8_t data[64] = { 1, 2, 3 };

	h_default_opts(&o, SR_QPT_RC);
	comp_setup(&p, &cap, &o);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 1, 0, 10, 0, SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_READ, 2, 100, 64, 0,
				     SR_SEND_SIGNALED), 0);
	settle(&p);
	craft_init(&p, 1, &b, SR_OPCODE(RC, READ_RESPONSE_ONLY), o.psn0 + 1);
	b.aeth_syndrome = SR_AETH_CREDITS_INVALID;
	craft_send(&p, 1, &b, data, 64);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, wc, 2, 1000), 2);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_mem_eq(p.n[0].buf + 100, data, 64);
	h_pair_fini(&p);
}
END_TEST

static Suite *crafted_suite(void)
{
	Suite *s = suite_create("transport_crafted");
	TCase *r = tcase_create("responder");
	TCase *c = tcase_create("completer");

	tcase_add_loop_test(r, test_responder_errors, 0,
			    (int)(sizeof(rcases) / sizeof(rcases[0])));
	tcase_add_test(r, test_responder_ack_defer);
	tcase_add_test(r, test_responder_ack_hold_limits);
	tcase_add_test(r, test_responder_seq_nak_once);
	tcase_add_test(r, test_responder_duplicates);
	tcase_add_test(r, test_responder_read_queue);
	tcase_add_test(r, test_responder_read_queue_after_duplicate);
	tcase_add_test(r, test_device_drops);
	tcase_add_test(c, test_comp_coalesced_ack);
	tcase_add_test(c, test_comp_seq_nak_retransmit);
	tcase_add_loop_test(c, test_comp_error_naks, 0, 3);
	tcase_add_test(c, test_comp_timeout_and_retry_exhaustion);
	tcase_add_test(c, test_comp_rnr_wait);
	tcase_add_test(c, test_comp_read_paths);
	tcase_add_test(c, test_comp_implicit_ack_by_read_response);
	suite_add_tcase(s, r);
	suite_add_tcase(s, c);
	return s;
}

SR_CHECK_MAIN(crafted_suite)
