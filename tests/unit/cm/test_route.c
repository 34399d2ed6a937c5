/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm/route: a port shared by two processes' CMs (blocks 3 and 5, as
 * sroced gives them) and a remote CM.  A router built only on
 * sr_cm_route_rx / sr_cm_route_sender and a listener table fed by the
 * CMs' listen op carries every MAD: connections in both directions reach
 * ESTABLISHED and disconnect, each MAD reaches only the CM it names, a
 * MAD that speaks for another block is refused, and what belongs to the
 * port's owner (a REQ for a service nobody listens on, a Get) goes there.
 */
#include <errno.h>
#include <string.h>

#include "cm/cm.h"
#include "cm/route.h"
#include "sr_check.h"

#define SVC_A 0x0000000001061C06ull
#define SVC_R 0x0000000001061C07ull
#define MS    1000000ull

enum { A, B, R, N };            /* A, B share the port; R is remote */

struct cmside {
	struct sr_cm *cm;
	struct sr_cm_addr addr;
	uint32_t block;
	int events[SR_CM_EVENT_COUNT];
	struct sr_cm_id *last;
	int got;                   /* MADs routed to it */
};

static struct cmside S[N];
static uint64_t now = 1000;
static struct { uint64_t sid; int owner; } lis[8];
static int nlis, to_owner, refused, listen_calls;
static struct { int to; struct sr_cm_addr from; uint8_t mad[SR_MAD_SIZE]; } q[64];
static unsigned int qn;

static int on_listen(void *ctx, uint64_t sid, bool on)
{
	struct cmside *s = ctx;
	int me = (int)(s - S);

	listen_calls++;
	for (int i = 0; i < nlis; i++)
		if (lis[i].sid == sid) {
			if (on)
				return lis[i].owner == me ? 0 : -EADDRINUSE;
			lis[i] = lis[--nlis];
			return 0;
		}
	if (on) {
		lis[nlis].sid = sid;
		lis[nlis++].owner = me;
	}
	return 0;
}

/* The router: what sroced's switch does with a MAD for QP1. */
static int route_in(const uint8_t *mad)
{
	struct sr_cm_route r;

	sr_cm_route_rx(mad, SR_MAD_SIZE, &r);
	if (r.kind == SR_CM_ROUTE_SERVICE) {
		for (int i = 0; i < nlis; i++)
			if (lis[i].sid == r.service_id)
				return lis[i].owner;
	} else if (r.kind == SR_CM_ROUTE_COMM_ID) {
		for (int i = A; i <= B; i++)
			if (sr_cm_comm_id_block(r.comm_id) == S[i].block)
				return i;
	}
	return -1;
}

static void on_send(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	struct cmside *s = ctx;
	int me = (int)(s - S), dst;
	uint32_t id;

	(void)to;
	if (me == R) {
		dst = route_in(mad);
		if (dst < 0) {
			to_owner++;
			return;
		}
	} else {
		/* a process of the port: it must speak for its own block */
		int k = sr_cm_route_sender(mad, SR_MAD_SIZE, &id);

		ck_assert_int_ge(k, 0);
		if (k == 1 && sr_cm_comm_id_block(id) != s->block) {
			refused++;
			return;
		}
		dst = R;
	}
	ck_assert_uint_lt(qn, 64);
	q[qn].to = dst;
	q[qn].from = s->addr;
	memcpy(q[qn].mad, mad, SR_MAD_SIZE);
	qn++;
}

static void on_event(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	struct cmside *s = ctx;

	s->events[ev->type]++;
	s->last = id;
	if (ev->type == SR_CM_EVENT_REQ_RCVD) {
		struct sr_cm_rep_param p = { .qpn = 0x3001, .psn = 1,
					     .rnr_retry_count = 7 };

		ck_assert_int_eq(sr_cm_accept(id, now, &p), 0);
	} else if (ev->type == SR_CM_EVENT_REP_RCVD) {
		ck_assert_int_eq(sr_cm_rtu(id, now, NULL, 0), 0);
	} else if (ev->type == SR_CM_EVENT_DREQ_RCVD) {
		ck_assert_int_eq(sr_cm_drep(id, now, NULL, 0), 0);
	}
}

static void pump(void)
{
	for (unsigned int i = 0; i < qn; i++) {
		S[q[i].to].got++;
		sr_cm_input(S[q[i].to].cm, now, &q[i].from, q[i].mad, SR_MAD_SIZE);
	}
	qn = 0;
}

