/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cm_api — the librdmacm API's edges between two processes on the default
 * link (cm_api.sh runs "server" on node 0 and "client" on node 1):
 *   - bad arguments give the documented errors, not crashes;
 *   - a REQ for a port nobody listens on is rejected (reason 8, invalid
 *     service ID) at once;
 *   - a REJ carries the consumer's private data (reason 28);
 *   - REQ and REP private data arrive whole; 57 bytes in a REQ: EINVAL;
 *   - a non-blocking channel says EAGAIN when empty; its fd polls;
 *   - disconnection reaches both sides; a second listener on a port:
 *     EADDRINUSE;
 *   - a QP destroyed with ibv_destroy_qp while its id is connected (as
 *     rping does): the id forgets it, disconnecting does not touch it.
 * Prints "ok: <what>" per check; exits 1 at the first failure.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/rdma_cma.h>

#define PORT_REJ     7471
#define PORT_OK      7472
#define PORT_NOBODY  7479

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                     \
			fprintf(stderr, " (errno %d %s)\n", errno,        \
				strerror(errno));                         \
			exit(1);                                          \
		}                                                         \
	} while (0)

static struct rdma_event_channel *ch;

static struct rdma_cm_event *wait_event(enum rdma_cm_event_type want,
					int timeout_ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	CHECK(poll(&p, 1, timeout_ms) == 1, "no event within %d ms (want %s)",
	      timeout_ms, rdma_event_str(want));
	CHECK(rdma_get_cm_event(ch, &ev) == 0, "rdma_get_cm_event");
	CHECK(ev->event == want, "event %s (status %d), want %s",
	      rdma_event_str(ev->event), ev->status, rdma_event_str(want));
	return ev;
}

static void addr4(struct sockaddr_in *a, const char *ip, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	inet_pton(AF_INET, ip, &a->sin_addr);
}

static struct rdma_cm_id *listener(int port)
{
	struct rdma_cm_id *id;
	struct sockaddr_in a;

	CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	addr4(&a, "0.0.0.0", port);
	CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == 0, "bind %d", port);
	CHECK(rdma_listen(id, 4) == 0, "listen %d", port);
	return id;
}

static void bad_arguments(void)
{
	struct rdma_cm_id *id, *l1, *l2;
	struct sockaddr_in a;
	uint8_t tos = 0;
	int one = 1;

	errno = 0;
	CHECK(rdma_create_id(ch, NULL, NULL, RDMA_PS_TCP) == -1 && errno == EINVAL,
	      "create_id(NULL)");
	CHECK(rdma_create_id(ch, &id, NULL, (enum rdma_port_space)0x4242) == -1 &&
	      errno == EINVAL, "create_id(bad ps)");
	CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	CHECK(rdma_listen(id, 1) == -1 && errno == EINVAL, "listen unbound");
	CHECK(rdma_accept(id, NULL) == -1 && errno == EINVAL, "accept no request");
	CHECK(rdma_connect(id, NULL) == -1 && errno == EINVAL, "connect unresolved");
	CHECK(rdma_disconnect(id) == -1 && errno == EINVAL, "disconnect idle");
	addr4(&a, "192.0.2.7", 0);             /* not ours */
	CHECK(rdma_bind_addr(id, (struct sockaddr *)&a) == -1 &&
	      errno == EADDRNOTAVAIL, "bind foreign address");
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, 4) == -1 &&
	      errno == EINVAL, "set_option bad length");
	CHECK(rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &one,
			      sizeof(one)) == 0, "set_option reuseaddr");
	CHECK(rdma_destroy_id(id) == 0, "destroy");
	CHECK(rdma_destroy_id(NULL) == -1 && errno == EINVAL, "destroy(NULL)");
	CHECK(rdma_get_cm_event(NULL, NULL) == -1 && errno == EINVAL, "get_cm_event(NULL)");
	l1 = listener(PORT_NOBODY + 10);
	CHECK(rdma_create_id(ch, &l2, NULL, RDMA_PS_TCP) == 0, "create_id");
	addr4(&a, "0.0.0.0", PORT_NOBODY + 10);
	CHECK(rdma_bind_addr(l2, (struct sockaddr *)&a) == 0, "bind");
	CHECK(rdma_listen(l2, 1) == -1 && errno == EADDRINUSE, "second listener");
	rdma_destroy_id(l2);
	rdma_destroy_id(l1);
	printf("ok: bad arguments\n");
}

