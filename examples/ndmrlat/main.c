/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndmrlat — memory registration latency and rate, in the spirit of
 * NetworkDirect's ndmrlat / ndmrrate, through the NDK interface:
 *
 *   ndmrlat          µs per NdkRegisterMr and per NdkDeregisterMr by size
 *                    (one MR object, registered and deregistered in turn)
 *   ndmrlat --rate   registrations (+ deregistrations) per second by size
 *   ndmrlat --nd2    the same through IND2MemoryRegion::Register / Deregister
 *                    (the adapter of the first address NdQueryAddressList
 *                    gives, opened with NdOpenAdapter; each request waited for
 *                    with GetOverlappedResult); with --rate, as ndmrrate:
 *                    many regions registered, then all deregistered
 *
 * The buffer is reserved address space (MAP_NORESERVE): sroce never pins
 * or touches registered memory, so the cost is the MDL walk and the page
 * list the engine keeps.  Opens node 0 of the default link on its own
 * (set SROCE_RUN_DIR to a private folder when another node runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "ndsupport.h"
#include "sr_ndk.h"

#define MAX_SIZE ((SIZE_T)1 << 30)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Register / Deregister and wait: the µs it took, or -1. */
static double nd2_op(IND2MemoryRegion *mr, void *buf, SIZE_T size, OVERLAPPED *ov)
{
	double t = now_us();
	HRESULT hr = buf ? mr->lpVtbl->Register(mr, buf, size, ND_MR_FLAG_ALLOW_REMOTE_WRITE |
						ND_MR_FLAG_ALLOW_REMOTE_READ, ov)
			 : mr->lpVtbl->Deregister(mr, ov);

	if (hr == ND_PENDING)
		hr = mr->lpVtbl->GetOverlappedResult(mr, ov, TRUE);
	return hr == ND_SUCCESS ? now_us() - t : -1;
}

static int nd2_main(int rate, char *buf)
{
	static IND2MemoryRegion *mr[1000];
	char list[1024];
	SIZE_T len = sizeof(list);
	IND2Adapter *ad;
	OVERLAPPED ov = { 0 };

	if (NdStartup() != ND_SUCCESS ||
	    NdQueryAddressList(0, (SOCKET_ADDRESS_LIST *)list, &len) != ND_SUCCESS ||
	    NdOpenAdapter(&IID_IND2Adapter, ((SOCKET_ADDRESS_LIST *)list)->Address[0].lpSockaddr,
			  (SIZE_T)((SOCKET_ADDRESS_LIST *)list)->Address[0].iSockaddrLength,
			  (VOID **)&ad) != ND_SUCCESS) {
		fprintf(stderr, "ndmrlat: no ND2 adapter\n");
		return 1;
	}
	printf("%12s %10s %16s %16s%s\n", "Size", rate ? "Regions" : "Iterations", "Register(us)",
	       "Deregister(us)", rate ? "  Registrations/s" : "");
	for (SIZE_T size = 4096; size <= MAX_SIZE; size *= 4) {
		int n = rate ? 1000 : size <= ((SIZE_T)1 << 20) ? 10000 : 200;
		double reg = 0, dereg = 0, r = 0, d = 0;

		for (int i = 0; i < (rate ? n : 1); i++)
			if (ad->lpVtbl->CreateMemoryRegion(ad, &IID_IND2MemoryRegion, NULL,
							   (VOID **)&mr[i]) != ND_SUCCESS)
				return 1;
		for (int i = 0; i < n && r >= 0 && d >= 0; i++) {
			/* latency: one region in turn; rate: all registered, then all deregistered */
			reg += r = nd2_op(mr[rate ? i : 0], buf, size, &ov);
			if (!rate)
				dereg += d = nd2_op(mr[0], NULL, 0, &ov);
		}
		for (int i = 0; rate && i < n && d >= 0; i++)
			dereg += d = nd2_op(mr[i], NULL, 0, &ov);
		if (r < 0 || d < 0) {
			fprintf(stderr, "ndmrlat: %zu bytes: Register/Deregister failed\n", size);
			return 1;
		}
		printf(rate ? "%12zu %10d %16.3f %16.3f %16.0f\n" : "%12zu %10d %16.3f %16.3f\n",
		       size, n, reg / n, dereg / n, n / (reg / 1e6));
		for (int i = 0; i < (rate ? n : 1); i++)
			mr[i]->lpVtbl->Release(mr[i]);
	}
	if (ad->lpVtbl->Release(ad) != 0)
		return 1;
	NdCleanup();
	return 0;
}

int main(int argc, char **argv)
{
	int rate = 0, nd2 = 0;
	NDK_ADAPTER *ad;
	NDK_PD *pd;
	NDK_MR *mr;
	char *buf;
	NTSTATUS st;

	for (int i = 1; i < argc; i++) {
		rate |= strcmp(argv[i], "--rate") == 0;
		nd2 |= strcmp(argv[i], "--nd2") == 0;
	}
	if (nd2) {
		buf = mmap(NULL, MAX_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		return buf == MAP_FAILED ? 1 : nd2_main(rate, buf);
	}
	st = sr_ndk_open_adapter("sroce0", &ad);
	if (st != STATUS_SUCCESS) {
		fprintf(stderr, "ndmrlat: open: %s\n", sr_ntstatus_str(st));
		return 1;
	}
	buf = mmap(NULL, MAX_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (buf == MAP_FAILED ||
	    ad->Dispatch->NdkCreatePd(ad, NULL, NULL, &pd) != STATUS_SUCCESS ||
	    pd->Dispatch->NdkCreateMr(pd, FALSE, NULL, NULL, &mr) != STATUS_SUCCESS)
		return 1;
	printf(rate ? "%12s %10s %16s\n" : "%12s %10s %16s %16s\n", "Size", "Iterations",
	       rate ? "Registrations/s" : "Register(us)", "Deregister(us)");
	for (SIZE_T size = 4096; size <= MAX_SIZE; size *= 4) {
		PMDL mdl = sr_mdl_chain_build(buf, size, 0);
		int iters = size <= ((SIZE_T)1 << 20) ? 10000 : size <= ((SIZE_T)1 << 26) ? 200 : 20;
		double reg = 0, dereg = 0, t0, t1;

		if (mdl == NULL)
			return 1;
		t0 = now_us();
		for (int i = 0; i < iters; i++) {
			double a = now_us(), b;

			st = mr->Dispatch->NdkRegisterMr(mr, mdl, size,
							 NDK_MR_FLAG_ALLOW_REMOTE_WRITE |
							 NDK_MR_FLAG_ALLOW_REMOTE_READ, NULL, NULL);
			b = now_us();
			if (st != STATUS_SUCCESS ||
			    mr->Dispatch->NdkDeregisterMr(mr, NULL, NULL) != STATUS_SUCCESS) {
				fprintf(stderr, "ndmrlat: %zu bytes: %s\n", size, sr_ntstatus_str(st));
				return 1;
			}
			reg += b - a;
			dereg += now_us() - b;
		}
		t1 = now_us();
		if (rate)
			printf("%12zu %10d %16.0f\n", size, iters, iters / ((t1 - t0) / 1e6));
		else
			printf("%12zu %10d %16.3f %16.3f\n", size, iters, reg / iters, dereg / iters);
		sr_mdl_chain_free(mdl);
	}
	mr->Dispatch->NdkCloseMr(&mr->Header, NULL, NULL);
	pd->Dispatch->NdkClosePd(&pd->Header, NULL, NULL);
	munmap(buf, MAX_SIZE);
	return sr_ndk_close_adapter(ad) == STATUS_SUCCESS ? 0 : 1;
}
