/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_trace.c — the live QP trace (lib/core/trace.h): the ring (order,
 * wrap-around, overrun and its LOST record), every event kind's line, a
 * device with tracing off writes nothing, and a lost packet seen from both
 * ends: sequence NAK, go-back-N from the lost PSN, the completion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/trace.h"
#include "sr_check.h"
#include "transport/harness.h"
#include "wire/opcode.h"

static struct sr_trace_ring *ring_new(void)
{
	struct sr_trace_ring *r = calloc(1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	sr_trace_ring_init(r);
	return r;
}

static struct sr_trace_rec ev(uint32_t i)
{
	return (struct sr_trace_rec){ .t_ns = i, .qpn = 0x11,
				      .kind = SR_TRACE_REQ_SEND, .a = i };
}

START_TEST(test_ring_order_wrap)
{
	struct sr_trace_ring *r = ring_new();
	struct sr_trace_rec out[100];
	uint32_t next = 0, want = 0;
	unsigned int n;

	ck_assert_uint_eq(sr_trace_get(r, out, 100), 0);
	/* three times round the ring, reading in uneven pieces */
	while (want < 3 * SR_TRACE_RING_LEN) {
		for (int k = 0; k < 77; k++) {
			struct sr_trace_rec e = ev(next++);

			sr_trace_put(r, &e);
		}
		n = sr_trace_get(r, out, 100);
		ck_assert_uint_gt(n, 0);
		for (unsigned int i = 0; i < n; i++)
			ck_assert_uint_eq(out[i].a, want++);
		while ((n = sr_trace_get(r, out, 100)) > 0)
			for (unsigned int i = 0; i < n; i++)
				ck_assert_uint_eq(out[i].a, want++);
	}
	ck_assert_uint_eq(want, next);
	ck_assert_uint_eq(r->lost, 0);
	free(r);
}
END_TEST

START_TEST(test_ring_overrun)
{
	struct sr_trace_ring *r = ring_new();
	static struct sr_trace_rec out[SR_TRACE_RING_LEN];
	struct sr_trace_rec e;
	uint32_t i;

	for (i = 0; i < SR_TRACE_RING_LEN + 10; i++) {
		e = ev(i);
		sr_trace_put(r, &e);
	}
	ck_assert_uint_eq(r->lost, 10);
	ck_assert_uint_eq(sr_trace_get(r, out, SR_TRACE_RING_LEN),
			  SR_TRACE_RING_LEN);
	for (i = 0; i < SR_TRACE_RING_LEN; i++)
		ck_assert_uint_eq(out[i].a, i);       /* the oldest kept */
	/* the next event is preceded by the report of the loss */
	e = ev(9999);
	sr_trace_put(r, &e);
	ck_assert_uint_eq(sr_trace_get(r, out, 10), 2);
	ck_assert_uint_eq(out[0].kind, SR_TRACE_LOST);
	ck_assert_uint_eq(out[0].a, 10);
	ck_assert_uint_eq(out[1].a, 9999);
	/* full: a loss; one slot free: the LOST record and the event need two */
	for (i = 0; i < SR_TRACE_RING_LEN; i++) {
		e = ev(i);
		sr_trace_put(r, &e);
	}
	sr_trace_put(r, &e);                         /* lost */
	ck_assert_uint_eq(r->lost, 11);
	ck_assert_uint_eq(sr_trace_get(r, out, 1), 1);
	sr_trace_put(r, &e);                         /* lost again */
	ck_assert_uint_eq(r->lost, 12);
	ck_assert_uint_eq(sr_trace_get(r, out, 1), 1);
	e = ev(4242);
	sr_trace_put(r, &e);                         /* LOST + the event */
	ck_assert_uint_eq(r->lost, 12);
	ck_assert_uint_eq(sr_trace_get(r, out, SR_TRACE_RING_LEN),
			  SR_TRACE_RING_LEN);
	ck_assert_uint_eq(out[SR_TRACE_RING_LEN - 2].kind, SR_TRACE_LOST);
	ck_assert_uint_eq(out[SR_TRACE_RING_LEN - 2].a, 2);
	ck_assert_uint_eq(out[SR_TRACE_RING_LEN - 1].a, 4242);
	e = ev(1);
	sr_trace_put(r, &e);
	sr_trace_skip(r);
	ck_assert_uint_eq(sr_trace_get(r, out, 10), 0);
	free(r);
}
END_TEST

START_TEST(test_format_lines)
{
	static const struct {
		struct sr_trace_rec e;
		const char *want;
	} golden[] = {
		{ { .t_ns = 12004311000ull, .qpn = 0x11, .kind = SR_TRACE_REQ_SEND,
		    .p = SR_OPCODE(RC, SEND_ONLY), .a = 105, .b = 64, .c = 100,
		    .d = 106 },
		  "12.004311 qp 0x11 req  SEND_ONLY psn=105 len=64 window=[100..106) rd_out=0" },
		{ { .t_ns = 1000, .qpn = 2, .kind = SR_TRACE_NAK_RECV,
		    .f = 0x60, .a = 105, .b = 0 },
		  "0.000001 qp 0x2 req  got NAK PSN sequence error psn=105 msn=0" },
		{ { .qpn = 2, .kind = SR_TRACE_RNR_RECV, .f = 0x20 | 18,
		    .a = 7, .b = 3, .c = 5120, .d = 6 },
		  "0.000000 qp 0x2 req  got RNR-NAK timer=18 psn=7 msn=3: wait 5120 us, rnr retries left 6" },
		{ { .qpn = 2, .kind = SR_TRACE_GO_BACK,
		    .f = SR_TRACE_WHY_BY_SEQ_NAK, .a = 105, .b = 116, .c = 6 },
		  "0.000000 qp 0x2 req  go-back-N from psn=105 (sequence NAK), next psn was 116, retries left 6" },
		{ { .qpn = 2, .kind = SR_TRACE_RESP_REQ,
		    .p = SR_OPCODE(RC, WRITE_MIDDLE), .f = SR_TRACE_WHY_SEQ_NAK,
		    .a = 106, .b = 1024, .c = 105 },
		  "0.000000 qp 0x2 resp WRITE_MIDDLE psn=106 len=1024 expected=105: out of sequence: sequence NAK sent" },
		{ { .qpn = 2, .kind = SR_TRACE_STATE, .p = SR_QPS_ERR,
		    .f = SR_QPS_RTS, .a = SR_TRACE_WHY_ERR_ACCESS },
		  "0.000000 qp 0x2 qp   RTS -> ERR (responder: remote access error)" },
		{ { .qpn = 2, .kind = SR_TRACE_COMP, .p = SR_WC_SUCCESS,
		    .f = SR_WC_OP_RDMA_READ, .a = 4096, .b = 7 },
		  "0.000000 qp 0x2 comp RDMA_READ success len=4096 wr_id=0x7" },
	};
	char line[256];

	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		sr_trace_format(&golden[i].e, 0, line, sizeof(line));
		ck_assert_str_eq(line, golden[i].want);
	}
	/* every kind: a name, a side, and no conversion left unexpanded */
	for (unsigned int k = 0; k < SR_TRACE_KIND_MAX; k++) {
		struct sr_trace_rec e = { .kind = (uint8_t)k, .p = 0x04,
					  .f = 1, .a = 1, .b = 2, .c = 3, .d = 4 };

		ck_assert_ptr_nonnull(sr_trace_kind_name(k));
		ck_assert_ptr_nonnull(sr_trace_kind_side(k));
		sr_trace_format(&e, 0, line, sizeof(line));
		ck_assert_msg(strchr(line, '%') == NULL, "kind %s: %s",
			      sr_trace_kind_name(k), line);
	}
	ck_assert_ptr_null(sr_trace_kind_name(SR_TRACE_KIND_MAX));
	/* truncation keeps a terminated string */
	ck_assert_int_eq(sr_trace_format(&golden[0].e, 0, line, 20), 19);
	ck_assert_uint_eq(strlen(line), 19);
}
END_TEST

