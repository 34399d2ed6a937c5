/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndspi.h — the NetworkDirect Service Provider Interface v2 as Microsoft
 * documents it, for C: every IND2* interface is a struct whose first
 * member, lpVtbl, points to its table of methods, in the documented order
 * with the documented names and parameter orders.  IUnknown's
 * QueryInterface, AddRef and Release come first in every table; the
 * interfaces that derive from IND2Overlapped (completion queue, shared
 * receive queue, memory region, connector, listener) continue with
 * CancelOverlappedRequests and GetOverlappedResult.  A method is called as
 *
 *     hr = pMr->lpVtbl->Register(pMr, buf, len, ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov);
 *
 * IIDs are the documented GUIDs.  Written for sroce on Linux from the
 * documentation; the status codes are ndstatus.h's, the structures and
 * flags nddef.h's.  What sroce adds (how asynchronous completion is made
 * visible, opening by name) is in sr_nd2.h.
 */
#ifndef SR_NDSPI_H
#define SR_NDSPI_H

#include <string.h>
#include <sys/socket.h>

#include "nddef.h"
#include "ndstatus.h"
#include "sr_wintypes.h"

/* winerror.h: the interface asked for is not supported by the object. */
#ifndef E_NOINTERFACE
#define E_NOINTERFACE ((HRESULT)0x80004002L)
#endif

#ifndef SUCCEEDED
#define SUCCEEDED(hr) (((HRESULT)(hr)) >= 0)
#define FAILED(hr)    (((HRESULT)(hr)) < 0)
#endif

static inline int IsEqualGUID(REFGUID a, REFGUID b)
{
	return memcmp(a, b, sizeof(GUID)) == 0;
}

#define IsEqualIID(a, b) IsEqualGUID((a), (b))

/* The documented interface identifiers. */
static const IID IID_IUnknown = {
	0x00000000, 0x0000, 0x0000, { 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x46 } };
static const IID IID_IND2Overlapped = {
	0xabf72719, 0xb016, 0x4a40, { 0xa6, 0xf7, 0x62, 0x27, 0x91, 0xa7, 0x04, 0x4c } };
static const IID IID_IND2CompletionQueue = {
	0x20cc445e, 0x64a0, 0x4cbb, { 0xaa, 0x75, 0xf6, 0xa7, 0x25, 0x1f, 0xda, 0x9e } };
static const IID IID_IND2SharedReceiveQueue = {
	0xaabd67dc, 0x459a, 0x4db1, { 0x82, 0x6b, 0x56, 0xcf, 0xcc, 0x27, 0x88, 0x83 } };
static const IID IID_IND2MemoryWindow = {
	0x070fe1f5, 0x0ab5, 0x4361, { 0x88, 0xdb, 0x97, 0x4b, 0xa7, 0x04, 0xd4, 0xb9 } };
static const IID IID_IND2MemoryRegion = {
	0x55dfea2f, 0xbc56, 0x4982, { 0x8a, 0x45, 0x03, 0x01, 0xbe, 0x46, 0xc4, 0x13 } };
static const IID IID_IND2QueuePair = {
	0xeef2f332, 0xb75d, 0x4063, { 0xbc, 0xe3, 0x3a, 0x0b, 0xad, 0x2d, 0x02, 0xce } };
static const IID IID_IND2Connector = {
	0x7dd615c4, 0x6b4c, 0x4866, { 0x95, 0x0c, 0xf3, 0xb1, 0xd2, 0x5a, 0x53, 0x02 } };
static const IID IID_IND2Listener = {
	0x65d23d83, 0x3a57, 0x4e02, { 0x86, 0xa4, 0x35, 0x01, 0x65, 0xc2, 0xd1, 0x30 } };
static const IID IID_IND2Adapter = {
	0xd89c798c, 0x4823, 0x4d69, { 0x84, 0x6c, 0xdf, 0xdc, 0xcf, 0xf9, 0xe5, 0xf3 } };
