/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_api.c — NDK headers as documented (sizes, member order, values),
 * the one status table, NdkQueryAdapterInfo, PDs, MRs registered from MDL
 * chains with every documented error, asynchronous completion through the
 * callbacks, windows, and the OFW-style registration calls.
 */
#include <endian.h>
#include <stddef.h>

#include "ndk_test.h"

START_TEST(layouts_as_documented)
{
	/* NDK_OBJECT_HEADER: NDK_VERSION, NDK_OBJECT_TYPE, 4 reserved pointers */
	ck_assert_uint_eq(sizeof(NDK_VERSION), 4);
	ck_assert_uint_eq(offsetof(NDK_OBJECT_HEADER, ObjectType), 4);
	ck_assert_uint_eq(offsetof(NDK_OBJECT_HEADER, NdkReserved), 8);
	ck_assert_uint_eq(sizeof(NDK_OBJECT_HEADER), 8 + 4 * sizeof(void *));
	ck_assert_uint_eq(offsetof(NDK_QP, Dispatch), sizeof(NDK_OBJECT_HEADER));
	/* NDK_RESULT / NDK_RESULT_EX */
	ck_assert_uint_eq(offsetof(NDK_RESULT, BytesTransferred), 4);
	ck_assert_uint_eq(offsetof(NDK_RESULT, QPContext), 8);
	ck_assert_uint_eq(offsetof(NDK_RESULT, RequestContext), 16);
	ck_assert_uint_eq(offsetof(NDK_RESULT_EX, Type), 24);
	ck_assert_uint_eq(offsetof(NDK_RESULT_EX, TypeSpecificCompletionOutput), 32);
	/* NDK_SGE: union of VirtualAddress / LogicalAddress, Length, token */
	ck_assert_uint_eq(sizeof(NDK_SGE), 16);
	ck_assert_uint_eq(offsetof(NDK_SGE, Length), 8);
	ck_assert_uint_eq(offsetof(NDK_SGE, MemoryRegionToken), 12);
	/* NDK_ADAPTER_INFO members in documented order */
	ck_assert_uint_eq(offsetof(NDK_ADAPTER_INFO, VendorId), 4);
	ck_assert_uint_eq(offsetof(NDK_ADAPTER_INFO, MaxRegistrationSize), 16);
	ck_assert_uint_eq(offsetof(NDK_ADAPTER_INFO, FRMRPageCount), 32);
	ck_assert_uint_eq(offsetof(NDK_ADAPTER_INFO, AdapterFlags), 92);
	ck_assert_uint_eq(offsetof(NDK_ADAPTER_INFO, RdmaTechnology), 96);
	/* dispatch tables: documented member order */
	ck_assert_uint_eq(offsetof(NDK_QP_DISPATCH, NdkFastRegister), 6 * sizeof(void *));
	ck_assert_uint_eq(offsetof(NDK_QP_DISPATCH, NdkSendAndInvalidate), 10 * sizeof(void *));
	ck_assert_uint_eq(offsetof(NDK_MR_DISPATCH, NdkGetLocalTokenFromMr), 6 * sizeof(void *));
	ck_assert_uint_eq(offsetof(NDK_PD_DISPATCH, NdkGetPrivilegedMemoryRegionToken),
			  7 * sizeof(void *));
	ck_assert_uint_eq(offsetof(NDK_CQ_DISPATCH, NdkGetCqResultsEx), 6 * sizeof(void *));
	ck_assert_uint_eq(offsetof(NDK_ADAPTER_DISPATCH, NdkReleaseLAM), 8 * sizeof(void *));
	/* flag values */
	ck_assert_uint_eq(NDK_OP_FLAG_ALLOW_REMOTE_WRITE, 0x30);
	ck_assert_uint_eq(NDK_OP_FLAG_DEFER, 0x200);
	ck_assert_uint_eq(NDK_MR_FLAG_ALLOW_REMOTE_WRITE, 0x5);
	ck_assert_uint_eq(NdkOperationTypeReceiveAndInvalidate, 32769);
}
END_TEST

