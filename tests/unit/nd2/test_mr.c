/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_mr.c — the ND2 headers as documented, IND2Adapter (Query,
 * QueryAddressList, IUnknown, overlapped files, ndsupport.h's entry
 * points) and every documented rule and status of IND2MemoryRegion:
 * ND_SUCCESS, ND_PENDING through GetOverlappedResult with and without
 * waiting, ND_ACCESS_VIOLATION (NULL or wrapping buffer),
 * ND_INVALID_PARAMETER (over MaxRegistrationSize, unknown flags),
 * ND_INSUFFICIENT_RESOURCES, ND_DEVICE_REMOVED, ND_DEVICE_BUSY (a second
 * buffer), one buffer per object and one buffer in many objects, the
 * remote token in network order.
 */
#include <endian.h>
#include <poll.h>
#include <stddef.h>

#include "nd2_test.h"

#define ALL_MR_FLAGS (ND_MR_FLAG_ALLOW_LOCAL_WRITE | ND_MR_FLAG_ALLOW_REMOTE_READ | \
		      ND_MR_FLAG_ALLOW_REMOTE_WRITE | ND_MR_FLAG_RDMA_READ_SINK)

static struct sr_mr *engine_mr(IND2MemoryRegion *mr)
{
	return ((struct sr_ndk_mr *)((struct sr_nd2_mr *)mr)->ndk)->mr;
}

START_TEST(layouts_as_documented)
{
	/* vtables: IUnknown first, then IND2Overlapped, then the documented order */
	ck_assert_uint_eq(offsetof(IND2MemoryRegionVtbl, QueryInterface), 0);
	ck_assert_uint_eq(offsetof(IND2MemoryRegionVtbl, Release), 2 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2MemoryRegionVtbl, CancelOverlappedRequests),
			  3 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2MemoryRegionVtbl, GetOverlappedResult),
			  4 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2MemoryRegionVtbl, Register), 5 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2MemoryRegionVtbl, GetRemoteToken), 8 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2MemoryWindowVtbl, GetRemoteToken), 3 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2CompletionQueueVtbl, GetNotifyAffinity),
			  5 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2CompletionQueueVtbl, GetResults), 8 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2QueuePairVtbl, Flush), 3 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2QueuePairVtbl, Write), 9 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2ConnectorVtbl, Bind), 5 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2ConnectorVtbl, Disconnect), 15 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2ListenerVtbl, GetConnectionRequest), 8 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2AdapterVtbl, CreateOverlappedFile), 3 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2AdapterVtbl, CreateListener), 13 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2ProviderVtbl, OpenAdapter), 5 * sizeof(void *));
	ck_assert_uint_eq(offsetof(IND2SharedReceiveQueueVtbl, Receive), 8 * sizeof(void *));
	/* structures */
	ck_assert_uint_eq(sizeof(ND2_SGE), 16);
	ck_assert_uint_eq(offsetof(ND2_SGE, BufferLength), 8);
	ck_assert_uint_eq(offsetof(ND2_RESULT, RequestType), 24);
	ck_assert_uint_eq(offsetof(ND2_ADAPTER_INFO, AdapterFlags), 92);
	/* flag and status values */
	ck_assert_uint_eq(ND_MR_FLAG_ALLOW_LOCAL_WRITE, 0x1);
	ck_assert_uint_eq(ND_MR_FLAG_ALLOW_REMOTE_READ, 0x2);
	ck_assert_uint_eq(ND_MR_FLAG_ALLOW_REMOTE_WRITE, 0x5);
	ck_assert_uint_eq(ND_MR_FLAG_RDMA_READ_SINK, 0x8);
	ck_assert_uint_eq(ND_MR_FLAG_DO_NOT_SECURE_VM, 0x80000000u);
	ck_assert_uint_eq(ND_OP_FLAG_ALLOW_WRITE, 0x10);
	ck_assert_uint_eq(ND_OP_FLAG_INLINE, 0x20);
	ck_assert_int_eq(Nd2RequestTypeWrite, 5);
	ck_assert_uint_eq((ULONG)ND_PENDING, 0x103);
	ck_assert_uint_eq((ULONG)ND_DEVICE_BUSY, 0x80000011u);
	ck_assert_uint_eq((ULONG)ND_ACCESS_VIOLATION, 0xC0000005u);
	ck_assert_uint_eq((ULONG)ND_INSUFFICIENT_RESOURCES, 0xC000009Au);
	ck_assert_uint_eq((ULONG)ND_DEVICE_REMOVED, 0xC00002B6u);
	ck_assert_uint_eq((ULONG)ND_INVALID_BUFFER_SIZE, 0xC0000206u);
	ck_assert_uint_eq(IID_IND2MemoryRegion.Data1, 0x55dfea2f);
	ck_assert_uint_eq(IID_IND2Adapter.Data4[7], 0xf3);
}
END_TEST