static int server(void)
{
	struct rdma_cm_id *lrej = listener(PORT_REJ), *lok = listener(PORT_OK);
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1, .rnr_retry_count = 7 };
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	char rep[196];
	const char *r;

	bad_arguments();
	/* 1: reject with private data */
	ev = wait_event(RDMA_CM_EVENT_CONNECT_REQUEST, 20000);
	CHECK(ev->listen_id == lrej, "request on the wrong listener");
	id = ev->id;
	rdma_ack_cm_event(ev);
	CHECK(rdma_reject(id, "nope, not today", 16) == 0, "reject");
	rdma_destroy_id(id);
	printf("ok: rejected with private data\n");
	/* 2: private data both ways, then disconnection */
	ev = wait_event(RDMA_CM_EVENT_CONNECT_REQUEST, 20000);
	CHECK(ev->listen_id == lok, "request on the wrong listener");
	CHECK(ev->param.conn.private_data_len == 56, "REQ pdata len %u",
	      ev->param.conn.private_data_len);
	r = ev->param.conn.private_data;
	for (int i = 0; i < 56; i++)
		CHECK((uint8_t)r[i] == (uint8_t)(0xA0 + i), "REQ pdata byte %d", i);
	CHECK(ev->param.conn.responder_resources == 1 &&
	      ev->param.conn.initiator_depth == 1, "REQ resources");
	CHECK(rdma_get_src_port(ev->id) == htons(PORT_OK), "src port");
	id = ev->id;
	rdma_ack_cm_event(ev);
	CHECK(rdma_create_qp(id, NULL, &qa) == 0, "create_qp");
	for (int i = 0; i < (int)sizeof(rep); i++)
		rep[i] = (char)(0x30 + i % 64);
	cp.private_data = rep;
	cp.private_data_len = sizeof(rep);
	CHECK(rdma_accept(id, &cp) == 0, "accept");
	ev = wait_event(RDMA_CM_EVENT_ESTABLISHED, 20000);
	rdma_ack_cm_event(ev);
	printf("ok: established (passive)\n");
	ev = wait_event(RDMA_CM_EVENT_DISCONNECTED, 20000);
	rdma_ack_cm_event(ev);
	CHECK(rdma_disconnect(id) == 0, "disconnect answers the DREQ");
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	printf("ok: disconnected by the peer\n");
	rdma_destroy_id(lrej);
	rdma_destroy_id(lok);
	return 0;
}

static struct rdma_cm_id *resolve(int port)
{
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	struct sockaddr_in a;

	CHECK(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) == 0, "create_id");
	addr4(&a, "10.0.0.1", port);
	CHECK(rdma_resolve_addr(id, NULL, (struct sockaddr *)&a, 2000) == 0,
	      "resolve_addr");
	ev = wait_event(RDMA_CM_EVENT_ADDR_RESOLVED, 5000);
	rdma_ack_cm_event(ev);
	CHECK(rdma_resolve_route(id, 2000) == 0, "resolve_route");
	ev = wait_event(RDMA_CM_EVENT_ROUTE_RESOLVED, 5000);
	rdma_ack_cm_event(ev);
	CHECK(id->verbs != NULL && id->route.num_paths == 1, "bound to a device");
	return id;
}