START_TEST(status_table)
{
	static const struct { int err; NTSTATUS nt; HRESULT nd; } rows[] = {
		{ 0, STATUS_SUCCESS, ND_SUCCESS },
		{ EINVAL, STATUS_INVALID_PARAMETER, ND_INVALID_PARAMETER },
		{ E2BIG, STATUS_IMPLEMENTATION_LIMIT, ND_INVALID_PARAMETER },
		{ EACCES, STATUS_ACCESS_VIOLATION, ND_ACCESS_VIOLATION },
		{ EFAULT, STATUS_ACCESS_VIOLATION, ND_ACCESS_VIOLATION },
		{ EBUSY, STATUS_DEVICE_BUSY, ND_DEVICE_BUSY },
		{ ENOMEM, STATUS_INSUFFICIENT_RESOURCES, ND_INSUFFICIENT_RESOURCES },
		{ EPERM, STATUS_INVALID_DEVICE_STATE, ND_INVALID_DEVICE_STATE },
		{ ENOTCONN, STATUS_CONNECTION_INVALID, ND_CONNECTION_INVALID },
		{ ENODEV, STATUS_DEVICE_REMOVED, ND_DEVICE_REMOVED },
		{ ENETUNREACH, STATUS_NETWORK_UNREACHABLE, ND_NETWORK_UNREACHABLE },
		{ EINPROGRESS, STATUS_PENDING, ND_PENDING },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_int_eq(sr_ntstatus_from_errno(rows[i].err), rows[i].nt);
		ck_assert_int_eq(sr_ntstatus_from_errno(-rows[i].err), rows[i].nt);
		ck_assert_int_eq(sr_hresult_from_errno(rows[i].err), rows[i].nd);
	}
	ck_assert_int_eq(sr_ntstatus_from_errno(EXDEV), STATUS_UNSUCCESSFUL);
	/* the codes NDKPI's pages name, with ntstatus.h's values */
	ck_assert_int_eq(STATUS_REMOTE_RESOURCES, (NTSTATUS)0xC000013D);
	ck_assert_int_eq(STATUS_FILE_FORCED_CLOSED, (NTSTATUS)0xC00000B6);
	ck_assert_int_eq(STATUS_NETWORK_UNREACHABLE, (NTSTATUS)0xC000023C);
	ck_assert_int_eq(STATUS_TOO_MANY_ADDRESSES, (NTSTATUS)0xC0000209);
	ck_assert_int_eq(STATUS_TOO_MANY_ADDRESSES, ND_TOO_MANY_ADDRESSES);
	ck_assert_str_eq(sr_ntstatus_str(STATUS_NETWORK_UNREACHABLE), "STATUS_NETWORK_UNREACHABLE");
	ck_assert_int_eq(STATUS_IMPLEMENTATION_LIMIT, (NTSTATUS)0xC000042B);
	ck_assert_int_eq(STATUS_CONNECTION_INVALID, (NTSTATUS)0xC000023A);
	ck_assert_str_eq(sr_ntstatus_str(STATUS_PENDING), "STATUS_PENDING");
	for (int s = 0; s < SR_WC_STATUS_MAX; s++)
		ck_assert_int_eq(sr_ntstatus_from_wc((enum sr_wc_status)s) == STATUS_SUCCESS,
				 s == SR_WC_SUCCESS);
	ck_assert_int_eq(sr_ntstatus_from_wc(SR_WC_WR_FLUSH_ERR), STATUS_CANCELLED);
}
END_TEST

