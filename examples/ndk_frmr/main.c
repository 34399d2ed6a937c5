/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndk_frmr — NDK fast-register between two sroce nodes (the default memif
 * link, SROCE_NODE=0 and 1, one SROCE_RUN_DIR; connected over the CM).
 *
 * Node 0 listens on 10.0.0.1:5000, fast-registers four pages of a buffer
 * (FBO 512) with remote read and write, and sends the peer the region's
 * address and remote token.  Node 1 reads the region one-sided, checks it,
 * writes a new pattern into it and says "done".  Node 0 checks the
 * pattern, invalidates the MR and sends the token once more: node 1's
 * write through it now fails with STATUS_ACCESS_VIOLATION.
 *
 *   SROCE_NODE=0 ndk_frmr &  SROCE_NODE=1 ndk_frmr
 */
#include <arpa/inet.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sr_ndk.h"

#define PAGES 4
#define FBO 512
#define LEN ((int)(PAGES * PAGE_SIZE - FBO - 100))

struct msg { UINT64 addr; UINT32 token; UINT32 len; char text[16]; };

static atomic_int done;
static NTSTATUS done_st;
static NDK_CONNECTOR *incoming;
static NDK_CQ *cq;

static void on_request(PVOID ctx, NTSTATUS st) { (void)ctx; done_st = st; atomic_store(&done, 1); }
static void on_connect(PVOID ctx, NDK_CONNECTOR *c) { (void)ctx; incoming = c; atomic_store(&done, 1); }

static void check(NTSTATUS st, const char *what)
{
	if (st != STATUS_SUCCESS && st != STATUS_PENDING) {
		fprintf(stderr, "ndk_frmr: %s: %s\n", what, sr_ntstatus_str(st));
		exit(1);
	}
}

static NTSTATUS wait_done(void)
{
	for (int i = 0; i < 300000 && !atomic_load(&done); i++)
		usleep(100);
	atomic_store(&done, 0);
	return done_st;
}

/* Wait for one completion (progressing the node meanwhile). */
static NDK_RESULT_EX next(void)
{
	NDK_RESULT_EX r = { .Status = STATUS_IO_TIMEOUT };
	time_t end = time(NULL) + 10;

	while (!cq->Dispatch->NdkGetCqResultsEx(cq, &r, 1) && time(NULL) < end)
		;
	return r;
}

