/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndk_test.h — fixture of the NDK tests: a loopback adapter (loop.h), a PD
 * and a CQ, helpers that wait for asynchronous completions and connect two
 * QPs through NdkListen / NdkConnect / NdkAccept.  Teardown asserts that no
 * object, MR or reference leaked.
 */
#ifndef SR_TEST_NDK_H
#define SR_TEST_NDK_H

#include <arpa/inet.h>
#include <check.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"
#include "mr/mr.h"
#include "ofw_mr.h"
#include "sr_ndk.h"
#include "sr_status.h"

struct nt_env {
	struct nt_loop *loop;
	struct sr_mr_dev *mrd;
	NDK_ADAPTER *ad;
	NDK_PD *pd;
	NDK_CQ *cq;
};

struct nt_wait {
	atomic_int done;
	NTSTATUS st;
	NDK_OBJECT_HEADER *obj;
};

static inline uint64_t nt_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void nt_create_cb(PVOID ctx, NTSTATUS st, NDK_OBJECT_HEADER *o)
{
	struct nt_wait *w = ctx;

	w->st = st;
	w->obj = o;
	atomic_store(&w->done, 1);
}

static inline void nt_req_cb(PVOID ctx, NTSTATUS st)
{
	struct nt_wait *w = ctx;

	w->st = st;
	atomic_store(&w->done, 1);
}

static inline void nt_close_cb(PVOID ctx)
{
	atomic_store(&((struct nt_wait *)ctx)->done, 1);
}

/* Wait for a completion callback (3 s at most). */
static inline NTSTATUS nt_wait(struct nt_wait *w)
{
	uint64_t end = nt_ms() + 3000;

	while (!atomic_load(&w->done)) {
		ck_assert_msg(nt_ms() < end, "no completion callback");
		usleep(100);
	}
	return w->st;
}

static inline void nt_open_limits(struct nt_env *e, const struct sr_dev_limits *l)
{
	NTSTATUS st;

	memset(e, 0, sizeof(*e));
	e->loop = nt_loop_create(l);
	ck_assert_ptr_nonnull(e->loop);
	e->mrd = nt_loop_mr(e->loop);
	st = sr_ndk_adapter_create(nt_loop_backend(e->loop), &e->ad);
	ck_assert_int_eq(st, STATUS_SUCCESS);
	st = e->ad->Dispatch->NdkCreatePd(e->ad, NULL, NULL, &e->pd);
	ck_assert_int_eq(st, STATUS_SUCCESS);
	st = e->ad->Dispatch->NdkCreateCq(e->ad, 256, NULL, NULL, NULL, NULL, NULL, &e->cq);
	ck_assert_int_eq(st, STATUS_SUCCESS);
}

static inline void nt_open(struct nt_env *e)
{
	nt_open_limits(e, NULL);
}

