/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CM state machine: two CMs wired back to back through a simulated
 * datagram link that loses and duplicates chosen MADs, driven by a fake
 * clock.  Each test ends with no id leaked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm/cm.h"
#include "cm/cma_hdr.h"
#include "sr_check.h"

#define SVC 0x0000000001061C06ull   /* rdma_cm TCP port space, port 7174 */
#define MS  1000000ull

struct side;

struct frame {
	int to;                     /* 0 = A, 1 = B */
	struct sr_cm_addr from;
	uint8_t mad[SR_MAD_SIZE];
};

/* What a side's consumer does on each event. */
struct policy {
	bool accept, reject, mra, rtu, drep, sidr_rep;
};

struct side {
	struct sr_cm *cm;
	struct sr_cm_addr addr;
	struct policy pol;
	int events[SR_CM_EVENT_COUNT];
	struct sr_cm_id *last;      /* id of the last event */
	struct sr_cm_msg last_msg;  /* copy of the last event's MAD */
	uint8_t timed_out;
	int idx;
};

static struct side S[2];
static struct frame q[256];
static unsigned int qn;
static uint64_t now;
/* Loss and duplication: drop_attr[id] = how many of that attribute to lose
 * next; dup_attr likewise to deliver twice.  to_void drops everything. */
static int drop_attr[0x20], dup_attr[0x20], sent_attr[2][0x20];
static bool to_void;

static void link_send(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	struct side *s = ctx;
	unsigned int attr = sr_get_be16(mad + 16) & 0x1F;

	(void)to;
	sent_attr[s->idx][attr]++;
	if (to_void)
		return;
	if (drop_attr[attr] > 0) {
		drop_attr[attr]--;
		return;
	}
	for (int n = dup_attr[attr] > 0 ? 2 : 1; n > 0; n--) {
		ck_assert_uint_lt(qn, 256);
		q[qn].to = !s->idx;
		q[qn].from = s->addr;
		memcpy(q[qn].mad, mad, SR_MAD_SIZE);
		qn++;
	}
	if (dup_attr[attr] > 0)
		dup_attr[attr]--;
}

static void on_event(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	struct side *s = ctx;
	static const uint8_t rep_pd[] = "rep-pd";

	s->events[ev->type]++;
	s->last = id;
	s->timed_out = ev->timed_out;
	if (ev->msg != NULL)
		s->last_msg = *ev->msg;
	switch (ev->type) {
	case SR_CM_EVENT_REQ_RCVD:
		if (s->pol.reject) {
			ck_assert_int_eq(sr_cm_reject(id, now, SR_CM_REJ_CONSUMER_DEFINED,
						      (const uint8_t *)"nope", 4), 0);
		} else if (s->pol.mra) {
			ck_assert_int_eq(sr_cm_mra(id, now, 22, NULL, 0), 0);
		} else if (s->pol.accept) {
			struct sr_cm_rep_param p = {
				.qpn = 0x22, .psn = 0x222, .rnr_retry_count = 7,
				.pdata = rep_pd, .pdata_len = sizeof(rep_pd),
			};
			ck_assert_int_eq(sr_cm_accept(id, now, &p), 0);
		}
		break;
	case SR_CM_EVENT_REP_RCVD:
		if (s->pol.rtu)
			ck_assert_int_eq(sr_cm_rtu(id, now, NULL, 0), 0);
		break;
	case SR_CM_EVENT_DREQ_RCVD:
		if (s->pol.drep)
			ck_assert_int_eq(sr_cm_drep(id, now, NULL, 0), 0);
		break;
	case SR_CM_EVENT_SIDR_REQ_RCVD:
		if (s->pol.sidr_rep)
			ck_assert_int_eq(sr_cm_sidr_rep(id, now, SR_CM_SIDR_SUCCESS,
							0x33, 0x12345678, NULL, 0), 0);
		break;
	default:
		break;
	}
}

