/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_qp.c — NDK QPs on the loopback device: connection through the
 * connector / listener, send / receive / read / write with NDK_RESULT_EX,
 * NdkFastRegister exactly as documented (connection, rights, token right
 * after, silent success, failures always complete, deferral), invalidation
 * local and remote, windows, flush.
 */
#include <endian.h>

#include "ndk_test.h"

struct nt_qps {
	struct nt_env e;
	struct nt_conn c;
	NDK_QP *a, *b;
	NDK_MR *mr;          /* normal MR over buf, all rights */
	char *buf;
	UINT32 lkey;
};

#define NT_BUF (16 * PAGE_SIZE)

static void nt_qps_open(struct nt_qps *q)
{
	PMDL m;

	nt_open(&q->e);
	q->a = nt_qp(&q->e, (PVOID)0xA);
	q->b = nt_qp(&q->e, (PVOID)0xB);
	q->buf = aligned_alloc(PAGE_SIZE, NT_BUF);
	memset(q->buf, 0, NT_BUF);
	m = sr_mdl_chain_build(q->buf, NT_BUF, 0);
	ck_assert_int_eq(q->e.pd->Dispatch->NdkCreateMr(q->e.pd, FALSE, NULL, NULL, &q->mr),
			 STATUS_SUCCESS);
	ck_assert_int_eq(q->mr->Dispatch->NdkRegisterMr(q->mr, m, NT_BUF,
							NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
							NDK_MR_FLAG_ALLOW_REMOTE_READ,
							NULL, NULL), STATUS_SUCCESS);
	sr_mdl_chain_free(m);
	q->lkey = q->mr->Dispatch->NdkGetLocalTokenFromMr(q->mr);
}

static void nt_qps_connect(struct nt_qps *q)
{
	nt_connect(&q->e, &q->c, q->a, q->b);
}

static void nt_qps_close(struct nt_qps *q, bool connected)
{
	NDK_RESULT_EX r[64];

	if (connected)
		nt_disconnect(&q->c);
	nt_close_obj(&q->a->Header);
	nt_close_obj(&q->b->Header);
	while (q->e.cq->Dispatch->NdkGetCqResultsEx(q->e.cq, r, 64))
		;
	nt_close_obj(&q->mr->Header);
	free(q->buf);
	nt_close(&q->e);
}

static NDK_SGE nt_sge(struct nt_qps *q, size_t off, ULONG len)
{
	NDK_SGE s = { .VirtualAddress = q->buf + off, .Length = len,
		      .MemoryRegionToken = q->lkey };
	return s;
}

START_TEST(unconnected_qp)
{
	struct nt_qps q;
	NDK_SGE s;
	NDK_MR *fr;
	NDK_LOGICAL_ADDRESS page;

	nt_qps_open(&q);
	s = nt_sge(&q, 0, 16);
	page.QuadPart = (LONGLONG)(uintptr_t)q.buf;
	ck_assert_int_eq(q.a->Header.ObjectType, NdkObjectTypeQp);
	ck_assert_int_eq(q.a->Dispatch->NdkSend(q.a, NULL, &s, 1, 0), STATUS_CONNECTION_INVALID);
	ck_assert_int_eq(q.a->Dispatch->NdkWrite(q.a, NULL, &s, 1, 0, 0, 0),
			 STATUS_CONNECTION_INVALID);
	ck_assert_int_eq(q.a->Dispatch->NdkRead(q.a, NULL, &s, 1, 0, 0, 0),
			 STATUS_CONNECTION_INVALID);
	ck_assert_int_eq(q.e.pd->Dispatch->NdkCreateMr(q.e.pd, TRUE, NULL, NULL, &fr),
			 STATUS_SUCCESS);
	ck_assert_int_eq(fr->Dispatch->NdkInitializeFastRegisterMr(fr, 16, TRUE, NULL, NULL),
			 STATUS_SUCCESS);
	ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, NULL, fr, 1, &page, 0, 100,
							q.buf, NDK_OP_FLAG_ALLOW_REMOTE_READ),
			 STATUS_CONNECTION_INVALID);
	/* receives may be posted before the connection */
	ck_assert_int_eq(q.a->Dispatch->NdkReceive(q.a, NULL, &s, 1), STATUS_SUCCESS);
	/* too many SGEs; more bytes than MaxTransferLength (receives too) */
	{
		NDK_SGE many[8] = { 0 };
		NDK_SGE big = s;

		ck_assert_int_eq(q.a->Dispatch->NdkReceive(q.a, NULL, many, 8),
				 STATUS_DATA_OVERRUN);
		big.Length = sr_mr_dev_limits(q.e.mrd)->max_transfer_length + 1;
		ck_assert_int_eq(q.a->Dispatch->NdkReceive(q.a, NULL, &big, 1),
				 STATUS_BUFFER_OVERFLOW);
	}
	nt_close_obj(&fr->Header);
	nt_qps_close(&q, false);
}
END_TEST

