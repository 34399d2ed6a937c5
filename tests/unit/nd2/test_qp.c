/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_qp.c — IND2QueuePair, IND2CompletionQueue, IND2MemoryWindow,
 * IND2Connector and IND2Listener on the loopback device: connection
 * through GetConnectionRequest / Connect / Accept / CompleteConnect, send
 * and one-sided read and write through a remote token, registered memory
 * used by every queue pair of the adapter, a window bound to a region
 * (Deregister: ND_DEVICE_BUSY until it is invalidated), Notify through
 * GetOverlappedResult, the documented parameter errors, disconnection.
 */
#include <endian.h>

#include "nd2_test.h"

#define RIGHTS (ND_MR_FLAG_ALLOW_LOCAL_WRITE | ND_MR_FLAG_ALLOW_REMOTE_READ | \
		ND_MR_FLAG_ALLOW_REMOTE_WRITE)

static ND2_RESULT one(IND2CompletionQueue *cq)
{
	ND2_RESULT r = { .Status = ND_IO_TIMEOUT };

	ck_assert_uint_eq(n2_poll(cq, &r, 1), 1);
	return r;
}

START_TEST(send_read_write)
{
	struct n2_env e;
	struct n2_conn n;
	IND2QueuePair *qa, *qb;
	IND2MemoryRegion *ma, *mb;
	char *a = calloc(1, 8192), *b = calloc(1, 8192);
	ND2_SGE sge;
	ND2_RESULT r;
	UINT32 token;

	n2_open(&e);
	qa = n2_qp(&e, (void *)0xa);
	qb = n2_qp(&e, (void *)0xb);
	ma = n2_mr(&e);
	mb = n2_mr(&e);
	ck_assert_int_eq(n2_register(ma, a, 8192, RIGHTS), ND_SUCCESS);
	ck_assert_int_eq(n2_register(mb, b, 8192, RIGHTS), ND_SUCCESS);
	/* a receive may be posted before the connection */
	sge = (ND2_SGE){ .Buffer = b, .BufferLength = 64,
			 .MemoryRegionToken = mb->lpVtbl->GetLocalToken(mb) };
	ck_assert_int_eq(qb->lpVtbl->Receive(qb, (void *)7, &sge, 1), ND_SUCCESS);
	n2_connect(&e, &n, qa, qb, 4100);
	/* send a's token and address to b */
	token = ma->lpVtbl->GetRemoteToken(ma);
	memcpy(a, &token, 4);
	memcpy(a + 4, &(UINT64){ (uintptr_t)a + 1024 }, 8);
	sge = (ND2_SGE){ .Buffer = a, .BufferLength = 12,
			 .MemoryRegionToken = ma->lpVtbl->GetLocalToken(ma) };
	ck_assert_int_eq(qa->lpVtbl->Send(qa, (void *)1, &sge, 1, 0), ND_SUCCESS);
	for (int i = 0; i < 2; i++) {
		r = one(e.cq);
		ck_assert_int_eq(r.Status, ND_SUCCESS);
		if (r.RequestType == Nd2RequestTypeReceive) {
			ck_assert_ptr_eq(r.RequestContext, (void *)7);
			ck_assert_ptr_eq(r.QueuePairContext, (void *)0xb);
			ck_assert_uint_eq(r.BytesTransferred, 12);
		} else {
			ck_assert_int_eq(r.RequestType, Nd2RequestTypeSend);
			ck_assert_ptr_eq(r.QueuePairContext, (void *)0xa);
		}
	}
	/* b reads a's region one-sided, then writes into it, through the token */
	memcpy(&token, b, 4);
	ck_assert_uint_eq(token, ma->lpVtbl->GetRemoteToken(ma));
	for (int i = 0; i < 512; i++)
		a[1024 + i] = (char)(i * 7);
	sge = (ND2_SGE){ .Buffer = b + 2048, .BufferLength = 512,
			 .MemoryRegionToken = mb->lpVtbl->GetLocalToken(mb) };
	ck_assert_int_eq(qb->lpVtbl->Read(qb, (void *)2, &sge, 1, (uintptr_t)a + 1024, token, 0),
			 ND_SUCCESS);
	r = one(e.cq);
	ck_assert_int_eq(r.Status, ND_SUCCESS);
	ck_assert_int_eq(r.RequestType, Nd2RequestTypeRead);
	ck_assert(memcmp(b + 2048, a + 1024, 512) == 0);
	for (int i = 0; i < 512; i++)
		b[2048 + i] = (char)(i * 3 + 1);
	ck_assert_int_eq(qb->lpVtbl->Write(qb, (void *)3, &sge, 1, (uintptr_t)a + 4096, token, 0),
			 ND_SUCCESS);
	r = one(e.cq);
	ck_assert_int_eq(r.Status, ND_SUCCESS);
	ck_assert_int_eq(r.RequestType, Nd2RequestTypeWrite);
	ck_assert(memcmp(a + 4096, b + 2048, 512) == 0);
	/* a token in host order is not the token: the peer's access fails */
	ck_assert_int_eq(qb->lpVtbl->Write(qb, (void *)4, &sge, 1, (uintptr_t)a + 4096,
					   be32toh(token), 0), ND_SUCCESS);
	r = one(e.cq);
	ck_assert_int_eq(r.Status, ND_ACCESS_VIOLATION);
	n2_disconnect(&n);
	ck_assert_int_eq(n2_deregister(ma), ND_SUCCESS);
	ck_assert_int_eq(n2_deregister(mb), ND_SUCCESS);
	ma->lpVtbl->Release(ma);
	mb->lpVtbl->Release(mb);
	qa->lpVtbl->Release(qa);
	qb->lpVtbl->Release(qb);
	n2_close(&e);
	free(a);
	free(b);
}
END_TEST