static void setup(void)
{
	memset(S, 0, sizeof(S));
	memset(drop_attr, 0, sizeof(drop_attr));
	memset(dup_attr, 0, sizeof(dup_attr));
	memset(sent_attr, 0, sizeof(sent_attr));
	qn = 0;
	now = 1000;
	to_void = false;
	for (int i = 0; i < 2; i++) {
		struct sr_cm_cfg cfg = {
			.ops = { .send = link_send, .event = on_event, .ctx = &S[i] },
			.max_ids = 16, .ca_guid = 0x1000 + (uint64_t)i,
			.timewait_ns = 100 * MS, .comm_id_seed = 7u * (uint32_t)i + 1,
		};

		S[i].idx = i;
		sr_cma_ipv4_gid(S[i].addr.gid, (uint8_t[]){ 10, 77, 0, (uint8_t)(11 + i) });
		S[i].addr.pkey = 0xFFFF;
		S[i].cm = sr_cm_create(&cfg);
		ck_assert_ptr_nonnull(S[i].cm);
		S[i].pol = (struct policy){ .accept = true, .rtu = true, .drep = true,
					    .sidr_rep = true };
	}
}

static void teardown(void)
{
	for (int i = 0; i < 2; i++)
		sr_cm_destroy(S[i].cm);
}

/* Deliver everything queued (and what that makes) in order. */
static void pump(void)
{
	for (unsigned int i = 0; i < qn; i++) {
		struct frame f = q[i];

		sr_cm_input(S[f.to].cm, now, &f.from, f.mad, SR_MAD_SIZE);
	}
	qn = 0;
}

/* Advance the clock to the next deadline of either side and run it. */
static bool tick(void)
{
	uint64_t a = sr_cm_next_deadline(S[0].cm), b = sr_cm_next_deadline(S[1].cm);
	uint64_t t = a < b ? a : b;

	if (t == UINT64_MAX)
		return false;
	if (t > now)
		now = t;
	sr_cm_poll(S[0].cm, now);
	sr_cm_poll(S[1].cm, now);
	pump();
	return true;
}

static void run_until_quiet(void)
{
	pump();
	for (int i = 0; i < 200 && tick(); i++)
		;
}

static struct sr_cm_id *listen_b(void)
{
	struct sr_cm_id *l;

	ck_assert_int_eq(sr_cm_listen(S[1].cm, SVC, &S[1], &l), 0);
	return l;
}

static struct sr_cm_id *connect_a(uint64_t svc)
{
	uint8_t pd[SR_CMA_HDR_SIZE + 4];
	struct sr_cma_addr ca = { .ip_version = 4, .port = 40000 };
	struct sr_cm_req_param p = {
		.service_id = svc, .peer = S[1].addr, .qpn = 0x11, .psn = 0x111,
		.transport = SR_CM_TRANSPORT_RC, .retry_count = 7,
		.rnr_retry_count = 7, .path_mtu = 3, .remote_cm_timeout = 20,
		.local_cm_timeout = 20, .max_cm_retries = 3,
		.pdata = pd, .pdata_len = sizeof(pd),
	};
	struct sr_cm_id *id;

	memcpy(ca.src + 12, S[0].addr.gid + 12, 4);
	memcpy(ca.dst + 12, S[1].addr.gid + 12, 4);
	ck_assert_int_eq(sr_cma_hdr_put(pd, &ca), 0);
	memcpy(pd + SR_CMA_HDR_SIZE, "ping", 4);
	memcpy(p.path.local_gid, S[0].addr.gid, 16);
	memcpy(p.path.remote_gid, S[1].addr.gid, 16);
	p.path.local_lid = p.path.remote_lid = SR_CM_LID_PERMISSIVE;
	p.path.hop_limit = 64;
	ck_assert_int_eq(sr_cm_connect(S[0].cm, now, &p, &S[0], &id), 0);
	return id;
}