START_TEST(adapter_info)
{
	struct nt_env e;
	NDK_ADAPTER_INFO info;
	ULONG len = 4;
	const struct sr_dev_limits *l;

	nt_open(&e);
	l = sr_mr_dev_limits(e.mrd);
	ck_assert_int_eq(e.ad->Header.ObjectType, NdkObjectTypeAdapter);
	ck_assert_int_eq(e.pd->Header.ObjectType, NdkObjectTypePd);
	ck_assert_uint_eq(e.pd->Header.Version.Major, 1);
	ck_assert_uint_eq(e.pd->Header.Version.Minor, 2);
	ck_assert_int_eq(e.ad->Dispatch->NdkQueryAdapterInfo(e.ad, &info, &len),
			 STATUS_BUFFER_TOO_SMALL);
	ck_assert_uint_eq(len, sizeof(info));
	ck_assert_int_eq(e.ad->Dispatch->NdkQueryAdapterInfo(e.ad, &info, &len), STATUS_SUCCESS);
	ck_assert_uint_eq(info.Version.Major, l->version >> 16);
	ck_assert_uint_eq(info.Version.Minor, l->version & 0xffff);
	ck_assert_uint_eq(info.VendorId, l->vendor_id);
	ck_assert_uint_eq(info.DeviceId, l->device_id);
	ck_assert_uint_eq(info.MaxRegistrationSize, l->max_registration_size);
	ck_assert_uint_eq(info.MaxWindowSize, l->max_window_size);
	ck_assert_uint_eq(info.FRMRPageCount, l->frmr_page_count);
	ck_assert_uint_eq(info.MaxCqDepth, l->max_cq_depth);
	ck_assert_uint_eq(info.LargeRequestThreshold, l->large_request_threshold);
	ck_assert_uint_eq(info.MaxCallerData, l->max_caller_data);
	ck_assert_uint_eq(info.MaxCalleeData, l->max_callee_data);
	ck_assert_int_eq(info.RdmaTechnology, NdkRoCEv2);
	ck_assert(info.AdapterFlags & NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED);
	/* CQs resize: advertised and done; 0 or above MaxCqDepth is invalid */
	ck_assert(info.AdapterFlags & NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED);
	ck_assert_int_eq(e.cq->Dispatch->NdkResizeCq(e.cq, 512, NULL, NULL), STATUS_SUCCESS);
	ck_assert_int_eq(e.cq->Dispatch->NdkResizeCq(e.cq, 0, NULL, NULL),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(e.cq->Dispatch->NdkResizeCq(e.cq, info.MaxCqDepth + 1, NULL, NULL),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(e.cq->Dispatch->NdkResizeCq(e.cq, 64, NULL, NULL), STATUS_SUCCESS);
	ck_assert_int_eq(e.cq->Dispatch->NdkControlCqInterruptModeration(e.cq, 10, 10),
			 STATUS_NOT_SUPPORTED);
	{
		UINT32 tok = 0;

		e.pd->Dispatch->NdkGetPrivilegedMemoryRegionToken(e.pd, &tok);
		ck_assert_uint_eq(tok, sr_mr_dev_privileged_lkey(e.mrd));
	}
	ck_assert_int_eq(sr_ndk_close_adapter(e.ad), STATUS_DEVICE_BUSY);
	nt_close(&e);
}
END_TEST

static char *nt_buf(size_t len)
{
	char *b = aligned_alloc(PAGE_SIZE, (len + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1));

	ck_assert_ptr_nonnull(b);
	memset(b, 0, len);
	return b;
}

START_TEST(register_mdl_chain)
{
	struct nt_env e;
	NDK_MR *mr;
	char *buf = nt_buf(8 * PAGE_SIZE);
	PMDL chain = sr_mdl_chain_build(buf + 100, 5 * PAGE_SIZE, 2 * PAGE_SIZE);
	UINT32 rtok;

	nt_open(&e);
	ck_assert_ptr_nonnull(chain);
	ck_assert_ptr_nonnull(chain->Next);
	ck_assert_int_eq(e.pd->Dispatch->NdkCreateMr(e.pd, FALSE, NULL, NULL, &mr),
			 STATUS_SUCCESS);
	ck_assert_int_eq(mr->Header.ObjectType, NdkObjectTypeMr);
	/* fast-register only on a fast-register MR */
	ck_assert_int_eq(mr->Dispatch->NdkInitializeFastRegisterMr(mr, 16, TRUE, NULL, NULL),
			 STATUS_INVALID_DEVICE_STATE);
	/* unknown flags, zero length, longer than the chain */
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, chain, 100, 0x100, NULL, NULL),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, chain, 0, 0, NULL, NULL),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, chain, 6 * PAGE_SIZE, 0, NULL, NULL),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, chain, 5 * PAGE_SIZE,
						     NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
						     NDK_MR_FLAG_ALLOW_REMOTE_READ, NULL, NULL),
			 STATUS_SUCCESS);
	/* one registration per MR object */
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, chain, PAGE_SIZE, 0, NULL, NULL),
			 STATUS_DEVICE_BUSY);
	rtok = mr->Dispatch->NdkGetRemoteTokenFromMr(mr);
	ck_assert_uint_ne(rtok, 0);
	ck_assert_uint_eq(be32toh(rtok), mr->Dispatch->NdkGetLocalTokenFromMr(mr));
	ck_assert_int_eq(mr->Dispatch->NdkDeregisterMr(mr, NULL, NULL), STATUS_SUCCESS);
	/* local only: no remote token */
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, chain, PAGE_SIZE,
						     NDK_MR_FLAG_ALLOW_LOCAL_WRITE, NULL, NULL),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(mr->Dispatch->NdkGetRemoteTokenFromMr(mr), 0);
	nt_close_obj(&mr->Header);
	sr_mdl_chain_free(chain);
	/* a chain with a hole is not virtually contiguous */
	chain = sr_mdl_chain_build(buf, 2 * PAGE_SIZE, PAGE_SIZE);
	chain->Next->StartVa = (char *)chain->Next->StartVa + PAGE_SIZE;
	ck_assert_int_eq(e.pd->Dispatch->NdkCreateMr(e.pd, FALSE, NULL, NULL, &mr),
			 STATUS_SUCCESS);
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, chain, 2 * PAGE_SIZE, 0, NULL, NULL),
			 STATUS_INVALID_PARAMETER);
	nt_close_obj(&mr->Header);
	sr_mdl_chain_free(chain);
	free(buf);
	nt_close(&e);
}
END_TEST

