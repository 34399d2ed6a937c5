/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * link_bench — raw link figures of a pmd device, one core per side:
 * frames/s and Gbit/s at the receiver for 64 B, 1 KiB, 4 KiB and 9000 B
 * frames (those the MTU allows), then the 64 B ping-pong round trip.
 *
 *   link_bench rx                       count, echo pings, print the table
 *   link_bench tx --peer A.B.C.D [--seconds S] [--pings N]
 *
 * The device comes from the environment (SROCE_CONFIG / SROCE_NODE), in
 * inline mode: frames are built in a poll callback, as the transport will.
 * Figures only; nothing is asserted about timing.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "frame.h"
#include "gid.h"
#include "pmd.h"

#define LB_HDR (SR_ETH_HLEN + SR_IPV4_HLEN + SR_UDP_HLEN)
#define LB_PORT_BASE 0xc000          /* UDP source port = base + kind */
#define LB_BURST 32
#define LB_SIZES 4
#define LB_PING_MAX 100000

enum lb_kind { LB_DATA = 1, LB_END, LB_PING, LB_DONE };

static const uint32_t lb_sizes[LB_SIZES] = { 64, 1024, 4096, 9000 };

struct lb_phase {
	uint32_t size;
	uint64_t frames, bytes, first_ns, last_ns;
};

struct lb {
	struct sr_pmd_dev *dev;
	const struct sr_link_ops *ops;
	void *link;
	uint8_t mac[6], peer_mac[6], ip[4], peer_ip[4];
	/* tx */
	bool sending;
	uint32_t size;
	uint64_t sent;
	/* rx */
	struct lb_phase phase[LB_SIZES];
	bool done;
	/* ping */
	volatile bool pong;
};

static int lb_size_index(uint32_t size)
{
	for (int i = 0; i < LB_SIZES; i++)
		if (lb_sizes[i] == size)
			return i;
	return -1;
}

static int lb_build(struct lb *lb, uint32_t size, uint32_t kind, uint32_t seq)
{
	void *cookie;
	uint8_t *b = lb->ops->tx_alloc(lb->link, size, &cookie);

	if (b == NULL)
		return -ENOBUFS;
	/* The kind rides in the UDP source port, so 64 B frames carry it. */
	sr_frame_put_udp4(b, lb->peer_mac, lb->mac, 0, lb->ip, lb->peer_ip,
			  (uint16_t)(LB_PORT_BASE + kind), size - LB_HDR);
	memset(b + LB_HDR, 0, SR_BTH_LEN);
	b[LB_HDR] = 0x04;
	sr_put_be32(b + LB_HDR + 8, seq & 0xffffff);
	lb->ops->tx_submit(lb->link, cookie, size);
	return 0;
}

/* The sender's poll callback: one burst per round while sending. */
static int lb_tx_poll(void *ctx, unsigned int lane, unsigned int nlanes)
{
	struct lb *lb = ctx;
	int n = 0;

	(void)nlanes;
	if (!lb->sending || lane != 0)
		return 0;
	for (; n < LB_BURST; n++)
		if (lb_build(lb, lb->size, LB_DATA, (uint32_t)lb->sent++))
			break;
	return n;
}

