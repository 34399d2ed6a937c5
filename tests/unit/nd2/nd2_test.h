/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nd2_test.h — fixture of the ND2 tests: an IND2Adapter on the NDK tests'
 * loopback device (tests/unit/ndk/loop.h), a completion queue, helpers to
 * wait for OVERLAPPED requests and to connect two queue pairs of the
 * adapter through IND2Listener / IND2Connector.  Teardown asserts that no
 * IND2 object, NDK object or engine object leaked.
 */
#ifndef SR_TEST_ND2_H
#define SR_TEST_ND2_H

#include <arpa/inet.h>
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"
#include "mr/mr.h"
#include "nd2_priv.h"
#include "ndsupport.h"
#include "sr_check.h"

struct n2_env {
	struct nt_loop *loop;
	struct sr_mr_dev *mrd;
	IND2Adapter *ad;
	IND2CompletionQueue *cq;
};

static inline uint64_t n2_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static inline void n2_open_limits(struct n2_env *e, const struct sr_dev_limits *l)
{
	HRESULT hr;

	memset(e, 0, sizeof(*e));
	e->loop = nt_loop_create(l);
	ck_assert_ptr_nonnull(e->loop);
	e->mrd = nt_loop_mr(e->loop);
	hr = sr_nd2_adapter_create(nt_loop_backend(e->loop), &IID_IND2Adapter, (VOID **)&e->ad);
	ck_assert_int_eq(hr, ND_SUCCESS);
	hr = e->ad->lpVtbl->CreateCompletionQueue(e->ad, &IID_IND2CompletionQueue, NULL, 256, 0,
						  0, (VOID **)&e->cq);
	ck_assert_int_eq(hr, ND_SUCCESS);
}

static inline void n2_open(struct n2_env *e)
{
	n2_open_limits(e, NULL);
}

static inline void n2_close(struct n2_env *e)
{
	ck_assert_uint_eq(e->cq->lpVtbl->Release(e->cq), 0);
	ck_assert_uint_eq(sr_nd2_object_count(e->ad), 0);
	/* the NDK adapter holds only the adapter's protection domain */
	ck_assert_uint_eq(sr_ndk_object_count(((struct sr_nd2_adapter *)e->ad)->ndk), 1);
	ck_assert_uint_eq(sr_mr_dev_in_use(e->mrd), 1);   /* that PD */
	ck_assert_uint_eq(e->ad->lpVtbl->Release(e->ad), 0);
}

static inline IND2MemoryRegion *n2_mr(struct n2_env *e)
{
	IND2MemoryRegion *mr = NULL;

	ck_assert_int_eq(e->ad->lpVtbl->CreateMemoryRegion(e->ad, &IID_IND2MemoryRegion, NULL,
							   (VOID **)&mr), ND_SUCCESS);
	return mr;
}

/* Register and wait for the result, whatever path it takes. */
static inline HRESULT n2_register(IND2MemoryRegion *mr, const void *buf, SIZE_T len,
				  ULONG flags)
{
	OVERLAPPED ov = { 0 };
	HRESULT hr = mr->lpVtbl->Register(mr, buf, len, flags, &ov);

	if (hr == ND_PENDING)
		hr = mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE);
	return hr;
}

static inline HRESULT n2_deregister(IND2MemoryRegion *mr)
{
	OVERLAPPED ov = { 0 };
	HRESULT hr = mr->lpVtbl->Deregister(mr, &ov);

	if (hr == ND_PENDING)
		hr = mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE);
	return hr;
}

static inline IND2QueuePair *n2_qp(struct n2_env *e, void *ctx)
{
	IND2QueuePair *qp = NULL;

	ck_assert_int_eq(e->ad->lpVtbl->CreateQueuePair(e->ad, &IID_IND2QueuePair,
							(IUnknown *)e->cq, (IUnknown *)e->cq,
							ctx, 32, 32, 4, 4, 64, (VOID **)&qp),
			 ND_SUCCESS);
	return qp;
}

/* Poll the CQ until want results arrived (3 s at most). */
static inline ULONG n2_poll(IND2CompletionQueue *cq, ND2_RESULT *r, ULONG want)
{
	uint64_t end = n2_ms() + 3000;
	ULONG got = 0;

	do {
		got += cq->lpVtbl->GetResults(cq, r + got, want - got);
		if (got >= want)
			break;
		usleep(20);
	} while (n2_ms() < end);
	return got;
}

