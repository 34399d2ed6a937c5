/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nd2_cm — IND2Connector / IND2Listener over the device's CM (QP1).
 *
 *   nd2_cm --pair [N]      two sroce processes (node N, else SROCE_NODE:
 *                          0 listens on 10.0.0.1, 1 connects; tests/ndk/pair.sh):
 *     1. a connection with private data both ways: 40 bytes in the REQ
 *        (the listener reads the REQ's whole 56-byte field, the rest
 *        zero), 196 in the REP (MaxCalleeData); one SEND each way on it;
 *     2. a request rejected with 148 bytes of private data: Connect
 *        fails ND_CONNECTION_REFUSED, GetPrivateData returns them;
 *     3. a port nobody listens on: refused (the CM's REJ);
 *     4. a listener nobody accepts on: refused when it is released;
 *     then node 0 disconnects and node 1 sees it.
 *   nd2_cm -s [-p PORT]    a server for Linux's rdma_client: takes one
 *                          connection, receives 16 bytes, sends 16 back,
 *                          waits for the client's disconnection;
 *   nd2_cm -c ADDR [-p PORT]  a client for Linux's rdma_server: connects,
 *                          sends 16 bytes, receives 16, disconnects.
 * The adapter is the device SROCE_CONFIG (or the default link) names.
 * Prints PASS and exits 0 when every check holds.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ndsupport.h"
#include "sr_nd2.h"

#define MSG 16

static IND2Adapter *ad;
static IND2CompletionQueue *cq;
static IND2MemoryRegion *mr;
static char *buf;       /* [0, MSG) receive, [MSG, 2 MSG) send */

static void check(HRESULT hr, const char *what)
{
	if (FAILED(hr)) {
		fprintf(stderr, "nd2_cm: %s: %#lx\n", what, (unsigned long)(ULONG)hr);
		exit(1);
	}
}

static void expect(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "nd2_cm: %s\n", what);
		exit(1);
	}
	printf("nd2_cm: %s: ok\n", what);
	fflush(stdout);
}

#define WAIT(obj, ov, hr) \
	((hr) == ND_PENDING ? (obj)->lpVtbl->GetOverlappedResult((obj), (ov), TRUE) : (hr))

/* The next completion (20 s at most: the lab's guest is slow). */
static ND2_RESULT next(void)
{
	ND2_RESULT r = { .Status = ND_IO_TIMEOUT };
	time_t end = time(NULL) + 20;

	while (!cq->lpVtbl->GetResults(cq, &r, 1) && time(NULL) < end)
		usleep(50);
	return r;
}

static IND2QueuePair *new_qp(void)
{
	IND2QueuePair *qp;

	check(ad->lpVtbl->CreateQueuePair(ad, &IID_IND2QueuePair, (IUnknown *)cq,
					  (IUnknown *)cq, NULL, 4, 4, 1, 1, 0, (VOID **)&qp),
	      "CreateQueuePair");
	return qp;
}

static IND2Connector *new_conn(void)
{
	IND2Connector *c;

	check(ad->lpVtbl->CreateConnector(ad, &IID_IND2Connector, NULL, (VOID **)&c),
	      "CreateConnector");
	return c;
}

static void post_recv(IND2QueuePair *qp)
{
	ND2_SGE sge = { .Buffer = buf, .BufferLength = MSG,
			.MemoryRegionToken = mr->lpVtbl->GetLocalToken(mr) };

	check(qp->lpVtbl->Receive(qp, (VOID *)1, &sge, 1), "Receive");
}

static void send_msg(IND2QueuePair *qp, const char *text)
{
	ND2_SGE sge = { .Buffer = buf + MSG, .BufferLength = MSG,
			.MemoryRegionToken = mr->lpVtbl->GetLocalToken(mr) };

	memset(buf + MSG, 0, MSG);
	strncpy(buf + MSG, text, MSG - 1);
	check(qp->lpVtbl->Send(qp, (VOID *)2, &sge, 1, 0), "Send");
}