START_TEST(registered_memory_every_qp)
{
	struct n2_env e;
	struct n2_conn n1, n2;
	IND2QueuePair *q[4];
	IND2MemoryRegion *target, *src;
	char *t = calloc(1, 4096), *s = calloc(1, 4096);
	ND2_SGE sge;

	n2_open(&e);
	for (int i = 0; i < 4; i++)
		q[i] = n2_qp(&e, NULL);
	n2_connect(&e, &n1, q[0], q[1], 4101);
	n2_connect(&e, &n2, q[2], q[3], 4102);
	target = n2_mr(&e);
	src = n2_mr(&e);
	ck_assert_int_eq(n2_register(target, t, 4096, RIGHTS), ND_SUCCESS);
	ck_assert_int_eq(n2_register(src, s, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	memset(s, 0x5a, 4096);
	/* one region, one local token: both connections write into the same target */
	sge = (ND2_SGE){ .Buffer = s, .BufferLength = 100,
			 .MemoryRegionToken = src->lpVtbl->GetLocalToken(src) };
	ck_assert_int_eq(q[0]->lpVtbl->Write(q[0], NULL, &sge, 1, (uintptr_t)t,
					     target->lpVtbl->GetRemoteToken(target), 0),
			 ND_SUCCESS);
	ck_assert_int_eq(q[2]->lpVtbl->Write(q[2], NULL, &sge, 1, (uintptr_t)t + 200,
					     target->lpVtbl->GetRemoteToken(target), 0),
			 ND_SUCCESS);
	ck_assert_int_eq(one(e.cq).Status, ND_SUCCESS);
	ck_assert_int_eq(one(e.cq).Status, ND_SUCCESS);
	ck_assert_uint_eq((unsigned char)t[99], 0x5a);
	ck_assert_uint_eq((unsigned char)t[100], 0);
	ck_assert_uint_eq((unsigned char)t[299], 0x5a);
	n2_disconnect(&n1);
	n2_disconnect(&n2);
	ck_assert_int_eq(n2_deregister(target), ND_SUCCESS);
	ck_assert_int_eq(n2_deregister(src), ND_SUCCESS);
	target->lpVtbl->Release(target);
	src->lpVtbl->Release(src);
	for (int i = 0; i < 4; i++)
		q[i]->lpVtbl->Release(q[i]);
	n2_close(&e);
	free(t);
	free(s);
}
END_TEST

START_TEST(window_bound_deregister_busy)
{
	struct n2_env e;
	struct n2_conn n;
	IND2QueuePair *qa, *qb;
	IND2MemoryRegion *mr, *lm, *unreg;
	IND2MemoryWindow *mw;
	OVERLAPPED ov = { 0 };
	char *buf = calloc(1, 8192), *loc = calloc(1, 4096);
	ND2_SGE sge;
	UINT32 token;

	n2_open(&e);
	qa = n2_qp(&e, NULL);
	qb = n2_qp(&e, NULL);
	n2_connect(&e, &n, qa, qb, 4103);
	mr = n2_mr(&e);
	lm = n2_mr(&e);
	unreg = n2_mr(&e);
	ck_assert_int_eq(n2_register(mr, buf, 8192, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	ck_assert_int_eq(n2_register(lm, loc, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	ck_assert_int_eq(e.ad->lpVtbl->CreateMemoryWindow(e.ad, &IID_IND2MemoryWindow,
							  (VOID **)&mw), ND_SUCCESS);
	/* bind: at least one of ALLOW_READ / ALLOW_WRITE; a registered region */
	ck_assert_int_eq(qa->lpVtbl->Bind(qa, NULL, (IUnknown *)mr, (IUnknown *)mw, buf + 1000,
					  2000, 0), ND_INVALID_PARAMETER);
	ck_assert_int_eq(qa->lpVtbl->Bind(qa, NULL, (IUnknown *)unreg, (IUnknown *)mw, buf, 10,
					  ND_OP_FLAG_ALLOW_READ), ND_ACCESS_VIOLATION);
	ck_assert_int_eq(qa->lpVtbl->Bind(qa, (void *)9, (IUnknown *)mr, (IUnknown *)mw,
					  buf + 1000, 2000, ND_OP_FLAG_ALLOW_READ), ND_SUCCESS);
	/* the window's token is there before the Bind completes, in network order */
	token = mw->lpVtbl->GetRemoteToken(mw);
	{
		ND2_RESULT r = one(e.cq);

		ck_assert_int_eq(r.Status, ND_SUCCESS);
		ck_assert_int_eq(r.RequestType, Nd2RequestTypeBind);
		ck_assert_ptr_eq(r.RequestContext, (void *)9);
	}
	ck_assert_uint_eq(be32toh(token), sr_mw_rkey(((struct sr_ndk_mw *)
						      ((struct sr_nd2_mw *)mw)->ndk)->mw));
	/* the peer reads through the window */
	memset(buf + 1000, 0x33, 2000);
	sge = (ND2_SGE){ .Buffer = loc, .BufferLength = 2000,
			 .MemoryRegionToken = lm->lpVtbl->GetLocalToken(lm) };
	ck_assert_int_eq(qb->lpVtbl->Read(qb, NULL, &sge, 1, (uintptr_t)buf + 1000, token, 0),
			 ND_SUCCESS);
	ck_assert_int_eq(one(e.cq).Status, ND_SUCCESS);
	ck_assert_uint_eq((unsigned char)loc[1999], 0x33);
	/* a region with a window bound cannot be deregistered */
	ck_assert_int_eq(mr->lpVtbl->Deregister(mr, &ov), ND_DEVICE_BUSY);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_DEVICE_BUSY);
	sr_nd2_set_async(e.ad, 1, TRUE);   /* ... asynchronously either */
	ck_assert_int_eq(mr->lpVtbl->Deregister(mr, &ov), ND_PENDING);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_DEVICE_BUSY);
	sr_nd2_set_async(e.ad, (SIZE_T)1 << 30, FALSE);
	ck_assert_int_eq(qa->lpVtbl->Invalidate(qa, (void *)10, (IUnknown *)mw, 0x40),
			 ND_INVALID_PARAMETER_3);
	ck_assert_int_eq(qa->lpVtbl->Invalidate(qa, (void *)10, (IUnknown *)mw, 0), ND_SUCCESS);
	{
		ND2_RESULT r = one(e.cq);

		ck_assert_int_eq(r.Status, ND_SUCCESS);
		ck_assert_int_eq(r.RequestType, Nd2RequestTypeInvalidate);
	}
	ck_assert_int_eq(n2_deregister(mr), ND_SUCCESS);
	mw->lpVtbl->Release(mw);
	n2_disconnect(&n);
	n2_deregister(lm);
	lm->lpVtbl->Release(lm);
	mr->lpVtbl->Release(mr);
	unreg->lpVtbl->Release(unreg);
	qa->lpVtbl->Release(qa);
	qb->lpVtbl->Release(qb);
	n2_close(&e);
	free(buf);
	free(loc);
}
END_TEST

START_TEST(cq_notify)
{
	struct n2_env e;
	struct n2_conn n;
	IND2QueuePair *qa, *qb;
	IND2MemoryRegion *mr;
	OVERLAPPED o1 = { 0 }, o2 = { 0 }, o3 = { 0 };
	char *buf = calloc(1, 4096);
	ND2_SGE sge;
	ND2_RESULT r[4];
	USHORT group = 9;
	KAFFINITY aff = 0;

	n2_open(&e);
	ck_assert_int_eq(e.cq->lpVtbl->GetNotifyAffinity(e.cq, &group, &aff), ND_SUCCESS);
	ck_assert_uint_eq(group, 0);
	ck_assert_uint_ne(aff, 0);
	ck_assert_int_eq(e.cq->lpVtbl->Resize(e.cq, 512), ND_SUCCESS);
	ck_assert_int_eq(e.cq->lpVtbl->Resize(e.cq, 0), ND_INVALID_PARAMETER);
	ck_assert_int_eq(e.cq->lpVtbl->Notify(e.cq, 3, &o1), ND_INVALID_PARAMETER);
	qa = n2_qp(&e, NULL);
	qb = n2_qp(&e, NULL);
	n2_connect(&e, &n, qa, qb, 4104);
	mr = n2_mr(&e);
	ck_assert_int_eq(n2_register(mr, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	sge = (ND2_SGE){ .Buffer = buf, .BufferLength = 16,
			 .MemoryRegionToken = mr->lpVtbl->GetLocalToken(mr) };
	/* two requests outstanding: the next completion completes both */
	ck_assert_int_eq(e.cq->lpVtbl->Notify(e.cq, ND_CQ_NOTIFY_SOLICITED, &o1), ND_PENDING);
	ck_assert_int_eq(e.cq->lpVtbl->Notify(e.cq, ND_CQ_NOTIFY_ANY, &o2), ND_PENDING);
	usleep(2000);
	ck_assert_int_eq(e.cq->lpVtbl->GetOverlappedResult(e.cq, &o1, FALSE), ND_PENDING);
	ck_assert_int_eq(qb->lpVtbl->Receive(qb, NULL, &sge, 1), ND_SUCCESS);
	ck_assert_int_eq(qa->lpVtbl->Send(qa, NULL, &sge, 1, 0), ND_SUCCESS);
	ck_assert_int_eq(e.cq->lpVtbl->GetOverlappedResult(e.cq, &o2, TRUE), ND_SUCCESS);
	ck_assert_int_eq(e.cq->lpVtbl->GetOverlappedResult(e.cq, &o1, TRUE), ND_SUCCESS);
	ck_assert_uint_eq(n2_poll(e.cq, r, 2), 2);
	/* cancel completes an outstanding Notify with ND_CANCELED */
	ck_assert_int_eq(e.cq->lpVtbl->Notify(e.cq, ND_CQ_NOTIFY_ANY, &o3), ND_PENDING);
	ck_assert_int_eq(e.cq->lpVtbl->CancelOverlappedRequests(e.cq), ND_SUCCESS);
	ck_assert_int_eq(e.cq->lpVtbl->GetOverlappedResult(e.cq, &o3, TRUE), ND_CANCELED);
	n2_disconnect(&n);
	n2_deregister(mr);
	mr->lpVtbl->Release(mr);
	qa->lpVtbl->Release(qa);
	qb->lpVtbl->Release(qb);
	n2_close(&e);
	free(buf);
}
END_TEST

START_TEST(queue_pair_errors)
{
	struct n2_env e;
	IND2QueuePair *qp = NULL;
	IND2MemoryRegion *mr;
	IND2Adapter *ad;
	ND2_ADAPTER_INFO i = { .InfoVersion = 1 };
	ULONG len = sizeof(i);
	char buf[64];
	ND2_SGE sge = { .Buffer = buf, .BufferLength = 8 };
	IUnknown *cq;

	n2_open(&e);
	ad = e.ad;
	cq = (IUnknown *)e.cq;
	ck_assert_int_eq(ad->lpVtbl->Query(ad, &i, &len), ND_SUCCESS);
	mr = n2_mr(&e);
	/* CreateQueuePair: one documented code per bad argument */
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, (IUnknown *)mr, cq,
						     NULL, 8, 8, 1, 1, 0, (VOID **)&qp),
			 ND_INVALID_PARAMETER_2);
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, cq, NULL, NULL, 8, 8,
						     1, 1, 0, (VOID **)&qp),
			 ND_INVALID_PARAMETER_3);
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, cq, cq, NULL,
						     i.MaxReceiveQueueDepth + 1, 8, 1, 1, 0,
						     (VOID **)&qp), ND_INVALID_PARAMETER_5);
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, cq, cq, NULL, 8,
						     i.MaxInitiatorQueueDepth + 1, 1, 1, 0,
						     (VOID **)&qp), ND_INVALID_PARAMETER_6);
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, cq, cq, NULL, 8, 8,
						     i.MaxReceiveSge + 1, 1, 0, (VOID **)&qp),
			 ND_INVALID_PARAMETER_7);
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, cq, cq, NULL, 8, 8,
						     1, i.MaxInitiatorSge + 1, 0, (VOID **)&qp),
			 ND_INVALID_PARAMETER_8);
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, cq, cq, NULL, 8, 8,
						     1, 1, i.MaxInlineDataSize + 1, (VOID **)&qp),
			 ND_INVALID_PARAMETER_9);
	ck_assert_int_eq(ad->lpVtbl->CreateCompletionQueue(ad, &IID_IND2CompletionQueue, NULL,
							   i.MaxCompletionQueueDepth + 1, 0, 0,
							   (VOID **)&qp), ND_INVALID_PARAMETER_3);
	ck_assert_int_eq(ad->lpVtbl->CreateQueuePairWithSrq(ad, &IID_IND2QueuePair, cq, cq, NULL,
							    NULL, 8, 1, 0, (VOID **)&qp),
			 ND_INVALID_PARAMETER_4);
	qp = n2_qp(&e, NULL);
	/* not connected */
	ck_assert_int_eq(qp->lpVtbl->Send(qp, NULL, &sge, 1, 0), ND_CONNECTION_INVALID);
	ck_assert_int_eq(qp->lpVtbl->Write(qp, NULL, &sge, 1, 0, 0, 0), ND_CONNECTION_INVALID);
	ck_assert_int_eq(qp->lpVtbl->Read(qp, NULL, &sge, 1, 0, 0, 0), ND_CONNECTION_INVALID);
	/* flags a request does not take: ND_INVALID_PARAMETER_<flags argument> */
	ck_assert_int_eq(qp->lpVtbl->Send(qp, NULL, &sge, 1, ND_OP_FLAG_ALLOW_READ),
			 ND_INVALID_PARAMETER_4);
	ck_assert_int_eq(qp->lpVtbl->Write(qp, NULL, &sge, 1, 0, 0, ND_OP_FLAG_ALLOW_WRITE),
			 ND_INVALID_PARAMETER_6);
	ck_assert_int_eq(qp->lpVtbl->Read(qp, NULL, &sge, 1, 0, 0, ND_OP_FLAG_INLINE),
			 ND_INVALID_PARAMETER_6);
	/*
	 * The documented codes: more SGEs than the QP takes ND_DATA_OVERRUN,
	 * more bytes than MaxTransferLength ND_BUFFER_OVERFLOW, a full
	 * receive queue ND_NO_MORE_ENTRIES.
	 */
	{
		ND2_SGE many[5] = { sge, sge, sge, sge, sge };
		ND2_SGE big = sge;
		HRESULT hr = ND_SUCCESS;
		int posted = 0;

		ck_assert_int_eq(qp->lpVtbl->Receive(qp, NULL, many, 5), ND_DATA_OVERRUN);
		big.BufferLength = i.MaxTransferLength + 1;
		ck_assert_int_eq(qp->lpVtbl->Receive(qp, NULL, &big, 1), ND_BUFFER_OVERFLOW);
		while (posted < 1000 &&
		       (hr = qp->lpVtbl->Receive(qp, NULL, &sge, 1)) == ND_SUCCESS)
			posted++;
		ck_assert_int_ge(posted, 32);
		ck_assert_int_eq(hr, ND_NO_MORE_ENTRIES);
	}
	ck_assert_int_eq(qp->lpVtbl->Flush(qp), ND_SUCCESS);
	ck_assert_uint_eq(qp->lpVtbl->Release(qp), 0);
	mr->lpVtbl->Release(mr);
	n2_close(&e);
}
END_TEST