static int client(void)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 } };
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1, .retry_count = 7,
				      .rnr_retry_count = 7 };
	struct rdma_cm_event *ev;
	struct rdma_cm_id *id;
	uint8_t req[57];
	const uint8_t *r;
	int fl;

	/* a non-blocking channel with nothing in it */
	fl = fcntl(ch->fd, F_GETFL);
	CHECK(fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) == 0, "fcntl");
	CHECK(rdma_get_cm_event(ch, &ev) == -1 && errno == EAGAIN, "EAGAIN");
	CHECK(fcntl(ch->fd, F_SETFL, fl) == 0, "fcntl");
	printf("ok: non-blocking channel\n");
	sleep(1);                       /* the server's bad-argument checks */
	/* 0: nobody listens */
	id = resolve(PORT_NOBODY);
	CHECK(rdma_create_qp(id, NULL, &qa) == 0, "create_qp");
	CHECK(rdma_connect(id, &cp) == 0, "connect");
	ev = wait_event(RDMA_CM_EVENT_REJECTED, 10000);
	CHECK(ev->status == 8, "REJ reason %d, want 8 (invalid service ID)",
	      ev->status);
	rdma_ack_cm_event(ev);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	printf("ok: no listener: rejected, reason 8\n");
	/* 1: rejected with the consumer's private data */
	id = resolve(PORT_REJ);
	CHECK(rdma_create_qp(id, NULL, &qa) == 0, "create_qp");
	CHECK(rdma_connect(id, &cp) == 0, "connect");
	ev = wait_event(RDMA_CM_EVENT_REJECTED, 20000);
	CHECK(ev->status == 28, "REJ reason %d, want 28", ev->status);
	CHECK(ev->param.conn.private_data != NULL &&
	      memcmp(ev->param.conn.private_data, "nope, not today", 16) == 0,
	      "REJ private data");
	rdma_ack_cm_event(ev);
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
	printf("ok: rejected with private data, reason 28\n");
	/* 2: private data both ways */
	id = resolve(PORT_OK);
	CHECK(rdma_create_qp(id, NULL, &qa) == 0, "create_qp");
	for (int i = 0; i < 57; i++)
		req[i] = (uint8_t)(0xA0 + i);
	cp.private_data = req;
	cp.private_data_len = 57;
	CHECK(rdma_connect(id, &cp) == -1 && errno == EINVAL, "57 bytes in a REQ");
	cp.private_data_len = 56;
	CHECK(rdma_connect(id, &cp) == 0, "connect");
	ev = wait_event(RDMA_CM_EVENT_ESTABLISHED, 20000);
	CHECK(ev->param.conn.private_data_len == 196, "REP pdata len %u",
	      ev->param.conn.private_data_len);
	r = ev->param.conn.private_data;
	for (int i = 0; i < 196; i++)
		CHECK(r[i] == (uint8_t)(0x30 + i % 64), "REP pdata byte %d", i);
	rdma_ack_cm_event(ev);
	printf("ok: established (active), private data both ways\n");
	/*
	 * The QP destroyed with verbs, the id still connected (rping does
	 * this, its CM thread then taking DISCONNECTED): the id forgets it,
	 * and disconnecting must not touch the freed QP.
	 */
	CHECK(ibv_destroy_qp(id->qp) == 0, "ibv_destroy_qp");
	CHECK(id->qp == NULL, "the id still names the QP destroyed with verbs");
	CHECK(rdma_disconnect(id) == 0, "disconnect");
	ev = wait_event(RDMA_CM_EVENT_DISCONNECTED, 20000);
	rdma_ack_cm_event(ev);
	rdma_destroy_qp(id);            /* its CQs */
	rdma_destroy_id(id);
	printf("ok: QP destroyed with verbs, then disconnected\n");
	printf("ok: disconnected\n");
	return 0;
}

int main(int argc, char **argv)
{
	int rc;

	if (argc != 2 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: cm_api server|client\n");
		return 2;
	}
	ch = rdma_create_event_channel();
	CHECK(ch != NULL, "create_event_channel");
	rc = strcmp(argv[1], "server") == 0 ? server() : client();
	rdma_destroy_event_channel(ch);
	return rc;
}
