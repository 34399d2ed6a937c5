/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gid_change.c — a verbs consumer on a host NIC (port = iface:NAME) sees
 * the interface's addresses come and go: IBV_EVENT_GID_CHANGE on port 1
 * on the async fd of every open context, and the GID in ibv_query_gid.
 * Run by gid_change.sh, which owns the interface and its addresses.
 *
 *   gid_change ADDR STEP_FILE [MTU]
 *
 * Opens the first device twice, checks ADDR is no GID, creates
 * STEP_FILE.1 (the script adds ADDR), waits for the event on both
 * contexts and the GID; brings the transport up (a CQ), creates
 * STEP_FILE.2 (the script deletes ADDR), waits for the event and the GID
 * to go.  With MTU: creates STEP_FILE.3 (the script sets the interface's
 * MTU) and waits for ibv_query_port's active_mtu to become MTU's.  Each
 * wait is bounded (SR_WAIT_MS); exit 0 when all held.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define SR_WAIT_MS 3000
#define SR_NCTX    2

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The index of gid in the port's table, or -1. */
static int gid_find(struct ibv_context *c, const uint8_t gid[16])
{
	struct ibv_port_attr pa;
	union ibv_gid g;

	if (ibv_query_port(c, 1, &pa))
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++)
		if (ibv_query_gid(c, 1, i, &g) == 0 &&
		    memcmp(g.raw, gid, 16) == 0)
			return i;
	return -1;
}

static int step(const char *file, int n)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s.%d", file, n);
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * Wait for IBV_EVENT_GID_CHANGE (port 1) on every context, then for gid's
 * presence to be `present`.  0, or -1 with a line.
 */
static int wait_change(struct ibv_context **ctx, const uint8_t gid[16],
		       int present, const char *what)
{
	uint64_t t0 = now_ms(), end = t0 + SR_WAIT_MS;
	int got[SR_NCTX] = { 0 };
	int ngot = 0, idx;

	while (ngot < SR_NCTX && now_ms() < end) {
		struct pollfd p[SR_NCTX];

		for (int i = 0; i < SR_NCTX; i++)
			p[i] = (struct pollfd){ .fd = ctx[i]->async_fd,
						.events = POLLIN };
		if (poll(p, SR_NCTX, 100) < 0 && errno != EINTR)
			return perror("poll"), -1;
		for (int i = 0; i < SR_NCTX; i++) {
			struct ibv_async_event ev;

			if (!(p[i].revents & POLLIN) ||
			    ibv_get_async_event(ctx[i], &ev))
				continue;
			if (ev.event_type == IBV_EVENT_GID_CHANGE &&
			    ev.element.port_num == 1 && !got[i]) {
				got[i] = 1;
				ngot++;
			}
			ibv_ack_async_event(&ev);
		}
	}
	if (ngot < SR_NCTX) {
		fprintf(stderr, "%s: IBV_EVENT_GID_CHANGE on %d of %d contexts "
			"in %d ms\n", what, ngot, SR_NCTX, SR_WAIT_MS);
		return -1;
	}
	/* the table is written before the event is queued */
	for (int i = 0; i < SR_NCTX; i++) {
		idx = gid_find(ctx[i], gid);
		if ((idx >= 0) != present) {
			fprintf(stderr, "%s: context %d: GID %s after the "
				"event\n", what, i, present ? "missing" : "still there");
			return -1;
		}
	}
	if (present)
		printf("%s: IBV_EVENT_GID_CHANGE on %d contexts after %llu ms, "
		       "GID at index %d\n", what, SR_NCTX,
		       (unsigned long long)(now_ms() - t0), idx);
	else
		printf("%s: IBV_EVENT_GID_CHANGE on %d contexts after %llu ms, "
		       "GID gone\n", what, SR_NCTX,
		       (unsigned long long)(now_ms() - t0));
	return 0;
}

static int wait_mtu(struct ibv_context *c, enum ibv_mtu want)
{
	uint64_t t0 = now_ms(), end = t0 + SR_WAIT_MS;
	struct ibv_port_attr pa = { 0 };
	while (now_ms() < end) {
		if (ibv_query_port(c, 1, &pa) == 0 && pa.active_mtu == want) {
			printf("mtu: active_mtu %d after %llu ms\n",
			       128 << pa.active_mtu,
			       (unsigned long long)(now_ms() - t0));
			return 0;
		}
		usleep(10000);
	}
	fprintf(stderr, "mtu: active_mtu %d, want %d\n", 128 << pa.active_mtu,
		128 << want);
	return -1;
}

static enum ibv_mtu mtu_enum(int ip_mtu)
{
	/* the largest IB MTU whose RoCEv2 frame fits (84 bytes of headers) */
	enum ibv_mtu m = IBV_MTU_256;

	while (m < IBV_MTU_4096 && (128 << (m + 1)) + 84 <= ip_mtu)
		m++;
	return m;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx[SR_NCTX] = { NULL };
	struct ibv_device **list;
	struct ibv_cq *cq = NULL;
	uint8_t gid[16];
	int n, rc = 1;

	if (argc < 3 || inet_pton(AF_INET6, argv[1], gid) != 1) {
		fprintf(stderr, "usage: gid_change IPV6 STEP_FILE [MTU]\n");
		return 2;
	}
	list = ibv_get_device_list(&n);
	if (list == NULL || n < 1) {
		fprintf(stderr, "no device\n");
		return 1;
	}
	for (int i = 0; i < SR_NCTX; i++) {
		ctx[i] = ibv_open_device(list[0]);
		if (ctx[i] == NULL) {
			perror("ibv_open_device");
			goto out_close;
		}
	}
	if (gid_find(ctx[0], gid) >= 0) {
		fprintf(stderr, "%s is a GID before it was added\n", argv[1]);
		goto out_close;
	}
	if (step(argv[2], 1) || wait_change(ctx, gid, 1, "added"))
		goto out_close;
	/* the transport up: its GID table follows too (port_event.c) */
	cq = ibv_create_cq(ctx[0], 16, NULL, NULL, 0);
	if (cq == NULL) {
		perror("ibv_create_cq");
		goto out_close;
	}
	if (step(argv[2], 2) || wait_change(ctx, gid, 0, "deleted"))
		goto out_close;
	if (argc > 3) {
		enum ibv_mtu want = mtu_enum(atoi(argv[3]));
		struct ibv_port_attr pa;

		if (ibv_query_port(ctx[1], 1, &pa) || pa.active_mtu == want) {
			fprintf(stderr, "mtu: active_mtu is %d before the "
				"change\n", 128 << want);
			goto out_close;
		}
		if (step(argv[2], 3) || wait_mtu(ctx[1], want))
			goto out_close;
	}
	rc = 0;
out_close:
	if (cq)
		ibv_destroy_cq(cq);
	for (int i = 0; i < SR_NCTX; i++)
		if (ctx[i])
			ibv_close_device(ctx[i]);
	ibv_free_device_list(list);
	return rc;
}