START_TEST(register_limits_and_bad_buffer)
{
	struct sr_dev_limits l = sr_dev_limits_default();
	struct nt_env e;
	NDK_MR *mr;
	char *buf = nt_buf(4 * PAGE_SIZE);
	PMDL m;

	l.max_registration_size = 2 * PAGE_SIZE;
	l.max_mr = 1;
	nt_open_limits(&e, &l);
	ck_assert_int_eq(e.pd->Dispatch->NdkCreateMr(e.pd, FALSE, NULL, NULL, &mr),
			 STATUS_SUCCESS);
	{
		NDK_MR *second;

		ck_assert_int_eq(e.pd->Dispatch->NdkCreateMr(e.pd, FALSE, NULL, NULL, &second),
				 STATUS_INSUFFICIENT_RESOURCES);
	}
	m = sr_mdl_chain_build(buf, 3 * PAGE_SIZE, 0);
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, m, 3 * PAGE_SIZE, 0, NULL, NULL),
			 STATUS_INVALID_PARAMETER);
	sr_mdl_chain_free(m);
	/* a NULL page: bad buffer */
	m = IoAllocateMdl((PVOID)(uintptr_t)PAGE_SIZE, PAGE_SIZE, FALSE, FALSE, NULL);
	ck_assert_ptr_nonnull(m);
	MmGetMdlPfnArray(m)[0] = 0;
	ck_assert_int_eq(mr->Dispatch->NdkRegisterMr(mr, m, PAGE_SIZE, 0, NULL, NULL),
			 STATUS_ACCESS_VIOLATION);
	IoFreeMdl(m);
	ck_assert_ptr_null(IoAllocateMdl(buf, 0, FALSE, FALSE, NULL));
	nt_close_obj(&mr->Header);
	free(buf);
	nt_close(&e);
}
END_TEST

