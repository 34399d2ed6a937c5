/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ofw_mr.h — OpenFabrics-Windows-style kernel registration calls on an NDK
 * protection domain: IbRegVirtMr (an MDL list), IbRegScatterGatherMr (a
 * Windows SCATTER_GATHER_LIST) and IbGetDmaMr, each filling IB_MR with the
 * registration's attributes as OFW's ib_mr_attr_t carries them: local and
 * remote bounds (first and last byte), access mask, lKey and rKey.
 *
 * Completion: the three calls take one completion object, IB_COMPLETION,
 * in the place of the kernel's IRP, and use it the same way:
 *   - STATUS_SUCCESS with *pMr filled: done, the routine is not called;
 *   - STATUS_PENDING when the adapter completes registrations
 *     asynchronously (sr_ndk_set_async: Length at or over the threshold,
 *     or all; IbGetDmaMr with all): Routine(Context, Status, pMr) runs
 *     later on the adapter thread, pMr filled on success;
 *   - an error: returned, and Routine(Context, Status, pMr) is called with
 *     it before the call returns, as an IRP is completed with the failure
 *     status.
 * A NULL completion object always completes synchronously.  Errors come
 * from the one table (sr_status.h).
 *
 * Scatter/gather rules (lib/mr): at least one element; the first may
 * start mid-page; every element but the last ends on a page boundary;
 * every element but the first starts on one; every length >= 1.  The
 * region's address (iova) is the first element's address.
 *
 * Keys: lKey in host order, rKey in network order (0 without remote
 * access), as the NDK tokens (sr_ndk.h).
 */
#ifndef SR_OFW_MR_H
#define SR_OFW_MR_H

#include "ndkpi.h"

/* ib_access_t bits (OFW ib_types.h). */
#define IB_AC_RDMA_READ   0x00000001
#define IB_AC_RDMA_WRITE  0x00000002
#define IB_AC_ATOMIC      0x00000004
#define IB_AC_LOCAL_WRITE 0x00000008
#define IB_AC_MW_BIND     0x00000010

/* Windows' scatter/gather list (wdm.h). */
typedef struct _SCATTER_GATHER_ELEMENT {
	PHYSICAL_ADDRESS Address;
	ULONG Length;
	ULONG_PTR Reserved;
} SCATTER_GATHER_ELEMENT, *PSCATTER_GATHER_ELEMENT;

typedef struct _SCATTER_GATHER_LIST {
	ULONG NumberOfElements;
	ULONG_PTR Reserved;
	SCATTER_GATHER_ELEMENT Elements[];
} SCATTER_GATHER_LIST, *PSCATTER_GATHER_LIST;

typedef struct _IB_MR {
	UINT64 LocalStart;     /* local_lb: first byte */
	UINT64 LocalEnd;       /* local_ub: last byte */
	UINT64 RemoteStart;    /* remote_lb (0 without remote access) */
	UINT64 RemoteEnd;      /* remote_ub */
	ULONG AccessMask;      /* IB_AC_* */
	UINT32 lKey;
	UINT32 rKey;           /* network order */
	PVOID Handle;          /* the registration, for IbDeregMr */
} IB_MR;

typedef VOID (*IB_MR_COMPLETION)(PVOID Context, NTSTATUS Status, IB_MR *pMr);

/* The completion object of the three calls (the IRP's place). */
typedef struct _IB_COMPLETION {
	IB_MR_COMPLETION Routine;
	PVOID Context;
} IB_COMPLETION;

NTSTATUS IbRegVirtMr(NDK_PD *Pd, PMDL MdlList, SIZE_T Length, ULONG AccessMask,
		     IB_COMPLETION *pCompletion, IB_MR *pMr);

NTSTATUS IbRegScatterGatherMr(NDK_PD *Pd, PSCATTER_GATHER_LIST Sgl, ULONG AccessMask,
			      IB_COMPLETION *pCompletion, IB_MR *pMr);

/* Local access to the whole adapter address space; AccessMask: LOCAL_WRITE only. */
NTSTATUS IbGetDmaMr(NDK_PD *Pd, ULONG AccessMask, IB_COMPLETION *pCompletion, IB_MR *pMr);

/* Release a registration of the three calls above; STATUS_DEVICE_BUSY with windows bound. */
NTSTATUS IbDeregMr(IB_MR *pMr);

#endif /* SR_OFW_MR_H */