static void setup(void)
{
	memset(S, 0, sizeof(S));
	nlis = to_owner = refused = listen_calls = 0;
	qn = 0;
	for (int i = 0; i < N; i++) {
		struct sr_cm_cfg cfg = {
			.ops = { .send = on_send, .event = on_event,
				 .listen = i == R ? NULL : on_listen, .ctx = &S[i] },
			.max_ids = 16, .timewait_ns = 10 * MS,
			.comm_id_seed = 11u * (uint32_t)i + 3,
			.comm_id_block = i == A ? 3 : i == B ? 5 : 0,
		};

		S[i].block = cfg.comm_id_block;
		memset(S[i].addr.gid, 0, 16);
		S[i].addr.gid[15] = i == R ? 2 : 1;     /* A and B: one address */
		S[i].addr.pkey = 0xFFFF;
		S[i].cm = sr_cm_create(&cfg);
		ck_assert_ptr_nonnull(S[i].cm);
	}
}

static void teardown(void)
{
	for (int i = 0; i < N; i++)
		sr_cm_destroy(S[i].cm);
}

static struct sr_cm_id *connect_to(int from, int to, uint64_t svc)
{
	struct sr_cm_req_param p = {
		.service_id = svc, .peer = S[to].addr, .qpn = 0x5001, .psn = 2,
		.transport = SR_CM_TRANSPORT_RC, .retry_count = 7,
		.rnr_retry_count = 7, .path_mtu = 3, .remote_cm_timeout = 20,
		.local_cm_timeout = 20, .max_cm_retries = 3,
	};
	struct sr_cm_id *id;

	ck_assert_int_eq(sr_cm_connect(S[from].cm, now, &p, NULL, &id), 0);
	return id;
}

START_TEST(test_ids_carry_the_block)
{
	struct sr_cm_cfg bad = { .ops = { .send = on_send, .event = on_event },
				 .comm_id_block = 3, .max_ids = 2048 };
	struct sr_cm_id *l;

	ck_assert_ptr_null(sr_cm_create(&bad));
	bad.max_ids = 0;
	bad.comm_id_block = SR_CM_COMM_ID_BLOCKS;
	ck_assert_ptr_null(sr_cm_create(&bad));
	/* every new id of A and B is in its block, slots reused or not */
	for (int i = 0; i < 40; i++) {
		ck_assert_int_eq(sr_cm_listen(S[B].cm, 0x100 + (uint64_t)i, NULL, &l), 0);
		ck_assert_uint_eq(sr_cm_comm_id_block(sr_cm_id_local(l)), 5);
		sr_cm_id_destroy(l, now);
	}
	ck_assert_int_eq(nlis, 0);
	ck_assert_int_eq(listen_calls, 80);
}
END_TEST

START_TEST(test_listen_is_registered)
{
	struct sr_cm_id *la, *lb;

	ck_assert_int_eq(sr_cm_listen(S[A].cm, SVC_A, NULL, &la), 0);
	ck_assert_int_eq(nlis, 1);
	/* B may not take A's service: refused by the owner, no id leaked */
	ck_assert_int_eq(sr_cm_listen(S[B].cm, SVC_A, NULL, &lb), -EADDRINUSE);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[B].cm), 0);
	sr_cm_id_destroy(la, now);
	ck_assert_int_eq(nlis, 0);
	ck_assert_int_eq(sr_cm_listen(S[B].cm, SVC_A, NULL, &lb), 0);
	ck_assert_int_eq(lis[0].owner, B);
	/* sr_cm_destroy unregisters what is left */
	sr_cm_destroy(S[B].cm);
	S[B].cm = NULL;
	ck_assert_int_eq(nlis, 0);
}
END_TEST