START_TEST(async_completion)
{
	struct nt_env e;
	struct nt_wait w = { 0 };
	NDK_MR *mr = NULL;
	NDK_PD *pd = NULL;
	char *buf = nt_buf(4 * PAGE_SIZE);
	PMDL m = sr_mdl_chain_build(buf, 4 * PAGE_SIZE, 0);
	NTSTATUS st;

	nt_open(&e);
	/* registrations at or over the threshold pend */
	sr_ndk_set_async(e.ad, 2 * PAGE_SIZE, FALSE);
	ck_assert_int_eq(e.pd->Dispatch->NdkCreateMr(e.pd, FALSE, nt_create_cb, &w, &mr),
			 STATUS_SUCCESS);
	st = mr->Dispatch->NdkRegisterMr(mr, m, PAGE_SIZE, 0, nt_req_cb, &w);
	ck_assert_int_eq(st, STATUS_SUCCESS);
	ck_assert_int_eq(mr->Dispatch->NdkDeregisterMr(mr, nt_req_cb, &w), STATUS_SUCCESS);
	st = mr->Dispatch->NdkRegisterMr(mr, m, 4 * PAGE_SIZE, NDK_MR_FLAG_ALLOW_REMOTE_READ,
					 nt_req_cb, &w);
	ck_assert_int_eq(st, STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_SUCCESS);
	ck_assert_uint_ne(mr->Dispatch->NdkGetRemoteTokenFromMr(mr), 0);
	/* a failing registration completes its error through the callback */
	memset(&w, 0, sizeof(w));
	st = mr->Dispatch->NdkRegisterMr(mr, m, 4 * PAGE_SIZE, 0, nt_req_cb, &w);
	ck_assert_int_eq(st, STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_DEVICE_BUSY);
	nt_close_obj(&mr->Header);
	/* everything pends: creation completes with the object */
	sr_ndk_set_async(e.ad, 0, TRUE);
	memset(&w, 0, sizeof(w));
	ck_assert_int_eq(e.ad->Dispatch->NdkCreatePd(e.ad, nt_create_cb, &w, &pd), STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_SUCCESS);
	ck_assert_ptr_nonnull(w.obj);
	ck_assert_int_eq(w.obj->ObjectType, NdkObjectTypePd);
	pd = (NDK_PD *)w.obj;
	memset(&w, 0, sizeof(w));
	ck_assert_int_eq(pd->Dispatch->NdkCreateMr(pd, TRUE, nt_create_cb, &w, &mr),
			 STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_SUCCESS);
	mr = (NDK_MR *)w.obj;
	memset(&w, 0, sizeof(w));
	/*
	 * FRMRPageCount (256) is the size with the most FRMRs, not a limit:
	 * 100000 pages initialise; more than SR_FRMR_MAX_PAGES do not.
	 */
	ck_assert_int_eq(mr->Dispatch->NdkInitializeFastRegisterMr(mr, 100000, TRUE,
								   nt_req_cb, &w),
			 STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_SUCCESS);
	memset(&w, 0, sizeof(w));
	ck_assert_int_eq(mr->Dispatch->NdkInitializeFastRegisterMr(mr, SR_FRMR_MAX_PAGES + 1,
								   TRUE, nt_req_cb, &w),
			 STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_IMPLEMENTATION_LIMIT);
	memset(&w, 0, sizeof(w));
	ck_assert_int_eq(mr->Dispatch->NdkCloseMr(&mr->Header, nt_close_cb, &w), STATUS_PENDING);
	nt_wait(&w);
	memset(&w, 0, sizeof(w));
	ck_assert_int_eq(pd->Dispatch->NdkClosePd(&pd->Header, nt_close_cb, &w), STATUS_PENDING);
	nt_wait(&w);
	sr_ndk_set_async(e.ad, (SIZE_T)1 << 30, FALSE);
	sr_mdl_chain_free(m);
	free(buf);
	nt_close(&e);
}
END_TEST