START_TEST(send_receive_read_write)
{
	struct nt_qps q;
	NDK_RESULT_EX r[4];
	NDK_SGE s;
	UINT32 rtok;

	nt_qps_open(&q);
	nt_qps_connect(&q);
	rtok = q.mr->Dispatch->NdkGetRemoteTokenFromMr(q.mr);
	/* send -> receive */
	s = nt_sge(&q, PAGE_SIZE, 64);
	ck_assert_int_eq(q.b->Dispatch->NdkReceive(q.b, (PVOID)0x77, &s, 1), STATUS_SUCCESS);
	memcpy(q.buf, "ndk send", 9);
	s = nt_sge(&q, 0, 9);
	ck_assert_int_eq(q.a->Dispatch->NdkSend(q.a, (PVOID)0x55, &s, 1, 0), STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 2, 2000), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(r[i].Status, STATUS_SUCCESS);
		if (r[i].Type == NdkOperationTypeReceive) {
			ck_assert_ptr_eq(r[i].RequestContext, (PVOID)0x77);
			ck_assert_ptr_eq(r[i].QPContext, (PVOID)0xB);
			ck_assert_uint_eq(r[i].BytesTransferred, 9);
		} else {
			ck_assert_int_eq(r[i].Type, NdkOperationTypeSend);
			ck_assert_ptr_eq(r[i].RequestContext, (PVOID)0x55);
			ck_assert_ptr_eq(r[i].QPContext, (PVOID)0xA);
		}
	}
	ck_assert_str_eq(q.buf + PAGE_SIZE, "ndk send");
	/* write with the remote token (network order) */
	memcpy(q.buf + 100, "written", 8);
	s = nt_sge(&q, 100, 8);
	ck_assert_int_eq(q.a->Dispatch->NdkWrite(q.a, (PVOID)1, &s, 1,
						 (uintptr_t)q.buf + 2 * PAGE_SIZE, rtok, 0),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Type, NdkOperationTypeWrite);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	ck_assert_str_eq(q.buf + 2 * PAGE_SIZE, "written");
	/* read */
	s = nt_sge(&q, 3 * PAGE_SIZE, 8);
	/* local invalidate is not advertised: the flag is ignored, as documented */
	{
		NDK_ADAPTER_INFO info = { .Version = { .Major = 1, .Minor = 2 } };
		ULONG len = sizeof(info);

		ck_assert_int_eq(q.e.ad->Dispatch->NdkQueryAdapterInfo(q.e.ad, &info, &len),
				 STATUS_SUCCESS);
		ck_assert_uint_eq(info.AdapterFlags &
				  NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED, 0);
	}
	ck_assert_int_eq(q.a->Dispatch->NdkRead(q.a, (PVOID)2, &s, 1,
						(uintptr_t)q.buf + 2 * PAGE_SIZE, rtok,
						NDK_OP_FLAG_RDMA_READ_LOCAL_INVALIDATE),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Type, NdkOperationTypeRead);
	ck_assert_uint_eq(r[0].BytesTransferred, 8);
	ck_assert_str_eq(q.buf + 3 * PAGE_SIZE, "written");
	/* silent success: no completion; NDK_RESULT (not Ex) works too */
	ck_assert_int_eq(q.a->Dispatch->NdkWrite(q.a, (PVOID)3, &s, 1,
						 (uintptr_t)q.buf + 4 * PAGE_SIZE, rtok,
						 NDK_OP_FLAG_SILENT_SUCCESS), STATUS_SUCCESS);
	ck_assert_int_eq(q.a->Dispatch->NdkWrite(q.a, (PVOID)4, &s, 1,
						 (uintptr_t)q.buf + 5 * PAGE_SIZE, rtok, 0),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_ptr_eq(r[0].RequestContext, (PVOID)4);
	usleep(20000);
	{
		NDK_RESULT res[2];

		ck_assert_uint_eq(q.e.cq->Dispatch->NdkGetCqResults(q.e.cq, res, 2), 0);
	}
	nt_qps_close(&q, true);
}
END_TEST