static void lb_rx_one(void *ctx, const uint8_t *frame, uint32_t len)
{
	struct lb *lb = ctx;
	uint32_t kind, size;
	void *cookie;
	uint8_t *b;
	int i;

	if (len < LB_HDR + SR_BTH_LEN + SR_ICRC_LEN)
		return;
	kind = sr_get_be16(frame + LB_HDR - SR_UDP_HLEN) - LB_PORT_BASE;
	size = len;
	switch (kind) {
	case LB_DATA:
		i = lb_size_index(size);
		if (i < 0)
			return;
		if (lb->phase[i].frames == 0)
			lb->phase[i].first_ns = sr_pmd_now_ns(lb->dev);
		lb->phase[i].size = size;
		lb->phase[i].frames++;
		lb->phase[i].bytes += len;
		lb->phase[i].last_ns = sr_pmd_now_ns(lb->dev);
		return;
	case LB_PING:
		if (lb->pong) {                  /* the pinger got its answer */
			lb->pong = false;
			return;
		}
		b = lb->ops->tx_alloc(lb->link, len, &cookie);
		if (b == NULL)
			return;
		memcpy(b, frame, len);
		memcpy(b, frame + 6, 6);
		memcpy(b + 6, frame, 6);
		memcpy(b + SR_ETH_HLEN + 12, frame + SR_ETH_HLEN + 16, 4);
		memcpy(b + SR_ETH_HLEN + 16, frame + SR_ETH_HLEN + 12, 4);
		lb->ops->tx_submit(lb->link, cookie, len);
		return;
	case LB_DONE:
		lb->done = true;
		return;
	default:
		return;
	}
}

static void lb_rx(void *ctx, const struct sr_link_frame *f, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		lb_rx_one(ctx, f[i].data, f[i].len);
}

static int lb_resolve(struct lb *lb)
{
	uint8_t key[16];
	uint64_t end = sr_pmd_now_ns(lb->dev) + 10ull * 1000000000;
	int rc;

	sr_gid_from_ipv4(key, lb->peer_ip);
	while ((rc = sr_pmd_resolve(lb->dev, key, lb->peer_mac)) == -EAGAIN ||
	       rc == -EHOSTUNREACH) {
		if (sr_pmd_now_ns(lb->dev) > end)
			return -ETIMEDOUT;
		for (int i = 0; i < 1000; i++)
			sr_pmd_progress(lb->dev);
	}
	return rc;
}

static void lb_spin(struct lb *lb, uint64_t ns)
{
	uint64_t end = sr_pmd_now_ns(lb->dev) + ns;

	while (sr_pmd_now_ns(lb->dev) < end)
		sr_pmd_progress(lb->dev);
}

static int lb_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int lb_run_tx(struct lb *lb, double seconds, uint32_t pings)
{
	uint32_t mtu_frame = sr_pmd_mtu(lb->dev) + SR_ETH_HLEN;
	uint64_t *rtt;

	if (lb_resolve(lb)) {
		fprintf(stderr, "link_bench: peer did not resolve\n");
		return 1;
	}
	sr_pmd_engine_register(lb->dev, lb_tx_poll, lb);
	for (int i = 0; i < LB_SIZES; i++) {
		if (lb_sizes[i] > mtu_frame)
			continue;
		lb->size = lb_sizes[i];
		lb->sending = true;
		lb_spin(lb, (uint64_t)(seconds * 1e9));
		lb->sending = false;
		lb_spin(lb, 50000000);
		for (int k = 0; k < 3; k++)
			lb_build(lb, 64, LB_END, 0);
		lb_spin(lb, 50000000);
	}
	sr_pmd_engine_unregister(lb->dev, lb_tx_poll, lb);

	rtt = calloc(pings, sizeof(*rtt));
	if (rtt == NULL)
		return 1;
	uint32_t got = 0;

	for (uint32_t i = 0; i < pings; i++) {
		uint64_t t0 = sr_pmd_now_ns(lb->dev), t;

		lb->pong = true;
		lb_build(lb, 64, LB_PING, i);
		do {
			sr_pmd_progress(lb->dev);
			t = sr_pmd_now_ns(lb->dev);
		} while (lb->pong && t - t0 < 100000000);
		if (!lb->pong)
			rtt[got++] = t - t0;
	}
	qsort(rtt, got, sizeof(*rtt), lb_cmp);
	if (got) {
		double sum = 0;

		for (uint32_t i = 0; i < got; i++)
			sum += (double)rtt[i];
		printf("ping-pong 64 B: %u/%u answered, RTT min %.2f us, "
		       "median %.2f us, mean %.2f us, p99 %.2f us\n",
		       got, pings, rtt[0] / 1e3, rtt[got / 2] / 1e3,
		       sum / got / 1e3, rtt[got * 99 / 100] / 1e3);
	}
	free(rtt);
	for (int k = 0; k < 3; k++)
		lb_build(lb, 64, LB_DONE, 0);
	lb_spin(lb, 50000000);
	printf("tx: %llu data frames offered, %llu refused by a full ring\n",
	       (unsigned long long)lb->sent,
	       (unsigned long long)sr_pmd_stats(lb->dev)->dev[SR_CTR_TX_FULL]);
	return got ? 0 : 1;
}