START_TEST(test_both_directions)
{
	struct sr_cm_id *la, *lr, *ra, *bid;

	ck_assert_int_eq(sr_cm_listen(S[A].cm, SVC_A, NULL, &la), 0);
	ck_assert_int_eq(sr_cm_listen(S[R].cm, SVC_R, NULL, &lr), 0);
	/* the remote connects to A's service: REQ by service ID, RTU by ID */
	ra = connect_to(R, A, SVC_A);
	/* B connects out: the REP comes back to B by its ID */
	bid = connect_to(B, R, SVC_R);
	for (int i = 0; i < 6 && qn; i++)
		pump();
	ck_assert_int_eq(sr_cm_id_state(ra), SR_CM_ESTABLISHED);
	ck_assert_int_eq(sr_cm_id_state(bid), SR_CM_ESTABLISHED);
	ck_assert_int_eq(S[A].events[SR_CM_EVENT_REQ_RCVD], 1);
	ck_assert_int_eq(S[A].events[SR_CM_EVENT_ESTABLISHED], 1);
	ck_assert_int_eq(S[B].events[SR_CM_EVENT_REP_RCVD], 1);
	ck_assert_int_eq(S[B].events[SR_CM_EVENT_REQ_RCVD], 0);
	ck_assert_int_eq(S[A].got, 2);           /* REQ, RTU */
	ck_assert_int_eq(S[B].got, 1);           /* REP */
	/* disconnects: the remote's DREQ reaches A, B's DREP reaches B */
	ck_assert_int_eq(sr_cm_disconnect(ra, now, NULL, 0), 0);
	ck_assert_int_eq(sr_cm_disconnect(bid, now, NULL, 0), 0);
	for (int i = 0; i < 6 && qn; i++)
		pump();
	ck_assert_int_eq(S[A].events[SR_CM_EVENT_DREQ_RCVD], 1);
	ck_assert_int_eq(S[B].events[SR_CM_EVENT_DISCONNECTED], 1);
	ck_assert_int_eq(S[A].got, 3);
	ck_assert_int_eq(S[B].got, 2);
	ck_assert_int_eq(to_owner + refused, 0);
}
END_TEST

START_TEST(test_owner_and_forgery)
{
	struct sr_cm_msg m = { .method = SR_MAD_METHOD_SEND, .attr = SR_CM_ATTR_REP,
			       .local_comm_id = 3u << 20 | 7, .remote_comm_id = 9 };
	uint8_t mad[SR_MAD_SIZE];
	struct sr_cm_route r;
	uint32_t id;

	/* a REQ for a service nobody listens on: the owner's (it REJects) */
	(void)connect_to(R, A, 0x1234);
	ck_assert_int_eq(to_owner, 1);
	/* a REP that claims to be block 3's, sent by B: refused */
	ck_assert_int_eq(sr_mad_build(&m, mad), (int)SR_MAD_SIZE);
	ck_assert_int_eq(sr_cm_route_sender(mad, SR_MAD_SIZE, &id), 1);
	ck_assert_uint_eq(id, 3u << 20 | 7);
	on_send(&S[B], &S[R].addr, mad);
	ck_assert_int_eq(refused, 1);
	/* received, it goes by its remote ID (9: block 0, the owner's) */
	sr_cm_route_rx(mad, SR_MAD_SIZE, &r);
	ck_assert_int_eq(r.kind, SR_CM_ROUTE_COMM_ID);
	ck_assert_uint_eq(r.comm_id, 9);
	/* a REJ with no ID of its own, a SIDR_REP: nothing to check */
	m.attr = SR_CM_ATTR_REJ;
	m.local_comm_id = 0;
	m.remote_comm_id = 0;
	ck_assert_int_eq(sr_mad_build(&m, mad), (int)SR_MAD_SIZE);
	ck_assert_int_eq(sr_cm_route_sender(mad, SR_MAD_SIZE, &id), 0);
	sr_cm_route_rx(mad, SR_MAD_SIZE, &r);
	ck_assert_int_eq(r.kind, SR_CM_ROUTE_OWNER);   /* remote ID 0 */
	/* a Get, a truncated MAD, garbage: the owner's; no process sends them */
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = SR_MAD_CLASS_CM;
	mad[2] = 2;
	mad[3] = SR_MAD_METHOD_GET;
	mad[17] = 1;                                   /* ClassPortInfo */
	sr_cm_route_rx(mad, SR_MAD_SIZE, &r);
	ck_assert_int_eq(r.kind, SR_CM_ROUTE_OWNER);
	ck_assert_int_eq(sr_cm_route_sender(mad, SR_MAD_SIZE, &id), -1);
	sr_cm_route_rx(mad, 100, &r);
	ck_assert_int_eq(r.kind, SR_CM_ROUTE_OWNER);
	ck_assert_int_eq(sr_cm_route_sender(mad, 100, &id), -1);
	sr_cm_route_rx(NULL, 0, &r);
	ck_assert_int_eq(r.kind, SR_CM_ROUTE_OWNER);
}
END_TEST

static Suite *route_suite(void)
{
	Suite *s = suite_create("cm_route");
	TCase *tc = tcase_create("route");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ids_carry_the_block);
	tcase_add_test(tc, test_listen_is_registered);
	tcase_add_test(tc, test_both_directions);
	tcase_add_test(tc, test_owner_and_forgery);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(route_suite)