static void nt_cq_notify(PVOID ctx, NTSTATUS st)
{
	struct nt_wait *w = ctx;

	w->st = st;
	atomic_store(&w->done, 1);
}

START_TEST(arm_cq_notification)
{
	struct nt_qps q;
	struct nt_wait w = { 0 };
	NDK_CQ *cq;
	NDK_QP *qa, *qb;
	struct nt_conn c;
	NDK_RESULT_EX r[2];
	NDK_SGE s;

	nt_qps_open(&q);
	ck_assert_int_eq(q.e.ad->Dispatch->NdkCreateCq(q.e.ad, 64, nt_cq_notify, &w, NULL, NULL,
						       NULL, &cq), STATUS_SUCCESS);
	ck_assert_int_eq(q.e.pd->Dispatch->NdkCreateQp(q.e.pd, cq, q.e.cq, NULL, 8, 8, 1, 1, 0,
						       NULL, NULL, &qb), STATUS_SUCCESS);
	qa = q.a;
	nt_connect(&q.e, &c, qa, qb);
	cq->Dispatch->NdkArmCq(cq, NDK_CQ_NOTIFY_ANY);
	s = nt_sge(&q, 0, 8);
	ck_assert_int_eq(qb->Dispatch->NdkReceive(qb, NULL, &s, 1), STATUS_SUCCESS);
	ck_assert_int_eq(qa->Dispatch->NdkSend(qa, NULL, &s, 1, NDK_OP_FLAG_SILENT_SUCCESS),
			 STATUS_SUCCESS);
	/* nobody polls: the adapter thread progresses and calls back */
	ck_assert_int_eq(nt_wait(&w), STATUS_SUCCESS);
	ck_assert_uint_eq(cq->Dispatch->NdkGetCqResultsEx(cq, r, 2), 1);
	ck_assert_int_eq(r[0].Type, NdkOperationTypeReceive);
	nt_disconnect(&c);
	nt_close_obj(&qb->Header);
	/* a CQ in use cannot close */
	nt_close_obj(&cq->Header);
	nt_qps_close(&q, false);
}
END_TEST

