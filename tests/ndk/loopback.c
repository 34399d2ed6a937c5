/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loopback.c — an NDK connection to the adapter's own address, alone on
 * the default link (no other node): NdkConnect / NdkAccept complete, a
 * SEND crosses, exit 0 and "PASS".  The adapter advertises loopback
 * connections, so they must not wait for a peer on the link (they timed
 * out after 15 s with STATUS_IO_TIMEOUT).
 */
#include <arpa/inet.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sr_ndk.h"

static atomic_int n_done;
static NTSTATUS last_st = STATUS_PENDING;
static NDK_CONNECTOR *incoming;

static void on_request(PVOID ctx, NTSTATUS st)
{
	(void)ctx;
	if (st != STATUS_SUCCESS)
		last_st = st;
	atomic_fetch_add(&n_done, 1);
}

static void on_connect(PVOID ctx, NDK_CONNECTOR *c)
{
	(void)ctx;
	incoming = c;
}

static int fail(const char *what, NTSTATUS st)
{
	fprintf(stderr, "ndk loopback: %s: %s\n", what, sr_ntstatus_str(st));
	return 1;
}

#define CHECK(call, what) do {                                              \
	NTSTATUS st_ = (call);                                              \
	if (st_ != STATUS_SUCCESS && st_ != STATUS_PENDING)                 \
		return fail(what, st_);                                     \
} while (0)

/* Wait (up to 10 s) until cond holds. */
#define WAIT(cond) do {                                                     \
	time_t end_ = time(NULL) + 10;                                      \
	while (!(cond) && time(NULL) < end_)                                \
		usleep(100);                                                \
} while (0)

int main(void)
{
	struct sockaddr_in self = { .sin_family = AF_INET, .sin_port = htons(5001) };
	NDK_ADAPTER *ad;
	NDK_PD *pd;
	NDK_CQ *cq;
	NDK_QP *qa, *qb;
	NDK_MR *mr;
	NDK_CONNECTOR *conn;
	NDK_LISTENER *lis;
	NDK_RESULT_EX r[2];
	char *buf = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
	PMDL mdl = sr_mdl_chain_build(buf, PAGE_SIZE, 0);
	NDK_SGE sa, sb;
	ULONG got = 0;

	self.sin_addr.s_addr = inet_addr("10.0.0.1");     /* node 0's address */
	CHECK(sr_ndk_open_adapter("sroce0", &ad), "open adapter");
	CHECK(ad->Dispatch->NdkCreatePd(ad, NULL, NULL, &pd), "NdkCreatePd");
	CHECK(ad->Dispatch->NdkCreateCq(ad, 64, NULL, NULL, NULL, NULL, NULL, &cq),
	      "NdkCreateCq");
	CHECK(pd->Dispatch->NdkCreateQp(pd, cq, cq, NULL, 4, 4, 1, 1, 0, NULL, NULL, &qa),
	      "NdkCreateQp");
	CHECK(pd->Dispatch->NdkCreateQp(pd, cq, cq, NULL, 4, 4, 1, 1, 0, NULL, NULL, &qb),
	      "NdkCreateQp");
	CHECK(pd->Dispatch->NdkCreateMr(pd, FALSE, NULL, NULL, &mr), "NdkCreateMr");
	CHECK(mr->Dispatch->NdkRegisterMr(mr, mdl, PAGE_SIZE, NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
					  NULL, NULL), "NdkRegisterMr");
	sa = (NDK_SGE){ .VirtualAddress = buf, .Length = 16,
			.MemoryRegionToken = mr->Dispatch->NdkGetLocalTokenFromMr(mr) };
	sb = sa;
	sb.VirtualAddress = buf + 64;
	CHECK(qb->Dispatch->NdkReceive(qb, (PVOID)2, &sb, 1), "NdkReceive");

	CHECK(ad->Dispatch->NdkCreateListener(ad, on_connect, NULL, NULL, NULL, &lis),
	      "NdkCreateListener");
	CHECK(lis->Dispatch->NdkListen(lis, (PSOCKADDR)&self, sizeof(self), NULL, NULL),
	      "NdkListen");
	CHECK(ad->Dispatch->NdkCreateConnector(ad, NULL, NULL, &conn), "NdkCreateConnector");
	CHECK(conn->Dispatch->NdkConnect(conn, qa, NULL, 0, (PSOCKADDR)&self, sizeof(self),
					 4, 4, NULL, 0, on_request, NULL), "NdkConnect");
	WAIT(incoming != NULL);
	if (incoming == NULL)
		return fail("no connect request", STATUS_IO_TIMEOUT);
	CHECK(incoming->Dispatch->NdkAccept(incoming, qb, 4, 4, NULL, 0, NULL, NULL,
					    on_request, NULL), "NdkAccept");
	/* the connect completes; then NdkCompleteConnect completes the accept */
	WAIT(atomic_load(&n_done) >= 1 || last_st != STATUS_PENDING);
	if (atomic_load(&n_done) < 1 || last_st != STATUS_PENDING)
		return fail("connect", last_st == STATUS_PENDING ? STATUS_IO_TIMEOUT : last_st);
	CHECK(conn->Dispatch->NdkCompleteConnect(conn, NULL, NULL, NULL, NULL),
	      "NdkCompleteConnect");
	WAIT(atomic_load(&n_done) >= 2 || last_st != STATUS_PENDING);
	if (atomic_load(&n_done) < 2 || last_st != STATUS_PENDING)
		return fail("accept", last_st == STATUS_PENDING ? STATUS_IO_TIMEOUT : last_st);
	printf("ndk loopback: connected to 10.0.0.1:5001, our own address\n");

	strcpy(buf, "to myself");
	CHECK(qa->Dispatch->NdkSend(qa, (PVOID)1, &sa, 1, 0), "NdkSend");
	WAIT((got += cq->Dispatch->NdkGetCqResultsEx(cq, r + got, 2 - got)) >= 2);
	if (got < 2)
		return fail("completions", STATUS_IO_TIMEOUT);
	for (ULONG i = 0; i < got; i++)
		if (r[i].Status != STATUS_SUCCESS)
			return fail("completion", r[i].Status);
	if (strcmp(buf + 64, "to myself") != 0)
		return fail("the SEND's bytes", STATUS_DATA_OVERRUN);
	printf("ndk loopback: SEND to our own QP: ok\nPASS\n");
	return 0;
}