START_TEST(build_lam)
{
	struct nt_env e;
	char *buf = nt_buf(4 * PAGE_SIZE);
	PMDL m = sr_mdl_chain_build(buf + 10, 3 * PAGE_SIZE, PAGE_SIZE);
	union {
		NDK_LOGICAL_ADDRESS_MAPPING lam;
		char room[256];
	} u;
	ULONG size = 8, fbo = 0;

	nt_open(&e);
	ck_assert_int_eq(e.ad->Dispatch->NdkBuildLAM(e.ad, m, 3 * PAGE_SIZE, NULL, NULL, &u.lam,
						     &size, &fbo),
			 STATUS_BUFFER_TOO_SMALL);
	size = sizeof(u);
	ck_assert_int_eq(e.ad->Dispatch->NdkBuildLAM(e.ad, m, 3 * PAGE_SIZE, NULL, NULL, &u.lam,
						     &size, &fbo),
			 STATUS_SUCCESS);
	ck_assert_uint_eq(fbo, 10);
	ck_assert_uint_eq(u.lam.AdapterPageCount, 4);
	for (ULONG i = 0; i < 4; i++)   /* logical addresses are the pages' VAs */
		ck_assert_uint_eq(u.lam.AdapterPageArray[i].QuadPart,
				  (uintptr_t)buf + i * PAGE_SIZE);
	e.ad->Dispatch->NdkReleaseLAM(e.ad, &u.lam);
	sr_mdl_chain_free(m);
	free(buf);
	nt_close(&e);
}
END_TEST

static void nt_ofw_cb(PVOID ctx, NTSTATUS st, IB_MR *mr)
{
	struct nt_wait *w = ctx;

	(void)mr;
	w->st = st;
	atomic_store(&w->done, 1);
}

