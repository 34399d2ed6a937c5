/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sr_mdl.h — a Linux stand-in for the Windows memory descriptor list (MDL)
 * that NdkRegisterMr, NdkBuildLAM and OFW's IbRegVirtMr take, and the
 * documented Io / Mm routines that build and read one.
 *
 * Layout: the members of the Windows MDL header (Next, Size, MdlFlags,
 * Process, MappedSystemVa, StartVa, ByteCount, ByteOffset) followed by the
 * page frame number array (MmGetMdlPfnArray).  StartVa is page aligned,
 * ByteOffset the offset of the first byte in that page, ByteCount the
 * bytes described.  A chain is linked through Next; NDK requires a chain
 * passed to it to describe one virtually contiguous region (every MDL but
 * the first starts on a page boundary, every MDL but the last ends on one,
 * and each continues where the previous one ended).
 *
 * Page frame numbers in sroce are adapter logical addresses >> PAGE_SHIFT,
 * and adapter logical addresses are process virtual addresses (IOVA as
 * VA), so MmBuildMdlForNonPagedPool fills PFN i with (StartVa >>
 * PAGE_SHIFT) + i.  sroce never pins or maps memory: the memory must stay
 * allocated while registered, as nonpaged pool would.
 */
#ifndef SR_MDL_H
#define SR_MDL_H

#include "sr_wintypes.h"

#define PAGE_SHIFT 12
#define PAGE_SIZE  (1UL << PAGE_SHIFT)

/* Pages spanned by Size bytes starting at Va. */
#define ADDRESS_AND_SIZE_TO_SPAN_PAGES(Va, Size)                               \
	((ULONG)((((ULONG_PTR)(Va) & (PAGE_SIZE - 1)) + (Size) + PAGE_SIZE - 1) >> \
		 PAGE_SHIFT))
#define BYTE_OFFSET(Va) ((ULONG)((ULONG_PTR)(Va) & (PAGE_SIZE - 1)))
#define PAGE_ALIGN(Va)  ((PVOID)((ULONG_PTR)(Va) & ~(PAGE_SIZE - 1)))

/* MdlFlags */
#define MDL_MAPPED_TO_SYSTEM_VA 0x0001
#define MDL_PAGES_LOCKED        0x0002
#define MDL_SOURCE_IS_NONPAGED_POOL 0x0004
#define MDL_ALLOCATED_FIXED_SIZE 0x0008

typedef struct _IRP IRP, *PIRP;   /* never defined: Irp must be NULL */

typedef struct _MDL {
	struct _MDL *Next;
	CSHORT Size;            /* bytes of the MDL with its PFN array */
	CSHORT MdlFlags;
	PVOID Process;
	PVOID MappedSystemVa;
	PVOID StartVa;          /* page-aligned */
	ULONG ByteCount;
	ULONG ByteOffset;
	/* PFN_NUMBER array follows */
} MDL, *PMDL;

#define MmGetMdlPfnArray(Mdl)       ((PPFN_NUMBER)((PMDL)(Mdl) + 1))
#define MmGetMdlVirtualAddress(Mdl) ((PVOID)((char *)(Mdl)->StartVa + (Mdl)->ByteOffset))
#define MmGetMdlByteCount(Mdl)      ((Mdl)->ByteCount)
#define MmGetMdlByteOffset(Mdl)     ((Mdl)->ByteOffset)

/*
 * Allocate an MDL for Length bytes at VirtualAddress (PFNs not filled).
 * SecondaryBuffer and ChargeQuota are ignored; Irp must be NULL.  NULL
 * when Length is 0, Irp is not NULL, or no memory.
 */
PMDL IoAllocateMdl(PVOID VirtualAddress, ULONG Length, BOOLEAN SecondaryBuffer,
		   BOOLEAN ChargeQuota, PIRP Irp);

/* Free one MDL (not its chain).  Accepts NULL. */
VOID IoFreeMdl(PMDL Mdl);

/* Fill the PFN array (sroce: from the virtual address, see above). */
VOID MmBuildMdlForNonPagedPool(PMDL MemoryDescriptorList);

/*
 * sroce helpers: an MDL chain over [Buffer, Buffer + Length) whose MDLs
 * cover at most MaxBytesPerMdl bytes each (split on page boundaries;
 * 0 = one MDL), PFNs built.  NULL on bad arguments or no memory.  Free
 * with sr_mdl_chain_free().
 */
PMDL sr_mdl_chain_build(PVOID Buffer, SIZE_T Length, SIZE_T MaxBytesPerMdl);
VOID sr_mdl_chain_free(PMDL Chain);

#endif /* SR_MDL_H */