START_TEST(connection_lifecycle)
{
	struct n2_env e;
	struct n2_conn n;
	IND2QueuePair *qa, *qb, *qc;
	IND2Connector *c, *idle;
	IND2Listener *lis;
	IND2MemoryRegion *mr;
	OVERLAPPED ov = { 0 }, od = { 0 }, og = { 0 };
	struct sockaddr_in addr, got;
	ULONG len = sizeof(got);
	char *buf = calloc(1, 4096);
	char big[256] = { 0 };
	ND2_SGE sge;
	ND2_RESULT r;

	n2_open(&e);
	qa = n2_qp(&e, NULL);
	qb = n2_qp(&e, NULL);
	qc = n2_qp(&e, NULL);
	mr = n2_mr(&e);
	ck_assert_int_eq(n2_register(mr, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	/* nobody listens: refused by the CM's REJ, twice (the connector may retry) */
	ck_assert_int_eq(e.ad->lpVtbl->CreateConnector(e.ad, &IID_IND2Connector, NULL,
						       (VOID **)&c), ND_SUCCESS);
	n2_addr(&addr, 4199);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(c->lpVtbl->Connect(c, (IUnknown *)qc, (struct sockaddr *)&addr,
						    sizeof(addr), 1, 1, NULL, 0, &ov),
				 ND_PENDING);
		ck_assert_int_eq(c->lpVtbl->GetOverlappedResult(c, &ov, TRUE),
				 ND_CONNECTION_REFUSED);
	}
	/* private data over MaxCallerData */
	ck_assert_int_eq(c->lpVtbl->Connect(c, (IUnknown *)qc, (struct sockaddr *)&addr,
					    sizeof(addr), 1, 1, big, sizeof(big), &ov),
			 ND_INVALID_BUFFER_SIZE);
	/* never connected */
	ck_assert_int_eq(c->lpVtbl->NotifyDisconnect(c, &od), ND_CONNECTION_INVALID);
	ck_assert_int_eq(c->lpVtbl->Disconnect(c, &od), ND_CONNECTION_INVALID);
	ck_assert_int_eq(c->lpVtbl->CompleteConnect(c, &od), ND_CONNECTION_INVALID);
	c->lpVtbl->Release(c);
	/* a listener that is not listening; a request cancelled */
	ck_assert_int_eq(e.ad->lpVtbl->CreateListener(e.ad, &IID_IND2Listener, NULL,
						      (VOID **)&lis), ND_SUCCESS);
	ck_assert_int_eq(lis->lpVtbl->GetLocalAddress(lis, (struct sockaddr *)&got, &len),
			 ND_INVALID_DEVICE_STATE);
	ck_assert_int_eq(e.ad->lpVtbl->CreateConnector(e.ad, &IID_IND2Connector, NULL,
						       (VOID **)&idle), ND_SUCCESS);
	ck_assert_int_eq(lis->lpVtbl->GetConnectionRequest(lis, (IUnknown *)idle, &og),
			 ND_PENDING);
	ck_assert_int_eq(lis->lpVtbl->CancelOverlappedRequests(lis), ND_SUCCESS);
	ck_assert_int_eq(lis->lpVtbl->GetOverlappedResult(lis, &og, TRUE), ND_CANCELED);
	idle->lpVtbl->Release(idle);
	lis->lpVtbl->Release(lis);
	/* connected: addresses, then the peer disconnects */
	n2_connect(&e, &n, qa, qb, 4105);
	len = sizeof(got);
	ck_assert_int_eq(n.lis->lpVtbl->GetLocalAddress(n.lis, (struct sockaddr *)&got, &len),
			 ND_SUCCESS);
	ck_assert_uint_eq(got.sin_port, htons(4105));
	len = 4;
	ck_assert_int_eq(n.active->lpVtbl->GetPeerAddress(n.active, (struct sockaddr *)&got,
							  &len), ND_BUFFER_OVERFLOW);
	ck_assert_uint_eq(len, sizeof(struct sockaddr_in));
	ck_assert_int_eq(n.active->lpVtbl->GetPeerAddress(n.active, (struct sockaddr *)&got,
							  &len), ND_SUCCESS);
	ck_assert_uint_eq(got.sin_addr.s_addr, htonl(0x0a000001));
	sge = (ND2_SGE){ .Buffer = buf, .BufferLength = 16,
			 .MemoryRegionToken = mr->lpVtbl->GetLocalToken(mr) };
	ck_assert_int_eq(qa->lpVtbl->Receive(qa, (void *)5, &sge, 1), ND_SUCCESS);
	ck_assert_int_eq(n.active->lpVtbl->NotifyDisconnect(n.active, &od), ND_PENDING);
	ck_assert_int_eq(n.active->lpVtbl->GetOverlappedResult(n.active, &od, FALSE), ND_PENDING);
	ck_assert_int_eq(n.passive->lpVtbl->Disconnect(n.passive, &ov), ND_SUCCESS);
	ck_assert_int_eq(n.active->lpVtbl->GetOverlappedResult(n.active, &od, TRUE), ND_SUCCESS);
	/* the active side's outstanding receive is flushed */
	r = one(e.cq);
	ck_assert_ptr_eq(r.RequestContext, (void *)5);
	ck_assert_int_eq(r.Status, ND_CANCELED);
	n2_disconnect(&n);
	n2_deregister(mr);
	mr->lpVtbl->Release(mr);
	qa->lpVtbl->Release(qa);
	qb->lpVtbl->Release(qb);
	qc->lpVtbl->Release(qc);
	n2_close(&e);
	free(buf);
}
END_TEST

/*
 * A shared receive queue: its parameter checks, Modify, two QPs on it,
 * a SEND from a third QP lands in a receive posted to the SRQ, and its
 * completion names the QP it came through.
 */
START_TEST(shared_receive_queue)
{
	struct n2_env e;
	struct n2_conn n;
	IND2SharedReceiveQueue *srq = NULL;
	IND2QueuePair *qa, *qb = NULL, *qc = NULL;
	IND2MemoryRegion *mr;
	ND2_ADAPTER_INFO i = { .InfoVersion = 1 };
	ULONG len = sizeof(i);
	char *buf = calloc(1, 4096);
	ND2_SGE sge;
	ND2_RESULT r;

	n2_open(&e);
	ck_assert_int_eq(e.ad->lpVtbl->Query(e.ad, &i, &len), ND_SUCCESS);
	ck_assert_uint_gt(i.MaxSharedReceiveQueueDepth, 0);
	ck_assert_int_eq(e.ad->lpVtbl->CreateSharedReceiveQueue(e.ad, &IID_IND2SharedReceiveQueue,
								NULL, 0, 1, 0, 0, 0,
								(VOID **)&srq),
			 ND_INVALID_PARAMETER_4);
	ck_assert_int_eq(e.ad->lpVtbl->CreateSharedReceiveQueue(e.ad, &IID_IND2SharedReceiveQueue,
								NULL, 16, 1, 17, 0, 0,
								(VOID **)&srq),
			 ND_INVALID_PARAMETER_6);
	ck_assert_int_eq(e.ad->lpVtbl->CreateSharedReceiveQueue(e.ad, &IID_IND2SharedReceiveQueue,
								NULL, 16, 2, 4, 0, 0,
								(VOID **)&srq),
			 ND_SUCCESS);
	/* the threshold changes; the depth cannot (the engine's SRQs keep theirs) */
	ck_assert_int_eq(srq->lpVtbl->Modify(srq, 16, 2), ND_SUCCESS);
	ck_assert_int_eq(srq->lpVtbl->Modify(srq, 32, 2), ND_NOT_SUPPORTED);
	ck_assert_int_eq(e.ad->lpVtbl->CreateQueuePairWithSrq(e.ad, &IID_IND2QueuePair,
							      (IUnknown *)e.cq,
							      (IUnknown *)e.cq,
							      (IUnknown *)srq, (void *)0xb, 8, 1,
							      0, (VOID **)&qb), ND_SUCCESS);
	ck_assert_int_eq(e.ad->lpVtbl->CreateQueuePairWithSrq(e.ad, &IID_IND2QueuePair,
							      (IUnknown *)e.cq,
							      (IUnknown *)e.cq,
							      (IUnknown *)srq, (void *)0xc, 8, 1,
							      0, (VOID **)&qc), ND_SUCCESS);
	qa = n2_qp(&e, (void *)0xa);
	mr = n2_mr(&e);
	ck_assert_int_eq(n2_register(mr, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	sge = (ND2_SGE){ .Buffer = buf + 1024, .BufferLength = 64,
			 .MemoryRegionToken = mr->lpVtbl->GetLocalToken(mr) };
	/* receives go to the SRQ, not to a QP on it */
	ck_assert_int_ne(qb->lpVtbl->Receive(qb, NULL, &sge, 1), ND_SUCCESS);
	ck_assert_int_eq(srq->lpVtbl->Receive(srq, (void *)9, &sge, 1), ND_SUCCESS);
	n2_connect(&e, &n, qa, qb, 4120);
	strcpy(buf, "through the srq");
	sge = (ND2_SGE){ .Buffer = buf, .BufferLength = 16,
			 .MemoryRegionToken = mr->lpVtbl->GetLocalToken(mr) };
	ck_assert_int_eq(qa->lpVtbl->Send(qa, (void *)1, &sge, 1, 0), ND_SUCCESS);
	for (int k = 0; k < 2; k++) {
		r = one(e.cq);
		ck_assert_int_eq(r.Status, ND_SUCCESS);
		if (r.RequestType == Nd2RequestTypeReceive) {
			ck_assert_ptr_eq(r.RequestContext, (void *)9);
			ck_assert_ptr_eq(r.QueuePairContext, (void *)0xb);
			ck_assert_uint_eq(r.BytesTransferred, 16);
		}
	}
	ck_assert_str_eq(buf + 1024, "through the srq");
	n2_disconnect(&n);
	ck_assert_int_eq(n2_deregister(mr), ND_SUCCESS);
	mr->lpVtbl->Release(mr);
	qa->lpVtbl->Release(qa);
	qb->lpVtbl->Release(qb);
	qc->lpVtbl->Release(qc);
	ck_assert_uint_eq(srq->lpVtbl->Release(srq), 0);
	n2_close(&e);
	free(buf);
}
END_TEST

static Suite *nd2_qp_suite(void)
{
	Suite *s = suite_create("nd2_qp");
	TCase *t = tcase_create("qp");

	tcase_set_timeout(t, 30);
	tcase_add_test(t, send_read_write);
	tcase_add_test(t, registered_memory_every_qp);
	tcase_add_test(t, window_bound_deregister_busy);
	tcase_add_test(t, cq_notify);
	tcase_add_test(t, queue_pair_errors);
	tcase_add_test(t, connection_lifecycle);
	tcase_add_test(t, shared_receive_queue);
	suite_add_tcase(s, t);
	return s;
}

SR_CHECK_MAIN(nd2_qp_suite)