START_TEST(fast_register_as_documented)
{
	struct nt_qps q;
	NDK_MR *fr, *local;
	NDK_LOGICAL_ADDRESS pages[4];
	NDK_RESULT_EX r[4];
	NDK_SGE s;
	UINT32 tok, tok2;
	char *base;

	nt_qps_open(&q);
	nt_qps_connect(&q);
	base = q.buf + 8 * PAGE_SIZE;
	for (int i = 0; i < 4; i++)
		pages[i].QuadPart = (LONGLONG)(uintptr_t)(base + i * PAGE_SIZE);
	ck_assert_int_eq(q.e.pd->Dispatch->NdkCreateMr(q.e.pd, TRUE, NULL, NULL, &fr),
			 STATUS_SUCCESS);
	/* not initialised yet */
	ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, NULL, fr, 1, pages, 0, 10, base, 0),
			 STATUS_INVALID_DEVICE_STATE);
	ck_assert_int_eq(fr->Dispatch->NdkInitializeFastRegisterMr(fr, SR_FRMR_MAX_PAGES + 1, TRUE,
								   NULL, NULL),
			 STATUS_IMPLEMENTATION_LIMIT);
	ck_assert_int_eq(fr->Dispatch->NdkInitializeFastRegisterMr(fr, 4, TRUE, NULL, NULL),
			 STATUS_SUCCESS);
	tok = fr->Dispatch->NdkGetRemoteTokenFromMr(fr);
	/* FBO 100, BaseVirtualAddress = FBO + n * PAGE_SIZE; token readable at once */
	ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, (PVOID)0xF1, fr, 4, pages, 100,
							3 * PAGE_SIZE, base + 100,
							NDK_OP_FLAG_ALLOW_REMOTE_READ |
							NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
			 STATUS_SUCCESS);
	tok2 = fr->Dispatch->NdkGetRemoteTokenFromMr(fr);
	ck_assert_uint_ne(tok2, tok);
	ck_assert_uint_eq(be32toh(tok2), fr->Dispatch->NdkGetLocalTokenFromMr(fr));
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Type, NdkOperationTypeFastRegister);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	ck_assert_ptr_eq(r[0].RequestContext, (PVOID)0xF1);
	/* the peer writes through the new token */
	memcpy(q.buf, "through frmr", 13);
	s = nt_sge(&q, 0, 13);
	ck_assert_int_eq(q.b->Dispatch->NdkWrite(q.b, NULL, &s, 1, (uintptr_t)base + 200, tok2, 0),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	ck_assert_str_eq(base + 200, "through frmr");
	/* remote invalidate by send-and-invalidate: receive reports the token */
	s = nt_sge(&q, PAGE_SIZE, 16);
	ck_assert_int_eq(q.a->Dispatch->NdkReceive(q.a, (PVOID)0x99, &s, 1), STATUS_SUCCESS);
	s = nt_sge(&q, 0, 4);
	ck_assert_int_eq(q.b->Dispatch->NdkSendAndInvalidate(q.b, NULL, &s, 1, 0, tok2),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 2, 2000), 2);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(r[i].Status, STATUS_SUCCESS);
		if (r[i].RequestContext == (PVOID)0x99) {
			ck_assert_int_eq(r[i].Type, NdkOperationTypeReceiveAndInvalidate);
			ck_assert_uint_eq(r[i].TypeSpecificCompletionOutput, tok2);
		}
	}
	/* the invalidated token no longer works: remote access error */
	ck_assert_int_eq(q.b->Dispatch->NdkWrite(q.b, NULL, &s, 1, (uintptr_t)base + 200, tok2,
						 0), STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Status, STATUS_ACCESS_VIOLATION);
	nt_disconnect(&q.c);
	nt_close_obj(&q.a->Header);
	nt_close_obj(&q.b->Header);
	q.a = nt_qp(&q.e, (PVOID)0xA);
	q.b = nt_qp(&q.e, (PVOID)0xB);
	nt_qps_connect(&q);

	/* remote rights on an MR initialised without remote access */
	ck_assert_int_eq(q.e.pd->Dispatch->NdkCreateMr(q.e.pd, TRUE, NULL, NULL, &local),
			 STATUS_SUCCESS);
	ck_assert_int_eq(local->Dispatch->NdkInitializeFastRegisterMr(local, 4, FALSE, NULL,
								      NULL), STATUS_SUCCESS);
	ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, NULL, local, 1, pages, 0, 10, base,
							NDK_OP_FLAG_ALLOW_REMOTE_READ),
			 STATUS_ACCESS_VIOLATION);
	ck_assert_uint_eq(local->Dispatch->NdkGetRemoteTokenFromMr(local), 0);
	/* local write only is fine, silently */
	ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, NULL, local, 1, pages, 0, 10, base,
							NDK_OP_FLAG_ALLOW_LOCAL_WRITE |
							NDK_OP_FLAG_SILENT_SUCCESS),
			 STATUS_SUCCESS);
	/*
	 * Parameter errors are the call's (the documented return values),
	 * not a completion that moves the QP to error: a base address not
	 * FBO + n pages, an FBO past the page, length 0 or past the pages,
	 * more pages than initialised, a misaligned page.
	 */
	{
		NDK_LOGICAL_ADDRESS odd = { .QuadPart = pages[0].QuadPart + 8 };
		const struct {
			ULONG n;
			const NDK_LOGICAL_ADDRESS *pa;
			ULONG fbo;
			SIZE_T len;
			char *va;
		} bad[] = {
			{ 1, pages, 8, 10, base + 9 },
			{ 1, pages, PAGE_SIZE, 10, base + PAGE_SIZE },
			{ 1, pages, 0, 0, base },
			{ 1, pages, 0, PAGE_SIZE + 1, base },
			{ 5, pages, 0, 10, base },
			{ 1, &odd, 0, 10, base },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, (PVOID)0xBAD, fr,
									bad[i].n, bad[i].pa,
									bad[i].fbo, bad[i].len,
									bad[i].va,
									NDK_OP_FLAG_ALLOW_REMOTE_READ),
					 STATUS_INVALID_PARAMETER);
	}
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 200), 0);
	/* the QP is still good: a right request completes (fr was invalidated above) */
	ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, (PVOID)0x600D, fr, 1, pages, 8, 10,
							base + 8, NDK_OP_FLAG_ALLOW_REMOTE_READ),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_ptr_eq(r[0].RequestContext, (PVOID)0x600D);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	nt_close_obj(&local->Header);
	nt_close_obj(&fr->Header);
	nt_qps_close(&q, true);
}
END_TEST

