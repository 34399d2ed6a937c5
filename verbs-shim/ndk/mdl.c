/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mdl.c — the MDL stand-in (sr_mdl.h): the Io/Mm routines, chains built
 * over a buffer, and the flattening of a chain into the page list the MR
 * engine registers (NdkRegisterMr, NdkBuildLAM, IbRegVirtMr).
 */
#include <errno.h>
#include <stdlib.h>

#include "ndk_priv.h"

PMDL IoAllocateMdl(PVOID VirtualAddress, ULONG Length, BOOLEAN SecondaryBuffer,
		   BOOLEAN ChargeQuota, PIRP Irp)
{
	ULONG pages;
	size_t size;
	PMDL mdl;

	(void)SecondaryBuffer;
	(void)ChargeQuota;
	if (Length == 0 || Irp != NULL)
		return NULL;
	pages = ADDRESS_AND_SIZE_TO_SPAN_PAGES(VirtualAddress, Length);
	size = sizeof(MDL) + (size_t)pages * sizeof(PFN_NUMBER);
	mdl = calloc(1, size);
	if (mdl == NULL)
		return NULL;
	mdl->Size = size > INT16_MAX ? INT16_MAX : (CSHORT)size;
	mdl->MdlFlags = MDL_ALLOCATED_FIXED_SIZE;
	mdl->StartVa = PAGE_ALIGN(VirtualAddress);
	mdl->ByteOffset = BYTE_OFFSET(VirtualAddress);
	mdl->ByteCount = Length;
	return mdl;
}

VOID IoFreeMdl(PMDL Mdl)
{
	free(Mdl);
}

VOID MmBuildMdlForNonPagedPool(PMDL Mdl)
{
	ULONG n = ADDRESS_AND_SIZE_TO_SPAN_PAGES(Mdl->ByteOffset, Mdl->ByteCount);
	PPFN_NUMBER pfn = MmGetMdlPfnArray(Mdl);
	PFN_NUMBER first = (ULONG_PTR)Mdl->StartVa >> PAGE_SHIFT;

	for (ULONG i = 0; i < n; i++)
		pfn[i] = first + i;
	Mdl->MappedSystemVa = MmGetMdlVirtualAddress(Mdl);
	Mdl->MdlFlags |= MDL_SOURCE_IS_NONPAGED_POOL | MDL_MAPPED_TO_SYSTEM_VA;
}

VOID sr_mdl_chain_free(PMDL Chain)
{
	while (Chain) {
		PMDL next = Chain->Next;

		IoFreeMdl(Chain);
		Chain = next;
	}
}

PMDL sr_mdl_chain_build(PVOID Buffer, SIZE_T Length, SIZE_T MaxBytesPerMdl)
{
	char *p = Buffer;
	PMDL head = NULL, *link = &head;

	if (Buffer == NULL || Length == 0)
		return NULL;
	while (Length) {
		SIZE_T take = Length;
		PMDL m;

		if (MaxBytesPerMdl && take > MaxBytesPerMdl) {
			/* end on a page boundary so the chain stays contiguous */
			take = ((((ULONG_PTR)p + MaxBytesPerMdl) & ~(PAGE_SIZE - 1)) -
				(ULONG_PTR)p);
			if (take == 0)
				take = PAGE_SIZE - BYTE_OFFSET(p);
		}
		if (take > UINT32_MAX - PAGE_SIZE)
			take = (UINT32_MAX - PAGE_SIZE) & ~(PAGE_SIZE - 1);
		m = IoAllocateMdl(p, (ULONG)take, FALSE, FALSE, NULL);
		if (m == NULL) {
			sr_mdl_chain_free(head);
			return NULL;
		}
		MmBuildMdlForNonPagedPool(m);
		*link = m;
		link = &m->Next;
		p += take;
		Length -= take;
	}
	return head;
}

int sr_mdl_flatten(const MDL *mdl, struct sr_mdl_pages *out)
{
	uint64_t bytes = 0, n = 0, expect = 0;
	uint32_t k = 0;

	if (mdl == NULL)
		return -EINVAL;
	/* check the chain is one virtually contiguous region, count pages */
	for (const MDL *m = mdl; m; m = m->Next) {
		uint64_t va = (uint64_t)(uintptr_t)m->StartVa + m->ByteOffset;

		if (m->ByteCount == 0 || m->ByteOffset >= PAGE_SIZE ||
		    ((uintptr_t)m->StartVa & (PAGE_SIZE - 1)))
			return -EINVAL;
		if (m != mdl && (m->ByteOffset != 0 || va != expect))
			return -EINVAL;
		if (m->Next && ((va + m->ByteCount) & (PAGE_SIZE - 1)))
			return -EINVAL;
		expect = va + m->ByteCount;
		bytes += m->ByteCount;
		n += ADDRESS_AND_SIZE_TO_SPAN_PAGES(m->ByteOffset, m->ByteCount);
	}
	if (n > UINT32_MAX)
		return -EINVAL;
	out->pages = malloc(n * sizeof(uint64_t));
	if (out->pages == NULL)
		return -ENOMEM;
	for (const MDL *m = mdl; m; m = m->Next) {
		ULONG np = ADDRESS_AND_SIZE_TO_SPAN_PAGES(m->ByteOffset, m->ByteCount);
		const PFN_NUMBER *pfn = MmGetMdlPfnArray(m);

		for (ULONG i = 0; i < np; i++)
			out->pages[k++] = (uint64_t)pfn[i] << PAGE_SHIFT;
	}
	out->npages = k;
	out->fbo = mdl->ByteOffset;
	out->va = (uint64_t)(uintptr_t)mdl->StartVa + mdl->ByteOffset;
	out->bytes = bytes;
	return 0;
}

void sr_mdl_pages_free(struct sr_mdl_pages *p)
{
	free(p->pages);
	p->pages = NULL;
}
