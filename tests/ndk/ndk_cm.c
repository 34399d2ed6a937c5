/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ndk_cm — an NDK (NDKPI) program that faces tests/nd2/nd2_cm over the
 * device's CM: an ND2 program and an NDK one connect to each other, both
 * roles (the two personalities share the CM and its wire, issue 18).
 *
 *   ndk_cm -s [-p PORT]       listen, accept one connection, receive 16
 *                             bytes, send 16 back, wait for the peer's
 *                             disconnection (nd2_cm -c's exchange);
 *   ndk_cm -c ADDR [-p PORT]  connect, send 16 bytes, receive 16,
 *                             disconnect (nd2_cm -s's exchange).
 * The adapter is the device SROCE_CONFIG (or the default link) names.
 * Prints "ndk_cm: PASS" and exits 0 when the exchange happened.
 */
#include <arpa/inet.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sr_ndk.h"

#define MSG 16

static atomic_int done, disconnected;
static NTSTATUS done_st;
static NDK_CONNECTOR *incoming;
static NDK_CQ *cq;

static void on_request(PVOID ctx, NTSTATUS st)
{
	(void)ctx;
	done_st = st;
	atomic_store(&done, 1);
}

static void on_connect(PVOID ctx, NDK_CONNECTOR *c)
{
	(void)ctx;
	incoming = c;
	atomic_store(&done, 1);
}

static void on_disconnect(PVOID ctx)
{
	(void)ctx;
	atomic_store(&disconnected, 1);
}

static void check(NTSTATUS st, const char *what)
{
	if (st != STATUS_SUCCESS && st != STATUS_PENDING) {
		fprintf(stderr, "ndk_cm: %s: %s\n", what, sr_ntstatus_str(st));
		exit(1);
	}
}

static NTSTATUS wait_flag(atomic_int *flag, int seconds)
{
	for (int i = 0; i < seconds * 10000 && !atomic_load(flag); i++)
		usleep(100);
	if (!atomic_load(flag))
		return STATUS_IO_TIMEOUT;
	atomic_store(flag, 0);
	return done_st;
}

/* One completion of the (shared) CQ, within 10 s. */
static NDK_RESULT_EX next(void)
{
	NDK_RESULT_EX r = { .Status = STATUS_IO_TIMEOUT };
	time_t end = time(NULL) + 10;

	while (!cq->Dispatch->NdkGetCqResultsEx(cq, &r, 1) && time(NULL) < end)
		usleep(50);
	return r;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const char *addr = NULL;
	int port = 7471, server = 0;
	char *buf = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
	PMDL mdl = sr_mdl_chain_build(buf, PAGE_SIZE, 0);
	NDK_ADAPTER *ad;
	NDK_PD *pd;
	NDK_QP *qp;
	NDK_MR *mr;
	NDK_CONNECTOR *conn;
	NDK_LISTENER *lis;
	NDK_SGE rsge, ssge;
	NDK_RESULT_EX r;
	NTSTATUS st;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-s") == 0)
			server = 1;
		else if (strcmp(argv[i], "-c") == 0 && i + 1 < argc)
			addr = argv[++i];
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			port = atoi(argv[++i]);
		else
			addr = NULL, server = -1;
	}
	if (server < 0 || (!server && addr == NULL)) {
		fprintf(stderr, "usage: ndk_cm -s [-p PORT] | -c ADDR [-p PORT]\n");
		return 2;
	}
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = server ? INADDR_ANY : inet_addr(addr);
	check(sr_ndk_open_adapter("sroce0", &ad), "open adapter");
	check(ad->Dispatch->NdkCreatePd(ad, NULL, NULL, &pd), "NdkCreatePd");
	check(ad->Dispatch->NdkCreateCq(ad, 16, NULL, NULL, NULL, NULL, NULL, &cq),
	      "NdkCreateCq");
	check(pd->Dispatch->NdkCreateQp(pd, cq, cq, NULL, 4, 4, 1, 1, 0, NULL, NULL, &qp),
	      "NdkCreateQp");
	check(pd->Dispatch->NdkCreateMr(pd, FALSE, NULL, NULL, &mr), "NdkCreateMr");
	check(mr->Dispatch->NdkRegisterMr(mr, mdl, PAGE_SIZE, NDK_MR_FLAG_ALLOW_LOCAL_WRITE,
					  NULL, NULL), "NdkRegisterMr");
	rsge = (NDK_SGE){ .VirtualAddress = buf, .Length = MSG,
			  .MemoryRegionToken = mr->Dispatch->NdkGetLocalTokenFromMr(mr) };
	ssge = rsge;
	ssge.VirtualAddress = buf + MSG;
	snprintf(buf + MSG, MSG, "%s", server ? "ndk server" : "ndk client");
	check(qp->Dispatch->NdkReceive(qp, NULL, &rsge, 1), "NdkReceive");
	if (server) {
		check(ad->Dispatch->NdkCreateListener(ad, on_connect, NULL, NULL, NULL, &lis),
		      "NdkCreateListener");
		check(lis->Dispatch->NdkListen(lis, (PSOCKADDR)&sa, sizeof(sa), NULL, NULL),
		      "NdkListen");
		printf("ndk_cm: listening on port %d\n", port);
		fflush(stdout);
		check(wait_flag(&done, 60), "a connection request");
		conn = incoming;
		check(conn->Dispatch->NdkAccept(conn, qp, 1, 1, NULL, 0, on_disconnect, NULL,
						on_request, NULL), "NdkAccept");
		check(wait_flag(&done, 30), "accept completion");
		printf("ndk_cm: connected\n");
		r = next();
		check(r.Status, "receive");
		if (r.BytesTransferred != MSG) {
			fprintf(stderr, "ndk_cm: received %u bytes, want %d\n",
				(unsigned int)r.BytesTransferred, MSG);
			return 1;
		}
		check(qp->Dispatch->NdkSend(qp, NULL, &ssge, 1, 0), "NdkSend");
		check(next().Status, "send");
		if (wait_flag(&disconnected, 30) == STATUS_IO_TIMEOUT) {
			fprintf(stderr, "ndk_cm: the peer did not disconnect\n");
			return 1;
		}
		printf("ndk_cm: the peer disconnected\n");
	} else {
		check(ad->Dispatch->NdkCreateConnector(ad, NULL, NULL, &conn),
		      "NdkCreateConnector");
		/* the server may not listen yet: its CM refuses (REJ), try again */
		for (int i = 0; i < 150; i++) {
			st = conn->Dispatch->NdkConnect(conn, qp, NULL, 0, (PSOCKADDR)&sa,
							 sizeof(sa), 1, 1, NULL, 0,
							 on_request, NULL);
			if (st == STATUS_PENDING)
				st = wait_flag(&done, 30);
			if (st != STATUS_CONNECTION_REFUSED)
				break;
			usleep(100000);
		}
		check(st, "NdkConnect");
		check(conn->Dispatch->NdkCompleteConnect(conn, on_disconnect, NULL, NULL, NULL),
		      "NdkCompleteConnect");
		printf("ndk_cm: connected to %s:%d\n", addr, port);
		check(qp->Dispatch->NdkSend(qp, NULL, &ssge, 1, 0), "NdkSend");
		for (int k = 0; k < 2; k++) {          /* the send and the reply */
			r = next();
			check(r.Status, "completion");
		}
		st = conn->Dispatch->NdkDisconnect(conn, on_request, NULL);
		if (st == STATUS_PENDING)
			st = wait_flag(&done, 30);
		check(st, "NdkDisconnect");
	}
	printf("ndk_cm: got \"%.*s\"\n", MSG, buf);
	printf("ndk_cm: PASS\n");
	return 0;
}