static const IID IID_IND2Provider = {
	0x49eae6c1, 0x76c4, 0x46d0, { 0x80, 0x03, 0x5c, 0x2e, 0xaa, 0x2c, 0x9a, 0x8e } };

/* The methods every interface starts with (IUnknown), for interface T. */
#define SR_IUNKNOWN_METHODS(T)                                               \
	HRESULT (*QueryInterface)(T *This, REFIID riid, VOID **ppvObj);      \
	ULONG (*AddRef)(T *This);                                            \
	ULONG (*Release)(T *This);

/* ... and those of IND2Overlapped, for the interfaces that derive from it. */
#define SR_IND2OVERLAPPED_METHODS(T)                                         \
	HRESULT (*CancelOverlappedRequests)(T *This);                        \
	HRESULT (*GetOverlappedResult)(T *This, OVERLAPPED *pOverlapped, BOOL wait);

#define SR_ND_INTERFACE(T)                                                   \
	typedef struct T T;                                                  \
	typedef struct T##Vtbl T##Vtbl;                                      \
	struct T {                                                           \
		const T##Vtbl *lpVtbl;                                       \
	}

SR_ND_INTERFACE(IUnknown);
SR_ND_INTERFACE(IND2Overlapped);
SR_ND_INTERFACE(IND2CompletionQueue);
SR_ND_INTERFACE(IND2SharedReceiveQueue);
SR_ND_INTERFACE(IND2MemoryWindow);
SR_ND_INTERFACE(IND2MemoryRegion);
SR_ND_INTERFACE(IND2QueuePair);
SR_ND_INTERFACE(IND2Connector);
SR_ND_INTERFACE(IND2Listener);
SR_ND_INTERFACE(IND2Adapter);
SR_ND_INTERFACE(IND2Provider);

struct IUnknownVtbl {
	SR_IUNKNOWN_METHODS(IUnknown)
};

/* IND2Overlapped: IUnknown */
struct IND2OverlappedVtbl {
	SR_IUNKNOWN_METHODS(IND2Overlapped)
	SR_IND2OVERLAPPED_METHODS(IND2Overlapped)
};

/* IND2CompletionQueue: IND2Overlapped */
struct IND2CompletionQueueVtbl {
	SR_IUNKNOWN_METHODS(IND2CompletionQueue)
	SR_IND2OVERLAPPED_METHODS(IND2CompletionQueue)
	HRESULT (*GetNotifyAffinity)(IND2CompletionQueue *This, USHORT *pGroup,
				     KAFFINITY *pAffinity);
	HRESULT (*Resize)(IND2CompletionQueue *This, ULONG queueDepth);
	HRESULT (*Notify)(IND2CompletionQueue *This, ULONG type, OVERLAPPED *pOverlapped);
	ULONG (*GetResults)(IND2CompletionQueue *This, ND2_RESULT results[], ULONG nResults);
};

/* IND2SharedReceiveQueue: IND2Overlapped */
struct IND2SharedReceiveQueueVtbl {
	SR_IUNKNOWN_METHODS(IND2SharedReceiveQueue)
	SR_IND2OVERLAPPED_METHODS(IND2SharedReceiveQueue)
	HRESULT (*GetNotifyAffinity)(IND2SharedReceiveQueue *This, USHORT *pGroup,
				     KAFFINITY *pAffinity);
	HRESULT (*Modify)(IND2SharedReceiveQueue *This, ULONG queueDepth,
			  ULONG notifyThreshold);
	HRESULT (*Notify)(IND2SharedReceiveQueue *This, OVERLAPPED *pOverlapped);
	HRESULT (*Receive)(IND2SharedReceiveQueue *This, VOID *requestContext,
			   const ND2_SGE sge[], ULONG nSge);
};

/* IND2MemoryWindow: IUnknown */
struct IND2MemoryWindowVtbl {
	SR_IUNKNOWN_METHODS(IND2MemoryWindow)
	UINT32 (*GetRemoteToken)(IND2MemoryWindow *This);
};