/* Connect, disconnect, timewait, destroy: nothing left but the listener. */
static void full_cycle(void)
{
	struct sr_cm_id *l = listen_b(), *a = connect_a(SVC), *b;
	struct sr_cma_addr ca;

	run_until_quiet();
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_REQ_RCVD], 1);
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_REP_RCVD], 1);
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_ESTABLISHED], 1);
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_ESTABLISHED);
	b = S[1].last;
	ck_assert_int_eq(sr_cm_id_state(b), SR_CM_ESTABLISHED);
	ck_assert_uint_eq(sr_cm_id_remote(a), sr_cm_id_local(b));
	ck_assert_uint_eq(sr_cm_id_remote(b), sr_cm_id_local(a));
	ck_assert_uint_eq(sr_cm_id_remote_qpn(a), 0x22);
	ck_assert_uint_eq(sr_cm_id_remote_qpn(b), 0x11);
	ck_assert_int_eq(sr_cm_disconnect(a, now, NULL, 0), 0);
	pump();
	while (S[0].events[SR_CM_EVENT_DISCONNECTED] == 0 && tick())
		;
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_DREQ_RCVD], 1);
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_DISCONNECTED], 1);
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_TIMEWAIT);
	/* B's timewait may be over already if its DREP was lost. */
	ck_assert(sr_cm_id_state(b) == SR_CM_TIMEWAIT || sr_cm_id_state(b) == SR_CM_IDLE);
	run_until_quiet();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_TIMEWAIT_EXIT], 1);
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_TIMEWAIT_EXIT], 1);
	(void)ca;
	sr_cm_id_destroy(a, now);
	sr_cm_id_destroy(b, now);
	sr_cm_id_destroy(l, now);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[0].cm), 0);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 0);
}

START_TEST(test_connect_disconnect)
{
	struct sr_cma_addr ca;

	listen_b();
	connect_a(SVC);
	pump();
	/* B saw the REQ with rdma_cm's header and our private data. */
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_REQ_RCVD], 1);
	teardown();
	setup();
	S[1].pol.accept = false;
	listen_b();
	connect_a(SVC);
	pump();
	ck_assert_uint_eq(S[1].last_msg.service_id, SVC);
	ck_assert_uint_eq(S[1].last_msg.qpn, 0x11);
	ck_assert_uint_eq(S[1].last_msg.psn, 0x111);
	ck_assert_uint_eq(S[1].last_msg.pri.local_lid, 0xFFFF);
	ck_assert_int_eq(sr_cma_hdr_get(S[1].last_msg.pdata, S[1].last_msg.pdata_len, &ca), 0);
	ck_assert_uint_eq(ca.port, 40000);
	ck_assert_mem_eq(S[1].last_msg.pdata + SR_CMA_HDR_SIZE, "ping", 4);
	sr_cm_id_destroy(S[1].last, now);   /* REJ consumer-defined */
	pump();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_REJ_RCVD], 1);
	ck_assert_uint_eq(S[0].last_msg.reason, SR_CM_REJ_CONSUMER_DEFINED);
	teardown();
	setup();
	full_cycle();
	ck_assert_uint_eq(sr_cm_counters(S[0].cm)->retransmits, 0);
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->rx_stale, 0);
}
END_TEST

/* Lose the first of each message in turn; the handshake still completes. */
START_TEST(test_loss)
{
	static const unsigned attrs[] = { 0x10, 0x13, 0x14, 0x15, 0x16 };
	unsigned int attr = attrs[_i];

	drop_attr[attr] = 1;
	full_cycle();
	ck_assert_int_eq(drop_attr[attr], 0);
	if (attr == 0x16)   /* DREP lost after B's timewait: answered anyway */
		ck_assert_uint_eq(sr_cm_counters(S[1].cm)->drep_unknown, 1);
	ck_assert_uint_ge(sr_cm_counters(S[0].cm)->retransmits +
			  sr_cm_counters(S[1].cm)->retransmits, 1);
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_REQ_RCVD], 1);
}
END_TEST