START_TEST(ofw_registration)
{
	struct nt_env e;
	char *buf = nt_buf(8 * PAGE_SIZE);
	PMDL m = sr_mdl_chain_build(buf + 64, 3 * PAGE_SIZE, PAGE_SIZE);
	union {
		SCATTER_GATHER_LIST l;
		char room[sizeof(SCATTER_GATHER_LIST) + 3 * sizeof(SCATTER_GATHER_ELEMENT)];
	} sg;
	struct nt_wait w = { 0 };
	IB_COMPLETION cw = { .Routine = nt_ofw_cb, .Context = &w };
	IB_MR mr, dma;

	nt_open(&e);
	ck_assert_int_eq(IbRegVirtMr(e.pd, m, 3 * PAGE_SIZE, IB_AC_LOCAL_WRITE | IB_AC_RDMA_READ,
				     NULL, &mr), STATUS_SUCCESS);
	ck_assert_uint_eq(mr.LocalStart, (uintptr_t)buf + 64);
	ck_assert_uint_eq(mr.LocalEnd, (uintptr_t)buf + 64 + 3 * PAGE_SIZE - 1);
	ck_assert_uint_eq(mr.RemoteStart, mr.LocalStart);
	ck_assert_uint_eq(be32toh(mr.rKey), mr.lKey);
	ck_assert_int_eq(IbDeregMr(&mr), STATUS_SUCCESS);
	/* bad access bit: returned, and the completion object completed with it */
	ck_assert_int_eq(IbRegVirtMr(e.pd, m, PAGE_SIZE, 0x100, &cw, &mr),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(nt_wait(&w), STATUS_INVALID_PARAMETER);
	memset(&w, 0, sizeof(w));
	ck_assert_int_eq(IbRegVirtMr(e.pd, NULL, PAGE_SIZE, 0, &cw, &mr),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(nt_wait(&w), STATUS_INVALID_PARAMETER);
	memset(&w, 0, sizeof(w));
	/* scatter/gather: first mid-page, middle whole pages, last ends anywhere */
	sg.l.NumberOfElements = 3;
	sg.l.Elements[0].Address.QuadPart = (LONGLONG)(uintptr_t)buf + 100;
	sg.l.Elements[0].Length = PAGE_SIZE - 100;
	sg.l.Elements[1].Address.QuadPart = (LONGLONG)(uintptr_t)buf + 4 * PAGE_SIZE;
	sg.l.Elements[1].Length = PAGE_SIZE;
	sg.l.Elements[2].Address.QuadPart = (LONGLONG)(uintptr_t)buf + 2 * PAGE_SIZE;
	sg.l.Elements[2].Length = 10;
	ck_assert_int_eq(IbRegScatterGatherMr(e.pd, &sg.l, IB_AC_RDMA_WRITE | IB_AC_LOCAL_WRITE,
					      NULL, &mr), STATUS_SUCCESS);
	ck_assert_uint_eq(mr.LocalEnd - mr.LocalStart + 1, 2 * PAGE_SIZE - 100 + 10);
	ck_assert_int_eq(IbDeregMr(&mr), STATUS_SUCCESS);
	/* a middle element that does not end on a page boundary */
	sg.l.Elements[1].Length = 100;
	ck_assert_int_eq(IbRegScatterGatherMr(e.pd, &sg.l, 0, &cw, &mr),
			 STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(nt_wait(&w), STATUS_INVALID_PARAMETER);
	memset(&w, 0, sizeof(w));
	/* asynchronously */
	sr_ndk_set_async(e.ad, PAGE_SIZE, FALSE);
	ck_assert_int_eq(IbRegVirtMr(e.pd, m, 2 * PAGE_SIZE, IB_AC_LOCAL_WRITE, &cw, &mr),
			 STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_SUCCESS);
	ck_assert_uint_eq(mr.rKey, 0);
	ck_assert_uint_eq(mr.RemoteEnd, 0);
	ck_assert_int_eq(IbDeregMr(&mr), STATUS_SUCCESS);
	/* DMA MR: local write only; it pends like the others */
	ck_assert_int_eq(IbGetDmaMr(e.pd, IB_AC_RDMA_READ, NULL, &dma), STATUS_INVALID_PARAMETER);
	ck_assert_int_eq(IbGetDmaMr(e.pd, IB_AC_LOCAL_WRITE, NULL, &dma), STATUS_SUCCESS);
	ck_assert_uint_eq(dma.LocalEnd, UINT64_MAX);
	ck_assert_int_eq(IbDeregMr(&dma), STATUS_SUCCESS);
	memset(&w, 0, sizeof(w));
	sr_ndk_set_async(e.ad, 0, TRUE);
	ck_assert_int_eq(IbGetDmaMr(e.pd, IB_AC_LOCAL_WRITE, &cw, &dma), STATUS_PENDING);
	ck_assert_int_eq(nt_wait(&w), STATUS_SUCCESS);
	ck_assert_uint_eq(dma.LocalEnd, UINT64_MAX);
	ck_assert_uint_eq(dma.rKey, 0);
	ck_assert_int_eq(IbDeregMr(&dma), STATUS_SUCCESS);
	sr_mdl_chain_free(m);
	free(buf);
	nt_close(&e);
}
END_TEST

static Suite *ndk_api_suite(void)
{
	Suite *s = suite_create("ndk_api");
	TCase *t = tcase_create("api");

	tcase_set_timeout(t, 30);
	tcase_add_test(t, layouts_as_documented);
	tcase_add_test(t, status_table);
	tcase_add_test(t, adapter_info);
	tcase_add_test(t, register_mdl_chain);
	tcase_add_test(t, register_limits_and_bad_buffer);
	tcase_add_test(t, async_completion);
	tcase_add_test(t, build_lam);
	tcase_add_test(t, ofw_registration);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(ndk_api_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
