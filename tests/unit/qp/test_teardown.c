/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a consumer sees at the edges of an object's life: objects that hold
 * rings are cache-line aligned, a send-queue slot is free again by the
 * time its completion is visible, and a QP destroyed right after its last
 * receive completion still sends the ACK it owes.
 */
#include <stdint.h>

#include "../transport/harness.h"
#include "sr_check.h"
#include "wire/parse.h"

START_TEST(objects_are_cache_aligned)
{
	struct h_pair p;
	struct h_opts o;

	h_default_opts(&o, SR_QPT_RC);
	o.srq = true;
	h_pair_init(&p, &o);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq((uintptr_t)p.n[i].qp % 64, 0);
		ck_assert_uint_eq((uintptr_t)p.n[i].scq % 64, 0);
		ck_assert_uint_eq((uintptr_t)p.n[i].rcq % 64, 0);
		ck_assert_uint_eq((uintptr_t)p.n[i].srq % 64, 0);
		ck_assert_uint_eq((uintptr_t)p.n[i].dev % 64, 0);
		ck_assert_ptr_eq(sr_srq_context(p.n[i].srq), NULL);
		sr_srq_set_context(p.n[i].srq, &p.n[i]);
		ck_assert_ptr_eq(sr_srq_context(p.n[i].srq), &p.n[i]);
	}
	h_pair_fini(&p);
}
END_TEST

/*
 * A full send queue: when a send completion becomes visible (the notify
 * callback runs at that moment, on the engine), its slot is already free,
 * so a consumer on another thread that reposts at once finds room.
 */
static struct h_pair *full_pair;
static unsigned int reposted, refused;

static void repost_on_completion(struct sr_cq *cq, void *ctx)
{
	(void)ctx;
	if (full_pair == NULL)
		return;
	if (h_post_send(full_pair, 0, SR_WR_RDMA_WRITE, 1000 + reposted, 0, 8,
			0, SR_SEND_SIGNALED) == 0)
		reposted++;
	else
		refused++;
	sr_cq_req_notify(cq, false);
}

START_TEST(slot_free_when_completion_visible)
{
	struct h_pair p;
	struct h_opts o;
	struct sr_qp_attr a;
	struct sr_qp_init_attr init;
	struct sr_wc wc[64];
	uint32_t depth;

	h_default_opts(&o, SR_QPT_RC);
	o.scq_notify = repost_on_completion;
	h_pair_init(&p, &o);
	full_pair = &p;
	reposted = refused = 0;
	ck_assert_int_eq(sr_qp_query(p.n[0].qp, &a, &init), 0);
	depth = init.cap.max_send_wr;
	for (uint32_t i = 0; i < depth; i++)
		ck_assert_int_eq(h_post_send(&p, 0, SR_WR_RDMA_WRITE, i, 0, 8, 0,
					     SR_SEND_SIGNALED), 0);
	ck_assert_int_ne(h_post_send(&p, 0, SR_WR_RDMA_WRITE, 999, 0, 8, 0,
				     SR_SEND_SIGNALED), 0);
	sr_cq_req_notify(p.n[0].scq, false);
	for (int i = 0; i < 200 && reposted < depth; i++) {
		h_settle(&p);
		while (sr_cq_poll(p.n[0].scq, 64, wc) > 0)
			;
	}
	ck_assert_uint_eq(refused, 0);
	ck_assert_uint_ge(reposted, depth);
	/* Stop reposting and drain. */
	full_pair = NULL;
	sr_cq_req_notify(p.n[0].scq, false);
	h_pair_fini(&p);
}
END_TEST

struct grab {
	uint8_t frame[2048];
	uint32_t len;
	bool held;          /* swallow node 0's next request */
	unsigned int acks_from_1;
};

static bool grab_tap(void *ctx, int from, uint8_t *frame, uint32_t *len)
{
	struct grab *g = ctx;
	struct sr_pkt pkt;

	if (sr_parse_eth(frame, *len, 0, &pkt) != SR_PARSE_OK)
		return true;
	if (from == 1 && pkt.op->kind == SR_KIND_ACK)
		g->acks_from_1++;
	if (from == 0 && !g->held && (pkt.op->flags & SR_OPF_REQ)) {
		memcpy(g->frame, frame, *len);
		g->len = *len;
		g->held = true;
		return false;
	}
	return true;
}

START_TEST(destroy_sends_owed_ack)
{
	struct grab g = { 0 };
	struct h_pair p;
	struct h_opts o;
	struct sr_wc wc;

	h_default_opts(&o, SR_QPT_RC);
	h_pair_init(&p, &o);
	sim_set_tap(p.net, grab_tap, &g);
	ck_assert_int_eq(h_post_recv(&p, 1, 7, 0, 64), 0);
	ck_assert_int_eq(h_post_send(&p, 0, SR_WR_SEND, 1, 0, 64, 0,
				     SR_SEND_SIGNALED), 0);
	/* Let node 0 build its SEND; the tap keeps it off the wire. */
	for (int i = 0; i < 100 && !g.held; i++)
		sim_step(p.net);
	ck_assert(g.held);
	/* Node 1 receives it with no engine poll after: the ACK is owed. */
	sr_dev_rx(p.n[1].dev, g.frame, g.len);
	ck_assert_int_eq(sr_cq_poll(p.n[1].rcq, 1, &wc), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	ck_assert_uint_eq(g.acks_from_1, 0);
	/* The consumer tears down at once; the ACK must still go out. */
	ck_assert_int_eq(sr_qp_destroy(p.n[1].qp), 0);
	p.n[1].qp = NULL;
	ck_assert_uint_eq(g.acks_from_1, 1);
	ck_assert_int_eq(h_wait_cq(&p, p.n[0].scq, &wc, 1, 1000000), 1);
	ck_assert_int_eq(wc.status, SR_WC_SUCCESS);
	h_pair_fini(&p);
}
END_TEST

static Suite *teardown_suite(void)
{
	Suite *s = suite_create("qp_teardown");
	TCase *tc = tcase_create("edges");

	tcase_add_test(tc, objects_are_cache_aligned);
	tcase_add_test(tc, slot_free_when_completion_visible);
	tcase_add_test(tc, destroy_sends_owed_ack);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(teardown_suite)