START_TEST(status_table_nd_column)
{
	static const struct { int err; HRESULT nd; } rows[] = {
		{ 0, ND_SUCCESS },
		{ EINPROGRESS, ND_PENDING },
		{ ENOMEM, ND_INSUFFICIENT_RESOURCES },
		{ EFAULT, ND_ACCESS_VIOLATION },
		{ EINVAL, ND_INVALID_PARAMETER },
		{ ENODEV, ND_DEVICE_REMOVED },
		{ EBUSY, ND_DEVICE_BUSY },
		{ EMSGSIZE, ND_INVALID_BUFFER_SIZE },
		{ ECANCELED, ND_CANCELED },
		{ ENOTCONN, ND_CONNECTION_INVALID },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ck_assert_int_eq(sr_hresult_from_errno(rows[i].err), rows[i].nd);
		ck_assert_int_eq(sr_hresult_from_errno(-rows[i].err), rows[i].nd);
		/* ND2 over NDK: the same row through the NTSTATUS column */
		ck_assert_int_eq(sr_hresult_from_ntstatus(sr_ntstatus_from_errno(rows[i].err)),
				 rows[i].nd);
	}
}
END_TEST

START_TEST(adapter_query_and_iunknown)
{
	struct n2_env e;
	ND2_ADAPTER_INFO info = { .InfoVersion = 1 };
	ULONG len = 0;
	IUnknown *u = NULL;
	IND2MemoryRegion *mr = NULL;
	char buf[512];
	SOCKET_ADDRESS_LIST *list = (SOCKET_ADDRESS_LIST *)buf;

	n2_open(&e);
	ck_assert_int_eq(e.ad->lpVtbl->Query(e.ad, NULL, &len), ND_BUFFER_OVERFLOW);
	ck_assert_uint_eq(len, sizeof(ND2_ADAPTER_INFO));
	ck_assert_int_eq(e.ad->lpVtbl->Query(e.ad, &info, &len), ND_SUCCESS);
	ck_assert_uint_eq(info.InfoVersion, 1);
	ck_assert_uint_eq(info.MaxRegistrationSize, (UINT64)1 << 40);
	ck_assert_uint_gt(info.MaxSharedReceiveQueueDepth, 0);
	ck_assert_uint_eq(info.AdapterId, 0x0a000001);
	ck_assert(info.MaxReadSge <= info.MaxInitiatorSge);
	ck_assert(info.MaxCompletionQueueDepth > 0);
	ck_assert_uint_ne(info.AdapterFlags & ND_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED, 0);
	/* the address list: 10.0.0.1 */
	len = 0;
	ck_assert_int_eq(e.ad->lpVtbl->QueryAddressList(e.ad, NULL, &len), ND_BUFFER_OVERFLOW);
	ck_assert(len > 0 && len <= sizeof(buf));
	ck_assert_int_eq(e.ad->lpVtbl->QueryAddressList(e.ad, list, &len), ND_SUCCESS);
	ck_assert_int_eq(list->iAddressCount, 1);
	ck_assert_int_eq(list->Address[0].lpSockaddr->sa_family, AF_INET);
	ck_assert_uint_eq(((struct sockaddr_in *)list->Address[0].lpSockaddr)->sin_addr.s_addr,
			  htonl(0x0a000001));
	/* IUnknown: QueryInterface adds a reference, unknown IIDs fail */
	ck_assert_int_eq(e.ad->lpVtbl->QueryInterface(e.ad, &IID_IUnknown, (VOID **)&u),
			 ND_SUCCESS);
	ck_assert_ptr_eq(u, e.ad);
	ck_assert_uint_eq(u->lpVtbl->Release(u), 2);   /* us and the CQ */
	ck_assert_int_eq(e.ad->lpVtbl->QueryInterface(e.ad, &IID_IND2QueuePair, (VOID **)&u),
			 E_NOINTERFACE);
	ck_assert_int_eq(e.ad->lpVtbl->CreateMemoryRegion(e.ad, &IID_IND2QueuePair, NULL,
							  (VOID **)&mr), E_NOINTERFACE);
	mr = n2_mr(&e);
	ck_assert_int_eq(mr->lpVtbl->QueryInterface(mr, &IID_IND2Overlapped, (VOID **)&u),
			 ND_SUCCESS);
	ck_assert_uint_eq(mr->lpVtbl->AddRef(mr), 3);
	ck_assert_uint_eq(mr->lpVtbl->Release(mr), 2);
	ck_assert_uint_eq(u->lpVtbl->Release(u), 1);
	/* every object holds a reference on its adapter */
	ck_assert_uint_eq(e.ad->lpVtbl->AddRef(e.ad), 4);   /* us, the CQ, the MR, this */
	ck_assert_uint_eq(e.ad->lpVtbl->Release(e.ad), 3);
	ck_assert_uint_eq(mr->lpVtbl->Release(mr), 0);
	/* shared receive queues are provided (test_qp: shared_receive_queue) */
	ck_assert_int_eq(e.ad->lpVtbl->CreateSharedReceiveQueue(e.ad, &IID_IND2SharedReceiveQueue,
								NULL, 16, 1, 0, 0, 0,
								(VOID **)&u), ND_SUCCESS);
	ck_assert_uint_eq(u->lpVtbl->Release(u), 0);
	/* a handle that is no overlapped file of the adapter */
	ck_assert_int_eq(e.ad->lpVtbl->CreateMemoryRegion(e.ad, &IID_IND2MemoryRegion,
							  (HANDLE)buf, (VOID **)&mr),
			 ND_INVALID_HANDLE);
	n2_close(&e);
}
END_TEST