int main(void)
{
	const char *nodestr = getenv("SROCE_NODE");
	int node = nodestr ? atoi(nodestr) : 0;
	struct sockaddr_in srv = { .sin_family = AF_INET, .sin_port = htons(5000) };
	NDK_ADAPTER *ad;
	NDK_PD *pd;
	NDK_QP *qp;
	NDK_MR *mr, *fr;
	NDK_CONNECTOR *conn;
	NDK_LISTENER *lis = NULL;
	struct msg *m;
	char *buf = aligned_alloc(PAGE_SIZE, 8 * PAGE_SIZE);
	PMDL mdl = sr_mdl_chain_build(buf, 2 * PAGE_SIZE, 0);
	NDK_SGE sge;
	NDK_RESULT_EX r;
	UINT32 lkey;

	srv.sin_addr.s_addr = inet_addr("10.0.0.1");
	check(sr_ndk_open_adapter("sroce0", &ad), "open adapter");
	check(ad->Dispatch->NdkCreatePd(ad, NULL, NULL, &pd), "NdkCreatePd");
	check(ad->Dispatch->NdkCreateCq(ad, 64, NULL, NULL, NULL, NULL, NULL, &cq), "NdkCreateCq");
	check(pd->Dispatch->NdkCreateQp(pd, cq, cq, NULL, 16, 16, 1, 1, 0, NULL, NULL, &qp),
	      "NdkCreateQp");
	/* a message buffer (first two pages), registered from an MDL */
	check(pd->Dispatch->NdkCreateMr(pd, FALSE, NULL, NULL, &mr), "NdkCreateMr");
	check(mr->Dispatch->NdkRegisterMr(mr, mdl, 2 * PAGE_SIZE, NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
					  NULL, NULL), "NdkRegisterMr");
	lkey = mr->Dispatch->NdkGetLocalTokenFromMr(mr);
	m = (struct msg *)buf;
	sge = (NDK_SGE){ .VirtualAddress = m, .Length = sizeof(*m), .MemoryRegionToken = lkey };
	check(qp->Dispatch->NdkReceive(qp, NULL, &sge, 1), "NdkReceive");
	check(ad->Dispatch->NdkCreateConnector(ad, NULL, NULL, &conn), "NdkCreateConnector");

	if (node == 0) {
		char *region = buf + 4 * PAGE_SIZE;
		NDK_LOGICAL_ADDRESS pages[PAGES];

		check(ad->Dispatch->NdkCreateListener(ad, on_connect, NULL, NULL, NULL, &lis),
		      "NdkCreateListener");
		check(lis->Dispatch->NdkListen(lis, (PSOCKADDR)&srv, sizeof(srv), NULL, NULL),
		      "NdkListen");
		printf("node 0: listening on 10.0.0.1:5000\n");
		wait_done();
		check(incoming->Dispatch->NdkAccept(incoming, qp, 4, 4, NULL, 0, NULL, NULL,
						    on_request, NULL), "NdkAccept");
		check(wait_done(), "accept completion");
		for (int i = 0; i < PAGES; i++)
			pages[i].QuadPart = (LONGLONG)(uintptr_t)(region + i * PAGE_SIZE);
		for (int i = 0; i < LEN; i++)
			region[FBO + i] = (char)(i * 7);
		check(pd->Dispatch->NdkCreateMr(pd, TRUE, NULL, NULL, &fr), "NdkCreateMr(fast)");
		check(fr->Dispatch->NdkInitializeFastRegisterMr(fr, PAGES, TRUE, NULL, NULL),
		      "NdkInitializeFastRegisterMr");
		check(qp->Dispatch->NdkFastRegister(qp, NULL, fr, PAGES, pages, FBO, LEN,
						    region + FBO, NDK_OP_FLAG_ALLOW_REMOTE_READ |
						    NDK_OP_FLAG_ALLOW_REMOTE_WRITE |
						    NDK_OP_FLAG_DEFER), "NdkFastRegister");
		/* the remote token is readable right after NdkFastRegister */
		m[1] = (struct msg){ .addr = (uintptr_t)region + FBO, .len = LEN, .text = "region",
				     .token = fr->Dispatch->NdkGetRemoteTokenFromMr(fr) };
		printf("node 0: fast-registered %d pages, FBO %d, %d bytes, token %08x\n", PAGES,
		       FBO, LEN, ntohl(m[1].token));
		sge.VirtualAddress = &m[1];
		check(qp->Dispatch->NdkSend(qp, NULL, &sge, 1, 0), "NdkSend");
		for (int i = 0; i < 2; i++) {  /* fast-register (deferred, then sent) + send */
			r = next();
			check(r.Status, "completion");
		}
		r = next();   /* "done" */
		check(r.Status, "receive");
		for (int i = 0; i < LEN; i++)
			if (region[FBO + i] != (char)(i * 3 + 1)) {
				fprintf(stderr, "node 0: byte %d not written\n", i);
				return 1;
			}
		printf("node 0: peer read the region and wrote %d bytes into it: ok\n", LEN);
		check(qp->Dispatch->NdkInvalidate(qp, NULL, &fr->Header, 0), "NdkInvalidate");
		check(next().Status, "invalidate");
		sge.VirtualAddress = &m[2];
		check(qp->Dispatch->NdkReceive(qp, NULL, &sge, 1), "NdkReceive");
		sge.VirtualAddress = &m[1];
		check(qp->Dispatch->NdkSend(qp, NULL, &sge, 1, 0), "NdkSend");
		check(next().Status, "send");
		printf("node 0: invalidated the MR, sent the old token again\n");
		/* the peer's write through it breaks the connection: our receive is flushed */
		r = next();
		printf("node 0: pending receive: %s\n", sr_ntstatus_str(r.Status));
		if (r.Status != STATUS_CANCELLED)
			return 1;
	} else {
		char *local = buf + 4 * PAGE_SIZE;
		PMDL lm = sr_mdl_chain_build(local, 4 * PAGE_SIZE, 0);
		NDK_MR *lmr;
		NTSTATUS st;

		check(pd->Dispatch->NdkCreateMr(pd, FALSE, NULL, NULL, &lmr), "NdkCreateMr");
		check(lmr->Dispatch->NdkRegisterMr(lmr, lm, 4 * PAGE_SIZE,
						   NDK_MR_FLAG_ALLOW_LOCAL_WRITE, NULL, NULL),
		      "NdkRegisterMr");
		/* node 0 may not listen yet: its CM refuses (REJ), try again */
		for (int i = 0; i < 150; i++) {
			st = conn->Dispatch->NdkConnect(conn, qp, NULL, 0, (PSOCKADDR)&srv,
							 sizeof(srv), 4, 4, NULL, 0, on_request,
							 NULL);
			if (st == STATUS_PENDING)
				st = wait_done();
			if (st != STATUS_CONNECTION_REFUSED)
				break;
			usleep(100000);
		}
		check(st, "NdkConnect");
		check(conn->Dispatch->NdkCompleteConnect(conn, NULL, NULL, NULL, NULL),
		      "NdkCompleteConnect");
		printf("node 1: connected to 10.0.0.1:5000\n");
		r = next();
		check(r.Status, "receive");
		printf("node 1: got %s at %#llx, %u bytes, token %08x\n", m->text,
		       (unsigned long long)m->addr, m->len, ntohl(m->token));
		sge = (NDK_SGE){ .VirtualAddress = local, .Length = m->len,
				 .MemoryRegionToken = lmr->Dispatch->NdkGetLocalTokenFromMr(lmr) };
		check(qp->Dispatch->NdkRead(qp, NULL, &sge, 1, m->addr, m->token, 0), "NdkRead");
		check(next().Status, "read");
		for (UINT32 i = 0; i < m->len; i++)
			if (local[i] != (char)(i * 7)) {
				fprintf(stderr, "node 1: byte %u differs\n", i);
				return 1;
			}
		printf("node 1: read %u bytes one-sided: ok\n", m->len);
		for (UINT32 i = 0; i < m->len; i++)
			local[i] = (char)(i * 3 + 1);
		check(qp->Dispatch->NdkWrite(qp, NULL, &sge, 1, m->addr, m->token, 0), "NdkWrite");
		check(next().Status, "write");
		printf("node 1: wrote %u bytes one-sided\n", m->len);
		sge = (NDK_SGE){ .VirtualAddress = m, .Length = sizeof(*m), .MemoryRegionToken = lkey };
		check(qp->Dispatch->NdkReceive(qp, NULL, &sge, 1), "NdkReceive");
		check(qp->Dispatch->NdkSend(qp, NULL, &sge, 1, 0), "NdkSend(done)");
		check(next().Status, "send");
		r = next();   /* node 0 invalidated: the token is dead */
		check(r.Status, "receive");
		sge = (NDK_SGE){ .VirtualAddress = local, .Length = 64,
				 .MemoryRegionToken = lmr->Dispatch->NdkGetLocalTokenFromMr(lmr) };
		check(qp->Dispatch->NdkWrite(qp, NULL, &sge, 1, m->addr, m->token, 0), "NdkWrite");
		r = next();
		printf("node 1: write after invalidate: %s\n", sr_ntstatus_str(r.Status));
		if (r.Status != STATUS_ACCESS_VIOLATION)
			return 1;
		lmr->Dispatch->NdkCloseMr(&lmr->Header, NULL, NULL);
		sr_mdl_chain_free(lm);
	}
	printf("node %d: PASS\n", node);
	return 0;
}
