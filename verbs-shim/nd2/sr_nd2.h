/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr_nd2.h — what sroce adds to the NetworkDirect SPI v2 (ndspi.h).
 *
 * Opening.  NdOpenAdapter (ndsupport.h) opens the adapter by one of its IP
 * addresses; sr_nd2_open_adapter("sroce0", &IID_IND2Adapter, &p) opens it
 * by name.  Both sit on the NDK personality (verbs-shim/ndk): an
 * IND2Adapter is an NDK adapter with one protection domain, and every
 * IND2 object wraps the NDK object of the same kind, so addresses (process
 * virtual addresses), tokens (remote tokens in network byte order) and
 * connections (over the device's CM, rdma_cm's addressing) are the NDK
 * shim's (sr_ndk.h).
 *
 * Overlapped requests.  A method that takes an OVERLAPPED either completes
 * at once (ND_SUCCESS or an error) or returns ND_PENDING and completes on
 * the adapter's own thread.  Either way OVERLAPPED.Internal holds the
 * request's status (ND_PENDING until it is done) and
 * IND2Overlapped::GetOverlappedResult(pOv, wait) returns it: ND_PENDING
 * while outstanding with wait FALSE; with wait TRUE it blocks until done
 * (hEvent is not needed).  InternalHigh belongs to sroce while a request
 * is outstanding.  An overlapped file (IND2Adapter::CreateOverlappedFile)
 * is the Linux counterpart of an I/O completion port binding: its
 * sr_nd2_overlapped_file_fd() becomes readable (an eventfd counting
 * completions) whenever a pending request of an object created with it
 * completes.  Files live as long as their adapter.
 *
 * What completes asynchronously: Register of SROCE_NDK_ASYNC_BYTES or more
 * (default 1 GiB), or every Register and Deregister after
 * sr_nd2_set_async(adapter, threshold, TRUE); CompletionQueue::Notify,
 * Connector::Connect / Accept / NotifyDisconnect and
 * Listener::GetConnectionRequest when they must wait.
 *
 * Memory regions.  One buffer per IND2MemoryRegion; the same buffer may be
 * registered by any number of them.  The region takes its slot in the
 * adapter's key table at its first Register (ND_INSUFFICIENT_RESOURCES
 * when sroce.MaxMr regions hold one) and keeps it until released.  The
 * registered memory belongs to the adapter: every queue pair of the
 * adapter may use it.  ND_MR_FLAG_DO_NOT_SECURE_VM is accepted and
 * changes nothing: sroce never pins or secures memory, so a buffer must
 * stay allocated while it is registered.
 *
 * Not provided: shared receive queues (MaxSharedReceiveQueueDepth is 0,
 * CreateSharedReceiveQueue / CreateQueuePairWithSrq return
 * ND_NOT_SUPPORTED), CQ resize, the v1 interfaces.
 */
#ifndef SR_ND2_H
#define SR_ND2_H

#include "ndspi.h"

struct sr_ndk_backend;

/*
 * Open the adapter by device name ("sroce0"; NULL is "sroce0") and return
 * its iid interface.  ND_SUCCESS, ND_INVALID_PARAMETER (unknown name),
 * E_NOINTERFACE, ND_NO_MEMORY, ND_DEVICE_REMOVED (the device could not be
 * opened).  The last Release closes the device.
 */
HRESULT sr_nd2_open_adapter(PCSTR DeviceName, REFIID iid, VOID **ppAdapter);

/* Make an adapter on a backend (tests: their own link); as above. */
HRESULT sr_nd2_adapter_create(const struct sr_ndk_backend *be, REFIID iid,
			      VOID **ppAdapter);

/* Asynchronous completion (see above).  Threshold in bytes; All: every request. */
VOID sr_nd2_set_async(IND2Adapter *pAdapter, SIZE_T Threshold, BOOL All);

/*
 * Surprise removal: the device is gone.  From then on every request but
 * cleanup (Deregister, Disconnect, Release, GetOverlappedResult,
 * CancelOverlappedRequests) fails with ND_DEVICE_REMOVED.
 */
VOID sr_nd2_surprise_removal(IND2Adapter *pAdapter);

/* IND2 objects of the adapter alive (not counting the adapter). */
ULONG sr_nd2_object_count(IND2Adapter *pAdapter);

/* The pollable descriptor of an overlapped file, or -1 for a bad handle. */
int sr_nd2_overlapped_file_fd(IND2Adapter *pAdapter, HANDLE hOverlappedFile);

/*
 * The provider behind ndsupport.h: how NdQueryAddressList / NdOpenAdapter
 * open the device when no adapter of the process is open.  libsroce-nd2
 * sets sr_nd2_open_adapter; tests set their own.
 */
typedef HRESULT (*sr_nd2_open_fn)(IND2Adapter **ppAdapter);
VOID sr_nd2_set_provider(sr_nd2_open_fn Open);

#endif /* SR_ND2_H */