/* Wait for the send and the receive (either order); 0 if both succeed. */
static int wait_both(void)
{
	int got = 0;

	for (int i = 0; i < 2; i++) {
		ND2_RESULT r = next();

		if (r.Status != ND_SUCCESS) {
			fprintf(stderr, "nd2_cm: completion %d: %#lx\n", i,
				(unsigned long)(ULONG)r.Status);
			return -1;
		}
		if (r.RequestType == Nd2RequestTypeReceive && r.BytesTransferred != MSG) {
			fprintf(stderr, "nd2_cm: received %u bytes\n", r.BytesTransferred);
			return -1;
		}
		got |= r.RequestType == Nd2RequestTypeReceive ? 1 : 2;
	}
	return got == 3 ? 0 : -1;
}

static ND2_RESULT wait_recv(void)
{
	ND2_RESULT r = next();

	check(r.Status, "receive completion");
	return r;
}

static void addr_of(struct sockaddr_in *sa, const char *ip, int port)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, ip, &sa->sin_addr) != 1) {
		fprintf(stderr, "nd2_cm: bad address %s\n", ip);
		exit(2);
	}
}

static IND2Listener *listen_on(int port)
{
	struct sockaddr_in sa;
	IND2Listener *l;

	addr_of(&sa, "0.0.0.0", port);
	check(ad->lpVtbl->CreateListener(ad, &IID_IND2Listener, NULL, (VOID **)&l),
	      "CreateListener");
	check(l->lpVtbl->Bind(l, (struct sockaddr *)&sa, sizeof(sa)), "Listener::Bind");
	check(l->lpVtbl->Listen(l, 0), "Listen");
	return l;
}

/* Connect c with qp; the overlapped result. */
static HRESULT connect_to(IND2Connector *c, IND2QueuePair *qp, const char *ip, int port,
			  const void *pd, ULONG len)
{
	struct sockaddr_in sa;
	OVERLAPPED ov = { 0 };
	HRESULT hr;

	addr_of(&sa, ip, port);
	hr = c->lpVtbl->Connect(c, (IUnknown *)qp, (struct sockaddr *)&sa, sizeof(sa), 1, 1,
				pd, len, &ov);
	return WAIT(c, &ov, hr);
}

static int pattern_ok(const unsigned char *p, ULONG len, ULONG want, unsigned int mul,
		      unsigned int add, ULONG set)
{
	if (len != want)
		return 0;
	for (ULONG i = 0; i < len; i++)
		if (p[i] != (i < set ? (unsigned char)(i * mul + add) : 0))
			return 0;
	return 1;
}

static void fill(unsigned char *p, ULONG len, unsigned int mul, unsigned int add)
{
	for (ULONG i = 0; i < len; i++)
		p[i] = (unsigned char)(i * mul + add);
}

/* ---- the two sroce processes ---- */

static int pair_server(void)
{
	IND2Listener *l = listen_on(5200), *l2 = listen_on(5201);
	IND2Connector *c1 = new_conn(), *c2 = new_conn();
	IND2QueuePair *qp = new_qp();
	OVERLAPPED ov = { 0 };
	unsigned char pd[256];
	ULONG len = sizeof(pd);
	HRESULT hr;

	printf("nd2_cm: node 0 listening on ports 5200 and 5201 (never accepted)\n");
	fflush(stdout);
	/* 1: private data both ways */
	hr = l->lpVtbl->GetConnectionRequest(l, (IUnknown *)c1, &ov);
	check(WAIT(l, &ov, hr), "GetConnectionRequest 1");
	check(c1->lpVtbl->GetPrivateData(c1, pd, &len), "GetPrivateData (REQ)");
	expect(pattern_ok(pd, len, 56, 3, 1, 40),
	       "the REQ's private data: 40 bytes sent, 56 read, the rest zero");
	post_recv(qp);
	fill(pd, 196, 5, 2);
	hr = c1->lpVtbl->Accept(c1, (IUnknown *)qp, 1, 1, pd, 196, &ov);
	check(WAIT(c1, &ov, hr), "Accept");
	/* 2: a reject with private data */
	hr = l->lpVtbl->GetConnectionRequest(l, (IUnknown *)c2, &ov);
	check(WAIT(l, &ov, hr), "GetConnectionRequest 2");
	len = sizeof(pd);
	check(c2->lpVtbl->GetPrivateData(c2, pd, &len), "GetPrivateData (REQ 2)");
	expect(len == 56 && memcmp(pd, "reject me", 10) == 0, "the second REQ's private data");
	fill(pd, 148, 7, 3);
	check(c2->lpVtbl->Reject(c2, pd, 148), "Reject");
	/* 4: the client's request to 5201 waits; it says so on the connection */
	wait_recv();
	expect(strcmp(buf, "pending") == 0, "the client's request to 5201 is out");
	post_recv(qp);
	usleep(300000);
	l2->lpVtbl->Release(l2);        /* refuses what waits on it */
	wait_recv();
	expect(strcmp(buf, "bye") == 0, "the client's last message");
	send_msg(qp, "bye too");
	check(next().Status, "send completion");
	hr = c1->lpVtbl->Disconnect(c1, &ov);
	check(WAIT(c1, &ov, hr), "Disconnect");
	c2->lpVtbl->Release(c2);
	c1->lpVtbl->Release(c1);
	qp->lpVtbl->Release(qp);
	l->lpVtbl->Release(l);
	return 0;
}