START_TEST(deferred_requests)
{
	struct nt_qps q;
	NDK_MR *fr;
	NDK_LOGICAL_ADDRESS page;
	NDK_RESULT_EX r[4];
	NDK_SGE s;
	UINT32 tok;

	nt_qps_open(&q);
	nt_qps_connect(&q);
	page.QuadPart = (LONGLONG)(uintptr_t)(q.buf + 10 * PAGE_SIZE);
	ck_assert_int_eq(q.e.pd->Dispatch->NdkCreateMr(q.e.pd, TRUE, NULL, NULL, &fr),
			 STATUS_SUCCESS);
	ck_assert_int_eq(fr->Dispatch->NdkInitializeFastRegisterMr(fr, 1, TRUE, NULL, NULL),
			 STATUS_SUCCESS);
	/* deferred: held by the shim, nothing reaches the engine */
	ck_assert_int_eq(q.a->Dispatch->NdkFastRegister(q.a, (PVOID)1, fr, 1, &page, 0, 64,
							q.buf + 10 * PAGE_SIZE,
							NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
							NDK_OP_FLAG_DEFER), STATUS_SUCCESS);
	tok = fr->Dispatch->NdkGetRemoteTokenFromMr(fr);
	usleep(20000);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 50), 0);
	/* the next undeferred request takes the chain along, in order */
	memcpy(q.buf, "deferred", 9);
	s = nt_sge(&q, 0, 9);
	ck_assert_int_eq(q.a->Dispatch->NdkWrite(q.a, (PVOID)2, &s, 1,
						 (uintptr_t)q.buf + 10 * PAGE_SIZE, tok, 0),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 2, 2000), 2);
	ck_assert_ptr_eq(r[0].RequestContext, (PVOID)1);
	ck_assert_ptr_eq(r[1].RequestContext, (PVOID)2);
	ck_assert_int_eq(r[1].Status, STATUS_SUCCESS);
	ck_assert_str_eq(q.buf + 10 * PAGE_SIZE, "deferred");
	/* a deferred invalidate reaches the engine on an inline failure */
	ck_assert_int_eq(q.a->Dispatch->NdkInvalidate(q.a, (PVOID)3, &fr->Header,
						      NDK_OP_FLAG_DEFER), STATUS_SUCCESS);
	{
		NDK_SGE many[8] = { 0 };

		ck_assert_int_eq(q.a->Dispatch->NdkSend(q.a, NULL, many, 8, 0),
				 STATUS_DATA_OVERRUN);
	}
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_ptr_eq(r[0].RequestContext, (PVOID)3);
	ck_assert_int_eq(r[0].Type, NdkOperationTypeInvalidate);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	/* NdkFlush gives deferred requests to the engine, then cancels */
	s = nt_sge(&q, 0, 8);
	ck_assert_int_eq(q.a->Dispatch->NdkReceive(q.a, (PVOID)5, &s, 1), STATUS_SUCCESS);
	q.a->Dispatch->NdkFlush(q.a);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_ptr_eq(r[0].RequestContext, (PVOID)5);
	ck_assert_int_eq(r[0].Status, STATUS_CANCELLED);
	nt_close_obj(&fr->Header);
	nt_qps_close(&q, true);
}
END_TEST