struct n2_conn {
	IND2Listener *lis;
	IND2Connector *active, *passive;
};

static inline void n2_addr(struct sockaddr_in *sa, uint16_t port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons(port);
	sa->sin_addr.s_addr = htonl(0x0a000001);   /* the loop device's 10.0.0.1 */
}

/* Connect qa (active) to qb (passive) on port. */
static inline void n2_connect(struct n2_env *e, struct n2_conn *n, IND2QueuePair *qa,
			      IND2QueuePair *qb, uint16_t port)
{
	IND2Adapter *ad = e->ad;
	struct sockaddr_in addr;
	OVERLAPPED oc = { 0 }, og = { 0 }, oa = { 0 }, occ = { 0 };
	char pd[64];
	ULONG len = sizeof(pd), ird = 0, ord = 0;
	HRESULT hr;

	memset(n, 0, sizeof(*n));
	n2_addr(&addr, port);
	ck_assert_int_eq(ad->lpVtbl->CreateListener(ad, &IID_IND2Listener, NULL,
						    (VOID **)&n->lis), ND_SUCCESS);
	ck_assert_int_eq(n->lis->lpVtbl->Bind(n->lis, (struct sockaddr *)&addr, sizeof(addr)),
			 ND_SUCCESS);
	ck_assert_int_eq(n->lis->lpVtbl->Listen(n->lis, 0), ND_SUCCESS);
	ck_assert_int_eq(ad->lpVtbl->CreateConnector(ad, &IID_IND2Connector, NULL,
						     (VOID **)&n->passive), ND_SUCCESS);
	hr = n->lis->lpVtbl->GetConnectionRequest(n->lis, (IUnknown *)n->passive, &og);
	ck_assert_int_eq(hr, ND_PENDING);
	ck_assert_int_eq(n->lis->lpVtbl->GetOverlappedResult(n->lis, &og, FALSE), ND_PENDING);
	ck_assert_int_eq(ad->lpVtbl->CreateConnector(ad, &IID_IND2Connector, NULL,
						     (VOID **)&n->active), ND_SUCCESS);
	hr = n->active->lpVtbl->Connect(n->active, (IUnknown *)qa, (struct sockaddr *)&addr,
					sizeof(addr), 4, 4, "hello", 5, &oc);
	ck_assert_int_eq(hr, ND_PENDING);
	ck_assert_int_eq(n->lis->lpVtbl->GetOverlappedResult(n->lis, &og, TRUE), ND_SUCCESS);
	ck_assert_int_eq(n->passive->lpVtbl->GetPrivateData(n->passive, pd, &len), ND_SUCCESS);
	/* the REQ's whole field after rdma_cm's header, zero padded */
	ck_assert_uint_eq(len, 56);
	ck_assert(memcmp(pd, "hello", 5) == 0);
	ck_assert_int_eq(pd[5], 0);
	ck_assert_int_eq(n->passive->lpVtbl->GetReadLimits(n->passive, &ird, &ord), ND_SUCCESS);
	ck_assert_uint_eq(ird, 4);
	ck_assert_uint_eq(ord, 4);
	hr = n->passive->lpVtbl->Accept(n->passive, (IUnknown *)qb, 4, 4, NULL, 0, &oa);
	ck_assert_int_eq(hr, ND_PENDING);
	ck_assert_int_eq(n->active->lpVtbl->GetOverlappedResult(n->active, &oc, TRUE),
			 ND_SUCCESS);
	ck_assert_int_eq(n->active->lpVtbl->CompleteConnect(n->active, &occ), ND_SUCCESS);
	ck_assert_int_eq(n->passive->lpVtbl->GetOverlappedResult(n->passive, &oa, TRUE),
			 ND_SUCCESS);
}

static inline void n2_disconnect(struct n2_conn *n)
{
	n->active->lpVtbl->Release(n->active);
	n->passive->lpVtbl->Release(n->passive);
	n->lis->lpVtbl->Release(n->lis);
}

#endif /* SR_TEST_ND2_H */