/* IND2MemoryRegion: IND2Overlapped.  flags: ND_MR_FLAG_*. */
struct IND2MemoryRegionVtbl {
	SR_IUNKNOWN_METHODS(IND2MemoryRegion)
	SR_IND2OVERLAPPED_METHODS(IND2MemoryRegion)
	HRESULT (*Register)(IND2MemoryRegion *This, const VOID *pBuffer, SIZE_T cbBuffer,
			    ULONG flags, OVERLAPPED *pOverlapped);
	HRESULT (*Deregister)(IND2MemoryRegion *This, OVERLAPPED *pOverlapped);
	UINT32 (*GetLocalToken)(IND2MemoryRegion *This);
	UINT32 (*GetRemoteToken)(IND2MemoryRegion *This);
};

/* IND2QueuePair: IUnknown.  flags: ND_OP_FLAG_*. */
struct IND2QueuePairVtbl {
	SR_IUNKNOWN_METHODS(IND2QueuePair)
	HRESULT (*Flush)(IND2QueuePair *This);
	HRESULT (*Send)(IND2QueuePair *This, VOID *requestContext, const ND2_SGE sge[],
			ULONG nSge, ULONG flags);
	HRESULT (*Receive)(IND2QueuePair *This, VOID *requestContext, const ND2_SGE sge[],
			   ULONG nSge);
	HRESULT (*Bind)(IND2QueuePair *This, VOID *requestContext, IUnknown *pMemoryRegion,
			IUnknown *pMemoryWindow, const VOID *pBuffer, SIZE_T cbBuffer,
			ULONG flags);
	HRESULT (*Invalidate)(IND2QueuePair *This, VOID *requestContext,
			      IUnknown *pMemoryWindow, ULONG flags);
	HRESULT (*Read)(IND2QueuePair *This, VOID *requestContext, const ND2_SGE sge[],
			ULONG nSge, UINT64 remoteAddress, UINT32 remoteToken, ULONG flags);
	HRESULT (*Write)(IND2QueuePair *This, VOID *requestContext, const ND2_SGE sge[],
			 ULONG nSge, UINT64 remoteAddress, UINT32 remoteToken, ULONG flags);
};

/* IND2Connector: IND2Overlapped */
struct IND2ConnectorVtbl {
	SR_IUNKNOWN_METHODS(IND2Connector)
	SR_IND2OVERLAPPED_METHODS(IND2Connector)
	HRESULT (*Bind)(IND2Connector *This, const struct sockaddr *pAddress, ULONG cbAddress);
	HRESULT (*Connect)(IND2Connector *This, IUnknown *pQueuePair,
			   const struct sockaddr *pDestAddress, ULONG cbDestAddress,
			   ULONG inboundReadLimit, ULONG outboundReadLimit,
			   const VOID *pPrivateData, ULONG cbPrivateData,
			   OVERLAPPED *pOverlapped);
	HRESULT (*CompleteConnect)(IND2Connector *This, OVERLAPPED *pOverlapped);
	HRESULT (*Accept)(IND2Connector *This, IUnknown *pQueuePair, ULONG inboundReadLimit,
			  ULONG outboundReadLimit, const VOID *pPrivateData,
			  ULONG cbPrivateData, OVERLAPPED *pOverlapped);
	HRESULT (*Reject)(IND2Connector *This, const VOID *pPrivateData, ULONG cbPrivateData);
	HRESULT (*GetReadLimits)(IND2Connector *This, ULONG *pInboundReadLimit,
				 ULONG *pOutboundReadLimit);
	HRESULT (*GetPrivateData)(IND2Connector *This, VOID *pPrivateData,
				  ULONG *pcbPrivateData);
	HRESULT (*GetLocalAddress)(IND2Connector *This, struct sockaddr *pAddress,
				   ULONG *pcbAddress);
	HRESULT (*GetPeerAddress)(IND2Connector *This, struct sockaddr *pAddress,
				  ULONG *pcbAddress);
	HRESULT (*NotifyDisconnect)(IND2Connector *This, OVERLAPPED *pOverlapped);
	HRESULT (*Disconnect)(IND2Connector *This, OVERLAPPED *pOverlapped);
};