START_TEST(windows_bind_invalidate)
{
	struct nt_qps q;
	NDK_MW *mw;
	NDK_RESULT_EX r[2];
	NDK_SGE s;
	UINT32 wtok;

	nt_qps_open(&q);
	nt_qps_connect(&q);
	ck_assert_int_eq(q.e.pd->Dispatch->NdkCreateMw(q.e.pd, NULL, NULL, &mw), STATUS_SUCCESS);
	ck_assert_int_eq(mw->Header.ObjectType, NdkObjectTypeMw);
	/* a window is bound on the QP its remote accesses arrive on (type 2) */
	ck_assert_int_eq(q.b->Dispatch->NdkBind(q.b, (PVOID)7, q.mr, mw, q.buf + 12 * PAGE_SIZE,
						PAGE_SIZE, NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
			 STATUS_SUCCESS);
	wtok = mw->Dispatch->NdkGetRemoteTokenFromMw(mw);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Type, NdkOperationTypeBind);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	/* deregistering an MR with a window bound: device busy */
	ck_assert_int_eq(q.mr->Dispatch->NdkDeregisterMr(q.mr, NULL, NULL), STATUS_DEVICE_BUSY);
	memcpy(q.buf, "window", 7);
	s = nt_sge(&q, 0, 7);
	ck_assert_int_eq(q.a->Dispatch->NdkWrite(q.a, NULL, &s, 1,
						 (uintptr_t)q.buf + 12 * PAGE_SIZE, wtok, 0),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	ck_assert_str_eq(q.buf + 12 * PAGE_SIZE, "window");
	ck_assert_int_eq(q.b->Dispatch->NdkInvalidate(q.b, (PVOID)8, &mw->Header, 0),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
	ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
	/*
	 * Rights the region does not allow, or a range past it: the call's
	 * error, nothing completes, the QP stays good.
	 */
	{
		NDK_MR *ro;
		PMDL m = sr_mdl_chain_build(q.buf + 16 * PAGE_SIZE, PAGE_SIZE, 0);

		ck_assert_int_eq(q.e.pd->Dispatch->NdkCreateMr(q.e.pd, FALSE, NULL, NULL, &ro),
				 STATUS_SUCCESS);
		ck_assert_int_eq(ro->Dispatch->NdkRegisterMr(ro, m, PAGE_SIZE,
							     NDK_MR_FLAG_ALLOW_REMOTE_READ,
							     NULL, NULL), STATUS_SUCCESS);
		sr_mdl_chain_free(m);
		ck_assert_int_eq(q.b->Dispatch->NdkBind(q.b, (PVOID)9, ro, mw,
							q.buf + 16 * PAGE_SIZE, 64,
							NDK_OP_FLAG_ALLOW_REMOTE_WRITE),
				 STATUS_ACCESS_VIOLATION);
		ck_assert_int_eq(q.b->Dispatch->NdkBind(q.b, (PVOID)10, ro, mw,
							q.buf + 16 * PAGE_SIZE, 2 * PAGE_SIZE,
							NDK_OP_FLAG_ALLOW_REMOTE_READ),
				 STATUS_INVALID_PARAMETER);
		ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 200), 0);
		ck_assert_int_eq(q.b->Dispatch->NdkBind(q.b, (PVOID)11, ro, mw,
							q.buf + 16 * PAGE_SIZE, 64,
							NDK_OP_FLAG_ALLOW_REMOTE_READ),
				 STATUS_SUCCESS);
		ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
		ck_assert_int_eq(r[0].Status, STATUS_SUCCESS);
		ck_assert_int_eq(q.b->Dispatch->NdkInvalidate(q.b, (PVOID)12, &mw->Header, 0),
				 STATUS_SUCCESS);
		ck_assert_uint_eq(nt_poll(&q.e, q.e.cq, r, 1, 2000), 1);
		nt_close_obj(&ro->Header);
	}
	nt_close_obj(&mw->Header);
	nt_qps_close(&q, true);
}
END_TEST