static int pair_client(void)
{
	const char *srv = "10.0.0.1";
	IND2Connector *c1 = new_conn(), *c2 = new_conn(), *c3 = new_conn(), *c4 = new_conn();
	IND2QueuePair *qp = new_qp(), *q2 = new_qp();
	OVERLAPPED ov = { 0 }, dov = { 0 }, cov = { 0 };
	unsigned char pd[256];
	ULONG len = sizeof(pd);
	struct sockaddr_in sa;
	HRESULT hr = ND_CONNECTION_REFUSED;

	post_recv(qp);
	fill(pd, 40, 3, 1);
	/* node 0 may not listen yet: its CM refuses, try again */
	for (int i = 0; i < 150 && hr == ND_CONNECTION_REFUSED; i++) {
		if (i)
			usleep(100000);
		hr = connect_to(c1, qp, srv, 5200, pd, 40);
	}
	check(hr, "Connect 1");
	check(c1->lpVtbl->GetPrivateData(c1, pd, &len), "GetPrivateData (REP)");
	expect(pattern_ok(pd, len, 196, 5, 2, 196), "the REP's 196 bytes of private data");
	hr = c1->lpVtbl->CompleteConnect(c1, &ov);
	check(WAIT(c1, &ov, hr), "CompleteConnect");
	/* 2: rejected with private data */
	hr = connect_to(c2, q2, srv, 5200, "reject me", 10);
	expect(hr == ND_CONNECTION_REFUSED, "a rejected Connect fails ND_CONNECTION_REFUSED");
	len = sizeof(pd);
	check(c2->lpVtbl->GetPrivateData(c2, pd, &len), "GetPrivateData (REJ)");
	expect(pattern_ok(pd, len, 148, 7, 3, 148), "the REJ's 148 bytes of private data");
	/* 3: nobody listens */
	hr = connect_to(c3, q2, srv, 5202, NULL, 0);
	expect(hr == ND_CONNECTION_REFUSED, "a port nobody listens on refuses (REJ)");
	/* 4: nobody accepts: refused when the listener goes */
	addr_of(&sa, srv, 5201);
	hr = c4->lpVtbl->Connect(c4, (IUnknown *)q2, (struct sockaddr *)&sa, sizeof(sa), 0, 0,
				 NULL, 0, &cov);
	expect(hr == ND_PENDING, "a request to a listener nobody accepts on waits");
	send_msg(qp, "pending");
	check(next().Status, "send completion");
	hr = WAIT(c4, &cov, hr);
	expect(hr == ND_CONNECTION_REFUSED, "it is refused when the listener is released");
	/* the end: node 0 disconnects */
	hr = c1->lpVtbl->NotifyDisconnect(c1, &dov);
	expect(hr == ND_PENDING, "NotifyDisconnect waits");
	send_msg(qp, "bye");
	check(wait_both(), "bye / bye too");
	expect(strcmp(buf, "bye too") == 0, "node 0's answer");
	check(WAIT(c1, &dov, hr), "NotifyDisconnect completion");
	printf("nd2_cm: node 0 disconnected\n");
	c4->lpVtbl->Release(c4);
	c3->lpVtbl->Release(c3);
	c2->lpVtbl->Release(c2);
	c1->lpVtbl->Release(c1);
	q2->lpVtbl->Release(q2);
	qp->lpVtbl->Release(qp);
	return 0;
}

/* ---- against Linux's rdma_client / rdma_server ---- */