/* IND2Listener: IND2Overlapped */
struct IND2ListenerVtbl {
	SR_IUNKNOWN_METHODS(IND2Listener)
	SR_IND2OVERLAPPED_METHODS(IND2Listener)
	HRESULT (*Bind)(IND2Listener *This, const struct sockaddr *pAddress, ULONG cbAddress);
	HRESULT (*Listen)(IND2Listener *This, ULONG backlog);
	HRESULT (*GetLocalAddress)(IND2Listener *This, struct sockaddr *pAddress,
				   ULONG *pcbAddress);
	HRESULT (*GetConnectionRequest)(IND2Listener *This, IUnknown *pConnector,
					OVERLAPPED *pOverlapped);
};

/* IND2Adapter: IUnknown */
struct IND2AdapterVtbl {
	SR_IUNKNOWN_METHODS(IND2Adapter)
	HRESULT (*CreateOverlappedFile)(IND2Adapter *This, HANDLE *phOverlappedFile);
	HRESULT (*Query)(IND2Adapter *This, ND2_ADAPTER_INFO *pInfo, ULONG *pcbInfo);
	HRESULT (*QueryAddressList)(IND2Adapter *This, SOCKET_ADDRESS_LIST *pAddressList,
				    ULONG *pcbAddressList);
	HRESULT (*CreateCompletionQueue)(IND2Adapter *This, REFIID iid, HANDLE hOverlappedFile,
					 ULONG queueDepth, USHORT group, KAFFINITY affinity,
					 VOID **ppCompletionQueue);
	HRESULT (*CreateMemoryRegion)(IND2Adapter *This, REFIID iid, HANDLE hOverlappedFile,
				      VOID **ppMemoryRegion);
	HRESULT (*CreateMemoryWindow)(IND2Adapter *This, REFIID iid, VOID **ppMemoryWindow);
	HRESULT (*CreateSharedReceiveQueue)(IND2Adapter *This, REFIID iid,
					    HANDLE hOverlappedFile, ULONG queueDepth,
					    ULONG maxRequestSge, ULONG notifyThreshold,
					    USHORT group, KAFFINITY affinity,
					    VOID **ppSharedReceiveQueue);
	HRESULT (*CreateQueuePair)(IND2Adapter *This, REFIID iid,
				   IUnknown *pReceiveCompletionQueue,
				   IUnknown *pInitiatorCompletionQueue, VOID *context,
				   ULONG receiveQueueDepth, ULONG initiatorQueueDepth,
				   ULONG maxReceiveRequestSge, ULONG maxInitiatorRequestSge,
				   ULONG inlineDataSize, VOID **ppQueuePair);
	HRESULT (*CreateQueuePairWithSrq)(IND2Adapter *This, REFIID iid,
					  IUnknown *pReceiveCompletionQueue,
					  IUnknown *pInitiatorCompletionQueue,
					  IUnknown *pSharedReceiveQueue, VOID *context,
					  ULONG initiatorQueueDepth,
					  ULONG maxInitiatorRequestSge, ULONG inlineDataSize,
					  VOID **ppQueuePair);
	HRESULT (*CreateConnector)(IND2Adapter *This, REFIID iid, HANDLE hOverlappedFile,
				   VOID **ppConnector);
	HRESULT (*CreateListener)(IND2Adapter *This, REFIID iid, HANDLE hOverlappedFile,
				  VOID **ppListener);
};

/* IND2Provider: IUnknown */
struct IND2ProviderVtbl {
	SR_IUNKNOWN_METHODS(IND2Provider)
	HRESULT (*QueryAddressList)(IND2Provider *This, SOCKET_ADDRESS_LIST *pAddressList,
				    ULONG *pcbAddressList);
	HRESULT (*ResolveAddress)(IND2Provider *This, const struct sockaddr *pAddress,
				  ULONG cbAddress, UINT64 *pAdapterId);
	HRESULT (*OpenAdapter)(IND2Provider *This, REFIID iid, UINT64 adapterId,
			       VOID **ppAdapter);
};

#endif /* SR_NDSPI_H */