/* A two-node pair with a trace ring each. */
static void pair_init(struct h_pair *p, struct sr_trace_ring *r[2])
{
	struct h_opts o;

	h_default_opts(&o, SR_QPT_RC);
	o.mtu = SR_MTU_1024;
	r[0] = ring_new();
	r[1] = ring_new();
	o.trace[0] = r[0];
	o.trace[1] = r[1];
	h_pair_init(p, &o);
}

START_TEST(test_off_writes_nothing)
{
	struct sr_trace_ring *r[2];
	struct h_pair p;
	struct sr_wc wc;

	pair_init(&p, r);
	ck_assert_int_eq(h_post_recv(&p, 1, 1, 0, 8192), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 4096, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	h_settle(&p);
	ck_assert_uint_eq(r[0]->head, 0);
	ck_assert_uint_eq(r[1]->head, 0);
	ck_assert(!sr_qp_traced(p.n[0].qp));
	/* the switch: no such QP; on; off again */
	ck_assert_int_eq(sr_dev_trace_qp(p.n[0].dev, 0xabcd, true), -ENOENT);
	ck_assert_int_eq(sr_dev_trace_qp(p.n[0].dev, sr_qp_num(p.n[0].qp),
					 true), 0);
	ck_assert(sr_qp_traced(p.n[0].qp));
	ck_assert_int_eq(sr_dev_trace_qp(p.n[0].dev, sr_qp_num(p.n[0].qp),
					 false), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 2, 0, 4096, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 100000), 1);
	h_settle(&p);
	ck_assert_uint_eq(r[0]->head, 0);
	h_pair_fini(&p);
	free(r[0]);
	free(r[1]);
}
END_TEST

START_TEST(test_no_ring)
{
	struct h_pair p;
	struct h_opts o;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	ck_assert_int_eq(sr_dev_trace_qp(p.n[0].dev, sr_qp_num(p.n[0].qp),
					 true), -ENOTSUP);
	h_pair_fini(&p);
}
END_TEST