static int server(int port)
{
	IND2Listener *l = listen_on(port);
	IND2Connector *c = new_conn();
	IND2QueuePair *qp = new_qp();
	OVERLAPPED ov = { 0 }, dov = { 0 };
	HRESULT hr;
	ND2_RESULT r;

	printf("nd2_cm: listening on port %d\n", port);
	fflush(stdout);
	hr = l->lpVtbl->GetConnectionRequest(l, (IUnknown *)c, &ov);
	check(WAIT(l, &ov, hr), "GetConnectionRequest");
	post_recv(qp);
	hr = c->lpVtbl->Accept(c, (IUnknown *)qp, 1, 1, NULL, 0, &ov);
	check(WAIT(c, &ov, hr), "Accept");
	printf("nd2_cm: connected\n");
	hr = c->lpVtbl->NotifyDisconnect(c, &dov);
	r = wait_recv();
	expect(r.BytesTransferred == MSG, "received the client's 16 bytes");
	send_msg(qp, "nd2 server");
	check(next().Status, "send completion");
	check(WAIT(c, &dov, hr), "the client's disconnection");
	printf("nd2_cm: the client disconnected\n");
	c->lpVtbl->Release(c);
	qp->lpVtbl->Release(qp);
	l->lpVtbl->Release(l);
	return 0;
}

static int client(const char *ip, int port)
{
	IND2Connector *c = new_conn();
	IND2QueuePair *qp = new_qp();
	OVERLAPPED ov = { 0 };
	HRESULT hr;

	post_recv(qp);
	check(connect_to(c, qp, ip, port, NULL, 0), "Connect");
	hr = c->lpVtbl->CompleteConnect(c, &ov);
	check(WAIT(c, &ov, hr), "CompleteConnect");
	printf("nd2_cm: connected to %s:%d\n", ip, port);
	send_msg(qp, "nd2 client");
	expect(wait_both() == 0, "sent 16 bytes, received 16");
	hr = c->lpVtbl->Disconnect(c, &ov);
	check(WAIT(c, &ov, hr), "Disconnect");
	c->lpVtbl->Release(c);
	qp->lpVtbl->Release(qp);
	return 0;
}

int main(int argc, char **argv)
{
	const char *node = getenv("SROCE_NODE");
	int port = 7471, rc, mode = 0;   /* rdma_server's default port */
	const char *peer = NULL;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pair") == 0) {
			mode = 'P';
			if (i + 1 < argc && argv[i + 1][0] != '-')
				node = argv[++i];
		}
		else if (strcmp(argv[i], "-s") == 0)
			mode = 's';
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			mode = 'c', peer = argv[++i];
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			port = atoi(argv[++i]);
		else
			mode = 0, i = argc;
	}
	if (mode == 0) {
		fprintf(stderr, "usage: nd2_cm --pair [NODE] | -s [-p PORT] | -c ADDR [-p PORT]\n");
		return 2;
	}
	buf = aligned_alloc(64, 2 * MSG);
	check(NdStartup(), "NdStartup");
	check(sr_nd2_open_adapter("sroce0", &IID_IND2Adapter, (VOID **)&ad), "open adapter");
	check(ad->lpVtbl->CreateCompletionQueue(ad, &IID_IND2CompletionQueue, NULL, 64, 0, 0,
						(VOID **)&cq), "CreateCompletionQueue");
	check(ad->lpVtbl->CreateMemoryRegion(ad, &IID_IND2MemoryRegion, NULL, (VOID **)&mr),
	      "CreateMemoryRegion");
	{
		OVERLAPPED ov = { 0 };
		HRESULT hr = mr->lpVtbl->Register(mr, buf, 2 * MSG,
						  ND_MR_FLAG_ALLOW_LOCAL_WRITE, &ov);

		check(WAIT(mr, &ov, hr), "Register");
	}
	if (mode == 'P')
		rc = node && atoi(node) == 1 ? pair_client() : pair_server();
	else if (mode == 's')
		rc = server(port);
	else
		rc = client(peer, port);
	{
		OVERLAPPED ov = { 0 };
		HRESULT hr = mr->lpVtbl->Deregister(mr, &ov);

		check(WAIT(mr, &ov, hr), "Deregister");
	}
	mr->lpVtbl->Release(mr);
	cq->lpVtbl->Release(cq);
	if (ad->lpVtbl->Release(ad) != 0) {
		fprintf(stderr, "nd2_cm: objects left on the adapter\n");
		return 1;
	}
	NdCleanup();
	if (rc == 0)
		printf("nd2_cm: PASS\n");
	return rc;
}
