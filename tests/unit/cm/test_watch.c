/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm/watch: what sroced does for a client that dies with connections open.
 * Two real CMs, A (a client's, block 3) and R (a remote one); every MAD
 * between them is shown to a watch, as sroced's switch shows it.  When A
 * dies, the watch's DREQs must reach R's CM as a disconnect of the right
 * connection, R's DREP must be taken as the answer, and nothing must be
 * sent for connections that ended, never opened, or were answered.
 */
#include <string.h>

#include "cm/cm.h"
#include "cm/mad.h"
#include "cm/watch.h"
#include "sr_check.h"

#define SVC   0x0000000001061C06ull
#define MS    1000000ull
#define BLOCK 3u

enum { A, R, N };

struct side {
	struct sr_cm *cm;
	struct sr_cm_addr addr;
	int events[SR_CM_EVENT_COUNT];
	struct sr_cm_id *last;
};

static struct side S[N];
static struct sr_cm_watch *w;
static uint64_t now = 1000;
static bool a_dead;
static int answered, to_dead, dreqs;
static uint32_t want_qpn;        /* the DREQ names R's QP */
struct qmad {
	int to;
	struct sr_cm_addr from;
	uint8_t mad[SR_MAD_SIZE];
};
static struct qmad q[64];
static unsigned int qn;

static void queue(int to, const struct sr_cm_addr *from, const uint8_t *mad)
{
	ck_assert_uint_lt(qn, 64);
	q[qn].to = to;
	q[qn].from = *from;
	memcpy(q[qn].mad, mad, SR_MAD_SIZE);
	qn++;
}

static void on_send(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	struct side *s = ctx;

	(void)to;
	if (s == &S[A]) {
		/* A sends: the watch sees it going out, to R */
		sr_cm_watch_mad(w, BLOCK, true, &S[R].addr, mad, SR_MAD_SIZE);
		queue(R, &S[A].addr, mad);
	} else {
		queue(A, &S[R].addr, mad);
	}
}

static void on_event(void *ctx, struct sr_cm_id *id, const struct sr_cm_event *ev)
{
	struct side *s = ctx;

	s->events[ev->type]++;
	s->last = id;
	if (ev->type == SR_CM_EVENT_REQ_RCVD) {
		struct sr_cm_rep_param p = { .qpn = s == &S[A] ? 0xA001 : 0x5001,
					     .psn = 1, .rnr_retry_count = 7 };

		ck_assert_int_eq(sr_cm_accept(id, now, &p), 0);
	} else if (ev->type == SR_CM_EVENT_REP_RCVD) {
		ck_assert_int_eq(sr_cm_rtu(id, now, NULL, 0), 0);
	} else if (ev->type == SR_CM_EVENT_DREQ_RCVD) {
		ck_assert_int_eq(sr_cm_drep(id, now, NULL, 0), 0);
	}
}

/* Deliver what is queued; what is for a dead A goes to the watch. */
static void pump(void)
{
	for (int round = 0; round < 8 && qn > 0; round++) {
		unsigned int n = qn;
		static struct qmad cur[64];

		memcpy(cur, q, sizeof(q));
		qn = 0;
		for (unsigned int i = 0; i < n; i++) {
			if (cur[i].to == A && a_dead) {
				to_dead++;
				answered += sr_cm_watch_answer(w, cur[i].from.gid,
							       cur[i].mad, SR_MAD_SIZE);
				continue;
			}
			if (cur[i].to == A)   /* R's MAD reaches A: the watch sees it */
				sr_cm_watch_mad(w, BLOCK, false, &S[R].addr,
						cur[i].mad, SR_MAD_SIZE);
			sr_cm_input(S[cur[i].to].cm, now, &cur[i].from, cur[i].mad,
				    SR_MAD_SIZE);
		}
	}
}

/* The watch's DREQs, sent as sroced sends them: to R. */
static void watch_send(void *ctx, const struct sr_cm_addr *to, const uint8_t *mad)
{
	struct sr_cm_msg m;

	(void)ctx;
	ck_assert_mem_eq(to->gid, S[R].addr.gid, 16);
	ck_assert_int_eq(sr_mad_parse(mad, SR_MAD_SIZE, &m), SR_MAD_ERR_OK);
	ck_assert_int_eq(m.attr, SR_CM_ATTR_DREQ);
	ck_assert_uint_eq(m.qpn, want_qpn);
	dreqs++;
	queue(R, &S[A].addr, mad);
}

static void setup(void)
{
	memset(S, 0, sizeof(S));
	a_dead = false;
	answered = to_dead = dreqs = 0;
	qn = 0;
	for (int i = 0; i < N; i++) {
		struct sr_cm_cfg cfg = {
			.ops = { .send = on_send, .event = on_event, .ctx = &S[i] },
			.max_ids = 16, .timewait_ns = 10 * MS,
			.comm_id_seed = 7u * (uint32_t)i + 5,
			.comm_id_block = i == A ? BLOCK : 0,
		};

		S[i].addr.gid[15] = (uint8_t)(i + 1);
		S[i].addr.pkey = 0xFFFF;
		S[i].cm = sr_cm_create(&cfg);
		ck_assert_ptr_nonnull(S[i].cm);
	}
	w = sr_cm_watch_create(8);
	ck_assert_ptr_nonnull(w);
}

static void teardown(void)
{
	sr_cm_watch_destroy(w);
	for (int i = 0; i < N; i++)
		sr_cm_destroy(S[i].cm);
}

static struct sr_cm_id *connect_to(int from, int to)
{
	struct sr_cm_req_param p = {
		.service_id = SVC, .peer = S[to].addr,
		.qpn = from == A ? 0xA002 : 0x5002, .psn = 2,
		.transport = SR_CM_TRANSPORT_RC, .retry_count = 7,
		.rnr_retry_count = 7, .path_mtu = 3, .remote_cm_timeout = 20,
		.local_cm_timeout = 20, .max_cm_retries = 3,
	};
	struct sr_cm_id *id;

	ck_assert_int_eq(sr_cm_connect(S[from].cm, now, &p, NULL, &id), 0);
	return id;
}

/* A connection A <-> R, established; active: A connects. */
static struct sr_cm_id *establish(bool active)
{
	struct sr_cm_id *l, *id = NULL;

	ck_assert_int_eq(sr_cm_listen(S[active ? R : A].cm, SVC, NULL, &l), 0);
	want_qpn = active ? 0x5001 : 0x5002;   /* R's, from its REP or REQ */
	if (active)
		id = connect_to(A, R);
	else
		(void)connect_to(R, A);
	pump();
	ck_assert_int_eq(S[active ? R : A].events[SR_CM_EVENT_ESTABLISHED], 1);
	ck_assert_uint_eq(sr_cm_watch_counters(w)->open, 1);
	return active ? id : S[A].last;
}

/* A dies: one DREQ reaches R's CM as a disconnect, R's DREP is taken. */
static void die_and_check(void)
{
	a_dead = true;
	ck_assert_uint_eq(sr_cm_watch_orphan(w, BLOCK, now), 1);
	ck_assert_uint_eq(sr_cm_watch_next(w), now);
	sr_cm_watch_poll(w, now, watch_send, NULL);
	ck_assert_int_eq(dreqs, 1);
	pump();
	ck_assert_int_eq(S[R].events[SR_CM_EVENT_DREQ_RCVD], 1);
	ck_assert_int_eq(answered, 1);
	ck_assert_uint_eq(sr_cm_watch_counters(w)->answered, 1);
	/* answered: nothing more to send, ever */
	ck_assert_uint_eq(sr_cm_watch_next(w), UINT64_MAX);
	now += 10 * SR_CM_WATCH_GAP_NS;
	sr_cm_watch_poll(w, now, watch_send, NULL);
	ck_assert_int_eq(dreqs, 1);
}

START_TEST(test_active_connection)
{
	establish(true);
	die_and_check();
}
END_TEST

START_TEST(test_passive_connection)
{
	establish(false);
	die_and_check();
}
END_TEST

/* A disconnected before it died: nothing to do for it. */
START_TEST(test_clean_disconnect)
{
	struct sr_cm_id *id = establish(true);

	ck_assert_int_eq(sr_cm_disconnect(id, now, NULL, 0), 0);
	pump();
	ck_assert_int_eq(S[R].events[SR_CM_EVENT_DREQ_RCVD], 1);
	a_dead = true;
	ck_assert_uint_eq(sr_cm_watch_orphan(w, BLOCK, now), 0);
	sr_cm_watch_poll(w, now, watch_send, NULL);
	ck_assert_int_eq(dreqs, 0);
}
END_TEST

/* No answer (R gone too): the DREQ goes SR_CM_WATCH_TRIES times, a gap
 * apart, then never again. */
START_TEST(test_retries_then_gives_up)
{
	establish(true);
	a_dead = true;
	ck_assert_uint_eq(sr_cm_watch_orphan(w, BLOCK, now), 1);
	for (int i = 0; i < 10; i++) {
		sr_cm_watch_poll(w, now, watch_send, NULL);
		qn = 0;                      /* lost */
		ck_assert_int_eq(dreqs, i + 1 < SR_CM_WATCH_TRIES ? i + 1
								 : SR_CM_WATCH_TRIES);
		sr_cm_watch_poll(w, now + SR_CM_WATCH_GAP_NS - 1, watch_send, NULL);
		now += SR_CM_WATCH_GAP_NS;
	}
	ck_assert_uint_eq(sr_cm_watch_counters(w)->dreq_sent, SR_CM_WATCH_TRIES);
	ck_assert_uint_eq(sr_cm_watch_next(w), UINT64_MAX);
}
END_TEST

/* A REQ that got no REP is no connection: the peer's CM times it out. */
START_TEST(test_half_open_is_forgotten)
{
	(void)connect_to(A, R);          /* R does not listen: a REJ comes */
	qn = 0;                          /* ... but is lost */
	a_dead = true;
	ck_assert_uint_eq(sr_cm_watch_orphan(w, BLOCK, now), 0);
	sr_cm_watch_poll(w, now, watch_send, NULL);
	ck_assert_int_eq(dreqs, 0);
}
END_TEST

/* Hostile or foreign input changes nothing; a full table forgets new
 * connections, never old ones. */
START_TEST(test_garbage_and_full)
{
	uint8_t junk[SR_MAD_SIZE];
	struct sr_cm_watch *small;

	for (unsigned int i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37 + 11);
	for (uint32_t len = 0; len <= SR_MAD_SIZE; len += 16) {
		sr_cm_watch_mad(w, BLOCK, true, &S[R].addr, junk, len);
		sr_cm_watch_mad(w, BLOCK, false, &S[R].addr, junk, len);
		ck_assert(!sr_cm_watch_answer(w, S[R].addr.gid, junk, len));
	}
	sr_cm_watch_mad(w, BLOCK, true, NULL, junk, SR_MAD_SIZE);
	sr_cm_watch_mad(NULL, BLOCK, true, &S[R].addr, junk, SR_MAD_SIZE);
	ck_assert_uint_eq(sr_cm_watch_orphan(w, BLOCK, now), 0);
	ck_assert_ptr_null(sr_cm_watch_create(0));

	/* a table of one: the first connection is kept, the second not */
	small = sr_cm_watch_create(1);
	ck_assert_ptr_nonnull(small);
	sr_cm_watch_destroy(w);
	w = small;
	establish(true);
	(void)connect_to(A, R);          /* a second REQ to R's listener */
	pump();
	ck_assert_uint_eq(sr_cm_watch_counters(w)->full, 1);
	a_dead = true;
	ck_assert_uint_eq(sr_cm_watch_orphan(w, BLOCK, now), 1);
}
END_TEST

/* A DREP from anyone but the peer does not stop the DREQs; one CM takes a
 * quarter of the table at most, another CM still gets its share. */
START_TEST(test_forged_drep_and_quota)
{
	struct sr_cm_msg m = { .attr = SR_CM_ATTR_DREP };
	struct sr_cm_addr other = S[R].addr;
	uint8_t mad[SR_MAD_SIZE];
	uint32_t local;

	establish(true);
	local = sr_cm_id_local(S[A].last);
	a_dead = true;
	ck_assert_uint_eq(sr_cm_watch_orphan(w, BLOCK, now), 1);
	sr_cm_watch_poll(w, now, watch_send, NULL);
	qn = 0;                              /* the DREQ is lost */
	other.gid[0] ^= 0xff;                /* a third party's DREP */
	m.local_comm_id = sr_cm_id_remote(S[A].last);
	m.remote_comm_id = local;
	ck_assert_int_eq(sr_mad_build(&m, mad), (int)SR_MAD_SIZE);
	ck_assert(!sr_cm_watch_answer(w, other.gid, mad, SR_MAD_SIZE));
	ck_assert_uint_ne(sr_cm_watch_next(w), UINT64_MAX);
	/* the peer's own DREP is taken */
	ck_assert(sr_cm_watch_answer(w, S[R].addr.gid, mad, SR_MAD_SIZE));
	ck_assert_uint_eq(sr_cm_watch_next(w), UINT64_MAX);

	/* the quota: a table of 8, 2 per CM */
	{
		struct sr_cm_watch *t = sr_cm_watch_create(8);
		struct sr_cm_msg req = { .attr = SR_CM_ATTR_REQ };

		for (uint32_t i = 1; i <= 3; i++) {
			struct sr_cm_msg r = req;

			r.local_comm_id = BLOCK << SR_CM_COMM_ID_BLOCK_SHIFT | i;
			r.service_id = SVC;
			r.qpn = 0x100 + i;
			/* a REQ from BLOCK's CM, built as its CM would */
			ck_assert_int_eq(sr_mad_build(&r, mad), (int)SR_MAD_SIZE);
			sr_cm_watch_mad(t, BLOCK, true, &S[R].addr, mad, SR_MAD_SIZE);
		}
		ck_assert_uint_eq(sr_cm_watch_counters(t)->full, 1);
		{                               /* another CM's */
			struct sr_cm_msg r = req;

			r.local_comm_id = 4u << SR_CM_COMM_ID_BLOCK_SHIFT | 1;
			r.service_id = SVC;
			ck_assert_int_eq(sr_mad_build(&r, mad), (int)SR_MAD_SIZE);
			sr_cm_watch_mad(t, 4, true, &S[R].addr, mad, SR_MAD_SIZE);
		}
		ck_assert_uint_eq(sr_cm_watch_counters(t)->full, 1);
		sr_cm_watch_destroy(t);
	}
}
END_TEST

static Suite *watch_suite(void)
{
	Suite *s = suite_create("cm_watch");
	TCase *tc = tcase_create("watch");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_active_connection);
	tcase_add_test(tc, test_passive_connection);
	tcase_add_test(tc, test_clean_disconnect);
	tcase_add_test(tc, test_retries_then_gives_up);
	tcase_add_test(tc, test_half_open_is_forgotten);
	tcase_add_test(tc, test_garbage_and_full);
	tcase_add_test(tc, test_forged_drep_and_quota);
	suite_add_tcase(s, tc);
	return s;
}

SR_CHECK_MAIN(watch_suite)
