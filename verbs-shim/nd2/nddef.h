/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nddef.h — the NetworkDirect SPI v2 structures and flags, as Microsoft's
 * NetworkDirect documentation defines them (IND2Adapter, IND2QueuePair,
 * IND2CompletionQueue, IND2MemoryRegion pages): ND_VERSION_*,
 * ND_ADAPTER_FLAG_*, ND_CQ_NOTIFY_*, ND_MR_FLAG_*, ND_OP_FLAG_*,
 * ND2_ADAPTER_INFO, ND2_REQUEST_TYPE, ND2_RESULT and ND2_SGE.  Written for
 * sroce on Linux from the documented definitions; the Windows base types
 * come from sr_wintypes.h with their Windows sizes.
 */
#ifndef SR_NDDEF_H
#define SR_NDDEF_H

#include <stddef.h>

#include "sr_wintypes.h"

#define ND_VERSION_1 0x1
#define ND_VERSION_2 0x20000

#ifndef NDVER
#define NDVER ND_VERSION_2
#endif

/* ND2_ADAPTER_INFO.AdapterFlags */
#define ND_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED            0x00000001
#define ND_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED 0x00000004
#define ND_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED            0x00000008
#define ND_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED               0x00000100
#define ND_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED    0x00010000

/* IND2CompletionQueue::Notify types */
#define ND_CQ_NOTIFY_ERRORS    0
#define ND_CQ_NOTIFY_ANY       1
#define ND_CQ_NOTIFY_SOLICITED 2

/* IND2MemoryRegion::Register flags (remote write implies local write) */
#define ND_MR_FLAG_ALLOW_LOCAL_WRITE  0x00000001
#define ND_MR_FLAG_ALLOW_REMOTE_READ  0x00000002
#define ND_MR_FLAG_ALLOW_REMOTE_WRITE 0x00000005
#define ND_MR_FLAG_RDMA_READ_SINK     0x00000008
#define ND_MR_FLAG_DO_NOT_SECURE_VM   0x80000000

/* IND2QueuePair request flags */
#define ND_OP_FLAG_SILENT_SUCCESS         0x00000001
#define ND_OP_FLAG_READ_FENCE             0x00000002
#define ND_OP_FLAG_SEND_AND_SOLICIT_EVENT 0x00000004
#define ND_OP_FLAG_ALLOW_READ             0x00000008
#define ND_OP_FLAG_ALLOW_WRITE            0x00000010
#if NDVER >= ND_VERSION_2
#define ND_OP_FLAG_INLINE                 0x00000020
#endif

typedef struct _ND2_ADAPTER_INFO {
	ULONG InfoVersion;
	UINT16 VendorId;
	UINT16 DeviceId;
	UINT64 AdapterId;
	SIZE_T MaxRegistrationSize;
	SIZE_T MaxWindowSize;
	ULONG MaxInitiatorSge;
	ULONG MaxReceiveSge;
	ULONG MaxReadSge;
	ULONG MaxTransferLength;
	ULONG MaxInlineDataSize;
	ULONG MaxInboundReadLimit;
	ULONG MaxOutboundReadLimit;
	ULONG MaxReceiveQueueDepth;
	ULONG MaxInitiatorQueueDepth;
	ULONG MaxSharedReceiveQueueDepth;
	ULONG MaxCompletionQueueDepth;
	ULONG InlineRequestThreshold;
	ULONG LargeRequestThreshold;
	ULONG MaxCallerData;
	ULONG MaxCalleeData;
	ULONG AdapterFlags;
} ND2_ADAPTER_INFO;

/* The 32-bit layout (SIZE_T members as ULONG), for 32-bit clients. */
typedef struct _ND2_ADAPTER_INFO32 {
	ULONG InfoVersion;
	UINT16 VendorId;
	UINT16 DeviceId;
	UINT64 AdapterId;
	ULONG MaxRegistrationSize;
	ULONG MaxWindowSize;
	ULONG MaxInitiatorSge;
	ULONG MaxReceiveSge;
	ULONG MaxReadSge;
	ULONG MaxTransferLength;
	ULONG MaxInlineDataSize;
	ULONG MaxInboundReadLimit;
	ULONG MaxOutboundReadLimit;
	ULONG MaxReceiveQueueDepth;
	ULONG MaxInitiatorQueueDepth;
	ULONG MaxSharedReceiveQueueDepth;
	ULONG MaxCompletionQueueDepth;
	ULONG InlineRequestThreshold;
	ULONG LargeRequestThreshold;
	ULONG MaxCallerData;
	ULONG MaxCalleeData;
	ULONG AdapterFlags;
} ND2_ADAPTER_INFO32;

typedef enum _ND2_REQUEST_TYPE {
	Nd2RequestTypeReceive,
	Nd2RequestTypeSend,
	Nd2RequestTypeBind,
	Nd2RequestTypeInvalidate,
	Nd2RequestTypeRead,
	Nd2RequestTypeWrite
} ND2_REQUEST_TYPE;

typedef struct _ND2_RESULT {
	HRESULT Status;
	ULONG BytesTransferred;
	VOID *QueuePairContext;
	VOID *RequestContext;
	ND2_REQUEST_TYPE RequestType;
} ND2_RESULT;

typedef struct _ND2_SGE {
	VOID *Buffer;
	ULONG BufferLength;
	UINT32 MemoryRegionToken;
} ND2_SGE;

/* The layouts of a 64-bit (LLP64) Windows build. */
static_assert(offsetof(ND2_ADAPTER_INFO, AdapterId) == 8, "ND2_ADAPTER_INFO layout");
static_assert(offsetof(ND2_ADAPTER_INFO, MaxRegistrationSize) == 16, "ND2_ADAPTER_INFO layout");
static_assert(offsetof(ND2_ADAPTER_INFO, MaxInitiatorSge) == 32, "ND2_ADAPTER_INFO layout");
static_assert(sizeof(ND2_ADAPTER_INFO) == 96, "ND2_ADAPTER_INFO is 96 bytes");
static_assert(sizeof(ND2_ADAPTER_INFO32) == 88, "ND2_ADAPTER_INFO32 is 88 bytes");
static_assert(sizeof(ND2_RESULT) == 32, "ND2_RESULT is 32 bytes");
static_assert(offsetof(ND2_RESULT, QueuePairContext) == 8, "ND2_RESULT layout");
static_assert(sizeof(ND2_SGE) == 16, "ND2_SGE is 16 bytes");
static_assert(offsetof(ND2_SGE, MemoryRegionToken) == 12, "ND2_SGE layout");

#endif /* SR_NDDEF_H */
