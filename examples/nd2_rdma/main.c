/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nd2_rdma — NetworkDirect v2 (IND2*) between two sroce nodes on the
 * default memif link (SROCE_NODE=0 and 1, one SROCE_RUN_DIR).
 *
 * Node 0 opens its adapter by address (NdOpenAdapter 10.0.0.1), registers
 * a region with remote read and write, binds a read-only window over its
 * first half, accepts node 1's connection and sends it the region's
 * address and remote token and the window's token (network order, sent as
 * they are).  Node 1 reads the region and the window one-sided, writes a
 * new pattern into the region and says "done".  Node 0 checks the
 * pattern, shows that the region cannot be deregistered while the window
 * is bound (ND_DEVICE_BUSY), invalidates the window, deregisters and
 * disconnects; node 1 sees the disconnection.
 *
 *   SROCE_NODE=0 nd2_rdma &  SROCE_NODE=1 nd2_rdma
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ndsupport.h"
#include "sr_nd2.h"

#define LEN 65536

struct msg { UINT64 addr; UINT32 token, window, len; char text[12]; };

static IND2CompletionQueue *cq;

static void check(HRESULT hr, const char *what)
{
	if (FAILED(hr)) {
		fprintf(stderr, "nd2_rdma: %s: %#lx\n", what, (unsigned long)(ULONG)hr);
		exit(1);
	}
}

/* Wait for an overlapped request through its object's GetOverlappedResult. */
#define WAIT(obj, ov, hr) ((hr) == ND_PENDING ? (obj)->lpVtbl->GetOverlappedResult((obj), (ov), TRUE) : (hr))

/* The next completion (10 s at most). */
static ND2_RESULT next(void)
{
	ND2_RESULT r = { .Status = ND_IO_TIMEOUT };
	time_t end = time(NULL) + 10;

	while (!cq->lpVtbl->GetResults(cq, &r, 1) && time(NULL) < end)
		;
	return r;
}

static IND2MemoryRegion *reg(IND2Adapter *ad, void *buf, SIZE_T len, ULONG flags)
{
	IND2MemoryRegion *mr;
	OVERLAPPED ov = { 0 };
	HRESULT hr;

	check(ad->lpVtbl->CreateMemoryRegion(ad, &IID_IND2MemoryRegion, NULL, (VOID **)&mr),
	      "CreateMemoryRegion");
	hr = mr->lpVtbl->Register(mr, buf, len, flags, &ov);
	check(WAIT(mr, &ov, hr), "Register");
	return mr;
}