/* Deliver each message twice: duplicates are dropped or answered. */
START_TEST(test_duplicates)
{
	static const unsigned attrs[] = { 0x10, 0x13, 0x14, 0x15, 0x16 };
	unsigned int attr = attrs[_i];

	dup_attr[attr] = 1;
	full_cycle();
	/* A duplicate REQ is answered with the REP again, whose duplicate is
	 * answered with the RTU again, whose duplicate is dropped. */
	ck_assert_uint_ge(sr_cm_counters(S[0].cm)->rx_dup +
			  sr_cm_counters(S[1].cm)->rx_dup +
			  sr_cm_counters(S[0].cm)->dup_answered +
			  sr_cm_counters(S[1].cm)->dup_answered, 1);
	/* full_cycle saw each event exactly once on each side. */
	ck_assert_uint_eq(sr_cm_counters(S[0].cm)->retransmits +
			  sr_cm_counters(S[1].cm)->retransmits, 0);
}
END_TEST

START_TEST(test_reject_with_pdata)
{
	struct sr_cm_id *l = listen_b(), *a;

	S[1].pol.reject = true;
	a = connect_a(SVC);
	pump();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_REJ_RCVD], 1);
	ck_assert_uint_eq(S[0].last_msg.reason, SR_CM_REJ_CONSUMER_DEFINED);
	ck_assert_uint_eq(S[0].last_msg.msg_type, SR_CM_MSG_REQ);
	ck_assert_mem_eq(S[0].last_msg.pdata, "nope", 4);
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_IDLE);
	ck_assert_int_eq(sr_cm_id_state(S[1].last), SR_CM_IDLE);
	ck_assert_uint_eq(sr_cm_next_deadline(S[0].cm), UINT64_MAX);
	sr_cm_id_destroy(S[1].last, now);
	sr_cm_id_destroy(a, now);
	sr_cm_id_destroy(l, now);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[0].cm), 0);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 0);
}
END_TEST

START_TEST(test_no_listener)
{
	struct sr_cm_id *a = connect_a(SVC + 1);

	pump();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_REJ_RCVD], 1);
	ck_assert_uint_eq(S[0].last_msg.reason, SR_CM_REJ_INVALID_SERVICE_ID);
	ck_assert_uint_eq(S[0].last_msg.remote_comm_id, sr_cm_id_local(a));
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->rej_no_listener, 1);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 0);
	sr_cm_id_destroy(a, now);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[0].cm), 0);
}
END_TEST

/* A REQ for RD (or the reserved transport value): REJ 9, no id made. */
START_TEST(test_rd_refused)
{
	struct sr_cm_msg m = { .attr = SR_CM_ATTR_REQ, .local_comm_id = 5,
			       .service_id = SVC, .transport_type = SR_CM_TRANSPORT_RD };
	uint8_t mad[SR_MAD_SIZE];

	listen_b();
	for (uint8_t t = SR_CM_TRANSPORT_RD; t <= 3; t++) {
		m.transport_type = t;
		ck_assert_int_eq(sr_mad_build(&m, mad), 256);
		sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
		ck_assert_uint_eq(qn, 1);
		ck_assert_uint_eq(sr_get_be16(q[0].mad + 24 + 10), SR_CM_REJ_INVALID_TRANSPORT);
		ck_assert_uint_eq(sr_get_be32(q[0].mad + 24 + 4), 5);
		qn = 0;
	}
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->rej_transport, 2);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 1);   /* the listener */
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_REQ_RCVD], 0);
}
END_TEST

/* The peer vanishes: the REQ is sent 1 + max_cm_retries times, then the
 * consumer hears TIMEOUT and the id is IDLE (as Linux's REQ error). */
