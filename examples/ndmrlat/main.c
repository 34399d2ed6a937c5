/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndmrlat — memory registration latency and rate, in the spirit of
 * NetworkDirect's ndmrlat / ndmrrate, through the NDK interface:
 *
 *   ndmrlat          µs per NdkRegisterMr and per NdkDeregisterMr by size
 *                    (one MR object, registered and deregistered in turn)
 *   ndmrlat --rate   registrations (+ deregistrations) per second by size
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

#include "sr_ndk.h"

#define MAX_SIZE ((SIZE_T)1 << 30)

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int rate = argc > 1 && strcmp(argv[1], "--rate") == 0;
	NDK_ADAPTER *ad;
	NDK_PD *pd;
	NDK_MR *mr;
	char *buf;
	NTSTATUS st;

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