/* Swallow node 0's third request packet, once. */
static bool drop_third(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	int *n = ctx;

	(void)frame;
	(void)len;
	return !(from == 0 && (*n)++ == 2);
}

/* The first record of kind k at or after *at (moved past it), or NULL. */
static const struct sr_trace_rec *find(const struct sr_trace_rec *e,
				       unsigned int n, unsigned int *at,
				       uint8_t k)
{
	for (; *at < n; (*at)++)
		if (e[*at].kind == k)
			return &e[(*at)++];
	return NULL;
}

START_TEST(test_lost_packet)
{
	static struct sr_trace_rec e[2][SR_TRACE_RING_LEN];
	const struct sr_trace_rec *x;
	struct sr_trace_ring *r[2];
	unsigned int n[2], at = 0;
	struct h_pair p;
	struct sr_wc wc;
	uint32_t psn0;
	int count = 0;

	pair_init(&p, r);
	psn0 = p.o.psn0;
	sim_set_tap(p.net, drop_third, &count);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(sr_dev_trace_qp(p.n[i].dev,
						 sr_qp_num(p.n[i].qp), true), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 7, 0, 8192, 0,
				     SR_SEND_SIGNALED), 0);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_settle(&p);
	n[0] = sr_trace_get(r[0], e[0], SR_TRACE_RING_LEN);
	n[1] = sr_trace_get(r[1], e[1], SR_TRACE_RING_LEN);

	/* requester: 8 sent, the NAK, back to psn0 + 2, resent, completed */
	x = find(e[0], n[0], &at, SR_TRACE_REQ_SEND);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->a, psn0);
	ck_assert_uint_eq(x->p, SR_OPCODE(RC, WRITE_FIRST));
	x = find(e[0], n[0], &at, SR_TRACE_NAK_RECV);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->a, psn0 + 2);
	ck_assert_uint_eq(x->f, 0x60);                 /* sequence NAK */
	x = find(e[0], n[0], &at, SR_TRACE_GO_BACK);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->a, psn0 + 2);
	ck_assert_uint_eq(x->f, SR_TRACE_WHY_BY_SEQ_NAK);
	x = find(e[0], n[0], &at, SR_TRACE_REQ_RESEND);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->a, psn0 + 2);
	ck_assert_uint_eq(x->c, psn0 + 2);             /* window start */
	x = find(e[0], n[0], &at, SR_TRACE_COMP);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->p, SR_WC_SUCCESS);
	ck_assert_uint_eq(x->b, 7);
	for (unsigned int i = 0; i < n[0]; i++)
		ck_assert_uint_eq(e[0][i].qpn, sr_qp_num(p.n[0].qp));

	/* responder: the gap seen once with a NAK, then the WRITE executed */
	at = 0;
	x = find(e[1], n[1], &at, SR_TRACE_RESP_REQ);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->f, SR_TRACE_WHY_EXECUTED);
	while ((x = find(e[1], n[1], &at, SR_TRACE_RESP_REQ)) != NULL &&
	       x->f == SR_TRACE_WHY_EXECUTED)
		;
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->f, SR_TRACE_WHY_SEQ_NAK);
	ck_assert_uint_eq(x->a, psn0 + 3);
	ck_assert_uint_eq(x->c, psn0 + 2);
	x = find(e[1], n[1], &at, SR_TRACE_RESP_SEND);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->f, 0x60);
	ck_assert_uint_eq(x->a, psn0 + 2);
	h_pair_fini(&p);
	free(r[0]);
	free(r[1]);
}
END_TEST

START_TEST(test_state_changes)
{
	static struct sr_trace_rec e[64];
	struct sr_trace_ring *r[2];
	struct sr_qp_attr a = { .qp_state = SR_QPS_ERR };
	struct h_pair p;
	unsigned int n;

	pair_init(&p, r);
	ck_assert_int_eq(sr_dev_trace_qp(p.n[0].dev, sr_qp_num(p.n[0].qp),
					 true), 0);
	ck_assert_int_eq(sr_qp_modify(p.n[0].qp, &a, SR_QP_STATE), 0);
	n = sr_trace_get(r[0], e, 64);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_eq(e[0].kind, SR_TRACE_STATE);
	ck_assert_uint_eq(e[0].f, SR_QPS_RTS);
	ck_assert_uint_eq(e[0].p, SR_QPS_ERR);
	ck_assert_uint_eq(e[0].a, SR_TRACE_WHY_MODIFY);
	h_pair_fini(&p);
	free(r[0]);
	free(r[1]);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("core_trace");
	TCase *tc = tcase_create("trace");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_ring_order_wrap);
	tcase_add_test(tc, test_ring_overrun);
	tcase_add_test(tc, test_format_lines);
	tcase_add_test(tc, test_off_writes_nothing);
	tcase_add_test(tc, test_no_ring);
	tcase_add_test(tc, test_lost_packet);
	tcase_add_test(tc, test_state_changes);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(trace_suite)