START_TEST(test_peer_vanishes)
{
	struct sr_cm_id *a;

	to_void = true;
	a = connect_a(SVC);
	run_until_quiet();
	ck_assert_int_eq(sent_attr[0][0x10], 4);
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_TIMEOUT], 1);
	ck_assert_uint_eq(S[0].timed_out, SR_CM_MSG_REQ);
	ck_assert_uint_eq(sr_cm_counters(S[0].cm)->timeouts, 1);
	ck_assert_uint_eq(sr_cm_next_deadline(S[0].cm), UINT64_MAX);
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_IDLE);
	sr_cm_id_destroy(a, now);
	ck_assert_int_eq(sent_attr[0][0x12], 0);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[0].cm), 0);
}
END_TEST

/* The passive side vanishes after its REP: REP retried, then TIMEOUT. */
START_TEST(test_active_vanishes_after_rep)
{
	struct sr_cm_id *l = listen_b();

	S[0].pol.rtu = false;
	connect_a(SVC);
	pump();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_REP_RCVD], 1);
	to_void = true;
	sr_cm_id_destroy(S[0].last, now);   /* REJ lost in the void */
	run_until_quiet();
	ck_assert_int_eq(sent_attr[1][0x13], 4);
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_TIMEOUT], 1);
	ck_assert_uint_eq(S[1].timed_out, SR_CM_MSG_REP);
	sr_cm_id_destroy(S[1].last, now);
	sr_cm_id_destroy(l, now);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[0].cm), 0);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 0);
}
END_TEST

/* MRA: the REQ's timer stretches by the service timeout; a duplicate REQ
 * is answered with the MRA again; the consumer accepts later. */
START_TEST(test_mra)
{
	struct sr_cm_id *l = listen_b(), *a, *b;

	S[1].pol.mra = true;
	a = connect_a(SVC);
	pump();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_MRA_RCVD], 1);
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_MRA_REQ_RCVD);
	b = S[1].last;
	ck_assert_int_eq(sr_cm_id_state(b), SR_CM_MRA_REQ_SENT);
	ck_assert_uint_ge(sr_cm_next_deadline(S[0].cm),
			  now + sr_cm_timeout_ns(22));
	tick();   /* REQ sent again; B answers with its MRA */
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->dup_answered, 1);
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_MRA_RCVD], 2);
	{
		struct sr_cm_rep_param p = { .qpn = 0x22 };

		ck_assert_int_eq(sr_cm_accept(b, now, &p), 0);
	}
	pump();
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_ESTABLISHED);
	ck_assert_int_eq(sr_cm_id_state(b), SR_CM_ESTABLISHED);
	sr_cm_id_destroy(a, now);   /* DREQ */
	pump();
	ck_assert_int_eq(sr_cm_id_state(b), SR_CM_TIMEWAIT);
	run_until_quiet();
	sr_cm_id_destroy(b, now);
	sr_cm_id_destroy(l, now);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[0].cm), 0);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 0);
}
END_TEST

/* A REQ with the communication ID of a connection in TIMEWAIT is stale. */
START_TEST(test_stale_req_in_timewait)
{
	struct sr_cm_id *a, *b;
	uint8_t req[SR_MAD_SIZE];

	listen_b();
	a = connect_a(SVC);
	memcpy(req, q[0].mad, SR_MAD_SIZE);
	pump();
	b = S[1].last;
	ck_assert_int_eq(sr_cm_disconnect(b, now, NULL, 0), 0);
	pump();
	ck_assert_int_eq(sr_cm_id_state(b), SR_CM_TIMEWAIT);
	sr_cm_input(S[1].cm, now, &S[0].addr, req, SR_MAD_SIZE);
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->rej_stale, 1);
	pump();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_REJ_RCVD], 0);   /* A is in TIMEWAIT: dup */
	(void)a;
}
END_TEST