START_TEST(connection_errors)
{
	struct nt_env e;
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(4999) };
	NDK_CONNECTOR *c;
	NDK_QP *qp;
	struct nt_wait w = { 0 };

	nt_open(&e);
	qp = nt_qp(&e, NULL);
	addr.sin_addr.s_addr = htonl(0x0a000001);
	ck_assert_int_eq(e.ad->Dispatch->NdkCreateConnector(e.ad, NULL, NULL, &c), STATUS_SUCCESS);
	/* nobody listens: the CM's REJ (invalid service ID) refuses it */
	ck_assert_int_eq(c->Dispatch->NdkConnect(c, qp, NULL, 0, (PSOCKADDR)&addr, sizeof(addr),
						 1, 1, NULL, 0, nt_req_cb, &w),
			 STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_CONNECTION_REFUSED);
	/* no host at that address: ARP finds nobody */
	addr.sin_addr.s_addr = htonl(0x0a000009);
	ck_assert_int_eq(c->Dispatch->NdkConnect(c, qp, NULL, 0, (PSOCKADDR)&addr, sizeof(addr),
						 1, 1, NULL, 0, nt_req_cb, &w),
			 STATUS_HOST_UNREACHABLE);
	addr.sin_addr.s_addr = htonl(0x0a000001);
	/* bad address length, private data over MaxCallerData */
	ck_assert_int_eq(c->Dispatch->NdkConnect(c, qp, NULL, 0, (PSOCKADDR)&addr, 4, 1, 1, NULL,
						 0, nt_req_cb, &w), STATUS_INVALID_PARAMETER);
	{
		static char big[1024];

		ck_assert_int_eq(c->Dispatch->NdkConnect(c, qp, NULL, 0, (PSOCKADDR)&addr,
							 sizeof(addr), 1, 1, big, sizeof(big),
							 nt_req_cb, &w), STATUS_INVALID_PARAMETER);
	}
	ck_assert_int_eq(c->Dispatch->NdkCompleteConnect(c, NULL, NULL, NULL, NULL),
			 STATUS_INVALID_DEVICE_STATE);
	nt_close_obj(&c->Header);
	nt_close_obj(&qp->Header);
	nt_close(&e);
}
END_TEST