static int lb_run_rx(struct lb *lb, double timeout)
{
	uint64_t end = sr_pmd_now_ns(lb->dev) + (uint64_t)(timeout * 1e9);
	const struct sr_stats_shm *s = sr_pmd_stats(lb->dev);

	/* Until the sender says done, or leaves (its link goes down). */
	while (!lb->done && sr_pmd_now_ns(lb->dev) < end) {
		if (sr_pmd_progress(lb->dev) == 0 &&
		    sr_pmd_link_wait(lb->dev, 0) != 0)
			break;
	}
	printf("%-8s %14s %12s %10s\n", "frame", "frames", "Mframes/s", "Gbit/s");
	for (int i = 0; i < LB_SIZES; i++) {
		const struct lb_phase *p = &lb->phase[i];
		double sec = (double)(p->last_ns - p->first_ns) / 1e9;

		if (p->frames < 2 || sec <= 0) {
			printf("%-8u %14s\n", lb_sizes[i], "(not run)");
			continue;
		}
		printf("%-8u %14llu %12.3f %10.2f\n", p->size,
		       (unsigned long long)p->frames, p->frames / sec / 1e6,
		       (double)p->bytes * 8 / sec / 1e9);
	}
	printf("rx: %llu frames received in all\n",
	       (unsigned long long)s->dev[SR_CTR_RCVD_PKTS]);
	return lb->done ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "peer", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "pings", required_argument, NULL, 'n' },
		{ 0 },
	};
	struct lb lb = { 0 };
	double seconds = 1.0;
	uint32_t pings = 20000;
	bool tx;
	int c, rc;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (inet_pton(AF_INET, optarg, lb.peer_ip) != 1)
				return 2;
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			break;
		case 'n':
			pings = (uint32_t)strtoul(optarg, NULL, 0);
			if (pings == 0 || pings > LB_PING_MAX)
				pings = 1000;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc ||
	    (strcmp(argv[optind], "tx") && strcmp(argv[optind], "rx"))) {
		fprintf(stderr, "usage: link_bench rx | tx --peer IP [--seconds S] [--pings N]\n");
		return 2;
	}
	tx = strcmp(argv[optind], "tx") == 0;
	if (sr_pmd_open(&lb.dev))
		return 2;
	lb.ops = sr_pmd_link_ops();
	lb.link = sr_pmd_link(lb.dev);
	sr_pmd_mac(lb.dev, lb.mac);
	/* the device's IPv4 GID: the configured address, or a host NIC's */
	if (sr_pmd_gids(lb.dev)->entry[1].valid)
		memcpy(lb.ip, sr_pmd_gids(lb.dev)->entry[1].gid + 12, 4);
	else
		memcpy(lb.ip, sr_pmd_config_of(lb.dev)->ipv4, 4);
	sr_pmd_set_rx_handler(lb.dev, lb_rx, &lb);
	if (sr_pmd_link_wait(lb.dev, 20000)) {
		fprintf(stderr, "link_bench: link did not come up\n");
		rc = 1;
	} else {
		rc = tx ? lb_run_tx(&lb, seconds, pings) :
			  lb_run_rx(&lb, 8 * seconds + 60);
	}
	sr_pmd_dev_destroy(lb.dev);
	return rc;
}