int main(void)
{
	const char *nodestr = getenv("SROCE_NODE");
	int node = nodestr ? atoi(nodestr) : 0;
	struct sockaddr_in me = { .sin_family = AF_INET }, srv = me;
	IND2Adapter *ad;
	IND2QueuePair *qp;
	IND2Connector *conn;
	IND2MemoryRegion *mm, *mr;
	OVERLAPPED ov = { 0 };
	struct msg *m = calloc(2, sizeof(*m));
	char *region = aligned_alloc(4096, LEN);
	ND2_SGE sge;
	ND2_RESULT r;
	HRESULT hr;

	me.sin_addr.s_addr = htonl(0x0a000001 + (uint32_t)node);
	srv.sin_addr.s_addr = htonl(0x0a000001);
	srv.sin_port = htons(5100);
	check(NdStartup(), "NdStartup");
	check(NdOpenAdapter(&IID_IND2Adapter, (struct sockaddr *)&me, sizeof(me), (VOID **)&ad),
	      "NdOpenAdapter");
	check(ad->lpVtbl->CreateCompletionQueue(ad, &IID_IND2CompletionQueue, NULL, 64, 0, 0,
						(VOID **)&cq), "CreateCompletionQueue");
	check(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, (IUnknown *)cq, (IUnknown *)cq,
					  NULL, 16, 16, 1, 1, 0, (VOID **)&qp), "CreateQueuePair");
	check(ad->lpVtbl->CreateConnector(ad, &IID_IND2Connector, NULL, (VOID **)&conn),
	      "CreateConnector");
	mm = reg(ad, m, 2 * sizeof(*m), ND_MR_FLAG_ALLOW_LOCAL_WRITE);
	sge = (ND2_SGE){ .Buffer = m, .BufferLength = sizeof(*m),
			 .MemoryRegionToken = mm->lpVtbl->GetLocalToken(mm) };
	check(qp->lpVtbl->Receive(qp, NULL, &sge, 1), "Receive");

	if (node == 0) {
		IND2Listener *lis;
		IND2MemoryWindow *mw;
		OVERLAPPED nov = { 0 };

		for (int i = 0; i < LEN; i++)
			region[i] = (char)(i * 7);
		mr = reg(ad, region, LEN, ND_MR_FLAG_ALLOW_REMOTE_READ | ND_MR_FLAG_ALLOW_REMOTE_WRITE);
		check(ad->lpVtbl->CreateListener(ad, &IID_IND2Listener, NULL, (VOID **)&lis),
		      "CreateListener");
		check(lis->lpVtbl->Bind(lis, (struct sockaddr *)&srv, sizeof(srv)), "Listener::Bind");
		check(lis->lpVtbl->Listen(lis, 0), "Listen");
		printf("node 0: listening on 10.0.0.1:5100\n");
		hr = lis->lpVtbl->GetConnectionRequest(lis, (IUnknown *)conn, &ov);
		check(WAIT(lis, &ov, hr), "GetConnectionRequest");
		hr = conn->lpVtbl->Accept(conn, (IUnknown *)qp, 4, 4, NULL, 0, &ov);
		check(WAIT(conn, &ov, hr), "Accept");
		check(ad->lpVtbl->CreateMemoryWindow(ad, &IID_IND2MemoryWindow, (VOID **)&mw),
		      "CreateMemoryWindow");
		check(qp->lpVtbl->Bind(qp, NULL, (IUnknown *)mr, (IUnknown *)mw, region, LEN / 2,
				       ND_OP_FLAG_ALLOW_READ), "Bind");
		check(next().Status, "Bind completion");
		m[1] = (struct msg){ .addr = (uintptr_t)region, .len = LEN, .text = "region",
				     .token = mr->lpVtbl->GetRemoteToken(mr),
				     .window = mw->lpVtbl->GetRemoteToken(mw) };
		printf("node 0: registered %d bytes, remote token %08x, window token %08x\n", LEN,
		       ntohl(m[1].token), ntohl(m[1].window));
		sge.Buffer = &m[1];
		check(qp->lpVtbl->Send(qp, NULL, &sge, 1, 0), "Send");
		check(next().Status, "Send completion");
		/* wait for "done" through a CQ notification */
		hr = cq->lpVtbl->Notify(cq, ND_CQ_NOTIFY_ANY, &nov);
		if (!cq->lpVtbl->GetResults(cq, &r, 1)) {
			check(WAIT(cq, &nov, hr), "Notify");
			r = next();
		}
		check(r.Status, "Receive(done)");
		for (int i = 0; i < LEN; i++)
			if (region[i] != (char)(i * 3 + 1)) {
				fprintf(stderr, "node 0: byte %d not written\n", i);
				return 1;
			}
		printf("node 0: peer read the region and the window and wrote %d bytes: ok\n", LEN);
		hr = mr->lpVtbl->Deregister(mr, &ov);
		hr = WAIT(mr, &ov, hr);
		printf("node 0: Deregister with the window bound: %s\n",
		       hr == ND_DEVICE_BUSY ? "ND_DEVICE_BUSY" : "unexpected");
		if (hr != ND_DEVICE_BUSY)
			return 1;
		check(qp->lpVtbl->Invalidate(qp, NULL, (IUnknown *)mw, 0), "Invalidate");
		check(next().Status, "Invalidate completion");
		hr = mr->lpVtbl->Deregister(mr, &ov);
		check(WAIT(mr, &ov, hr), "Deregister");
		printf("node 0: window invalidated, region deregistered\n");
		check(conn->lpVtbl->Disconnect(conn, &ov), "Disconnect");
		mw->lpVtbl->Release(mw);
		lis->lpVtbl->Release(lis);
	} else {
		char *local = region;

		mr = reg(ad, local, LEN, ND_MR_FLAG_ALLOW_LOCAL_WRITE);
		/* node 0 may not listen yet: its CM refuses (REJ), try again */
		for (int i = 0; i < 150; i++) {
			hr = conn->lpVtbl->Connect(conn, (IUnknown *)qp, (struct sockaddr *)&srv,
						   sizeof(srv), 4, 4, NULL, 0, &ov);
			hr = WAIT(conn, &ov, hr);
			if (hr != ND_CONNECTION_REFUSED)
				break;
			usleep(100000);
		}
		check(hr, "Connect");
		check(conn->lpVtbl->CompleteConnect(conn, &ov), "CompleteConnect");
		printf("node 1: connected to 10.0.0.1:5100\n");
		r = next();
		check(r.Status, "Receive");
		printf("node 1: got %s at %#llx, %u bytes, token %08x, window %08x\n", m->text,
		       (unsigned long long)m->addr, m->len, ntohl(m->token), ntohl(m->window));
		sge = (ND2_SGE){ .Buffer = local, .BufferLength = m->len,
				 .MemoryRegionToken = mr->lpVtbl->GetLocalToken(mr) };
		check(qp->lpVtbl->Read(qp, NULL, &sge, 1, m->addr, m->token, 0), "Read");
		check(next().Status, "Read completion");
		for (UINT32 i = 0; i < m->len; i++)
			if (local[i] != (char)(i * 7)) {
				fprintf(stderr, "node 1: byte %u differs\n", i);
				return 1;
			}
		memset(local, 0, LEN / 2);
		sge.BufferLength = LEN / 2;
		check(qp->lpVtbl->Read(qp, NULL, &sge, 1, m->addr, m->window, 0), "Read(window)");
		check(next().Status, "Read(window) completion");
		for (UINT32 i = 0; i < LEN / 2; i++)
			if (local[i] != (char)(i * 7))
				return 1;
		printf("node 1: read %u bytes through the token and %d through the window: ok\n",
		       m->len, LEN / 2);
		for (UINT32 i = 0; i < m->len; i++)
			local[i] = (char)(i * 3 + 1);
		sge.BufferLength = m->len;
		check(qp->lpVtbl->Write(qp, NULL, &sge, 1, m->addr, m->token, 0), "Write");
		check(next().Status, "Write completion");
		printf("node 1: wrote %u bytes one-sided\n", m->len);
		hr = conn->lpVtbl->NotifyDisconnect(conn, &ov);
		check(hr, "NotifyDisconnect");
		sge = (ND2_SGE){ .Buffer = m, .BufferLength = 4,
				 .MemoryRegionToken = mm->lpVtbl->GetLocalToken(mm) };
		check(qp->lpVtbl->Send(qp, NULL, &sge, 1, 0), "Send(done)");
		check(WAIT(conn, &ov, hr), "NotifyDisconnect completion");
		printf("node 1: the peer disconnected\n");
		/* node 0 got "done"; its ACK may have lost the race with the disconnection */
		r = next();
		if (r.Status != ND_SUCCESS && r.Status != ND_CANCELED)
			check(r.Status, "Send completion");
		hr = mr->lpVtbl->Deregister(mr, &ov);
		check(WAIT(mr, &ov, hr), "Deregister");
	}
	mr->lpVtbl->Release(mr);
	hr = mm->lpVtbl->Deregister(mm, &ov);
	check(WAIT(mm, &ov, hr), "Deregister");
	mm->lpVtbl->Release(mm);
	conn->lpVtbl->Release(conn);
	qp->lpVtbl->Release(qp);
	cq->lpVtbl->Release(cq);
	if (ad->lpVtbl->Release(ad) != 0)
		return 1;
	NdCleanup();
	printf("node %d: PASS\n", node);
	return 0;
}