START_TEST(register_and_deregister)
{
	struct n2_env e;
	IND2MemoryRegion *mr;
	OVERLAPPED ov = { 0 };
	char *buf = aligned_alloc(4096, 4 * 4096);
	UINT32 lkey, rtoken;

	n2_open(&e);
	mr = n2_mr(&e);
	ck_assert_uint_eq(mr->lpVtbl->GetLocalToken(mr), 0);   /* nothing registered yet */
	ck_assert_int_eq(mr->lpVtbl->Register(mr, buf + 100, 3 * 4096, ALL_MR_FLAGS, &ov),
			 ND_SUCCESS);
	/* a request that completed at once reports its result too */
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, FALSE), ND_SUCCESS);
	ck_assert(sr_mr_is_valid(engine_mr(mr)));
	ck_assert_uint_eq(sr_mr_iova(engine_mr(mr)), (uintptr_t)buf + 100);
	ck_assert_uint_eq(sr_mr_length(engine_mr(mr)), 3 * 4096);
	lkey = mr->lpVtbl->GetLocalToken(mr);
	rtoken = mr->lpVtbl->GetRemoteToken(mr);
	/* local token host order, remote token network order */
	ck_assert_uint_eq(lkey, sr_mr_lkey(engine_mr(mr)));
	ck_assert_uint_eq(rtoken, htobe32(sr_mr_rkey(engine_mr(mr))));
	ck_assert_uint_ne(sr_mr_rkey(engine_mr(mr)), 0);
	ck_assert_int_eq(mr->lpVtbl->Deregister(mr, &ov), ND_SUCCESS);
	ck_assert(!sr_mr_is_valid(engine_mr(mr)));
	/* the object is registered again, with other rights: a new key byte */
	ck_assert_int_eq(n2_register(mr, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	ck_assert_uint_ne(mr->lpVtbl->GetLocalToken(mr), lkey);
	ck_assert_uint_eq(mr->lpVtbl->GetRemoteToken(mr), 0);   /* no remote access */
	ck_assert_uint_eq(sr_mr_access(engine_mr(mr)) & SR_ACCESS_REMOTE, 0);
	/* Release drops a registration left behind */
	ck_assert_uint_eq(mr->lpVtbl->Release(mr), 0);
	n2_close(&e);
	free(buf);
}
END_TEST

START_TEST(one_buffer_per_region_many_regions_per_buffer)
{
	struct n2_env e;
	IND2MemoryRegion *mr[4];
	char *buf = malloc(8192), *other = malloc(8192);

	n2_open(&e);
	for (int i = 0; i < 4; i++) {
		mr[i] = n2_mr(&e);
		/* the same buffer, with different rights each time */
		ck_assert_int_eq(n2_register(mr[i], buf, 8192, i % 2 ? ND_MR_FLAG_ALLOW_REMOTE_READ
								  : ND_MR_FLAG_ALLOW_REMOTE_WRITE),
				 ND_SUCCESS);
	}
	for (int i = 1; i < 4; i++)
		ck_assert_uint_ne(mr[i]->lpVtbl->GetLocalToken(mr[i]),
				  mr[0]->lpVtbl->GetLocalToken(mr[0]));
	/* a second buffer into a region that holds one: ND_DEVICE_BUSY */
	ck_assert_int_eq(n2_register(mr[0], other, 8192, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_DEVICE_BUSY);
	ck_assert_int_eq(n2_register(mr[0], buf, 8192, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_DEVICE_BUSY);
	ck_assert_uint_eq(sr_mr_iova(engine_mr(mr[0])), (uintptr_t)buf);   /* unchanged */
	ck_assert_int_eq(n2_deregister(mr[0]), ND_SUCCESS);
	ck_assert_int_eq(n2_register(mr[0], other, 8192, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_SUCCESS);
	/* deregistering an empty region (never or no longer registered) succeeds */
	ck_assert_int_eq(n2_deregister(mr[1]), ND_SUCCESS);
	ck_assert_int_eq(n2_deregister(mr[1]), ND_SUCCESS);
	for (int i = 0; i < 4; i++) {
		n2_deregister(mr[i]);
		ck_assert_uint_eq(mr[i]->lpVtbl->Release(mr[i]), 0);
	}
	n2_close(&e);
	free(buf);
	free(other);
}
END_TEST

START_TEST(register_errors)
{
	struct sr_dev_limits l = sr_dev_limits_default();
	struct n2_env e;
	IND2MemoryRegion *mr;
	OVERLAPPED ov = { 0 };
	char *buf = malloc(1 << 16);

	l.max_registration_size = 1 << 16;
	n2_open_limits(&e, &l);
	mr = n2_mr(&e);
	/* a bad buffer: NULL, or wrapping the address space */
	ck_assert_int_eq(mr->lpVtbl->Register(mr, NULL, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov),
			 ND_ACCESS_VIOLATION);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_ACCESS_VIOLATION);
	ck_assert_int_eq(n2_register(mr, (void *)(UINTPTR_MAX - 4095), 8192,
				     ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_ACCESS_VIOLATION);
	/* over MaxRegistrationSize */
	ck_assert_int_eq(n2_register(mr, buf, (1 << 16) + 1, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_INVALID_PARAMETER);
	ck_assert_int_eq(n2_register(mr, buf, 1 << 16, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	ck_assert_int_eq(n2_deregister(mr), ND_SUCCESS);
	/* zero bytes: a bad buffer size, or with no buffer nothing at all */
	ck_assert_int_eq(n2_register(mr, buf, 0, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_INVALID_BUFFER_SIZE);
	ck_assert_int_eq(n2_register(mr, NULL, 0, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_INVALID_PARAMETER);
	/* flags: unknown bits are invalid, DO_NOT_SECURE_VM is accepted */
	ck_assert_int_eq(n2_register(mr, buf, 4096, 0x40), ND_INVALID_PARAMETER);
	ck_assert_int_eq(n2_register(mr, buf, 4096, ND_MR_FLAG_ALLOW_REMOTE_READ |
				     ND_MR_FLAG_DO_NOT_SECURE_VM), ND_SUCCESS);
	ck_assert_uint_eq(sr_mr_access(engine_mr(mr)) & SR_ACCESS_REMOTE_READ,
			  SR_ACCESS_REMOTE_READ);
	/* a failed Register leaves nothing behind: the region still holds its buffer */
	ck_assert(sr_mr_is_valid(engine_mr(mr)));
	ck_assert_int_eq(n2_deregister(mr), ND_SUCCESS);
	ck_assert_uint_eq(mr->lpVtbl->Release(mr), 0);
	n2_close(&e);
	free(buf);
}
END_TEST

START_TEST(insufficient_resources)
{
	struct sr_dev_limits l = sr_dev_limits_default();
	struct n2_env e;
	IND2MemoryRegion *a, *b;
	char *buf = malloc(4096);

	l.max_mr = 1;
	n2_open_limits(&e, &l);
	a = n2_mr(&e);
	b = n2_mr(&e);
	ck_assert_int_eq(n2_register(a, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	/* the key table is full: the second region cannot register */
	ck_assert_int_eq(n2_register(b, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_INSUFFICIENT_RESOURCES);
	/* Deregister keeps the slot: still full */
	ck_assert_int_eq(n2_deregister(a), ND_SUCCESS);
	ck_assert_int_eq(n2_register(b, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE),
			 ND_INSUFFICIENT_RESOURCES);
	/* releasing the region frees it */
	ck_assert_uint_eq(a->lpVtbl->Release(a), 0);
	ck_assert_int_eq(n2_register(b, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	ck_assert_int_eq(n2_deregister(b), ND_SUCCESS);
	ck_assert_uint_eq(b->lpVtbl->Release(b), 0);
	n2_close(&e);
	free(buf);
}
END_TEST

START_TEST(device_removed)
{
	struct n2_env e;
	IND2MemoryRegion *mr, *mr2 = NULL;
	OVERLAPPED ov = { 0 };
	HANDLE h;
	char *buf = malloc(4096);

	n2_open(&e);
	mr = n2_mr(&e);
	ck_assert_int_eq(n2_register(mr, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE), ND_SUCCESS);
	sr_nd2_surprise_removal(e.ad);
	ck_assert_int_eq(mr->lpVtbl->Register(mr, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov),
			 ND_DEVICE_REMOVED);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, FALSE), ND_DEVICE_REMOVED);
	ck_assert_int_eq(e.ad->lpVtbl->CreateMemoryRegion(e.ad, &IID_IND2MemoryRegion, NULL,
							  (VOID **)&mr2), ND_DEVICE_REMOVED);
	ck_assert_int_eq(e.ad->lpVtbl->CreateOverlappedFile(e.ad, &h), ND_DEVICE_REMOVED);
	/* cleanup still works */
	ck_assert_int_eq(n2_deregister(mr), ND_SUCCESS);
	ck_assert_uint_eq(mr->lpVtbl->Release(mr), 0);
	n2_close(&e);
	free(buf);
}
END_TEST

START_TEST(pending_by_size_and_forced)
{
	struct n2_env e;
	IND2MemoryRegion *mr;
	OVERLAPPED ov = { 0 };
	SIZE_T big = (SIZE_T)1 << 30;
	char *buf = malloc(8192);
	HRESULT hr;

	n2_open(&e);
	mr = n2_mr(&e);
	/* 1 GiB or more (the default threshold) completes on the adapter thread */
	hr = mr->lpVtbl->Register(mr, (void *)(uintptr_t)0x10000000, big,
				  ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov);
	ck_assert_int_eq(hr, ND_PENDING);
	hr = mr->lpVtbl->GetOverlappedResult(mr, &ov, FALSE);
	ck_assert(hr == ND_PENDING || hr == ND_SUCCESS);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_SUCCESS);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, FALSE), ND_SUCCESS);
	ck_assert_uint_eq(sr_mr_length(engine_mr(mr)), big);
	ck_assert_int_eq(mr->lpVtbl->Deregister(mr, &ov), ND_SUCCESS);
	/* forced: every Register and Deregister is pending, errors too */
	sr_nd2_set_async(e.ad, big, TRUE);
	ck_assert_int_eq(mr->lpVtbl->Register(mr, buf, 8192, ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov),
			 ND_PENDING);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_SUCCESS);
	ck_assert_int_eq(mr->lpVtbl->Register(mr, buf, 8192, ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov),
			 ND_PENDING);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_DEVICE_BUSY);
	ck_assert_int_eq(mr->lpVtbl->Deregister(mr, &ov), ND_PENDING);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_SUCCESS);
	ck_assert_int_eq(mr->lpVtbl->Register(mr, NULL, 8192, ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov),
			 ND_PENDING);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, TRUE), ND_ACCESS_VIOLATION);
	/* cancelling leaves registrations to finish */
	ck_assert_int_eq(mr->lpVtbl->CancelOverlappedRequests(mr), ND_SUCCESS);
	sr_nd2_set_async(e.ad, big, FALSE);
	ck_assert_uint_eq(mr->lpVtbl->Release(mr), 0);
	n2_close(&e);
	free(buf);
}
END_TEST

START_TEST(pending_until_done)
{
	struct n2_env e;
	struct sr_nd2_adapter *a;
	IND2MemoryRegion *mr[8];
	OVERLAPPED ov[8];
	char *buf = malloc(4096);

	n2_open(&e);
	a = (struct sr_nd2_adapter *)e.ad;
	sr_nd2_set_async(e.ad, 1, TRUE);
	/* completions cannot be published while we hold the adapter's completion lock */
	pthread_mutex_lock(&a->ov_lock);
	for (int i = 0; i < 8; i++) {
		mr[i] = n2_mr(&e);
		memset(&ov[i], 0, sizeof(ov[i]));
		ck_assert_int_eq(mr[i]->lpVtbl->Register(mr[i], buf, 4096,
							 ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov[i]),
				 ND_PENDING);
	}
	usleep(10000);
	for (int i = 0; i < 8; i++)
		ck_assert_int_eq(mr[i]->lpVtbl->GetOverlappedResult(mr[i], &ov[i], FALSE),
				 ND_PENDING);
	pthread_mutex_unlock(&a->ov_lock);
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(mr[i]->lpVtbl->GetOverlappedResult(mr[i], &ov[i], TRUE),
				 ND_SUCCESS);
		ck_assert_int_eq(mr[i]->lpVtbl->GetOverlappedResult(mr[i], &ov[i], FALSE),
				 ND_SUCCESS);
		ck_assert_int_eq(n2_deregister(mr[i]), ND_SUCCESS);
		mr[i]->lpVtbl->Release(mr[i]);
	}
	n2_close(&e);
	free(buf);
}
END_TEST

START_TEST(overlapped_file_signals)
{
	struct n2_env e;
	IND2MemoryRegion *mr;
	OVERLAPPED ov = { 0 };
	HANDLE h = NULL;
	struct pollfd pfd;
	uint64_t count = 0;
	char *buf = malloc(4096);

	n2_open(&e);
	ck_assert_int_eq(e.ad->lpVtbl->CreateOverlappedFile(e.ad, &h), ND_SUCCESS);
	pfd = (struct pollfd){ .fd = sr_nd2_overlapped_file_fd(e.ad, h), .events = POLLIN };
	ck_assert_int_ge(pfd.fd, 0);
	ck_assert_int_eq(sr_nd2_overlapped_file_fd(e.ad, (HANDLE)buf), -1);
	ck_assert_int_eq(e.ad->lpVtbl->CreateMemoryRegion(e.ad, &IID_IND2MemoryRegion, h,
							  (VOID **)&mr), ND_SUCCESS);
	sr_nd2_set_async(e.ad, 1, TRUE);
	ck_assert_int_eq(mr->lpVtbl->Register(mr, buf, 4096, ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov),
			 ND_PENDING);
	/* the file becomes readable when the request completes */
	ck_assert_int_eq(poll(&pfd, 1, 3000), 1);
	ck_assert_int_eq(read(pfd.fd, &count, sizeof(count)), sizeof(count));
	ck_assert_uint_eq(count, 1);
	ck_assert_int_eq(mr->lpVtbl->GetOverlappedResult(mr, &ov, FALSE), ND_SUCCESS);
	ck_assert_int_eq(n2_deregister(mr), ND_SUCCESS);
	mr->lpVtbl->Release(mr);
	n2_close(&e);
	free(buf);
}
END_TEST

/* ---------------------------------------------------- ndsupport.h */

static struct nt_loop *prov_loop;

static HRESULT prov_open(IND2Adapter **pp)
{
	return sr_nd2_adapter_create(nt_loop_backend(prov_loop), &IID_IND2Adapter, (VOID **)pp);
}

START_TEST(ndsupport_entry_points)
{
	struct sockaddr_in mine = { .sin_family = AF_INET, .sin_port = htons(7) };
	struct sockaddr_in other = { .sin_family = AF_INET };
	struct sockaddr_in local;
	SIZE_T len = 0;
	char buf[256];
	IND2Adapter *a = NULL, *b = NULL;

	mine.sin_addr.s_addr = htonl(0x0a000001);
	other.sin_addr.s_addr = htonl(0x0a000002);
	sr_nd2_set_provider(NULL);
	ck_assert_int_eq(NdStartup(), ND_SUCCESS);
	/* no device */
	ck_assert_int_eq(NdQueryAddressList(0, NULL, &len), ND_DEVICE_REMOVED);
	prov_loop = nt_loop_create(NULL);
	sr_nd2_set_provider(prov_open);
	ck_assert_int_eq(NdQueryAddressList(0, NULL, &len), ND_BUFFER_OVERFLOW);
	ck_assert(len <= sizeof(buf));
	ck_assert_int_eq(NdQueryAddressList(0, (SOCKET_ADDRESS_LIST *)buf, &len), ND_SUCCESS);
	ck_assert_int_eq(((SOCKET_ADDRESS_LIST *)buf)->iAddressCount, 1);
	ck_assert_int_eq(NdCheckAddress((struct sockaddr *)&mine, sizeof(mine)), ND_SUCCESS);
	ck_assert_int_eq(NdCheckAddress((struct sockaddr *)&other, sizeof(other)),
			 ND_INVALID_ADDRESS);
	len = sizeof(local);
	ck_assert_int_eq(NdResolveAddress((struct sockaddr *)&other, sizeof(other),
					  (struct sockaddr *)&local, &len), ND_SUCCESS);
	ck_assert_uint_eq(local.sin_addr.s_addr, mine.sin_addr.s_addr);
	/* open by address: one adapter, shared */
	ck_assert_int_eq(NdOpenAdapter(&IID_IND2Adapter, (struct sockaddr *)&other, sizeof(other),
				       (VOID **)&a), ND_INVALID_ADDRESS);
	ck_assert_ptr_null(a);
	ck_assert_int_eq(NdOpenAdapter(&IID_IND2QueuePair, (struct sockaddr *)&mine, sizeof(mine),
				       (VOID **)&a), E_NOINTERFACE);
	ck_assert_int_eq(NdOpenAdapter(&IID_IND2Adapter, (struct sockaddr *)&mine, sizeof(mine),
				       (VOID **)&a), ND_SUCCESS);
	ck_assert_int_eq(NdOpenAdapter(&IID_IND2Adapter, (struct sockaddr *)&mine, sizeof(mine),
				       (VOID **)&b), ND_SUCCESS);
	ck_assert_ptr_eq(a, b);
	ck_assert_uint_eq(b->lpVtbl->Release(b), 1);
	ck_assert_int_eq(NdCleanup(), ND_SUCCESS);
	ck_assert_uint_eq(a->lpVtbl->Release(a), 0);   /* closes the device (and the loop) */
	sr_nd2_set_provider(NULL);
}
END_TEST

static Suite *nd2_mr_suite(void)
{
	Suite *s = suite_create("nd2_mr");
	TCase *t = tcase_create("mr");

	tcase_set_timeout(t, 30);
	tcase_add_test(t, layouts_as_documented);
	tcase_add_test(t, status_table_nd_column);
	tcase_add_test(t, adapter_query_and_iunknown);
	tcase_add_test(t, register_and_deregister);
	tcase_add_test(t, one_buffer_per_region_many_regions_per_buffer);
	tcase_add_test(t, register_errors);
	tcase_add_test(t, insufficient_resources);
	tcase_add_test(t, device_removed);
	tcase_add_test(t, pending_by_size_and_forced);
	tcase_add_test(t, pending_until_done);
	tcase_add_test(t, overlapped_file_signals);
	tcase_add_test(t, ndsupport_entry_points);
	suite_add_tcase(s, t);
	return s;
}

SR_CHECK_MAIN(nd2_mr_suite)