START_TEST(test_sidr)
{
	struct sr_cm_id *l = listen_b(), *a;
	struct sr_cm_sidr_param p = {
		.service_id = sr_cma_service_id(SR_RDMA_PS_UDP, 7174),
		.peer = S[1].addr, .timeout = 10, .max_retries = 2,
	};

	ck_assert_int_eq(sr_cm_sidr_req(S[0].cm, now, &p, &S[0], &a), 0);
	pump();
	/* Nobody listens on that service: SIDR_REP with status 1. */
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_SIDR_REP_RCVD], 1);
	ck_assert_uint_eq(S[0].last_msg.status, SR_CM_SIDR_UNSUPPORTED);
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->sidr_unsupported, 1);
	sr_cm_id_destroy(a, now);
	sr_cm_id_destroy(l, now);
	ck_assert_int_eq(sr_cm_listen(S[1].cm, p.service_id, &S[1], &l), 0);
	drop_attr[0x17] = 1;
	ck_assert_int_eq(sr_cm_sidr_req(S[0].cm, now, &p, &S[0], &a), 0);
	run_until_quiet();
	ck_assert_uint_eq(sr_cm_counters(S[0].cm)->retransmits, 1);
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_SIDR_REP_RCVD], 2);
	ck_assert_uint_eq(S[0].last_msg.qpn, 0x33);
	ck_assert_uint_eq(S[0].last_msg.qkey, 0x12345678);
	ck_assert_uint_eq(S[0].last_msg.status, SR_CM_SIDR_SUCCESS);
	ck_assert_uint_eq(sr_cm_id_remote_qpn(a), 0x33);
	sr_cm_id_destroy(a, now);
	sr_cm_id_destroy(S[1].last, now);
	sr_cm_id_destroy(l, now);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[0].cm), 0);
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 0);
}
END_TEST

/* An SIDR_REQ to a service nobody listens to: status 1 to the asker. */
START_TEST(test_sidr_unsupported_status)
{
	struct sr_cm_id *a;
	struct sr_cm_sidr_param p = { .service_id = 5, .peer = S[1].addr };

	ck_assert_int_eq(sr_cm_sidr_req(S[0].cm, now, &p, &S[0], &a), 0);
	pump();
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_SIDR_REP_RCVD], 1);
	ck_assert_uint_eq(S[0].last_msg.status, SR_CM_SIDR_UNSUPPORTED);
	sr_cm_id_destroy(a, now);
}
END_TEST

/* Every consumer call in a state where it is not valid: -EPROTO, no change. */
START_TEST(test_api_wrong_state)
{
	struct sr_cm_id *a = connect_a(SVC);   /* REQ_SENT, nobody answers */
	struct sr_cm_rep_param rp = { .qpn = 1 };

	ck_assert_int_eq(sr_cm_accept(a, now, &rp), -EPROTO);
	ck_assert_int_eq(sr_cm_rtu(a, now, NULL, 0), -EPROTO);
	ck_assert_int_eq(sr_cm_drep(a, now, NULL, 0), -EPROTO);
	ck_assert_int_eq(sr_cm_disconnect(a, now, NULL, 0), -EPROTO);
	ck_assert_int_eq(sr_cm_mra(a, now, 1, NULL, 0), -EPROTO);
	ck_assert_int_eq(sr_cm_reject(a, now, 28, NULL, 0), -EPROTO);
	ck_assert_int_eq(sr_cm_sidr_rep(a, now, 0, 1, 1, NULL, 0), -EPROTO);
	ck_assert_int_eq(sr_cm_id_state(a), SR_CM_REQ_SENT);
	ck_assert_int_eq(sr_cm_rtu(a, now, (const uint8_t *)"x", 225), -EINVAL);
	ck_assert_int_eq(sr_cm_rtu(NULL, now, NULL, 0), -EINVAL);
	ck_assert_int_eq(sr_cm_accept(a, now, NULL), -EINVAL);
	{
		struct sr_cm_id *l;

		ck_assert_int_eq(sr_cm_listen(S[0].cm, 9, NULL, &l), 0);
		ck_assert_int_eq(sr_cm_listen(S[0].cm, 9, NULL, &l), -EADDRINUSE);
	}
	qn = 0;
}
END_TEST