static inline void nt_close(struct nt_env *e)
{
	ck_assert_int_eq(e->cq->Dispatch->NdkCloseCq(&e->cq->Header, NULL, NULL),
			 STATUS_SUCCESS);
	ck_assert_int_eq(e->pd->Dispatch->NdkClosePd(&e->pd->Header, NULL, NULL),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(sr_ndk_object_count(e->ad), 0);
	ck_assert_uint_eq(sr_mr_dev_in_use(e->mrd), 0);
	ck_assert_int_eq(sr_ndk_close_adapter(e->ad), STATUS_SUCCESS);
}

/* Poll the CQ for up to n results, waiting up to ms for at least want. */
static inline ULONG nt_poll(struct nt_env *e, NDK_CQ *cq, NDK_RESULT_EX *r, ULONG want,
			    int ms)
{
	uint64_t end = nt_ms() + (uint64_t)ms;
	ULONG got = 0;

	(void)e;
	do {
		got += cq->Dispatch->NdkGetCqResultsEx(cq, r + got, want - got);
		if (got >= want)
			break;
		usleep(20);
	} while (nt_ms() < end);
	return got;
}

static inline NDK_QP *nt_qp(struct nt_env *e, PVOID ctx)
{
	NDK_QP *qp = NULL;
	NTSTATUS st = e->pd->Dispatch->NdkCreateQp(e->pd, e->cq, e->cq, ctx, 32, 32, 4, 4, 64,
						   NULL, NULL, &qp);

	ck_assert_int_eq(st, STATUS_SUCCESS);
	return qp;
}

static inline void nt_close_obj(NDK_OBJECT_HEADER *h)
{
	/* every dispatch table starts with its close function */
	NDK_FN_CLOSE_OBJECT close = **(NDK_FN_CLOSE_OBJECT *const *)(h + 1);

	ck_assert_int_eq(close(h, NULL, NULL), STATUS_SUCCESS);
}

struct nt_conn {
	NDK_LISTENER *lis;
	NDK_CONNECTOR *active, *passive;
	atomic_int got;
};

static inline void nt_connect_event(PVOID ctx, NDK_CONNECTOR *c)
{
	struct nt_conn *n = ctx;

	n->passive = c;
	atomic_store(&n->got, 1);
}

/* Connect qa (active) to qb (passive) through the loop device's CM. */
static inline void nt_connect(struct nt_env *e, struct nt_conn *n, NDK_QP *qa, NDK_QP *qb)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(4000) };
	struct nt_wait wc = { 0 }, wa = { 0 };
	uint64_t end;
	NTSTATUS st;

	memset(n, 0, sizeof(*n));
	addr.sin_addr.s_addr = htonl(0x0a000001);
	st = e->ad->Dispatch->NdkCreateListener(e->ad, nt_connect_event, n, NULL, NULL, &n->lis);
	ck_assert_int_eq(st, STATUS_SUCCESS);
	st = n->lis->Dispatch->NdkListen(n->lis, (PSOCKADDR)&addr, sizeof(addr), NULL, NULL);
	ck_assert_int_eq(st, STATUS_SUCCESS);
	st = e->ad->Dispatch->NdkCreateConnector(e->ad, NULL, NULL, &n->active);
	ck_assert_int_eq(st, STATUS_SUCCESS);
	st = n->active->Dispatch->NdkConnect(n->active, qa, NULL, 0, (PSOCKADDR)&addr,
					     sizeof(addr), 116, 116, "hello", 5, nt_req_cb, &wc);
	ck_assert_int_eq(st, STATUS_PENDING);
	end = nt_ms() + 3000;
	while (!atomic_load(&n->got)) {
		ck_assert(nt_ms() < end);
		usleep(100);
	}
	{
		char pd[64];
		ULONG len = 8, ird = 0, ord = 0;

		/* the REQ's whole field after rdma_cm's header: 56 bytes */
		st = n->passive->Dispatch->NdkGetConnectionData(n->passive, &ird, &ord, pd, &len);
		ck_assert_int_eq(st, STATUS_BUFFER_TOO_SMALL);
		ck_assert_uint_eq(len, 56);
		len = sizeof(pd);
		st = n->passive->Dispatch->NdkGetConnectionData(n->passive, &ird, &ord, pd, &len);
		ck_assert_int_eq(st, STATUS_SUCCESS);
		ck_assert_uint_eq(len, 56);
		ck_assert(memcmp(pd, "hello", 5) == 0);
		for (int i = 5; i < 56; i++)
			ck_assert_int_eq(pd[i], 0);
		/* 116 asked: capped to the provider's maximum, 16 */
		ck_assert_uint_eq(ird, 16);
		ck_assert_uint_eq(ord, 16);
	}
	st = n->passive->Dispatch->NdkAccept(n->passive, qb, 4, 4, NULL, 0, NULL, NULL,
					     nt_req_cb, &wa);
	ck_assert_int_eq(st, STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&wc), STATUS_SUCCESS);
	st = n->active->Dispatch->NdkCompleteConnect(n->active, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(st, STATUS_SUCCESS);
	ck_assert_int_eq(nt_wait(&wa), STATUS_SUCCESS);
}

static inline void nt_disconnect(struct nt_conn *n)
{
	nt_close_obj(&n->active->Header);
	nt_close_obj(&n->passive->Header);
	nt_close_obj(&n->lis->Header);
}

#endif /* SR_TEST_NDK_H */
