/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndkinfo.h — NDK_VERSION, NDK_RDMA_TECHNOLOGY, the NDK_ADAPTER_FLAG_*
 * values and NDK_ADAPTER_INFO, as Microsoft documents them (ndkinfo.h),
 * written for sroce on Linux.
 */
#ifndef SR_NDKINFO_H
#define SR_NDKINFO_H

#include "sr_wintypes.h"

typedef struct _NDK_VERSION {
	USHORT Major;
	USHORT Minor;
} NDK_VERSION;

typedef enum _NDK_RDMA_TECHNOLOGY {
	NdkUndefined = 0,
	NdkiWarp = 1,
	NdkInfiniBand = 2,
	NdkRoCE = 3,
	NdkRoCEv2 = 4,
	NdkMaxTechnology
} NDK_RDMA_TECHNOLOGY;

#define NDK_ADAPTER_FLAG_IN_ORDER_DMA_SUPPORTED               0x00000001
#define NDK_ADAPTER_FLAG_RDMA_READ_SINK_NOT_REQUIRED          0x00000002
#define NDK_ADAPTER_FLAG_CQ_INTERRUPT_MODERATION_SUPPORTED    0x00000004
#define NDK_ADAPTER_FLAG_MULTI_ENGINE_SUPPORTED               0x00000008
#define NDK_ADAPTER_FLAG_RDMA_READ_LOCAL_INVALIDATE_SUPPORTED 0x00000010
#define NDK_ADAPTER_FLAG_CQ_RESIZE_SUPPORTED                  0x00000100
#define NDK_ADAPTER_FLAG_LOOPBACK_CONNECTIONS_SUPPORTED       0x00010000

typedef struct _NDK_ADAPTER_INFO {
	NDK_VERSION Version;
	UINT32 VendorId;
	UINT32 DeviceId;
	SIZE_T MaxRegistrationSize;
	SIZE_T MaxWindowSize;
	ULONG FRMRPageCount;
	ULONG MaxInitiatorRequestSge;
	ULONG MaxReceiveRequestSge;
	ULONG MaxReadRequestSge;
	ULONG MaxTransferLength;
	ULONG MaxInlineDataSize;
	ULONG MaxInboundReadLimit;
	ULONG MaxOutboundReadLimit;
	ULONG MaxReceiveQueueDepth;
	ULONG MaxInitiatorQueueDepth;
	ULONG MaxSrqDepth;
	ULONG MaxCqDepth;
	ULONG LargeRequestThreshold;
	ULONG MaxCallerData;
	ULONG MaxCalleeData;
	ULONG AdapterFlags;
	NDK_RDMA_TECHNOLOGY RdmaTechnology;
} NDK_ADAPTER_INFO;

#endif /* SR_NDKINFO_H */