/* The id table is full: a REQ is refused with NO_RESOURCES, not lost. */
START_TEST(test_no_free_id)
{
	struct sr_cm_id *l;
	int n = 0;

	S[1].pol.accept = false;
	listen_b();
	for (int i = 0; i < 16; i++) {
		connect_a(SVC);
		pump();
	}
	ck_assert_uint_eq(sr_cm_ids_in_use(S[1].cm), 16);
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->rej_no_resources, 1);
	ck_assert_int_eq(S[0].events[SR_CM_EVENT_REJ_RCVD], 1);
	ck_assert_uint_eq(S[0].last_msg.reason, SR_CM_REJ_NO_RESOURCES);
	ck_assert_int_eq(sr_cm_listen(S[1].cm, 99, NULL, &l), -ENOMEM);
	(void)n;
}
END_TEST

/* Hostile input: random bytes, random CM messages with valid headers,
 * aimed at ids in every state; nothing crashes, everything is counted. */
START_TEST(test_hostile)
{
	struct sr_cm_id *l = listen_b();
	uint8_t mad[SR_MAD_SIZE];
	const struct sr_cm_counters *c = sr_cm_counters(S[1].cm);
	uint64_t accounted;

	S[0].pol.rtu = false;
	connect_a(SVC);
	pump();   /* B's id in REP_SENT */
	srand(42);
	for (int i = 0; i < 20000; i++) {
		for (unsigned int j = 0; j < SR_MAD_SIZE; j++)
			mad[j] = (uint8_t)rand();
		if (i & 1) {
			mad[0] = 1;
			mad[1] = 7;
			mad[2] = 2;
			mad[3] = i & 2 ? 3 : (uint8_t)rand();
			mad[16] = 0;
			mad[17] = (uint8_t)(0x10 + rand() % 11);
			if (i & 4)   /* aim at B's ids */
				sr_put_be32(mad + 24 + 4, sr_cm_id_local(S[1].last));
		}
		sr_cm_input(S[1].cm, now, i & 8 ? &S[0].addr : &S[1].addr, mad,
			    i % 3 ? SR_MAD_SIZE : (uint32_t)(rand() % 300));
		qn = 0;
		now += 1000;
		sr_cm_poll(S[1].cm, now);
		qn = 0;
	}
	accounted = c->rx_malformed + c->rx_unknown_id + c->rx_remote_mismatch +
		    c->rx_stale + c->rx_dup + c->dup_answered + c->rej_no_listener +
		    c->rej_stale + c->rej_transport + c->rej_no_resources + c->sidr_unsupported +
		    c->get_resp + c->lap_refused + c->apr_dropped + c->drep_unknown;
	/* Every MAD is counted once, except those that moved a state or made
	 * a new id, which the consumer heard of. */
	int heard = 0;

	for (int e = 0; e < SR_CM_EVENT_COUNT; e++)
		heard += S[1].events[e];
	ck_assert_uint_eq(c->rx, 20000 + 1);
	ck_assert_uint_ge(accounted + (uint64_t)heard, c->rx);
	(void)l;
}
END_TEST

START_TEST(test_lap_and_get)
{
	uint8_t mad[SR_MAD_SIZE] = { 1, 7, 2, SR_MAD_METHOD_SEND };

	mad[17] = 0x19;   /* LAP */
	sr_put_be32(mad + 24, 0x77);
	sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
	ck_assert_uint_eq(qn, 1);
	ck_assert_uint_eq(sr_get_be16(q[0].mad + 16), 0x001A);
	ck_assert_uint_eq(q[0].mad[24 + 9], SR_CM_APR_UNSUPPORTED);
	ck_assert_uint_eq(sr_get_be32(q[0].mad + 24 + 4), 0x77);
	qn = 0;
	mad[3] = SR_MAD_METHOD_GET;
	mad[17] = 0x01;
	sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
	ck_assert_uint_eq(qn, 1);
	ck_assert_uint_eq(q[0].mad[3], SR_MAD_METHOD_GET_RESP);
	ck_assert_uint_eq(sr_get_be16(q[0].mad + 4), SR_MAD_STATUS_UNSUPPORTED_ATTR);
	qn = 0;
	mad[3] = SR_MAD_METHOD_SEND;
	mad[17] = 0x1A;   /* APR nobody asked for */
	sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
	ck_assert_uint_eq(qn, 0);
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->apr_dropped, 1);
}
END_TEST