START_TEST(listen_ephemeral_and_reject)
{
	struct nt_env e;
	struct sockaddr_in addr = { .sin_family = AF_INET }, got;
	struct nt_conn n = { 0 };
	struct nt_wait w = { 0 };
	NDK_LISTENER *l2;
	NDK_CONNECTOR *c;
	NDK_QP *qp;
	unsigned char pd[256];
	ULONG len = sizeof(got);
	uint64_t end;

	nt_open(&e);
	qp = nt_qp(&e, NULL);
	addr.sin_addr.s_addr = htonl(0x0a000001);
	/* port 0: the listener gets a port of its own */
	ck_assert_int_eq(e.ad->Dispatch->NdkCreateListener(e.ad, nt_connect_event, &n, NULL,
							   NULL, &n.lis), STATUS_SUCCESS);
	ck_assert_int_eq(n.lis->Dispatch->NdkListen(n.lis, (PSOCKADDR)&addr, sizeof(addr), NULL,
						    NULL), STATUS_SUCCESS);
	ck_assert_int_eq(n.lis->Dispatch->NdkGetLocalAddress(n.lis, (PSOCKADDR)&got, &len),
			 STATUS_SUCCESS);
	ck_assert_uint_ne(ntohs(got.sin_port), 0);
	/* the same port twice */
	ck_assert_int_eq(e.ad->Dispatch->NdkCreateListener(e.ad, nt_connect_event, &n, NULL,
							   NULL, &l2), STATUS_SUCCESS);
	ck_assert_int_eq(l2->Dispatch->NdkListen(l2, (PSOCKADDR)&got, sizeof(got), NULL, NULL),
			 STATUS_ADDRESS_ALREADY_EXISTS);
	nt_close_obj(&l2->Header);
	/* a request rejected with 148 bytes: the connector reads them back */
	ck_assert_int_eq(e.ad->Dispatch->NdkCreateConnector(e.ad, NULL, NULL, &c), STATUS_SUCCESS);
	ck_assert_int_eq(c->Dispatch->NdkConnect(c, qp, NULL, 0, (PSOCKADDR)&got, sizeof(got),
						 1, 1, "no", 2, nt_req_cb, &w), STATUS_PENDING);
	end = nt_ms() + 3000;
	while (!atomic_load(&n.got)) {
		ck_assert(nt_ms() < end);
		usleep(100);
	}
	for (int i = 0; i < 148; i++)
		pd[i] = (unsigned char)(i + 1);
	/* more than a REJ carries */
	ck_assert_int_eq(n.passive->Dispatch->NdkReject(n.passive, pd, 149),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(n.passive->Dispatch->NdkReject(n.passive, pd, 148), STATUS_SUCCESS);
	ck_assert_int_eq(nt_wait(&w), STATUS_CONNECTION_REFUSED);
	memset(pd, 0, sizeof(pd));
	len = sizeof(pd);
	ck_assert_int_eq(c->Dispatch->NdkGetConnectionData(c, NULL, NULL, pd, &len),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(len, 148);
	for (int i = 0; i < 148; i++)
		ck_assert_uint_eq(pd[i], (unsigned char)(i + 1));
	nt_close_obj(&c->Header);
	nt_close_obj(&n.passive->Header);
	nt_close_obj(&n.lis->Header);
	nt_close_obj(&qp->Header);
	nt_close(&e);
}
END_TEST

static Suite *ndk_qp_suite(void)
{
	Suite *s = suite_create("ndk_qp");
	TCase *t = tcase_create("qp");

	tcase_set_timeout(t, 30);
	tcase_add_test(t, unconnected_qp);
	tcase_add_test(t, send_receive_read_write);
	tcase_add_test(t, arm_cq_notification);
	tcase_add_test(t, fast_register_as_documented);
	tcase_add_test(t, deferred_requests);
	tcase_add_test(t, windows_bind_invalidate);
	tcase_add_test(t, connection_errors);
	tcase_add_test(t, listen_ephemeral_and_reject);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ndk_qp_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