/* A message naming our id from another GID, or another remote id (or
 * none), or a DREQ naming another QP: refused and counted. */
START_TEST(test_remote_mismatch)
{
	struct sr_cm_id *a, *b;
	struct sr_cm_addr evil = S[0].addr;
	struct sr_cm_msg m = { .attr = SR_CM_ATTR_DREQ };
	uint8_t mad[SR_MAD_SIZE];

	listen_b();
	a = connect_a(SVC);
	run_until_quiet();
	b = S[1].last;
	m.remote_comm_id = sr_cm_id_local(b);
	m.local_comm_id = sr_cm_id_local(a);
	sr_mad_build(&m, mad);
	evil.gid[15] ^= 1;
	sr_cm_input(S[1].cm, now, &evil, mad, SR_MAD_SIZE);
	m.local_comm_id ^= 0x10000;
	sr_mad_build(&m, mad);
	sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->rx_remote_mismatch, 2);
	ck_assert_int_eq(sr_cm_id_state(b), SR_CM_ESTABLISHED);
	/* no remote ID, or the peer's IDs but not our QP (0x22, as B
	 * accepted): refused, as Linux's cm_dreq_handler refuses them */
	m.local_comm_id = 0;
	m.qpn = 0x22;
	sr_mad_build(&m, mad);
	sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
	m.local_comm_id = sr_cm_id_local(a);
	m.qpn = 0x23;
	sr_mad_build(&m, mad);
	sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
	ck_assert_uint_eq(sr_cm_counters(S[1].cm)->rx_remote_mismatch, 4);
	ck_assert_int_eq(sr_cm_id_state(b), SR_CM_ESTABLISHED);
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_DREQ_RCVD], 0);
	/* the peer's own DREQ, naming our QP, is taken */
	m.qpn = 0x22;
	sr_mad_build(&m, mad);
	sr_cm_input(S[1].cm, now, &S[0].addr, mad, SR_MAD_SIZE);
	ck_assert_int_eq(S[1].events[SR_CM_EVENT_DREQ_RCVD], 1);
}
END_TEST

START_TEST(test_create_refuses)
{
	struct sr_cm_cfg cfg = { .ops = { .send = link_send } };

	ck_assert_ptr_null(sr_cm_create(NULL));
	ck_assert_ptr_null(sr_cm_create(&cfg));
	cfg.ops.event = on_event;
	cfg.max_ids = 70000;
	ck_assert_ptr_null(sr_cm_create(&cfg));
	sr_cm_destroy(NULL);
	sr_cm_id_destroy(NULL, 0);
}
END_TEST

static Suite *cm_suite(void)
{
	Suite *s = suite_create("cm");
	TCase *tc = tcase_create("cm");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_connect_disconnect);
	tcase_add_loop_test(tc, test_loss, 0, 5);
	tcase_add_loop_test(tc, test_duplicates, 0, 5);
	tcase_add_test(tc, test_reject_with_pdata);
	tcase_add_test(tc, test_no_listener);
	tcase_add_test(tc, test_rd_refused);
	tcase_add_test(tc, test_peer_vanishes);
	tcase_add_test(tc, test_active_vanishes_after_rep);
	tcase_add_test(tc, test_mra);
	tcase_add_test(tc, test_stale_req_in_timewait);
	tcase_add_test(tc, test_sidr);
	tcase_add_test(tc, test_sidr_unsupported_status);
	tcase_add_test(tc, test_api_wrong_state);
	tcase_add_test(tc, test_no_free_id);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_lap_and_get);
	tcase_add_test(tc, test_remote_mismatch);
	tcase_add_test(tc, test_create_refuses);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(cm_suite)
